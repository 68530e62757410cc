// passinfra/core/executor.hpp — what a PassContext runs parallel nests on
// (SPEC §11.4, DESIGN "Parallel policy: the context's executor").
//
// detail::ExecutorTask   a move-only, type-erased `void() noexcept` task: what an
//                        executor is handed
// Executor<E>            concept: `e.execute(std::move(task))` compiles for an
//                        lvalue E and an ExecutorTask rvalue
// ExecutorRef            a non-owning, type-erased reference to an Executor (or
//                        to none); PassContextOptions::executor is one
//
// The Executor contract (a user's executor must keep it; passinfra relies on it):
//
// * `e.execute(t)` runs `t()` exactly once, on any thread, now or later:
//   inline (on the calling thread, before execute returns) is allowed, and so
//   is running it after the code that submitted it has finished. Destroying
//   `t` without running it (an executor shutting down) is allowed too and is
//   safe: a task releases what it holds when it is destroyed, run or not.
//   passinfra never relies on a task being run for progress (a nest's calling
//   thread runs every unit no helper took), only for speed.
// * `t()` never throws (ExecutorTask::operator() is noexcept).
// * `e.execute` may throw (e.g. std::bad_alloc, or "the pool is shut down");
//   passinfra then treats the task as not submitted (it is destroyed, unrun,
//   with the parameter that held it, or by the executor) and carries on
//   serially.
// * optional: `std::size_t max_concurrency() const` (any integral type that
//   converts to std::size_t): how many tasks the executor may run at once. A
//   nest submits at most that many helper tasks. A value below 1 counts as 1;
//   an executor without the member counts as unbounded
//   (ExecutorRef::unbounded).
//
// No <memory>, no <functional>, no <thread>: this header is part of core.hpp
// (the cheap include; tests/headers/core_is_light.cpp).
#pragma once

#include <concepts>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "passinfra/core/error.hpp"

namespace passinfra {

namespace detail {

// A move-only, type-erased `void() noexcept` task, written by hand (function
// pointers, a small buffer for callables of up to two pointers that move
// without throwing, else one heap allocation).
//
// * ExecutorTask() is empty; `explicit ExecutorTask(F&& f)` holds a decayed
//   copy of f (F: any callable invocable as `f()` on a non-const lvalue,
//   move- or copy-constructible; a move-only lambda is fine).
// * operator()() const noexcept runs the callable once, then destroys it: the
//   task is empty afterwards, and calling an empty task does nothing. It is
//   const because some executors (oneTBB's task_arena::enqueue) keep the task
//   as a const object; the callable itself is invoked as a non-const lvalue.
//   If the callable throws, std::terminate is called (noexcept), as for a
//   std::thread's function: a task has nobody to hand an exception to, so
//   passinfra's own tasks catch everything themselves.
// * Destroying a task that never ran destroys the callable (releasing what it
//   holds) without calling it.
// * Moving leaves the source empty.
class ExecutorTask {
 public:
  ExecutorTask() noexcept = default;

  template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, ExecutorTask>) && std::invocable<std::decay_t<F>&> &&
            std::constructible_from<std::decay_t<F>, F>
  // NOLINTNEXTLINE(bugprone-forwarding-reference-overload): the requires-clause excludes ExecutorTask
  explicit ExecutorTask(F&& f) {
    using Fn = std::decay_t<F>;
    if constexpr (fits_inline<Fn>()) {
      ::new (static_cast<void*>(storage_.buffer)) Fn(std::forward<F>(f));
      ops_ = &inline_ops<Fn>;
    } else {
      storage_.heap = new Fn(std::forward<F>(f));
      ops_ = &heap_ops<Fn>;
    }
  }

