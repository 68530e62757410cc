#!/usr/bin/env bash
# benchmarks/compile_time_check.sh — CI's compile-time regression check (issue 18).
#
#   benchmarks/compile_time_check.sh [--update] [--reps R] [--tolerance F]
#
# Measures with benchmarks/compile_time.sh (g++ only, N = 200, no profile;
# CPU time, fastest of R runs, default 3) two ratios, each of two compiles of
# the same run, so that the speed of the machine cancels:
#
#   include   passinfra/core.hpp alone / <string> <vector> <functional> <boost/mp11.hpp>
#   seq200    Sequential of 200 passes + 3 instruments / the same written by hand
#
# and compares them with benchmarks/compile_time_baseline.txt. Fails (exit 1)
# when a ratio is more than F times its committed value (default 1.20: a 20%
# regression), naming the ratio, both values and how to look into it.
# --update rewrites the baseline file with this run's ratios (commit it with
# the change that moved them, and say why).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
baseline="$here/compile_time_baseline.txt"
out="$root/build/compile-time-check"
reps=3
tolerance=1.20
update=0
while (($#)); do
  case "$1" in
    --update) update=1; shift ;;
    --reps) reps=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "compile_time_check.sh: unknown argument '$1' (expected --update, --reps R, --tolerance F)" >&2; exit 2 ;;
  esac
done

bash "$here/compile_time.sh" --out "$out" --ns 200 --reps "$reps" --compilers g++ --no-profile >/dev/null

# raw.txt lines: <compiler> <kind> <N> <cpu s> <max rss KB> <status>
read -r include_ratio seq_ratio < <(awk '
  $1 == "g++" { t[$2 " " $3] = $4; st[$2 " " $3] = $6 }
  END {
    for (k in st) if (st[k] != "ok") { print "fail fail"; exit }
    printf "%.3f %.3f\n", t["include 0"] / t["reference 0"], t["seq 200"] / t["hand 200"]
  }' "$out/raw.txt")
if [[ $include_ratio == fail ]]; then
  echo "compile_time_check.sh: a generated translation unit did not compile:" >&2
  cat "$out/failures.txt" >&2
  exit 1
fi
echo "compile_time_check.sh: g++ -O2 -DNDEBUG, fastest of $reps: include ratio $include_ratio, 200-pass ratio $seq_ratio"

if ((update)); then
  {
    echo "# benchmarks/compile_time_baseline.txt: the committed compile-time ratios that"
    echo "# benchmarks/compile_time_check.sh (CI) compares against; rewritten by --update."
    echo "# <name> <ratio>   measured $(date -u '+%Y-%m-%d %H:%M UTC') at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(g++ --version | head -1)"
    echo "include $include_ratio"
    echo "seq200 $seq_ratio"
  } >"$baseline"
  echo "compile_time_check.sh: wrote $baseline"
  exit 0
fi

[[ -f $baseline ]] || { echo "compile_time_check.sh: no baseline $baseline (run with --update and commit it)" >&2; exit 2; }
status=0
check() {  # check <name> <measured> <what it is>
  local committed
  committed=$(awk -v n="$1" '$1 == n { print $2 }' "$baseline")
  if [[ -z $committed ]]; then
    echo "compile_time_check.sh: $baseline has no '$1' line (expected 'include' and 'seq200'; rerun with --update)" >&2
    status=2
    return
  fi
  if awk -v m="$2" -v c="$committed" -v f="$tolerance" 'BEGIN { exit !(m > c * f) }'; then
    echo "compile_time_check.sh: REGRESSION: $3 is $2, committed $committed (limit ${tolerance}x = $(awk -v c="$committed" -v f="$tolerance" 'BEGIN { printf "%.3f", c * f }'))." >&2
    echo "  Look into it with: bash benchmarks/compile_time.sh --ns \"200\" (profile in build/bench-compile/compile_time.md)." >&2
    echo "  If the cost is deliberate, rerun with --update and commit the baseline with the reason." >&2
    status=1
  else
    echo "  $1: $2 (committed $committed, limit ${tolerance}x): ok"
  fi
}
check include "$include_ratio" "passinfra/core.hpp / reference includes"
check seq200 "$seq_ratio" "Sequential of 200 passes / hand-written"
exit "$status"
