// A downstream compiler's opt tool in five lines: its own IR (a number in
// text), one registered pass, passinfra::opt_main. Built by the consumer tests
// against passinfra::tool; run on "41" with --passes=AddOne it must print 42.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <passinfra/tool/opt_main.hpp>

struct Number {
  long value = 0;
};

template <>
struct passinfra::ir_traits<Number> {
  static Number parse(std::string_view text, std::string_view /*source*/) {
    return Number{std::stol(std::string(text))};
  }
  static std::string print(const Number& n) { return std::to_string(n.value) + "\n"; }
};

struct AddOne {
  static constexpr passinfra::PassInfo info{"AddOne", 0};
  Number transform(Number n, auto& /*ctx*/) const { return Number{n.value + 1}; }
};

int main() {
  passinfra::PassRegistry<Number> registry;
  registry.add<AddOne>("add one");
  std::istringstream in("41");
  std::ostringstream out;
  std::ostringstream err;
  const std::vector<std::string> args{"--passes=AddOne", "-"};
  const int code = passinfra::opt_main<Number>(args, registry, {.tool_name = "number-opt"}, {in, out, err});
  if (code != 0 || out.str() != "42\n") {
    std::cerr << "consumer tool: exit " << code << ", output '" << out.str() << "', errors '" << err.str() << "'\n";
    return 1;
  }
  return 0;
}
