// PassTimingInstrument and analyses (SPEC §10.7 "Timing", §6): "(A) <name>"
// entries nested under the requesting pass and analysis, failed analyses,
// top-level analyses, render_list() rows, the Chrome trace's "analysis"
// category. The first cases drive the hooks by hand (the order the manager
// calls them in, SPEC §10.2); the later ones run real pipelines with a manager.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>

#include "support/analysis_ir.hpp"
#include "support/mini_json.hpp"
#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using passinfra::AnalysisInfo;
using passinfra::ManualClock;
using passinfra::PassInfo;

namespace {

using Timing = passinfra::BasicPassTimingInstrument<ManualClock>;
constexpr std::int64_t us = 1000;

// The events of a cache miss, as the manager fires them (SPEC §10.2), with
// `ns` of work; `inner` runs between before and after (nested requests).
template <class Inner>
void compute(Timing& timing, const TestIR& ir, AnalysisInfo info, std::int64_t ns, Inner inner) {
  timing.run_before_analysis(ir, info);
  timing.clock().advance(ns);
  inner();
  timing.run_after_analysis(ir, info);
}
void compute(Timing& timing, const TestIR& ir, AnalysisInfo info, std::int64_t ns) {
  compute(timing, ir, info, ns, [] {});
}

// ---- with a manager: analyses that spend time on one clock ----------------

ManualClock& analysis_clock() {
  static ManualClock clock;
  return clock;
}
struct SlowB {
  static constexpr AnalysisInfo info{"SlowB"};
  using result_type = long;
  long run(const AModule&) const {
    analysis_clock().advance(18 * us);
    return 1;
  }
};
struct SlowA {
  static constexpr AnalysisInfo info{"SlowA"};
  using result_type = long;
  using depends_on = passinfra::depends_on<SlowB>;
  long run(const AModule& m, auto& deps) const {
    analysis_clock().advance(30 * us);
    return deps.template get<SlowB>() + m.version;
  }
};
// 100us per element of the function's body.
struct SlowFn {
  static constexpr AnalysisInfo info{"SlowFn"};
  using unit = passinfra::function_unit;
  using result_type = long;
  long run(const AFunc& f, const AModule&) const {
    analysis_clock().advance(static_cast<std::int64_t>(f.body.size()) * 100 * us);
    return static_cast<long>(f.body.size());
  }
};
// Spends 200us, then throws TestError(9).
struct Failing {
  static constexpr AnalysisInfo info{"Failing"};
  using result_type = long;
  long run(const AModule&) const {
    analysis_clock().advance(200 * us);
    throw_test_error(9, "analysis Failing failed");
  }
};

using Manager = passinfra::AnalysisManager<AModule, passinfra::analyses<SlowA, SlowFn, Failing>>;

struct StaticWithManager {
  static auto context(Manager& am, Timing& timing) {
    return passinfra::make_pass_context<AModule>({}, am, std::ref(timing));
  }
};
struct DynamicWithManager {
  static passinfra::PassContext<AModule> context(Manager& am, Timing& timing) {
    return passinfra::PassContext<AModule>({}, {passinfra::AnyInstrument<AModule>(std::ref(timing))}, &am);
  }
};

// A pass that spends `before`, requests SlowA twice (the second is cached), spends `after`.
auto requests_slow_a(std::int64_t before, std::int64_t after) {
  return passinfra::module_pass(
      PassInfo{"FoldConstant", 2},
      [before, after](AModule m, auto& ctx) {
        analysis_clock().advance(before);
        (void)ctx.analyses().template get<SlowA>(m);
        (void)ctx.analyses().template get<SlowA>(m);
        analysis_clock().advance(after);
        return m;
      },
      passinfra::preserves_all{});
}

// A pass that requests SlowFn for every function (f: 3 elements, g: 2, h: 1).
auto requests_slow_fn() {
  return passinfra::module_pass(
      PassInfo{"PerFunction", 0},
      [](AModule m, auto& ctx) {
        for (const auto& f : m.functions) (void)ctx.analyses().template get<SlowFn>(m, f);
        return m;
      },
      passinfra::preserves_all{});
}

}  // namespace

