// Analyses on the dynamic layer (SPEC §10.9): PassContext<IR> with a manager,
// ContextRef<IR>::analyses(), AnyPass carrying its pass's preserves, and
// DynamicSequential preserving everything -- every rule of SPEC §10, event
// for event the same as on the static layer.
#include <doctest/doctest.h>

#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <passinfra/dynamic.hpp>

#include "support/analysis_ir.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using passinfra::AnalysisManager;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::DynamicSequential;
using Ctx = passinfra::PassContext<AModule>;
using Rec = AnalysisRecorder<AModule>;

namespace {

// Use<"Name", A, Preserves...>: gets A's result through ctx.analyses()
// (whatever the context), then changes the IR; declares preserves<Preserves...>.
template <Name N, class A, class... Preserves>
struct Use {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves<Preserves...>;
  AModule transform(AModule m, auto& ctx) const {
    (void)ctx.analyses().template get<A>(m);
    if (m.log) m.log->add(std::string(N.view()));
    m.version += 1;
    return m;
  }
};

// UseAndKeep<"Name", A, Keep>: gets A, then marks Keep preserved (declares nothing).
template <Name N, class A, class Keep>
struct UseAndKeep {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  AModule transform(AModule m, auto& ctx) const {
    (void)ctx.analyses().template get<A>(m);
    ctx.analyses().template preserve<Keep>();
    if (m.log) m.log->add(std::string(N.view()));
    m.version += 1;
    return m;
  }
};

// UseThenThrow<"Name", A>: gets A, then throws TestError(5).
template <Name N, class A>
struct UseThenThrow {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  AModule transform(AModule m, auto& ctx) const {
    (void)ctx.analyses().template get<A>(m);
    if (m.log) m.log->add(std::string(N.view()));
    throw_test_error(5, "pass failed");
  }
};

// The scenario of the layer comparison: computing with deps, a preserved
// result whose inputs are dropped, preserves_all, a mark, and a throwing pass.
using P1 = Use<"P1", Derived>;                   // ModuleSum, Derived; preserves nothing
using P2 = Use<"P2", Total, Total>;              // FunctionSum x3, Total; keeps Total only: its inputs go
using P3 = KeepAll<"P3">;                        // nothing
using P4 = UseAndKeep<"P4", Tagged, ModuleSum>;  // Tagged, ModuleSum kept by the mark
using P5 = UseThenThrow<"P5", ModuleSum>;        // cached; then the cache is cleared

const std::vector<std::string> expected_scenario = {
    "r before_pass sequential",
    // P1: Derived depends on ModuleSum: nested events, ModuleSum stored first.
    "r before_pass P1",
    "r before_analysis Derived",
    "run Derived",
    "r before_analysis ModuleSum",
    "run ModuleSum",
    "r after_analysis ModuleSum",
    "r after_analysis Derived",
    "P1",
    "r invalidated ModuleSum",
    "r invalidated Derived",
    "r after_pass P1",
    // P2: Total keeps itself but not FunctionSum, whose drop takes Total along.
    "r before_pass P2",
    "r before_analysis Total",
    "run Total",
    "r before_analysis FunctionSum@f",
    "run FunctionSum@f",
    "r after_analysis FunctionSum@f",
    "r before_analysis FunctionSum@g",
    "run FunctionSum@g",
    "r after_analysis FunctionSum@g",
    "r before_analysis FunctionSum@h",
    "run FunctionSum@h",
    "r after_analysis FunctionSum@h",
    "r after_analysis Total",
    "P2",
    "r invalidated FunctionSum@f",
    "r invalidated FunctionSum@g",
    "r invalidated FunctionSum@h",
    "r invalidated Total",
    "r after_pass P2",
    // P3 preserves everything: no walk, no event.
    "r before_pass P3",
    "P3",
    "r after_pass P3",
    // P4: Tagged computed, then ModuleSum... is not cached: the mark keeps
    // ModuleSum, which is not there; Tagged is dropped.
    "r before_pass P4",
    "r before_analysis Tagged",
    "run Tagged",
    "r after_analysis Tagged",
    "P4",
    "r invalidated Tagged",
    "r after_pass P4",
    // P5: ModuleSum computed, the body throws: the cache is cleared before
    // run_after_pass_failed; the Sequential's own failure finds it empty.
    "r before_pass P5",
    "r before_analysis ModuleSum",
    "run ModuleSum",
    "r after_analysis ModuleSum",
    "P5",
    "r invalidated ModuleSum",
    "r after_pass_failed P5",
    "r after_pass_failed sequential",
};

// Runs `pipeline` on a fresh module under `ctx`; the events, and a check
// that the pass's exception arrived unchanged.
template <class Pipeline, class C>
std::vector<std::string> run_scenario(const Pipeline& pipeline, C& ctx, EventLog& log) {
  runs().clear();
  AModule m = make_module(&log);
  try {
    m = passinfra::run(pipeline, std::move(m), ctx);
    FAIL("the scenario's last pass throws");
  } catch (const TestError& e) {
    CHECK(e.id == 5);
    CHECK(std::current_exception() == last_thrown);
  }
  return log.events;
}

using StaticSeq = passinfra::Sequential<P1, P2, P3, P4, P5>;

// A pass above the contexts' opt_level (gated out).
struct High {
  static constexpr passinfra::PassInfo info{"High", 3};
  AModule transform(AModule m, auto&) const {
    m.version += 100;
    return m;
  }
};

DynamicSequential<AModule> dynamic_seq() { return DynamicSequential<AModule>{P1{}, P2{}, P3{}, P4{}, P5{}}; }

}  // namespace

