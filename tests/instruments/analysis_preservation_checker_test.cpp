// AnalysisPreservationChecker (SPEC §10.10): catches a pass that claims to preserve a
// result it changed (module and function results, static and dynamic layers), lets
// honest pipelines through, names a result type without == once at INFO, clears the
// cache with one run_analysis_invalidated per result before it throws, and checks only
// the passes run under its context with its manager.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>
#include <passinfra/instruments/analysis_preservation_checker.hpp>

#include "support/analysis_ir.hpp"
#include "support/recorder.hpp"

using namespace pitest;
using passinfra::AnalysisPreservationChecker;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::RequireAnalysis;

namespace {

using Checker = AnalysisPreservationChecker<AModule>;
using Manager = passinfra::AnalysisManager<AModule, passinfra::analyses<ModuleSum, Derived, Total, NoEq>>;
using Rec = AnalysisRecorder<AModule>;
using Events = std::vector<std::string>;

// Grow<"Name", Fn, Preserves...>: appends 5 to function Fn's body (so its
// FunctionSum, and ModuleSum, change); declares preserves<Preserves...>.
template <Name N, Name Fn, class... Preserves>
struct Grow {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves<Preserves...>;
  AModule transform(AModule m, auto&) const {
    for (auto& f : m.functions) {
      if (f.name == Fn.view()) f.body.push_back(5);
    }
    return m;
  }
};

// Drop<"Name", Fn>: removes function Fn and keeps the version; claims everything.
template <Name N, Name Fn>
struct Drop {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves_all;
  AModule transform(AModule m, auto&) const {
    std::erase_if(m.functions, [](const AFunc& f) { return f.name == Fn.view(); });
    for (auto& f : m.functions) f.body.push_back(0);  // sums unchanged
    return m;
  }
};

// The checker's lines in a LogCapture.
std::vector<std::string> checker_lines(const LogCapture& capture) {
  std::vector<std::string> out;
  for (const auto& line : capture.lines) {
    if (line.find("AnalysisPreservationChecker") != std::string::npos) out.push_back(line);
  }
  return out;
}

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const passinfra::Error& e) {
    return e.what();
  }
  return "<no passinfra::Error>";
}

// The two layers, each with its manager and a checker at the end of the list.
struct StaticLayer {
  template <class... Is>
  static auto context(Manager& am, Is&... instruments) {
    return passinfra::make_pass_context<AModule>({}, am, std::ref(instruments)...);
  }
  template <class... Ps>
  static auto seq(Ps... passes) {
    return passinfra::Sequential<Ps...>(std::move(passes)...);
  }
};
struct DynamicLayer {
  template <class... Is>
  static passinfra::PassContext<AModule> context(Manager& am, Is&... instruments) {
    return passinfra::PassContext<AModule>({}, {AnyInstrument<AModule>(std::ref(instruments))...}, &am);
  }
  template <class... Ps>
  static passinfra::DynamicSequential<AModule> seq(Ps... passes) {
    return passinfra::DynamicSequential<AModule>{AnyPass<AModule>(std::move(passes))...};
  }
};

}  // namespace

TEST_CASE_TEMPLATE(
    "AnalysisPreservationChecker: a pass that preserves a module result it changed is caught "
    "(SPEC 10.10)",
    L, StaticLayer, DynamicLayer) {
  Manager am;
  Checker checker(am);
  auto ctx = L::context(am, checker);
  // Liar bumps the version (ModuleSum = version * 1000 + ...) but says it keeps ModuleSum.
  auto pipeline = L::seq(RequireAnalysis<ModuleSum>{}, Touch<"Liar", ModuleSum>{});
  CHECK(what_of([&] { (void)passinfra::run(pipeline, make_module(), ctx); }) ==
        "passinfra: pass 'Liar' preserved analysis 'ModuleSum', but recomputing it gives a different result");
  CHECK(am.empty());  // cleared before the throw
}

TEST_CASE_TEMPLATE("AnalysisPreservationChecker: a false claim on a function result names the function", L, StaticLayer,
                   DynamicLayer) {
  Manager am;
  Checker checker(am);
  auto ctx = L::context(am, checker);
  // FunctionSum for f, g, h; Grow changes g only: f is checked first and matches.
  auto pipeline = L::seq(RequireAnalysis<FunctionSum>{}, Grow<"Grow", "g", FunctionSum>{});
  CHECK(what_of([&] { (void)passinfra::run(pipeline, make_module(), ctx); }) ==
        "passinfra: pass 'Grow' preserved analysis 'FunctionSum' (function 'g'), but recomputing it gives a "
        "different result");
  CHECK(am.empty());
  CHECK(checker.checked() == 3 + 2);  // f, g, h after require<FunctionSum>; f, then g after Grow
}

