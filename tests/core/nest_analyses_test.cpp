// Analyses inside nests (docs/spec.md §11.13), static layer: the units of a
// nest are analysis units: function results cached per unit and invalidated
// after each unit-level pass with its effective set, module results
// read-only in units and invalidated once after the nest with the
// intersection of the unit passes' sets, failure empties the manager.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "support/analysis_ir.hpp"
#include "support/nest_analyses.hpp"

using namespace pitest;
namespace pi = passinfra;

TEST_CASE("nest analyses: function results cached per unit, reused, dropped after a unit pass not preserving them") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  auto ctx = pi::make_pass_context<AModule>({}, am, std::ref(r));
  // U1 computes and preserves FunctionSum; U2 reuses it and drops it; U3 computes it again.
  using N = pi::Nest<AFunc, FUse<"U1", FunctionSum>, FUse<"U2">, FUse<"U3", FunctionSum>>;
  AModule out = pi::run(N{}, make_module(&log), ctx);
  CHECK(runs()["FunctionSum@f"] == 2);
  CHECK(runs()["FunctionSum@g"] == 2);
  CHECK(runs()["FunctionSum@h"] == 2);
  const Events expected_f{"before_pass function",
                          "before_pass U1@f",
                          "before_analysis FunctionSum@f",
                          "after_analysis FunctionSum@f",
                          "after_pass U1@f",
                          "before_pass U2@f",
                          "invalidated FunctionSum@f",
                          "after_pass U2@f",
                          "before_pass U3@f",
                          "before_analysis FunctionSum@f",
                          "after_analysis FunctionSum@f",
                          "after_pass U3@f",
                          "before_pass U1@g"};
  const Events hooks = hooks_of(log.events);
  REQUIRE(hooks.size() > expected_f.size());
  CHECK(Events(hooks.begin(), hooks.begin() + static_cast<long>(expected_f.size())) == expected_f);
  CHECK(hooks.back() == "after_pass function");
  // The unit passes saw the results; the analysis read the parent module.
  CHECK(count(log, "U1@f=6") == 1);
  CHECK(count(log, "U2@f=6") == 1);
  CHECK(count(log, "run FunctionSum@f") == 2);
  // The last pass preserved FunctionSum and the nest invalidated only module results.
  CHECK(cached(am) == Events{"FunctionSum@f", "FunctionSum@g", "FunctionSum@h"});
  CHECK(out.functions.size() == 3);
}

TEST_CASE("nest analyses: marks made in a unit pass apply to that pass; get_cached(fn) sees the unit's result") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  auto ctx = pi::make_pass_context<AModule>({}, am, std::ref(r));
  using N = pi::Nest<AFunc, FUse<"U1">, FMarkKeepSum<"K">, FUse<"U2">, FCheckCached<"C">>;
  (void)pi::run(N{}, make_module(&log), ctx);
  // U1 computed it and dropped it; K recomputed it and marked it preserved; U2 reused it and dropped it.
  CHECK(runs()["FunctionSum@g"] == 2);
  CHECK(count(log, "C@g cached=0") == 1);
  CHECK(count(log, "K@g cached=1") == 1);
  CHECK(am.empty());
}

