// A pass over the parent put inside a nest: the error names the pass and says to
// run it outside the nest (docs/spec.md §11.3; DESIGN "The static adaptor").
// expect-error: passinfra::Nest<Unit, Ps...>: the pass P has no transform\(Unit, ctx&\); is it a pass over the parent\?
// run it outside the nest expect-error: check_unit_pass(\(\) \[with P = |<)ModuleOnly[;,] expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/unit_ir.hpp"

struct ModuleOnly {  // a pass over UModule, not over its units
  static constexpr passinfra::PassInfo info{"ModuleOnly", 0};
  pitest::UModule transform(pitest::UModule m, auto&) const { return m; }
};

int main() {
  auto ctx = passinfra::make_pass_context<pitest::UModule>({});
#ifdef PASSINFRA_COMPILE_FAIL
  const passinfra::Nest<pitest::UFunc, pitest::UStep<"A">, ModuleOnly> n;  // the mistake
  (void)passinfra::run(n, pitest::UModule{}, ctx);
#else
  const passinfra::Sequential<passinfra::Nest<pitest::UFunc, pitest::UStep<"A"> >, ModuleOnly> s;  // the passing twin
  (void)passinfra::run(s, pitest::UModule{}, ctx);
#endif
}
