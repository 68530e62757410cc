// A function analysis over an IR whose functions have no keys says what ir_traits lacks (SPEC §10.8).
// expect-error: passinfra: A is a function analysis, but ir_traits<IR> has no function_type / function_key\(fn\)
// expect-error: Liveness
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/func_ir.hpp"

struct Liveness {
  static constexpr passinfra::AnalysisInfo info{"Liveness"};
  using unit = passinfra::function_unit;
  using result_type = int;
  int run(const pitest::Func&, const pitest::BareFuncModule&) const { return 0; }
};
struct Count {
  static constexpr passinfra::AnalysisInfo info{"Count"};
  using result_type = int;
  int run(const pitest::BareFuncModule&) const { return 0; }
};

int main() {
  // BareFuncModule has function_type and map_functions, but no function_key.
#ifdef PASSINFRA_COMPILE_FAIL
  passinfra::AnalysisManager<pitest::BareFuncModule, passinfra::analyses<Liveness>> am;  // the mistake
#else
  passinfra::AnalysisManager<pitest::BareFuncModule, passinfra::analyses<Count>> am;  // the passing twin
#endif
  (void)am;
}
