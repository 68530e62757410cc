// A type without a PassInfo handed to run() names itself in the error.
// expect-error: passinfra::run\(pass, ir, ctx\): `pass` must be a pass, and P is not
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
  auto ctx = passinfra::make_pass_context<Ir>({});
#ifdef PASSINFRA_COMPILE_FAIL
  (void)passinfra::run(NotAPass{}, Ir{}, ctx);  // the mistake
#else
  (void)passinfra::run(Ok{}, Ir{}, ctx);  // the passing twin
#endif
}