TEST_CASE("nest analyses: module results are read-only in units; get of an uncached one throws the SPEC's Error") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  auto ctx = pi::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = make_module(&log);
  const long& sum = am.get<ModuleSum>(m);
  using N = pi::Nest<AFunc, FReadModule<"RM">>;
  (void)pi::run(N{}, std::move(m), ctx);
  CHECK(runs()["ModuleSum"] == 1);  // never computed in a unit
  CHECK(runs()["Derived"] == 0);
  CHECK(count(log, "RM@f parent=" + std::to_string(sum) + " same=1") == 1);
  CHECK(count(log, "RM@h parent=" + std::to_string(sum) + " same=1") == 1);
  CHECK(count(log,
              "RM@g error=passinfra: module analysis 'Derived' cannot be computed inside nest 'function' (unit '@g'); "
              "compute it "
              "before the nest, e.g. with require(analysis=\"Derived\")") == 1);
  // No hook fired for the refused computation.
  CHECK(count(log, "r before_analysis Derived") == 0);
  // A function analysis that needs an uncached module result is refused too (its deps).
  am.clear();
  runs().clear();
  using N2 = pi::Nest<AFunc, FUseSize<"S">>;
  try {
    (void)pi::run(N2{}, make_module(&log), ctx);
    FAIL("expected an Error");
  } catch (const pi::Error& e) {
    CHECK(std::string(e.what()) ==
          "passinfra: module analysis 'ModuleSum' cannot be computed inside nest 'function' (unit '@f'); compute it "
          "before the "
          "nest, e.g. with require(analysis=\"ModuleSum\")");
  }
  CHECK(runs()["ModuleSum"] == 0);
  CHECK(am.empty());
  // Computed before the nest (the SPEC's suggestion), the same nest runs.
  (void)pi::run(pi::RequireAnalysis<ModuleSum>{}, make_module(&log), ctx);
  (void)pi::run(N2{}, make_module(&log), ctx);
  CHECK(runs()["FunctionSize@f"] == 1);
  // Outside a nest, the manager computes module results again.
  am.clear();
  CHECK(am.get<Derived>(make_module()) == 137);
}

TEST_CASE("nest analyses: module results invalidated once after the nest with the intersection of the unit sets") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  auto ctx = pi::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = make_module(&log);
  am.get<ModuleSum>(m);
  am.get<Derived>(m);  // reads ModuleSum
  am.get<Tagged>(m);
  // A keeps {ModuleSum, Tagged}; B computes FunctionSum and FunctionSize (which reads ModuleSum) and keeps
  // {FunctionSum, FunctionSize, Tagged}: the intersection keeps Tagged only.
  using N = pi::Nest<AFunc, FTouch<"A", ModuleSum, Tagged>, FUseBoth<"B", FunctionSum, FunctionSize, Tagged>>;
  (void)pi::run(N{}, std::move(m), ctx);
  const Events hooks = hooks_of(log.events);
  // Nothing was dropped while the units ran (each unit pass kept its unit's results).
  const auto first_drop =
      std::find_if(hooks.begin(), hooks.end(), [](const std::string& e) { return e.rfind("invalidated", 0) == 0; });
  REQUIRE(first_drop != hooks.end());
  CHECK(*(first_drop - 1) == "after_pass B@h");
  // Module results dropped once, in storage order, with the function results that read one
  // (the cascade), before the nest's run_after_pass; FunctionSum (not in the intersection) is
  // kept: the final invalidation does not touch function results.
  const Events tail(first_drop, hooks.end());
  CHECK(tail == Events{"invalidated ModuleSum", "invalidated Derived", "invalidated FunctionSize@f",
                       "invalidated FunctionSize@g", "invalidated FunctionSize@h", "after_pass function"});
  CHECK(cached(am) == Events{"Tagged", "FunctionSum@f", "FunctionSum@g", "FunctionSum@h"});
}

TEST_CASE("nest analyses: a nest whose unit passes are all skipped, or without units, preserves everything") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  pi::PassContextOptions options;
  options.disabled_pass = {"A", "B"};
  auto ctx = pi::make_pass_context<AModule>(std::move(options), am, std::ref(r));
  AModule m = make_module(&log);
  am.get<ModuleSum>(m);
  am.get<FunctionSum>(m, m.functions[0]);
  using N = pi::Nest<AFunc, FTouch<"A">, FTouch<"B">>;
  (void)pi::run(N{}, m, ctx);
  CHECK(count(log, "r invalidated ModuleSum") == 0);
  CHECK(cached(am) == Events{"ModuleSum", "FunctionSum@f"});
  // A nest with no unit (every function external) and a nest with no children.
  auto ctx2 = pi::make_pass_context<AModule>({}, am, std::ref(r));
  AModule ext = m;
  for (auto& f : ext.functions) f.external = true;
  (void)pi::run(pi::Nest<AFunc, FTouch<"A">>{}, ext, ctx2);
  (void)pi::run(pi::Nest<AFunc>{}, m, ctx2);
  CHECK(cached(am) == Events{"ModuleSum", "FunctionSum@f"});
  // Not a nest: a unit pass that ran and kept nothing drops its unit's results, and the nest's
  // module results after the nest.
  (void)pi::run(pi::Nest<AFunc, FTouch<"A">>{}, m, ctx2);
  CHECK(am.empty());
}

