// PassTimingInstrument (SPEC §6): exact TVM format with a ManualClock, nesting,
// failures, exits, list view, Chrome trace JSON, profile tree, threads.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>

#include "support/layers.hpp"
#include "support/mini_json.hpp"
#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using passinfra::ManualClock;
using passinfra::PassInfo;
using passinfra::requires_passes;

namespace {

using Timing = passinfra::BasicPassTimingInstrument<ManualClock>;

// A pass that spends `ns` nanoseconds of the clock.
auto work(std::string_view name, ManualClock clock, std::int64_t ns) {
  return passinfra::module_pass(PassInfo{name, 0}, [clock, ns](TestIR ir) {
    clock.advance(ns);
    ir.trail.emplace_back("work");
    return ir;
  });
}

// A pass that spends `before` ns, runs `inner` (instrumented), then spends `after` ns.
template <class Inner>
auto wrap(std::string_view name, ManualClock clock, std::int64_t before, Inner inner, std::int64_t after = 0) {
  return passinfra::module_pass(PassInfo{name, 0}, [clock, before, inner, after](TestIR ir, auto& ctx) {
    clock.advance(before);
    ir = passinfra::run(inner, std::move(ir), ctx);
    clock.advance(after);
    return ir;
  });
}

// A pass that spends `ns` and throws TestError(100).
auto crash(std::string_view name, ManualClock clock, std::int64_t ns) {
  return passinfra::module_pass(PassInfo{name, 0}, [clock, ns](TestIR ir) -> TestIR {
    clock.advance(ns);
    throw_test_error(100, "pass body failed");
    return ir;
  });
}

// Static pass types on one shared clock, for Sequential<...>.
ManualClock& shared_clock() {
  static ManualClock clock;
  return clock;
}
template <Name N, std::int64_t Ns, class Req = requires_passes<>>
struct Work {
  static constexpr PassInfo info{N.view(), 0};
  using required = Req;
  TestIR transform(TestIR ir, auto&) const {
    shared_clock().advance(Ns);
    return ir;
  }
};

constexpr std::int64_t us = 1000;
constexpr std::int64_t ms = 1000 * us;

}  // namespace

TEST_CASE_TEMPLATE("PassTimingInstrument: render() gives SPEC 6's example to the digit", L,
                   PITEST_INSTRUMENT_LAYERS(TestIR)) {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = L::context({}, timing);
  // Nanosecond values chosen so that every rounded figure of the example comes out.
  auto infer_top = work("InferType", clock, 4339600);
  auto fold_scale_axis =
      wrap("FoldScaleAxis", clock, 2000, wrap("FoldConstant", clock, 1068700, work("InferType", clock, 4168180)));
  TestIR ir = passinfra::run(infer_top, TestIR{}, ctx);
  ir = passinfra::run(fold_scale_axis, std::move(ir), ctx);
  CHECK(timing.render() ==
        "InferType: 4340us [4340us] (45.31%; 45.31%)\n"
        "FoldScaleAxis: 5239us [2us] (54.69%; 54.69%)\n"
        "\tFoldConstant: 5237us [1069us] (54.67%; 99.96%)\n"
        "\t\tInferType: 4168us [4168us] (43.52%; 79.59%)\n");
}

TEST_CASE("PassTimingInstrument: nesting through Sequential, its required passes and a nested Sequential") {
  Timing timing(shared_clock());
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  using A = Work<"A", 1 * ms>;
  using R = Work<"R", 500 * us>;
  using B = Work<"B", 2 * ms, requires_passes<R>>;
  using C = Work<"C", 250 * us>;
  passinfra::Sequential<A, B, passinfra::Sequential<C>> seq;
  (void)passinfra::run(seq, TestIR{}, ctx);
  CHECK(timing.render() ==
        "sequential: 3750us [0us] (100.00%; 100.00%)\n"
        "\tA: 1000us [1000us] (26.67%; 26.67%)\n"
        "\tR: 500us [500us] (13.33%; 13.33%)\n"
        "\tB: 2000us [2000us] (53.33%; 53.33%)\n"
        "\tsequential: 250us [0us] (6.67%; 6.67%)\n"
        "\t\tC: 250us [250us] (6.67%; 100.00%)\n");
}

