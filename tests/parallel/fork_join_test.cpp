// passinfra/detail/fork_join.hpp: the help-while-waiting fork-join of parallel
// nests (SPEC §11.4, §11.6). Starts threads (ThreadPool, std::thread): meant
// to run under TSan too.
//
// Concurrency is shown with bounded waits (two units wait for each other with a
// deadline), never with sleeps; a case that could hang if fork_join deadlocked
// runs under a watchdog that fails (aborts) instead of hanging.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <passinfra/core/executor.hpp>
#include <passinfra/detail/fork_join.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "support/watchdog.hpp"

namespace {

using passinfra::ExecutorRef;
using passinfra::ThreadPool;
using passinfra::detail::ExecutorTask;
using passinfra::detail::fork_join;
using passinfra::detail::ForkJoinResult;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr int kRandomRuns = 300;
#else
constexpr int kRandomRuns = 1000;
#endif

constexpr auto kDeadline = std::chrono::seconds(60);

// Spins (yielding) until pred() or the deadline; false on timeout.
template <class Pred>
bool wait_until(Pred pred, std::chrono::steady_clock::duration limit = kDeadline) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// A case that could hang if fork_join deadlocked runs under a watchdog.
template <class Body>
void within_deadline(const char* what, Body body) {
  test_support::within_deadline("fork_join_test", what, body);
}

struct Boom : std::runtime_error {
  std::size_t index;
  explicit Boom(std::size_t i) : std::runtime_error("unit " + std::to_string(i)), index(i) {}
};

// Keeps every task; runs them when asked (or never).
struct QueueExecutor {
  std::mutex m;
  std::vector<ExecutorTask> tasks;
  std::size_t submitted = 0;
  void execute(ExecutorTask t) {
    std::lock_guard lock(m);
    ++submitted;
    tasks.push_back(std::move(t));
  }
  ExecutorTask take() {
    std::lock_guard lock(m);
    if (tasks.empty()) return {};
    ExecutorTask t = std::move(tasks.front());
    tasks.erase(tasks.begin());
    return t;
  }
};

// Destroys every task at once, unrun.
struct DroppingExecutor {
  std::size_t submitted = 0;
  void execute(ExecutorTask) { ++submitted; }
};

struct InlineExecutor {
  void execute(ExecutorTask t) { t(); }
};

// Accepts `accept` tasks (kept, unrun), then throws.
struct ThrowingExecutor {
  std::size_t accept = 0;
  std::vector<ExecutorTask> kept;
  std::size_t calls = 0;
  void execute(ExecutorTask t) {
    ++calls;
    if (kept.size() >= accept) throw std::runtime_error("executor is full");
    kept.push_back(std::move(t));
  }
};

struct SizedExecutor {
  std::size_t limit;
  std::size_t submitted = 0;
  void execute(ExecutorTask) { ++submitted; }
  [[nodiscard]] std::size_t max_concurrency() const { return limit; }
};

// Records which units ran, in the order they started, and on which thread.
struct Recorder {
  std::mutex m;
  std::vector<std::size_t> order;
  std::vector<std::thread::id> threads;
  void start(std::size_t i) {
    std::lock_guard lock(m);
    order.push_back(i);
    threads.push_back(std::this_thread::get_id());
  }
};

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Rethrows result's propagating exception and returns the address of the object caught.
const void* rethrown_address(const ForkJoinResult& result) {
  try {
    result.rethrow_if_failed();
  } catch (const Boom& b) {
    return &b;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("fork_join: without an executor or with fewer than two units it is a plain loop on the caller") {
  QueueExecutor q;
  for (ExecutorRef ex : {ExecutorRef(), ExecutorRef(q)}) {
    for (std::size_t n : {0U, 1U, 5U}) {
      if (ex && n >= 2) continue;
      Recorder rec;
      auto run = [&](std::size_t i) { rec.start(i); };
      ForkJoinResult r = fork_join(ex, n, run);
      CHECK(r.ok());
      CHECK(r.started == n);
      CHECK(rec.order == iota(n));
      for (auto id : rec.threads) CHECK(id == std::this_thread::get_id());
    }
  }
  CHECK(q.submitted == 0);  // n < 2 submits nothing

  // The first failure ends the loop.
  Recorder rec;
  auto run = [&](std::size_t i) {
    rec.start(i);
    if (i == 2) throw Boom(i);
  };
  ForkJoinResult r = fork_join(ExecutorRef(), 6, run);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].index == 2);
  CHECK(r.started == 3);
  CHECK(rec.order == iota(3));
  CHECK_THROWS_AS(r.rethrow_if_failed(), Boom);
}

TEST_CASE("fork_join: an executor that never runs its tasks leaves every unit to the caller, in index order") {
  SUBCASE("tasks destroyed at once") {
    DroppingExecutor drop;
    Recorder rec;
    auto run = [&](std::size_t i) { rec.start(i); };
    ForkJoinResult r = fork_join(ExecutorRef(drop), 7, run);
    CHECK(r.ok());
    CHECK(r.started == 7);
    CHECK(rec.order == iota(7));
    CHECK(drop.submitted == 6);  // min(n - 1, unbounded)
    for (auto id : rec.threads) CHECK(id == std::this_thread::get_id());
  }
  SUBCASE("tasks kept, then destroyed unrun after fork_join returned") {
    QueueExecutor q;
    {
      Recorder rec;
      auto run = [&](std::size_t i) { rec.start(i); };
      ForkJoinResult r = fork_join(ExecutorRef(q), 4, run);
      CHECK(r.ok());
      CHECK(rec.order == iota(4));
    }
    CHECK(q.tasks.size() == 3);
    q.tasks.clear();  // releases the shared state (ASan/LSan: nothing leaks, nothing is freed twice)
  }
}

TEST_CASE("fork_join: helper tasks run after fork_join returned touch nothing") {
  QueueExecutor q;
  std::atomic<int> calls{0};
  {
    // run_unit and the recorder live in this scope only.
    std::vector<int> seen(5, 0);
    auto run = [&](std::size_t i) {
      ++seen[i];
      ++calls;
    };
    ForkJoinResult r = fork_join(ExecutorRef(q), 5, run);
    CHECK(r.ok());
    CHECK(seen == std::vector<int>(5, 1));
  }
  CHECK(calls == 5);
  // Run the stale helpers, on this thread and on another one.
  ExecutorTask first = q.take();
  first();
  std::thread th([&q] {
    for (ExecutorTask t = q.take(); t; t = q.take()) t();
  });
  th.join();
  CHECK(calls == 5);
  CHECK(q.tasks.empty());
}

TEST_CASE("fork_join: submits min(n - 1, max_concurrency) helpers") {
  auto run = [](std::size_t) {};
  SizedExecutor two{2};
  CHECK(fork_join(ExecutorRef(two), 10, run).ok());
  CHECK(two.submitted == 2);
  SizedExecutor many{50};
  CHECK(fork_join(ExecutorRef(many), 10, run).ok());
  CHECK(many.submitted == 9);
}

TEST_CASE("fork_join: an inline executor runs every unit on the calling thread, in index order") {
  InlineExecutor inl;
  Recorder rec;
  auto run = [&](std::size_t i) { rec.start(i); };
  ForkJoinResult r = fork_join(ExecutorRef(inl), 9, run);
  CHECK(r.ok());
  CHECK(r.started == 9);
  CHECK(rec.order == iota(9));
  for (auto id : rec.threads) CHECK(id == std::this_thread::get_id());

  // A failure inside a helper run inline stays inside fork_join.
  Recorder rec2;
  auto fail = [&](std::size_t i) {
    rec2.start(i);
    if (i == 4) throw Boom(i);
  };
  ForkJoinResult r2 = fork_join(ExecutorRef(inl), 9, fail);
  REQUIRE(r2.failures.size() == 1);
  CHECK(r2.failures[0].index == 4);
  CHECK(rec2.order == iota(5));
  CHECK(r2.started == 5);
}

TEST_CASE("fork_join: an executor whose execute throws leaves the remaining units to the caller") {
  for (std::size_t accept : {0U, 1U, 2U}) {
    CAPTURE(accept);
    ThrowingExecutor thrower{accept, {}, 0};
    Recorder rec;
    auto run = [&](std::size_t i) { rec.start(i); };
    ForkJoinResult r = fork_join(ExecutorRef(thrower), 6, run);
    CHECK(r.ok());
    CHECK(r.started == 6);
    CHECK(rec.order == iota(6));
    CHECK(thrower.calls == accept + 1);  // stopped submitting at the first throw
    REQUIRE(r.executor_error);
    CHECK_THROWS_WITH_AS(std::rethrow_exception(r.executor_error), "executor is full", std::runtime_error);
    // The accepted tasks run late: they return at once.
    for (auto& t : thrower.kept) t();
    CHECK(rec.order.size() == 6);
  }
}

TEST_CASE("fork_join: an executor that runs a task inline and then throws") {
  struct RunThenThrow {
    std::size_t calls = 0;
    void execute(ExecutorTask t) {
      ++calls;
      t();
      throw std::runtime_error("ran it, then failed");
    }
  } ex;
  Recorder rec;
  auto run = [&](std::size_t i) { rec.start(i); };
  ForkJoinResult r = fork_join(ExecutorRef(ex), 5, run);
  CHECK(r.ok());
  CHECK(rec.order == iota(5));  // the inline helper ran them all, each once
  CHECK(ex.calls == 1);
  CHECK(r.executor_error);
}

TEST_CASE("fork_join: with a pool every unit runs exactly once") {
  for (std::size_t workers : {1U, 2U, 3U}) {
    ThreadPool pool(workers);
    for (std::size_t n : {2U, 3U, 17U, 100U}) {
      for (int rep = 0; rep < 20; ++rep) {
        std::vector<std::atomic<int>> runs(n);
        auto run = [&](std::size_t i) { runs[i].fetch_add(1); };
        ForkJoinResult r = fork_join(ExecutorRef(pool), n, run);
        CHECK(r.ok());
        CHECK(r.started == n);
        CHECK_FALSE(r.executor_error);
        for (std::size_t i = 0; i < n; ++i) CHECK(runs[i].load() == 1);
      }
    }
  }
}

TEST_CASE("fork_join: the caller and a helper run units at the same time") {
  ThreadPool pool(1);
  std::atomic<int> arrived{0};
  std::atomic<int> met{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  auto run = [&](std::size_t) {
    {
      std::lock_guard lock(m);
      threads.insert(std::this_thread::get_id());
    }
    arrived.fetch_add(1);
    if (wait_until([&] { return arrived.load() == 2; })) met.fetch_add(1);
  };
  ForkJoinResult r = fork_join(ExecutorRef(pool), 2, run);
  CHECK(r.ok());
  CHECK(met.load() == 2);  // each unit saw the other one running
  CHECK(threads.size() == 2);
  CHECK(threads.count(std::this_thread::get_id()) == 1);  // the caller took one
}

TEST_CASE("fork_join: the lowest failed unit propagates as the same object; a smaller unit still running finishes") {
  // Deterministic interleaving: the caller takes unit 0 and, inside it, runs
  // the one helper task on another thread; that helper takes unit 1, which
  // fails, and stops (unit 2 > 1 must not start). Then unit 0 fails too.
  QueueExecutor q;
  Recorder rec;
  std::vector<const void*> thrown(10, nullptr);
  auto throw_boom = [&](std::size_t i) {
    try {
      throw Boom(i);
    } catch (Boom& b) {
      thrown[i] = &b;
      throw;  // the same object
    }
  };
  auto run = [&](std::size_t i) {
    rec.start(i);
    if (i == 0) {
      std::thread helper([&q] {
        for (ExecutorTask t = q.take(); t; t = q.take()) t();
      });
      helper.join();
      throw_boom(0);
    }
    if (i == 1) throw_boom(1);
  };
  ForkJoinResult r = fork_join(ExecutorRef(q), 10, run);
  REQUIRE(r.failures.size() == 2);
  CHECK(r.failures[0].index == 0);
  CHECK(r.failures[1].index == 1);
  CHECK(r.started == 2);
  std::vector<std::size_t> order = rec.order;
  CHECK(order == std::vector<std::size_t>{0, 1});  // no unit above the failed unit 1 started
  CHECK(rethrown_address(r) == thrown[0]);
  try {
    std::rethrow_exception(r.failures[1].error);
  } catch (const Boom& b) {
    CHECK(&b == thrown[1]);
    CHECK(b.index == 1);
  }
}

TEST_CASE("fork_join: once a unit failed no unit above it starts") {
  // The helper (run on another thread inside unit 0) takes 1 and 2; unit 2
  // fails; then neither the helper nor the caller starts 3..9.
  QueueExecutor q;
  Recorder rec;
  auto run = [&](std::size_t i) {
    rec.start(i);
    if (i == 0) {
      std::thread helper([&q] {
        for (ExecutorTask t = q.take(); t; t = q.take()) t();
      });
      helper.join();
    }
    if (i == 2) throw Boom(i);
  };
  ForkJoinResult r = fork_join(ExecutorRef(q), 10, run);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].index == 2);
  CHECK(r.started == 3);
  std::vector<std::size_t> order = rec.order;
  std::sort(order.begin(), order.end());
  CHECK(order == iota(3));
  CHECK_THROWS_WITH_AS(r.rethrow_if_failed(), "unit 2", Boom);
}

