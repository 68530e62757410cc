// passinfra/instruments/print_ir_after.hpp — print the IR after passes.
//
// PrintIRAfter(filter = {}, out = {})     after each pass the filter lets through, writes
//                                         "After Running Pass: <name>\n<IR text>" to `out`
// PrintIRAfter(out)                       every pass
// p.printed()                             how many times it printed
//
// The IR must be printable (PrintableIR: ir_traits<IR>::print). A vetoed
// or failed pass is not printed (run_after_pass is not called). `out` is a
// TextSink: the log sink at INFO by default, or a stream.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/instruments/output.hpp"

namespace passinfra {

class PrintIRAfter {
 public:
  explicit PrintIRAfter(PassFilter filter = {}, TextSink out = {}) : filter_(std::move(filter)), out_(out) {}
  explicit PrintIRAfter(TextSink out) : out_(out) {}

  std::string_view name() const noexcept { return "PrintIRAfter"; }
  // Its hooks may run on several threads at once (SPEC §11.8): a parallel
  // nest holds each unit's text back and delivers it in unit order.
  static constexpr bool thread_safe = true;

  // run_after_pass: the pass's output, after it ran (not after a failure).
  template <class IR>
  void run_after_pass(const IR& ir, const PassInfo& info) {
    if constexpr (!PrintableIR<IR>) {
      static_assert(PrintableIR<IR>,
                    "passinfra::PrintIRAfter prints the IR, but the IR cannot print itself: specialize "
                    "passinfra::ir_traits<IR> with `static std::string print(const IR&)` (see "
                    "passinfra/core/ir_traits.hpp)");
    } else {
      if (!filter_.matches(info.name)) return;
      std::string text = "After Running Pass: ";
      text += info.name;
      detail::append_unit(text);
      text += '\n';
      text += ir_traits<IR>::print(ir);
      out_.write(text);
      ++printed_;
    }
  }

  std::size_t printed() const noexcept { return printed_.get(); }
  const PassFilter& filter() const noexcept { return filter_; }

 private:
  PassFilter filter_;
  TextSink out_;
  detail::SharedCount printed_;
};

}  // namespace passinfra
