// passinfra/detail/fork_join.hpp — the help-while-waiting fork-join a parallel
// nest runs its units with (SPEC §11.4, §11.6; DESIGN "Fork-join").
//
//   struct ForkJoinFailure { std::size_t index; std::exception_ptr error; };
//   struct ForkJoinResult {
//     std::vector<ForkJoinFailure> failures;  // index order; failures[0] propagates
//     std::size_t started;                    // how many units were started
//     std::exception_ptr executor_error;      // the first exception ex.execute threw
//     bool ok() const; void rethrow_if_failed() const;
//   };
//   template <class RunUnit>  // std::invocable<RunUnit&, std::size_t>
//   ForkJoinResult fork_join(ExecutorRef ex, std::size_t n, RunUnit& run_unit);
//
// fork_join calls run_unit(i) for units i = 0 .. n-1, on the calling thread
// and on helper tasks submitted to ex, and returns when every unit it started
// has finished. run_unit may throw; it is called concurrently from several
// threads (for different i), so it must be safe to; each i is run at most once.
//
// * Order. Units are *started* in index order: each thread (the caller and
//   every helper) takes the lowest index not yet taken (an atomic counter).
//   With no executor (`!ex`) or n < 2 it is a plain loop on the calling
//   thread, stopping at the first unit that throws.
// * Failure (SPEC §11.6). The index of the first failed unit is kept as an
//   atomic minimum; once unit k has failed, no unit with index > k starts,
//   while units with a smaller index still run (and may fail too). A unit
//   above k that another thread had started before k's failure was recorded
//   runs to its end (so the started units need not be a prefix of 0..n-1;
//   `started` counts them, run_unit knows which). Every
//   exception is kept (never dropped, never converted): `failures` lists them
//   in index order, so failures[0] is the one a serial run throws, and
//   rethrow_if_failed() rethrows that same object (std::rethrow_exception of
//   its exception_ptr). The caller decides what to do with the others (the
//   nest logs them). Nothing calls std::terminate.
// * Helpers. The caller submits up to min(n-1, ex.max_concurrency()) helper
//   tasks (and at most ForkJoinState::kMaxHelpers), one ex.execute call
//   each, stopping early when no unit is left to take or a unit failed, and
//   then takes units itself. A helper that starts
//   runs units until none is left; one that starts after the work is gone
//   (even after fork_join returned, or never: an executor may destroy its
//   tasks unrun) returns at once without touching run_unit or the caller's
//   stack. The state the helpers share is therefore on the heap, with an
//   intrusive reference count (the caller and each task hold one; the last
//   owner frees it).
// * Waiting. After taking its last unit the caller closes the state (no
//   helper may enter from then on) and waits (Atomic::wait, futex-based)
//   only for the helpers that entered before it closed, i.e. that are running
//   units. While waiting it runs nothing else: no unrelated task is ever
//   stolen. Hence no deadlock with an executor that never runs its tasks, with
//   a one-thread pool, or with fork_joins nested inside units on the same pool
//   (the waiting thread has run its own fork_join's units; it waits only for
//   threads that are inside them).
// * Executor failure. If ex.execute throws, no more helpers are submitted,
//   the calling thread runs the remaining units, and the first such exception
//   is returned as `executor_error` (not a unit's failure: the nest may log it).
//   If the shared state cannot be allocated, fork_join runs the plain loop.
// * fork_join itself throws only std::bad_alloc, and only when it cannot
//   allocate `failures` after the units ran (their exceptions are then lost
//   with it: there is no memory to keep them in).
// * run_unit is taken by lvalue reference (const or not; a temporary does not
//   bind) and must stay alive until fork_join returns; helpers never touch it
//   afterwards.
// * Memory order. Everything a unit did (on any thread) happens-before
//   fork_join returns.
//
// Headers: detail/atomic.hpp, <exception>, <vector> only (no <memory>, no <thread>):
// this is included by core (core_is_light).
#pragma once

