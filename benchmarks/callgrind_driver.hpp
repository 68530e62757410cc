// benchmarks/callgrind_driver.hpp — the measuring loop shared by every
// callgrind driver (dispatch_callgrind, resnet_workload and the LLVM / MLIR
// anchors), so that their numbers come from one method and sit in one table.
//
// A driver lists its variants: a name, the number of passes N, a description
// and `long fn(long)`, an extern "C" noinline function named v_<name>_<N>
// that runs the pipeline once. benchmarks/report.sh runs the driver as
//
//   valgrind --tool=callgrind --toggle-collect='v_*' <driver> --run
//
// so that only instructions executed inside a v_ function are counted
// (callers, loops and resets outside are not). For each variant the driver
// calls fn once (function-local statics, caches and buffers are built, not
// measured), zeroes the counters, calls fn `reps` times (an optional reset
// between calls, outside fn, is not counted either) and dumps the counters
// with the label "<name> <N> <reps>". Each dump is one file whose `totals:`
// line is the instructions of those `reps` calls. Outside valgrind the
// client requests do nothing, so `<driver> --run` also works as a smoke test.
//
// `--time` measures wall-clock time instead (no valgrind): for each variant,
// 21 batches of calls of at least ~1 ms each, and the median time per call
// (resets included: they cost the same for every N, so per-pass differences
// cancel them). Noisy on a shared machine; instructions are the reference.
//
//   <driver> --list          name <TAB> N <TAB> description, one variant per line
//   <driver> --run [names]   all variants, or those whose name is listed
//   <driver> --reps R        calls per variant (default 10)
//   <driver> --time [names]  prints "time <name> <N> <ns per call>" per variant
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PASSINFRA_BENCH_HAS_CALLGRIND 1
#endif
#endif
#ifndef PASSINFRA_BENCH_HAS_CALLGRIND
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(label) ((void)(label))
#endif

// An extern "C" function callgrind can name: --toggle-collect='v_*'.
#define PASSINFRA_BENCH_VARIANT extern "C" __attribute__((noinline))

namespace bench {

struct Variant {
  const char* name;           // without the _<N> suffix
  int passes;                 // N
  long (*fn)(long);           // v_<name>_<N>
  const char* what;           // one line for the table
  void (*reset)() = nullptr;  // called before every call, outside the count
};

inline int run_variants(int argc, char** argv, const std::vector<Variant>& variants) {
  long reps = 10;
  bool list = false;
  bool run = false;
  bool time = false;
  std::vector<std::string_view> only;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--list") {
      list = true;
    } else if (arg == "--run") {
      run = true;
    } else if (arg == "--time") {
      time = true;
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::atol(argv[++i]);
    } else if (!arg.empty() && arg[0] != '-') {
      only.push_back(arg);
    } else {
      std::fprintf(stderr, "usage: %s --list | --run [--reps R] [variant names...]\n", argv[0]);
      return 2;
    }
  }
  if (list) {
    for (const auto& v : variants) std::printf("%s\t%d\t%s\n", v.name, v.passes, v.what);
    return 0;
  }
  if ((!run && !time) || reps < 1) {
    std::fprintf(stderr, "usage: %s --list | --run [--reps R] [variant names...]\n", argv[0]);
    return 2;
  }
  long sink = 0;
  for (const auto& v : variants) {
    if (!only.empty()) {
      bool wanted = false;
      for (auto name : only) wanted = wanted || name == v.name;
      if (!wanted) continue;
    }
    if (v.reset) v.reset();
    sink += v.fn(1);  // warm-up: statics, caches and buffers
    if (time) {
      using clock = std::chrono::steady_clock;
      auto batch = [&](long calls) {
        const auto start = clock::now();
        for (long r = 0; r < calls; ++r) {
          if (v.reset) v.reset();
          sink += v.fn(r);
        }
        return std::chrono::duration<double, std::nano>(clock::now() - start).count();
      };
      long calls = 1;
      while (batch(calls) < 1e6 && calls < (1L << 24)) calls *= 2;
      std::vector<double> per_call;
      for (int b = 0; b < 21; ++b) per_call.push_back(batch(calls) / static_cast<double>(calls));
      std::nth_element(per_call.begin(), per_call.begin() + 10, per_call.end());
      std::printf("time %s %d %.2f\n", v.name, v.passes, per_call[10]);
      continue;
    }
    CALLGRIND_ZERO_STATS;
    for (long r = 0; r < reps; ++r) {
      if (v.reset) v.reset();
      sink += v.fn(r);
    }
    char label[160];
    std::snprintf(label, sizeof label, "%s %d %ld", v.name, v.passes, reps);
    CALLGRIND_DUMP_STATS_AT(label);
  }
  std::printf("checksum %ld\n", sink);
  return 0;
}

}  // namespace bench
