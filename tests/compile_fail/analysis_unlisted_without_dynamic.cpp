// A static-only manager asked for an analysis it does not list, without passinfra/dynamic.hpp
// (DESIGN, Settled questions).
// expect-error: passinfra: AnalysisManager::get<A>\(ir\): A is not listed in analyses<\.\.\.>; list it or include
// passinfra/dynamic\.hpp expect-error: Tagged expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<pitest::ModuleSum>> am;  // the mistake
#else
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<pitest::ModuleSum, pitest::Tagged>> am;  // the twin
#endif
  pitest::AModule m = pitest::make_module();
  (void)am.get<pitest::Tagged>(m);
}
