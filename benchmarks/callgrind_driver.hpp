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
//   <driver> --steps [names] prints "steps <name> <N> <outside> <reads> <min read> <vdso>" per variant
//
// `--steps` (Linux x86-64) counts the instructions the CPU executes, for
// what callgrind cannot see: valgrind does not run the vDSO, so under it a
// clock read is glibc's wrapper and one `syscall` instruction, while on the
// machine it is the vDSO's clock code (kvm-clock here: about 105
// instructions and a serialising TSC read). For each variant a child
// process calls fn once (the warm-up), then once more while the driver
// single-steps it with ptrace. `outside` is the steps outside the [vdso]
// mapping, `reads` the number of separate entries into it, `min read` the
// fewest steps one entry took (-1: none) and `vdso` all steps inside it.
// What a call executes when no clock update makes the vDSO's retry loop go
// round again is outside + reads x M, M the fewest steps of any read
// (benchmarks/report.sh takes the least `min read` of all variants:
// single-stepping is slow enough that many reads see an update and retry,
// so one variant with few reads may have no read without a retry). The few
// instructions of the markers around the call are the same for every
// variant and cancel in per-pass differences.
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

#if defined(__linux__) && defined(__x86_64__)
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <fstream>
#include <string>
#define PASSINFRA_BENCH_HAS_STEPS 1
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

#ifdef PASSINFRA_BENCH_HAS_STEPS
struct StepCount {
  long outside = 0;    // instructions stepped outside the [vdso] mapping
  long vdso = 0;       // those inside it
  long reads = 0;      // entries into the vDSO
  long min_read = -1;  // the fewest steps of one entry (-1: none)
};

// step_count(v): single-steps one call of v.fn in a child process (see --steps).
inline bool step_count(const Variant& v, StepCount& out) {
  const pid_t child = fork();
  if (child < 0) return false;
  if (child == 0) {
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(3);
    raise(SIGSTOP);
    if (v.reset) v.reset();
    long sink = v.fn(1);  // warm-up, not stepped
    if (v.reset) v.reset();
    raise(SIGUSR1);  // stepping starts here
    sink += v.fn(2);
    raise(SIGUSR2);  // and ends here
    _exit(static_cast<int>(sink & 1));
  }
  int status = 0;
  bool reaped = false;  // waitpid saw the child end: its pid is no longer ours to signal
  auto wait_stop = [&] {
    if (waitpid(child, &status, 0) != child) return false;
    if (WIFEXITED(status) || WIFSIGNALED(status)) reaped = true;
    return WIFSTOPPED(status);
  };
  auto fail = [&](const char* what) {
    std::fprintf(stderr, "--steps %s %d: %s\n", v.name, v.passes, what);
    if (!reaped) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
    }
    return false;
  };
  auto next_instruction = [&](unsigned long& rip) {
    errno = 0;
    rip = static_cast<unsigned long>(
        ptrace(PTRACE_PEEKUSER, child, reinterpret_cast<void*>(offsetof(user_regs_struct, rip)), nullptr));
    return errno == 0;
  };
  if (!wait_stop()) return fail("the child did not stop (ptrace not allowed?)");
  if (ptrace(PTRACE_CONT, child, nullptr, nullptr) != 0) return fail("ptrace(PTRACE_CONT) failed");
  if (!wait_stop() || WSTOPSIG(status) != SIGUSR1) return fail("no SIGUSR1 before the measured call");
  unsigned long vdso_begin = 0, vdso_end = 0;
  {
    std::ifstream maps("/proc/" + std::to_string(child) + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
      if (line.find("[vdso]") == std::string::npos) continue;
      vdso_begin = std::stoul(line.substr(0, line.find('-')), nullptr, 16);
      vdso_end = std::stoul(line.substr(line.find('-') + 1), nullptr, 16);
    }
  }
  StepCount c;
  long in_read = 0;  // steps of the current vDSO entry
  auto end_read = [&] {
    if (in_read > 0 && (c.min_read < 0 || in_read < c.min_read)) c.min_read = in_read;
    in_read = 0;
  };
  unsigned long at = 0;  // the instruction the next step executes
  if (!next_instruction(at)) return fail("ptrace(PTRACE_PEEKUSER) failed");
  for (;;) {
    if (ptrace(PTRACE_SINGLESTEP, child, nullptr, nullptr) != 0) return fail("ptrace(PTRACE_SINGLESTEP) failed");
    if (!wait_stop()) return fail("the child ended while stepped");
    if (WSTOPSIG(status) == SIGUSR2) break;
    if (WSTOPSIG(status) != SIGTRAP) return fail("the child stopped with an unexpected signal");
    if (at >= vdso_begin && at < vdso_end) {  // the step just taken executed a vDSO instruction
      if (in_read++ == 0) ++c.reads;
      ++c.vdso;
    } else {
      ++c.outside;  // (the `call` into the vDSO is glibc's)
      end_read();
    }
    if (!next_instruction(at)) return fail("ptrace(PTRACE_PEEKUSER) failed");
  }
  end_read();
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  out = c;
  return true;
}
#endif

inline int run_variants(int argc, char** argv, const std::vector<Variant>& variants) {
  long reps = 10;
  bool list = false;
  bool run = false;
  bool time = false;
  bool steps = false;
  std::vector<std::string_view> only;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--list") {
      list = true;
    } else if (arg == "--run") {
      run = true;
    } else if (arg == "--time") {
      time = true;
    } else if (arg == "--steps") {
      steps = true;
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
  if ((!run && !time && !steps) || reps < 1) {
    std::fprintf(stderr, "usage: %s --list | --run [--reps R] [variant names...]\n", argv[0]);
    return 2;
  }
#ifndef PASSINFRA_BENCH_HAS_STEPS
  if (steps) {
    std::fprintf(stderr, "%s: --steps needs Linux on x86-64 (ptrace single-stepping)\n", argv[0]);
    return 2;
  }
#endif
  long sink = 0;
  for (const auto& v : variants) {
    if (!only.empty()) {
      bool wanted = false;
      for (auto name : only) wanted = wanted || name == v.name;
      if (!wanted) continue;
    }
#ifdef PASSINFRA_BENCH_HAS_STEPS
    if (steps) {
      StepCount c;
      if (!step_count(v, c)) return 1;
      std::printf("steps %s %d %ld %ld %ld %ld\n", v.name, v.passes, c.outside, c.reads, c.min_read, c.vdso);
      continue;
    }
#endif
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
