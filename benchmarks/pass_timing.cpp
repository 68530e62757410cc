// PassTimingInstrument's cost per pass against the two clock reads it needs
// (DESIGN.md: "PassTimingInstrument | the two clock reads per pass (+ the gate) | <= 1.3x").
//
// N = 100 trivial passes in a static Sequential. Each benchmark reports
// items = passes, so the time per item is the cost per pass:
//   hand/steady_clock      the PassEnabled gate + body + two std::chrono::steady_clock::now()
//   hand/SteadyClock       the same with passinfra::SteadyClock (CLOCK_MONOTONIC without libstdc++'s call)
//   hand/TscClock          the same with passinfra::TscClock
//   sequential/none        the Sequential under a context with no instrument
//   sequential/timing      ... with PassTimingInstrument (SteadyClock), cleared every iteration
//   sequential/timing_tsc  ... with BasicPassTimingInstrument<TscClock>
// For instruction counts: valgrind --tool=callgrind ./pass_timing --benchmark_min_time=0.01
//
// Measured when written (g++ 12 -O2, 2-core VM), per pass:
//   wall time:  hand/steady_clock 54 ns, sequential/timing 57 ns (1.06x); TSC 22 vs 22 ns (1.0x):
//               the clock reads dominate, the bookkeeping is a few ns.
//   callgrind:  hand/steady_clock 47.6 Ir, hand/SteadyClock 34.5 Ir, hand/TscClock 9.1 Ir,
//               sequential/timing 89.2 Ir (1.87x the first), sequential/timing_tsc 61.0 Ir.
//               Under valgrind clock_gettime is a bare syscall (~10 Ir), so the
//               clock reads look cheap and the ~50 Ir of bookkeeping (thread
//               check, 64-byte entry with the name copied in, nesting link, the
//               core's gate and hook fan-out) dominate the ratio.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string_view>
#include <utility>

#include <passinfra/core.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>

namespace {

struct Ir {
  long value = 0;
};

template <int K>
struct Name {
  static constexpr char text[] = {'P', 'a', 's', 's', '_', char('0' + K / 10), char('0' + K % 10), 0};
};

template <int K>
struct Trivial {
  static constexpr passinfra::PassInfo info{std::string_view(Name<K>::text), 0};
  Ir transform(Ir ir, auto&) const {
    ir.value += K;
    return ir;
  }
};

constexpr int N = 100;

template <std::size_t... K>
auto make_pipeline(std::index_sequence<K...>) {
  return passinfra::Sequential<Trivial<int(K)>...>{};
}
using Pipeline = decltype(make_pipeline(std::make_index_sequence<N>{}));

std::uint64_t sink;

template <class Now, std::size_t... K>
long hand_written(long v, int opt_level, Now now, std::index_sequence<K...>) {
  Ir ir{v};
  auto one = [&](auto pass) {
    if (opt_level >= decltype(pass)::info.opt_level) {
      const auto start = now();
      ir = pass.transform(std::move(ir), opt_level);
      const auto end = now();
      sink += static_cast<std::uint64_t>(end - start);
    }
  };
  (one(Trivial<int(K)>{}), ...);
  return ir.value;
}

template <class Now>
void hand(benchmark::State& state, Now now) {
  int opt_level = 2;
  benchmark::DoNotOptimize(opt_level);
  for (auto _ : state) {
    benchmark::DoNotOptimize(hand_written(1, opt_level, now, std::make_index_sequence<N>{}));
  }
  state.SetItemsProcessed(state.iterations() * N);
}

void BM_hand_steady_clock(benchmark::State& state) {
  hand(state, [] { return std::chrono::steady_clock::now().time_since_epoch().count(); });
}
void BM_hand_SteadyClock(benchmark::State& state) {
  hand(state, [clock = passinfra::SteadyClock{}] { return clock.now(); });
}
void BM_hand_TscClock(benchmark::State& state) {
  hand(state, [clock = passinfra::TscClock{}] { return clock.now(); });
}

void BM_sequential_none(benchmark::State& state) {
  auto ctx = passinfra::make_pass_context<Ir>({});
  for (auto _ : state) benchmark::DoNotOptimize(passinfra::run(Pipeline{}, Ir{1}, ctx).value);
  state.SetItemsProcessed(state.iterations() * N);
}

template <class Clock>
void sequential_timed(benchmark::State& state) {
  passinfra::BasicPassTimingInstrument<Clock> timing;
  auto ctx = passinfra::make_pass_context<Ir>({}, std::ref(timing));
  for (auto _ : state) {
    benchmark::DoNotOptimize(passinfra::run(Pipeline{}, Ir{1}, ctx).value);
    timing.clear();  // steady state: the entry array keeps its capacity
  }
  state.SetItemsProcessed(state.iterations() * N);
}
void BM_sequential_timing(benchmark::State& state) { sequential_timed<passinfra::SteadyClock>(state); }
void BM_sequential_timing_tsc(benchmark::State& state) { sequential_timed<passinfra::TscClock>(state); }

}  // namespace

BENCHMARK(BM_hand_steady_clock);
BENCHMARK(BM_hand_SteadyClock);
BENCHMARK(BM_hand_TscClock);
BENCHMARK(BM_sequential_none);
BENCHMARK(BM_sequential_timing);
BENCHMARK(BM_sequential_timing_tsc);