#include <concepts>
#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

#include "passinfra/core/executor.hpp"
#include "passinfra/detail/atomic.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra::detail {

struct ForkJoinFailure {
  std::size_t index;
  std::exception_ptr error;
};

// (ForkJoinResult, ForkJoinState and ForkJoinHelper are class templates, one
// instance each through the aliases, with what they name spelled dependently
// (type_name.hpp): a translation unit compiles their members only when it
// runs a nest. Issue 18.)
template <class V = void>
struct ForkJoinResultOf {
  // The units that threw, in index order (empty: every started unit succeeded,
  // and then every unit was started).
  dependent_t<std::vector<ForkJoinFailure>, V> failures;
  // How many units run_unit was called for (n when nothing failed).
  std::size_t started = 0;
  // The first exception an ex.execute call threw (null if none did).
  std::exception_ptr executor_error;

  [[nodiscard]] bool ok() const noexcept { return failures.empty(); }
  // Rethrows failures[0].error (the lowest failed index), if any.
  void rethrow_if_failed() const {
    if (!failures.empty()) std::rethrow_exception(failures.front().error);
  }
};

using ForkJoinResult = ForkJoinResultOf<>;

// (Their inline bodies reach Atomic::wait and std::vector<ForkJoinFailure>.)
template <class V = void>
class ForkJoinStateOf {
 public:
  using RunFn = void (*)(void* run_unit, std::size_t index);

  // Never throws after construction; construction allocates `errors_`.
  ForkJoinStateOf(std::size_t n, void* run_unit, RunFn run) : n_(n), run_unit_(run_unit), run_(run), errors_(n) {}

  // The caller's reference plus one per task.
  void add_ref() noexcept { refs_.fetch_add(1, MemoryOrder::relaxed); }
  void release() noexcept {
    if (refs_.fetch_sub(1, MemoryOrder::acq_rel) == 1) delete this;
  }

  // Whether a unit is left for someone to take (a hint: it may change at once).
  [[nodiscard]] bool work_left() const noexcept {
    const std::size_t next = next_.load(MemoryOrder::relaxed);
    return next < n_ && next <= first_failed_.load(MemoryOrder::relaxed);
  }

  // A helper task's body: enter unless closed, run units, leave.
  void help() noexcept {
    unsigned active = active_.load();
    do {
      if ((active & kClosed) != 0) return;  // the work is gone; the caller may have returned
    } while (!active_.compare_exchange_weak(active, active + 1));
    run_units();
    if (active_.fetch_sub(1) == (kClosed | 1)) active_.notify_one();
  }

  // The caller: run units, close, wait for the helpers inside, collect.
  // (NOLINT: clang-tidy 16 does not see the move into the result, whose type is dependent.)
  ForkJoinResultOf<V> finish(std::exception_ptr executor_error) {  // NOLINT(performance-unnecessary-value-param)
    run_units();
    unsigned active = active_.fetch_or(kClosed) | kClosed;
    while (active != kClosed) {
      active_.wait(active);
      active = active_.load();
    }
    ForkJoinResultOf<V> result;
    result.started = started_.load();
    result.executor_error = std::move(executor_error);
    for (std::size_t i = 0; i < n_; ++i) {
      if (errors_[i]) result.failures.push_back(ForkJoinFailure{i, std::move(errors_[i])});
    }
    return result;
  }

 private:
  // active_ is an unsigned (a futex word: Atomic::wait needs no proxy);
  // its top bit is the closed flag, the rest counts helpers inside.
  static constexpr unsigned kClosed = ~(~0U >> 1);

 public:
  // fork_join submits at most this many helpers (far more than any machine's
  // threads), so the count never reaches kClosed.
  static constexpr std::size_t kMaxHelpers = kClosed >> 1;

 private:
  ~ForkJoinStateOf() = default;

