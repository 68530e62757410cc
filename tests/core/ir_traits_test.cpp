// passinfra/core/ir_traits.hpp: what an IR provides through ir_traits<IR>,
// and the concepts that detect it.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <passinfra/core.hpp>

#include "support/func_ir.hpp"
#include "support/test_ir.hpp"

namespace ir_traits_test {

// An IR that prints and parses itself: the text is the number.
struct Num {
  int value = 0;
};

// An IR whose map_functions returns the wrong type.
struct Broken {};

}  // namespace ir_traits_test

template <>
struct passinfra::ir_traits<ir_traits_test::Num> {
  static std::string print(const ir_traits_test::Num& n) { return std::to_string(n.value); }
  static ir_traits_test::Num parse(std::string_view text, std::string_view /*source_name*/) {
    return {std::stoi(std::string(text))};
  }
};

template <>
struct passinfra::ir_traits<ir_traits_test::Broken> {
  using function_type = int;
  template <class F>
  static int map_functions(ir_traits_test::Broken, F&&) {
    return 0;
  }
};

namespace ir_traits_test {

static_assert(passinfra::FunctionIterableIR<pitest::FuncModule>);
static_assert(passinfra::FunctionIterableIR<pitest::BareFuncModule>);
static_assert(!passinfra::FunctionIterableIR<pitest::TestIR>);  // ir_traits not specialized
static_assert(!passinfra::FunctionIterableIR<Num>);             // specialized, but no functions
static_assert(!passinfra::FunctionIterableIR<Broken>);          // map_functions does not return the IR

static_assert(passinfra::HasFunctionPassFollowUp<pitest::FuncModule>);
static_assert(!passinfra::HasFunctionPassFollowUp<pitest::BareFuncModule>);
static_assert(!passinfra::HasFunctionPassFollowUp<pitest::TestIR>);

static_assert(passinfra::PrintableIR<Num> && passinfra::ParsableIR<Num>);
static_assert(!passinfra::PrintableIR<pitest::TestIR> && !passinfra::ParsableIR<pitest::TestIR>);
static_assert(!passinfra::PrintableIR<pitest::FuncModule>);

}  // namespace ir_traits_test

TEST_CASE("core/ir_traits: print and parse go through the IR's traits") {
  using Traits = passinfra::ir_traits<ir_traits_test::Num>;
  CHECK(Traits::print(ir_traits_test::Num{42}) == "42");
  CHECK(Traits::parse("17", "GeneratedSource").value == 17);
}

TEST_CASE("core/ir_traits: map_functions of the test IR hands over the non-external functions in order") {
  pitest::FuncModule m;
  m.functions = {{"f", {1}, false}, {"g", {2}, true}, {"h", {3}, false}};
  std::string order;
  m = passinfra::ir_traits<pitest::FuncModule>::map_functions(std::move(m), [&](pitest::Func fn, const auto&) {
    order += fn.name;
    fn.body.push_back(0);
    return fn;
  });
  CHECK(order == "fh");
  CHECK(m.functions[0].body == std::vector<int>{1, 0});
  CHECK(m.functions[1].body == std::vector<int>{2});
  CHECK(m.functions[2].body == std::vector<int>{3, 0});
}
