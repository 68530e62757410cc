// passinfra/instruments/print_ir_before.hpp — print the IR before passes.
//
// PrintIRBefore(filter = {}, out = {})     before each pass the filter lets through, writes
//                                          "Before Running Pass: <name>\n<IR text>" to `out`
// PrintIRBefore(out)                       every pass
// p.printed()                              how many times it printed
//
// The IR must be printable (PrintableIR: ir_traits<IR>::print). A vetoed
// pass is not printed (run_before_pass is not called for it). `out` is a
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

class PrintIRBefore {
 public:
  explicit PrintIRBefore(PassFilter filter = {}, TextSink out = {}) : filter_(std::move(filter)), out_(out) {}
  explicit PrintIRBefore(TextSink out) : out_(out) {}

  std::string_view name() const noexcept { return "PrintIRBefore"; }
  // Its hooks may run on several threads at once (SPEC §11.8): a parallel
  // nest holds each unit's text back and delivers it in unit order.
  static constexpr bool thread_safe = true;

  // run_before_pass: the pass's input, before the pass runs.
  template <class IR>
  void run_before_pass(const IR& ir, const PassInfo& info) {
    if constexpr (!PrintableIR<IR>) {
      static_assert(PrintableIR<IR>,
                    "passinfra::PrintIRBefore prints the IR, but the IR cannot print itself: specialize "
                    "passinfra::ir_traits<IR> with `static std::string print(const IR&)` (see "
                    "passinfra/core/ir_traits.hpp)");
    } else {
      if (!filter_.matches(info.name)) return;
      std::string text = "Before Running Pass: ";
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
