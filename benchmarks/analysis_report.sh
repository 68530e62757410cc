#!/usr/bin/env bash
# benchmarks/analysis_report.sh [--build DIR] [--baseline DIR]
#
# The analysis manager's cost against DESIGN's targets ("Analyses (SPEC §10)":
# performance targets), in callgrind instructions, all in one run:
#
#   * <build>/benchmarks/analysis_callgrind                  passinfra (pipelines and operations)
#   * <build>/benchmarks/anchors/anchor_llvm_analysis        LLVM 14's AnalysisManager (llvm-14-dev)
#   * <build>/benchmarks/anchors/anchor_mlir_analysis        MLIR 14's AnalysisManager (libmlir-14-dev)
#
# each under benchmarks/callgrind.sh. Per pass = (Ir(N=100) - Ir(N=0)) / 100; per
# operation = (Ir - Ir(the driver's own loop)) / 1000. Prints two Markdown tables (the
# raw counts and the targets) on stdout.
#
# --build DIR      the build directory (default build/release; make it with
#                  `cmake --preset release && cmake --build --preset release --target
#                  benchmark_analysis_callgrind anchor_llvm_analysis anchor_mlir_analysis`)
# --baseline DIR   also run DIR/benchmarks/dispatch_callgrind (a build of the commit before
#                  the analysis manager) next to <build>'s, for "a pipeline with no manager
#                  compiles to the same code as today": the dispatch table's per-pass counts
#                  side by side
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build="$root/build/release"
baseline=""
while (($#)); do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    *) echo "analysis_report.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
bin="$build/benchmarks"
[[ -x "$bin/analysis_callgrind" ]] || { echo "analysis_report.sh: $bin/analysis_callgrind is not built" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/list.txt" >"$tmp/ir.txt"
for d in "$bin/analysis_callgrind" "$bin/anchors/anchor_llvm_analysis" "$bin/anchors/anchor_mlir_analysis"; do
  if [[ ! -x "$d" ]]; then
    echo "analysis_report.sh: $d is not built (its dev package missing?); its rows are left out" >&2
    continue
  fi
  echo "analysis_report.sh: $(basename "$d") under callgrind ..." >&2
  "$d" --list >>"$tmp/list.txt"
  bash "$here/callgrind.sh" "$d" >>"$tmp/ir.txt"
done
if [[ -n "$baseline" ]]; then
  for pair in "now:$bin/dispatch_callgrind" "base:$baseline/benchmarks/dispatch_callgrind"; do
    tag=${pair%%:*}
    d=${pair#*:}
    [[ -x "$d" ]] || { echo "analysis_report.sh: $d is not built" >&2; exit 2; }
    echo "analysis_report.sh: $d under callgrind ..." >&2
    bash "$here/callgrind.sh" "$d" | awk -v t="$tag" '{ print t "_" $1, $2, $3 }' >>"$tmp/ir.txt"
  done
fi

echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at commit \`$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)\`; $(valgrind --version), $(g++ --version | head -1)."
echo
awk -F'\t' '
  FILENAME ~ /list.txt$/ { if (!($1 in what)) { order[++rows] = $1; what[$1] = $3 } next }
  { split($0, f, " "); ir[f[1] " " f[2]] = f[3]; has[f[1]] = 1 }
  function per_pass(n) { return (ir[n " 100"] - ir[n " 0"]) / 100 }
  function per_op(n, loop) { return (ir[n " 1000"] - ir[loop " 1000"]) / 1000 }
  function loop_of(n) { return n ~ /^llvm_/ ? "llvm_an_loop" : n ~ /^mlir_/ ? "mlir_an_loop" : "an_loop" }
  function cost(n) {
    if ((n " 100") in ir) return per_pass(n)
    if ((n " 1000") in ir) return per_op(n, loop_of(n))
    if ((n " 1") in ir) return ir[n " 1"]
    return ""
  }
  function row(what, expr, value, target, ok) {
    printf "| %s | %s | %s | %s | %s |\n", what, expr, value, target, ok == "" ? "" : (ok ? "yes" : "no")
  }
  function ratio(what, a, b, target, limit) {
    if (!(a in has) || !(b in has) || cost(b) == 0) return
    r = cost(a) / cost(b)
    row(what, a " / " b, sprintf("%.2f (%.1f / %.1f Ir)", r, cost(a), cost(b)), target, limit == "" ? "" : r <= limit + 1e-9)
  }
  function delta(what, a, b, target, limit) {
    if (!(a in has) || !(b in has)) return
    d = cost(a) - cost(b)
    row(what, a " - " b, sprintf("%+.2f Ir (%.2f - %.2f)", d, cost(a), cost(b)), target, limit == "" ? "" : d <= limit + 1e-9)
  }
  END {
    print "| variant | what | Ir per pass (N=100) or per operation |"
    print "|---|---|---:|"
    for (i = 1; i <= rows; ++i) {
      n = order[i]
      if (n ~ /_loop$/) continue
      printf "| %s | %s | %.2f |\n", n, what[n], cost(n)
    }
    print ""
    print "| target (DESIGN) | variants | measured | target | met |"
    print "|---|---|---:|---|---|"
    if ("base_seq_empty" in has) {
      split("run_empty seq_empty seq_hooks seq_three seq_record dyn_none dyn_one dyn_three", names, " ")
      for (k = 1; k <= 8; ++k) {
        delta("no manager: dispatch `" names[k] "` per pass, now vs before the analysis manager", "now_" names[k], "base_" names[k], "0 (same code)", 0)
      }
    }
    delta("no manager: analysis_callgrind an_seq_nomgr vs dispatch_callgrind seq_empty (per pass)", "an_seq_nomgr", "now_seq_empty", "0 (same code)", 0)
    delta("manager, nothing requested, no declarations (static)", "an_seq_mgr", "an_seq_nomgr", "<= +3 Ir per pass", 3)
    delta("manager, nothing requested, no declarations (dynamic)", "an_dyn_mgr", "an_dyn_nomgr", "<= +3 Ir per pass", 3)
    delta("preserves_all passes under a manager vs no manager", "an_seq_all_k0", "an_seq_nomgr", "", "")
    delta("invalidation after preserves_all: 6 cached vs none (per pass)", "an_seq_all_k6", "an_seq_all_k0", "independent of k", 0)
    row("invalidation after preserves_all, 6 cached (am.invalidate(all()))", "an_invalidate_all_k6", sprintf("%.2f Ir", cost("an_invalidate_all_k6")), "<= 3 Ir", cost("an_invalidate_all_k6") <= 3)
    ratio("cached static slot, am.get<A>(ir)", "an_slot_get", "an_hand_optional", "<= 1.1x", 1.1)
    ratio("cached static slot, ctx.analyses().get<A>(ir)", "an_slot_handle", "an_hand_optional", "<= 1.1x", 1.1)
    ratio("the same vs the hand-written cache reached through a pointer in the context", "an_slot_handle", "an_hand_optional_ptr", "", "")
    ratio("cached, run-time table, am.get<A>(ir)", "an_table_get", "llvm_an_get_module", "<= 1.0x (aim 0.5x)", 1.0)
    ratio("cached, run-time table, PassContext<IR>::analyses()", "an_table_dyn_handle", "llvm_an_get_module", "<= 1.0x (aim 0.5x)", 1.0)
    ratio("cached, run-time table, through ContextRef", "an_table_contextref", "llvm_an_get_module", "<= 1.0x (aim 0.5x)", 1.0)
    ratio("cached function result, key \"f\"", "an_fn_get", "llvm_an_get_function", "<= 1.0x", 1.0)
    ratio("get_cached of a function result", "an_fn_cached", "llvm_an_cached_function", "", "")
    ratio("am.get(name, ir), cached", "an_name_get", "llvm_an_get_module", "<= 2.0x", 2.0)
    ratio("invalidation, 3 cached, a declaration preserving the 3", "an_invalidate_keep3", "llvm_an_invalidate_3", "<= 0.25x", 0.25)
    ratio("the same inside a pipeline (per pass, above preserves_all)", "an_seq_keep3", "llvm_an_invalidate_3", "", "")
    ratio("invalidation, PreservedAnalyses built at run time (3)", "an_invalidate_keep3_rt", "llvm_an_invalidate_3", "", "")
    ratio("invalidate(fn, pa), pa built at run time, 3 function results", "an_fn_invalidate_keep3", "llvm_an_invalidate_3", "", "")
    delta("a miss, instrument with pass hooks only vs InstrumentSet<>", "an_miss_handle_hooks", "an_miss_handle_empty", "0 Ir", 0)
    delta("a miss through the handle vs directly on the manager", "an_miss_handle_empty", "an_miss_direct", "", "")
    ratio("MLIR 14 cached getAnalysis, for reference", "an_table_get", "mlir_an_get", "", "")
    ratio("MLIR 14 getChildAnalysis, for reference", "an_fn_get", "mlir_an_get_child", "", "")
    ratio("MLIR 14 invalidate preserving 3, for reference", "an_invalidate_keep3", "mlir_an_invalidate_3", "", "")
  }' "$tmp/list.txt" "$tmp/ir.txt"