  void run_units() noexcept {
    for (;;) {
      const std::size_t i = next_.fetch_add(1);
      if (i >= n_ || i > first_failed_.load()) return;
      started_.fetch_add(1, MemoryOrder::relaxed);
      try {
        run_(run_unit_, i);
      } catch (...) {
        errors_[i] = std::current_exception();
        std::size_t first = first_failed_.load();
        while (i < first && !first_failed_.compare_exchange_weak(first, i)) {
        }
      }
    }
  }

  const std::size_t n_;
  void* const run_unit_;
  const RunFn run_;
  // errors_[i] written only by the thread that ran unit i. Spelled dependently:
  // defining the template does not instantiate the vector (issue 18).
  dependent_t<std::vector<std::exception_ptr>, V> errors_;
  Atomic<std::size_t> refs_{1};
  Atomic<std::size_t> next_{0};
  Atomic<std::size_t> first_failed_{~std::size_t{0}};
  Atomic<std::size_t> started_{0};
  Atomic<unsigned> active_{0};  // helpers inside run_units, | kClosed once the caller closed
};

using ForkJoinState = ForkJoinStateOf<>;

// The callable an ExecutorTask holds: one reference to the state.
template <class V = void>
class ForkJoinHelperOf {
 public:
  explicit ForkJoinHelperOf(ForkJoinStateOf<V>* state) noexcept : state_(state) { state_->add_ref(); }
  ForkJoinHelperOf(ForkJoinHelperOf&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  ForkJoinHelperOf(const ForkJoinHelperOf&) = delete;
  ForkJoinHelperOf& operator=(const ForkJoinHelperOf&) = delete;
  ForkJoinHelperOf& operator=(ForkJoinHelperOf&&) = delete;
  ~ForkJoinHelperOf() {
    if (state_ != nullptr) state_->release();
  }
  void operator()() noexcept {
    if (state_ != nullptr) state_->help();
  }

 private:
  ForkJoinStateOf<V>* state_;
};

using ForkJoinHelper = ForkJoinHelperOf<>;

// The plain loop: no executor, or fewer than two units.
template <class RunUnit>
ForkJoinResultOf<dependent_t<void, RunUnit>> fork_join_serial(std::size_t n, RunUnit& run_unit) {
  ForkJoinResultOf<dependent_t<void, RunUnit>> result;
  for (std::size_t i = 0; i < n; ++i) {
    ++result.started;
    try {
      run_unit(i);
    } catch (...) {
      result.failures.push_back(ForkJoinFailure{i, std::current_exception()});
      break;
    }
  }
  return result;
}

template <class RunUnit>
  requires std::invocable<RunUnit&, std::size_t>
ForkJoinResultOf<dependent_t<void, RunUnit>> fork_join(ExecutorRef ex, std::size_t n, RunUnit& run_unit) {
  using State = ForkJoinStateOf<dependent_t<void, RunUnit>>;
  if (!ex || n < 2) return fork_join_serial(n, run_unit);
  State* state = nullptr;
  try {
    state = new State(n, const_cast<void*>(static_cast<const volatile void*>(&run_unit)),
                      [](void* f, std::size_t i) { (*static_cast<RunUnit*>(f))(i); });
  } catch (...) {
    return fork_join_serial(n, run_unit);  // no memory for the shared state: run serially
  }
  struct Release {  // the caller's reference, also if collecting the result throws
    State* state;
    ~Release() { state->release(); }
  } release{state};

  std::exception_ptr executor_error;
  std::size_t helpers = ex.max_concurrency();
  if (helpers > n - 1) helpers = n - 1;
  if (helpers > State::kMaxHelpers) helpers = State::kMaxHelpers;
  for (std::size_t h = 0; h < helpers && state->work_left(); ++h) {
    try {
      ex.execute(ExecutorTask(ForkJoinHelperOf<dependent_t<void, RunUnit>>(state)));
    } catch (...) {
      executor_error = std::current_exception();
      break;
    }
  }
  return state->finish(std::move(executor_error));
}

}  // namespace passinfra::detail
