// A type without a PassInfo handed to Sequential names itself in the error.
// expect-error: passinfra::Sequential<Ps...>: every element must be a pass, and P is not
// expect-error: check_pass(\(\) \[with P = |<)NotAPass[;,]
// expect-max-errors: 1
#include <passinfra/core.hpp>

struct Ir {};
struct Ok {
  static constexpr passinfra::PassInfo info{"Ok", 1};
  Ir transform(Ir ir, auto&) const { return ir; }
};
struct NotAPass {
  Ir transform(Ir ir, auto&) const { return ir; }  // a body, but no PassInfo
};

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  passinfra::Sequential<Ok, NotAPass> seq;  // the mistake
#else
  passinfra::Sequential<Ok> seq;  // the passing twin
#endif
  auto ctx = passinfra::make_pass_context<Ir>({});
  (void)passinfra::run(seq, Ir{}, ctx);
}
