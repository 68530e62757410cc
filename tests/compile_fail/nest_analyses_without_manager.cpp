// ctx.analyses() in a nest's unit under a static context made without a manager says how to
// make one (SPEC §10.8, §11.13): the unit context's analyses() is NoAnalysisManager's.
// expect-error: passinfra: this PassContext has no analysis manager; make it with make_pass_context<IR>\(options, am,
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"
#include "support/nest_analyses.hpp"

int main() {
  pitest::NestManager am;
#ifdef PASSINFRA_COMPILE_FAIL
  auto ctx = passinfra::make_pass_context<pitest::AModule>({});  // the mistake: no manager
#else
  auto ctx = passinfra::make_pass_context<pitest::AModule>({}, am);  // the passing twin
#endif
  (void)am;
  pitest::AModule m = passinfra::run(passinfra::Nest<pitest::AFunc, pitest::FUse<"U">>{}, pitest::make_module(), ctx);
  (void)m;
}
