// Analyses under a static context (SPEC §10.2, §10.4-§10.7): ctx.analyses(), marks,
// invalidation after each pass and its place among the hooks, failures, the utility passes.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

namespace {

using passinfra::PreservedAnalyses;
using pitest::AModule;
using pitest::Derived;
using pitest::EventLog;
using pitest::FunctionSum;
using pitest::ModuleSum;
using pitest::Tagged;
using pitest::Total;
using Rec = pitest::AnalysisRecorder<AModule>;
using Manager =
    passinfra::AnalysisManager<AModule, passinfra::analyses<Derived, Total, Tagged, pitest::Throwing, pitest::Custom>>;
using Events = std::vector<std::string>;

Rec recorder(EventLog& log, std::string name = "r") {
  Rec r;
  r.name = std::move(name);
  r.log = &log;
  return r;
}

std::vector<std::string> cached_names(const Manager& am) {
  std::vector<std::string> out;
  am.for_each_cached(
      [&](const passinfra::AnalysisInfo& info, const auto&) { out.push_back(pitest::analysis_text(info)); });
  return out;
}

// Requests Derived (which reads ModuleSum), then changes the IR.
constexpr auto uses_derived = [](AModule m, auto& ctx) {
  (void)ctx.analyses().template get<Derived>(m);
  m.version += 1;
  return m;
};

}  // namespace

TEST_CASE("analysis_run: analysis events fall inside the body, invalidation before run_after_pass (SPEC §10.4)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module(&log);
  m = passinfra::run(passinfra::module_pass({"P", 0}, uses_derived), std::move(m), ctx);
  CHECK(log.events == Events{"r before_pass P", "r before_analysis Derived", "run Derived",
                             "r before_analysis ModuleSum", "run ModuleSum", "r after_analysis ModuleSum",
                             "r after_analysis Derived", "r invalidated ModuleSum", "r invalidated Derived",
                             "r after_pass P"});
  CHECK(am.empty());
}

TEST_CASE("analysis_run: a cached lookup fires no hook, nor does direct use of the manager (SPEC §10.2, §10.7)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module();
  am.get<Derived>(m);  // direct: no hook
  CHECK(log.events.empty());
  auto p = passinfra::module_pass(
      {"Reader", 0},
      [](AModule mod, auto& c) {
        (void)c.analyses().template get<Derived>(mod);
        (void)c.analyses().template get<ModuleSum>(mod);
        return mod;
      },
      passinfra::preserves_all{});
  m = passinfra::run(p, std::move(m), ctx);
  CHECK(log.events == Events{"r before_pass Reader", "r after_pass Reader"});
  CHECK(am.size() == 2);
}

TEST_CASE("analysis_run: a pass's declaration keeps what it names; no declaration keeps nothing (SPEC §10.4)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  am.get<Tagged>(m);
  m = passinfra::run(pitest::Touch<"KeepsSum", ModuleSum, Tagged>{}, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"ModuleSum", "Tagged"});
  m = passinfra::run(pitest::Touch<"KeepsSet", pitest::TestSet>{}, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"Tagged"});
  m = passinfra::run(pitest::KeepAll<"KeepAll">{}, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"Tagged"});
  m = passinfra::run(pitest::Touch<"Nothing">{}, std::move(m), ctx);
  CHECK(am.empty());
}

TEST_CASE("analysis_run: module_pass and function_pass take a declaration as their last argument (SPEC §10.4)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  auto keep = passinfra::module_pass(
      {"Keep", 0}, [](AModule x) { return x; }, passinfra::preserves<ModuleSum>{});
  m = passinfra::run(keep, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"ModuleSum"});
  auto keep_all = passinfra::module_pass(
      {"KeepAll", 0}, [](AModule x) { return x; }, passinfra::requires_passes<pitest::KeepAll<"R">>{},
      passinfra::preserves_all{});
  static_assert(passinfra::declares_preserves_all<decltype(keep_all)>);
  static_assert(decltype(keep_all)::required::size == 1);
  m = passinfra::run(keep_all, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"ModuleSum"});
  auto fp = passinfra::function_pass(
      {"F", 0}, [](pitest::AFunc f, const AModule&) { return f; }, passinfra::preserves_all{});
  m = passinfra::run(fp, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"ModuleSum"});
}

