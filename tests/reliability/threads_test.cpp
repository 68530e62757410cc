// Threads: per-thread contexts and current(), shared instruments, the global
// registries -- all used concurrently. Meant to run under TSan (`make tsan`).
//
// What passinfra promises (SPEC §2 and DESIGN.md), and what these tests hold it to:
//
// * Contexts are per thread. Each thread has its own stack of entered
//   PassContext<IR>s and its own default context; current() on one thread
//   never sees another thread's contexts, and a new thread inherits nothing.
// * The pass infrastructure itself keeps no shared mutable state on the hot
//   path: running passes touches only the context, the pipeline (immutable;
//   AnyPass copies share it through an atomic reference count) and the
//   instruments. So one pipeline object may be run by many threads at once,
//   and one context may be *run under* by many threads at once (run(p, ir,
//   ctx) only reads it) -- as long as no thread enters, leaves, overrides or
//   clears that context meanwhile (those write its instrument list).
// * Instruments are not synchronized by passinfra. An instrument shared by
//   contexts on several threads (AnyInstrument copies share the object,
//   std::ref shares it in a static set) has its hooks called concurrently, so
//   it must synchronize itself. That is supported and tested below with a
//   self-synchronizing instrument. (Of the library's instruments,
//   PassTimingInstrument records per thread and may be shared; the others say
//   "one thread at a time" in their headers.) An unsynchronized instrument
//   shared across threads is a data race in user code -- not tested, TSan
//   would rightly report it.
// * PassRegistry<IR> (global() or not), the config option registry and the
//   log sink are thread-safe.
// * A thread's default context dies with the thread: instruments installed on
//   it with override_instruments and never removed are released (owned ones
//   destroyed) without their exit hook being called.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using Ctx = passinfra::PassContext<TestIR>;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::DynamicSequential;
using passinfra::Sequential;

namespace {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kRuns = 300;
#else
constexpr int kRuns = 1000;
#endif
constexpr int kThreads = 4;

using P0 = TestPass<"T0", 0>;
using P1 = TestPass<"T1", 1>;
using P2 = TestPass<"T2", 2>;
using P3 = TestPass<"T3", 3, passinfra::requires_passes<P0>>;
using StaticPipeline = Sequential<P0, P1, P2, P3>;

DynamicSequential<TestIR> dynamic_pipeline() { return DynamicSequential<TestIR>{P0{}, P1{}, P2{}, P3{}}; }

// The trail a pipeline of P0..P3 leaves at an opt_level.
std::vector<std::string> expected_trail(int opt_level) {
  std::vector<std::string> t;
  for (int k = 0; k <= opt_level && k < 3; ++k) t.push_back("T" + std::to_string(k));
  if (opt_level >= 3) {
    t.push_back("T0");
    t.push_back("T3");
  }
  return t;
}

// Failures found on a worker thread, reported by the main thread after join.
struct Failures {
  std::mutex mutex;
  std::vector<std::string> list;
  void add(std::string what) {
    std::lock_guard lock(mutex);
    if (list.size() < 20) list.push_back(std::move(what));
  }
};

// A thread-safe log sink: whatever the threads log goes here.
struct SharedLog {
  std::mutex mutex;
  std::vector<std::string> lines;
  passinfra::ScopedLogSink sink{[this](passinfra::LogLevel level, std::string_view message) {
    std::lock_guard lock(mutex);
    lines.push_back(std::string(passinfra::to_string(level)) + " " + std::string(message));
  }};
};

// An instrument that synchronizes itself: atomic counters, and a mutex for
// the per-thread tally. Shared by every thread below.
struct SyncedCounter {
  std::atomic<long> enters{0}, exits{0}, should_runs{0}, befores{0}, afters{0};
  std::mutex mutex;
  std::map<std::thread::id, long> runs_per_thread;

