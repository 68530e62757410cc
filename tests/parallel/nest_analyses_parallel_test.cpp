// Analyses inside parallel nests (docs/spec.md §11.13), static and dynamic
// layers: with an executor and a manager the units really run at once (a
// bounded rendezvous that a serial run would miss), each unit's function
// results are computed and cached on its own thread, module results are read
// only, the output (log and the analysis hooks of an instrument whose only
// effect is output) is the serial run's line for line, the manager after the
// nest holds what the serial run's holds, in the same order, and failures
// leave it empty as a serial run does. An instrument with analysis hooks that
// is not thread-safe keeps the units serial, with the INFO line.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <passinfra/dynamic.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "support/analysis_ir.hpp"
#include "support/nest_analyses.hpp"

using namespace pitest;
namespace pi = passinfra;

namespace {

constexpr auto kDeadline = std::chrono::seconds(20);

void say(const std::string& line) { pi::log(pi::LogLevel::info, line); }

// Which thread did what ("Meet@f", "FunctionSum@f"), and a two-party meeting with a bounded wait.
struct Threads {
  std::mutex m;
  std::condition_variable cv;
  std::map<std::string, std::thread::id> seen;
  int arrived = 0;
  int missed = 0;  // meetings that timed out (the units did not run at once)
  void note(const std::string& what) {
    const std::lock_guard lock(m);
    seen[what] = std::this_thread::get_id();
  }
  void meet() {
    std::unique_lock lock(m);
    ++arrived;
    cv.notify_all();
    if (!cv.wait_for(lock, kDeadline, [&] { return arrived >= 2; })) ++missed;
  }
};
Threads* g_threads = nullptr;

// An instrument whose only effect is output: every unit pass hook and
// analysis hook is a log line (held back per unit in parallel mode).
struct TextRec {
  static constexpr bool thread_safe = true;
  void run_before_pass(const AFunc& f, const pi::PassInfo& info) {
    say("r before_pass " + std::string(info.name) + "@" + f.name);
  }
  void run_after_pass(const AFunc& f, const pi::PassInfo& info) {
    say("r after_pass " + std::string(info.name) + "@" + f.name);
  }
  void run_before_pass(const AModule&, const pi::PassInfo& info) { say("r before_pass " + std::string(info.name)); }
  void run_after_pass(const AModule&, const pi::PassInfo& info) { say("r after_pass " + std::string(info.name)); }
  void run_after_pass_failed(const pi::PassInfo& info, const std::exception_ptr&) {
    say("r after_pass_failed " + std::string(info.name));
  }
  void run_before_analysis(const AModule&, const pi::AnalysisInfo& info) {
    if (g_threads != nullptr) g_threads->note(analysis_text(info));
    say("r before_analysis " + analysis_text(info));
  }
  void run_after_analysis(const AModule&, const pi::AnalysisInfo& info) {
    say("r after_analysis " + analysis_text(info));
  }
  void run_after_analysis_failed(const pi::AnalysisInfo& info, const std::exception_ptr&) {
    say("r analysis_failed " + analysis_text(info));
  }
  void run_analysis_invalidated(const pi::AnalysisInfo& info) { say("r invalidated " + analysis_text(info)); }
};

// An instrument with analysis hooks only, not declared thread-safe.
struct AnalysisOnly {
  int computed = 0;
  void run_after_analysis(const AModule&, const pi::AnalysisInfo&) { ++computed; }
};

// Unit passes that log instead of writing the parent's EventLog (Ps...: preserves).
template <Name N, class... Ps>
struct LUse {
  static constexpr pi::PassInfo info{N.view(), 0};
  using preserves = pi::preserves<Ps...>;
  AFunc transform(AFunc f, auto& ctx) const {
    const long a = ctx.analyses().template get<FunctionSum>(ctx.parent(), f);
    say(std::string(N.view()) + "@" + f.name + "=" + std::to_string(a));
    return f;
  }
};
template <Name N, class... Ps>
struct LUseSize {
  static constexpr pi::PassInfo info{N.view(), 0};
  using preserves = pi::preserves<Ps...>;
  AFunc transform(AFunc f, auto& ctx) const {
    const long b = ctx.analyses().template get<FunctionSize>(ctx.parent(), f);
    const bool cached = ctx.analyses().template get_cached<FunctionSize>(f) != nullptr;
    say(std::string(N.view()) + "@" + f.name + "=" + std::to_string(b) + " cached=" + std::to_string(cached));
    return f;
  }
};
// Marks FunctionSum preserved (declaring nothing) after reading it by name; logs whether it is cached.
struct LMark {
  static constexpr pi::PassInfo info{"Mark", 0};
  AFunc transform(AFunc f, auto& ctx) const {
    const long a = ctx.analyses().get("FunctionSum", ctx.parent(), f).template get<long>();
    ctx.analyses().template preserve<FunctionSum>();
    if (f.name == "g") ctx.analyses().template abandon<FunctionSum>();
    say("Mark@" + f.name + "=" + std::to_string(a) +
        " cached=" + std::to_string(ctx.analyses().template get_cached<FunctionSum>(f) != nullptr));
    return f;
  }
};
// Meets another unit inside its body (both bodies at once), having computed FunctionSum.
struct Meet {
  static constexpr pi::PassInfo info{"Meet", 0};
  using preserves = pi::preserves<FunctionSum>;
  AFunc transform(AFunc f, auto& ctx) const {
    const long a = ctx.analyses().template get<FunctionSum>(ctx.parent(), f);
    g_threads->note("Meet@" + f.name);
    if (f.name == "f" || f.name == "g") g_threads->meet();
    say("Meet@" + f.name + "=" + std::to_string(a));
    return f;
  }
};
// Reads module results: cached ones, and an uncached one (an Error).
struct LReadModule {
  static constexpr pi::PassInfo info{"RM", 0};
  using preserves = pi::preserves_all;
  AFunc transform(AFunc f, auto& ctx) const {
    const long* cached = ctx.analyses().template get_cached_parent<ModuleSum>();
    const long& got = ctx.analyses().template get<ModuleSum>(ctx.parent());
    say("RM@" + f.name + " parent=" + std::to_string(got) + " same=" + std::to_string(cached == &got));
    try {
      (void)ctx.analyses().template get<Derived>(ctx.parent());
      say("RM@" + f.name + " computed Derived");
    } catch (const pi::Error& e) {
      say("RM@" + f.name + " error=" + e.what());
    }
    return f;
  }
};
// Throws TestError(id) on the functions named A and B (after getting FunctionSum).
// Not throw_test_error: its last_thrown is one global, written here by two units' threads at once.
template <Name A, Name B>
struct LThrowOn {
  static constexpr pi::PassInfo info{"T", 0};
  AFunc transform(AFunc f, auto& ctx) const {
    (void)ctx.analyses().template get<FunctionSum>(ctx.parent(), f);
    say("T@" + f.name);
    if (f.name == A.view()) throw TestError(1, "T failed on " + f.name);
    if (f.name == B.view()) throw TestError(2, "T failed on " + f.name);
    return f;
  }
};
// Asks for another function's result.
struct LOther {
  static constexpr pi::PassInfo info{"Other", 0};
  using preserves = pi::preserves_all;
  AFunc transform(AFunc f, auto& ctx) const {
    if (f.name == "g") (void)ctx.analyses().template get<FunctionSum>(ctx.parent(), ctx.parent().functions.at(0));
    return f;
  }
};

// A module with 8 units (f, g, h, u0..u4) and one external function.
AModule module8() {
  AModule m = make_module();
  for (int i = 0; i < 5; ++i) m.functions.push_back({"u" + std::to_string(i), {i, i + 1, 7}, false});
  m.functions.push_back({"ext", {4}, true});
  return m;
}

struct Outcome {
  Events lines;         // everything logged, in order, but the nest's DEBUG lines for dropped exceptions
  Events dropped;       // those (SPEC §11.6: a later unit's exception, when that unit ran; never serially)
  Events cached;        // the manager after the nest, in storage order
  int error = 0;        // the TestError id that left the nest (0: none)
  std::string failure;  // the passinfra::Error that left it (empty: none)
  bool empty = false;
};

// The manager before the nest: ModuleSum, FunctionSum@u1 (earlier, so its
// place in the list shows), Tagged, Derived (reads ModuleSum), FunctionSize@u3
// (reads ModuleSum), FunctionSum@ext.
template <class M>
void prefill(M& am, const AModule& m, bool derived) {
  am.template get<ModuleSum>(m);
  am.template get<FunctionSum>(m, m.functions[4]);
  am.template get<Tagged>(m);
  if (derived) am.template get<Derived>(m);
  am.template get<FunctionSize>(m, m.functions[6]);
  am.template get<FunctionSum>(m, m.functions[8]);
}

template <class Nest, class MakeCtx>
Outcome run_nest(const Nest& nest, pi::ExecutorRef executor, MakeCtx make_ctx, bool derived = true) {
  Outcome out;
  NestManager am;
  const AModule m = module8();
  prefill(am, m, derived);
  {
    const pi::ScopedLogSink sink([&](pi::LogLevel level, std::string_view message) {
      const bool dropped =
          level == pi::LogLevel::debug && message.find(": dropped the exception of unit '") != std::string_view::npos;
      (dropped ? out.dropped : out.lines).emplace_back(message);
    });
    auto ctx = make_ctx(am, executor);
    try {
      (void)pi::run(nest, m, ctx);
    } catch (const TestError& e) {
      out.error = e.id;
    } catch (const pi::Error& e) {
      out.failure = e.what();
    }
  }
  out.cached = cached(am);
  out.empty = am.empty();
  return out;
}

auto static_ctx(TextRec& r) {
  return [&r](NestManager& am, pi::ExecutorRef executor) {
    return pi::make_pass_context<AModule>({.executor = executor}, am, std::ref(r));
  };
}
auto dynamic_ctx(TextRec& r) {
  return [&r](NestManager& am, pi::ExecutorRef executor) {
    return pi::PassContext<AModule>({.executor = executor}, {pi::AnyInstrument<AModule>(std::ref(r))}, &am);
  };
}

long count_line(const Events& lines, const std::string& line) { return std::count(lines.begin(), lines.end(), line); }

}  // namespace

