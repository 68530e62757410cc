// A Sequential named by a temporary std::string would keep a view of a dead string.
// expect-error: passinfra::PassInfo: the pass name is a temporary std::string
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include <string>

struct Ir {};

struct Fold {
  static constexpr passinfra::PassInfo info{"Fold", 0};
  Ir transform(Ir ir, auto&) const { return ir; }
};

std::string pipeline_name() { return "a_pipeline_name_longer_than_a_small_string"; }

int main() {
  auto ctx = passinfra::make_pass_context<Ir>({});
#ifdef PASSINFRA_COMPILE_FAIL
  const auto seq = passinfra::sequential({pipeline_name(), 1}, Fold{});  // the mistake
#else
  const std::string name = pipeline_name();  // the passing twin
  const auto seq = passinfra::sequential({name, 1}, Fold{});
#endif
  (void)passinfra::run(seq, Ir{}, ctx);
}
