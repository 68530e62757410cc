// passinfra/detail/atomic.hpp — the atomics core needs, without <atomic>.
//
// Atomic<T>            T an integer, bool or pointer type; load / store / exchange /
//                      compare_exchange_weak, fetch_add / fetch_sub / fetch_or
//                      (integers), with the std::atomic member names and defaults
//                      (sequentially consistent unless an order is given)
//   .wait(old) / .notify_one() / .notify_all()
//                      for 4-byte T: wait returns once the value differs from
//                      old (C++20 atomic wait: sleeps, re-checks after each wake-up)
// MemoryOrder          relaxed, acquire, release, acq_rel, seq_cst
//
// Why: libstdc++'s <atomic> brings atomic wait's machinery (<bits/gthr.h>,
// pthread.h, <bits/std_mutex.h>, <bits/chrono.h>) to every translation unit
// that includes it, ~250 M instructions of g++'s time on core.hpp's ~3,100 M
// (issue 18), while core uses a handful of operations. With g++ or clang on
// Linux, Atomic<T> is the compilers' __atomic built-ins (what std::atomic is
// made of; ThreadSanitizer instruments them) and wait / notify are the futex
// calls libstdc++ makes itself; elsewhere, or with PASSINFRA_STD_ATOMIC
// defined to 1, it forwards to std::atomic<T>. The two behave alike; a test
// builds each (tests/detail/atomic_test.cpp, tests/standalone/std_atomic.cpp).
// Like PASSINFRA_FORCE_INLINE, the macro must have one value in a program.
#pragma once

#include <type_traits>

#if !defined(PASSINFRA_STD_ATOMIC)
#if (defined(__GNUC__) || defined(__clang__)) && defined(__linux__)
#define PASSINFRA_STD_ATOMIC 0
#else
#define PASSINFRA_STD_ATOMIC 1
#endif
#endif

#if PASSINFRA_STD_ATOMIC
#include <atomic>
#else
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace passinfra::detail {

#if !PASSINFRA_STD_ATOMIC

enum class MemoryOrder : int {
  relaxed = __ATOMIC_RELAXED,
  acquire = __ATOMIC_ACQUIRE,
  release = __ATOMIC_RELEASE,
  acq_rel = __ATOMIC_ACQ_REL,
  seq_cst = __ATOMIC_SEQ_CST,
};

// A compare-exchange's order on failure: its success order without the release part.
constexpr int failure_order(MemoryOrder order) noexcept {
  switch (order) {
    case MemoryOrder::release:
      return __ATOMIC_RELAXED;
    case MemoryOrder::acq_rel:
      return __ATOMIC_ACQUIRE;
    default:
      return static_cast<int>(order);
  }
}

// The futex calls (Linux): sleep while *word == old; wake up to n sleepers.
// The process-private forms, as libstdc++ uses for std::atomic<int>::wait.
inline void futex_wait(const void* word, unsigned old) noexcept {
  ::syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, old, nullptr, nullptr, 0);
}
inline void futex_wake(const void* word, int n) noexcept {
  ::syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, nullptr, nullptr, 0);
}

template <class T>
class Atomic {
  static_assert(std::is_integral_v<T> || std::is_pointer_v<T>,
                "passinfra::detail::Atomic<T>: T must be an integer, bool or pointer type");

 public:
  constexpr Atomic() noexcept : value_() {}
  constexpr Atomic(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor): as std::atomic
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  T load(MemoryOrder order = MemoryOrder::seq_cst) const noexcept {
    return __atomic_load_n(&value_, static_cast<int>(order));
  }
  void store(T value, MemoryOrder order = MemoryOrder::seq_cst) noexcept {
    __atomic_store_n(&value_, value, static_cast<int>(order));
  }
  T exchange(T value, MemoryOrder order = MemoryOrder::seq_cst) noexcept {
    return __atomic_exchange_n(&value_, value, static_cast<int>(order));
  }
  bool compare_exchange_weak(T& expected, T desired, MemoryOrder order = MemoryOrder::seq_cst) noexcept {
    return __atomic_compare_exchange_n(&value_, &expected, desired, true, static_cast<int>(order),
                                       failure_order(order));
  }
  T fetch_add(T n, MemoryOrder order = MemoryOrder::seq_cst) noexcept
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  {
    return __atomic_fetch_add(&value_, n, static_cast<int>(order));
  }
  T fetch_sub(T n, MemoryOrder order = MemoryOrder::seq_cst) noexcept
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  {
    return __atomic_fetch_sub(&value_, n, static_cast<int>(order));
  }
  T fetch_or(T bits, MemoryOrder order = MemoryOrder::seq_cst) noexcept
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  {
    return __atomic_fetch_or(&value_, bits, static_cast<int>(order));
  }

