// ctx.analyses() under a static context made without a manager says how to make one (SPEC §10.8).
// expect-error: passinfra: this PassContext has no analysis manager; make it with make_pass_context<IR>\(options, am,
// instruments\.\.\.\) expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

struct UsesSum {
  static constexpr passinfra::PassInfo info{"UsesSum", 0};
  pitest::AModule transform(pitest::AModule m, auto& ctx) const {
    m.version = static_cast<int>(ctx.analyses().template get<pitest::ModuleSum>(m));
    return m;
  }
};

int main() {
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<pitest::ModuleSum>> am;
#ifdef PASSINFRA_COMPILE_FAIL
  auto ctx = passinfra::make_pass_context<pitest::AModule>({});  // the mistake: no manager
#else
  auto ctx = passinfra::make_pass_context<pitest::AModule>({}, am);  // the passing twin
#endif
  (void)am;
  pitest::AModule m = passinfra::run(UsesSum{}, pitest::make_module(), ctx);
  (void)m;
}