  void enter_pass_ctx() { ++enters; }
  void exit_pass_ctx() { ++exits; }
  bool should_run(const TestIR&, const passinfra::PassInfo&) {
    ++should_runs;
    return true;
  }
  void run_before_pass(const TestIR&, const passinfra::PassInfo&) { ++befores; }
  void run_after_pass(const TestIR&, const passinfra::PassInfo&) {
    ++afters;
    std::lock_guard lock(mutex);
    ++runs_per_thread[std::this_thread::get_id()];
  }
};

// An instrument whose enter_pass_ctx throws; the exception it threw last on
// this thread is kept per thread (support/test_ir.hpp's last_thrown is one
// global, not for threads).
thread_local std::exception_ptr tl_thrown;
struct BadEnter {
  std::string name;
  void enter_pass_ctx() {
    tl_thrown = std::make_exception_ptr(TestError(7, name + " failed in enter_pass_ctx"));
    std::rethrow_exception(tl_thrown);
  }
};

template <class F>
void run_threads(int n, F&& body) {
  std::latch start(n);
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();  // all threads run at once
      body(t);
    });
  }
  for (auto& th : threads) th.join();
}

}  // namespace

TEST_CASE("reliability: threads -- each thread's contexts, current() and pipelines are its own") {
  Failures failures;
  SharedLog log_sink;
  const StaticPipeline shared_static;  // one pipeline object, run by every thread
  const AnyPass<TestIR> shared_dynamic(dynamic_pipeline());

  run_threads(kThreads, [&](int t) {
    const int opt_level = t % 4;
    const auto want = expected_trail(opt_level);
    EventLog log;
    auto a = recorder("A" + std::to_string(t), log);
    auto b = recorder("B" + std::to_string(t), log);
    BadEnter bad{"Bad" + std::to_string(t)};
    const Ctx* def = &Ctx::thread_default();
    std::vector<std::string> first_events;
    for (int i = 0; i < kRuns; ++i) {
      log.clear();
      Ctx ctx({.opt_level = opt_level}, {AnyInstrument<TestIR>(std::ref(a))});
      Ctx inner({.opt_level = 3, .disabled_pass = {"T1"}}, {AnyInstrument<TestIR>(std::ref(b))});
      if (&Ctx::current() != def) failures.add("thread " + std::to_string(t) + ": current() is not the default");
      TestIR out = ctx.with([&] {
        if (&Ctx::current() != &ctx) failures.add("thread " + std::to_string(t) + ": current() is not its context");
        TestIR r = shared_dynamic(TestIR{&log});  // under current()
        inner.with([&] {
          if (&Ctx::current() != &inner) failures.add("thread " + std::to_string(t) + ": inner not current");
          (void)shared_static(TestIR{&log});
        });
        if (&Ctx::current() != &ctx) failures.add("thread " + std::to_string(t) + ": not restored after inner");
        return r;
      });
      if (out.trail != want) failures.add("thread " + std::to_string(t) + ": wrong trail");
      // The same pipeline under a static context of this thread.
      auto sctx = passinfra::make_pass_context<TestIR>({.opt_level = opt_level}, std::ref(a));
      {
        auto scope = sctx.enter();
        if (passinfra::run(shared_static, TestIR{&log}, sctx).trail != want) {
          failures.add("thread " + std::to_string(t) + ": wrong static trail");
        }
        if (&Ctx::current() != def) failures.add("thread " + std::to_string(t) + ": a static context was pushed");
      }
      // The thread's default context, without a scope (SPEC §2 override_instruments).
      Ctx::current().override_instruments({AnyInstrument<TestIR>(std::ref(b))});
      (void)shared_dynamic(TestIR{&log});
      Ctx::current().override_instruments({});
      // A failing enter every so often: nothing pushed, the exception is ours.
      if (i % 16 == 0) {
        Ctx failing({}, {AnyInstrument<TestIR>(std::ref(a)), AnyInstrument<TestIR>(std::ref(bad))});
        try {
          failing.with([] {});
          failures.add("thread " + std::to_string(t) + ": enter did not throw");
        } catch (const TestError&) {
          if (std::current_exception() != tl_thrown) {
            failures.add("thread " + std::to_string(t) + ": another thread's exception");
          }
        }
        if (&Ctx::current() != def) failures.add("thread " + std::to_string(t) + ": failed enter pushed");
        if (!failing.instruments().empty()) failures.add("thread " + std::to_string(t) + ": not cleared");
        log.clear();
        continue;
      }
      // Every run of this thread gives the same events; only its own instruments appear.
      if (i == 1) first_events = log.events;
      if (i > 1 && log.events != first_events) failures.add("thread " + std::to_string(t) + ": events differ");
      for (const auto& e : log.events) {
        const bool own = e.rfind("T", 0) == 0 || e.rfind("A" + std::to_string(t) + " ", 0) == 0 ||
                         e.rfind("B" + std::to_string(t) + " ", 0) == 0;
        if (!own) failures.add("thread " + std::to_string(t) + ": foreign event " + e);
      }
    }
    if (&Ctx::current() != def) failures.add("thread " + std::to_string(t) + ": current() not restored at the end");
    if (!Ctx::thread_default().instruments().empty()) failures.add("thread " + std::to_string(t) + ": default dirty");
  });
  for (const auto& f : failures.list) FAIL_CHECK(f);
  CHECK(failures.list.empty());
  // Each thread's failed enters logged their §5.1 lines through the shared sink.
  std::size_t entering = 0;
  for (const auto& l : log_sink.lines) entering += l == "INFO Pass instrumentation entering pass context failed.";
  CHECK(entering == static_cast<std::size_t>(kThreads * ((kRuns + 15) / 16)));
}