TEST_CASE("nest analyses: a failing unit leaves the manager empty before the nest's run_after_pass_failed") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  auto ctx = pi::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = make_module(&log);
  am.get<ModuleSum>(m);
  am.get<Tagged>(m);
  using N = pi::Nest<AFunc, FUse<"U", FunctionSum>, FThrowOn<"T", "g">>;
  CHECK_THROWS_AS(pi::run(N{}, std::move(m), ctx), TestError);
  CHECK(am.empty());
  const Events hooks = hooks_of(log.events);
  const Events expected_tail{"before_pass T@g",           "invalidated ModuleSum", "invalidated Tagged",
                             "invalidated FunctionSum@g", "after_pass_failed T",   "after_pass_failed function"};
  REQUIRE(hooks.size() >= expected_tail.size());
  CHECK(Events(hooks.end() - static_cast<long>(expected_tail.size()), hooks.end()) == expected_tail);
  // (FunctionSum@f went after T@f, which keeps nothing.)
  for (const char* name : {"ModuleSum", "Tagged", "FunctionSum@f", "FunctionSum@g"}) {
    CHECK(count(log, "r invalidated " + std::string(name)) == 1);
  }
  // A throw that is not a unit pass's body (a unit-level hook) empties it too.
  AModule m2 = make_module(&log);
  am.get<ModuleSum>(m2);
  URec bad = urecorder(log);
  bad.name = "bad";
  bad.fail_at = AHook::before_pass;
  bad.fail_on = "U@g";
  auto ctx2 = pi::make_pass_context<AModule>({}, am, std::ref(bad));
  CHECK_THROWS_AS(pi::run(pi::Nest<AFunc, FUse<"U", FunctionSum>>{}, std::move(m2), ctx2), TestError);
  CHECK(am.empty());
}

TEST_CASE("nest analyses: without a manager a nest runs as before") {
  runs().clear();
  EventLog log;
  auto plain = pi::make_pass_context<AModule>({});
  AModule out = pi::run(pi::Nest<AFunc, FTouch<"A">>{}, make_module(&log), plain);
  CHECK(count(log, "A@h") == 1);
  CHECK(out.functions.at(2).body.size() == 2);
}

TEST_CASE("nest analyses: a manager, an executor and an instrument with analysis hooks not thread-safe: serial, INFO") {
  runs().clear();
  pi::ThreadPool pool(2);
  std::vector<std::string> lines;
  std::vector<std::thread::id> threads;
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  {
    const pi::ScopedLogSink sink([&](pi::LogLevel level, std::string_view message) {
      if (level == pi::LogLevel::info) lines.emplace_back(message);
    });
    auto ctx = pi::make_pass_context<AModule>({.executor = pool}, am, std::ref(r));
    using N = pi::Nest<AFunc, FUse<"U1", FunctionSum>, FUse<"U2">, FThreadOf>;
    AModule m = make_module(&log);
    m.functions.push_back({"k", {5}, false});
    (void)pi::run(N{}, std::move(m), ctx);
    threads = FThreadOf::seen();
  }
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "function: running units serially: instrument 'r' is not thread-safe.");
  REQUIRE(threads.size() == 4);
  for (const auto& t : threads) CHECK(t == std::this_thread::get_id());
  CHECK(runs()["FunctionSum@k"] == 1);
  CHECK(count(log, "r invalidated FunctionSum@k") == 1);
  // Without a manager the same nest still runs in parallel (no INFO line).
  lines.clear();
  {
    const pi::ScopedLogSink sink([&](pi::LogLevel level, std::string_view message) {
      if (level == pi::LogLevel::info) lines.emplace_back(message);
    });
    auto ctx = pi::make_pass_context<AModule>({.executor = pool});
    (void)pi::run(pi::Nest<AFunc, FTouch<"A">>{}, make_module(), ctx);
  }
  CHECK(lines.empty());
}