TEST_CASE("parallel nest analyses: units run at once, each function result computed and cached on its unit's thread") {
  pi::ThreadPool pool(2);
  auto check = [&](const auto& nest, auto make_ctx) {
    Threads threads;
    g_threads = &threads;
    const Outcome got = run_nest(nest, pool, make_ctx);
    g_threads = nullptr;
    CHECK(threads.missed == 0);  // f and g were in their bodies at the same time
    CHECK(got.error == 0);
    for (const char* fn : {"f", "g", "h", "u0", "u2", "u4"}) {
      CAPTURE(fn);
      REQUIRE(threads.seen.count("Meet@" + std::string(fn)) == 1);
      REQUIRE(threads.seen.count("FunctionSum@" + std::string(fn)) == 1);
      CHECK(threads.seen["FunctionSum@" + std::string(fn)] == threads.seen["Meet@" + std::string(fn)]);
    }
    CHECK(threads.seen["Meet@f"] != threads.seen["Meet@g"]);
    // Cached per unit: the second pass reused each unit's result (one computation each).
    CHECK(count_line(got.lines, "r before_analysis FunctionSum@g") == 1);
    CHECK(count_line(got.lines, "U@g=30") == 1);
    // No INFO line about running serially.
    for (const auto& line : got.lines) CHECK(line.find("serially") == std::string::npos);
  };
  TextRec r;
  check(pi::Nest<AFunc, Meet, LUse<"U", FunctionSum>>{}, static_ctx(r));
  check(pi::DynamicNest<AModule, AFunc>{Meet{}, LUse<"U", FunctionSum>{}}, dynamic_ctx(r));
}