TEST_CASE("dynamic analyses: the same events on every layer (static and dynamic contexts and pipelines, SPEC §10.9)") {
  SUBCASE("static context, static Sequential (the reference)") {
    EventLog log;
    Rec rec{"r", &log};
    AnalysisManager<AModule> am;
    auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(rec));
    CHECK(run_scenario(StaticSeq{}, ctx, log) == expected_scenario);
    CHECK(am.empty());
  }
  SUBCASE("dynamic context, DynamicSequential of AnyPasses (one instrument: not the solo loop)") {
    EventLog log;
    Rec rec{"r", &log};
    AnalysisManager<AModule> am;
    Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
    CHECK(run_scenario(dynamic_seq(), ctx, log) == expected_scenario);
    CHECK(am.empty());
  }
  SUBCASE("dynamic context, static Sequential") {
    EventLog log;
    Rec rec{"r", &log};
    AnalysisManager<AModule> am;
    Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
    CHECK(run_scenario(StaticSeq{}, ctx, log) == expected_scenario);
  }
  SUBCASE("dynamic context, a static Sequential erased into an AnyPass (bodies under a ContextRef)") {
    EventLog log;
    Rec rec{"r", &log};
    AnalysisManager<AModule> am;
    Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
    CHECK(run_scenario(AnyPass<AModule>(StaticSeq{}), ctx, log) == expected_scenario);
  }
  SUBCASE("static context, DynamicSequential (hooks through the ErasedInstrumentSet)") {
    EventLog log;
    Rec rec{"r", &log};
    AnalysisManager<AModule> am;
    auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(rec));
    CHECK(run_scenario(dynamic_seq(), ctx, log) == expected_scenario);
  }
  SUBCASE("dynamic context over a manager with static slots") {
    EventLog log;
    Rec rec{"r", &log};
    AnalysisManager<AModule, passinfra::analyses<Derived, Tagged>> am;
    Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
    CHECK(run_scenario(dynamic_seq(), ctx, log) == expected_scenario);
    CHECK(am.empty());
  }
  SUBCASE("dynamic context with two instruments: both see every analysis event, in list order") {
    EventLog log;
    Rec rec{"r", &log};
    EventLog other_log;
    Rec other{"o", &other_log};
    AnalysisManager<AModule> am;
    Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec)), AnyInstrument<AModule>(std::ref(other))}, &am);
    CHECK(run_scenario(dynamic_seq(), ctx, log) == expected_scenario);
    std::vector<std::string> others;
    for (const auto& e : expected_scenario) {
      if (e.rfind("r ", 0) == 0) others.push_back("o " + e.substr(2));
    }
    CHECK(other_log.events == others);
  }
}

