// The clocks PassTimingInstrument reads: SteadyClock, ChronoClock, TscClock, ManualClock.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include <passinfra/instruments/timing_clocks.hpp>

using namespace passinfra;

TEST_CASE("timing clocks: all four are TimingClocks; a type without the API is not") {
  static_assert(TimingClock<SteadyClock>);
  static_assert(TimingClock<ChronoClock<std::chrono::high_resolution_clock>>);
  static_assert(TimingClock<TscClock>);
  static_assert(TimingClock<ManualClock>);
  struct NoNoexcept {
    std::uint64_t now() const { return 0; }
    std::int64_t to_ns(std::uint64_t t) const { return static_cast<std::int64_t>(t); }
  };
  static_assert(!TimingClock<NoNoexcept>);
  static_assert(!TimingClock<int>);
}

TEST_CASE("timing clocks: SteadyClock reads steady_clock's time in nanoseconds") {
  const SteadyClock clock;
  const auto before = std::chrono::steady_clock::now().time_since_epoch();
  const std::uint64_t t = clock.now();
  const auto after = std::chrono::steady_clock::now().time_since_epoch();
  CHECK(clock.to_ns(t) >= std::chrono::duration_cast<std::chrono::nanoseconds>(before).count());
  CHECK(clock.to_ns(t) <= std::chrono::duration_cast<std::chrono::nanoseconds>(after).count());
  CHECK(clock.to_ns(1234) == 1234);
}

TEST_CASE("timing clocks: ChronoClock converts its clock's ticks to nanoseconds") {
  using Micro = ChronoClock<std::chrono::steady_clock>;
  CHECK(Micro{}.to_ns(5) ==
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::duration(5)).count());
  const Micro clock;
  const std::uint64_t a = clock.now();
  const std::uint64_t b = clock.now();
  CHECK(b >= a);
}

TEST_CASE("timing clocks: TscClock is calibrated against steady_clock") {
  const TscClock clock;
  CHECK(clock.ns_per_tick() > 0.0);
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t c0 = clock.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::uint64_t c1 = clock.now();
  const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
  const std::int64_t measured = clock.to_ns(c1 - c0);
  // Within 20% (the sleep, not the calibration, is the noisy part).
  CHECK(measured > elapsed.count() * 8 / 10);
  CHECK(measured < elapsed.count() * 12 / 10);
  if constexpr (TscClock::is_tsc) {
    INFO("invariant TSC: " << TscClock::invariant());
    CHECK(TscClock().ns_per_tick() == clock.ns_per_tick());  // one calibration per process
  }
}

TEST_CASE("timing clocks: ManualClock moves only when told, and copies share it") {
  const ManualClock clock(100);
  const ManualClock copy = clock;
  CHECK(clock.now() == 100);
  copy.advance(50);
  CHECK(clock.now() == 150);
  clock.advance(std::chrono::microseconds(1));
  CHECK(copy.now() == 1150);
  clock.set(7);
  CHECK(copy.now() == 7);
  CHECK(clock.to_ns(42) == 42);
}
