// passinfra/instruments/print_ir_changed.hpp — print the IR after passes that changed it.
//
// PrintIRChangedOptions{diff = false, context = 3}
// PrintIRChanged(filter = {}, out = {}, options = {})   after each pass the filter lets through
//                                          whose printed IR differs from its printed input, writes
//                                          "After Running Pass: <name>\n<IR text>", or with `diff`
//                                          "Diff After Running Pass: <name>\n<unified diff>"
// PrintIRChanged(out, options = {})        every pass
// p.printed()                              how many times it printed
//
// run_before_pass prints the input of each filtered pass and keeps the text
// on a stack (passes nest); run_after_pass prints the output and compares
// the two texts. A pass that fails drops its saved text
// (run_after_pass_failed), and exit_pass_ctx drops them all. So the IR is
// printed twice per filtered pass: this is a debugging instrument. The
// unified diff is passinfra's own (LCS on lines, see detail/line_diff.hpp),
// with the headers "--- before <name>" and "+++ after <name>". The IR must
// be printable. Thread-safe (SPEC §11.8): each thread keeps its own stack of
// saved inputs (a parallel nest's units run their passes on several threads
// at once; on each thread they nest), the count is atomic, and a parallel
// nest delivers the units' text in unit order (SPEC §11.5).
#pragma once

#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/line_diff.hpp"
#include "passinfra/instruments/output.hpp"

namespace passinfra {

namespace detail {

// SavedInputs: PrintIRChanged's saved inputs, one stack per thread, under a
// lock (the instrument prints the IR twice per pass: the lock is not its
// cost). Copying copies the stacks.
class SavedInputs {
 public:
  using Text = std::optional<std::string>;
  SavedInputs() = default;
  SavedInputs(const SavedInputs& other) : stacks_(other.copy()) {}
  SavedInputs& operator=(const SavedInputs& other) {
    if (this != &other) {
      auto stacks = other.copy();
      const std::lock_guard lock(mutex_);
      stacks_ = std::move(stacks);
    }
    return *this;
  }
  ~SavedInputs() = default;

  void push(Text text) {
    const std::lock_guard lock(mutex_);
    stacks_[std::this_thread::get_id()].push_back(std::move(text));
  }
  // pop(out): the calling thread's innermost saved input; false when it has none.
  bool pop(Text& out) {
    const std::lock_guard lock(mutex_);
    const auto it = stacks_.find(std::this_thread::get_id());
    if (it == stacks_.end() || it->second.empty()) return false;
    out = std::move(it->second.back());
    it->second.pop_back();
    if (it->second.empty()) stacks_.erase(it);
    return true;
  }
  void drop() noexcept {
    Text ignored;
    (void)pop(ignored);
  }
  void clear() noexcept {
    const std::lock_guard lock(mutex_);
    stacks_.clear();
  }

 private:
  std::map<std::thread::id, std::vector<Text>> copy() const {
    const std::lock_guard lock(mutex_);
    return stacks_;
  }

  mutable std::mutex mutex_;
  std::map<std::thread::id, std::vector<Text>> stacks_;
};

}  // namespace detail

struct PrintIRChangedOptions {
  bool diff = false;        // a unified diff instead of the whole IR
  std::size_t context = 3;  // lines of context around each change in the diff
};

class PrintIRChanged {
 public:
  explicit PrintIRChanged(PassFilter filter = {}, TextSink out = {}, PrintIRChangedOptions options = {})
      : filter_(std::move(filter)), out_(out), options_(options) {}
  explicit PrintIRChanged(TextSink out, PrintIRChangedOptions options = {}) : out_(out), options_(options) {}

  std::string_view name() const noexcept { return "PrintIRChanged"; }
  // Its hooks may run on several threads at once (SPEC §11.8).
  static constexpr bool thread_safe = true;

  void exit_pass_ctx() noexcept { saved_.clear(); }

  // run_before_pass: saves the printed input (nothing for a filtered-out pass).
  template <class IR>
  void run_before_pass(const IR& ir, const PassInfo& info) {
    check<IR>();
    if constexpr (PrintableIR<IR>) {
      if (filter_.matches(info.name)) {
        saved_.push(ir_traits<IR>::print(ir));
      } else {
        saved_.push(std::nullopt);
      }
    }
  }

  // run_after_pass: prints the output when its text differs from the input's.
  template <class IR>
  void run_after_pass(const IR& ir, const PassInfo& info) {
    check<IR>();
    if constexpr (PrintableIR<IR>) {
      std::optional<std::string> before;
      if (!saved_.pop(before)) return;  // its input was dropped (exit_pass_ctx while it ran)
      if (!before) return;
      std::string after = ir_traits<IR>::print(ir);
      if (after == *before) return;
      std::string text;
      if (options_.diff) {
        text = "Diff After Running Pass: ";
        text += info.name;
        detail::append_unit(text);
        text += '\n';
        text += detail::unified_diff(*before, after, "before " + std::string(info.name),
                                     "after " + std::string(info.name), options_.context);
      } else {
        text = "After Running Pass: ";
        text += info.name;
        detail::append_unit(text);
        text += '\n';
        text += after;
      }
      out_.write(text);
      ++printed_;
    }
  }

  // run_after_pass_failed: the pass produced no output; drop its input.
  void run_after_pass_failed(const PassInfo&, const std::exception_ptr&) noexcept { saved_.drop(); }

  std::size_t printed() const noexcept { return printed_.get(); }
  const PrintIRChangedOptions& options() const noexcept { return options_; }

 private:
  template <class IR>
  static constexpr void check() {
    static_assert(PrintableIR<IR>,
                  "passinfra::PrintIRChanged prints the IR, but the IR cannot print itself: specialize "
                  "passinfra::ir_traits<IR> with `static std::string print(const IR&)` (see "
                  "passinfra/core/ir_traits.hpp)");
  }

  PassFilter filter_;
  TextSink out_;
  PrintIRChangedOptions options_;
  detail::SavedInputs saved_;
  detail::SharedCount printed_;
};

}  // namespace passinfra
