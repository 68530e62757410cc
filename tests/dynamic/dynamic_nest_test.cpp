// DynamicNest<Parent, Unit> (docs/spec.md §11, DESIGN "The dynamic adaptor
// and text"): event for event the static Nest, serial and on an executor,
// directly and erased (AnyPass<Parent> inside DynamicSequential and static
// Sequential); ContextRef<Unit>'s parent() / parent_as<P>(); the registry's
// nest kinds and nests in pipeline text (SPEC §11.11); tinyir's function nest.
#include <doctest/doctest.h>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <passinfra/dynamic.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "support/unit_ir.hpp"

using namespace pitest;
namespace pi = passinfra;

namespace {

using DNest = pi::DynamicNest<UModule, UFunc>;

struct NeedsR {
  static constexpr pi::PassInfo info{"NeedsR", 0};
  using required = pi::requires_passes<UStep<"R">>;
  UFunc transform(UFunc f, auto& ctx) const {
    ctx.parent().log->add("NeedsR(" + std::string(ctx.unit_name()) + ")");
    return f;
  }
};

// Reads the unit's context through whatever context type it is given.
struct Where {
  static constexpr pi::PassInfo info{"Where", 0};
  UFunc transform(UFunc f, auto& ctx) const {
    f.trail.push_back(std::string(ctx.unit_name()) + "/" + std::to_string(ctx.unit_index()) + "/" +
                      std::to_string(ctx.unit_count()) + "/" + std::string(ctx.pipeline().nest.name) + "/v" +
                      std::to_string(ctx.parent().version));
    return f;
  }
};

constexpr auto kDeadline = std::chrono::seconds(20);

// Unit "@f0" waits (bounded) until "@f1" has finished: the two ran on
// different threads. Every unit logs a line at INFO and throws on `throws`.
struct Meet {
  std::mutex m;
  std::condition_variable cv;
  bool f1_done = false;
  std::atomic<int> timeouts{0};
  std::string throws;
};
Meet* g_meet = nullptr;

struct Work {
  static constexpr pi::PassInfo info{"Work", 0};
  UFunc transform(UFunc f, auto& ctx) const {
    const std::string unit(ctx.unit_name());
    pi::log(pi::LogLevel::info, "Work " + unit + " on v" + std::to_string(ctx.parent().version));
    if (g_meet != nullptr && unit == "@f0") {
      std::unique_lock lock(g_meet->m);
      if (!g_meet->cv.wait_for(lock, kDeadline, [] { return g_meet->f1_done; })) ++g_meet->timeouts;
    }
    if (g_meet != nullptr && unit == g_meet->throws) {
      throw TestError(static_cast<int>(ctx.unit_index()), "Work failed on " + unit);
    }
    if (g_meet != nullptr && unit == "@f1") {
      {
        std::lock_guard lock(g_meet->m);
        g_meet->f1_done = true;
      }
      g_meet->cv.notify_all();
    }
    f.value += 1;
    return f;
  }
};

// A thread-safe instrument: counts the unit hooks, records each unit's thread.
struct SafeCounter {
  static constexpr bool thread_safe = true;
  std::atomic<int> before{0}, after{0}, pipelines{0};
  std::mutex m;
  std::set<std::uint32_t> threads;
  void run_before_pass(const UFunc&, const pi::PassInfo&) { ++before; }
  void run_after_pass(const UFunc&, const pi::PassInfo&) { ++after; }
  void run_before_pipeline(const UFunc&, const pi::PipelineInfo& p) {
    ++pipelines;
    std::lock_guard lock(m);
    threads.insert(p.thread);
  }
};

struct Lines {
  std::mutex m;
  std::vector<std::string> lines;
};

// The result (or the exception), the log lines and the counts of `pass` on
// eight units under a static context with `executor`.
std::string run_logged(const auto& pass, pi::ExecutorRef executor, Lines& lines, SafeCounter& counter) {
  pi::ScopedLogSink sink([&lines](pi::LogLevel, std::string_view message) {
    std::lock_guard lock(lines.m);
    lines.lines.emplace_back(message);
  });
  auto ctx = pi::make_pass_context<UModule>({.executor = executor}, std::ref(counter));
  try {
    return describe(pi::run(pass, make_umodule(nullptr, {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"}, 2), ctx));
  } catch (const TestError& e) {
    return "threw " + std::to_string(e.id) + " " + e.what();
  }
}

// The events of `pass` run on a module of `fns` under a static context with
// UHooks A and B, then the module's functions.
std::vector<std::string> events_of(const auto& pass, std::vector<std::string> fns,
                                   pi::PassContextOptions options = {}) {
  EventLog log;
  UHooks a{"A", &log}, b{"B", &log};
  auto ctx = pi::make_pass_context<UModule>(std::move(options), std::ref(a), std::ref(b));
  try {
    UModule out = pi::run(pass, make_umodule(&log, std::move(fns), 4), ctx);
    log.add("result " + describe(out));
  } catch (const TestError& e) {
    log.add("threw " + std::to_string(e.id) + " " + e.what());
  }
  return log.events;
}

// The same with UHooks A and B held by a run-time list: a PassContext<UModule>
// of AnyInstrument<UModule>s, which forward UModule's unit types' hooks.
std::vector<std::string> events_of_erased(const auto& pass, std::vector<std::string> fns,
                                          pi::PassContextOptions options = {}) {
  EventLog log;
  UHooks a{"A", &log}, b{"B", &log};
  pi::PassContext<UModule> ctx(std::move(options),
                               {pi::AnyInstrument<UModule>(std::ref(a)), pi::AnyInstrument<UModule>(std::ref(b))});
  try {
    UModule out = pi::run(pass, make_umodule(&log, std::move(fns), 4), ctx);
    log.add("result " + describe(out));
  } catch (const TestError& e) {
    log.add("threw " + std::to_string(e.id) + " " + e.what());
  }
  return log.events;
}

}  // namespace

TEST_CASE("DynamicNest: the events of the static Nest, scenario by scenario (SPEC §11.3, §11.6)") {
  const std::vector<std::string> fns{"f0", "!p", "f1", "f2"};
  SUBCASE("one child") {
    const auto expected = events_of(pi::Nest<UFunc, UStep<"P">>{}, fns);
    CHECK(expected.size() > 30);
    CHECK(events_of(DNest{UStep<"P">{}}, fns) == expected);
  }
  SUBCASE("gate, required passes, custom info") {
    const pi::PassContextOptions options{.opt_level = 2, .disabled_pass = {"Off"}};
    const auto st =
        pi::nest<UFunc>(pi::PassInfo{"fn", 1}, UStep<"A">{}, UStep<"Hi", 3>{}, UStep<"Off">{}, NeedsR{}, Where{});
    const DNest dn({UStep<"A">{}, UStep<"Hi", 3>{}, UStep<"Off">{}, NeedsR{}, Where{}}, pi::PassInfo{"fn", 1});
    CHECK(dn.info().name == "fn");
    CHECK(dn.info().opt_level == 1);
    const auto expected = events_of(st, fns, options);
    CHECK(expected.back() ==
          "result f0:2:A@v4,R@v4,@f0/0/3/fn/v4,;p:0:;f1:2:A@v4,R@v4,@f1/1/3/fn/v4,;f2:2:A@v4,R@v4,@f2/2/3/fn/v4,;");
    CHECK(events_of(dn, fns, options) == expected);
  }
  SUBCASE("a failing unit") {
    const auto expected = events_of(pi::nest<UFunc>(UStep<"A">{}, UThrow<"T", "@f1">{}, UStep<"B">{}), fns);
    CHECK(expected.back() == "threw 40 T failed on f1");
    CHECK(events_of(DNest{UStep<"A">{}, UThrow<"T", "@f1">{}, UStep<"B">{}}, fns) == expected);
  }
  SUBCASE("the nest disabled by name; no units; no children") {
    const pi::PassContextOptions off{.disabled_pass = {"function"}};
    CHECK(events_of(pi::Sequential<pi::Nest<UFunc, UStep<"P">>>{}, fns, off) ==
          events_of(pi::DynamicSequential<UModule>{pi::AnyPass<UModule>(DNest{UStep<"P">{}})}, fns, off));
    CHECK(events_of(pi::Nest<UFunc, UStep<"P">>{}, {"!p"}) == events_of(DNest{UStep<"P">{}}, {"!p"}));
    CHECK(events_of(pi::Nest<UFunc>{}, fns) == events_of(DNest{}, fns));
  }
}

TEST_CASE("DynamicNest: erased as AnyPass<Parent>, in DynamicSequential and in static Sequential, same events") {
  const std::vector<std::string> fns{"f0", "f1"};
  const auto expected = events_of(pi::Sequential<UModuleStep<"M">, pi::Nest<UFunc, UStep<"P">, NeedsR, Where>>{}, fns);
  const DNest dn{UStep<"P">{}, NeedsR{}, Where{}};
  // Under a ContextRef<UModule>: the unit-level hooks go through it to A and B.
  const pi::DynamicSequential<UModule> dyn{UModuleStep<"M">{}, pi::AnyPass<UModule>(dn)};
  CHECK(events_of(dyn, fns) == expected);
  const pi::Sequential<UModuleStep<"M">, pi::AnyPass<UModule>> st(UModuleStep<"M">{}, pi::AnyPass<UModule>(dn));
  CHECK(events_of(st, fns) == expected);
  // The static Nest erased the same way agrees too.
  const pi::DynamicSequential<UModule> dyn_static{UModuleStep<"M">{},
                                                  pi::AnyPass<UModule>(pi::Nest<UFunc, UStep<"P">, NeedsR, Where>{})};
  CHECK(events_of(dyn_static, fns) == expected);
  CHECK(pi::AnyPass<UModule>(dn).info().name == "function");
  CHECK(pi::AnyPass<UModule>(dn).nesting_depth() == 2);
}

TEST_CASE("DynamicNest: on an executor, the static Nest's result, log and hooks, directly and erased") {
  pi::ThreadPool pool(1);  // the caller + one worker
  const auto st = pi::nest<UFunc>(UStep<"A">{}, Work{}, UStep<"B">{});
  const DNest dn{UStep<"A">{}, Work{}, UStep<"B">{}};
  const pi::DynamicSequential<UModule> erased{pi::AnyPass<UModule>(dn)};
  for (const char* throws : {"", "@f3"}) {
    CAPTURE(throws);
    Lines serial_lines;
    SafeCounter serial_counter;
    Meet none;
    none.throws = throws;
    g_meet = &none;
    none.f1_done = true;  // serial: f0 must not wait for f1
    const std::string serial = run_logged(st, pi::ExecutorRef(), serial_lines, serial_counter);
    for (int k = 0; k < 3; ++k) {
      CAPTURE(k);
      Meet meet;
      meet.throws = throws;
      g_meet = &meet;
      Lines lines;
      SafeCounter counter;
      const std::string out = k == 0   ? run_logged(st, pool, lines, counter)
                              : k == 1 ? run_logged(dn, pool, lines, counter)
                                       : run_logged(erased, pool, lines, counter);
      CHECK(meet.timeouts == 0);
      CHECK(out == serial);
      CHECK(lines.lines == serial_lines.lines);  // held back per unit, delivered in unit order
      CHECK(counter.threads.size() == 2);        // f0 waited for f1: they ran on two threads
      if (std::string(throws).empty()) {
        CHECK(counter.before == serial_counter.before);
        CHECK(counter.pipelines == 8);
      }
    }
    g_meet = nullptr;
    if (std::string(throws).empty()) {
      CHECK(serial ==
            "f0:3:A@v2,B@v2,;f1:3:A@v2,B@v2,;f2:3:A@v2,B@v2,;f3:3:A@v2,B@v2,;f4:3:A@v2,B@v2,;"
            "f5:3:A@v2,B@v2,;f6:3:A@v2,B@v2,;f7:3:A@v2,B@v2,;");
      CHECK(serial_lines.lines.size() == 8);
    } else {
      CHECK(serial == "threw 3 Work failed on @f3");
      CHECK(serial_lines.lines.size() == 4);
    }
  }
}

TEST_CASE("DynamicNest: under a dynamic PassContext, a worker's current() is the caller's context (SPEC §11.9)") {
  pi::ThreadPool pool(1);
  pi::PassContextOptions options;
  options.executor = pool;
  pi::PassContext<UModule> ctx(std::move(options));
  std::atomic<int> wrong{0};
  std::atomic<int> guarded{0};
  std::atomic<int> on_workers{0};
  Meet meet;
  g_meet = &meet;
  const pi::AnyPass<UFunc> check = pi::module_pass(pi::PassInfo{"Check", 0}, [&](UFunc f, auto&) {
    if (&pi::PassContext<UModule>::current() != &ctx) ++wrong;
    const pi::PipelineInfo* p = pi::current_pipeline();
    if (p != nullptr && p->thread != p->parent_thread) {  // on a worker: refused (SPEC §11.9)
      ++on_workers;
      try {
        ctx.override_instruments({});
      } catch (const pi::Error& e) {
        if (std::string(e.what()).find("from a parallel nest's worker thread") != std::string::npos) ++guarded;
      }
    }
    return f;
  });
  UModule out;
  {
    auto scope = ctx.enter();
    out = pi::run(pi::DynamicSequential<UModule>{pi::AnyPass<UModule>(DNest{Work{}, check})},
                  make_umodule(nullptr, {"f0", "f1", "f2", "f3"}), ctx);
  }
  g_meet = nullptr;
  CHECK(meet.timeouts == 0);
  CHECK(wrong == 0);
  CHECK(on_workers >= 1);  // f0 waited for f1: f1 ran on the worker
  CHECK(guarded == on_workers);
  CHECK(describe(out) == "f0:1:;f1:1:;f2:1:;f3:1:;");
}

TEST_CASE("DynamicNest: ContextRef<Unit> gives the parent, parent_as<P>() checks the type") {
  struct Other {};
  std::string seen;
  const pi::AnyPass<UFunc> probe = pi::module_pass(pi::PassInfo{"Probe", 0}, [&](UFunc f, auto& ctx) {
    static_assert(std::is_same_v<decltype(ctx.parent()), const UModule&>);
    seen += std::string(ctx.unit_name()) + "=v" + std::to_string(ctx.template parent_as<UModule>().version) + ";";
    CHECK(&ctx.parent() == &ctx.template parent_as<UModule>());
    CHECK_THROWS_WITH_AS((void)ctx.template parent_as<Other>(), doctest::Contains("the nest's parent is a "),
                         pi::Error);
    return f;
  });
  auto ctx = pi::make_pass_context<UModule>({});
  (void)pi::run(DNest{probe}, make_umodule(nullptr, {"f0", "f1"}, 7), ctx);
  CHECK(seen == "@f0=v7;@f1=v7;");
  // Outside a nest there is no parent.
  auto fctx = pi::make_pass_context<UFunc>({});
  pi::ContextRef<UFunc> ref(fctx);
  CHECK_THROWS_WITH_AS((void)ref.parent(), doctest::Contains("not a unit's context"), pi::Error);
}

namespace {

// A module registry with the nest kind `function` over its own function registry.
struct Registries {
  pi::PassRegistry<UFunc> functions;
  pi::PassRegistry<UModule> modules;
  Registries() {
    functions.add<UStep<"P">>();
    functions.add<UStep<"Q">>();
    functions.add<UStep<"CanonicalizeOps">>();
    functions.add<NeedsR>();
    functions.add<UStep<"R">>();
    modules.add<UModuleStep<"M">>();
    modules.add<UModuleStep<"ToANormalForm">>();
    modules.add_nest<UFunc>(functions);
  }
};

std::string error_of(const std::string& text, const pi::PassRegistry<UModule>& registry) {
  try {
    (void)pi::parse_pipeline<UModule>(text, registry);
  } catch (const pi::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("DynamicNest in pipeline text: canonical text, round trips, options, adjacent nests kept apart") {
  Registries r;
  r.modules.add_nest<UFunc>(r.functions, "fn");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"sequential(M,function(P,Q),M)", "sequential(M,function(P,Q),M)"},
      {"sequential( function(P) , function(Q) )", "sequential(function(P),function(Q))"},
      {"function(serial=true,opt_level=1,name=\"fo\",P)", "function(name=\"fo\",opt_level=1,serial=true,P)"},
      {"function(name=\"function\",opt_level=0,serial=false,P)", "function(P)"},
      {"fn(name=\"fn\",P)", "fn(P)"},
      {"fn(name=\"function\",P)", "fn(name=\"function\",P)"},
      {"function(serial=false)", "function(serial=false)"},
      {"function()", "function"},
      {"function(sequential(name=\"s\",P),NeedsR)", "function(sequential(name=\"s\",P),NeedsR)"},
      {"sequential(opt_level=0,name=\"sequential\",M)", "sequential(M)"},
  };
  for (const auto& [text, canonical] : cases) {
    CAPTURE(text);
    CHECK(pi::canonical_pipeline(text) == canonical);
    const auto pipeline = pi::parse_pipeline<UModule>(text, r.modules);
    CHECK(pi::print_pipeline(pipeline) == canonical);
    CHECK(pi::print_pipeline(pi::parse_pipeline<UModule>(canonical, r.modules)) == canonical);
  }
  // The options reach the nest.
  const auto p = pi::parse_pipeline<UModule>("function(name=\"fo\",opt_level=1,serial=true,P)", r.modules);
  CHECK(p.info().name == "fo");
  CHECK(p.info().opt_level == 1);
  CHECK(pi::parse_pipeline<UModule>("fn(P)", r.modules).info().name == "fn");
  // A DynamicNest made in code prints too (UModule lists UFunc as a unit type).
  const pi::DynamicSequential<UModule> code{
      UModuleStep<"M">{}, pi::AnyPass<UModule>(DNest({r.functions.create("P")}, pi::NestOptions{true}))};
  CHECK(pi::print_pipeline(code) == "sequential(M,function(serial=true,P))");
  // Registry passes keep default-looking options: they take no passes.
  CHECK(pi::canonical_pipeline("X(opt_level=0,serial=false)") == "X(opt_level=0,serial=false)");
}

TEST_CASE("DynamicNest in pipeline text: runs with the static Nest's events") {
  Registries r;
  const auto parsed = pi::parse_pipeline<UModule>("sequential(M,function(P,NeedsR),M)", r.modules);
  const auto expected = events_of(
      pi::Sequential<UModuleStep<"M">, pi::Nest<UFunc, UStep<"P">, NeedsR>, UModuleStep<"M">>{}, {"f0", "!g", "f1"});
  CHECK(expected.size() > 30);
  CHECK(events_of(parsed, {"f0", "!g", "f1"}) == expected);
  // Statistics and nesting see through the nest.
  CHECK(parsed.nesting_depth() == 3);
}

TEST_CASE("DynamicNest in pipeline text: a pass of the wrong level is an error at its column (SPEC §11.11)") {
  Registries r;
  CHECK(error_of("sequential(M,CanonicalizeOps)", r.modules) ==
        "passinfra: pipeline text, column 14: 'CanonicalizeOps' is a function pass: nest it, as "
        "function(CanonicalizeOps)\n"
        "  sequential(M,CanonicalizeOps)\n"
        "               ^");
  CHECK(error_of("sequential(M,function(P,ToANormalForm))", r.modules) ==
        "passinfra: pipeline text, column 25: 'ToANormalForm' is not a function pass\n"
        "  sequential(M,function(P,ToANormalForm))\n"
        "                          ^");
  // The level error comes first, also for a misplaced pass written with items.
  CHECK(error_of("function(ToANormalForm(P))", r.modules)
            .rfind("passinfra: pipeline text, column 10: 'ToANormalForm' is not a function pass\n", 0) == 0);
  CHECK(error_of("sequential(CanonicalizeOps(P))", r.modules)
            .rfind("passinfra: pipeline text, column 12: 'CanonicalizeOps' is a function pass: nest it", 0) == 0);
  // Unknown inside a nest: the closest names come from the unit registry.
  const std::string unknown = error_of("function(P,NeedR)", r.modules);
  CHECK(unknown.find("column 12: unknown pass name 'NeedR'") != std::string::npos);
  CHECK(unknown.find("'NeedsR'") != std::string::npos);
  CHECK(unknown.find("'ToANormalForm'") == std::string::npos);
  // Unknown at the parent level, registered nowhere: the parent registry's names.
  const std::string top = error_of("sequential(ToANormalFrom)", r.modules);
  CHECK(top.find("column 12: unknown pass name 'ToANormalFrom'") != std::string::npos);
  CHECK(top.find("'ToANormalForm'") != std::string::npos);
  // A nest kind's options.
  CHECK(error_of("function(serial=1,P)", r.modules)
            .find("column 10: option 'serial' of 'function' expects a boolean, but was given an integer (1)") !=
        std::string::npos);
  CHECK(
      error_of("function(opt_level=\"x\",P)", r.modules).find("column 10: option 'opt_level' of 'function' expects") !=
      std::string::npos);
  const std::string bad_key = error_of("function(seriall=true,P)", r.modules);
  CHECK(bad_key.find("column 10: 'function' has no option 'seriall'; expected name=\"...\", opt_level=N or "
                     "serial=true|false, or a function pass") != std::string::npos);
  CHECK(bad_key.find("'serial'") != std::string::npos);
  // Passes as items only for sequential and nest kinds.
  CHECK(error_of("M(P)", r.modules).find("(only 'sequential' and nest kinds such as 'function' take passes)") !=
        std::string::npos);
}

TEST_CASE("DynamicNest registry: add_nest names, aliases, and names registered twice") {
  Registries r;
  CHECK(r.modules.contains_nest("function"));
  CHECK(r.modules.contains("function"));
  CHECK(r.modules.nest_names() == std::vector<std::string>{"function"});
  CHECK(r.modules.names() == std::vector<std::string>{"M", "ToANormalForm"});
  r.modules.add_nest<UFunc>(r.functions);  // the same again: a no-op
  r.modules.add_nest<UFunc>(r.functions, "fn");
  CHECK(r.modules.nest_names() == std::vector<std::string>{"fn", "function"});
  pi::PassRegistry<UFunc> other;
  CHECK_THROWS_WITH_AS(r.modules.add_nest<UFunc>(other),
                       "passinfra: PassRegistry::add_nest: nest kind 'function' is already registered over another "
                       "unit type or unit registry; expected each name to be registered once",
                       pi::Error);
  CHECK_THROWS_WITH_AS(r.modules.add_nest<UFunc>(r.functions, "M"),
                       "passinfra: PassRegistry::add_nest: 'M' is already registered as a pass; expected each name "
                       "to be registered once",
                       pi::Error);
  CHECK_THROWS_WITH_AS(r.modules.add<UModuleStep<"fn">>(),
                       "passinfra: PassRegistry::add: 'fn' is already registered as a nest kind; expected each name "
                       "to be registered once",
                       pi::Error);
  CHECK_THROWS_AS(r.modules.add_nest<UFunc>(r.functions, "sequential"), pi::Error);
  CHECK_THROWS_AS(r.modules.add_nest<UFunc>(r.functions, "no way"), pi::Error);
  // The default unit registry is PassRegistry<UFunc>::global().
  pi::PassRegistry<UModule> modules;
  modules.add_nest<UFunc>();
  pi::PassRegistry<UFunc>::global().add<UStep<"G">>();
  CHECK(pi::print_pipeline(pi::parse_pipeline<UModule>("function(G)", modules)) == "function(G)");
  CHECK(error_of("sequential(G)", modules).find("'G' is a function pass: nest it, as function(G)") !=
        std::string::npos);
}

TEST_CASE(
    "AnyInstrument<Parent> forwards the unit types' pass and pipeline hooks: a run-time list sees a nest's units") {
  const std::vector<std::string> fns{"f0", "!p", "f1", "f2"};
  const auto with_units = [](const std::vector<std::string>& events) {
    return std::count_if(events.begin(), events.end(), [](const std::string& e) {
      return e.find("before(f") != std::string::npos || e.find("pipeline(") != std::string::npos;
    });
  };
  const auto ok = events_of(pi::nest<UFunc>(UStep<"A">{}, UStep<"B">{}), fns);
  CHECK(with_units(ok) > 10);
  CHECK(events_of_erased(pi::nest<UFunc>(UStep<"A">{}, UStep<"B">{}), fns) == ok);
  CHECK(events_of_erased(DNest{UStep<"A">{}, UStep<"B">{}}, fns) == ok);
  const pi::PassContextOptions options{.opt_level = 2, .disabled_pass = {"Off"}};
  const auto gated = pi::nest<UFunc>(pi::PassInfo{"fn", 1}, UStep<"A">{}, UStep<"Hi", 3>{}, UStep<"Off">{}, NeedsR{});
  CHECK(events_of_erased(gated, fns, options) == events_of(gated, fns, options));
  const auto failing = pi::nest<UFunc>(UStep<"A">{}, UThrow<"T", "@f1">{}, UStep<"B">{});
  const auto failed = events_of(failing, fns);
  CHECK(std::find(failed.begin(), failed.end(), "A.pipeline_failed(@f1,1)") != failed.end());
  CHECK(events_of_erased(failing, fns) == failed);

  // What a nest asks a list's item: unit hooks, thread-safety.
  EventLog log;
  UHooks hooks{"H", &log};
  ModuleOnlyHooks module_only{&log};
  const pi::AnyInstrument<UModule> erased(std::ref(hooks)), parent_only(std::ref(module_only));
  CHECK(erased.has_unit_hooks());
  CHECK_FALSE(parent_only.has_unit_hooks());
  CHECK_FALSE(erased.thread_safe());
  UFunc f{"f", 0, {}, false};
  CHECK(erased.should_run(f, pi::PassInfo{"P", 0}));
  CHECK(log.events == std::vector<std::string>{"H.should_run(f,P)"});
}
