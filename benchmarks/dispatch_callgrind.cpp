// benchmarks/dispatch_callgrind.cpp — passinfra's dispatch and instrumentation
// cost per pass, against hand-written equivalents, in callgrind instructions.
//
//   dispatch_callgrind --list | --run [--reps R] [variants...]
//
// (callgrind_driver.hpp has the protocol; benchmarks/report.sh runs it under
// valgrind and prints the table.) Every variant runs N = 0, 10 and 100
// trivial passes (dispatch_variants.hpp); contexts, pipelines and
// instruments are built before the measured calls, so only running them is
// counted. Per pass = (Ir(N) - Ir(0)) / N.
#include <chrono>
#include <functional>
#include <vector>

#include <passinfra/instruments/pass_timing_instrument.hpp>

#include "callgrind_driver.hpp"
#include "dispatch_variants.hpp"

using namespace bench;

namespace {
template <int N>
using K = Kit<std::make_integer_sequence<int, N>>;

using Dyn = passinfra::PassContext<IR>;
using Any = passinfra::AnyInstrument<IR>;

// Static contexts.
auto ctx_empty = passinfra::make_pass_context<IR>({});
CountingHooks hooks, hooks_b, hooks_c;
auto ctx_hooks = passinfra::make_pass_context<IR>({}, std::ref(hooks));
auto ctx_three = passinfra::make_pass_context<IR>({}, std::ref(hooks), std::ref(hooks_b), std::ref(hooks_c));
std::vector<Event> events = [] {
  std::vector<Event> v;
  v.reserve(1024);
  return v;
}();
auto ctx_record = passinfra::make_pass_context<IR>({}, Recording{&events});
void reset_events() { events.clear(); }

// Timing.
using ChronoTiming = passinfra::BasicPassTimingInstrument<passinfra::ChronoClock<std::chrono::steady_clock>>;
using TscTiming = passinfra::BasicPassTimingInstrument<passinfra::TscClock>;
ChronoTiming timing_chrono;
passinfra::PassTimingInstrument timing_steady;
TscTiming timing_tsc;
passinfra::PassTimingInstrument timing_dyn;
auto ctx_timing_chrono = passinfra::make_pass_context<IR>({}, std::ref(timing_chrono));
auto ctx_timing_steady = passinfra::make_pass_context<IR>({}, std::ref(timing_steady));
auto ctx_timing_tsc = passinfra::make_pass_context<IR>({}, std::ref(timing_tsc));
void reset_timing() {
  timing_chrono.clear();
  timing_steady.clear();
  timing_tsc.clear();
  timing_dyn.clear();
}
const ChronoNow chrono_now{};
const ClockNow<passinfra::SteadyClock> steady_now{};
const ClockNow<passinfra::TscClock> tsc_now{};

// Dynamic contexts.
Dyn dyn_none_ctx;
Dyn dyn_one_ctx({}, {Any(std::ref(hooks))});
Dyn dyn_three_ctx({}, {Any(std::ref(hooks)), Any(std::ref(hooks_b)), Any(std::ref(hooks_c))});
Dyn dyn_timing_ctx({}, {Any(std::ref(timing_dyn))});

// Hand-written virtual dispatch.
VCounting vcounting;
long function_hook_calls = 0;
const FunctionHooks function_hooks{
    [](const IR&) {
      count(function_hook_calls);
      return true;
    },
    [](const IR&) { count(function_hook_calls); },
    [](const IR&) { count(function_hook_calls); },
};
}  // namespace

#define PI_STATIC_SEQ(N, ctx)      \
  static const K<N>::Pipeline seq; \
  return passinfra::run(seq, IR{x}, ctx).value
#define PI_DYN_SEQ(N, ctx)                                               \
  static const passinfra::DynamicSequential<IR> seq(K<N>::any_passes()); \
  return passinfra::run(seq, IR{x}, ctx).value

