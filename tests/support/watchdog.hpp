// tests/support/watchdog.hpp — bounded waits for tests that start threads.
//
// within_deadline(test, what, body): runs body() on a thread of its own; if it
// has not finished within the deadline (a deadlock, a lost wake-up), prints
// "<test>: '<what>' did not finish within the deadline" and aborts, so a
// broken build fails instead of hanging the test run. No sleeps: the caller
// waits on a condition variable with a time limit.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace test_support {

inline constexpr auto kWatchdogDeadline = std::chrono::seconds(60);

template <class Body>
void within_deadline(const char* test, const char* what, Body body) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread t([&] {
    body();
    {
      std::lock_guard lock(m);
      done = true;
    }
    cv.notify_all();
  });
  std::unique_lock lock(m);
  if (!cv.wait_for(lock, kWatchdogDeadline, [&] { return done; })) {
    std::fprintf(stderr, "%s: '%s' did not finish within the deadline (deadlock or lost wake-up?)\n", test, what);
    std::abort();
  }
  lock.unlock();
  t.join();
}

}  // namespace test_support