TEST_CASE("analysis_run: marks are united with the declaration (SPEC §10.4)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  auto fill = [&] {
    am.clear();
    am.get<Derived>(m);
    am.get<Tagged>(m);
  };
  SUBCASE("preserve<...>()") {
    fill();
    auto p = passinfra::module_pass(
        {"P", 0},
        [](AModule x, auto& c) {
          c.analyses().template preserve<Tagged>();
          return x;
        },
        passinfra::preserves<ModuleSum>{});
    m = passinfra::run(p, std::move(m), ctx);
    CHECK(cached_names(am) == Events{"ModuleSum", "Tagged"});
  }
  SUBCASE("preserve(name) and preserve(key)") {
    fill();
    auto p = passinfra::module_pass({"P", 0}, [](AModule x, auto& c) {
      c.analyses().preserve("Tagged");
      c.analyses().preserve(passinfra::analysis_key<ModuleSum>);
      return x;
    });
    m = passinfra::run(p, std::move(m), ctx);
    CHECK(cached_names(am) == Events{"ModuleSum", "Tagged"});
  }
  SUBCASE("preserve_all()") {
    fill();
    auto p = passinfra::module_pass({"P", 0}, [](AModule x, auto& c) {
      c.analyses().preserve_all();
      return x;
    });
    m = passinfra::run(p, std::move(m), ctx);
    CHECK(am.size() == 3);
  }
  SUBCASE("abandon<A>() wins over the declaration") {
    fill();
    auto p = passinfra::module_pass(
        {"P", 0},
        [](AModule x, auto& c) {
          c.analyses().template abandon<ModuleSum>();
          return x;
        },
        passinfra::preserves_all{});
    m = passinfra::run(p, std::move(m), ctx);
    CHECK(cached_names(am) == Events{"Tagged"});  // Derived read ModuleSum
  }
  SUBCASE("abandon(name)") {
    fill();
    auto p = passinfra::module_pass({"P", 0}, [](AModule x, auto& c) {
      c.analyses().preserve_all();
      c.analyses().abandon("Tagged");
      return x;
    });
    m = passinfra::run(p, std::move(m), ctx);
    CHECK(cached_names(am) == Events{"ModuleSum", "Derived"});
  }
  SUBCASE("an unknown name is an Error with a suggestion") {
    auto p = passinfra::module_pass({"P", 0}, [](AModule x, auto& c) {
      c.analyses().preserve("Taged");
      return x;
    });
    CHECK_THROWS_WITH_AS(m = passinfra::run(p, std::move(m), ctx),
                         doctest::Contains("unknown analysis 'Taged'; did you mean 'Tagged'?"), passinfra::Error);
  }
}

TEST_CASE("analysis_run: marks made by a nested run belong to it (SPEC §10.4)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module();
  am.get<Tagged>(m);
  auto inner = passinfra::module_pass({"Inner", 0}, [](AModule x, auto& c) {
    c.analyses().preserve_all();
    return x;
  });
  SUBCASE("the inner mark does not keep the outer's results") {
    auto outer = passinfra::module_pass({"Outer", 0},
                                        [&](AModule x, auto& c) { return passinfra::run(inner, std::move(x), c); });
    m = passinfra::run(outer, std::move(m), ctx);
    CHECK(log.events == Events{"r before_pass Outer", "r before_pass Inner", "r after_pass Inner",
                               "r invalidated Tagged", "r after_pass Outer"});
  }
  SUBCASE("the outer's mark, made before and after the nested run, stays the outer's") {
    auto drops = passinfra::module_pass({"Drops", 0}, [](AModule x) { return x; });
    auto outer = passinfra::module_pass({"Outer", 0}, [&](AModule x, auto& c) {
      c.analyses().template preserve<Tagged>();
      x = passinfra::run(drops, std::move(x), c);  // drops Tagged now
      (void)c.analyses().template get<Tagged>(x);  // computed again
      c.analyses().template preserve<ModuleSum>();
      return x;
    });
    m = passinfra::run(outer, std::move(m), ctx);
    CHECK(log.events == Events{"r before_pass Outer", "r before_pass Drops", "r invalidated Tagged",
                               "r after_pass Drops", "r before_analysis Tagged", "r after_analysis Tagged",
                               "r after_pass Outer"});
    CHECK(cached_names(am) == Events{"Tagged"});
  }
}