#define PI_VARIANTS(N)                                                                                                 \
  PASSINFRA_BENCH_VARIANT long v_hand_calls_##N(long x) { return K<N>::hand_calls(IR{x}).value; }                      \
  PASSINFRA_BENCH_VARIANT long v_hand_noinline_##N(long x) { return K<N>::hand_noinline(IR{x}).value; }                \
  PASSINFRA_BENCH_VARIANT long v_run_empty_##N(long x) { return K<N>::run_each(IR{x}, ctx_empty).value; }              \
  PASSINFRA_BENCH_VARIANT long v_hand_gate_##N(long x) { return K<N>::hand_gate(IR{x}, ctx_empty).value; }             \
  PASSINFRA_BENCH_VARIANT long v_seq_empty_##N(long x) { PI_STATIC_SEQ(N, ctx_empty); }                                \
  PASSINFRA_BENCH_VARIANT long v_virtual_none_##N(long x) {                                                            \
    static const auto passes = K<N>::virtual_passes();                                                                 \
    return virtual_loop(IR{x}, 2, passes).value;                                                                       \
  }                                                                                                                    \
  PASSINFRA_BENCH_VARIANT long v_dyn_none_##N(long x) { PI_DYN_SEQ(N, dyn_none_ctx); }                                 \
  PASSINFRA_BENCH_VARIANT long v_hand_hooks_##N(long x) { return K<N>::hand_hooks(IR{x}, ctx_hooks, hooks).value; }    \
  PASSINFRA_BENCH_VARIANT long v_seq_hooks_##N(long x) { PI_STATIC_SEQ(N, ctx_hooks); }                                \
  PASSINFRA_BENCH_VARIANT long v_seq_three_##N(long x) { PI_STATIC_SEQ(N, ctx_three); }                                \
  PASSINFRA_BENCH_VARIANT long v_hand_record_##N(long x) { return K<N>::hand_record(IR{x}, ctx_empty, events).value; } \
  PASSINFRA_BENCH_VARIANT long v_seq_record_##N(long x) { PI_STATIC_SEQ(N, ctx_record); }                              \
  PASSINFRA_BENCH_VARIANT long v_virtual_one_##N(long x) {                                                             \
    static const auto passes = K<N>::virtual_passes();                                                                 \
    static const std::vector<VInstrument*> instruments{&vcounting};                                                    \
    return virtual_dispatch(IR{x}, 2, passes, instruments).value;                                                      \
  }                                                                                                                    \
  PASSINFRA_BENCH_VARIANT long v_virtual_fn3_##N(long x) {                                                             \
    static const auto passes = K<N>::virtual_passes();                                                                 \
    return virtual_function_hooks(IR{x}, 2, passes, function_hooks).value;                                             \
  }                                                                                                                    \
  PASSINFRA_BENCH_VARIANT long v_dyn_one_##N(long x) { PI_DYN_SEQ(N, dyn_one_ctx); }                                   \
  PASSINFRA_BENCH_VARIANT long v_dyn_three_##N(long x) { PI_DYN_SEQ(N, dyn_three_ctx); }                               \
  PASSINFRA_BENCH_VARIANT long v_hand_clock_chrono_##N(long x) {                                                       \
    return K<N>::hand_clock(IR{x}, ctx_empty, chrono_now).value;                                                       \
  }                                                                                                                    \
  PASSINFRA_BENCH_VARIANT long v_hand_clock_steady_##N(long x) {                                                       \
    return K<N>::hand_clock(IR{x}, ctx_empty, steady_now).value;                                                       \
  }                                                                                                                    \
  PASSINFRA_BENCH_VARIANT long v_hand_clock_tsc_##N(long x) {                                                          \
    return K<N>::hand_clock(IR{x}, ctx_empty, tsc_now).value;                                                          \
  }                                                                                                                    \
  PASSINFRA_BENCH_VARIANT long v_seq_timing_chrono_##N(long x) { PI_STATIC_SEQ(N, ctx_timing_chrono); }                \
  PASSINFRA_BENCH_VARIANT long v_seq_timing_##N(long x) { PI_STATIC_SEQ(N, ctx_timing_steady); }                       \
  PASSINFRA_BENCH_VARIANT long v_seq_timing_tsc_##N(long x) { PI_STATIC_SEQ(N, ctx_timing_tsc); }                      \
  PASSINFRA_BENCH_VARIANT long v_dyn_timing_##N(long x) { PI_DYN_SEQ(N, dyn_timing_ctx); }

PI_VARIANTS(0)
PI_VARIANTS(10)
PI_VARIANTS(100)

namespace {
// One row per variant; the N = 0, 10, 100 functions of each.
#define PI_ROW(name, what, reset)                                                   \
  {#name, 0, v_##name##_0, what, reset}, {#name, 10, v_##name##_10, what, reset}, { \
    #name, 100, v_##name##_100, what, reset                                         \
  }

const std::vector<Variant> variants = {
    PI_ROW(hand_calls, "hand-written calls, inlined", nullptr),
    PI_ROW(hand_noinline, "hand-written calls to non-inlined functions", nullptr),
    PI_ROW(run_empty, "passinfra::run on each pass, InstrumentSet<>", nullptr),
    PI_ROW(hand_gate, "hand-written PassEnabled gate + inlined calls", nullptr),
    PI_ROW(seq_empty, "Sequential, InstrumentSet<>", nullptr),
    PI_ROW(virtual_none, "virtual loop (vector<unique_ptr<Base>>): gate + virtual call", nullptr),
    PI_ROW(dyn_none, "DynamicSequential of AnyPass, no instrument", nullptr),
    PI_ROW(hand_hooks, "hand-inlined gate + 3 counting hooks", nullptr),
    PI_ROW(seq_hooks, "Sequential, 1 instrument with 3 counting hooks", nullptr),
    PI_ROW(seq_three, "Sequential, 3 instruments with 3 counting hooks each", nullptr),
    PI_ROW(hand_record, "hand-inlined gate + recording (3 push_backs)", reset_events),
    PI_ROW(seq_record, "Sequential, recording instrument (3 hooks push_back)", reset_events),
    PI_ROW(virtual_one, "virtual loop, 1 virtual instrument (3 hooks)", nullptr),
    PI_ROW(virtual_fn3, "virtual loop, 3 std::function hooks", nullptr),
    PI_ROW(dyn_one, "DynamicSequential, 1 AnyInstrument (3 hooks)", nullptr),
    PI_ROW(dyn_three, "DynamicSequential, 3 AnyInstruments (3 hooks each)", nullptr),
    PI_ROW(hand_clock_chrono, "gate + 2 std::chrono::steady_clock::now()", nullptr),
    PI_ROW(hand_clock_steady, "gate + 2 passinfra::SteadyClock reads", nullptr),
    PI_ROW(hand_clock_tsc, "gate + 2 passinfra::TscClock reads", nullptr),
    PI_ROW(seq_timing_chrono, "Sequential, timing with ChronoClock<steady_clock>", reset_timing),
    PI_ROW(seq_timing, "Sequential, PassTimingInstrument (SteadyClock)", reset_timing),
    PI_ROW(seq_timing_tsc, "Sequential, timing with TscClock", reset_timing),
    PI_ROW(dyn_timing, "DynamicSequential, AnyInstrument(PassTimingInstrument)", reset_timing),
};
}  // namespace

int main(int argc, char** argv) { return run_variants(argc, argv, variants); }
