// DynamicNest<Parent, Unit> (docs/spec.md §11, DESIGN "The dynamic adaptor
// and text"): event for event the static Nest, serial and on an executor,
// directly and erased (AnyPass<Parent> inside DynamicSequential and static
// Sequential); ContextRef<Unit>'s parent() / parent_as<P>(); the registry's
// nest kinds and nests in pipeline text (SPEC §11.11); tinyir's function nest.
#include <doctest/doctest.h>

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
  Meet meet;
  g_meet = &meet;
  const pi::AnyPass<UFunc> check = pi::module_pass(pi::PassInfo{"Check", 0}, [&](UFunc f, auto&) {
    if (&pi::PassContext<UModule>::current() != &ctx) ++wrong;
    try {
      ctx.override_instruments({});
    } catch (const pi::Error&) {
      ++guarded;  // only on the worker (SPEC §11.9)
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
  CHECK(guarded >= 1);
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
