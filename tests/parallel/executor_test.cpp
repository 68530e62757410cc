// passinfra/core/executor.hpp: detail::ExecutorTask (erasure, run once,
// release when destroyed unrun), the Executor concept and ExecutorRef
// (none, max_concurrency, execute, no binding to temporaries). Single-threaded
// except the last case, which runs a task on a std::thread.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <passinfra/core/executor.hpp>

namespace {

using passinfra::ExecutorRef;
using passinfra::detail::ExecutorTask;

// Counts live copies, so "destroyed" and "released" are visible.
struct Tracked {
  int* live;
  int* runs;
  explicit Tracked(int* l, int* r) : live(l), runs(r) { ++*live; }
  Tracked(const Tracked& o) : live(o.live), runs(o.runs) { ++*live; }
  Tracked(Tracked&& o) noexcept : live(o.live), runs(o.runs) { ++*live; }
  Tracked& operator=(const Tracked&) = delete;
  Tracked& operator=(Tracked&&) = delete;
  ~Tracked() { --*live; }
  void operator()() const { ++*runs; }
};

// Too big for the small buffer: lives on the heap.
struct BigTracked : Tracked {
  using Tracked::Tracked;
  std::array<char, 64> pad{};
};

struct QueueExecutor {
  std::vector<ExecutorTask> tasks;
  void execute(ExecutorTask t) { tasks.push_back(std::move(t)); }
};

struct InlineExecutor {
  void execute(ExecutorTask t) { t(); }
};

struct SizedExecutor {
  std::size_t n;
  void execute(ExecutorTask&& t) { t(); }
  [[nodiscard]] std::size_t max_concurrency() const { return n; }
};

struct IntSizedExecutor {  // like oneTBB's task_arena: an int
  int n;
  void execute(ExecutorTask t) { t(); }
  [[nodiscard]] int max_concurrency() const { return n; }
};

struct ThrowingExecutor {
  void execute(ExecutorTask) { throw std::runtime_error("executor refused"); }
};

struct NotAnExecutor {
  void run(ExecutorTask) {}
};

}  // namespace

TEST_CASE("ExecutorTask: small and heap callables run once and are destroyed") {
  int live = 0;
  int runs = 0;
  SUBCASE("small") {
    ExecutorTask t(Tracked(&live, &runs));
    CHECK(live == 1);
    CHECK(static_cast<bool>(t));
    t();
    CHECK(runs == 1);
    CHECK(live == 0);  // destroyed right after it ran
    CHECK_FALSE(static_cast<bool>(t));
    t();  // an empty task does nothing
    CHECK(runs == 1);
  }
  SUBCASE("heap") {
    ExecutorTask t(BigTracked(&live, &runs));
    CHECK(live == 1);
    t();
    CHECK(runs == 1);
    CHECK(live == 0);
  }
  CHECK(live == 0);
}

TEST_CASE("ExecutorTask: destroyed unrun releases what it holds") {
  int live = 0;
  int runs = 0;
  {
    ExecutorTask small(Tracked(&live, &runs));
    ExecutorTask big(BigTracked(&live, &runs));
    CHECK(live == 2);
  }
  CHECK(live == 0);
  CHECK(runs == 0);
  // A move-only callable holding a resource.
  auto owned = std::make_shared<int>(7);
  std::weak_ptr<int> watch = owned;
  {
    ExecutorTask t([p = std::unique_ptr<int>(new int(1)), s = std::move(owned)] { (void)p; });
    CHECK_FALSE(watch.expired());
  }
  CHECK(watch.expired());
}

