// Every instrument of passinfra/instruments/ behaves the same in a static
// InstrumentSet and in a dynamic instrument list: each scenario runs on three
// layers and must print, record and throw exactly the same.
//   OnStatic        make_pass_context + Sequential (instruments held by std::ref)
//   OnDynamicAlone  PassContext<IR> whose list holds the instruments alone, over a
//                   DynamicSequential (one instrument: the instrument's own loop)
//   OnDynamicShared the same with an idle instrument added at the end of the list
//                   (two or more: the walk through the list)
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>
#include <passinfra/instruments/crash_reproducer.hpp>
#include <passinfra/instruments/pass_bisect.hpp>
#include <passinfra/instruments/pass_statistics.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>
#include <passinfra/instruments/print_ir_after.hpp>
#include <passinfra/instruments/print_ir_before.hpp>
#include <passinfra/instruments/print_ir_changed.hpp>
#include <passinfra/instruments/verifier_instrument.hpp>

#include "support/generic_instruments.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;
using passinfra::PassInfo;

namespace {

struct OnStatic {
  template <class... Is>
  static auto context(passinfra::PassContextOptions options, Is&... instruments) {
    return passinfra::make_pass_context<TextIR>(std::move(options), std::ref(instruments)...);
  }
  template <class... Ps>
  static auto seq(Ps... passes) {
    return passinfra::Sequential<Ps...>(std::move(passes)...);
  }
};

template <bool Shared>
struct OnDynamic {
  template <class... Is>
  static passinfra::PassContext<TextIR> context(passinfra::PassContextOptions options, Is&... instruments) {
    std::vector<passinfra::AnyInstrument<TextIR>> list{passinfra::AnyInstrument<TextIR>(std::ref(instruments))...};
    if constexpr (Shared) list.emplace_back(std::make_shared<VetoNames>());  // vetoes nothing
    return passinfra::PassContext<TextIR>(std::move(options), passinfra::DynamicInstruments<TextIR>(std::move(list)));
  }
  template <class... Ps>
  static passinfra::DynamicSequential<TextIR> seq(Ps... passes) {
    return passinfra::DynamicSequential<TextIR>{passinfra::AnyPass<TextIR>(std::move(passes))...};
  }
};
using OnDynamicAlone = OnDynamic<false>;
using OnDynamicShared = OnDynamic<true>;

// A pass that spends `ns` of the clock, then appends its name.
auto tick(std::string_view name, passinfra::ManualClock clock, std::int64_t ns) {
  return passinfra::module_pass(PassInfo{name, 0}, [clock, ns, line = std::string(name)](TextIR ir) {
    clock.advance(ns);
    ir.lines.push_back(line);
    return ir;
  });
}
// A pass that spends `ns` and throws TestError(7).
auto tick_crash(std::string_view name, passinfra::ManualClock clock, std::int64_t ns) {
  return passinfra::module_pass(PassInfo{name, 0}, [clock, ns](TextIR ir) -> TextIR {
    clock.advance(ns);
    throw_test_error(7, "crash");
    return ir;
  });
}
// A pass that runs `inner` under its own context (a nested run).
template <class Inner>
auto nesting(std::string_view name, Inner inner) {
  return passinfra::module_pass(PassInfo{name, 0},
                                [inner](TextIR ir, auto& ctx) { return passinfra::run(inner, std::move(ir), ctx); });
}

constexpr std::int64_t ms = 1'000'000;

}  // namespace

#define PITEST_INSTRUMENT_LAYERS OnStatic, OnDynamicAlone, OnDynamicShared

TEST_CASE_TEMPLATE("layers: PrintIRBefore prints every pass's input, the filtered ones only", L,
                   PITEST_INSTRUMENT_LAYERS) {
  std::ostringstream all_out, b_out;
  passinfra::PrintIRBefore all(all_out);
  passinfra::PrintIRBefore only_b({"B"}, b_out);
  auto ctx = L::context({}, all, only_b);
  auto seq = L::seq(append_pass("A", "a = 1"), append_pass("B", "b = 2"));
  CHECK(passinfra::run(seq, text_ir({"x = 0"}), ctx) == text_ir({"x = 0", "a = 1", "b = 2"}));
  CHECK(all_out.str() ==
        "Before Running Pass: sequential\n"
        "x = 0\n"
        "Before Running Pass: A\n"
        "x = 0\n"
        "Before Running Pass: B\n"
        "x = 0\n"
        "a = 1\n");
  CHECK(all.printed() == 3);
  CHECK(b_out.str() == "Before Running Pass: B\nx = 0\na = 1\n");
}