TEST_CASE("parallel nest analyses: output and cache identical to the serial run; one module invalidation after it") {
  TextRec r;
  pi::ThreadPool pool2(2);
  pi::ThreadPool pool3(3);
  auto check = [&](const auto& nest, auto make_ctx) {
    Outcome serial = run_nest(nest, {}, make_ctx);
    for (int round = 0; round < 3; ++round) {
      const Outcome p2 = run_nest(nest, pool2, make_ctx);
      const Outcome p3 = run_nest(nest, pool3, make_ctx);
      CHECK(p2.lines == serial.lines);
      CHECK(p3.lines == serial.lines);
      CHECK(p2.cached == serial.cached);
      CHECK(p3.cached == serial.cached);
    }
    return serial;
  };
  // A keeps FunctionSum, FunctionSize and Tagged; B (FunctionSize: reads ModuleSum) keeps FunctionSum,
  // FunctionSize and Tagged: the intersection drops ModuleSum and Derived after the nest, and by the
  // cascade every FunctionSize (they read ModuleSum), never FunctionSum.
  using S =
      pi::Nest<AFunc, LUse<"A", FunctionSum, FunctionSize, Tagged>, LUseSize<"B", FunctionSum, FunctionSize, Tagged>>;
  const Outcome serial = check(S{}, static_ctx(r));
  const Outcome dyn = check(pi::DynamicNest<AModule, AFunc>{LUse<"A", FunctionSum, FunctionSize, Tagged>{},
                                                            LUseSize<"B", FunctionSum, FunctionSize, Tagged>{}},
                            dynamic_ctx(r));
  CHECK(dyn.cached == serial.cached);
  // FunctionSum@u1 kept its place before Tagged; FunctionSum@ext (not a unit) too; the units' new
  // results follow in unit order.
  CHECK(serial.cached == Events{"FunctionSum@u1", "Tagged", "FunctionSum@ext", "FunctionSum@f", "FunctionSum@g",
                                "FunctionSum@h", "FunctionSum@u0", "FunctionSum@u2", "FunctionSum@u3",
                                "FunctionSum@u4"});
  // The module invalidation: once, after the last unit's output, before the nest's run_after_pass.
  // (FunctionSize@u3, cached before the nest and kept by its unit, is in its place: before the new ones.)
  const Events tail{"r invalidated ModuleSum",       "r invalidated Derived",         "r invalidated FunctionSize@u3",
                    "r invalidated FunctionSize@f",  "r invalidated FunctionSize@g",  "r invalidated FunctionSize@h",
                    "r invalidated FunctionSize@u0", "r invalidated FunctionSize@u1", "r invalidated FunctionSize@u2",
                    "r invalidated FunctionSize@u4", "r after_pass function"};
  REQUIRE(serial.lines.size() > tail.size());
  CHECK(Events(serial.lines.end() - static_cast<long>(tail.size()), serial.lines.end()) == tail);
  CHECK(count_line(serial.lines, "B@u3=3 cached=1") == 1);  // FunctionSize@u3 was cached before the nest
  // Marks made in a parallel unit apply to its pass (by name, and abandon over preserve on g).
  const Outcome marks = check(pi::Nest<AFunc, LMark, LUse<"U">, LMark>{}, static_ctx(r));
  CHECK(count_line(marks.lines, "r invalidated FunctionSum@g") == 3);
  CHECK(count_line(marks.lines, "r invalidated FunctionSum@h") == 1);
  // The intersection (Mark keeps FunctionSum, U nothing) drops every module result after the nest.
  CHECK(marks.cached == Events{"FunctionSum@ext", "FunctionSum@f", "FunctionSum@h", "FunctionSum@u0", "FunctionSum@u1",
                               "FunctionSum@u2", "FunctionSum@u3", "FunctionSum@u4"});
  (void)check(pi::DynamicNest<AModule, AFunc>{LMark{}, LUse<"U">{}, LMark{}}, dynamic_ctx(r));
}