TEST_CASE(
    "Analysis timing: an analysis is an (A) entry under the pass that requested it, a dependency under its "
    "requester (SPEC 10.7)") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  timing.run_before_pass(ir, PassInfo{"FoldConstant", 2});
  clock.advance(50 * us);
  compute(timing, ir, AnalysisInfo{"CallGraph"}, 30 * us,
          [&] { compute(timing, ir, AnalysisInfo{"TypeMap"}, 18 * us); });
  clock.advance(32 * us);
  timing.run_after_pass(ir, PassInfo{"FoldConstant", 2});
  // SPEC 10.7's example line, and the dependency one level further in.
  CHECK(timing.render() ==
        "FoldConstant: 130us [82us] (100.00%; 100.00%)\n"
        "\t(A) CallGraph: 48us [30us] (36.92%; 36.92%)\n"
        "\t\t(A) TypeMap: 18us [18us] (13.85%; 37.50%)\n");
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 1);
  CHECK_FALSE(tree[0].analysis);
  CHECK(tree[0].label() == "FoldConstant");
  const auto& cg = tree[0].children.at(0);
  CHECK(cg.analysis);
  CHECK(cg.name == "CallGraph");  // the plain name; label() adds the prefix
  CHECK(cg.label() == "(A) CallGraph");
  CHECK(cg.function.empty());
  CHECK(cg.children.at(0).name == "TypeMap");
  CHECK(cg.children.at(0).analysis);
}

TEST_CASE("Analysis timing: an analysis requested outside any pass is a top-level entry") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  compute(timing, ir, AnalysisInfo{"CallGraph"}, 1000 * us);
  timing.run_before_pass(ir, PassInfo{"P", 0});
  clock.advance(3000 * us);
  timing.run_after_pass(ir, PassInfo{"P", 0});
  CHECK(timing.render() ==
        "(A) CallGraph: 1000us [1000us] (25.00%; 25.00%)\n"
        "P: 3000us [3000us] (75.00%; 75.00%)\n");
}

TEST_CASE("Analysis timing: a failed analysis is closed at the failure and marked; the pass closes after it") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  timing.run_before_pass(ir, PassInfo{"P", 0});
  timing.run_before_analysis(ir, AnalysisInfo{"Liveness", "@main"});
  clock.advance(200 * us);
  timing.run_after_analysis_failed(AnalysisInfo{"Liveness", "@main"}, std::make_exception_ptr(TestError(1)));
  clock.advance(300 * us);
  timing.run_after_pass(ir, PassInfo{"P", 0});
  CHECK(timing.render() ==
        "P: 500us [300us] (100.00%; 100.00%)\n"
        "\t(A) Liveness: 200us [200us] (40.00%; 40.00%)\n");
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 1);
  CHECK_FALSE(tree[0].failed);
  REQUIRE(tree[0].children.size() == 1);
  CHECK(tree[0].children[0].failed);
  CHECK(tree[0].children[0].function == "@main");
}

TEST_CASE("Analysis timing: a close that does not match the innermost open entry is ignored") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  timing.run_after_analysis(ir, AnalysisInfo{"Stray"});  // nothing open
  timing.run_after_analysis_failed(AnalysisInfo{""}, nullptr);
  timing.run_before_pass(ir, PassInfo{"CallGraph", 0});
  timing.run_after_analysis(ir, AnalysisInfo{"CallGraph"});  // a pass is open, not an analysis
  timing.run_before_analysis(ir, AnalysisInfo{"Liveness", "@f"});
  clock.advance(1000 * us);
  timing.run_after_pass(ir, PassInfo{"Liveness", 0});             // an analysis is open, not a pass
  timing.run_after_analysis(ir, AnalysisInfo{"Liveness", "@g"});  // another function
  timing.run_after_analysis(ir, AnalysisInfo{"Other", "@f"});     // another analysis
  timing.run_after_analysis(ir, AnalysisInfo{"Liveness", "@f"});
  clock.advance(1000 * us);
  timing.run_after_pass(ir, PassInfo{"CallGraph", 0});
  CHECK(timing.render() ==
        "CallGraph: 2000us [1000us] (100.00%; 100.00%)\n"
        "\t(A) Liveness: 1000us [1000us] (50.00%; 50.00%)\n");
}

TEST_CASE("Analysis timing: names and function keys are copied; a pass and an analysis of one name stay apart") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  for (const char* fn : {"@main", "@a_function_with_a_name_longer_than_thirty_two_bytes", "@main"}) {
    auto name = std::make_unique<std::string>("Liveness");
    auto key = std::make_unique<std::string>(fn);
    compute(timing, ir, AnalysisInfo{*name, *key}, 1 * us);
  }
  timing.run_before_pass(ir, PassInfo{"Liveness", 0});
  timing.run_after_pass(ir, PassInfo{"Liveness", 0});
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 4);
  CHECK(tree[0].function == "@main");
  CHECK(tree[1].function == "@a_function_with_a_name_longer_than_thirty_two_bytes");
  CHECK(tree[2].function == "@main");
  for (int i = 0; i < 3; ++i) CHECK(tree[i].label() == "(A) Liveness");
  CHECK_FALSE(tree[3].analysis);
  CHECK(tree[3].label() == "Liveness");
  CHECK(tree[3].function.empty());
}