TEST_CASE_TEMPLATE("layers: PrintIRAfter prints every pass's output, innermost first", L, PITEST_INSTRUMENT_LAYERS) {
  std::ostringstream out;
  passinfra::PrintIRAfter print(out);
  auto ctx = L::context({}, print);
  (void)passinfra::run(L::seq(append_pass("A", "a = 1"), replace_pass("B", "a = 1", "a = 2")), text_ir({}), ctx);
  CHECK(out.str() ==
        "After Running Pass: A\n"
        "a = 1\n"
        "After Running Pass: B\n"
        "a = 2\n"
        "After Running Pass: sequential\n"
        "a = 2\n");
}

TEST_CASE_TEMPLATE("layers: PrintIRChanged prints only passes that changed the IR, with a diff", L,
                   PITEST_INSTRUMENT_LAYERS) {
  std::ostringstream out, diff_out;
  passinfra::PrintIRChanged print(out);
  passinfra::PrintIRChanged diff({"Grow"}, diff_out, {.diff = true, .context = 1});
  auto ctx = L::context({}, print, diff);
  (void)passinfra::run(L::seq(identity_pass("Same"), append_pass("Grow", "b = 2"), identity_pass("Same2")),
                       text_ir({"a = 1"}), ctx);
  CHECK(out.str() ==
        "After Running Pass: Grow\n"
        "a = 1\n"
        "b = 2\n"
        "After Running Pass: sequential\n"
        "a = 1\n"
        "b = 2\n");
  CHECK(print.printed() == 2);
  CHECK(diff_out.str() ==
        "Diff After Running Pass: Grow\n"
        "--- before Grow\n"
        "+++ after Grow\n"
        "@@ -1 +1,2 @@\n"
        " a = 1\n"
        "+b = 2\n");
}

TEST_CASE_TEMPLATE("layers: PassBisect numbers the passes asked, skips past the limit, never asks required ones", L,
                   PITEST_INSTRUMENT_LAYERS) {
  std::ostringstream out;
  passinfra::PassBisect bisect(2, out);
  auto ctx = L::context({.required_pass = {"Must"}}, bisect);
  auto seq = L::seq(append_pass("A", "a"), append_pass("Must", "m"), append_pass("C", "c"), append_pass("D", "d"));
  CHECK(passinfra::run(seq, text_ir({}), ctx) == text_ir({"a", "m"}));
  CHECK(out.str() ==
        "BISECT: running pass (1) sequential\n"
        "BISECT: running pass (2) A\n"
        "BISECT: NOT running pass (3) C\n"
        "BISECT: NOT running pass (4) D\n");
  CHECK(bisect.count() == 4);
}

TEST_CASE_TEMPLATE("layers: CrashReproducer writes the failing pass's input, which fails again", L,
                   PITEST_INSTRUMENT_LAYERS) {
  std::ostringstream out;
  passinfra::CrashReproducer reproducer(out, {.pipeline = "Append,Lower,Fold,Never"});
  auto ctx = L::context({}, reproducer);
  auto seq = L::seq(append_pass("Append", "a = 1"), append_pass("Lower", "x = div 0"),
                    crash_if_pass("Fold", "x = div 0"), append_pass("Never", "never"));
  CHECK_THROWS_AS((void)passinfra::run(seq, text_ir({"entry"}), ctx), TestError);
  CHECK(out.str() ==
        "// passinfra crash reproducer\n"
        "// pass: Fold\n"
        "// error: crash: x = div 0\n"
        "// pipeline: Append,Lower,Fold,Never\n"
        "entry\n"
        "a = 1\n"
        "x = div 0\n");
  CHECK(reproducer.reports() == 1);
  const passinfra::CrashReport report = passinfra::parse_crash_report(out.str());
  const TextIR replay = passinfra::ir_traits<TextIR>::parse(report.ir, "reproducer");
  auto replay_ctx = passinfra::make_pass_context<TextIR>({});
  CHECK_THROWS_WITH_AS((void)passinfra::run(crash_if_pass("Fold", "x = div 0"), replay, replay_ctx), "crash: x = div 0",
                       TestError);
}

