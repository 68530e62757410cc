// benchmarks/nest_parallel.cpp — wall time of a parallel nest against the same
// nest run serially (DESIGN "Nests and parallel execution", performance
// targets), Google Benchmark, medians of repetitions:
//
//   BM_EqualUnits/<mode>   8 units of equal cost (a fixed arithmetic loop of about
//                          5 ms each on this machine), one unit pass
//   BM_ResNet8/<mode>      ResNet-18 in 8 functions (tinyir), the pipeline
//                          InferType, function(FoldConstant, EliminateCommonSubexpr,
//                          DeadCodeElimination, FuseOps); the module is rebuilt
//                          outside the timed region
//   BM_ForkJoin64/<mode>   64 units that do nothing: the fork-join's own cost
//
// <mode>: 0 = serial (no executor), 1 = parallel on ThreadPool(1) (the caller
// plus one worker: both cores of the 2-core machine), 2 = ThreadPool(hardware - 1).
// Run: build/release/benchmarks/nest_parallel --benchmark_repetitions=7
//      --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <passinfra/passinfra.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/workloads.hpp"

namespace np {
struct Unit {
  std::uint64_t v = 0;
};
struct Parent {
  std::vector<Unit> units;
};
// About 5 ms of arithmetic the optimizer cannot remove (a dependent chain).
inline std::uint64_t spin(std::uint64_t x, std::uint64_t rounds) {
  for (std::uint64_t i = 0; i < rounds; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(x));
  }
  return x;
}
inline std::uint64_t g_rounds = 0;  // calibrated in main-like setup below
struct Busy {
  static constexpr passinfra::PassInfo info{"Busy", 0};
  template <class Ctx>
  Unit transform(Unit u, Ctx&) const {
    u.v = spin(u.v, g_rounds);
    return u;
  }
};
struct Nothing {
  static constexpr passinfra::PassInfo info{"Nothing", 0};
  template <class Ctx>
  Unit transform(Unit u, Ctx&) const {
    return u;
  }
};
}  // namespace np

template <>
struct passinfra::ir_traits<np::Unit> {
  static constexpr std::string_view name = "function";
  using parent_type = np::Parent;
};
template <>
struct passinfra::unit_traits<np::Parent, np::Unit> {
  static std::vector<passinfra::UnitSlot<np::Unit>> units(const np::Parent& p) {
    std::vector<passinfra::UnitSlot<np::Unit>> out;
    out.reserve(p.units.size());
    for (const auto& u : p.units) out.push_back({"@f", u});
    return out;
  }
  static np::Parent replace_units(np::Parent p, std::vector<passinfra::UnitSlot<np::Unit>> slots) {
    for (std::size_t i = 0; i < slots.size(); ++i) p.units[i] = slots[i].ir;
    return p;
  }
};

namespace {

passinfra::ThreadPool& pool_for(int mode) {
  static passinfra::ThreadPool one(1);
  static passinfra::ThreadPool all;
  return mode == 1 ? one : all;
}

passinfra::PassContextOptions options_for(int mode) {
  passinfra::PassContextOptions o;
  o.opt_level = 3;
  if (mode != 0) o.executor = pool_for(mode);
  return o;
}

void calibrate() {
  if (np::g_rounds != 0) return;
  // rounds for ~5 ms: time 2^20 rounds and scale.
  const auto t0 = std::chrono::steady_clock::now();
  benchmark::DoNotOptimize(np::spin(1, 1u << 20));
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  np::g_rounds = static_cast<std::uint64_t>(5e6 / ns * (1u << 20));
}

void BM_EqualUnits(benchmark::State& state) {
  calibrate();
  const int mode = static_cast<int>(state.range(0));
  auto ctx = passinfra::make_pass_context<np::Parent>(options_for(mode));
  const passinfra::Nest<np::Unit, np::Busy> nest;
  for (auto _ : state) {
    np::Parent p{std::vector<np::Unit>(8)};
    p = passinfra::run(nest, std::move(p), ctx);
    benchmark::DoNotOptimize(p.units[7].v);
  }
}
BENCHMARK(BM_EqualUnits)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

tinyir::Module resnet18_x8() {
  std::vector<tinyir::Module::Entry> entries;
  for (int i = 0; i < 8; ++i) entries.emplace_back("f" + std::to_string(i), tinyir::resnet18(true).main());
  return tinyir::Module(std::move(entries));
}

void BM_ResNet8(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  auto ctx = passinfra::make_pass_context<tinyir::Module>(options_for(mode));
  using Optimize =
      passinfra::Sequential<tinyir::InferType,
                            passinfra::Nest<tinyir::Function, tinyir::FoldConstant, tinyir::EliminateCommonSubexpr,
                                            tinyir::DeadCodeElimination, tinyir::FuseOps>>;
  for (auto _ : state) {
    state.PauseTiming();
    tinyir::Module m = resnet18_x8();
    state.ResumeTiming();
    m = passinfra::run(Optimize{}, std::move(m), ctx);
    benchmark::DoNotOptimize(m.size());
  }
}
BENCHMARK(BM_ResNet8)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ForkJoin64(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  auto ctx = passinfra::make_pass_context<np::Parent>(options_for(mode));
  const passinfra::Nest<np::Unit, np::Nothing> nest;
  const np::Parent input{std::vector<np::Unit>(64)};
  for (auto _ : state) {
    np::Parent p = passinfra::run(nest, input, ctx);
    benchmark::DoNotOptimize(p.units[63].v);
  }
}
BENCHMARK(BM_ForkJoin64)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