TEST_CASE(
    "dynamic analyses: ctx.analyses() without a manager is SPEC §10.8's Error, on PassContext<IR> and ContextRef") {
  Ctx no_manager;
  CHECK_FALSE(passinfra::analyses_available(no_manager));
  CHECK_THROWS_WITH_AS(no_manager.analyses(),
                       "passinfra: ctx.analyses(): this PassContext<IR> has no analysis manager; construct it with "
                       "PassContext<IR>(options, instruments, &am)",
                       passinfra::Error);
  passinfra::ContextRef<AModule> ref(no_manager);
  CHECK(ref.analysis_manager() == nullptr);
  CHECK_FALSE(passinfra::analyses_available(ref));
  CHECK_THROWS_WITH_AS(ref.analyses(),
                       "passinfra: ctx.analyses(): this PassContext<IR> has no analysis manager; construct it with "
                       "PassContext<IR>(options, instruments, &am)",
                       passinfra::Error);

  // A static context without a manager, seen through a ContextRef: the same.
  auto static_ctx = passinfra::make_pass_context<AModule>({});
  passinfra::ContextRef<AModule> static_ref(static_ctx);
  CHECK(static_ref.analysis_manager() == nullptr);
  CHECK_THROWS_AS(static_ref.analyses(), passinfra::Error);

  // A pass that asks anyway: the Error leaves run() unchanged.
  AModule m = make_module();
  CHECK_THROWS_AS(passinfra::run(AnyPass<AModule>(Use<"U", ModuleSum>{}), m, no_manager), passinfra::Error);
}

TEST_CASE(
    "dynamic analyses: one cache entry by type, by name, through a ContextRef and from the context (SPEC §10.9)") {
  AnalysisManager<AModule, passinfra::analyses<ModuleSum>> am;
  Ctx ctx({}, {}, &am);
  passinfra::ContextRef<AModule> ref(ctx);
  CHECK(ref.analysis_manager() == &am);
  CHECK(ctx.analysis_manager() == &am);

  const AModule m = make_module();
  runs().clear();
  const long& direct = am.get<ModuleSum>(m);
  const long& via_ctx = ctx.analyses().get<ModuleSum>(m);
  const long& via_ref = ref.analyses().get<ModuleSum>(m);
  const passinfra::AnyResult& by_name = ref.analyses().get("ModuleSum", m);
  CHECK(&via_ctx == &direct);
  CHECK(&via_ref == &direct);
  CHECK(&by_name.get<long>() == &direct);
  CHECK(ref.analyses().get_cached<ModuleSum>() == &direct);
  CHECK(runs()["ModuleSum"] == 1);

  // A function result too: one entry per (analysis, function key).
  const long& fs = ref.analyses().get<FunctionSum>(m, m.functions[1]);
  CHECK(&ctx.analyses().get<FunctionSum>(m, m.functions[1]) == &fs);
  CHECK(&ref.analyses().get("FunctionSum", m, m.functions[1]).get<long>() == &fs);
  CHECK(am.get_cached<FunctionSum>(m.functions[1]) == &fs);
  CHECK(runs()["FunctionSum@g"] == 1);

  // A static context's manager seen through a ContextRef is its base table:
  // the same entries.
  auto sctx = passinfra::make_pass_context<AModule>({}, am);
  passinfra::ContextRef<AModule> sref(sctx);
  CHECK(sref.analysis_manager() == static_cast<AnalysisManager<AModule>*>(&am));
  CHECK(&sref.analyses().get<ModuleSum>(m) == &direct);
  CHECK(runs()["ModuleSum"] == 1);
}