TEST_CASE("parallel nest analyses: module results are read-only; an uncached one is the SPEC's Error") {
  TextRec r;
  pi::ThreadPool pool(2);
  auto check = [&](const auto& nest, auto make_ctx) {
    const Outcome serial = run_nest(nest, {}, make_ctx, false);
    Outcome parallel = run_nest(nest, pool, make_ctx, false);
    CHECK(parallel.lines == serial.lines);
    CHECK(parallel.cached == serial.cached);
    return parallel;
  };
  const Outcome s = check(pi::Nest<AFunc, LReadModule>{}, static_ctx(r));
  CHECK(count_line(s.lines, "RM@u2 parent=" + std::to_string(ModuleSum{}.run(module8())) + " same=1") == 1);
  CHECK(count_line(s.lines,
                   "RM@u2 error=passinfra: module analysis 'Derived' cannot be computed inside nest 'function' (unit "
                   "'@u2'); compute it before the nest, e.g. with require(analysis=\"Derived\")") == 1);
  CHECK(count_line(s.lines, "r before_analysis Derived") == 0);
  const Outcome d = check(pi::DynamicNest<AModule, AFunc>{LReadModule{}}, dynamic_ctx(r));
  CHECK(count_line(d.lines, "RM@u2 parent=" + std::to_string(ModuleSum{}.run(module8())) + " same=1") == 1);
}