TEST_CASE("analysis_run: a Sequential preserves everything itself; each child applies its own set (SPEC §10.4)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  am.get<Tagged>(m);
  passinfra::Sequential<pitest::Touch<"A", ModuleSum, Derived>, pitest::Touch<"B", Tagged>> seq;
  m = passinfra::run(seq, std::move(m), ctx);
  CHECK(log.events == Events{"r before_pass sequential", "r before_pass A", "r invalidated Tagged", "r after_pass A",
                             "r before_pass B", "r invalidated ModuleSum", "r invalidated Derived", "r after_pass B",
                             "r after_pass sequential"});
}

namespace {
struct Veto {
  std::string vetoed;
  bool should_run(const AModule&, const passinfra::PassInfo& info) const { return info.name != vetoed; }
};
template <pitest::Name N>
struct NeedsKeepAll {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using required = passinfra::requires_passes<pitest::Touch<"Required">>;
  using preserves = passinfra::preserves_all;
  AModule transform(AModule m, auto&) const { return m; }
};
}  // namespace

TEST_CASE("analysis_run: skipped and vetoed passes preserve everything; required passes apply their set (SPEC §10.6)") {
  Manager am;
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  SUBCASE("disabled by opt_level") {
    auto ctx = passinfra::make_pass_context<AModule>({.opt_level = 1}, am);
    auto high = passinfra::module_pass({"High", 3}, [](AModule x) { return x; });
    m = passinfra::run(passinfra::Sequential{high}, std::move(m), ctx);
    CHECK(am.size() == 2);
  }
  SUBCASE("disabled by name") {
    auto ctx = passinfra::make_pass_context<AModule>({.disabled_pass = {"Touch"}}, am);
    m = passinfra::run(passinfra::Sequential<pitest::Touch<"Touch">>{}, std::move(m), ctx);
    CHECK(am.size() == 2);
  }
  SUBCASE("vetoed by should_run") {
    Veto veto{"Touch"};
    auto ctx = passinfra::make_pass_context<AModule>({}, am, veto);
    m = passinfra::run(pitest::Touch<"Touch">{}, std::move(m), ctx);
    CHECK(am.size() == 2);
    m = passinfra::run(pitest::Touch<"Other">{}, std::move(m), ctx);
    CHECK(am.empty());
  }
  SUBCASE("a required pass is an ordinary run") {
    auto ctx = passinfra::make_pass_context<AModule>({}, am);
    m = passinfra::run(passinfra::Sequential<NeedsKeepAll<"N">>{}, std::move(m), ctx);
    CHECK(am.empty());
  }
  SUBCASE("a pass in required_pass is an ordinary run") {
    auto ctx = passinfra::make_pass_context<AModule>({.opt_level = 0, .required_pass = {"Touch"}}, am);
    m = passinfra::run(passinfra::Sequential<pitest::Touch<"Touch">>{}, std::move(m), ctx);
    CHECK(am.empty());
  }
}

TEST_CASE("analysis_run: a pass that throws clears the cache before run_after_pass_failed (SPEC §10.6)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  auto throws = passinfra::module_pass(
      {"Throws", 0}, [](AModule, auto&) -> AModule { pitest::throw_test_error(5, "body"); },
      passinfra::preserves_all{});
  try {
    m = passinfra::run(throws, std::move(m), ctx);
    FAIL("no exception");
  } catch (const pitest::TestError& e) {
    CHECK(e.id == 5);
    CHECK(std::current_exception() == pitest::last_thrown);
  }
  CHECK(log.events == Events{"r before_pass Throws", "r invalidated ModuleSum", "r invalidated Derived",
                             "r after_pass_failed Throws"});
  CHECK(am.empty());
}

namespace {
struct FailsAfterDep {
  static constexpr passinfra::AnalysisInfo info{"FailsAfterDep"};
  using result_type = long;
  using depends_on = passinfra::depends_on<ModuleSum>;
  long run(const AModule&, auto& deps) const {
    (void)deps.template get<ModuleSum>();
    pitest::throw_test_error(8, "FailsAfterDep");
  }
};
using FailManager = passinfra::AnalysisManager<AModule, passinfra::analyses<FailsAfterDep, Tagged>>;
}  // namespace

