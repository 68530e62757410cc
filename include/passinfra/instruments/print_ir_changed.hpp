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
// be printable.
//
// Thread-safe (SPEC §11.8): each thread has its own stack of saved texts
// (a parallel nest's units run their passes on several threads at once; the
// nest delivers each unit's output in unit order), kept under a lock that a
// hook holds only to push or pop; printing and comparing run outside it.
// exit_pass_ctx drops the calling thread's stack. Copies copy the options,
// the filter, the sink and printed(), not the saved texts.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/line_diff.hpp"
#include "passinfra/instruments/output.hpp"

namespace passinfra {

struct PrintIRChangedOptions {
  bool diff = false;        // a unified diff instead of the whole IR
  std::size_t context = 3;  // lines of context around each change in the diff
};

namespace detail {
// PrintIRChanged is this template's one specialization: a class template's members are
// compiled only when used, so including the header compiles none of them
// (its std types spelled dependently: see dependent_t).
template <class T = void>
class PrintIRChangedOf {
 public:
  explicit PrintIRChangedOf(PassFilter filter = {}, TextSink out = {}, PrintIRChangedOptions options = {})
      : filter_(std::move(filter)), out_(out), options_(options), saved_(std::make_unique<Saved>()) {}
  explicit PrintIRChangedOf(TextSink out, PrintIRChangedOptions options = {})
      : out_(out), options_(options), saved_(std::make_unique<Saved>()) {}
  PrintIRChangedOf(const PrintIRChangedOf& other)
      : filter_(other.filter_),
        out_(other.out_),
        options_(other.options_),
        saved_(std::make_unique<Saved>()),
        printed_(other.printed_) {}
  PrintIRChangedOf& operator=(const PrintIRChangedOf& other) {
    if (this != &other) {
      filter_ = other.filter_;
      out_ = other.out_;
      options_ = other.options_;
      saved_ = std::make_unique<Saved>();
      printed_ = other.printed_;
    }
    return *this;
  }
  // No move constructor or assignment: a move is a copy (the moved-from object stays usable).
  ~PrintIRChangedOf() = default;

  std::string_view name() const noexcept { return "PrintIRChanged"; }
  static constexpr bool thread_safe = true;  // SPEC §11.8

  void exit_pass_ctx() noexcept {
    const detail::LightLock lock(saved_->mutex);
    if (Stack* stack = saved_->stacks.find()) stack->clear();
  }

  // run_before_pass: saves the printed input (nothing for a filtered-out pass).
  template <class IR>
  void run_before_pass(const IR& ir, const PassInfo& info) {
    check<IR>();
    if constexpr (PrintableIR<IR>) {
      dependent_t<std::optional<std::string>, IR> text;
      if (filter_.matches(info.name)) text = ir_traits<IR>::print(ir);
      const detail::LightLock lock(saved_->mutex);
      saved_->stacks.mine().push_back(std::move(text));
    }
  }

  // run_after_pass: prints the output when its text differs from the input's.
  template <class IR>
  void run_after_pass(const IR& ir, const PassInfo& info) {
    check<IR>();
    if constexpr (PrintableIR<IR>) {
      dependent_t<std::optional<std::string>, IR> before;
      {
        const detail::LightLock lock(saved_->mutex);
        Stack* stack = saved_->stacks.find();
        if (stack == nullptr || stack->empty()) return;  // its input was dropped (exit_pass_ctx while it ran)
        before = std::move(stack->back());
        stack->pop_back();
      }
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
  void run_after_pass_failed(const PassInfo&, const std::exception_ptr&) noexcept {
    const detail::LightLock lock(saved_->mutex);
    if (Stack* stack = saved_->stacks.find(); stack != nullptr && !stack->empty()) stack->pop_back();
  }

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

  using Stack = dependent_t<std::vector<std::optional<std::string>>, T>;
  // The saved texts, one stack per thread that ran a pass under this instrument.
  struct Saved {
    detail::LightMutex mutex;         // guards `stacks`
    detail::PerThread<Stack> stacks;  // one stack per thread that ran a pass under this instrument
  };

  PassFilter filter_;
  TextSink out_;
  PrintIRChangedOptions options_;
  std::unique_ptr<Saved> saved_;
  detail::SharedCount printed_;
};
}  // namespace detail

using PrintIRChanged = detail::PrintIRChangedOf<>;

}  // namespace passinfra
