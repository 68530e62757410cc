// passinfra/ir/print_ir.hpp — the PrintIR pass (SPEC §7).
//
// PrintIR(header = "")                 a module pass: info {"PrintIR", opt_level 0}, no required passes
// p.header()
// p.transform(ir, ctx) -> ir           logs "PrintIR(<header>):\n<IR text>" at INFO; returns ir unchanged
// p(ir, ctx) / p(ir)                   run through passinfra::run (instrumented), like any library pass
//
// TVM's PrintIR: `LOG(INFO) << "PrintIR(" << header << "):\n" << mod`. One
// message through the log sink (SPEC §9), so it is dropped unless the sink
// shows INFO; the IR text's trailing newline is left out, as log messages
// have none. The IR must be printable (PrintableIR: ir_traits<IR>::print);
// otherwise running PrintIR on it fails to compile with a message saying so.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/run.hpp"

namespace passinfra {

class PrintIR : public CallablePass<PrintIR> {
 public:
  explicit PrintIR(std::string header = {}) : header_(std::move(header)) {}

  constexpr PassInfo info() const noexcept { return PassInfo{"PrintIR", 0}; }
  const std::string& header() const noexcept { return header_; }

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx&) const {
    if constexpr (!PrintableIR<IR>) {
      static_assert(PrintableIR<IR>,
                    "passinfra::PrintIR prints the IR, but the IR cannot print itself: specialize "
                    "passinfra::ir_traits<IR> with `static std::string print(const IR&)` (see "
                    "passinfra/core/ir_traits.hpp)");
      return ir;
    } else {
      std::string message = "PrintIR(" + header_ + "):\n";
      message += ir_traits<IR>::print(std::as_const(ir));
      if (!message.empty() && message.back() == '\n') message.pop_back();
      log(LogLevel::info, message);
      return ir;
    }
  }

 private:
  std::string header_;
};

}  // namespace passinfra
