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
// be printable. One thread at a time.
#pragma once

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/line_diff.hpp"
#include "passinfra/instruments/output.hpp"

namespace passinfra {

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

  void exit_pass_ctx() noexcept { saved_.clear(); }

  // run_before_pass: saves the printed input (nothing for a filtered-out pass).
  template <class IR>
  void run_before_pass(const IR& ir, const PassInfo& info) {
    check<IR>();
    if constexpr (PrintableIR<IR>) {
      if (filter_.matches(info.name)) {
        std::string text = ir_traits<IR>::print(ir);
        saved_.emplace_back(std::move(text));
      } else {
        saved_.emplace_back(std::nullopt);
      }
    }
  }

  // run_after_pass: prints the output when its text differs from the input's.
  template <class IR>
  void run_after_pass(const IR& ir, const PassInfo& info) {
    check<IR>();
    if constexpr (PrintableIR<IR>) {
      if (saved_.empty()) return;  // its input was dropped (exit_pass_ctx while it ran)
      std::optional<std::string> before = std::move(saved_.back());
      saved_.pop_back();
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
    if (!saved_.empty()) saved_.pop_back();
  }

  std::size_t printed() const noexcept { return printed_; }
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
  std::vector<std::optional<std::string>> saved_;
  std::size_t printed_ = 0;
};

}  // namespace passinfra