TEST_CASE_TEMPLATE("PassTimingInstrument: a nested run() inside a body nests; self excludes children", L,
                   PITEST_INSTRUMENT_LAYERS(TestIR)) {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = L::context({}, timing);
  auto outer = wrap("Outer", clock, 300 * us, work("Inner", clock, 600 * us), 100 * us);
  (void)passinfra::run(outer, TestIR{}, ctx);
  (void)passinfra::run(work("Next", clock, 1 * ms), TestIR{}, ctx);
  CHECK(timing.render() ==
        "Outer: 1000us [400us] (50.00%; 50.00%)\n"
        "\tInner: 600us [600us] (30.00%; 60.00%)\n"
        "Next: 1000us [1000us] (50.00%; 50.00%)\n");
}

TEST_CASE("PassTimingInstrument: nothing recorded -- render() is empty and logs the WARNING") {
  Timing timing{ManualClock{}};
  LogCapture capture;
  CHECK(timing.render().empty());
  CHECK(capture.lines ==
        std::vector<std::string>{"WARNING no passes have been profiled, did you enable pass profiling?"});
  CHECK(timing.profile().empty());
  CHECK(timing.render_list().find("Total Execution Time: 0us") != std::string::npos);
}

TEST_CASE("PassTimingInstrument: render() clears nothing and can be called again") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx);
  const std::string first = timing.render();
  CHECK(first == "P: 1000us [1000us] (100.00%; 100.00%)\n");
  CHECK(timing.render() == first);
  (void)passinfra::run(work("Q", clock, 3 * ms), TestIR{}, ctx);
  CHECK(timing.render() ==
        "P: 1000us [1000us] (25.00%; 25.00%)\n"
        "Q: 3000us [3000us] (75.00%; 75.00%)\n");
}

TEST_CASE("PassTimingInstrument: exit_pass_ctx discards the profiles; keep_on_exit keeps them") {
  ManualClock clock;
  SUBCASE("default: discarded when the scope ends") {
    Timing timing(clock);
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    {
      auto scope = ctx.enter();
      (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx);
      CHECK(timing.render() == "P: 1000us [1000us] (100.00%; 100.00%)\n");
    }
    LogCapture capture;
    CHECK(timing.render().empty());
    CHECK(capture.lines.size() == 1);
  }
  SUBCASE("keep_on_exit: kept across the exit, and the next scope adds to them") {
    Timing timing({.keep_on_exit = true}, clock);
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    ctx.with([&] { (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx); });
    CHECK(timing.render() == "P: 1000us [1000us] (100.00%; 100.00%)\n");
    ctx.with([&] { (void)passinfra::run(work("Q", clock, 1 * ms), TestIR{}, ctx); });
    CHECK(timing.render() ==
          "P: 1000us [1000us] (50.00%; 50.00%)\n"
          "Q: 1000us [1000us] (50.00%; 50.00%)\n");
    timing.clear();
    LogCapture capture;
    CHECK(timing.render().empty());
  }
}

TEST_CASE("PassTimingInstrument: an exit while a pass runs discards its entry; its after hook is ignored") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  // The body enters and leaves a second context holding the same instrument.
  auto outer = passinfra::module_pass(PassInfo{"Outer", 0}, [&](TestIR ir) {
    auto inner_ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    inner_ctx.with([&] { ir = passinfra::run(work("Inner", clock, 1 * ms), std::move(ir), inner_ctx); });
    return ir;
  });
  (void)passinfra::run(outer, TestIR{}, ctx);
  (void)passinfra::run(work("After", clock, 2 * ms), TestIR{}, ctx);
  CHECK(timing.render() == "After: 2000us [2000us] (100.00%; 100.00%)\n");
}

TEST_CASE("PassTimingInstrument: render() from inside a pass leaves running passes out") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  std::string seen_inside;
  std::vector<passinfra::PassProfile> tree_inside;
  auto outer = passinfra::module_pass(PassInfo{"Outer", 0}, [&](TestIR ir, auto& c) {
    ir = passinfra::run(work("Done", clock, 1 * ms), std::move(ir), c);
    seen_inside = timing.render();  // Outer is still running: left out, Done shown at the top
    tree_inside = timing.profile();
    clock.advance(1 * ms);
    return ir;
  });
  (void)passinfra::run(outer, TestIR{}, ctx);
  CHECK(seen_inside == "Done: 1000us [1000us] (100.00%; 100.00%)\n");
  REQUIRE(tree_inside.size() == 1);
  CHECK(tree_inside[0].name == "Done");
  CHECK(timing.render() ==
        "Outer: 2000us [1000us] (100.00%; 100.00%)\n"
        "\tDone: 1000us [1000us] (50.00%; 50.00%)\n");
}