TEST_CASE_TEMPLATE("AnalysisPreservationChecker: honest pipelines pass, and every cached result is compared", L,
                   StaticLayer, DynamicLayer) {
  EventLog log;
  Rec r{"r", &log};
  r.pass_hooks = false;
  Manager am;
  Checker checker(am);
  auto ctx = L::context(am, r, checker);
  runs().clear();
  // Total reads FunctionSum of f, g, h; Derived reads ModuleSum. Grow<.., "g"> keeps
  // nothing; Grow<.., "zz"> changes nothing and rightly keeps everything it names.
  auto pipeline = L::seq(RequireAnalysis<Total>{}, RequireAnalysis<Derived>{}, KeepAll<"Keep">{},
                         Grow<"Noop", "zz", ModuleSum, Derived, FunctionSum, Total>{}, Touch<"Bump", FunctionSum>{},
                         Grow<"Honest", "g">{}, RequireAnalysis<Total>{});
  AModule out;
  REQUIRE_NOTHROW(out = passinfra::run(pipeline, make_module(), ctx));
  CHECK(out.version == 1);
  // After require<Total>: 4 results (f, g, h, Total); require<Derived>: 6; Keep: 6;
  // Noop: 6; Bump drops ModuleSum, Derived and Total (FunctionSum kept): 3; Honest: 0;
  // require<Total> again: 4. Sequentials preserve all: the dynamic one is checked too
  // (once, with the 4 results left); a static Sequential is a pass as well.
  const std::size_t per_pass = 4 + 6 + 6 + 6 + 3 + 0 + 4;
  CHECK(checker.checked() == per_pass + 4);
  CHECK(am.size() == 4);
  // Each recomputation ran the analysis once more -- Total: computed twice, recomputed
  // after require<Total>, require<Derived>, Keep, Noop, require<Total> and the
  // Sequential -- and fired no hook: the hooks saw the pipeline's 10 computations
  // only (FunctionSum x3 + Total, ModuleSum + Derived, FunctionSum x3 + Total).
  CHECK(runs()["Total"] == 2 + 6);
  CHECK(std::count_if(log.events.begin(), log.events.end(),
                      [](const std::string& e) { return e.starts_with("r before_analysis"); }) == 10);
  CHECK(std::count_if(log.events.begin(), log.events.end(),
                      [](const std::string& e) { return e.starts_with("r after_analysis"); }) == 10);
}

TEST_CASE("AnalysisPreservationChecker: a result type without == is skipped, named once at INFO") {
  Manager am;
  Checker checker(am);
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(checker));
  LogCapture capture;
  passinfra::Sequential seq{RequireAnalysis<NoEq>{}, RequireAnalysis<ModuleSum>{}, KeepAll<"A">{},
                            Touch<"B", NoEq>{}};  // B changes NoEq's value: not seen
  REQUIRE_NOTHROW((void)passinfra::run(seq, make_module(), ctx));
  CHECK(checker_lines(capture) ==
        std::vector<std::string>{"INFO AnalysisPreservationChecker: analysis 'NoEq' has no operator==; not checked"});
  CHECK(checker.checked() == 2);  // ModuleSum after require<ModuleSum> and after A (B drops it)
}

TEST_CASE(
    "AnalysisPreservationChecker: the cache is cleared with one run_analysis_invalidated per result, in "
    "storage order, on every instrument of the context, then the Error travels as an after-pass throw") {
  EventLog log;
  Rec before{"r", &log};
  Rec after{"s", &log};
  Manager am;
  Checker checker(am);
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(before), std::ref(checker), std::ref(after));
  AModule m = make_module();
  m = passinfra::run(RequireAnalysis<Derived>{}, std::move(m), ctx);  // ModuleSum, then Derived
  m = passinfra::run(RequireAnalysis<FunctionSum>{}, std::move(m), ctx);
  log.clear();
  // Keeps everything but changes g: ModuleSum (stored first) is the first mismatch.
  CHECK_THROWS_AS((void)passinfra::run(Grow<"Grow", "g", passinfra::all_analyses_on<passinfra::module_unit>,
                                            passinfra::all_analyses_on<passinfra::function_unit>>{},
                                       std::move(m), ctx),
                  passinfra::Error);
  CHECK(log.events == Events{"r before_pass Grow", "s before_pass Grow", "r after_pass Grow", "r invalidated ModuleSum",
                             "s invalidated ModuleSum", "r invalidated Derived", "s invalidated Derived",
                             "r invalidated FunctionSum@f", "s invalidated FunctionSum@f",
                             "r invalidated FunctionSum@g", "s invalidated FunctionSum@g",
                             "r invalidated FunctionSum@h", "s invalidated FunctionSum@h", "s after_pass_failed Grow"});
  CHECK(am.empty());
}

