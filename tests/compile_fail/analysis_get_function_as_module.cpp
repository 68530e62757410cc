// get<A>(ir) for a function analysis names the form to call instead (SPEC §10.8).
// expect-error: passinfra: AnalysisManager::get<A>\(ir\): A is a function analysis; call get<A>\(ir, fn\) with one of
// the IR's functions expect-error: Liveness expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

struct Liveness {
  static constexpr passinfra::AnalysisInfo info{"Liveness"};
  using unit = passinfra::function_unit;
  using result_type = int;
  int run(const pitest::AFunc&, const pitest::AModule&) const { return 0; }
};

int main() {
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<Liveness>> am;
  pitest::AModule m = pitest::make_module();
#ifdef PASSINFRA_COMPILE_FAIL
  (void)am.get<Liveness>(m);  // the mistake
#else
  (void)am.get<Liveness>(m, m.functions[0]);  // the passing twin
#endif
}