TEST_CASE_TEMPLATE("layers: VerifierInstrument names the pass that broke the IR", L, PITEST_INSTRUMENT_LAYERS) {
  passinfra::VerifierInstrument verifier(
      [](const TextIR& ir) { return std::find(ir.lines.begin(), ir.lines.end(), "invalid") == ir.lines.end(); });
  auto ctx = L::context({}, verifier);
  auto seq = L::seq(append_pass("A", "a"), append_pass("Break", "invalid"), append_pass("C", "c"));
  try {
    (void)passinfra::run(seq, text_ir({}), ctx);
    FAIL("no error");
  } catch (const passinfra::VerificationError& e) {
    CHECK(std::string(e.what()) == "passinfra: verifier failed after pass 'Break'");
    CHECK(e.pass_name() == "Break");
  }
}

TEST_CASE_TEMPLATE("layers: PassStatistics counts runs, skips and failures per name", L, PITEST_INSTRUMENT_LAYERS) {
  passinfra::PassStatistics stats;
  VetoNames veto{{"Vetoed"}};
  auto ctx = L::context({.required_pass = {"Must"}}, stats, veto);
  auto seq =
      L::seq(append_pass("A", "a"), append_pass("Vetoed", "v"), append_pass("Must", "m"), append_pass("A", "a2"));
  (void)passinfra::run(seq, text_ir({}), ctx);
  (void)passinfra::run(seq, text_ir({}), ctx);
  CHECK_THROWS((void)passinfra::run(crash_if_pass("Crash", "x"), text_ir({"x"}), ctx));
  CHECK(stats.table() ==
        "Pass statistics:\n"
        "      Runs     Skips  Failures  Name\n"
        "         2         0         0  sequential\n"
        "         4         0         0  A\n"
        "         0         2         0  Vetoed\n"
        "         2         0         0  Must\n"
        "         1         0         1  Crash\n");

  // An instrument listed before it throws in run_before_pass: the pass did not run.
  passinfra::PassStatistics after_throw;
  ThrowAt thrower{At::before, "A"};
  auto throwing_ctx = L::context({}, thrower, after_throw);
  CHECK_THROWS_AS((void)passinfra::run(L::seq(append_pass("A", "a")), text_ir({}), throwing_ctx), TestError);
  CHECK(after_throw.counts("A") == passinfra::PassCounts{0, 1, 0});
  CHECK(after_throw.counts("sequential") == passinfra::PassCounts{1, 0, 1});
}

TEST_CASE_TEMPLATE("layers: PassTimingInstrument, TVM's text to the digit, nested runs and a failure", L,
                   PITEST_INSTRUMENT_LAYERS) {
  passinfra::ManualClock clock;
  passinfra::BasicPassTimingInstrument<passinfra::ManualClock> timing(clock);
  auto ctx = L::context({}, timing);
  auto seq = L::seq(tick("A", clock, 1 * ms), nesting("Outer", tick("Inner", clock, 2 * ms)), tick("B", clock, 1 * ms));
  CHECK(passinfra::run(seq, text_ir({}), ctx) == text_ir({"A", "Inner", "B"}));
  CHECK_THROWS_AS(
      (void)passinfra::run(L::seq(tick("C", clock, 1 * ms), tick_crash("Boom", clock, 3 * ms)), text_ir({}), ctx),
      TestError);
  CHECK(timing.render() ==
        "sequential: 4000us [0us] (50.00%; 50.00%)\n"
        "\tA: 1000us [1000us] (12.50%; 25.00%)\n"
        "\tOuter: 2000us [0us] (25.00%; 50.00%)\n"
        "\t\tInner: 2000us [2000us] (25.00%; 100.00%)\n"
        "\tB: 1000us [1000us] (12.50%; 25.00%)\n"
        "sequential: 4000us [0us] (50.00%; 50.00%)\n"
        "\tC: 1000us [1000us] (12.50%; 25.00%)\n"
        "\tBoom: 3000us [3000us] (37.50%; 75.00%)\n");
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 2);
  CHECK_FALSE(tree[0].failed);
  CHECK(tree[1].failed);
  REQUIRE(tree[1].children.size() == 2);
  CHECK_FALSE(tree[1].children[0].failed);
  CHECK(tree[1].children[1].failed);
  CHECK(timing.render_list().find("      2  sequential\n") != std::string::npos);
}