TEST_CASE("nest analyses: timing shows an analysis under the unit pass that requested it, in its unit's entry") {
  runs().clear();
  NestManager am;
  pi::PassTimingInstrument timing;
  auto ctx = pi::make_pass_context<AModule>({}, am, std::ref(timing));
  (void)pi::run(pi::Nest<AFunc, FUse<"U1", FunctionSum>, FUse<"U2">>{}, make_module(), ctx);
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 1);
  CHECK(tree[0].name == "function");
  REQUIRE(tree[0].children.size() == 3);
  const auto& unit_g = tree[0].children[1];
  CHECK(unit_g.unit);
  CHECK(unit_g.name == "@g");
  REQUIRE(unit_g.children.size() == 2);
  CHECK(unit_g.children[0].name == "U1");
  REQUIRE(unit_g.children[0].children.size() == 1);
  CHECK(unit_g.children[0].children[0].analysis);
  CHECK(unit_g.children[0].children[0].name == "FunctionSum");
  CHECK(unit_g.children[0].children[0].function == "g");
  CHECK(unit_g.children[1].name == "U2");
  CHECK(unit_g.children[1].children.empty());  // U2 read the cached result
}

TEST_CASE("nest analyses: 8 units with an executor give the serial run's cache and hook events") {
  auto run_once = [](pi::ExecutorRef executor, Events& hooks) {
    runs().clear();
    EventLog log;
    URec r = urecorder(log);
    NestManager am;
    auto ctx = pi::make_pass_context<AModule>({.executor = executor}, am, std::ref(r));
    AModule m = make_module(&log);
    for (int i = 0; i < 5; ++i) m.functions.push_back({"u" + std::to_string(i), {i, i + 1}, false});
    am.get<ModuleSum>(m);
    am.get<Tagged>(m);
    using N = pi::Nest<AFunc, FUse<"U1", FunctionSum, Tagged>, FUseBoth<"U2", FunctionSum, Tagged>>;
    (void)pi::run(N{}, std::move(m), ctx);
    hooks = hooks_of(log.events);
    return cached(am);
  };
  pi::ThreadPool pool(3);
  Events serial_hooks, pooled_hooks;
  const Events serial = run_once({}, serial_hooks);
  const Events pooled = run_once(pool, pooled_hooks);
  CHECK(pooled == serial);
  CHECK(pooled_hooks == serial_hooks);
  CHECK(serial.size() == 9);  // Tagged and FunctionSum for the 8 units (ModuleSum and FunctionSize dropped)
  CHECK(count_of(serial_hooks, "invalidated ModuleSum") == 1);
}