TEST_CASE("dynamic analyses: a miss through a ContextRef fires the wrapped context's hooks; a cached lookup none") {
  EventLog log;
  Rec rec{"r", &log};
  rec.pass_hooks = false;
  AnalysisManager<AModule> am;
  SUBCASE("dynamic context") {
    Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
    passinfra::ContextRef<AModule> ref(ctx);
    const AModule m = make_module(&log);
    (void)ref.analyses().get<Derived>(m);
    (void)ref.analyses().get<Derived>(m);
    (void)ref.analyses().get("ModuleSum", m);
    CHECK(log.events == std::vector<std::string>{"r before_analysis Derived", "run Derived",
                                                 "r before_analysis ModuleSum", "run ModuleSum",
                                                 "r after_analysis ModuleSum", "r after_analysis Derived"});
    log.clear();
    ref.analyses().invalidate(passinfra::PreservedAnalyses::none().preserve<Derived>());
    // Derived is kept by the set, but its input ModuleSum is dropped: both go.
    CHECK(log.events == std::vector<std::string>{"r invalidated ModuleSum", "r invalidated Derived"});
  }
  SUBCASE("static context") {
    auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(rec));
    passinfra::ContextRef<AModule> ref(ctx);
    const AModule m = make_module(&log);
    (void)ref.analyses().get<ModuleSum>(m);
    (void)ref.analyses().get<ModuleSum>(m);
    ref.analyses().clear();
    CHECK(log.events == std::vector<std::string>{"r before_analysis ModuleSum", "run ModuleSum",
                                                 "r after_analysis ModuleSum", "r invalidated ModuleSum"});
  }
}

TEST_CASE("dynamic analyses: AnyPass carries its pass's static preserves; RegistryPass and DynamicSequential too") {
  using passinfra::analysis_key;
  const AnyPass<AModule> keeps_sum(Touch<"T", ModuleSum>{});
  CHECK(keeps_sum.preserved_analyses().preserved<ModuleSum>());
  CHECK_FALSE(keeps_sum.preserved_analyses().preserved<Derived>());
  const AnyPass<AModule> keeps_all(KeepAll<"K">{});
  CHECK(keeps_all.preserved_analyses().is_all());
  const AnyPass<AModule> nothing(Use<"U", ModuleSum>{});
  CHECK(nothing.preserved_analyses().is_none());
  // Callables: module_pass(info, f, preserves<...>{}).
  const AnyPass<AModule> callable(passinfra::module_pass(
      {"C", 0}, [](AModule m) { return m; }, passinfra::preserves<Tagged>{}));
  CHECK(callable.preserved_analyses().preserved<Tagged>());
  CHECK_FALSE(callable.preserved_analyses().preserved<ModuleSum>());
  // An AnyPass of an AnyPass, and pipelines.
  CHECK(AnyPass<AModule>(AnyPass<AModule>(keeps_sum)).preserved_analyses().preserved<ModuleSum>());
  CHECK(AnyPass<AModule>(dynamic_seq()).preserved_analyses().is_all());
  CHECK(AnyPass<AModule>(StaticSeq{}).preserved_analyses().is_all());

  // Run: Touch keeps ModuleSum, so Derived (computed from it) is dropped, ModuleSum stays.
  AnalysisManager<AModule> am;
  Ctx ctx({}, {}, &am);
  AModule m = make_module();
  (void)am.get<Derived>(m);
  m = passinfra::run(keeps_sum, std::move(m), ctx);
  CHECK(am.get_cached<ModuleSum>() != nullptr);
  CHECK(am.get_cached<Derived>() == nullptr);

  // The same through the registry.
  passinfra::PassRegistry<AModule> registry;
  registry.add<Touch<"T", ModuleSum>>();
  const AnyPass<AModule> created = registry.create("T");
  CHECK(created.preserved_analyses().preserved<ModuleSum>());
  (void)am.get<Derived>(m);
  m = passinfra::run(created, std::move(m), ctx);
  CHECK(am.get_cached<ModuleSum>() != nullptr);
  CHECK(am.get_cached<Derived>() == nullptr);
}

