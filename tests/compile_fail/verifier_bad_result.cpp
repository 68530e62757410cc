// A verifier must return bool or std::optional<std::string>; anything else is named.
// expect-error: passinfra::VerifierInstrument\(fn\): fn\(const IR&\) must return bool
// expect-max-errors: 1
#include <optional>
#include <string>

#include <passinfra/core.hpp>
#include <passinfra/instruments/verifier_instrument.hpp>

struct Ir {};
struct Pass {
  static constexpr passinfra::PassInfo info{"Pass", 0};
  Ir transform(Ir ir, auto&) const { return ir; }
};

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  auto verify = [](const Ir&) { return 1; };  // the mistake: an int
#else
  auto verify = [](const Ir&) { return std::optional<std::string>(); };  // the passing twin
#endif
  auto ctx = passinfra::make_pass_context<Ir>({}, passinfra::VerifierInstrument(verify));
  (void)passinfra::run(Pass{}, Ir{}, ctx);
}