TEST_CASE_TEMPLATE("PassTimingInstrument: a throwing pass leaves no open entry; failed runs are closed and marked", L,
                   PITEST_INSTRUMENT_LAYERS(TestIR)) {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = L::context({}, timing);
  auto seq = L::seq(work("A", clock, 1 * ms), crash("Boom", clock, 2 * ms), work("B", clock, 4 * ms));
  CHECK_THROWS_AS((void)passinfra::run(seq, TestIR{}, ctx), TestError);
  (void)passinfra::run(work("Later", clock, 1 * ms), TestIR{}, ctx);  // top level, not under the failed ones
  CHECK(timing.render() ==
        "sequential: 3000us [0us] (75.00%; 75.00%)\n"
        "\tA: 1000us [1000us] (25.00%; 33.33%)\n"
        "\tBoom: 2000us [2000us] (50.00%; 66.67%)\n"
        "Later: 1000us [1000us] (25.00%; 25.00%)\n");
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 2);
  CHECK(tree[0].failed);
  REQUIRE(tree[0].children.size() == 2);
  CHECK_FALSE(tree[0].children[0].failed);
  CHECK(tree[0].children[1].failed);
  CHECK_FALSE(tree[1].failed);
}

TEST_CASE("PassTimingInstrument: a hook that throws around it closes its entry too") {
  ManualClock clock;
  Timing timing(clock);
  EventLog log;
  SUBCASE("a later instrument's run_before_pass throws: the entry is closed at once, failed") {
    auto bad = make("Bad", log, Hook::before);
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing), std::ref(bad));
    CHECK_THROWS_AS((void)passinfra::run(work("P", clock, 1 * ms), TestIR{&log}, ctx), TestError);
    const auto tree = timing.profile();
    REQUIRE(tree.size() == 1);
    CHECK(tree[0].name == "P");
    CHECK(tree[0].failed);
    CHECK(tree[0].duration == std::chrono::nanoseconds(0));
  }
  SUBCASE("an earlier instrument's run_after_pass throws: this one's after never starts; failed closes it") {
    auto bad = make("Bad", log, Hook::after);
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(bad), std::ref(timing));
    CHECK_THROWS_AS((void)passinfra::run(work("P", clock, 1 * ms), TestIR{&log}, ctx), TestError);
    const auto tree = timing.profile();
    REQUIRE(tree.size() == 1);
    CHECK(tree[0].failed);
    CHECK(tree[0].duration == std::chrono::nanoseconds(1 * ms));
  }
  auto plain = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(work("Next", clock, 1 * ms), TestIR{}, plain);
  CHECK(timing.profile().back().name == "Next");
  CHECK(timing.profile().size() == 2);
}

TEST_CASE("PassTimingInstrument: a vetoed pass is not recorded") {
  ManualClock clock;
  Timing timing(clock);
  EventLog log;
  auto veto = make<ShouldRunOnly>("Veto", log);
  veto.veto_only = {"Skipped"};
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing), std::ref(veto));
  passinfra::Sequential seq{work("Ran", clock, 1 * ms), work("Skipped", clock, 5 * ms)};
  (void)passinfra::run(seq, TestIR{&log}, ctx);
  CHECK(timing.render() ==
        "sequential: 1000us [0us] (100.00%; 100.00%)\n"
        "\tRan: 1000us [1000us] (100.00%; 100.00%)\n");
}

TEST_CASE("PassTimingInstrument: a pass named root works") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(wrap("root", clock, 1 * ms, work("root", clock, 1 * ms)), TestIR{}, ctx);
  CHECK(timing.render() ==
        "root: 2000us [1000us] (100.00%; 100.00%)\n"
        "\troot: 1000us [1000us] (50.00%; 50.00%)\n");
}

