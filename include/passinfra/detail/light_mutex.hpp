// passinfra/detail/light_mutex.hpp — a mutex for cold, process-wide state
// (the config registry, the log sink) without <mutex>.
//
// LightMutex        lock() / unlock(); a contended lock sleeps (Atomic::wait,
//                   a futex on Linux) rather than spins; an uncontended
//                   lock and unlock are one atomic operation each
// LightLock(m)      RAII: locks m for the scope
//
// <mutex> pulls in <chrono>, <system_error> and more; core.hpp's users pay
// for every header it includes, and these locks guard state touched only
// when an option is registered or a message is logged. Not <atomic> either
// (detail/atomic.hpp says why).
#pragma once

#include "passinfra/detail/atomic.hpp"

namespace passinfra::detail {

class LightMutex {
 public:
  LightMutex() = default;
  LightMutex(const LightMutex&) = delete;
  LightMutex& operator=(const LightMutex&) = delete;

  void lock() noexcept {
    unsigned state = kFree;
    if (state_.compare_exchange_weak(state, kLocked, MemoryOrder::acquire)) return;
    // Contended (or a spurious failure): mark the lock as awaited, sleep until it is free.
    if (state != kAwaited) state = state_.exchange(kAwaited, MemoryOrder::acquire);
    while (state != kFree) {
      state_.wait(kAwaited, MemoryOrder::relaxed);
      state = state_.exchange(kAwaited, MemoryOrder::acquire);
    }
  }
  void unlock() noexcept {
    if (state_.exchange(kFree, MemoryOrder::release) == kAwaited) state_.notify_one();
  }

 private:
  // kAwaited: locked, and a thread may be asleep on it (unlock wakes one).
  static constexpr unsigned kFree = 0, kLocked = 1, kAwaited = 2;
  Atomic<unsigned> state_{kFree};
};

class [[nodiscard]] LightLock {
 public:
  explicit LightLock(LightMutex& mutex) noexcept : mutex_(mutex) { mutex_.lock(); }
  LightLock(const LightLock&) = delete;
  LightLock& operator=(const LightLock&) = delete;
  ~LightLock() { mutex_.unlock(); }

 private:
  LightMutex& mutex_;
};

}  // namespace passinfra::detail
