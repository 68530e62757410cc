// deps.get<D>() inside A::run with D not in A::depends_on<...> names both (SPEC §10.8).
// expect-error: passinfra: analysis A requested D, which is not in A::depends_on<\.\.\.>
// expect-error: Derived
// expect-error: ModuleSum
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

struct Derived {
  static constexpr passinfra::AnalysisInfo info{"Derived"};
  using result_type = long;
#ifdef PASSINFRA_COMPILE_FAIL
  using depends_on = passinfra::depends_on<>;  // the mistake: ModuleSum is not declared
#else
  using depends_on = passinfra::depends_on<pitest::ModuleSum>;  // the passing twin
#endif
  long run(const pitest::AModule&, auto& deps) const { return deps.template get<pitest::ModuleSum>() + 1; }
};

int main() {
  passinfra::AnalysisManager<pitest::AModule, passinfra::analyses<Derived, pitest::ModuleSum>> am;
  pitest::AModule m = pitest::make_module();
  (void)am.get<Derived>(m);
}