TEST_CASE("PassTimingInstrument: a run_after_pass with nothing open, or not for the open pass, is ignored") {
  ManualClock clock;
  Timing timing(clock);
  const TestIR ir;
  // Nothing open yet: a stray after, for a named and for an unnamed pass, failed or not.
  timing.run_after_pass(ir, PassInfo{"Stray", 0});
  timing.run_after_pass(ir, PassInfo{"", 0});
  timing.run_after_pass_failed(PassInfo{"", 0}, nullptr);
  clock.advance(1 * ms);
  timing.run_before_pass(ir, PassInfo{"Outer", 0});
  clock.advance(1 * ms);
  timing.run_before_pass(ir, PassInfo{"", 0});
  clock.advance(2 * ms);
  timing.run_after_pass(ir, PassInfo{"Other", 0});              // not the innermost open pass: ignored
  timing.run_after_pass_failed(PassInfo{"Other", 0}, nullptr);  // ignored too: "" does not fail
  timing.run_after_pass(ir, PassInfo{"", 0});
  timing.run_after_pass(ir, PassInfo{"", 0});  // Outer is open, not "": ignored
  clock.advance(1 * ms);
  timing.run_after_pass(ir, PassInfo{"Outer", 0});
  timing.run_after_pass(ir, PassInfo{"Outer", 0});  // nothing open again
  timing.run_after_pass(ir, PassInfo{"", 0});
  CHECK(timing.render() ==
        "Outer: 4000us [2000us] (100.00%; 100.00%)\n"
        "\t: 2000us [2000us] (50.00%; 50.00%)\n");
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 1);
  CHECK_FALSE(tree[0].failed);
  CHECK_FALSE(tree[0].children.at(0).failed);
}

TEST_CASE("PassTimingInstrument: thousands of runs under passes still running keep their nesting") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  // Outer > Middle > 3000 x Leaf: the buffer grows (and moves) several times while
  // Outer and Middle are open; render() from inside sees the finished leaves only.
  std::string inside;
  auto leaves = passinfra::module_pass(PassInfo{"Leaves", 0}, [&](TestIR ir, auto& c) {
    for (int i = 0; i < 3000; ++i) ir = passinfra::run(work("Leaf", clock, 1 * us), std::move(ir), c);
    inside = timing.render_list();
    return ir;
  });
  auto outer = wrap("Outer", clock, 1 * ms, wrap("Middle", clock, 1 * ms, leaves), 1 * ms);
  (void)passinfra::run(outer, TestIR{}, ctx);
  CHECK(inside.find(" 3000  Leaf\n") != std::string::npos);
  CHECK(inside.find("Outer") == std::string::npos);
  CHECK(inside.find("Leaves") == std::string::npos);
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 1);
  CHECK(tree[0].name == "Outer");
  CHECK(tree[0].duration == std::chrono::nanoseconds(6 * ms));
  REQUIRE(tree[0].children.size() == 1);
  const auto& middle = tree[0].children[0];
  CHECK(middle.name == "Middle");
  CHECK(middle.duration == std::chrono::nanoseconds(4 * ms));
  REQUIRE(middle.children.size() == 1);
  const auto& leaves_run = middle.children[0];
  CHECK(leaves_run.name == "Leaves");
  CHECK(leaves_run.duration == std::chrono::nanoseconds(3 * ms));
  REQUIRE(leaves_run.children.size() == 3000);
  for (const auto& leaf : leaves_run.children) {
    REQUIRE(leaf.name == "Leaf");
    REQUIRE(leaf.duration == std::chrono::nanoseconds(1 * us));
    REQUIRE(leaf.children.empty());
  }
  CHECK(leaves_run.children[2999].start - leaves_run.children[0].start == std::chrono::nanoseconds(2999 * us));
  // After a grown buffer is cleared, it records from the start again.
  timing.clear();
  (void)passinfra::run(work("Again", clock, 1 * ms), TestIR{}, ctx);
  CHECK(timing.render() == "Again: 1000us [1000us] (100.00%; 100.00%)\n");
}

TEST_CASE("PassTimingInstrument: zero durations print 0.00 percentages, not nan") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(work("Instant", clock, 0), TestIR{}, ctx);
  CHECK(timing.render() == "Instant: 0us [0us] (0.00%; 0.00%)\n");
}

