// passinfra/core/module_pass.hpp: module_pass and function_pass from
// callables, their info and required passes, and the IR's follow-up pass.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>
#include <vector>

#include <passinfra/core.hpp>

#include "support/func_ir.hpp"
#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using passinfra::PassInfo;
using passinfra::requires_passes;
using namespace pitest;

namespace {

using R = TestPass<"R">;

std::vector<int> bodies_of(const std::vector<Func>& functions, std::size_t i) { return functions.at(i).body; }

template <class IR>
IR module_with_three_functions(EventLog& log) {
  IR ir;
  ir.log = &log;
  ir.functions = {Func{"main", {1, 2}, false}, Func{"extern_fn", {7}, true}, Func{"helper", {3}, false}};
  return ir;
}

}  // namespace

TEST_CASE("core/module_pass: module_pass from f(IR, ctx) gets the context it runs under") {
  EventLog log;
  auto a = recorder("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 3}, std::ref(a));
  auto pass = passinfra::module_pass({"AddOptLevel", 1}, [](TestIR ir, auto& c) {
    ir.value += c.opt_level();
    ir.log->add("AddOptLevel body");
    return ir;
  });
  CHECK(pass.info() == PassInfo{"AddOptLevel", 1});
  TestIR out = passinfra::run(pass, TestIR{&log, 10}, ctx);
  CHECK(out.value == 13);
  CHECK(join(log.events, " / ") ==
        "A should_run AddOptLevel / A run_before_pass AddOptLevel / AddOptLevel body / A run_after_pass AddOptLevel");
}

TEST_CASE("core/module_pass: module_pass from f(IR) and from a stateful callable") {
  EventLog log;
  auto ctx = passinfra::make_pass_context<TestIR>({});
  auto doubler = passinfra::module_pass({"Double", 0}, [](TestIR ir) {
    ir.value *= 2;
    return ir;
  });
  CHECK(passinfra::run(doubler, TestIR{&log, 21}, ctx).value == 42);

  struct AddN {
    int n;
    TestIR operator()(TestIR ir) const {
      ir.value += n;
      return ir;
    }
  };
  auto add5 = passinfra::module_pass({"Add5", 0}, AddN{5});
  static_assert(std::is_same_v<decltype(add5), passinfra::ModulePass<AddN>>);
  CHECK(passinfra::run(add5, TestIR{&log, 1}, ctx).value == 6);
}

TEST_CASE("core/module_pass: library passes are callable as p(ir, ctx)") {
  EventLog log;
  auto a = recorder("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(a));
  auto inc = passinfra::module_pass({"Inc", 0}, [](TestIR ir) {
    ++ir.value;
    return ir;
  });
  TestIR out = inc(TestIR{&log, 1}, ctx);
  CHECK(out.value == 2);
  CHECK(join(log.events, " / ") == "A should_run Inc / A run_before_pass Inc / A run_after_pass Inc");
}

TEST_CASE("core/module_pass: module_pass with requires_passes lists the names and runs them first in a Sequential") {
  EventLog log;
  auto a = recorder("A", log);
  auto pass = passinfra::module_pass(
      {"NeedsR", 1},
      [](TestIR ir, auto&) {
        ir.trail.emplace_back("NeedsR");
        return ir;
      },
      requires_passes<R>{});
  static_assert(std::is_same_v<decltype(pass)::required, requires_passes<R>>);
  const PassInfo info = passinfra::info_of<decltype(pass)>(pass);
  CHECK(passinfra::to_string(info) ==
        "The meta data of the pass - pass name: NeedsR, opt_level: 1, required passes: [\nR, ]\n");

  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(a));
  passinfra::Sequential seq{pass};
  TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"R", "NeedsR"});
  CHECK(join(log.events, " / ") ==
        "A should_run sequential / A run_before_pass sequential / A should_run R / A run_before_pass R / R / "
        "A run_after_pass R / A should_run NeedsR / A run_before_pass NeedsR / A run_after_pass NeedsR / "
        "A run_after_pass sequential");
  // Run directly, a pass does not run its required passes (that is Sequential's job, SPEC 4).
  log.clear();
  CHECK(passinfra::run(pass, TestIR{&log}, ctx).trail == std::vector<std::string>{"NeedsR"});
}

TEST_CASE("core/module_pass: a module pass that runs another pass nests it between its own hooks") {
  EventLog log;
  auto a = recorder("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(a));
  auto outer = passinfra::module_pass({"Outer", 0}, [](TestIR ir, auto& c) {
    ir.log->add("Outer body");
    return passinfra::run(R{}, std::move(ir), c);
  });
  TestIR out = passinfra::run(outer, TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"R"});
  CHECK(join(log.events, " / ") ==
        "A should_run Outer / A run_before_pass Outer / Outer body / A should_run R / A run_before_pass R / R / "
        "A run_after_pass R / A run_after_pass Outer");
}

TEST_CASE("core/module_pass: function_pass maps the functions the IR selects, with f(Fn, module, ctx)") {
  EventLog log;
  auto ctx = passinfra::make_pass_context<BareFuncModule>({.opt_level = 4});
  std::vector<std::string> seen;
  auto add_level = passinfra::function_pass({"AddLevel", 1}, [&seen](Func fn, const BareFuncModule& m, auto& c) {
    seen.push_back(fn.name + "/" + std::to_string(m.functions.size()));
    for (int& x : fn.body) x += c.opt_level();
    return fn;
  });
  BareFuncModule out = passinfra::run(add_level, module_with_three_functions<BareFuncModule>(log), ctx);
  CHECK(seen == std::vector<std::string>{"main/3", "helper/3"});  // extern_fn is not handed to the pass
  CHECK(bodies_of(out.functions, 0) == std::vector<int>{5, 6});
  CHECK(bodies_of(out.functions, 1) == std::vector<int>{7});  // untouched
  CHECK(bodies_of(out.functions, 2) == std::vector<int>{7});
  CHECK(out.trail.empty());  // BareFuncModule has no follow-up pass
}

