#!/usr/bin/env bash
# benchmarks/report.sh — measure and write passinfra's benchmark results tables.
#
#   benchmarks/report.sh [--build DIR] [--out FILE] [--no-time] [--no-resnet]
#                        [--require-anchors] [--readme]
#
# Runs, from the build tree DIR (default build/release, what `make bench` builds):
#   * benchmarks/dispatch_callgrind    passinfra's dispatch paths and their hand-written twins
#   * benchmarks/anchors/anchor_llvm   LLVM 14's new pass manager   (if built: llvm-14-dev)
#   * benchmarks/anchors/anchor_mlir   MLIR 14's PassManager         (if built: libmlir-14-dev)
#   * benchmarks/resnet_workload       tinyir ResNet-18 through a -O3 Sequential
# each under callgrind (benchmarks/callgrind.sh: instructions inside the
# measured functions only, one method for all) and, unless --no-time, natively
# for wall-clock time (median of 21 batches; noisy on a shared machine, the
# instruction counts are the reference). Writes Markdown to FILE (default
# DIR/benchmarks/results.md) and prints it: the machine and compilers, the
# per-pass table (per pass = (cost(N) - cost(0)) / N, N = 10 and 100), the
# ratios against the targets of issue 6 / docs (met or not), the ResNet-18
# shares, and the compile-time table of benchmarks/compile_time.sh if it has
# been run (build/bench-compile/compile_time.md). The timing variants are also
# single-stepped (`dispatch_callgrind --steps`, Linux x86-64, needs ptrace):
# valgrind does not run the vDSO, so callgrind sees a steady-clock read as
# glibc's wrapper and one `syscall` instruction; the stepped count has the
# clock code the CPU really executes, and the timing target is judged on it.
#
# --require-anchors   fail if the LLVM / MLIR anchors are not built (make bench-anchors)
# --readme            also replace the results section of benchmarks/README.md
#                     (between <!-- results:begin --> and <!-- results:end -->)
# PASSINFRA_BENCH_COMMIT=<id> names the commit measured (for a tree exported
# with git archive, which has no .git); otherwise `git rev-parse HEAD` here.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
build=build/release
out=""
do_time=1
do_resnet=1
require_anchors=0
readme=0
while (($#)); do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-time) do_time=0; shift ;;
    --no-resnet) do_resnet=0; shift ;;
    --require-anchors) require_anchors=1; shift ;;
    --readme) readme=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "report.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ "$build" = /* ]] || build="$root/$build"
bin="$build/benchmarks"
out=${out:-$bin/results.md}
callgrind="$here/callgrind.sh"

