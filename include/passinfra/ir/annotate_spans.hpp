// passinfra/ir/annotate_spans.hpp — the AnnotateSpans pass (SPEC §7), for any IR
// that prints and parses itself.
//
// AnnotateSpans<Then...>               a module pass: info {"AnnotateSpans", 0}, no required passes
// AnnotateSpans<>::source_name         "GeneratedSource"
// p.transform(ir, ctx) -> ir           parse(print(ir), "GeneratedSource"), then each Then
//                                      pass run on the result through run(then, ir, ctx)
// p(ir, ctx) / p(ir)                   run through passinfra::run (instrumented), like any library pass
//
// The module is printed to text (ir_traits<IR>::print) and parsed back
// (ir_traits<IR>::parse(text, "GeneratedSource")), so every node of the
// result carries a span -- source name, 1-based line and column -- into the
// module's own text, which is what diagnostics then point at. Parse errors
// are the IR parser's, with their spans. The parsed nodes are new; an IR
// whose parser leaves them untyped names its type inference as a Then pass
// (tinyir: AnnotateSpans<InferType>, as Relay's parser runs InferType); the
// Then passes are nested, instrumented runs under the same context, without
// a PassEnabled check. Under an analysis manager the cache is emptied before
// them (the parsed module shares no node with the input). An IR that cannot
// print or parse itself fails to compile with a message saying which of the
// two is missing.
#pragma once

#include <string_view>
#include <utility>

#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra {

template <class... Then>
struct AnnotateSpans : CallablePass<AnnotateSpans<Then...>> {
  static constexpr PassInfo info{"AnnotateSpans", 0};
  static constexpr std::string_view source_name = "GeneratedSource";

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (!PrintableIR<IR>) {
      static_assert(PrintableIR<IR>,
                    "passinfra::AnnotateSpans prints the IR and parses it back, but the IR cannot print itself: "
                    "specialize passinfra::ir_traits<IR> with `static std::string print(const IR&)` (see "
                    "passinfra/core/ir_traits.hpp)");
      return ir;
    } else if constexpr (!ParsableIR<IR>) {
      static_assert(ParsableIR<IR>,
                    "passinfra::AnnotateSpans prints the IR and parses it back, but the IR cannot parse itself: "
                    "specialize passinfra::ir_traits<IR> with `static IR parse(std::string_view text, "
                    "std::string_view source)` (see passinfra/core/ir_traits.hpp)");
      return ir;
    } else {
      IR annotated = ir_traits<IR>::parse(ir_traits<IR>::print(std::as_const(ir)), source_name);
      // Every node is new: under an analysis manager, nothing cached describes
      // `annotated`, so drop it all before the Then passes run (SPEC §10.1).
      if constexpr (HasAnalyses<Ctx>) {
        if (analyses_available(ctx)) ctx.analyses().invalidate(detail::dependent_t<PreservedAnalyses, Ctx>::none());
      }
      ((annotated = run(Then{}, std::move(annotated), ctx)), ...);
      return annotated;
    }
  }
};

}  // namespace passinfra