TEST_CASE("PassTimingInstrument: the time includes the hooks listed after it (before) and before it (after)") {
  ManualClock clock;
  // An instrument whose hooks take 100us each.
  struct Slow {
    ManualClock clock;
    void run_before_pass(const TestIR&, const PassInfo&) { clock.advance(100 * us); }
    void run_after_pass(const TestIR&, const PassInfo&) { clock.advance(100 * us); }
  };
  SUBCASE("[timing, slow]: slow's before is inside, its after outside") {
    Timing timing(clock);
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing), Slow{clock});
    (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx);
    CHECK(timing.render() == "P: 1100us [1100us] (100.00%; 100.00%)\n");
  }
  SUBCASE("[slow, timing]: slow's after is inside, its before outside") {
    Timing timing(clock);
    auto ctx = passinfra::make_pass_context<TestIR>({}, Slow{clock}, std::ref(timing));
    (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx);
    CHECK(timing.render() == "P: 1100us [1100us] (100.00%; 100.00%)\n");
  }
  SUBCASE("[slow, timing, slow]: both inner hooks are inside") {
    Timing timing(clock);
    auto ctx = passinfra::make_pass_context<TestIR>({}, Slow{clock}, std::ref(timing), Slow{clock});
    (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx);
    CHECK(timing.render() == "P: 1200us [1200us] (100.00%; 100.00%)\n");
  }
}

TEST_CASE("PassTimingInstrument: render_list() aggregates by name, sorted by total time, with counts") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  // The SPEC 6 tree: InferType twice (once nested), FoldScaleAxis > FoldConstant > InferType.
  (void)passinfra::run(work("InferType", clock, 4340 * us), TestIR{}, ctx);
  (void)passinfra::run(
      wrap("FoldScaleAxis", clock, 2 * us, wrap("FoldConstant", clock, 1069 * us, work("InferType", clock, 4168 * us))),
      TestIR{}, ctx);
  CHECK(timing.render_list() ==
        "===-------------------------------------------------------------------------===\n"
        "                         Pass execution timing report\n"
        "===-------------------------------------------------------------------------===\n"
        "  Total Execution Time: 9579us\n"
        "\n"
        "       Total (      %)       Self (      %)   Count  Name\n"
        "      8508us ( 88.82%)     8508us ( 88.82%)       2  InferType\n"
        "      5239us ( 54.69%)        2us (  0.02%)       1  FoldScaleAxis\n"
        "      5237us ( 54.67%)     1069us ( 11.16%)       1  FoldConstant\n");
}

TEST_CASE("PassTimingInstrument: render_list() does not count a run nested in a run of the same name twice") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(wrap("Loop", clock, 1 * ms, wrap("Loop", clock, 1 * ms, work("Body", clock, 1 * ms))), TestIR{},
                       ctx);
  const std::string list = timing.render_list();
  CHECK(list.find("      3000us (100.00%)     2000us ( 66.67%)       2  Loop\n") != std::string::npos);
  CHECK(list.find("      1000us ( 33.33%)     1000us ( 33.33%)       1  Body\n") != std::string::npos);
}

TEST_CASE("PassTimingInstrument: profile() is the tree, with start, duration and self") {
  ManualClock clock(123456789);  // the origin is the first start, whatever the clock says
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(work("First", clock, 1 * ms), TestIR{}, ctx);
  clock.advance(5 * ms);  // idle time between runs
  (void)passinfra::run(wrap("Second", clock, 2 * ms, work("Child", clock, 3 * ms)), TestIR{}, ctx);
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 2);
  using std::chrono::nanoseconds;
  CHECK(tree[0].name == "First");
  CHECK(tree[0].start == nanoseconds(0));
  CHECK(tree[0].duration == nanoseconds(1 * ms));
  CHECK(tree[0].children.empty());
  CHECK(tree[0].thread == 1);
  CHECK(tree[1].name == "Second");
  CHECK(tree[1].start == nanoseconds(6 * ms));
  CHECK(tree[1].duration == nanoseconds(5 * ms));
  CHECK(tree[1].self() == nanoseconds(2 * ms));
  REQUIRE(tree[1].children.size() == 1);
  CHECK(tree[1].children[0].name == "Child");
  CHECK(tree[1].children[0].start == nanoseconds(8 * ms));
  CHECK(tree[1].children[0].duration == nanoseconds(3 * ms));
  // A filtered tree renders with the free functions.
  CHECK(passinfra::format_pass_profiles({tree[1]}) ==
        "Second: 5000us [2000us] (100.00%; 100.00%)\n"
        "\tChild: 3000us [3000us] (60.00%; 60.00%)\n");
}

