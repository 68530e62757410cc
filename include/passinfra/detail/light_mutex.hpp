// passinfra/detail/light_mutex.hpp — a mutex for cold, process-wide state
// (the config registry, the log sink) without <mutex>.
//
// LightMutex        lock() / unlock(); waits with C++20 atomic wait (a futex
//                   on Linux), so a contended lock sleeps rather than spins
// LightLock(m)      RAII: locks m for the scope
//
// <mutex> pulls in <chrono>, <system_error> and more; core.hpp's users pay
// for every header it includes, and these locks guard state touched only
// when an option is registered or a message is logged. <atomic> is part of
// the core anyway (pipeline_info.hpp).
#pragma once

#include <atomic>

namespace passinfra::detail {

class LightMutex {
 public:
  LightMutex() = default;
  LightMutex(const LightMutex&) = delete;
  LightMutex& operator=(const LightMutex&) = delete;

  void lock() noexcept {
    while (locked_.test_and_set(std::memory_order_acquire)) locked_.wait(true, std::memory_order_relaxed);
  }
  void unlock() noexcept {
    locked_.clear(std::memory_order_release);
    locked_.notify_one();
  }

 private:
  std::atomic_flag locked_;  // clear (C++20: value-initialized to false)
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