TEST_CASE("dynamic analyses: marks by type and by name inside AnyPass bodies apply to the innermost running pass") {
  AnalysisManager<AModule> am;
  Ctx ctx({}, {}, &am);
  AModule m = make_module();
  (void)am.get<ModuleSum>(m);
  (void)am.get<Tagged>(m);
  (void)am.get<Custom>(m);

  // preserve("ModuleSum") by name: only ModuleSum (and Custom, whose own test keeps it) survive.
  const AnyPass<AModule> by_name(passinfra::module_pass({"ByName", 0}, [](AModule in, auto& c) {
    c.analyses().preserve("ModuleSum");
    return in;
  }));
  m = passinfra::run(by_name, std::move(m), ctx);
  CHECK(am.get_cached<ModuleSum>() != nullptr);
  CHECK(am.get_cached<Tagged>() == nullptr);

  // A nested run's marks belong to it: the outer pass marks nothing and so
  // drops ModuleSum although the inner one preserved it.
  const AnyPass<AModule> inner(passinfra::module_pass({"Inner", 0}, [](AModule in, auto& c) {
    c.analyses().template preserve<ModuleSum>();
    return in;
  }));
  const AnyPass<AModule> outer(passinfra::module_pass({"Outer", 0}, [&](AModule in, auto& c) {
    in = passinfra::run(inner, std::move(in), c);
    CHECK(am.get_cached<ModuleSum>() != nullptr);  // kept by Inner
    return in;
  }));
  m = passinfra::run(outer, std::move(m), ctx);
  CHECK(am.get_cached<ModuleSum>() == nullptr);

  // abandon(name) wins over preserve_all.
  (void)am.get<ModuleSum>(m);
  (void)am.get<Tagged>(m);
  const AnyPass<AModule> abandon(passinfra::module_pass({"Abandon", 0}, [](AModule in, auto& c) {
    c.analyses().preserve_all();
    c.analyses().abandon("Tagged");
    return in;
  }));
  m = passinfra::run(abandon, std::move(m), ctx);
  CHECK(am.get_cached<ModuleSum>() != nullptr);
  CHECK(am.get_cached<Tagged>() == nullptr);

  // Outside a pass body: SPEC §10.8's Error.
  CHECK_THROWS_WITH_AS(ctx.analyses().preserve<ModuleSum>(),
                       "passinfra: ctx.analyses().preserve<...>() called outside a pass body", passinfra::Error);
  passinfra::ContextRef<AModule> ref(ctx);
  CHECK_THROWS_AS(ref.analyses().preserve_all(), passinfra::Error);
}

TEST_CASE("dynamic analyses: skipped, disabled and vetoed children of a DynamicSequential preserve everything") {
  struct Veto {
    bool should_run(const AModule&, const passinfra::PassInfo& info) { return info.name != "Vetoed"; }
  };
  EventLog log;
  Rec rec{"r", &log};
  Veto veto;
  AnalysisManager<AModule> am;
  Ctx ctx({.opt_level = 1, .disabled_pass = {"Disabled"}},
          {AnyInstrument<AModule>(std::ref(veto)), AnyInstrument<AModule>(std::ref(rec))}, &am);
  AModule m = make_module(&log);
  (void)am.get<ModuleSum>(m);
  log.clear();
  const DynamicSequential<AModule> seq{High{}, Touch<"Disabled">{}, Touch<"Vetoed">{}};
  m = passinfra::run(seq, std::move(m), ctx);
  CHECK(log.events == std::vector<std::string>{"r before_pass sequential", "r after_pass sequential"});
  CHECK(am.get_cached<ModuleSum>() != nullptr);
  CHECK(m.version == 0);
}