TEST_CASE("PassTimingInstrument: to_chrome_trace_json() parses back as Trace Event Format complete events") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  static constexpr char weird[] = "we\"ird\\name\n\t\x01/";
  (void)passinfra::run(wrap("Outer", clock, 1500, work(weird, clock, 2250)), TestIR{}, ctx);
  CHECK_THROWS((void)passinfra::run(crash("Boom", clock, 1 * us), TestIR{}, ctx));

  const std::string text = timing.to_chrome_trace_json(7);
  Json doc;
  REQUIRE_NOTHROW(doc = parse_json(text));
  REQUIRE(doc.is_object());
  CHECK(doc["displayTimeUnit"].as_string() == "ns");
  const auto& events = doc["traceEvents"].as_array();
  REQUIRE(events.size() == 3);
  struct Expect {
    std::string name;
    double ts, dur;
    bool failed;
  };
  const Expect expected[] = {{"Outer", 0.0, 3.75, false}, {weird, 1.5, 2.25, false}, {"Boom", 3.75, 1.0, true}};
  for (std::size_t i = 0; i < 3; ++i) {
    const Json& e = events[i];
    CAPTURE(i);
    CHECK(e["name"].as_string() == expected[i].name);
    CHECK(e["ph"].as_string() == "X");
    CHECK(e["cat"].as_string() == "pass");
    CHECK(e["ts"].as_number() == doctest::Approx(expected[i].ts));
    CHECK(e["dur"].as_number() == doctest::Approx(expected[i].dur));
    CHECK(e["pid"].as_number() == 7);
    CHECK(e["tid"].as_number() == 1);
    CHECK(e.has("args") == expected[i].failed);
    if (expected[i].failed) CHECK(e["args"]["failed"].as_bool());
  }
  // The exact text of one event: microseconds with three exact decimals.
  CHECK(text.find(R"({"name":"Outer","cat":"pass","ph":"X","ts":0.000,"dur":3.750,"pid":7,"tid":1})") !=
        std::string::npos);
  CHECK(text.find(R"("name":"we\"ird\\name\n\t\u0001/")") != std::string::npos);
}

TEST_CASE("PassTimingInstrument: an empty trace is still valid JSON") {
  Timing timing{ManualClock{}};
  const Json doc = parse_json(timing.to_chrome_trace_json());
  CHECK(doc["traceEvents"].as_array().empty());
}

TEST_CASE("PassTimingInstrument: names are copied -- a pass whose name dies is still reported right") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  std::vector<std::string> expected;
  // Every length from 0 to 40 (inline copies up to 32 bytes, interned beyond), each name
  // in a heap string that dies right after its run, so addresses get reused.
  for (std::size_t n = 0; n <= 40; ++n) {
    auto name = std::make_unique<std::string>();
    for (std::size_t i = 0; i < n; ++i) name->push_back(static_cast<char>('a' + (i * 7 + n) % 26));
    expected.push_back(*name);
    (void)passinfra::run(work(*name, clock, 1 * us), TestIR{}, ctx);
  }
  // Same address, same length, different bytes: still told apart.
  for (const char* text : {"AlphaPass", "BravoPass", "AlphaPass"}) {
    auto name = std::make_unique<std::string>(text);
    expected.emplace_back(text);
    (void)passinfra::run(work(*name, clock, 1 * us), TestIR{}, ctx);
  }
  const auto tree = timing.profile();
  REQUIRE(tree.size() == expected.size());
  for (std::size_t i = 0; i < tree.size(); ++i) {
    CAPTURE(i);
    CHECK(tree[i].name == expected[i]);
  }
}

TEST_CASE("PassTimingInstrument: a moved instrument keeps its profiles; the moved-from one is empty and usable") {
  ManualClock clock;
  Timing first(clock);
  {
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(first));
    (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx);
  }
  Timing second(std::move(first));
  CHECK(second.render() == "P: 1000us [1000us] (100.00%; 100.00%)\n");
  {
    LogCapture capture;
    CHECK(first.render().empty());  // NOLINT(bugprone-use-after-move): documented state
  }
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(first));
  (void)passinfra::run(work("Q", clock, 1 * ms), TestIR{}, ctx);
  CHECK(first.render() == "Q: 1000us [1000us] (100.00%; 100.00%)\n");
  CHECK(second.render() == "P: 1000us [1000us] (100.00%; 100.00%)\n");
}

TEST_CASE("PassTimingInstrument: held by value in a static set, read back through the context") {
  ManualClock clock;
  auto ctx = passinfra::make_pass_context<TestIR>({}, Timing(clock));
  (void)passinfra::run(work("P", clock, 1 * ms), TestIR{}, ctx);
  CHECK(ctx.instruments().get<0>().render() == "P: 1000us [1000us] (100.00%; 100.00%)\n");
}