TEST_CASE("fork_join: a const run_unit is called through a const reference") {
  ThreadPool pool(1);
  std::vector<std::atomic<int>> runs(6);
  const auto run = [&runs](std::size_t i) { runs[i].fetch_add(1); };
  ForkJoinResult r = fork_join(ExecutorRef(pool), 6, run);
  CHECK(r.ok());
  for (auto& k : runs) CHECK(k.load() == 1);
}

TEST_CASE("fork_join: nested inside units on the same pool does not deadlock") {
  for (std::size_t workers : {1U, 2U}) {
    CAPTURE(workers);
    ThreadPool pool(workers);
    std::atomic<int> leaves{0};
    std::atomic<int> failures_seen{0};
    bool ok = true;
    within_deadline("nested fork_join", [&] {
      for (int rep = 0; rep < 20; ++rep) {
        auto inner = [&](std::size_t) { leaves.fetch_add(1); };
        auto middle = [&](std::size_t) {
          ForkJoinResult r = fork_join(ExecutorRef(pool), 5, inner);
          if (!r.ok()) ok = false;
        };
        auto outer = [&](std::size_t) {
          ForkJoinResult r = fork_join(ExecutorRef(pool), 3, middle);
          if (!r.ok()) ok = false;
        };
        ForkJoinResult r = fork_join(ExecutorRef(pool), 4, outer);
        if (!r.ok()) ok = false;
        // Nested failures: an inner failure is rethrown by its unit and reaches the outer fork_join.
        auto inner_fail = [&](std::size_t i) {
          if (i == 3) throw Boom(i);
        };
        auto outer_fail = [&](std::size_t i) {
          ForkJoinResult ri = fork_join(ExecutorRef(pool), 6, inner_fail);
          if (i >= 1) ri.rethrow_if_failed();
        };
        ForkJoinResult rf = fork_join(ExecutorRef(pool), 4, outer_fail);
        if (!rf.ok() && rf.failures[0].index == 1) failures_seen.fetch_add(1);
      }
    });
    CHECK(ok);
    CHECK(leaves.load() == 20 * 4 * 3 * 5);
    CHECK(failures_seen.load() == 20);
  }
}

