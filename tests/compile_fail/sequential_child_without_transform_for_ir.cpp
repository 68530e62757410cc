// A Sequential with a child whose transform does not take the IR it runs
// on: the same error as run() gives for that pass alone, naming the child
// (a Sequential's own per-child checks are concepts, and the child goes to
// run(), whose check speaks).
// expect-error: passinfra::run\(pass, ir, ctx\): the pass P has no member `transform\(IR, Ctx&\) const`
// expect-error: check_run(\(\) \[with P = |<)ForOtherIR[;,]
// expect-max-errors: 1
#include <passinfra/core.hpp>

struct Ir {};
struct OtherIr {};

struct Ok {
  static constexpr passinfra::PassInfo info{"Ok", 1};
  Ir transform(Ir ir, auto&) const { return ir; }
};
struct ForOtherIR {
  static constexpr passinfra::PassInfo info{"ForOtherIR", 1};
  OtherIr transform(OtherIr ir, auto&) const { return ir; }
#ifndef PASSINFRA_COMPILE_FAIL
  Ir transform(Ir ir, auto&) const { return ir; }  // the passing twin also handles Ir
#endif
};

int main() {
  passinfra::Sequential<Ok, ForOtherIR, Ok> seq;
  auto ctx = passinfra::make_pass_context<Ir>({});
  (void)passinfra::run(seq, Ir{}, ctx);
}
