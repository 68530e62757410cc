// A `required` entry that is not a pass names itself in the error.
// expect-error: passinfra::requires_passes<Ps...>: every required entry must be a pass, and P is not
// expect-error: check_pass(\(\) \[with P = |<)NotAPass[;,]
// expect-max-errors: 1
#include <passinfra/core.hpp>

struct Ir {};
struct InferType {
  static constexpr passinfra::PassInfo info{"InferType", 0};
  Ir transform(Ir ir, auto&) const { return ir; }
};
struct NotAPass {};

struct FoldConstant {
  static constexpr passinfra::PassInfo info{"FoldConstant", 2};
#ifdef PASSINFRA_COMPILE_FAIL
  using required = passinfra::requires_passes<InferType, NotAPass>;  // the mistake
#else
  using required = passinfra::requires_passes<InferType>;  // the passing twin
#endif
  Ir transform(Ir ir, auto&) const { return ir; }
};

int main() {
  passinfra::Sequential<FoldConstant> seq;
  auto ctx = passinfra::make_pass_context<Ir>({});
  (void)passinfra::run(seq, Ir{}, ctx);
}