TEST_CASE("reliability: threads -- a self-synchronizing instrument shared by contexts on many threads") {
  auto counter = std::make_shared<SyncedCounter>();
  const AnyInstrument<TestIR> shared(counter);  // copies share the object
  const AnyPass<TestIR> pipeline(dynamic_pipeline());
  const StaticPipeline static_pipeline;
  // One context, never entered, run under by every thread at once (read-only use).
  Ctx common({.opt_level = 3}, {shared});
  Failures failures;

  run_threads(kThreads, [&](int t) {
    for (int i = 0; i < kRuns; ++i) {
      // 1. A dynamic context of this thread, holding a copy of the shared instrument.
      Ctx ctx({.opt_level = 3}, {shared});
      ctx.with([&] { (void)pipeline(TestIR{}); });
      // 2. A static set holding it by reference.
      auto sctx = passinfra::make_pass_context<TestIR>({.opt_level = 3}, std::ref(*counter));
      sctx.with([&] { (void)passinfra::run(static_pipeline, TestIR{}, sctx); });
      // 3. The shared, unentered context.
      if (passinfra::run(pipeline, TestIR{}, common).trail != expected_trail(3)) {
        failures.add("thread " + std::to_string(t) + ": wrong trail under the shared context");
      }
    }
  });
  for (const auto& f : failures.list) FAIL_CHECK(f);
  // Per run: the Sequential and its children P0, P1, P2, R=P0, P3: 6 passes.
  constexpr long runs = static_cast<long>(kThreads) * kRuns * 3;
  CHECK(counter->enters == static_cast<long>(kThreads) * kRuns * 2);
  CHECK(counter->exits == static_cast<long>(kThreads) * kRuns * 2);
  CHECK(counter->should_runs == runs * 6);
  CHECK(counter->befores == runs * 6);
  CHECK(counter->afters == runs * 6);
  CHECK(counter->runs_per_thread.size() == static_cast<std::size_t>(kThreads));
  for (const auto& [id, n] : counter->runs_per_thread) CHECK(n == kRuns * 3 * 6);
}

