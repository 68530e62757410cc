// Analyses inside nests (docs/spec.md §11.13), dynamic layer: DynamicNest's
// unit passes see ctx.analyses() through ContextRef<Unit> with the members
// and behaviour of the static unit context's, under static and dynamic
// contexts; unit-level passes run inside an erased unit pass (a
// DynamicSequential<Unit>) invalidate per unit too.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <passinfra/dynamic.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "support/analysis_ir.hpp"
#include "support/nest_analyses.hpp"

using namespace pitest;
namespace pi = passinfra;

namespace {

using DNest = pi::DynamicNest<AModule, AFunc>;
using DCtx = pi::PassContext<AModule>;

DNest use_nest() { return DNest{FUse<"U1", FunctionSum>{}, FUse<"U2">{}, FUse<"U3", FunctionSum>{}}; }

}  // namespace

TEST_CASE("dynamic nest analyses: per-unit cache and invalidation through ContextRef<Unit>, static context") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  auto ctx = pi::make_pass_context<AModule>({}, am, std::ref(r));
  (void)pi::run(use_nest(), make_module(&log), ctx);
  CHECK(runs()["FunctionSum@f"] == 2);
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
  CHECK(cached(am) == Events{"FunctionSum@f", "FunctionSum@g", "FunctionSum@h"});
}

TEST_CASE("dynamic nest analyses: PassContext<IR> with a manager: same cache, events and module rules") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  DCtx ctx({}, {pi::AnyInstrument<AModule>(std::ref(r))}, &am);
  (void)pi::run(use_nest(), make_module(&log), ctx);
  CHECK(runs()["FunctionSum@g"] == 2);
  CHECK(cached(am) == Events{"FunctionSum@f", "FunctionSum@g", "FunctionSum@h"});
  CHECK(count(log, "r invalidated FunctionSum@g") == 1);

  // Module results: read-only in units, the SPEC's Error for an uncached one.
  am.clear();
  log.clear();
  runs().clear();
  AModule m = make_module(&log);
  const long& sum = am.get<ModuleSum>(m);
  (void)pi::run(DNest{FReadModule<"RM">{}}, std::move(m), ctx);
  CHECK(runs()["ModuleSum"] == 1);
  CHECK(count(log, "RM@f parent=" + std::to_string(sum) + " same=1") == 1);
  CHECK(count(log,
              "RM@g error=passinfra: module analysis 'Derived' cannot be computed inside nest 'function' (unit "
              "'@g'); compute it before the nest, e.g. with require(analysis=\"Derived\")") == 1);

  // The intersection after the nest; function results kept, FunctionSize dropped by the cascade.
  am.clear();
  log.clear();
  AModule m2 = make_module(&log);
  am.get<ModuleSum>(m2);
  am.get<Derived>(m2);
  am.get<Tagged>(m2);
  (void)pi::run(DNest{FTouch<"A", ModuleSum, Tagged>{}, FUseBoth<"B", FunctionSum, FunctionSize, Tagged>{}},
                std::move(m2), ctx);
  const Events hooks = hooks_of(log.events);
  const Events tail{"invalidated ModuleSum",      "invalidated Derived",        "invalidated FunctionSize@f",
                    "invalidated FunctionSize@g", "invalidated FunctionSize@h", "after_pass function"};
  REQUIRE(hooks.size() >= tail.size());
  CHECK(Events(hooks.end() - static_cast<long>(tail.size()), hooks.end()) == tail);
  CHECK(cached(am) == Events{"Tagged", "FunctionSum@f", "FunctionSum@g", "FunctionSum@h"});

  // A failing unit empties the manager before the nest's run_after_pass_failed.
  log.clear();
  AModule m3 = make_module(&log);
  CHECK_THROWS_AS(pi::run(DNest{FUse<"U", FunctionSum>{}, FThrowOn<"T", "g">{}}, std::move(m3), ctx), TestError);
  CHECK(am.empty());
  const Events hooks3 = hooks_of(log.events);
  REQUIRE(hooks3.size() >= 2);
  CHECK(hooks3.back() == "after_pass_failed function");
  CHECK(count(log, "r invalidated Tagged") == 1);
  CHECK(count(log, "r invalidated FunctionSum@g") == 1);
}

