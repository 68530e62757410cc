// opt_main over an IR that cannot parse its text names the concept it misses
// (passinfra::OptMainIR: movable, ir_traits<IR>::parse and ::print).
// expect-error: OptMainIR
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/tool/opt_main.hpp>

struct Text {
  std::string s;
};
template <>
struct passinfra::ir_traits<Text> {
  static Text parse(std::string_view text, std::string_view /*source*/) { return Text{std::string(text)}; }
  static std::string print(const Text& t) { return t.s; }
};
struct PrintOnly {};
template <>
struct passinfra::ir_traits<PrintOnly> {
  static std::string print(const PrintOnly&) { return "print only\n"; }
};

int main(int argc, char** argv) {
#ifdef PASSINFRA_COMPILE_FAIL
  passinfra::PassRegistry<PrintOnly> registry;
  return passinfra::opt_main<PrintOnly>(argc, argv, registry);  // the mistake: no ir_traits<PrintOnly>::parse
#else
  passinfra::PassRegistry<Text> registry;
  return passinfra::opt_main<Text>(argc, argv, registry);  // the passing twin
#endif
}