[[ -x "$bin/dispatch_callgrind" ]] || { echo "report.sh: $bin/dispatch_callgrind is not built (make bench)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "report.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

drivers=("$bin/dispatch_callgrind")
for anchor in anchor_llvm anchor_mlir; do
  if [[ -x "$bin/anchors/$anchor" ]]; then
    drivers+=("$bin/anchors/$anchor")
  elif ((require_anchors)); then
    echo "report.sh: $bin/anchors/$anchor is not built (llvm-14-dev / libmlir-14-dev: make bench-anchors)" >&2
    exit 2
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Data files: list.txt "name<TAB>N<TAB>what", ir.txt "name N Ir/call", ns.txt "name N ns/call".
: >"$tmp/list.txt" >"$tmp/ir.txt" >"$tmp/ns.txt"
for d in "${drivers[@]}"; do
  echo "report.sh: $(basename "$d") under callgrind ..." >&2
  "$d" --list >>"$tmp/list.txt"
  bash "$callgrind" "$d" >>"$tmp/ir.txt"
  if ((do_time)); then
    echo "report.sh: $(basename "$d") wall-clock ..." >&2
    "$d" --time | awk '$1 == "time" { print $2, $3, $4 }' >>"$tmp/ns.txt"
  fi
done
# The timing variants, single-stepped: "steps name N outside reads min_read vdso".
timing_variants=(hand_clock_steady seq_timing hand_clock_chrono seq_timing_chrono hand_clock_tsc seq_timing_tsc dyn_timing)
echo "report.sh: dispatch_callgrind single-stepped (timing variants) ..." >&2
if ! "$bin/dispatch_callgrind" --steps "${timing_variants[@]}" | awk '$1 == "steps"' >"$tmp/steps.txt"; then
  echo "report.sh: --steps failed (not Linux x86-64, or ptrace not allowed); no CPU-instruction rows" >&2
  : >"$tmp/steps.txt"
fi

if ((do_resnet)); then
  [[ -x "$bin/resnet_workload" ]] || { echo "report.sh: $bin/resnet_workload is not built" >&2; exit 2; }
  echo "report.sh: resnet_workload under callgrind (one process per variant) ..." >&2
  "$bin/resnet_workload" --list >"$tmp/resnet_list.txt"
  bash "$callgrind" --separate --reps 3 "$bin/resnet_workload" >"$tmp/resnet_ir.txt" 2>/dev/null
  if ((do_time)); then
    echo "report.sh: resnet_workload wall-clock ..." >&2
    "$bin/resnet_workload" --time 2>/dev/null | awk '$1 == "time" { print $2, $3, $4 }' >"$tmp/resnet_ns.txt"
  else
    : >"$tmp/resnet_ns.txt"
  fi
fi

# ---------------------------------------------------------------- the header
first_line() { "$@" 2>/dev/null | head -1 || true; }
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" 2>/dev/null | head -1; }
commit=${PASSINFRA_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
dirty=""
if [[ -z "${PASSINFRA_BENCH_COMMIT:-}" ]] && ! git -C "$root" diff --quiet HEAD -- include examples/tinyir benchmarks 2>/dev/null; then
  dirty=" (with uncommitted changes under include/, examples/tinyir/ or benchmarks/)"
fi
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)
cxx=$(cache_value CMAKE_CXX_COMPILER)
build_type=$(cache_value CMAKE_BUILD_TYPE)
flags_var="CMAKE_CXX_FLAGS_$(tr '[:lower:]' '[:upper:]' <<<"${build_type:-release}")"
flags="$(cache_value CMAKE_CXX_FLAGS) $(cache_value "$flags_var")"
llvm_version=""
[[ -x "$bin/anchors/anchor_llvm" ]] && llvm_version=$(dpkg-query -W -f='${Version}' llvm-14-dev 2>/dev/null || echo 14)
mlir_version=""
[[ -x "$bin/anchors/anchor_mlir" ]] && mlir_version=$(dpkg-query -W -f='${Version}' libmlir-14-dev 2>/dev/null || echo 14)

{
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`benchmarks/report.sh\` at commit \`$commit\`$dirty."
  echo
  echo "* Machine: $cpu, $(nproc) cores, $(uname -sr) ($(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"))."
  echo "* Compiler: $(first_line "${cxx:-g++}" --version) (\`${cxx:-g++}\`, CMAKE_BUILD_TYPE=${build_type:-?}, flags \`$(echo $flags)\`)."
  echo "* $(first_line valgrind --version) (callgrind, \`--toggle-collect='v_*'\`)."
  if [[ -n "$llvm_version" || -n "$mlir_version" ]]; then
    echo "* Anchors: LLVM ${llvm_version:-not built}, MLIR ${mlir_version:-not built} (Debian packages, shared libLLVM-14 / libMLIR, built -O2 by Debian; our drivers -fno-rtti)."
  else
    echo "* Anchors: not built (make bench-anchors installs llvm-14-dev and libmlir-14-dev)."
  fi
  echo
} >"$tmp/header.md"

# ------------------------------------------------------------ the dispatch table
awk -v do_time="$do_time" -v per_pass="$tmp/per_pass.txt" -F'\t' '
  FILENAME ~ /list.txt$/ { if (!($1 in what)) { order[++rows] = $1; what[$1] = $3 } next }
  FILENAME ~ /ir.txt$/   { split($0, f, " "); ir[f[1] " " f[2]] = f[3]; next }
  FILENAME ~ /ns.txt$/   { split($0, f, " "); ns[f[1] " " f[2]] = f[3]; next }
  END {
    printf "| variant | what | Ir/call N=0 | N=10 | N=100 | Ir/pass N=10 | Ir/pass N=100 |%s\n", do_time ? " ns/pass N=100 |" : ""
    printf "|---|---|---:|---:|---:|---:|---:|%s\n", do_time ? "---:|" : ""
    for (i = 1; i <= rows; ++i) {
      n = order[i]
      if (!((n " 0") in ir)) continue
      a = ir[n " 0"]; b = ir[n " 10"]; c = ir[n " 100"]
      t = ""
      if (do_time) t = ((n " 100") in ns) ? sprintf(" %.1f |", (ns[n " 100"] - ns[n " 0"]) / 100) : " |"
      printf "| %s | %s | %.0f | %.0f | %.0f | %.2f | %.2f |%s\n", n, what[n], a, b, c, (b - a) / 10, (c - a) / 100, t
      # per pass at N = 100, for the ratio table
      printf "%s %.4f %s %.4f\n", n, (c - a) / 100, do_time && ((n " 100") in ns) ? (ns[n " 100"] - ns[n " 0"]) / 100 : "-", (b - a) / 10 > per_pass
    }
  }' "$tmp/list.txt" "$tmp/ir.txt" "$tmp/ns.txt" >"$tmp/dispatch.md"

# ------------------------------------------- the timing variants, stepped
# cpu = outside + reads x M, M the fewest steps of any vDSO read (no retry).
# Per pass as for callgrind; appended to per_pass.txt as "<name>@cpu".
awk -v per_pass="$tmp/per_pass.txt" -F'\t' '
  FILENAME ~ /list.txt$/  { if (!($1 in what)) what[$1] = $3; next }
  FILENAME ~ /per_pass.txt$/ { split($0, f, " "); ir[f[1]] = f[2]; ns[f[1]] = f[3]; next }
  {
    split($0, f, " "); key = f[2] " " f[3]
    outside[key] = f[4]; reads[key] = f[5]
    if (f[6] > 0 && (m == "" || f[6] < m)) m = f[6]
    if (!(f[2] in seen)) { seen[f[2]] = 1; order[++rows] = f[2] }
  }
  END {
    if (rows == 0) exit
    printf "One vDSO clock read without a retry: %d instructions (the fewest of any read stepped).\n\n", m
    print "| variant | what | callgrind Ir/pass | stepped outside the vDSO | vDSO reads/pass | CPU instructions/pass N=100 | N=10 |"
    print "|---|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= rows; ++i) {
      n = order[i]
      split("0 10 100", ks, " ")
      for (j = 1; j <= 3; ++j) cpu[ks[j]] = outside[n " " ks[j]] + reads[n " " ks[j]] * m
      c100 = (cpu[100] - cpu[0]) / 100; c10 = (cpu[10] - cpu[0]) / 10
      printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, what[n], ir[n], (outside[n " 100"] - outside[n " 0"]) / 100, (reads[n " 100"] - reads[n " 0"]) / 100, c100, c10
      printf "%s@cpu %.4f %s %.4f\n", n, c100, ns[n], c10 >> per_pass
    }
  }' "$tmp/list.txt" "$tmp/per_pass.txt" "$tmp/steps.txt" >"$tmp/steps.md"

# ---------------------------------------------------------------- the ratios
awk '
  { ir[$1] = $2; ns[$1] = $3; ir10[$1] = $4 }
  function have(a) { return (a in ir) }
  function fmt_ratio(x) { return sprintf("%.2f", x) }
  function row(label, a, b, target, limit,    r, r10, t, met) {
    if (!have(a) || !have(b) || ir[b] == 0) {
      # A target without its measurement says so rather than vanish.
      if (limit != "") printf "| %s | %s / %s | not measured | | | %s | **not measured** |\n", label, a, b, target
      return
    }
    r = ir[a] / ir[b]
    r10 = ir10[b] > 0 ? fmt_ratio(ir10[a] / ir10[b]) : "-"
    t = (ns[a] != "-" && ns[b] != "-" && ns[b] > 0) ? fmt_ratio(ns[a] / ns[b]) : "-"
    met = limit == "" ? "" : (r <= limit + 1e-9 ? "yes" : "**no**")
    printf "| %s | %s / %s | %s | %s | %s | %s | %s |\n", label, a, b, fmt_ratio(r), r10, t, target, met
  }
  function absolute(label, a, target, limit,    met) {
    if (!have(a)) {
      printf "| %s | %s | not measured | | | %s | **not measured** |\n", label, a, target
      return
    }
    met = ir[a] <= limit + 1e-9 ? "yes" : "**no**"
    printf "| %s | %s | %.1f Ir | %.1f Ir | %s | %s | %s |\n", label, a, ir[a], ir10[a], (ns[a] != "-" ? sprintf("%.1f ns", ns[a]) : "-"), target, met
  }
  END {
    print "| what | variants | Ir ratio N=100 | Ir ratio N=10 | time ratio N=100 | target (N=100) | met |"
    print "|---|---|---:|---:|---:|---|---|"
    row("static `run`, empty set, vs hand-written calls", "run_empty", "hand_calls", "<= 1.02", 1.02)
    row("static Sequential, empty set, vs hand-written gate + calls", "seq_empty", "hand_gate", "<= 1.0", 1.0)
    row("static Sequential, 3 no-op hooks, vs hand-inlined gate + hooks", "seq_hooks", "hand_hooks", "<= 1.05", 1.05)
    row("static Sequential, recording instrument, vs the same by hand", "seq_record", "hand_record", "<= 1.05", 1.05)
    absolute("DynamicSequential + one 3-hook AnyInstrument, per pass", "dyn_one", "<= 40 Ir", 40)
    row("DynamicSequential + one 3-hook AnyInstrument vs virtual dispatcher", "dyn_one", "virtual_one", "<= 1.0", 1.0)
    row("DynamicSequential + one 3-hook AnyInstrument vs MLIR 14 + PassInstrumentation", "dyn_one", "mlir_instr", "", "")
    row("DynamicSequential + one 3-hook AnyInstrument vs LLVM 14 + callbacks", "dyn_one", "llvm_callbacks", "", "")
    row("DynamicSequential, no instrument, vs MLIR 14, no instrumentation", "dyn_none", "mlir_none", "", "")
    row("DynamicSequential, no instrument, vs LLVM 14, no callbacks", "dyn_none", "llvm_none", "", "")
    row("PassTimingInstrument (SteadyClock) vs its 2 clock reads + gate, CPU instructions (vDSO stepped)", "seq_timing@cpu", "hand_clock_steady@cpu", "<= 1.3", 1.3)
    row("timing with ChronoClock<steady_clock> vs 2 steady_clock::now() + gate, CPU instructions", "seq_timing_chrono@cpu", "hand_clock_chrono@cpu", "<= 1.3", 1.3)
    row("timing with TscClock vs its 2 TSC reads + gate (rdtsc: 1 instruction, ~20 ns)", "seq_timing_tsc", "hand_clock_tsc", "", "")
    row("PassTimingInstrument (SteadyClock) vs its 2 clock reads + gate, callgrind (a read = wrapper + syscall)", "seq_timing", "hand_clock_steady", "", "")
    row("timing with ChronoClock<steady_clock> vs 2 steady_clock::now() + gate, callgrind", "seq_timing_chrono", "hand_clock_chrono", "", "")
    row("PassTimingInstrument vs MLIR 14 enableTiming", "seq_timing", "mlir_timing", "", "")
    row("PassTimingInstrument vs LLVM 14 TimePassesHandler", "seq_timing", "llvm_timing", "", "")
  }' "$tmp/per_pass.txt" >"$tmp/ratios.md"

# ----------------------------------------------------------- the ResNet table
if ((do_resnet)); then
  awk -v do_time="$do_time" -F'\t' '
    FILENAME ~ /resnet_list.txt$/ { order[++rows] = $1; what[$1] = $3; next }
    FILENAME ~ /resnet_ir.txt$/   { split($0, f, " "); ir[f[1]] = f[3]; next }
    FILENAME ~ /resnet_ns.txt$/   { split($0, f, " "); ns[f[1]] = f[3]; next }
    END {
      twin["resnet_none"] = "resnet_hand"; twin["resnet_timing"] = "resnet_hand"
      twin["resnet_dyn_timing"] = "resnet_hand"; twin["resnet_differ"] = "resnet_hand_differ"
      printf "| variant | what | Ir/run | hand-written twin | Ir - twin | passinfra share |%s\n", do_time ? " ms/run |" : ""
      printf "|---|---|---:|---|---:|---:|%s\n", do_time ? "---:|" : ""
      for (i = 1; i <= rows; ++i) {
        n = order[i]
        if (n in twin) {
          d = ir[n] - ir[twin[n]]
          cells = sprintf("%s | %.0f | %.3f%%", twin[n], d, 100 * d / ir[n])
        } else {
          cells = "(reference) | | "
        }
        t = do_time ? ((n in ns) ? sprintf(" %.2f |", ns[n] / 1e6) : " |") : ""
        printf "| %s | %s | %.0f | %s |%s\n", n, what[n], ir[n], cells, t
      }
    }' "$tmp/resnet_list.txt" "$tmp/resnet_ir.txt" "$tmp/resnet_ns.txt" >"$tmp/resnet.md"
fi

# ---------------------------------------------------------------- assemble
compile_md="$root/build/bench-compile/compile_time.md"
{
  echo "<!-- results:begin -->"
  echo "<!-- Written by benchmarks/report.sh; do not edit by hand. -->"
  echo
  cat "$tmp/header.md"
  echo "#### Dispatch and instrumentation, per pass (callgrind instructions; wall-clock ns beside)"
  echo
  cat "$tmp/dispatch.md"
  echo
  if [[ -s "$tmp/steps.md" ]]; then
    echo "#### Timing, in instructions the CPU executes (dispatch_callgrind --steps: ptrace single-step, the vDSO included)"
    echo
    cat "$tmp/steps.md"
    echo
  fi
  echo "#### Against the targets"
  echo
  cat "$tmp/ratios.md"
  if ((do_resnet)); then
    echo
    echo "#### Real workload: tinyir ResNet-18 through a -O3 Sequential (21 pass runs)"
    echo
    cat "$tmp/resnet.md"
  fi
  if [[ -f "$compile_md" ]]; then
    echo
    echo "#### Compile time (benchmarks/compile_time.sh)"
    echo
    cat "$compile_md"
  fi
  echo
  echo "<!-- results:end -->"
} >"$out"

if ((readme)); then
  readme_file="$here/README.md"
  grep -q '^<!-- results:begin -->$' "$readme_file" && grep -q '^<!-- results:end -->$' "$readme_file" || {
    echo "report.sh: $readme_file has no <!-- results:begin --> / <!-- results:end --> lines" >&2
    exit 1
  }
  awk -v results="$out" '
    /^<!-- results:begin -->$/ { while ((getline line < results) > 0) print line; skip = 1; next }
    /^<!-- results:end -->$/ { skip = 0; next }
    !skip' "$readme_file" >"$tmp/README.md"
  cp "$tmp/README.md" "$readme_file"
  echo "report.sh: updated $readme_file" >&2
fi

cat "$out"
echo "report.sh: wrote $out" >&2
