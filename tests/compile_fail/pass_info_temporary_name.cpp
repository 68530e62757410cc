// A pass named by a temporary std::string would keep a view of a dead string.
// expect-error: passinfra::PassInfo: the pass name is a temporary std::string
// expect-max-errors: 1
#include <passinfra/core.hpp>

#include <string>

struct Ir {};

int main() {
  auto ctx = passinfra::make_pass_context<Ir>({});
  for (int i = 0; i < 2; ++i) {
#ifdef PASSINFRA_COMPILE_FAIL
    // The mistake: "Dyn" + std::to_string(i) dies at the end of the statement.
    const auto pass = passinfra::module_pass({"Dyn" + std::to_string(i), 0}, [](Ir ir) { return ir; });
#else
    // The passing twin: the name outlives the pass.
    const std::string name = "Dyn" + std::to_string(i);
    const auto pass = passinfra::module_pass({name, 0}, [](Ir ir) { return ir; });
#endif
    (void)passinfra::run(pass, Ir{}, ctx);
  }
}
