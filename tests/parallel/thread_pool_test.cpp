// passinfra/parallel/thread_pool.hpp: ThreadPool (std::thread workers) as an
// Executor. Starts threads: meant to run under TSan too. Waits are bounded
// (a deadline that fails the check), never sleeps.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <passinfra/core/error.hpp>
#include <passinfra/core/executor.hpp>
#include <passinfra/parallel/thread_pool.hpp>

namespace {

using passinfra::ExecutorRef;
using passinfra::ThreadPool;
using passinfra::detail::ExecutorTask;

template <class Pred>
bool wait_until(Pred pred, std::chrono::steady_clock::duration limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace

TEST_CASE("ThreadPool: size, max_concurrency and the default size") {
  static_assert(passinfra::Executor<ThreadPool>);
  static_assert(!std::is_copy_constructible_v<ThreadPool> && !std::is_move_constructible_v<ThreadPool>);
  ThreadPool three(3);
  CHECK(three.size() == 3);
  CHECK(three.max_concurrency() == 3);
  CHECK(ExecutorRef(three).max_concurrency() == 3);
  ThreadPool dflt;
  const unsigned hw = std::thread::hardware_concurrency();
  CHECK(dflt.size() == (hw > 1 ? hw - 1 : 1));
  CHECK(dflt.size() >= 1);
}

TEST_CASE("ThreadPool: zero workers is an error") {
  CHECK_THROWS_WITH_AS(ThreadPool(0), doctest::Contains("0 workers"), passinfra::Error);
}

TEST_CASE("ThreadPool: runs copyable, move-only and ExecutorTask callables on its workers") {
  ThreadPool pool(2);
  std::atomic<int> sum{0};
  std::mutex m;
  std::set<std::thread::id> threads;
  auto note = [&] {
    std::lock_guard lock(m);
    threads.insert(std::this_thread::get_id());
  };
  auto copyable = [&] {
    note();
    sum += 1;
  };
  pool.execute(copyable);  // an lvalue: copied
  pool.execute([&, p = std::make_unique<int>(10)] {
    note();
    sum += *p;
  });
  pool.execute(ExecutorTask([&] {
    note();
    sum += 100;
  }));
  ExecutorRef(pool).execute(ExecutorTask([&] {
    note();
    sum += 1000;
  }));
  CHECK(wait_until([&] { return sum.load() == 1111; }));
  std::lock_guard lock(m);
  CHECK(threads.count(std::this_thread::get_id()) == 0);
  CHECK(threads.size() <= 2);
}

TEST_CASE("ThreadPool: its workers run tasks at the same time") {
  ThreadPool pool(2);
  std::atomic<int> arrived{0};
  std::atomic<int> met{0};
  std::atomic<int> done{0};
  for (int k = 0; k < 2; ++k) {
    pool.execute([&] {
      arrived.fetch_add(1);
      if (wait_until([&] { return arrived.load() == 2; })) met.fetch_add(1);
      done.fetch_add(1);
    });
  }
  CHECK(wait_until([&] { return done.load() == 2; }));
  CHECK(met.load() == 2);
}

TEST_CASE("ThreadPool: the destructor runs the queued tasks, and those they queue, then joins") {
  std::atomic<bool> release{false};
  std::atomic<bool> started{false};
  std::atomic<int> ran{0};
  std::atomic<int> late{0};
  {
    ThreadPool pool(1);
    pool.execute([&] {
      started = true;
      // Blocks the only worker (bounded) so that the tasks below stay queued.
      CHECK(wait_until([&] { return release.load(); }));
    });
    CHECK(wait_until([&] { return started.load(); }));
    for (int k = 0; k < 100; ++k) {
      pool.execute([&ran, &late, &pool] {
        if (ran.fetch_add(1) == 99) pool.execute([&late] { late.fetch_add(1); });
      });
    }
    CHECK(ran.load() == 0);
    release = true;
  }  // ~ThreadPool
  CHECK(ran.load() == 100);
  CHECK(late.load() == 1);
}

TEST_CASE("ThreadPool: a task destroyed unrun and a task run release what they hold") {
  auto resource = std::make_shared<int>(1);
  std::weak_ptr<int> watch = resource;
  {
    ThreadPool pool(1);
    pool.execute([r = std::move(resource)] { (void)r; });
  }
  CHECK(watch.expired());
  // An unrun task: made, never handed to anyone.
  auto other = std::make_shared<int>(2);
  std::weak_ptr<int> watch2 = other;
  {
    ExecutorTask t([o = std::move(other)] { (void)o; });
  }
  CHECK(watch2.expired());
}