TEST_CASE("analysis_run: an analysis that throws inside a pass: failed hook, then the pass's clear (SPEC §10.6)") {
  EventLog log;
  Rec r1 = recorder(log, "r1");
  Rec r2 = recorder(log, "r2");
  FailManager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r1), std::ref(r2));
  AModule m = pitest::make_module();
  SUBCASE("not caught by the body") {
    auto p = passinfra::module_pass({"P", 0}, [](AModule x, auto& c) {
      (void)c.analyses().template get<FailsAfterDep>(x);
      return x;
    });
    try {
      m = passinfra::run(p, std::move(m), ctx);
      FAIL("no exception");
    } catch (const pitest::TestError& e) {
      CHECK(e.id == 8);
      CHECK(std::current_exception() == pitest::last_thrown);
    }
    CHECK(log.events == Events{"r1 before_pass P", "r2 before_pass P", "r1 before_analysis FailsAfterDep",
                               "r2 before_analysis FailsAfterDep", "r1 before_analysis ModuleSum",
                               "r2 before_analysis ModuleSum", "r1 after_analysis ModuleSum",
                               "r2 after_analysis ModuleSum", "r1 failed_analysis FailsAfterDep",
                               "r2 failed_analysis FailsAfterDep", "r1 invalidated ModuleSum",
                               "r2 invalidated ModuleSum", "r1 after_pass_failed P", "r2 after_pass_failed P"});
  }
  SUBCASE("caught by the body: the dependency stays cached, a later get computes again") {
    auto p = passinfra::module_pass(
        {"P", 0},
        [](AModule x, auto& c) {
          CHECK_THROWS_AS((void)c.analyses().template get<FailsAfterDep>(x), pitest::TestError);
          CHECK(c.analyses().template get_cached<ModuleSum>() != nullptr);
          CHECK_THROWS_AS((void)c.analyses().template get<FailsAfterDep>(x), pitest::TestError);
          return x;
        },
        passinfra::preserves_all{});
    m = passinfra::run(p, std::move(m), ctx);
    CHECK(am.size() == 1);
  }
}

TEST_CASE("analysis_run: an analysis hook that throws propagates out of get unchanged (SPEC §10.6, §10.7)") {
  EventLog log;
  Rec r1 = recorder(log, "r1");
  Rec r2 = recorder(log, "r2");
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r1), std::ref(r2));
  AModule m = pitest::make_module();
  auto p = passinfra::module_pass({"P", 0}, [](AModule x, auto& c) {
    (void)c.analyses().template get<Tagged>(x);
    return x;
  });
  SUBCASE("run_before_analysis: instruments whose hook returned get the failed hook") {
    r2.fail_at = pitest::AHook::before;
    CHECK_THROWS_AS(m = passinfra::run(p, std::move(m), ctx), pitest::TestError);
    CHECK(log.events == Events{"r1 before_pass P", "r2 before_pass P", "r1 before_analysis Tagged",
                               "r2 bad before_analysis Tagged", "r1 failed_analysis Tagged", "r1 after_pass_failed P",
                               "r2 after_pass_failed P"});
    CHECK(am.empty());
  }
  SUBCASE("run_after_analysis: the result was stored; instruments not yet told get the failed hook") {
    r1.fail_at = pitest::AHook::after;
    r1.pass_hooks = r2.pass_hooks = false;
    CHECK_THROWS_AS((void)ctx.analyses().get<Tagged>(m), pitest::TestError);  // outside any pass
    CHECK(log.events == Events{"r1 before_analysis Tagged", "r2 before_analysis Tagged", "r1 bad after_analysis Tagged",
                               "r2 failed_analysis Tagged"});
    CHECK(am.get_cached<Tagged>() != nullptr);
  }
  SUBCASE("run_analysis_invalidated: every result is still dropped, the first throw propagates") {
    r1.fail_at = pitest::AHook::invalidated;
    r1.pass_hooks = r2.pass_hooks = false;
    am.get<Derived>(m);
    CHECK_THROWS_AS(ctx.analyses().invalidate(PreservedAnalyses::none()), pitest::TestError);
    CHECK(log.events == Events{"r1 bad invalidated ModuleSum"});
    CHECK(am.empty());
  }
}