  ExecutorTask(ExecutorTask&& other) noexcept { take(other); }
  ExecutorTask& operator=(ExecutorTask&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  ExecutorTask(const ExecutorTask&) = delete;
  ExecutorTask& operator=(const ExecutorTask&) = delete;
  ~ExecutorTask() { reset(); }

  // Runs the callable (if any) and then destroys it; see the class comment.
  void operator()() const noexcept {
    if (ops_ == nullptr) return;
    const Ops* ops = ops_;
    ops_ = nullptr;  // empty from here on: a second call does nothing
    ops->run(storage_);
    ops->destroy(storage_);
  }

  // True if the task holds a callable (not yet run, not moved from).
  explicit operator bool() const noexcept { return ops_ != nullptr; }

 private:
  static constexpr std::size_t kBufferSize = 2 * sizeof(void*);

  union Storage {
    void* heap;
    alignas(void*) unsigned char buffer[kBufferSize];
  };

  struct Ops {
    void (*run)(Storage&) noexcept;
    void (*destroy)(Storage&) noexcept;
    // Moves the callable from `from` into the raw `to` and ends it in `from`.
    void (*relocate)(Storage& to, Storage& from) noexcept;
  };

  // Whether Fn lives in the small buffer (else on the heap).
  template <class Fn>
  static constexpr bool fits_inline() noexcept {
    if constexpr (sizeof(Fn) > kBufferSize) {
      return false;
    } else if constexpr (alignof(Fn) > alignof(void*)) {
      return false;
    } else {
      return std::is_nothrow_move_constructible_v<Fn>;
    }
  }

  template <class Fn>
  static Fn& inline_object(Storage& s) noexcept {
    return *std::launder(reinterpret_cast<Fn*>(s.buffer));
  }

  template <class Fn>
  static constexpr Ops inline_ops{
      [](Storage& s) noexcept { inline_object<Fn>(s)(); },
      [](Storage& s) noexcept { inline_object<Fn>(s).~Fn(); },
      [](Storage& to, Storage& from) noexcept {
        ::new (static_cast<void*>(to.buffer)) Fn(std::move(inline_object<Fn>(from)));
        inline_object<Fn>(from).~Fn();
      },
  };

  template <class Fn>
  static constexpr Ops heap_ops{
      [](Storage& s) noexcept { (*static_cast<Fn*>(s.heap))(); },
      [](Storage& s) noexcept { delete static_cast<Fn*>(s.heap); },
      [](Storage& to, Storage& from) noexcept { to.heap = from.heap; },
  };

  void take(ExecutorTask& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->relocate(storage_, other.storage_);
    ops_ = other.ops_;
    other.ops_ = nullptr;
  }

  void reset() noexcept {
    if (ops_ == nullptr) return;
    const Ops* ops = ops_;
    ops_ = nullptr;
    ops->destroy(storage_);
  }

  // mutable: operator() is const (see above) but runs and ends the callable.
  mutable Storage storage_{};
  mutable const Ops* ops_ = nullptr;
};

}  // namespace detail

// An executor: see the contract at the top of this file.
template <class E>
concept Executor = requires(E& e, detail::ExecutorTask t) { e.execute(std::move(t)); };

// A non-owning, type-erased reference to an Executor, or to none.
//
//   ExecutorRef()            none: `!ref`; every nest under it runs serially
//   ExecutorRef(E& e)        refers to e (E an Executor); e must outlive every
//                            use of the reference (and of the contexts holding
//                            it). An rvalue (a temporary executor) does not
//                            bind: that overload is deleted, so a dangling
//                            reference does not compile.
//   explicit operator bool   whether it refers to an executor
//   max_concurrency()        e.max_concurrency() (below 1 counts as 1) when E
//                            has it, else ExecutorRef::unbounded; 0 for none
//   execute(task)            e.execute(std::move(task)); an exception thrown
//                            by e.execute propagates (the task is then
//                            destroyed unrun unless e kept it). Throws
//                            passinfra::Error when the reference is empty.
//
// Copies refer to the same executor. Calling execute/max_concurrency
// concurrently from several threads is as safe as the executor's own members
// (ThreadPool's are).
class ExecutorRef {
 public:
  // max_concurrency() of an executor that does not declare one.
  static constexpr std::size_t unbounded = static_cast<std::size_t>(-1);  // SIZE_MAX

  ExecutorRef() noexcept = default;

  template <Executor E>
    requires(!std::same_as<std::remove_cv_t<E>, ExecutorRef>)
  ExecutorRef(E& e) noexcept  // NOLINT(google-explicit-constructor): `.executor = pool` reads as intended
      : object_(const_cast<void*>(static_cast<const volatile void*>(&e))),
        execute_(&execute_impl<E>),
        max_concurrency_(&max_concurrency_impl<E>) {}

  // The compiler quotes this line when it refuses a temporary executor.
  template <class E>
    requires(!std::same_as<std::remove_cv_t<E>, ExecutorRef>)
  ExecutorRef(const E&&) = delete;  // ExecutorRef to a temporary executor: it would dangle; name the executor

  explicit operator bool() const noexcept { return object_ != nullptr; }

  [[nodiscard]] std::size_t max_concurrency() const { return object_ == nullptr ? 0 : max_concurrency_(object_); }

  void execute(detail::ExecutorTask task) const {
    if (object_ == nullptr) throw Error("ExecutorRef::execute: the reference has no executor");
    execute_(object_, std::move(task));
  }

 private:
  template <class E>
  static void execute_impl(void* object, detail::ExecutorTask&& task) {
    static_cast<E*>(object)->execute(std::move(task));
  }

  template <class E>
  static std::size_t max_concurrency_impl(void* object) {
    if constexpr (requires(const E& e) {
                    { e.max_concurrency() } -> std::convertible_to<std::size_t>;
                  }) {
      const auto value = static_cast<const E*>(object)->max_concurrency();
      if constexpr (std::is_integral_v<decltype(value)> && std::is_signed_v<decltype(value)>) {
        if (value < 1) return 1;
      }
      const auto result = static_cast<std::size_t>(value);
      return result < 1 ? 1 : result;
    } else {
      return unbounded;
    }
  }

  void* object_ = nullptr;
  void (*execute_)(void*, detail::ExecutorTask&&) = nullptr;
  std::size_t (*max_concurrency_)(void*) = nullptr;
};

}  // namespace passinfra
