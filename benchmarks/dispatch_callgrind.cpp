// benchmarks/dispatch_callgrind.cpp — a driver for callgrind instruction counts.
//
//   dispatch_callgrind <variant> <repetitions>
// runs `v_<variant>` that many times. benchmarks/callgrind.sh runs it under
// `valgrind --tool=callgrind --toggle-collect=v_<variant>` for N = 0 and 100
// and prints instructions per pass. Contexts and pipelines are built before
// the measured calls, so only running them is counted.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "dispatch_variants.hpp"

using namespace bench;

namespace {
template <int N>
using K = Kit<std::make_integer_sequence<int, N>>;

auto ctx_empty = passinfra::make_pass_context<IR>({});
CountingHooks hooks;
auto ctx_hooks = passinfra::make_pass_context<IR>({}, std::ref(hooks));
VCounting vcounting;
auto any_instrument_list = passinfra::PassContext<IR>({}, {passinfra::AnyInstrument<IR>(std::ref(hooks))});
passinfra::PassContext<IR> ctx_dynamic_none;
}  // namespace

#define PI_NOINLINE extern "C" __attribute__((noinline))

#define PI_VARIANTS(N)                                                                                      \
  PI_NOINLINE long v_hand_calls_##N(long x) { return K<N>::hand_calls(IR{x}).value; }                       \
  PI_NOINLINE long v_run_empty_##N(long x) { return K<N>::run_each(IR{x}, ctx_empty).value; }               \
  PI_NOINLINE long v_hand_gate_##N(long x) { return K<N>::hand_gate(IR{x}, ctx_empty).value; }              \
  PI_NOINLINE long v_seq_empty_##N(long x) {                                                                \
    static const K<N>::Pipeline seq;                                                                         \
    return passinfra::run(seq, IR{x}, ctx_empty).value;                                                      \
  }                                                                                                          \
  PI_NOINLINE long v_hand_hooks_##N(long x) { return K<N>::hand_hooks(IR{x}, ctx_hooks, hooks).value; }     \
  PI_NOINLINE long v_seq_hooks_##N(long x) {                                                                \
    static const K<N>::Pipeline seq;                                                                         \
    return passinfra::run(seq, IR{x}, ctx_hooks).value;                                                      \
  }                                                                                                          \
  PI_NOINLINE long v_dyn_none_##N(long x) {                                                                 \
    static const passinfra::DynamicSequential<IR> seq(K<N>::any_passes());                                 \
    return passinfra::run(seq, IR{x}, ctx_dynamic_none).value;                                               \
  }                                                                                                          \
  PI_NOINLINE long v_dyn_one_##N(long x) {                                                                  \
    static const passinfra::DynamicSequential<IR> seq(K<N>::any_passes());                                 \
    return passinfra::run(seq, IR{x}, any_instrument_list).value;                                            \
  }                                                                                                          \
  PI_NOINLINE long v_virtual_one_##N(long x) {                                                              \
    static const auto passes = K<N>::virtual_passes();                                                       \
    static const std::vector<VInstrument*> instruments{&vcounting};                                          \
    return virtual_dispatch(IR{x}, 2, passes, instruments).value;                                            \
  }

PI_VARIANTS(0)
PI_VARIANTS(100)

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <variant>_<N> <repetitions>\n", argv[0]);
    return 2;
  }
  const std::string_view variant = argv[1];
  const long reps = std::atol(argv[2]);
  struct Entry {
    const char* name;
    long (*fn)(long);
  };
#define PI_ENTRIES(N)                                                                                        \
  {"hand_calls_" #N, v_hand_calls_##N}, {"run_empty_" #N, v_run_empty_##N}, {"hand_gate_" #N, v_hand_gate_##N}, \
      {"seq_empty_" #N, v_seq_empty_##N}, {"hand_hooks_" #N, v_hand_hooks_##N},                              \
      {"seq_hooks_" #N, v_seq_hooks_##N}, {"dyn_none_" #N, v_dyn_none_##N}, {"dyn_one_" #N, v_dyn_one_##N},  \
      {"virtual_one_" #N, v_virtual_one_##N}
  static const Entry entries[] = {PI_ENTRIES(0), PI_ENTRIES(100)};
  for (const auto& e : entries) {
    if (variant != e.name) continue;
    long acc = 0;
    e.fn(1);  // first call: builds the function-local statics outside the count below
    for (long r = 0; r < reps; ++r) acc += e.fn(r);
    std::printf("%s %ld\n", e.name, acc);
    return 0;
  }
  std::fprintf(stderr, "unknown variant '%s'; expected one of:", argv[1]);
  for (const auto& e : entries) std::fprintf(stderr, " %s", e.name);
  std::fprintf(stderr, "\n");
  return 2;
}