TEST_CASE("ExecutorTask: moving leaves the source empty; assignment releases the old callable") {
  int live = 0;
  int runs = 0;
  ExecutorTask a(Tracked(&live, &runs));
  ExecutorTask b(std::move(a));
  CHECK_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): moved-from state is specified
  CHECK(static_cast<bool>(b));
  CHECK(live == 1);
  ExecutorTask c(BigTracked(&live, &runs));
  CHECK(live == 2);
  c = std::move(b);
  CHECK(live == 1);
  c();
  CHECK(runs == 1);
  CHECK(live == 0);
  static_assert(!std::is_copy_constructible_v<ExecutorTask>);
  static_assert(std::is_nothrow_move_constructible_v<ExecutorTask>);
  static_assert(std::is_nothrow_invocable_v<const ExecutorTask&>);
}

TEST_CASE("Executor concept and ExecutorRef construction") {
  static_assert(passinfra::Executor<QueueExecutor>);
  static_assert(passinfra::Executor<SizedExecutor>);
  static_assert(passinfra::Executor<InlineExecutor>);
  static_assert(!passinfra::Executor<NotAnExecutor>);
  static_assert(!passinfra::Executor<int>);
  // Lvalues bind, temporaries do not (a dangling reference must not compile).
  static_assert(std::is_constructible_v<ExecutorRef, QueueExecutor&>);
  static_assert(std::is_convertible_v<QueueExecutor&, ExecutorRef>);
  static_assert(!std::is_constructible_v<ExecutorRef, QueueExecutor&&>);
  static_assert(!std::is_constructible_v<ExecutorRef, QueueExecutor>);
  static_assert(!std::is_constructible_v<ExecutorRef, const QueueExecutor&&>);
  static_assert(!std::is_constructible_v<ExecutorRef, NotAnExecutor&>);
  static_assert(std::is_nothrow_copy_constructible_v<ExecutorRef>);

  ExecutorRef none;
  CHECK_FALSE(static_cast<bool>(none));
  CHECK(none.max_concurrency() == 0);
  CHECK_THROWS_WITH_AS(none.execute(ExecutorTask([] {})), doctest::Contains("no executor"), passinfra::Error);

  QueueExecutor q;
  ExecutorRef r = q;
  CHECK(static_cast<bool>(r));
  CHECK(r.max_concurrency() == ExecutorRef::unbounded);
  ExecutorRef copy = r;  // copies refer to the same executor
  int runs = 0;
  copy.execute(ExecutorTask([&runs] { ++runs; }));
  r.execute(ExecutorTask([&runs] { ++runs; }));
  REQUIRE(q.tasks.size() == 2);
  CHECK(runs == 0);
  for (auto& t : q.tasks) t();
  CHECK(runs == 2);
}

TEST_CASE("ExecutorRef: max_concurrency is the executor's, at least 1") {
  SizedExecutor s4{4};
  SizedExecutor s0{0};
  IntSizedExecutor i3{3};
  IntSizedExecutor ineg{-5};
  CHECK(ExecutorRef(s4).max_concurrency() == 4);
  CHECK(ExecutorRef(s0).max_concurrency() == 1);
  CHECK(ExecutorRef(i3).max_concurrency() == 3);
  CHECK(ExecutorRef(ineg).max_concurrency() == 1);
  InlineExecutor inl;
  CHECK(ExecutorRef(inl).max_concurrency() == ExecutorRef::unbounded);
}

TEST_CASE("ExecutorRef: execute runs through the executor and propagates its exception") {
  InlineExecutor inl;
  int runs = 0;
  ExecutorRef(inl).execute(ExecutorTask([&runs] { ++runs; }));
  CHECK(runs == 1);

  ThrowingExecutor thrower;
  int live = 0;
  CHECK_THROWS_WITH_AS(ExecutorRef(thrower).execute(ExecutorTask(Tracked(&live, &runs))), "executor refused",
                       std::runtime_error);
  CHECK(live == 0);  // the refused task was destroyed unrun
  CHECK(runs == 1);
}

TEST_CASE("ExecutorTask: runs on another thread than the one that made it") {
  int runs = 0;
  ExecutorTask t([&runs] { ++runs; });
  std::thread th([task = std::move(t)] { task(); });
  th.join();
  CHECK(runs == 1);
}