TEST_CASE("reliability: threads -- a thread's default context dies with it, releasing what it holds") {
  EventLog log;
  std::weak_ptr<EnterExitOnly> watch;
  std::thread t([&] {
    auto owned = std::make_shared<EnterExitOnly>();
    owned->name = "Owned";
    owned->log = &log;
    watch = owned;
    Ctx::current().override_instruments({AnyInstrument<TestIR>(std::move(owned))});
    // the thread ends without override_instruments({})
  });
  t.join();
  CHECK(watch.expired());                                    // released, not leaked
  CHECK(join(log.events, " / ") == "Owned enter_pass_ctx");  // and not exited (no scope, SPEC §5.3)
  CHECK(Ctx::thread_default().instruments().empty());        // this thread's default was never touched
}

namespace {

using Reg = passinfra::PassRegistry<TestIR>;
using SharedA = TestPass<"ThreadsSharedA", 1>;
using SharedB = TestPass<"ThreadsSharedB", 2, passinfra::requires_passes<SharedA>>;

struct NamedPass {
  int k = 0;
  passinfra::PassInfo info() const { return {"ThreadsNamed", 0}; }
  TestIR transform(TestIR ir, auto&) const {
    ir.value += k;
    return ir;
  }
};
NamedPass make_named(const passinfra::PassOptions& o) { return NamedPass{passinfra::get_option<int>(o, "k")}; }

}  // namespace

TEST_CASE("reliability: threads -- the global PassRegistry and the config registry used concurrently") {
  Failures failures;
  std::atomic<int> conflict_ok{0}, conflict_error{0};
  Reg& reg = Reg::global();

  run_threads(kThreads, [&](int t) {
    const std::string mine = "ThreadsPass" + std::to_string(t);
    const std::string key = "reliability.threads.t" + std::to_string(t);
    for (int i = 0; i < 200; ++i) {
      try {
        // The same registrations from every thread: no-ops after the first.
        reg.add<SharedA>();
        reg.add<SharedB>();
        // A name of this thread, with an option.
        reg.add(mine, &make_named, {{"k", passinfra::ConfigType::integer, std::int64_t{1}}});
        passinfra::register_config_option<std::int64_t>("reliability.threads.shared");
        passinfra::register_config_option<bool>(key);
        // Create, parse and run pipelines from the registry.
        const auto p = passinfra::parse_pipeline<TestIR>(
            "sequential(ThreadsSharedB, " + mine + "(k=" + std::to_string(t + 1) + "))", reg);
        Ctx ctx({.config = {{"reliability.threads.shared", std::int64_t{i}}, {key, true}}});
        const TestIR out = passinfra::run(p, TestIR{}, ctx);
        if (out.value != 2 + t + 1) failures.add(mine + ": wrong result");
        if (ctx.get_config<std::int64_t>("reliability.threads.shared", -1) != i) failures.add(mine + ": config");
        if (passinfra::print_pipeline(p) !=
            "sequential(ThreadsSharedB," + mine + "(k=" + std::to_string(t + 1) + "))") {
          failures.add(mine + ": print");
        }
        if (!reg.contains(mine) || reg.describe().find(mine) == std::string::npos) failures.add(mine + ": lookup");
        (void)reg.names();
        (void)passinfra::registered_config_options();
      } catch (const std::exception& e) {
        failures.add(mine + ": " + e.what());
      }
      // Two types for one key from different threads: exactly one kind wins.
      if (i == 0) {
        try {
          if (t % 2) {
            passinfra::register_config_option<bool>("reliability.threads.conflict");
          } else {
            passinfra::register_config_option<std::string>("reliability.threads.conflict");
          }
          ++conflict_ok;
        } catch (const passinfra::Error&) {
          ++conflict_error;
        }
      }
    }
  });
  for (const auto& f : failures.list) FAIL_CHECK(f);
  CHECK(failures.list.empty());
  CHECK(conflict_ok + conflict_error == kThreads);
  CHECK(conflict_ok == kThreads / 2);  // the threads that asked for the type that won first
  for (int t = 0; t < kThreads; ++t) CHECK(reg.contains("ThreadsPass" + std::to_string(t)));
}
