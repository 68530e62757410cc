// benchmarks/statistic_callgrind.cpp — what a passinfra::Statistic increment
// costs (SPEC §13.4, DESIGN's target: one relaxed atomic RMW, no call, no
// branch: at most 3 instructions). A callgrind driver (callgrind_driver.hpp):
// each variant counts N = 1000 times in a loop that cannot be folded (an empty
// asm statement between iterations), so per-increment cost = (variant -
// stat_loop) / N, the loop itself measured alone:
//
//   stat_loop       the loop, counting into a local (the compiler keeps it in a register)
//   stat_increment  the loop with ++s on a Statistic
//   stat_add        the loop with s += i
//   stat_group      the loop with ++c on a counter from a StatisticGroup (get() once, outside the loop)
//
// benchmarks/callgrind.sh build/release/benchmarks/statistic_callgrind
#include <cstdint>
#include <vector>

#include <passinfra/core/statistic.hpp>

#include "callgrind_driver.hpp"

namespace {

constexpr long kCount = 1000;
const passinfra::Statistic counter{"counted", "Number of increments"};
passinfra::StatisticGroup group;
const passinfra::Statistic* grouped = nullptr;

inline void barrier() { asm volatile("" ::: "memory"); }

}  // namespace

PASSINFRA_BENCH_VARIANT long v_stat_loop_1000(long) {
  std::uint64_t local = 0;
  for (long i = 0; i < kCount; ++i) {
    ++local;
    barrier();
  }
  return static_cast<long>(local);
}
PASSINFRA_BENCH_VARIANT long v_stat_increment_1000(long) {
  for (long i = 0; i < kCount; ++i) {
    ++counter;
    barrier();
  }
  return static_cast<long>(counter.value());
}
PASSINFRA_BENCH_VARIANT long v_stat_add_1000(long) {
  for (long i = 0; i < kCount; ++i) {
    counter += static_cast<std::uint64_t>(i);
    barrier();
  }
  return static_cast<long>(counter.value());
}
PASSINFRA_BENCH_VARIANT long v_stat_group_1000(long) {
  const passinfra::Statistic& c = *grouped;
  for (long i = 0; i < kCount; ++i) {
    ++c;
    barrier();
  }
  return static_cast<long>(c.value());
}

int main(int argc, char** argv) {
  grouped = &group.get("counted", "Number of increments");
  const std::vector<bench::Variant> variants = {
      {"stat_loop", kCount, v_stat_loop_1000, "the loop alone, a register counter"},
      {"stat_increment", kCount, v_stat_increment_1000, "++s on a passinfra::Statistic"},
      {"stat_add", kCount, v_stat_add_1000, "s += i on a passinfra::Statistic"},
      {"stat_group", kCount, v_stat_group_1000, "++c on a StatisticGroup counter"},
  };
  return bench::run_variants(argc, argv, variants);
}