TEST_CASE("Analysis timing: render_list() sums an analysis over its runs and functions in one (A) row") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  timing.run_before_pass(ir, PassInfo{"Liveness", 0});  // a pass of the same name: its own row
  clock.advance(100 * us);
  compute(timing, ir, AnalysisInfo{"Liveness", "@f"}, 200 * us);
  compute(timing, ir, AnalysisInfo{"Liveness", "@g"}, 300 * us);
  timing.run_after_pass(ir, PassInfo{"Liveness", 0});
  compute(timing, ir, AnalysisInfo{"CallGraph"}, 100 * us, [&] {
    compute(timing, ir, AnalysisInfo{"Liveness", "@f"}, 300 * us);
  });
  CHECK(timing.render_list() ==
        "===-------------------------------------------------------------------------===\n"
        "                         Pass execution timing report\n"
        "===-------------------------------------------------------------------------===\n"
        "  Total Execution Time: 1000us\n"
        "\n"
        "       Total (      %)       Self (      %)   Count  Name\n"
        "       800us ( 80.00%)      800us ( 80.00%)       3  (A) Liveness\n"
        "       600us ( 60.00%)      100us ( 10.00%)       1  Liveness\n"
        "       400us ( 40.00%)      100us ( 10.00%)       1  (A) CallGraph\n");
}

TEST_CASE("Analysis timing: the Chrome trace gives analyses \"cat\":\"analysis\" and the function in args") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  timing.run_before_pass(ir, PassInfo{"P", 0});
  compute(timing, ir, AnalysisInfo{"CallGraph"}, 2 * us);
  compute(timing, ir, AnalysisInfo{"Liveness", "@\"q\""}, 3 * us);
  timing.run_before_analysis(ir, AnalysisInfo{"Bad", "@main"});
  clock.advance(1 * us);
  timing.run_after_analysis_failed(AnalysisInfo{"Bad", "@main"}, nullptr);
  timing.run_after_pass(ir, PassInfo{"P", 0});

  const std::string text = timing.to_chrome_trace_json();
  Json doc;
  REQUIRE_NOTHROW(doc = parse_json(text));
  const auto& events = doc["traceEvents"].as_array();
  REQUIRE(events.size() == 4);
  struct Expect {
    std::string name, cat;
    double ts, dur;
    std::string function;
    bool failed;
  };
  const Expect expected[] = {{"P", "pass", 0.0, 6.0, "", false},
                             {"CallGraph", "analysis", 0.0, 2.0, "", false},
                             {"Liveness", "analysis", 2.0, 3.0, "@\"q\"", false},
                             {"Bad", "analysis", 5.0, 1.0, "@main", true}};
  for (std::size_t i = 0; i < 4; ++i) {
    const Json& e = events[i];
    CAPTURE(i);
    CHECK(e["name"].as_string() == expected[i].name);
    CHECK(e["cat"].as_string() == expected[i].cat);
    CHECK(e["ph"].as_string() == "X");
    CHECK(e["ts"].as_number() == doctest::Approx(expected[i].ts));
    CHECK(e["dur"].as_number() == doctest::Approx(expected[i].dur));
    const bool has_args = expected[i].failed || !expected[i].function.empty();
    CHECK(e.has("args") == has_args);
    if (!has_args) continue;
    CHECK(e["args"].has("failed") == expected[i].failed);
    CHECK(e["args"].has("function") == !expected[i].function.empty());
    if (!expected[i].function.empty()) CHECK(e["args"]["function"].as_string() == expected[i].function);
  }
  CHECK(text.find(R"({"name":"CallGraph","cat":"analysis","ph":"X","ts":0.000,"dur":2.000,"pid":1,"tid":1})") !=
        std::string::npos);
  CHECK(text.find(R"("args":{"failed":true,"function":"@main"}})") != std::string::npos);
}

TEST_CASE_TEMPLATE(
    "Analysis timing: through a manager, a miss is timed under the requesting pass, a cached lookup "
    "is not (SPEC 10.7)",
    L, StaticWithManager, DynamicWithManager) {
  Manager am;
  Timing timing(analysis_clock());
  auto ctx = L::context(am, timing);
  AModule m = passinfra::run(requests_slow_a(50 * us, 32 * us), make_module(), ctx);
  CHECK(timing.render() ==
        "FoldConstant: 130us [82us] (100.00%; 100.00%)\n"
        "\t(A) SlowA: 48us [30us] (36.92%; 36.92%)\n"
        "\t\t(A) SlowB: 18us [18us] (13.85%; 37.50%)\n");
  // Everything is cached now: a second run times the pass alone.
  timing.clear();
  m = passinfra::run(requests_slow_a(10 * us, 0), std::move(m), ctx);
  CHECK(timing.render() == "FoldConstant: 10us [10us] (100.00%; 100.00%)\n");
}

