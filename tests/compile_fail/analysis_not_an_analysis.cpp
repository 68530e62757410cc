// A type listed in analyses<...> that is not an analysis says what an analysis needs (SPEC §10.8).
// expect-error: passinfra: A is not an analysis: it needs static constexpr AnalysisInfo info, using result_type =
// \.\.\., and run\(const IR&, deps&\) const or run\(const Fn&, const IR&, deps&\) const expect-error: CallGraph
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

struct CallGraph {
  static constexpr passinfra::AnalysisInfo info{"CallGraph"};
  using result_type = int;
#ifdef PASSINFRA_COMPILE_FAIL
  int run(const pitest::AModule&) { return 0; }  // the mistake: not const
#else
  int run(const pitest::AModule&) const { return 0; }  // the passing twin
#endif
};

int main() {
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<CallGraph>> am;
  (void)am;
}
