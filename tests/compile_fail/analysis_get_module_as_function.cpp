// get<A>(ir, fn) for a module analysis names the form to call instead (SPEC §10.8).
// expect-error: passinfra: AnalysisManager::get<A>\(ir, fn\): A is a module analysis; call get<A>\(ir\)
// expect-error: CallGraph
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

struct CallGraph {
  static constexpr passinfra::AnalysisInfo info{"CallGraph"};
  using result_type = int;
  int run(const pitest::AModule&) const { return 0; }
};

int main() {
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<CallGraph>> am;
  pitest::AModule m = pitest::make_module();
#ifdef PASSINFRA_COMPILE_FAIL
  (void)am.get<CallGraph>(m, m.functions[0]);  // the mistake
#else
  (void)am.get<CallGraph>(m);  // the passing twin
#endif
}
