// run() with a pass whose transform does not take this IR (or is not const).
// expect-error: passinfra::run\(pass, ir, ctx\): the pass P has no member `transform\(IR, Ctx&\) const`
// expect-error: check_run(\(\) \[with P = |<)ForOtherIR[;,]
// expect-max-errors: 1
#include <passinfra/core.hpp>

struct Ir {};
struct OtherIr {};

struct ForOtherIR {
  static constexpr passinfra::PassInfo info{"ForOtherIR", 1};
  OtherIr transform(OtherIr ir, auto&) const { return ir; }
#ifndef PASSINFRA_COMPILE_FAIL
  Ir transform(Ir ir, auto&) const { return ir; }  // the passing twin also handles Ir
#endif
};

int main() {
  auto ctx = passinfra::make_pass_context<Ir>({});
  (void)passinfra::run(ForOtherIR{}, Ir{}, ctx);
}