TEST_CASE(
    "AnalysisPreservationChecker: an analysis that throws while recomputed clears the cache; its exception "
    "continues unchanged") {
  EventLog log;
  Rec r{"r", &log};
  Manager am;
  Checker checker(am);
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r), std::ref(checker));
  throwing_enabled() = false;
  AModule m = passinfra::run(RequireAnalysis<Throwing>{}, make_module(), ctx);
  REQUIRE(am.size() == 1);
  log.clear();
  auto arm = passinfra::module_pass(
      {"Arm", 0},
      [](AModule mod) {
        throwing_enabled() = true;
        return mod;
      },
      passinfra::preserves_all{});
  try {
    (void)passinfra::run(arm, std::move(m), ctx);
    FAIL("no exception");
  } catch (const TestError& e) {
    CHECK(e.id == 7);
    CHECK(std::current_exception() == last_thrown);  // the very object the analysis threw
  }
  throwing_enabled() = false;
  CHECK(am.empty());
  CHECK(log.events == Events{"r before_pass Arm", "r after_pass Arm", "r invalidated Throwing"});
}

TEST_CASE("AnalysisPreservationChecker: a function result whose function is gone is not compared") {
  Manager am;
  Checker checker(am);
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(checker));
  AModule m = passinfra::run(RequireAnalysis<FunctionSum>{}, make_module(), ctx);
  const std::size_t before = checker.checked();
  REQUIRE_NOTHROW(m = passinfra::run(Drop<"DropH", "h">{}, std::move(m), ctx));
  CHECK(checker.checked() == before + 2);  // f and g; h's stale result is the pass's business
  CHECK(am.size() == 3);
}

TEST_CASE("AnalysisPreservationChecker: only passes run under its context are checked, and only with its manager") {
  Manager am;
  Checker checker(am);
  auto checked_ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(checker));
  auto other_ctx = passinfra::make_pass_context<AModule>({}, am);  // same manager, no checker
  AModule m = passinfra::run(RequireAnalysis<ModuleSum>{}, make_module(), other_ctx);

  SUBCASE("a liar under the other context is not seen") {
    REQUIRE_NOTHROW(m = passinfra::run(Touch<"Liar", ModuleSum>{}, std::move(m), other_ctx));
    CHECK(checker.checked() == 0);
    CHECK(am.size() == 1);
  }
  SUBCASE("a liar run under its context from a body running under the other one is caught") {
    auto outer = passinfra::module_pass(
        {"Outer", 0},
        [&](AModule mod) { return passinfra::run(Touch<"Liar", ModuleSum>{}, std::move(mod), checked_ctx); },
        passinfra::preserves_all{});
    CHECK(what_of([&] { (void)passinfra::run(outer, std::move(m), other_ctx); }) ==
          "passinfra: pass 'Liar' preserved analysis 'ModuleSum', but recomputing it gives a different result");
  }
  SUBCASE("under a context without its manager: not checked, one WARNING") {
    auto no_manager = passinfra::make_pass_context<AModule>({}, std::ref(checker));
    LogCapture capture;
    REQUIRE_NOTHROW(m = passinfra::run(Touch<"A", ModuleSum>{}, std::move(m), no_manager));
    REQUIRE_NOTHROW(m = passinfra::run(Touch<"B", ModuleSum>{}, std::move(m), no_manager));
    CHECK(checker_lines(capture) ==
          std::vector<std::string>{"WARNING AnalysisPreservationChecker: pass 'A' ran under a context without this "
                                   "checker's analysis manager; passes there are not checked"});
    CHECK(checker.checked() == 0);
  }
}

TEST_CASE_TEMPLATE(
    "AnalysisPreservationChecker: function passes -- a false static claim is caught, honest "
    "per-function marks pass (SPEC 10.5)",
    L, StaticLayer, DynamicLayer) {
  Manager am;
  Checker checker(am);
  auto ctx = L::context(am, checker);
  AModule m = passinfra::run(RequireAnalysis<FunctionSum>{}, make_module(), ctx);
  SUBCASE("declares FunctionSum preserved, changes g") {
    auto liar = passinfra::function_pass(
        {"FnLiar", 0},
        [](AFunc f, const AModule&) {
          if (named(f, "g")) f.body.push_back(1);
          return f;
        },
        passinfra::preserves<FunctionSum>{});
    CHECK(what_of([&] { (void)passinfra::run(liar, std::move(m), ctx); }) ==
          "passinfra: pass 'FnLiar' preserved analysis 'FunctionSum' (function 'g'), but recomputing it gives a "
          "different result");
    CHECK(am.empty());
  }
  SUBCASE("marks FunctionSum preserved for the functions it leaves alone") {
    auto honest = passinfra::function_pass({"FnHonest", 0}, [](AFunc f, const AModule&, auto& c) {
      if (named(f, "g")) {
        f.body.push_back(1);
      } else {
        c.analyses().template preserve<FunctionSum>();
      }
      return f;
    });
    const std::size_t before = checker.checked();
    REQUIRE_NOTHROW(m = passinfra::run(honest, std::move(m), ctx));
    CHECK(checker.checked() == before + 2);  // f and h kept and compared; g dropped
    CHECK(am.size() == 2);
  }
}
