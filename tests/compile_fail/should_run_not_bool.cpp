// An instrument's should_run must return bool (an int could be a count, not a verdict).
// expect-error: passinfra::InstrumentSet: an instrument's should_run\(ir, info\) must return bool
// expect-error: check_should_run_result(\(\) \[with I = |<)CountingVeto[;,]
// expect-max-errors: 1
#include <functional>

#include <passinfra/core.hpp>

struct Ir {};
struct Ok {
  static constexpr passinfra::PassInfo info{"Ok", 1};
  Ir transform(Ir ir, auto&) const { return ir; }
};

struct CountingVeto {
  int calls = 0;
#ifdef PASSINFRA_COMPILE_FAIL
  int should_run(const Ir&, const passinfra::PassInfo&) { return ++calls; }  // the mistake
#else
  bool should_run(const Ir&, const passinfra::PassInfo&) { return ++calls > 0; }  // the passing twin
#endif
};

int main() {
  CountingVeto veto;
  auto ctx = passinfra::make_pass_context<Ir>({}, std::ref(veto));
  (void)passinfra::run(Ok{}, Ir{}, ctx);
}