TEST_CASE("analysis_run: a throw from run_after_pass comes after the invalidation; nothing more dropped (SPEC §10.6)") {
  EventLog log;
  Rec r = recorder(log);
  r.fail_at = pitest::AHook::after_pass;
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  am.get<Tagged>(m);
  CHECK_THROWS_AS(m = passinfra::run(pitest::Touch<"T", Tagged>{}, std::move(m), ctx), pitest::TestError);
  // r's run_after_pass was started: no run_after_pass_failed for it (SPEC §3, DESIGN).
  CHECK(log.events ==
        Events{"r before_pass T", "r invalidated ModuleSum", "r invalidated Derived", "r bad after_pass T"});
  CHECK(cached_names(am) == Events{"Tagged"});
}

TEST_CASE("analysis_run: marks outside a running pass are an Error (SPEC §10.8)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  CHECK_THROWS_WITH_AS(ctx.analyses().preserve<ModuleSum>(),
                       "passinfra: ctx.analyses().preserve<...>() called outside a pass body", passinfra::Error);
  CHECK_THROWS_WITH_AS(ctx.analyses().preserve_all(),
                       "passinfra: ctx.analyses().preserve_all() called outside a pass body", passinfra::Error);
  CHECK_THROWS_WITH_AS(ctx.analyses().abandon<ModuleSum>(),
                       "passinfra: ctx.analyses().abandon<...>() called outside a pass body", passinfra::Error);
}

TEST_CASE("analysis_run: a context without a manager runs as before and has no analyses (SPEC §10)") {
  auto ctx = passinfra::make_pass_context<AModule>({});
  static_assert(!passinfra::HasAnalyses<decltype(ctx)>);
  static_assert(std::is_same_v<decltype(ctx.analyses()), passinfra::NoAnalysisManager>);
  CHECK_FALSE(passinfra::analyses_available(ctx));
  Manager am;
  auto with = passinfra::make_pass_context<AModule>({}, am);
  static_assert(passinfra::HasAnalyses<decltype(with)>);
  CHECK(passinfra::analyses_available(with));
  CHECK(with.analysis_manager() == &am);
  // The utility passes do nothing without a manager.
  AModule m = pitest::make_module();
  m = passinfra::run(passinfra::RequireAnalysis<ModuleSum>{}, std::move(m), ctx);
  m = passinfra::run(passinfra::InvalidateAnalysis<ModuleSum>{}, std::move(m), ctx);
  m = passinfra::run(passinfra::InvalidateAllAnalyses{}, std::move(m), ctx);
  CHECK(m.version == 0);
}

TEST_CASE("analysis_run: require<A>, invalidate<A> and invalidate<all> (SPEC §10.4, §10.9)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  CHECK(passinfra::RequireAnalysis<Derived>::info.name == "require<Derived>");
  CHECK(passinfra::InvalidateAnalysis<ModuleSum>::info.name == "invalidate<ModuleSum>");
  CHECK(passinfra::InvalidateAllAnalyses::info.name == "invalidate<all>");
  AModule m = pitest::make_module();
  passinfra::Sequential<passinfra::RequireAnalysis<Derived>, passinfra::RequireAnalysis<Tagged>,
                        passinfra::InvalidateAnalysis<ModuleSum>, passinfra::RequireAnalysis<FunctionSum>,
                        passinfra::InvalidateAllAnalyses>
      seq;
  m = passinfra::run(seq, std::move(m), ctx);
  CHECK(log.events == Events{"r before_pass sequential",
                             "r before_pass require<Derived>",
                             "r before_analysis Derived",
                             "r before_analysis ModuleSum",
                             "r after_analysis ModuleSum",
                             "r after_analysis Derived",
                             "r after_pass require<Derived>",
                             "r before_pass require<Tagged>",
                             "r before_analysis Tagged",
                             "r after_analysis Tagged",
                             "r after_pass require<Tagged>",
                             "r before_pass invalidate<ModuleSum>",
                             "r invalidated ModuleSum",
                             "r invalidated Derived",
                             "r after_pass invalidate<ModuleSum>",
                             "r before_pass require<FunctionSum>",
                             "r before_analysis FunctionSum@f",
                             "r after_analysis FunctionSum@f",
                             "r before_analysis FunctionSum@g",
                             "r after_analysis FunctionSum@g",
                             "r before_analysis FunctionSum@h",
                             "r after_analysis FunctionSum@h",
                             "r after_pass require<FunctionSum>",
                             "r before_pass invalidate<all>",
                             "r invalidated Tagged",
                             "r invalidated FunctionSum@f",
                             "r invalidated FunctionSum@g",
                             "r invalidated FunctionSum@h",
                             "r after_pass invalidate<all>",
                             "r after_pass sequential"});
  CHECK(am.empty());
}

