// A depends_on cycle is found when the analysis is first used with a manager (SPEC §10.8).
// expect-error: passinfra: analysis dependency cycle: A depends on itself through depends_on<\.\.\.>
// expect-error: Types
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

struct Types;
struct Shapes {
  static constexpr passinfra::AnalysisInfo info{"Shapes"};
  using result_type = int;
#ifdef PASSINFRA_COMPILE_FAIL
  using depends_on = passinfra::depends_on<Types>;  // the mistake: Types depends on Shapes
#endif
  int run(const pitest::AModule&) const { return 0; }
};
struct Types {
  static constexpr passinfra::AnalysisInfo info{"Types"};
  using result_type = int;
  using depends_on = passinfra::depends_on<Shapes>;
  int run(const pitest::AModule&, auto& deps) const { return deps.template get<Shapes>(); }
};

int main() {
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<Types>> am;
  pitest::AModule m = pitest::make_module();
  (void)am.get<Types>(m);
}
