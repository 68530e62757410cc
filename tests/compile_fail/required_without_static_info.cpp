// A required pass is made as P{} and named at compile time: an info() member is not enough.
// expect-error: passinfra::requires_passes<Ps...>: a required pass needs a compile-time name: P has only `info\(\)
// const` expect-error: check_requirable(\(\) \[with R = |<)FuseOps[]>] expect-max-errors: 1
#include <passinfra/core.hpp>

struct Ir {};
#ifdef PASSINFRA_COMPILE_FAIL
struct FuseOps {  // the mistake: the name is only known per object
  int level = 1;
  passinfra::PassInfo info() const { return {"FuseOps", level}; }
  Ir transform(Ir ir, auto&) const { return ir; }
};
#else
struct FuseOps {  // the passing twin
  static constexpr passinfra::PassInfo info{"FuseOps", 1};
  Ir transform(Ir ir, auto&) const { return ir; }
};
#endif

struct FuseAndFold {
  static constexpr passinfra::PassInfo info{"FuseAndFold", 2};
  using required = passinfra::requires_passes<FuseOps>;
  Ir transform(Ir ir, auto&) const { return ir; }
};

int main() {
  passinfra::Sequential<FuseAndFold> seq;
  auto ctx = passinfra::make_pass_context<Ir>({});
  (void)passinfra::run(seq, Ir{}, ctx);
}
