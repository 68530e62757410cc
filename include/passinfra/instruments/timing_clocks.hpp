// passinfra/instruments/timing_clocks.hpp — the clocks PassTimingInstrument can read.
//
// TimingClock<C>              c.now() noexcept -> std::uint64_t ticks; c.to_ns(ticks) -> std::int64_t ns
// ChronoClock<C>              any std::chrono clock C as a TimingClock
// SteadyClock                 std::chrono::steady_clock's time (the default); on Linux read
//                             with clock_gettime(CLOCK_MONOTONIC) directly, as steady_clock does
// TscClock                    x86-64 time-stamp counter, calibrated to ns (elsewhere: steady_clock)
// TscClock::is_tsc            true where TscClock reads the TSC
// TscClock::invariant()       the CPU says its TSC ticks at a constant rate
// tsc.ns_per_tick()           the calibration (1 tick = ns_per_tick ns)
// ManualClock                 time the program sets: advance(ns) / set(ns); copies share it (tests)
//
// A clock is a policy object held by the instrument. The instrument reads
// now() twice per pass and stores raw ticks; to_ns() converts durations
// (tick differences) only when a report is made, so a clock that counts
// something cheaper than nanoseconds (the TSC) pays for the conversion
// once per report, not once per pass.
//
// TscClock calibrates once per process, on first construction, against
// steady_clock over about 2 ms. It assumes an invariant TSC (every x86-64
// CPU of the last decade has one; invariant() checks CPUID). The TSC is read
// with `rdtsc`, which is not serializing: fine for passes of a microsecond
// and more.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <ratio>

#include "passinfra/detail/atomic.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

// std::chrono's durations and clocks: under libstdc++ without the rest of
// <chrono> (C++20 adds the calendar, time zones and <sstream> for I/O).
#if defined(__GLIBCXX__) && __has_include(<bits/chrono.h>)
#include <bits/chrono.h>
#else
#include <chrono>
#endif

#if !defined(__GNUC__)
#include <cmath>
#endif

#if defined(__linux__)
#include <time.h>
#endif

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define PASSINFRA_HAS_TSC 1
#else
#define PASSINFRA_HAS_TSC 0
#endif

namespace passinfra {

// TimingClock<C>: a copyable clock with raw ticks and a conversion to ns.
template <class C>
concept TimingClock = std::copy_constructible<C> && requires(const C& clock, std::uint64_t ticks) {
  { clock.now() } noexcept -> std::same_as<std::uint64_t>;
  { clock.to_ns(ticks) } -> std::same_as<std::int64_t>;
};

// ChronoClock<C>: a std::chrono clock; ticks are C's own.
template <class C>
class ChronoClock {
 public:
  std::uint64_t now() const noexcept { return static_cast<std::uint64_t>(C::now().time_since_epoch().count()); }
  std::int64_t to_ns(std::uint64_t ticks) const noexcept {
    using D = typename C::duration;
    return static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(D(static_cast<typename D::rep>(ticks))).count());
  }
};

#if defined(__linux__)
// SteadyClock: CLOCK_MONOTONIC in ns -- what libstdc++'s and libc++'s
// steady_clock::now() return on Linux, without the call into the library.
class SteadyClock {
 public:
  std::uint64_t now() const noexcept {
    timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
  }
  std::int64_t to_ns(std::uint64_t ticks) const noexcept { return static_cast<std::int64_t>(ticks); }
};
#else
using SteadyClock = ChronoClock<std::chrono::steady_clock>;
#endif

// TscClock: the time-stamp counter, converted with a per-process calibration.
class TscClock {
 public:
  static constexpr bool is_tsc = PASSINFRA_HAS_TSC != 0;

  TscClock() : ns_per_tick_(calibration()) {}

  std::uint64_t now() const noexcept {
#if PASSINFRA_HAS_TSC
    return __builtin_ia32_rdtsc();
#else
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  }

  std::int64_t to_ns(std::uint64_t ticks) const noexcept {
#if defined(__GNUC__)  // g++ and clang: std::llround without <cmath> (and its special functions)
    return static_cast<std::int64_t>(__builtin_llround(static_cast<double>(ticks) * ns_per_tick_));
#else
    return static_cast<std::int64_t>(std::llround(static_cast<double>(ticks) * ns_per_tick_));
#endif
  }

  double ns_per_tick() const noexcept { return ns_per_tick_; }

  // invariant(): CPUID.80000007H:EDX[8], "the TSC runs at a constant rate in all states".
  static bool invariant() noexcept {
#if PASSINFRA_HAS_TSC
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
    __cpuid(0x80000007u, eax, ebx, ecx, edx);
    return (edx & (1u << 8)) != 0;
#else
    return false;
#endif
  }

 private:
  static double calibration() {
#if PASSINFRA_HAS_TSC
    static const double ns_per_tick = [] {
      using std::chrono::steady_clock;
      const auto t0 = steady_clock::now();
      const std::uint64_t c0 = __builtin_ia32_rdtsc();
      auto t1 = t0;
      while (t1 - t0 < std::chrono::milliseconds(2)) t1 = steady_clock::now();
      const std::uint64_t c1 = __builtin_ia32_rdtsc();
      const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
      return c1 > c0 ? ns / static_cast<double>(c1 - c0) : 1.0;
    }();
    return ns_per_tick;
#else
    using P = std::chrono::steady_clock::period;
    return 1e9 * static_cast<double>(P::num) / static_cast<double>(P::den);
#endif
  }

  double ns_per_tick_;
};

// ManualClock: reads a shared counter of nanoseconds that only moves when
// told to. Copies share the counter, so a test keeps one copy and hands
// another to the instrument. Thread-safe (relaxed atomics).
namespace detail {
// ManualClock is this template's one specialization: a class template's members are
// compiled only when used, so including the header compiles none of them.
template <class V = void>
class ManualClockOf {
 public:
  explicit ManualClockOf(std::int64_t start_ns = 0)
      : now_(std::make_shared<dependent_t<Atomic<std::int64_t>, V>>(start_ns)) {}

  std::uint64_t now() const noexcept { return static_cast<std::uint64_t>(now_->load(detail::MemoryOrder::relaxed)); }
  std::int64_t to_ns(std::uint64_t ticks) const noexcept { return static_cast<std::int64_t>(ticks); }

  void advance(std::int64_t ns) const noexcept { now_->fetch_add(ns, detail::MemoryOrder::relaxed); }
  void advance(std::chrono::nanoseconds d) const noexcept { advance(static_cast<std::int64_t>(d.count())); }
  void set(std::int64_t ns) const noexcept { now_->store(ns, detail::MemoryOrder::relaxed); }

 private:
  dependent_t<std::shared_ptr<Atomic<std::int64_t>>, V> now_;
};
}  // namespace detail

using ManualClock = detail::ManualClockOf<>;

// (That each clock here is a TimingClock is checked by tests/instruments/timing_clocks_test.cpp,
// not here: the check would compile the clocks in every translation unit, issue 18.)

}  // namespace passinfra