TEST_CASE("parallel nest analyses: a failing unit: the lowest one's exception, the manager emptied as in serial") {
  TextRec r;
  pi::ThreadPool pool(2);
  auto check = [&](const auto& nest, auto make_ctx) {
    Outcome serial = run_nest(nest, {}, make_ctx);
    CHECK(serial.error == 1);
    CHECK(serial.empty);
    CHECK(serial.dropped.empty());
    for (int round = 0; round < 5; ++round) {
      const Outcome parallel = run_nest(nest, pool, make_ctx);
      CHECK(parallel.error == 1);
      CHECK(parallel.empty);
      CHECK(parallel.lines == serial.lines);
      // u3 may have started before u0 failed (SPEC §11.6): then its exception is dropped, with the
      // nest's DEBUG line (not u3's output, which is discarded), after the manager was emptied.
      if (!parallel.dropped.empty()) {
        CHECK(parallel.dropped == Events{"function: dropped the exception of unit '@u3': T failed on u3; unit '@u0' "
                                         "failed first."});
      }
    }
    return serial;
  };
  // T fails on u0 (error 1) and on u3 (error 2): u0's exception leaves, u3's (if it ran) is dropped.
  using S = pi::Nest<AFunc, LUse<"U", FunctionSum>, LThrowOn<"u0", "u3">>;
  const Outcome s = check(S{}, static_ctx(r));
  // The failing pass emptied the manager (every result once, in storage order) before its
  // run_after_pass_failed, and the nest's came after.
  const Events tail{"T@u0",
                    "r invalidated ModuleSum",
                    "r invalidated FunctionSum@u1",
                    "r invalidated Tagged",
                    "r invalidated Derived",
                    "r invalidated FunctionSize@u3",
                    "r invalidated FunctionSum@ext",
                    "r invalidated FunctionSum@u0",
                    "r after_pass_failed T",
                    "r after_pass_failed function"};
  REQUIRE(s.lines.size() > tail.size());
  CHECK(Events(s.lines.end() - static_cast<long>(tail.size()), s.lines.end()) == tail);
  const Outcome d =
      check(pi::DynamicNest<AModule, AFunc>{LUse<"U", FunctionSum>{}, LThrowOn<"u0", "u3">{}}, dynamic_ctx(r));
  CHECK(d.error == 1);
}

TEST_CASE("parallel nest analyses: a unit-level hook that throws: the manager emptied after the unit's output") {
  pi::ThreadPool pool(2);
  struct BadHook : TextRec {
    using TextRec::run_before_pass;
    void run_before_pass(const AFunc& f, const pi::PassInfo& info) {
      TextRec::run_before_pass(f, info);
      if (f.name == "u1" && info.name == std::string_view("U2")) throw TestError(1, "hook failed");
    }
  };
  BadHook bad;
  auto make_ctx = [&](NestManager& am, pi::ExecutorRef executor) {
    return pi::make_pass_context<AModule>({.executor = executor}, am, std::ref(bad));
  };
  using S = pi::Nest<AFunc, LUse<"U1", FunctionSum>, LUse<"U2", FunctionSum>>;
  const Outcome serial = run_nest(S{}, {}, make_ctx);
  CHECK(serial.error == 1);
  CHECK(serial.empty);
  for (int round = 0; round < 5; ++round) {
    const Outcome parallel = run_nest(S{}, pool, make_ctx);
    CHECK(parallel.error == 1);
    CHECK(parallel.empty);
    CHECK(parallel.lines == serial.lines);
    CHECK(parallel.dropped.empty());  // only u1 throws
  }
  REQUIRE(serial.lines.size() >= 2);
  CHECK(serial.lines.back() == "r after_pass_failed function");
  CHECK(count_line(serial.lines, "r invalidated FunctionSum@u0") == 1);
}

