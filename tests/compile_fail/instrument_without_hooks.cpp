// An instrument with none of the hooks (here: a misspelt one) is an error, not a silent no-op.
// expect-error: passinfra::InstrumentSet: I has none of the hooks
// expect-error: check_instrument(\(\) \[with I = |<)TypoInstrument[;,]
// expect-max-errors: 1
#include <passinfra/core.hpp>

struct Ir {};
struct Ok {
  static constexpr passinfra::PassInfo info{"Ok", 1};
  Ir transform(Ir ir, auto&) const { return ir; }
};

struct TypoInstrument {
#ifdef PASSINFRA_COMPILE_FAIL
  void run_before_pas(const Ir&, const passinfra::PassInfo&) {}  // the mistake: "pas"
#else
  void run_before_pass(const Ir&, const passinfra::PassInfo&) {}  // the passing twin
#endif
};

int main() {
  auto ctx = passinfra::make_pass_context<Ir>({}, TypoInstrument{});
  (void)passinfra::run(Ok{}, Ir{}, ctx);
}