TEST_CASE(
    "dynamic analyses: a throwing analysis under a dynamic context caches nothing and tells only its instruments") {
  EventLog log;
  Rec rec{"r", &log};
  AnalysisManager<AModule> am;
  Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
  passinfra::ContextRef<AModule> ref(ctx);
  const AModule m = make_module(&log);
  throwing_enabled() = true;
  struct Reset {
    ~Reset() { throwing_enabled() = false; }
  } reset;
  try {
    (void)ref.analyses().get<Throwing>(m);
    FAIL("Throwing throws");
  } catch (const TestError& e) {
    CHECK(e.id == 7);
    CHECK(std::current_exception() == last_thrown);
  }
  CHECK(log.events ==
        std::vector<std::string>{"r before_analysis Throwing", "run Throwing", "r failed_analysis Throwing"});
  CHECK(am.get_cached<Throwing>() == nullptr);
  CHECK(am.empty());
  throwing_enabled() = false;
  CHECK(ref.analyses().get<Throwing>(m) == 0);  // computed again
}

TEST_CASE("dynamic analyses: a function pass erased into an AnyPass invalidates per function (SPEC §10.5)") {
  EventLog log;
  Rec rec{"r", &log};
  rec.pass_hooks = false;
  AnalysisManager<AModule> am;
  Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
  AModule m = make_module(&log);
  for (const auto& fn : m.functions) (void)am.get<FunctionSum>(m, fn);
  (void)am.get<ModuleSum>(m);
  log.clear();
  // Changes f only; marks everything preserved for the others.
  const AnyPass<AModule> pass(passinfra::function_pass({"OnlyF", 0}, [](AFunc fn, const AModule&, auto& c) {
    if (fn.body.size() == 3) {  // f (g and h have 2 and 1 elements)
      fn.body.push_back(4);
    } else {
      c.analyses().preserve_all();
    }
    return fn;
  }));
  m = passinfra::run(pass, std::move(m), ctx);
  // f's result goes at once; the module-level set is the intersection of
  // the marks (none for f): ModuleSum goes; function results are not touched again.
  CHECK(log.events == std::vector<std::string>{"r invalidated FunctionSum@f", "r invalidated ModuleSum"});
  CHECK(am.get_cached<FunctionSum>(m.functions[0]) == nullptr);
  CHECK(am.get_cached<FunctionSum>(m.functions[1]) != nullptr);
  CHECK(am.get_cached<FunctionSum>(m.functions[2]) != nullptr);
}

TEST_CASE("dynamic analyses: a DynamicSequential run as seq(ir) under the current() context uses its manager") {
  EventLog log;
  Rec rec{"r", &log};
  rec.pass_hooks = false;
  AnalysisManager<AModule> am;
  Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
  const DynamicSequential<AModule> seq{Use<"U", ModuleSum>{}};
  AModule m = make_module(&log);
  ctx.with([&] { m = seq(std::move(m)); });
  CHECK(log.events == std::vector<std::string>{"r before_analysis ModuleSum", "run ModuleSum",
                                               "r after_analysis ModuleSum", "U", "r invalidated ModuleSum"});
}

namespace {

// Runs `pass` on a module whose cache already holds Tagged, once under a
// static context and once under a dynamic one (the pass erased into an
// AnyPass, so its body runs under a ContextRef), with two recorders "s" and
// "r" configured by `setup`; checks both runs give the same events and the
// same exception, and returns the events.
template <class P, class Setup>
std::vector<std::string> same_on_both_layers(const P& pass, Setup setup) {
  std::vector<std::string> logs[2];
  for (int layer = 0; layer < 2; ++layer) {
    EventLog log;
    Rec s{"s", &log};
    Rec r{"r", &log};
    setup(s, r);
    AnalysisManager<AModule> am;
    AModule m = make_module(&log);
    (void)am.get<Tagged>(m);
    log.clear();
    const auto go = [&](auto& ctx, const auto& p) {
      try {
        m = passinfra::run(p, std::move(m), ctx);
        log.add("returned");
      } catch (const TestError& e) {
        log.add("threw " + std::to_string(e.id) + (std::current_exception() == last_thrown ? " (same)" : " (other)"));
      }
    };
    if (layer == 0) {
      auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(s), std::ref(r));
      go(ctx, pass);
    } else {
      Ctx ctx({}, {AnyInstrument<AModule>(std::ref(s)), AnyInstrument<AModule>(std::ref(r))}, &am);
      go(ctx, AnyPass<AModule>(pass));
    }
    log.add("cached " + std::to_string(am.size()));
    logs[layer] = log.events;
  }
  CHECK(logs[0] == logs[1]);
  return logs[1];
}