TEST_CASE("parallel nest analyses: an instrument with analysis hooks that is not thread-safe keeps units serial") {
  pi::ThreadPool pool(2);
  NestManager am;
  AnalysisOnly only;
  std::vector<std::string> lines;
  std::vector<std::thread::id> threads;
  {
    const pi::ScopedLogSink sink([&](pi::LogLevel level, std::string_view message) {
      if (level == pi::LogLevel::info) lines.emplace_back(message);
    });
    FThreadOf::seen().clear();
    auto ctx = pi::make_pass_context<AModule>({.executor = pool}, am, std::ref(only));
    (void)pi::run(pi::Nest<AFunc, FUse<"U", FunctionSum>, FThreadOf>{}, module8(), ctx);
    threads = FThreadOf::seen();
    FThreadOf::seen().clear();
    pi::PassContext<AModule> dctx({.executor = pool}, {pi::AnyInstrument<AModule>(std::ref(only))}, &am);
    (void)pi::run(pi::DynamicNest<AModule, AFunc>{FUse<"U", FunctionSum>{}, FThreadOf{}}, module8(), dctx);
    for (const auto& t : FThreadOf::seen()) threads.push_back(t);
    FThreadOf::seen().clear();
  }
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("function: running units serially: instrument '") == 0);
  CHECK(lines[0].find("AnalysisOnly' is not thread-safe.") != std::string::npos);
  CHECK(lines[1] == lines[0]);
  REQUIRE(threads.size() == 16);
  for (const auto& t : threads) CHECK(t == std::this_thread::get_id());
  CHECK(only.computed == 8);  // the dynamic nest reused the static one's results
}

TEST_CASE("parallel nest analyses: another unit's function result is an Error, the serial run's") {
  pi::ThreadPool pool(2);
  TextRec r;
  auto check = [&](const auto& nest, auto make_ctx) {
    const Outcome serial = run_nest(nest, {}, make_ctx);
    for (int round = 0; round < 3; ++round) {
      const Outcome parallel = run_nest(nest, pool, make_ctx);
      CHECK(parallel.lines == serial.lines);
      CHECK(parallel.failure == serial.failure);
      CHECK(parallel.empty);
    }
    CHECK(serial.failure == other_function_error("@g", "FunctionSum", "f"));
    // No hook fired for f's result (cached before the nest in neither run: run_nest's prefill has none).
    CHECK(count_line(serial.lines, "r before_analysis FunctionSum@f") == 0);
    CHECK(serial.empty);
    REQUIRE(!serial.lines.empty());
    CHECK(serial.lines.back() == "r after_pass_failed function");
  };
  check(pi::Nest<AFunc, LOther>{}, static_ctx(r));
  check(pi::DynamicNest<AModule, AFunc>{LOther{}}, dynamic_ctx(r));
}

TEST_CASE("parallel nest analyses: timing shows an analysis under the unit pass that requested it, in its unit") {
  pi::ThreadPool pool(2);
  NestManager am;
  pi::PassTimingInstrument timing;
  auto ctx = pi::make_pass_context<AModule>({.executor = pool}, am, std::ref(timing));
  (void)pi::run(pi::Nest<AFunc, LUse<"U1", FunctionSum>, LUse<"U2">>{}, module8(), ctx);
  const auto tree = timing.profile();
  REQUIRE(tree.size() == 1);
  REQUIRE(tree[0].children.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    const auto& unit = tree[0].children[i];
    CAPTURE(unit.name);
    CHECK(unit.unit);
    REQUIRE(unit.children.size() == 2);
    CHECK(unit.children[0].name == "U1");
    REQUIRE(unit.children[0].children.size() == 1);
    CHECK(unit.children[0].children[0].analysis);
    CHECK(unit.children[0].children[0].name == "FunctionSum");
    CHECK("@" + unit.children[0].children[0].function == unit.name);
    CHECK(unit.children[1].children.empty());
  }
}