TEST_CASE("fork_join: random runs with random failures match the serial model") {
  ThreadPool pool1(1);
  ThreadPool pool2(2);
  InlineExecutor inl;
  DroppingExecutor drop;
  std::mt19937 rng(20261125);
  for (int run_no = 0; run_no < kRandomRuns; ++run_no) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 24)(rng);
    const int fail_percent = std::uniform_int_distribution<int>(0, 3)(rng) * 10;  // 0, 10, 20, 30 %
    std::vector<bool> fails(n);
    for (std::size_t i = 0; i < n; ++i) fails[i] = std::uniform_int_distribution<int>(0, 99)(rng) < fail_percent;
    ExecutorRef ex;
    switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
      case 0:
        ex = pool1;
        break;
      case 1:
        ex = pool2;
        break;
      case 2:
        ex = inl;
        break;
      case 3:
        ex = drop;
        break;
      default:
        break;  // none
    }
    CAPTURE(run_no);
    CAPTURE(n);

    std::vector<std::atomic<int>> runs(n);
    std::vector<const void*> thrown(n, nullptr);
    auto run = [&](std::size_t i) {
      runs[i].fetch_add(1);
      if (fails[i]) {
        try {
          throw Boom(i);
        } catch (Boom& b) {
          thrown[i] = &b;
          throw;
        }
      }
    };
    ForkJoinResult r = fork_join(ex, n, run);

    // The serial model: units 0..first run, first (if any) propagates.
    std::size_t first = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (fails[i]) {
        first = i;
        break;
      }
    }
    std::size_t ran = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const int k = runs[i].load();
      REQUIRE(k <= 1);                           // never twice
      if (i <= first && i < n) REQUIRE(k == 1);  // everything a serial run runs, runs
      ran += static_cast<std::size_t>(k);
    }
    REQUIRE(r.started == ran);
    if (first == n) {
      REQUIRE(r.ok());
      REQUIRE(ran == n);
      continue;
    }
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.failures[0].index == first);
    REQUIRE(rethrown_address(r) == thrown[first]);
    // Every failure of a unit that ran is reported, once, in index order.
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < n; ++i) {
      if (fails[i] && runs[i].load() == 1) expected.push_back(i);
    }
    std::vector<std::size_t> got;
    for (const auto& f : r.failures) got.push_back(f.index);
    REQUIRE(got == expected);
  }
}