// Requires Touch<"Req"> (which preserves nothing), then gets ModuleSum.
struct NeedsReq {
  static constexpr passinfra::PassInfo info{"NeedsReq", 0};
  using required = passinfra::requires_passes<Touch<"Req">>;
  using preserves = passinfra::preserves_all;
  AModule transform(AModule m, auto& ctx) const {
    (void)ctx.analyses().template get<ModuleSum>(m);
    return m;
  }
};

}  // namespace

TEST_CASE("dynamic analyses: an analysis hook that throws leaves get and the pass unchanged, as on the static layer") {
  const auto events = same_on_both_layers(Use<"U", ModuleSum>{}, [](Rec&, Rec& r) {
    r.fail_at = AHook::before;
    r.fail_on = "ModuleSum";
  });
  CHECK(events ==
        std::vector<std::string>{"s before_pass U", "r before_pass U", "s before_analysis ModuleSum",
                                 "r bad before_analysis ModuleSum",
                                 // s's run_before_analysis returned: it learns of the failure; r's did not.
                                 "s failed_analysis ModuleSum",
                                 // The body threw: the cache (Tagged) is cleared before run_after_pass_failed.
                                 "s invalidated Tagged", "r invalidated Tagged", "s after_pass_failed U",
                                 "r after_pass_failed U", "threw 3 (same)", "cached 0"});
}

TEST_CASE("dynamic analyses: a throw from run_after_pass comes after the invalidation; nothing more is dropped") {
  const auto events = same_on_both_layers(Use<"U", ModuleSum, ModuleSum>{}, [](Rec& s, Rec&) {
    s.fail_at = AHook::after_pass;
    s.fail_on = "U";
  });
  CHECK(events == std::vector<std::string>{"s before_pass U", "r before_pass U", "s before_analysis ModuleSum",
                                           "r before_analysis ModuleSum", "run ModuleSum", "s after_analysis ModuleSum",
                                           "r after_analysis ModuleSum", "U",
                                           // U keeps ModuleSum only.
                                           "s invalidated Tagged", "r invalidated Tagged", "s bad after_pass U",
                                           // r's run_after_pass was not started.
                                           "r after_pass_failed U", "threw 3 (same)", "cached 1"});
}

TEST_CASE("dynamic analyses: a required pass is an ordinary run whose set applies (SPEC §10.6)") {
  // A pass runs its requirements as a child of a Sequential (SPEC §4).
  const auto events =
      same_on_both_layers(passinfra::Sequential<NeedsReq>{}, [](Rec&, Rec& r) { r.pass_hooks = false; });
  CHECK(events == std::vector<std::string>{"s before_pass sequential", "s before_pass Req", "Req",
                                           "s invalidated Tagged", "r invalidated Tagged", "s after_pass Req",
                                           "s before_pass NeedsReq", "s before_analysis ModuleSum",
                                           "r before_analysis ModuleSum", "run ModuleSum", "s after_analysis ModuleSum",
                                           "r after_analysis ModuleSum", "s after_pass NeedsReq",
                                           "s after_pass sequential", "returned", "cached 1"});
}

TEST_CASE("dynamic analyses: entering and leaving a dynamic context does not touch the cache (SPEC §10.7)") {
  EventLog log;
  Rec r{"r", &log};
  AnalysisManager<AModule> am;
  const AModule m = make_module(&log);
  (void)am.get<ModuleSum>(m);
  {
    Ctx ctx({}, {AnyInstrument<AModule>(std::ref(r))}, &am);
    ctx.with([] {});
    ctx.override_instruments({});
  }
  CHECK(am.size() == 1);
  CHECK(log.events == std::vector<std::string>{"run ModuleSum"});
}
