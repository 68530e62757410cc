// `required` must be passinfra::requires_passes<...>, not a pass or a list of another kind.
// expect-error: passinfra::Sequential<Ps...>: the pass P declares `required`, but it is not
// passinfra::requires_passes<...> expect-error: check_pass(\(\) \[with P = |<)FoldConstant[;,] expect-max-errors: 1
#include <tuple>

#include <passinfra/core.hpp>

struct Ir {};
struct InferType {
  static constexpr passinfra::PassInfo info{"InferType", 0};
  Ir transform(Ir ir, auto&) const { return ir; }
};

struct FoldConstant {
  static constexpr passinfra::PassInfo info{"FoldConstant", 2};
#ifdef PASSINFRA_COMPILE_FAIL
  using required = std::tuple<InferType>;  // the mistake
#else
  using required = passinfra::requires_passes<InferType>;  // the passing twin
#endif
  Ir transform(Ir ir, auto&) const { return ir; }
};

int main() {
  passinfra::Sequential<InferType, FoldConstant> seq;
  auto ctx = passinfra::make_pass_context<Ir>({});
  (void)passinfra::run(seq, Ir{}, ctx);
}