  // Returns once the value is seen to differ from `old` (read with `order`).
  void wait(T old, MemoryOrder order = MemoryOrder::seq_cst) const noexcept
    requires(sizeof(T) == 4 && std::is_integral_v<T>)
  {
    while (load(order) == old) futex_wait(&value_, static_cast<unsigned>(old));
  }
  void notify_one() noexcept
    requires(sizeof(T) == 4 && std::is_integral_v<T>)
  {
    futex_wake(&value_, 1);
  }
  void notify_all() noexcept
    requires(sizeof(T) == 4 && std::is_integral_v<T>)
  {
    futex_wake(&value_, ~0U >> 1);
  }

 private:
  alignas(sizeof(T)) T value_;
};

#else  // PASSINFRA_STD_ATOMIC

enum class MemoryOrder : int { relaxed, acquire, release, acq_rel, seq_cst };

constexpr std::memory_order std_order(MemoryOrder order) noexcept {
  switch (order) {
    case MemoryOrder::relaxed:
      return std::memory_order_relaxed;
    case MemoryOrder::acquire:
      return std::memory_order_acquire;
    case MemoryOrder::release:
      return std::memory_order_release;
    case MemoryOrder::acq_rel:
      return std::memory_order_acq_rel;
    default:
      return std::memory_order_seq_cst;
  }
}

template <class T>
class Atomic {
  static_assert(std::is_integral_v<T> || std::is_pointer_v<T>,
                "passinfra::detail::Atomic<T>: T must be an integer, bool or pointer type");

 public:
  constexpr Atomic() noexcept : value_() {}
  constexpr Atomic(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor): as std::atomic
  Atomic(const Atomic&) = delete;
  Atomic& operator=(const Atomic&) = delete;

  T load(MemoryOrder order = MemoryOrder::seq_cst) const noexcept { return value_.load(std_order(order)); }
  void store(T value, MemoryOrder order = MemoryOrder::seq_cst) noexcept { value_.store(value, std_order(order)); }
  T exchange(T value, MemoryOrder order = MemoryOrder::seq_cst) noexcept {
    return value_.exchange(value, std_order(order));
  }
  bool compare_exchange_weak(T& expected, T desired, MemoryOrder order = MemoryOrder::seq_cst) noexcept {
    return value_.compare_exchange_weak(expected, desired, std_order(order));
  }
  T fetch_add(T n, MemoryOrder order = MemoryOrder::seq_cst) noexcept
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  {
    return value_.fetch_add(n, std_order(order));
  }
  T fetch_sub(T n, MemoryOrder order = MemoryOrder::seq_cst) noexcept
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  {
    return value_.fetch_sub(n, std_order(order));
  }
  T fetch_or(T bits, MemoryOrder order = MemoryOrder::seq_cst) noexcept
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  {
    return value_.fetch_or(bits, std_order(order));
  }

  void wait(T old, MemoryOrder order = MemoryOrder::seq_cst) const noexcept
    requires(sizeof(T) == 4 && std::is_integral_v<T>)
  {
    value_.wait(old, std_order(order));
  }
  void notify_one() noexcept
    requires(sizeof(T) == 4 && std::is_integral_v<T>)
  {
    value_.notify_one();
  }
  void notify_all() noexcept
    requires(sizeof(T) == 4 && std::is_integral_v<T>)
  {
    value_.notify_all();
  }

 private:
  std::atomic<T> value_;
};

#endif  // PASSINFRA_STD_ATOMIC

}  // namespace passinfra::detail
