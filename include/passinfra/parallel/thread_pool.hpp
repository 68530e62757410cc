// passinfra/parallel/thread_pool.hpp — ThreadPool: a plain FIFO pool of
// std::thread workers, a convenience Executor (core/executor.hpp) for
// PassContextOptions::executor. Not part of core.hpp (it needs std::thread);
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
// of its own workers is an error (a thread cannot join itself: std::thread::join
// reports it with std::system_error and std::terminate follows).
//
// Copy and move are deleted: contexts refer to the pool by address.
//
// Compile time (issue 18): std::thread without the rest of <thread> under
// libstdc++ (C++20's <thread> adds std::jthread, so <stop_token>, <atomic>
// and <semaphore>), and the queue's lock and wake-ups are detail::LightMutex
// and a detail::Atomic counter (a futex on Linux) rather than <mutex> and
// <condition_variable> (which also brings condition_variable_any, <stop_token>
// and shared_ptr): together ~600 M instructions of g++'s time on passinfra.hpp.
#pragma once

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__GLIBCXX__) && __has_include(<bits/std_thread.h>)
#include <bits/std_thread.h>
#else
#include <thread>
#endif

#include "passinfra/core/error.hpp"
#include "passinfra/core/executor.hpp"
#include "passinfra/detail/atomic.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra {

namespace detail {
// ThreadPool is this template's one specialization: a class template's
// members are compiled only when used, so including the header costs no
// compile time for the bodies below (the threads, the queue, the waits;
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
      const LightLock lock(mutex_);
      queue_.push_back(std::move(task));
    }
    wake(false);
  }

 private:
  static std::size_t default_size() noexcept {
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 1 ? hw - 1 : 1;
  }

  // The queue is a vector read from `head_`: FIFO, and the slots already
  // taken are dropped when the vector is empty or mostly taken.
  bool queue_empty() const noexcept { return head_ == queue_.size(); }

  // A condition variable made of the lock and a counter: a worker reads the
  // counter under the lock, finds nothing to do, unlocks and sleeps while the
  // counter still holds what it read; whoever changes what the workers wait
  // for (under the lock) bumps the counter after unlocking, then wakes them.
  void wake(bool all) noexcept {
    wakeups_.fetch_add(1);
    if (all) {
      wakeups_.notify_all();
    } else {
      wakeups_.notify_one();
    }
  }

  void work() {
    for (;;) {
      dependent_t<detail::ExecutorTask, T> task;
      mutex_.lock();
      while (!stopping_ && queue_empty()) {
        const unsigned seen = wakeups_.load();
        mutex_.unlock();
        wakeups_.wait(seen);
        mutex_.lock();
      }
      if (queue_empty()) {  // stopping, and nothing left to run
        mutex_.unlock();
        return;
      }
      task = std::move(queue_[head_]);
      ++head_;
      if (queue_empty()) {
        queue_.clear();
        head_ = 0;
      } else if (head_ >= 64 && head_ * 2 >= queue_.size()) {
        queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      mutex_.unlock();
      task();
    }
  }

  void stop_and_join() noexcept {
    {
      const LightLock lock(mutex_);
      stopping_ = true;
    }
    wake(true);
    for (auto& thread : threads_) thread.join();  // throws (so terminates) on a worker: see above
    threads_.clear();
  }

  LightMutex mutex_;
  Atomic<unsigned> wakeups_{0};
  dependent_t<std::vector<detail::ExecutorTask>, T> queue_;
  std::size_t head_ = 0;
  bool stopping_ = false;
  dependent_t<std::vector<std::thread>, T> threads_;
};
}  // namespace detail

using ThreadPool = detail::ThreadPoolOf<>;

// (That ThreadPool is an Executor is checked by tests/parallel/thread_pool_test.cpp, not
// here: the check would compile the pool's class in every translation unit, issue 18.)

}  // namespace passinfra