TEST_CASE("dynamic nest analyses: unit passes inside an erased DynamicSequential<Unit> invalidate per unit") {
  runs().clear();
  EventLog log;
  URec r = urecorder(log);
  NestManager am;
  DCtx ctx({}, {pi::AnyInstrument<AModule>(std::ref(r))}, &am);
  // The inner sequence runs under ContextRef<AFunc>: U2 keeps nothing, so U3 computes again.
  const pi::DynamicSequential<AFunc> inner{FUse<"U1", FunctionSum>{}, FUse<"U2">{}, FUse<"U3">{}};
  (void)pi::run(DNest{pi::AnyPass<AFunc>(inner), FCheckCached<"C">{}}, make_module(&log), ctx);
  CHECK(runs()["FunctionSum@f"] == 2);
  CHECK(runs()["FunctionSum@h"] == 2);
  CHECK(count(log, "r invalidated FunctionSum@f") == 2);
  CHECK(count(log, "C@f cached=0") == 1);
  CHECK(am.empty());
  // Outside a nest, ContextRef<Unit>::analyses() is an Error (no manager for the unit type).
  auto plain = pi::make_pass_context<AModule>({});
  CHECK_THROWS_AS(pi::run(DNest{FUse<"U">{}}, make_module(&log), plain), pi::Error);
}

namespace {

// Unit g asks for f's FunctionSum (How) through ContextRef<AFunc>: the same
// Error, caught by the pass, under a static and a dynamic context, with no
// executor, with one and NestOptions serial, and in parallel; the same lines
// (no hook for the refused request) and cache; as the static Nest's.
template <AskBy How>
void check_other_function(const Events& expected) {
  CAPTURE(static_cast<int>(How));
  pi::ThreadPool pool(2);
  auto executor_of = [&pool](bool executor) { return executor ? pi::ExecutorRef(pool) : pi::ExecutorRef(); };
  auto static_ctx = [&](bool executor) {
    return [&, executor](AskManager& am, LogRec& rec) {
      return pi::make_pass_context<AModule>({.executor = executor_of(executor)}, am, std::ref(rec));
    };
  };
  auto dynamic_ctx = [&](bool executor) {
    return [&, executor](AskManager& am, LogRec& rec) {
      return DCtx({.executor = executor_of(executor)}, {pi::AnyInstrument<AModule>(std::ref(rec))}, &am);
    };
  };
  const std::vector<pi::AnyPass<AFunc>> passes{FUse<"U", FunctionSum>{}, FAskOther<"A", How>{}};
  const DNest nest(passes);
  const DNest serial_nest(passes, pi::NestOptions{.serial = true});
  // The same passes inside an erased DynamicSequential<AFunc>.
  const DNest inner{pi::AnyPass<AFunc>(pi::DynamicSequential<AFunc>(passes))};
  const LoggedRun reference =
      run_logged(pi::Nest<AFunc, FUse<"U", FunctionSum>, FAskOther<"A", How>>{}, static_ctx(false));
  CHECK(reference.lines == expected);
  CHECK(reference.cached == Events{"FunctionSum@f", "FunctionSum@g", "FunctionSum@h"});
  for (const bool executor : {false, true}) {
    CAPTURE(executor);
    for (const DNest* n : {&nest, &serial_nest, &inner}) {
      const LoggedRun s = run_logged(*n, static_ctx(executor));
      const LoggedRun d = run_logged(*n, dynamic_ctx(executor));
      CHECK(s.lines == reference.lines);
      CHECK(d.lines == reference.lines);
      CHECK(s.cached == reference.cached);
      CHECK(d.cached == reference.cached);
    }
  }
}

}  // namespace

TEST_CASE("dynamic nest analyses: another function's result in a unit is the same Error serial and parallel") {
  const std::string said = "A@g error=" + other_function_error("@g", "FunctionSum", "f");
  const std::string f = "r before_analysis FunctionSum@f";
  const std::string g = "r before_analysis FunctionSum@g";
  const std::string h = "r before_analysis FunctionSum@h";
  check_other_function<AskBy::get>({f, g, said, h});
  check_other_function<AskBy::get_cached>({f, g, said, h});
  check_other_function<AskBy::name>({f, g, said, h});
  check_other_function<AskBy::dependency>(
      {f, g, "r before_analysis FirstSum@g", "r analysis_failed FirstSum@g", said, h});
}