namespace {

// Unit g asks for f's FunctionSum (How) in a nest run with no executor, with
// one and NestOptions serial, and in parallel: the same Error, caught by the
// pass, the same lines, no hook for the refused request, nothing cached for it.
template <AskBy How>
void check_other_function(const Events& alone_lines) {
  CAPTURE(static_cast<int>(How));
  pi::ThreadPool pool(2);
  const std::string said = "A@g error=" + other_function_error("@g", "FunctionSum", "f");
  auto with = [&](bool executor) {
    return [&pool, executor](AskManager& am, LogRec& rec) {
      return pi::make_pass_context<AModule>({.executor = executor ? pi::ExecutorRef(pool) : pi::ExecutorRef()}, am,
                                            std::ref(rec));
    };
  };
  const pi::NestOptions serial{.serial = true};
  // Alone: f's result is never computed.
  const LoggedRun alone = run_logged(pi::Nest<AFunc, FAskOther<"A", How>>{}, with(false));
  CHECK(alone.lines == alone_lines);
  CHECK(alone.cached.empty());
  const LoggedRun alone_opt = run_logged(pi::Nest<AFunc, FAskOther<"A", How>>(serial, {}), with(true));
  const LoggedRun alone_par = run_logged(pi::Nest<AFunc, FAskOther<"A", How>>{}, with(true));
  CHECK(alone_opt.lines == alone.lines);
  CHECK(alone_par.lines == alone.lines);
  CHECK(alone_opt.cached == alone.cached);
  CHECK(alone_par.cached == alone.cached);
  // After unit f computed and kept its FunctionSum (a serial run holds it when g asks).
  using N = pi::Nest<AFunc, FUse<"U", FunctionSum>, FAskOther<"A", How>>;
  const LoggedRun after = run_logged(N{}, with(false));
  CHECK(count_of(after.lines, said) == 1);
  CHECK(count_of(after.lines, "r before_analysis FunctionSum@f") == 1);
  CHECK(after.cached == Events{"FunctionSum@f", "FunctionSum@g", "FunctionSum@h"});
  const LoggedRun after_opt = run_logged(N(serial, {}, {}), with(true));
  const LoggedRun after_par = run_logged(N{}, with(true));
  CHECK(after_opt.lines == after.lines);
  CHECK(after_par.lines == after.lines);
  CHECK(after_opt.cached == after.cached);
  CHECK(after_par.cached == after.cached);
}

// On unit g, gets f's FunctionSum (the Error leaves the pass).
struct Other {
  static constexpr pi::PassInfo info{"Other", 0};
  using preserves = pi::preserves_all;
  AFunc transform(AFunc f, auto& ctx) const {
    if (f.name == "g") (void)ctx.analyses().template get<FunctionSum>(ctx.parent(), ctx.parent().functions.at(0));
    return f;
  }
};

}  // namespace

TEST_CASE("nest analyses: another function's result in a unit is the same Error serial and parallel, before any hook") {
  const std::string said = "A@g error=" + other_function_error("@g", "FunctionSum", "f");
  check_other_function<AskBy::get>({said});
  check_other_function<AskBy::get_cached>({said});
  check_other_function<AskBy::name>({said});
  // Through a dependency: FirstSum@g's hooks fire, FunctionSum@f's do not.
  check_other_function<AskBy::dependency>({"r before_analysis FirstSum@g", "r analysis_failed FirstSum@g", said});
}

TEST_CASE("nest analyses: another function's result: the Error leaving the nest empties the manager") {
  pi::ThreadPool pool(2);
  for (const bool executor : {false, true}) {
    CAPTURE(executor);
    NestManager am;
    LogRec rec;
    auto ctx = pi::make_pass_context<AModule>({.executor = executor ? pi::ExecutorRef(pool) : pi::ExecutorRef()}, am,
                                              std::ref(rec));
    const AModule m = make_module();
    (void)am.get<FunctionSum>(m, m.functions.at(0));  // cached: a serial run used to return it
    try {
      (void)pi::run(pi::Nest<AFunc, FUse<"U", FunctionSum>, Other>{}, m, ctx);
      FAIL("expected an Error");
    } catch (const pi::Error& e) {
      CHECK(std::string(e.what()) == other_function_error("@g", "FunctionSum", "f"));
    }
    CHECK(am.empty());
    // Outside the nest, any function's result again.
    CHECK(am.get<FunctionSum>(m, m.functions.at(1)) == 30);
    CHECK(*am.get_cached<FunctionSum>(m.functions.at(1)) == 30);
  }
}
