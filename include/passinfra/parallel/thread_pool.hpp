// passinfra/parallel/thread_pool.hpp — ThreadPool: a plain FIFO pool of
// std::jthread workers, a convenience Executor (core/executor.hpp) for
// PassContextOptions::executor. Not part of core.hpp (it needs <thread>);
// passinfra.hpp includes it.
//
//   ThreadPool pool;        max(1, std::thread::hardware_concurrency() - 1)
//                           workers: the thread that runs a nest takes units
//                           too, so it is the "+1"
//   ThreadPool pool(4);     4 workers; 0 throws passinfra::Error
//   pool.size()             the number of workers
//   pool.max_concurrency()  == size(): a nest submits at most that many helpers
//   pool.execute(f)         queues f (any callable invocable as `f()`, taken by
//                           value: copied or moved; move-only is fine) and
//                           returns; a worker runs it once, in FIFO order
//
// execute() is thread-safe, also from inside a running task. It throws only
// what allocating or moving the callable throws (then nothing was queued).
//
// A callable that throws: std::terminate is called, as for the function of a
// std::thread (the task is a noexcept detail::ExecutorTask). Reasons: the pool
// has nobody to hand the exception to; catching and dropping it would lose an
// error silently, which passinfra never does (SPEC §11.6); and the Executor
// contract says tasks do not throw — passinfra's own tasks (fork-join helpers)
// catch every exception of the units they run and hand it to the nest. A
// callable that can fail must catch and report its failure itself.
//
// Destruction: the pool stops accepting work from outside (calling execute
// from another thread while the destructor runs is a use of an object being
// destroyed), then the workers run every task still queued — including tasks
// those tasks queue — and exit when the queue is empty; the destructor joins
// them. Running (rather than dropping) the queue keeps the Executor contract
// "runs each task exactly once"; for fork-join helpers it is cheap (a helper
// whose fork-join is over returns at once). Destroying a ThreadPool from one
// of its own workers is an error (a thread cannot join itself: std::jthread
// reports it with std::system_error and std::terminate follows).
//
// Copy and move are deleted: contexts refer to the pool by address.
#pragma once

#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/core/error.hpp"
#include "passinfra/core/executor.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra {

namespace detail {
// ThreadPool is this template's one specialization: a class template's
// members are compiled only when used, so including the header costs no
// compile time for the bodies below (the jthreads, the queue, the waits;
// their std types are spelled dependently: see dependent_t).
template <class T = void>
class ThreadPoolOf {
 public:
  // max(1, hardware_concurrency() - 1) workers (hardware_concurrency() may be 0: unknown).
  ThreadPoolOf() : ThreadPoolOf(default_size()) {}

  explicit ThreadPoolOf(std::size_t workers) {
    if (workers == 0) {
      throw Error("ThreadPool: 0 workers; a pool needs at least one (use no executor for serial runs)");
    }
    threads_.reserve(workers);
    try {
      for (std::size_t i = 0; i < workers; ++i) {
        threads_.emplace_back([this] { work(); });
      }
    } catch (...) {
      stop_and_join();
      throw;
    }
  }

  ThreadPoolOf(const ThreadPoolOf&) = delete;
  ThreadPoolOf& operator=(const ThreadPoolOf&) = delete;
  ThreadPoolOf(ThreadPoolOf&&) = delete;
  ThreadPoolOf& operator=(ThreadPoolOf&&) = delete;

  ~ThreadPoolOf() { stop_and_join(); }

  [[nodiscard]] std::size_t size() const noexcept { return threads_.size(); }
  [[nodiscard]] std::size_t max_concurrency() const noexcept { return threads_.size(); }

  template <class F>
    requires std::invocable<std::decay_t<F>&> && std::constructible_from<std::decay_t<F>, F>
  void execute(F&& f) {
    // (an ExecutorTask rvalue is moved, not wrapped)
    detail::ExecutorTask task(std::forward<F>(f));
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  static std::size_t default_size() noexcept {
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 1 ? hw - 1 : 1;
  }

  void work() {
    for (;;) {
      dependent_t<detail::ExecutorTask, T> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left to run
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  void stop_and_join() noexcept {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    threads_.clear();  // joins (std::jthread)
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  dependent_t<std::deque<detail::ExecutorTask>, T> queue_;
  bool stopping_ = false;
  dependent_t<std::vector<std::jthread>, T> threads_;
};
}  // namespace detail

using ThreadPool = detail::ThreadPoolOf<>;

static_assert(Executor<ThreadPool>);

}  // namespace passinfra
