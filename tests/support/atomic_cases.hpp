// tests/support/atomic_cases.hpp — the test cases of detail::Atomic and
// detail::LightMutex, included by two test programs: tests/detail/atomic_test.cpp
// (passinfra_tests: the built-in / futex implementation on Linux with g++ or
// clang) and tests/standalone/std_atomic.cpp (its own program, built with
// PASSINFRA_STD_ATOMIC=1: the std::atomic implementation). Both must pass the
// same cases.
//
// Concurrency is shown with bounded waits: a case that would hang if a wake-up
// were lost runs under a watchdog that reports and aborts instead.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include <passinfra/detail/atomic.hpp>
#include <passinfra/detail/light_mutex.hpp>

#include "support/watchdog.hpp"

namespace atomic_cases {

using passinfra::detail::Atomic;
using passinfra::detail::LightLock;
using passinfra::detail::LightMutex;
using passinfra::detail::MemoryOrder;

// A case that would hang if a wake-up were lost runs under a watchdog.
template <class Body>
void within_deadline(const char* what, Body body) {
  test_support::within_deadline("atomic test", what, body);
}

// Constant initialization, as the library's process-wide counters need.
constinit Atomic<std::uint32_t> constant_counter{7};

TEST_CASE("detail::Atomic: the std::atomic operations, one thread") {
  CHECK(constant_counter.load() == 7);

  Atomic<std::uint64_t> a{5};
  CHECK(a.load() == 5);
  a.store(9, MemoryOrder::release);
  CHECK(a.load(MemoryOrder::acquire) == 9);
  CHECK(a.exchange(11) == 9);
  CHECK(a.fetch_add(4, MemoryOrder::relaxed) == 11);
  CHECK(a.fetch_sub(5) == 15);
  CHECK(a.fetch_or(0x100) == 10);
  CHECK(a.load() == 0x10A);

  std::uint64_t expected = 1;  // wrong: fails and reports the value
  CHECK_FALSE(a.compare_exchange_weak(expected, 2));
  CHECK(expected == 0x10A);
  bool swapped = false;
  for (int i = 0; i < 100 && !swapped; ++i) swapped = a.compare_exchange_weak(expected, 3, MemoryOrder::acq_rel);
  CHECK(swapped);  // a weak exchange may fail spuriously, not a hundred times in a row
  CHECK(a.load() == 3);

  Atomic<bool> flag;
  CHECK_FALSE(flag.load());
  CHECK_FALSE(flag.exchange(true, MemoryOrder::acquire));
  CHECK(flag.exchange(false));

  int x = 0;
  int y = 0;
  Atomic<const int*> p{nullptr};
  CHECK(p.load() == nullptr);
  p.store(&x);
  const int* seen = &x;
  const bool swapped_pointer = p.compare_exchange_weak(seen, &y);
  CHECK(swapped_pointer == (p.load() == &y));
  CHECK(p.exchange(nullptr) != nullptr);

  Atomic<std::uint32_t> w{1};
  w.wait(0);  // returns at once: the value is not the one waited on
  w.notify_one();
  w.notify_all();  // no waiter: nothing happens
  CHECK(w.load() == 1);
}

TEST_CASE("detail::Atomic: fetch_add from four threads loses no increment") {
  Atomic<std::uint64_t> counter{0};
  constexpr int kThreads = 4;
  constexpr int kEach = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) counter.fetch_add(1, MemoryOrder::relaxed);
    });
  }
  for (auto& t : threads) t.join();
  CHECK(counter.load() == std::uint64_t{kThreads} * kEach);
}

TEST_CASE("detail::Atomic: wait sleeps until another thread changes the value and notifies") {
  for (int round = 0; round < 200; ++round) {
    Atomic<std::uint32_t> word{0};
    Atomic<std::uint32_t> seen{0};
    within_deadline("wait / notify_one", [&] {
      std::thread waiter([&] {
        word.wait(0, MemoryOrder::acquire);
        seen.store(word.load());
      });
      word.store(round + 1, MemoryOrder::release);
      word.notify_one();
      waiter.join();
    });
    CHECK(seen.load() == static_cast<std::uint32_t>(round + 1));
  }
  // notify_all wakes every waiter.
  Atomic<std::uint32_t> gate{0};
  Atomic<std::uint32_t> through{0};
  within_deadline("wait / notify_all", [&] {
    std::vector<std::thread> waiters;
    for (int t = 0; t < 3; ++t) {
      waiters.emplace_back([&] {
        gate.wait(0);
        through.fetch_add(1);
      });
    }
    gate.store(1);
    gate.notify_all();
    for (auto& t : waiters) t.join();
  });
  CHECK(through.load() == 3);
}

TEST_CASE("detail::LightMutex: mutual exclusion, and a contended lock is handed over") {
  LightMutex mutex;
  std::uint64_t plain = 0;  // guarded by mutex (ThreadSanitizer checks it)
  constexpr int kThreads = 4;
  constexpr int kEach = 5000;
  within_deadline("four threads lock and unlock", [&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kEach; ++i) {
          LightLock lock(mutex);
          ++plain;
        }
      });
    }
    for (auto& t : threads) t.join();
  });
  CHECK(plain == std::uint64_t{kThreads} * kEach);

  // The lock is held while another thread asks for it; it gets it once released.
  for (int round = 0; round < 100; ++round) {
    Atomic<std::uint32_t> asking{0};
    Atomic<std::uint32_t> got{0};
    within_deadline("a waiting locker is woken", [&] {
      mutex.lock();
      std::thread locker([&] {
        asking.store(1);
        asking.notify_one();
        LightLock lock(mutex);
        got.store(1);
      });
      asking.wait(0);
      CHECK(got.load() == 0);  // still held here
      mutex.unlock();
      locker.join();
    });
    CHECK(got.load() == 1);
  }
}

}  // namespace atomic_cases