TEST_CASE_TEMPLATE("Analysis timing: a function analysis gives one entry per function, one render_list() row", L,
                   StaticWithManager, DynamicWithManager) {
  Manager am;
  Timing timing(analysis_clock());
  auto ctx = L::context(am, timing);
  (void)passinfra::run(requests_slow_fn(), make_module(), ctx);
  CHECK(timing.render() ==
        "PerFunction: 600us [0us] (100.00%; 100.00%)\n"
        "\t(A) SlowFn: 300us [300us] (50.00%; 50.00%)\n"
        "\t(A) SlowFn: 200us [200us] (33.33%; 33.33%)\n"
        "\t(A) SlowFn: 100us [100us] (16.67%; 16.67%)\n");
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 1);
  REQUIRE(tree[0].children.size() == 3);
  CHECK(tree[0].children[0].function == "f");
  CHECK(tree[0].children[1].function == "g");
  CHECK(tree[0].children[2].function == "h");
  const std::string list = timing.render_list();
  CHECK(list.find("       600us (100.00%)        0us (  0.00%)       1  PerFunction\n") != std::string::npos);
  CHECK(list.find("       600us (100.00%)      600us (100.00%)       3  (A) SlowFn\n") != std::string::npos);
  const Json doc = parse_json(timing.to_chrome_trace_json());
  const auto& events = doc["traceEvents"].as_array();
  REQUIRE(events.size() == 4);
  CHECK(events[0]["cat"].as_string() == "pass");
  CHECK_FALSE(events[0].has("args"));
  for (std::size_t i = 1; i < 4; ++i) {
    CHECK(events[i]["name"].as_string() == "SlowFn");
    CHECK(events[i]["cat"].as_string() == "analysis");
  }
  CHECK(events[2]["args"]["function"].as_string() == "g");
}

TEST_CASE_TEMPLATE("Analysis timing: an analysis that throws is closed and marked failed, the pass after it", L,
                   StaticWithManager, DynamicWithManager) {
  Manager am;
  Timing timing(analysis_clock());
  auto ctx = L::context(am, timing);
  SUBCASE("the body catches it: the pass ends normally") {
    auto p = passinfra::module_pass(PassInfo{"Tries", 0}, [](AModule m, auto& c) {
      try {
        (void)c.analyses().template get<Failing>(m);
      } catch (const TestError&) {
        analysis_clock().advance(100 * us);
      }
      return m;
    });
    (void)passinfra::run(p, make_module(), ctx);
    CHECK(timing.render() ==
          "Tries: 300us [100us] (100.00%; 100.00%)\n"
          "\t(A) Failing: 200us [200us] (66.67%; 66.67%)\n");
    const auto tree = timing.profile();
    CHECK_FALSE(tree.at(0).failed);
    CHECK(tree.at(0).children.at(0).failed);
  }
  SUBCASE("it leaves the body: both are failed") {
    auto p = passinfra::module_pass(PassInfo{"Fails", 0}, [](AModule m, auto& c) {
      (void)c.analyses().template get<Failing>(m);
      return m;
    });
    CHECK_THROWS_AS((void)passinfra::run(p, make_module(), ctx), TestError);
    CHECK(timing.render() ==
          "Fails: 200us [0us] (100.00%; 100.00%)\n"
          "\t(A) Failing: 200us [200us] (100.00%; 100.00%)\n");
    const auto tree = timing.profile();
    CHECK(tree.at(0).failed);
    CHECK(tree.at(0).children.at(0).failed);
  }
  // Nothing is left open: the next pass is a top-level entry.
  (void)passinfra::run(requests_slow_a(0, 0), make_module(), ctx);
  CHECK(timing.profile().back().name == "FoldConstant");
}

TEST_CASE_TEMPLATE("Analysis timing: ctx.analyses() used outside any pass gives top-level entries", L,
                   StaticWithManager, DynamicWithManager) {
  Manager am;
  Timing timing(analysis_clock());
  auto ctx = L::context(am, timing);
  const AModule m = make_module();
  (void)ctx.analyses().template get<SlowA>(m);
  (void)ctx.analyses().template get<SlowFn>(m, m.functions[1]);
  CHECK(timing.render() ==
        "(A) SlowA: 48us [30us] (19.35%; 19.35%)\n"
        "\t(A) SlowB: 18us [18us] (7.26%; 37.50%)\n"
        "(A) SlowFn: 200us [200us] (80.65%; 80.65%)\n");
  // Direct use of the manager fires no hook: nothing more is timed.
  am.clear();
  (void)am.get<SlowA>(m);
  CHECK(timing.profile().size() == 2);
}