TEST_CASE("core/module_pass: function_pass with f(Fn, module), and with requires_passes") {
  EventLog log;
  auto ctx = passinfra::make_pass_context<BareFuncModule>({});
  auto negate = passinfra::function_pass(
      {"Negate", 2},
      [](Func fn, const BareFuncModule&) {
        for (int& x : fn.body) x = -x;
        return fn;
      },
      requires_passes<CheckBodies>{});
  CHECK(passinfra::to_string(passinfra::info_of<decltype(negate)>(negate)) ==
        "The meta data of the pass - pass name: Negate, opt_level: 2, required passes: [\nCheckBodies, ]\n");
  BareFuncModule out = passinfra::run(negate, module_with_three_functions<BareFuncModule>(log), ctx);
  CHECK(bodies_of(out.functions, 0) == std::vector<int>{-1, -2});
  CHECK(bodies_of(out.functions, 2) == std::vector<int>{-3});

  // In a Sequential, the required CheckBodies runs first (it is an ordinary pass on this IR).
  passinfra::Sequential seq{negate};
  out = passinfra::run(seq, module_with_three_functions<BareFuncModule>(log), ctx);
  CHECK(out.trail == std::vector<std::string>{"CheckBodies"});
  CHECK(bodies_of(out.functions, 0) == std::vector<int>{-1, -2});
}

TEST_CASE("core/module_pass: the IR's follow-up pass runs after every function pass, instrumented and nested") {
  EventLog log;
  auto a = func_recorder<FuncModule>("A", log);
  auto b = func_recorder<FuncModule>("B", log);
  auto ctx = passinfra::make_pass_context<FuncModule>({}, std::ref(a), std::ref(b));
  auto square = passinfra::function_pass({"Square", 1}, [](Func fn, const FuncModule& m) {
    m.log->add("Square " + fn.name);
    for (int& x : fn.body) x *= x;
    return fn;
  });
  FuncModule out = passinfra::run(square, module_with_three_functions<FuncModule>(log), ctx);
  CHECK(bodies_of(out.functions, 0) == std::vector<int>{1, 4});
  CHECK(bodies_of(out.functions, 2) == std::vector<int>{9});
  CHECK(out.trail == std::vector<std::string>{"CheckBodies"});
  CHECK(join(log.events, "\n") == R"(A should_run Square
B should_run Square
A run_before_pass Square
B run_before_pass Square
Square main
Square helper
A should_run CheckBodies
B should_run CheckBodies
A run_before_pass CheckBodies
B run_before_pass CheckBodies
CheckBodies
A run_after_pass CheckBodies
B run_after_pass CheckBodies
A run_after_pass Square
B run_after_pass Square)");
}

TEST_CASE("core/module_pass: the follow-up pass obeys should_run and required_pass like any pass run") {
  EventLog log;
  auto a = func_recorder<FuncModule>("A", log);
  a.veto_only = {"CheckBodies"};
  auto identity = passinfra::function_pass({"Identity", 0}, [](Func fn, const FuncModule&) { return fn; });

  SUBCASE("vetoed: the function pass's result is kept, the follow-up does not run") {
    auto ctx = passinfra::make_pass_context<FuncModule>({}, std::ref(a));
    FuncModule out = passinfra::run(identity, module_with_three_functions<FuncModule>(log), ctx);
    CHECK(out.trail.empty());
    CHECK(join(log.events, " / ") ==
          "A should_run Identity / A run_before_pass Identity / A should_run CheckBodies / A run_after_pass Identity");
  }
  SUBCASE("in required_pass: should_run is not asked, the follow-up runs") {
    auto ctx = passinfra::make_pass_context<FuncModule>({.required_pass = {"CheckBodies"}}, std::ref(a));
    FuncModule out = passinfra::run(identity, module_with_three_functions<FuncModule>(log), ctx);
    CHECK(out.trail == std::vector<std::string>{"CheckBodies"});
    CHECK(join(log.events, " / ") ==
          "A should_run Identity / A run_before_pass Identity / A run_before_pass CheckBodies / CheckBodies / "
          "A run_after_pass CheckBodies / A run_after_pass Identity");
  }
}

TEST_CASE("core/module_pass: a function pass in a Sequential is gated by its opt_level") {
  EventLog log;
  auto ctx = passinfra::make_pass_context<FuncModule>({.opt_level = 1});
  auto high = passinfra::function_pass({"High", 2}, [](Func fn, const FuncModule&) {
    fn.body.clear();
    return fn;
  });
  auto low = passinfra::function_pass({"Low", 1}, [](Func fn, const FuncModule&) {
    fn.body.push_back(0);
    return fn;
  });
  passinfra::Sequential seq{high, low};
  FuncModule out = passinfra::run(seq, module_with_three_functions<FuncModule>(log), ctx);
  CHECK(bodies_of(out.functions, 0) == std::vector<int>{1, 2, 0});
  CHECK(out.trail == std::vector<std::string>{"CheckBodies"});  // once: only Low ran
}