namespace {
// An instrument that holds only the manager and clears it from its run_after_pass (the checker's need).
struct Clearer {
  Manager* am;
  void run_after_pass(const AModule&, const passinfra::PassInfo&) { am->clear_in_pass(); }
};
}  // namespace

TEST_CASE("analysis_run: clear_in_pass from an after-pass hook fires the context's hooks (SPEC §10.10)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  Clearer clearer{&am};
  auto ctx = passinfra::make_pass_context<AModule>({}, am, clearer, std::ref(r));
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  m = passinfra::run(pitest::KeepAll<"Keep">{}, std::move(m), ctx);
  CHECK(log.events ==
        Events{"r before_pass Keep", "r invalidated ModuleSum", "r invalidated Derived", "r after_pass Keep"});
  am.get<Tagged>(m);
  am.clear_in_pass();  // outside any pass: no hook
  CHECK(log.events.size() == 4);
  CHECK(am.empty());
}

TEST_CASE("analysis_run: the handle's get(name) fires hooks and finds the typed entry (SPEC §10.9)") {
  EventLog log;
  Rec r = recorder(log);
  r.pass_hooks = false;
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module();
  const auto& result = ctx.analyses().get("Derived", m);
  CHECK(result.get<long>() == 137);
  CHECK(result.target<long>() == am.get_cached<Derived>());
  CHECK(log.events == Events{"r before_analysis Derived", "r before_analysis ModuleSum", "r after_analysis ModuleSum",
                             "r after_analysis Derived"});
  const auto& fn = ctx.analyses().get("FunctionSum", m, m.functions[0]);
  CHECK(fn.get<long>() == 6);
  CHECK(log.events.back() == "r after_analysis FunctionSum@f");
  ctx.analyses().clear();
  CHECK(log.events.back() == "r invalidated FunctionSum@f");
}

namespace {
struct ThrowsInShouldRun {
  bool should_run(const AModule&, const passinfra::PassInfo&) { pitest::throw_test_error(6, "should_run"); }
};
}  // namespace

TEST_CASE(
    "analysis_run: a throw from should_run or run_before_pass comes before the body: nothing dropped (SPEC §10.6)") {
  Manager am;
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  SUBCASE("should_run") {
    auto ctx = passinfra::make_pass_context<AModule>({}, am, ThrowsInShouldRun{});
    CHECK_THROWS_AS(m = passinfra::run(pitest::Touch<"T">{}, std::move(m), ctx), pitest::TestError);
  }
  SUBCASE("run_before_pass") {
    EventLog log;
    Rec r = recorder(log);
    r.fail_at = pitest::AHook::before_pass;
    auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
    CHECK_THROWS_AS(m = passinfra::run(pitest::Touch<"T">{}, std::move(m), ctx), pitest::TestError);
    CHECK(log.events == Events{"r bad before_pass T"});
  }
  CHECK(cached_names(am) == Events{"ModuleSum", "Derived"});
}

TEST_CASE("analysis_run: enter and exit of the context do not touch the cache (SPEC §10.7)") {
  struct EnterExit {
    int* count;
    void enter_pass_ctx() { ++*count; }
    void exit_pass_ctx() { ++*count; }
  };
  int count = 0;
  Manager am;
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  {
    auto ctx = passinfra::make_pass_context<AModule>({}, am, EnterExit{&count});
    auto scope = ctx.enter();
  }
  CHECK(count == 2);
  CHECK(am.size() == 2);
}