TEST_CASE("PassTimingInstrument: threads record separately and never nest into each other") {
  ManualClock clock;
  Timing timing({.keep_on_exit = true}, clock);
  // Each thread runs Outer > Inner under its own entered context holding the same
  // instrument, while the other does the same; the main thread ran a pass before.
  auto main_ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(work("Main", clock, 0), TestIR{}, main_ctx);
  auto body = [&](std::string_view outer_name) {
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    ctx.with([&] {
      for (int i = 0; i < 200; ++i) {
        (void)passinfra::run(wrap(outer_name, clock, 0, work("Inner", clock, 0)), TestIR{}, ctx);
      }
    });
  };
  std::thread t1(body, "OuterA");
  std::thread t2(body, "OuterB");
  t1.join();
  t2.join();
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 401);
  CHECK(tree[0].name == "Main");
  CHECK(tree[0].thread == 1);
  std::size_t a = 0, b = 0;
  for (std::size_t i = 1; i < tree.size(); ++i) {
    const auto& p = tree[i];
    REQUIRE(p.children.size() == 1);
    CHECK(p.children[0].name == "Inner");
    CHECK(p.children[0].thread == p.thread);
    CHECK(p.thread != 1);
    (p.name == "OuterA" ? a : b) += 1;
    // One thread, one name: the threads' buffers are listed one after the other.
    CHECK(p.name == tree[i < 201 ? 1 : 201].name);
  }
  CHECK(a == 200);
  CHECK(b == 200);
}

TEST_CASE("PassTimingInstrument: exit_pass_ctx discards only the exiting thread's profiles") {
  ManualClock clock;
  Timing timing(clock);
  auto main_ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  (void)passinfra::run(work("Main", clock, 1 * ms), TestIR{}, main_ctx);  // no scope: nothing exits
  std::thread worker([&] {
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    ctx.with([&] { (void)passinfra::run(work("Worker", clock, 1 * ms), TestIR{}, ctx); });
  });
  worker.join();
  CHECK(timing.render() == "Main: 1000us [1000us] (100.00%; 100.00%)\n");
  { auto scope = main_ctx.enter(); }
  LogCapture capture;
  CHECK(timing.render().empty());
}

TEST_CASE("PassTimingInstrument: one static context used from several threads at once") {
  ManualClock clock;
  Timing timing(clock);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        (void)passinfra::run(wrap("Outer", clock, 0, work("Inner", clock, 0)), TestIR{}, ctx);
      }
    });
  }
  for (auto& t : threads) t.join();
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 400);
  for (const auto& p : tree) {
    CHECK(p.name == "Outer");
    REQUIRE(p.children.size() == 1);
    CHECK(p.children[0].children.empty());
  }
}

TEST_CASE("PassTimingInstrument: the real clocks time real passes") {
  auto sleepy = passinfra::module_pass(PassInfo{"Sleep", 0}, [](TestIR ir) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return ir;
  });
  SUBCASE("SteadyClock (the default)") {
    passinfra::PassTimingInstrument timing;
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    (void)passinfra::run(sleepy, TestIR{}, ctx);
    const auto tree = timing.profile();
    REQUIRE(tree.size() == 1);
    CHECK(tree[0].duration >= std::chrono::milliseconds(2));
    CHECK(tree[0].duration < std::chrono::seconds(10));
  }
  SUBCASE("TscClock, calibrated to nanoseconds") {
    passinfra::BasicPassTimingInstrument<passinfra::TscClock> timing;
    CHECK(timing.clock().ns_per_tick() > 0.0);
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    (void)passinfra::run(sleepy, TestIR{}, ctx);
    const auto tree = timing.profile();
    REQUIRE(tree.size() == 1);
    // Calibration error is small; the bounds only guard against a wrong unit.
    CHECK(tree[0].duration >= std::chrono::microseconds(1500));
    CHECK(tree[0].duration < std::chrono::seconds(10));
  }
  SUBCASE("ChronoClock over any std::chrono clock") {
    passinfra::BasicPassTimingInstrument<passinfra::ChronoClock<std::chrono::system_clock>> timing;
    auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(timing));
    (void)passinfra::run(sleepy, TestIR{}, ctx);
    CHECK(timing.profile().at(0).duration >= std::chrono::milliseconds(1));
  }
}
