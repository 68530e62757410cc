// A user's executor on oneTBB (DESIGN "Parallel policy: the context's
// executor"): a tbb::task_arena, tasks handed over with enqueue. Built only
// when CMake finds oneTBB (Debian: libtbb-dev; tests/CMakeLists.txt), and
// linked with TBB::tbb. Starts threads.
//
// task_arena::enqueue keeps the functor as a `const F` and calls it as such:
// detail::ExecutorTask's operator() is const for this reason.
#include <doctest/doctest.h>

#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <passinfra/core/executor.hpp>
#include <passinfra/detail/fork_join.hpp>

namespace {

using passinfra::ExecutorRef;
using passinfra::detail::ExecutorTask;
using passinfra::detail::fork_join;
using passinfra::detail::ForkJoinResult;

// As in DESIGN.md.
struct TbbExecutor {
  tbb::task_arena& arena;
  void execute(auto task) { arena.enqueue(std::move(task)); }
  [[nodiscard]] std::size_t max_concurrency() const { return static_cast<std::size_t>(arena.max_concurrency()); }
};

struct Boom : std::runtime_error {
  explicit Boom(std::size_t i) : std::runtime_error("unit " + std::to_string(i)) {}
};

}  // namespace

TEST_CASE("TbbExecutor: a task_arena runs fork_join units, each exactly once") {
  static_assert(passinfra::Executor<TbbExecutor>);
  for (int slots : {1, 2, 4}) {
    CAPTURE(slots);
    tbb::task_arena arena(slots);
    TbbExecutor tbb_ex{arena};
    CHECK(ExecutorRef(tbb_ex).max_concurrency() == static_cast<std::size_t>(slots));
    for (std::size_t n : {2U, 7U, 64U}) {
      for (int rep = 0; rep < 10; ++rep) {
        std::vector<std::atomic<int>> runs(n);
        auto run = [&](std::size_t i) { runs[i].fetch_add(1); };
        ForkJoinResult r = fork_join(ExecutorRef(tbb_ex), n, run);
        CHECK(r.ok());
        CHECK(r.started == n);
        for (std::size_t i = 0; i < n; ++i) CHECK(runs[i].load() == 1);
      }
    }
  }
}

TEST_CASE("TbbExecutor: the lowest failed unit propagates; nested fork_joins on the same arena finish") {
  tbb::task_arena arena(2);
  TbbExecutor tbb_ex{arena};
  std::atomic<int> leaves{0};
  auto inner = [&](std::size_t i) {
    leaves.fetch_add(1);
    if (i == 5) throw Boom(i);
  };
  auto outer = [&](std::size_t i) {
    ForkJoinResult r = fork_join(ExecutorRef(tbb_ex), 8, inner);
    if (i >= 2) r.rethrow_if_failed();
  };
  for (int rep = 0; rep < 20; ++rep) {
    ForkJoinResult r = fork_join(ExecutorRef(tbb_ex), 4, outer);
    REQUIRE_FALSE(r.ok());
    CHECK(r.failures[0].index == 2);
    CHECK_THROWS_WITH_AS(r.rethrow_if_failed(), "unit 5", Boom);
  }
  CHECK(leaves.load() >= 20 * 3 * 6);  // units 0..2 ran their inner units 0..5 at least
}

TEST_CASE("TbbExecutor: an ExecutorTask enqueued directly runs once") {
  tbb::task_arena arena(2);
  TbbExecutor tbb_ex{arena};
  std::atomic<int> runs{0};
  ExecutorRef(tbb_ex).execute(ExecutorTask([&runs] { runs.fetch_add(1); }));
  // A bounded wait (a deadline that fails the check), no sleep.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (runs.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  CHECK(runs.load() == 1);
}
