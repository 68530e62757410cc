#!/usr/bin/env bash
# benchmarks/compile_time_check.sh — CI's compile-time regression check (issue 18).
#
#   benchmarks/compile_time_check.sh [--update] [--instructions] [--reps R] [--tolerance F]
#
# Measures with benchmarks/compile_time.sh (g++ only, N = 200, no profile;
# CPU time, fastest of R runs, default 3) two ratios, each of two compiles of
# the same run, so that the speed of the machine cancels:
#
#   include   passinfra/core.hpp alone / <string> <vector> <functional> <boost/mp11.hpp>
#   seq200    Sequential of 200 passes + 3 instruments / the same written by hand
#
# and compares them with benchmarks/compile_time_baseline.txt. CPU time on a
# shared machine is noisy (the same commit has read a 200-pass ratio of 3.95
# and of 4.95), so a ratio over F times its committed value (default 1.20: a
# 20% regression) is only a suspicion: the check then counts the compiler's
# instructions for the two files of that ratio under callgrind (valgrind; the
# same count on every machine, a few minutes) and fails (exit 1) only when the
# instruction ratio, too, is more than F times its committed value, naming the
# ratio, all the values and how to look into it.
# --instructions counts instructions for both ratios whatever the times say.
# --update rewrites the baseline file with this run's ratios, times and
# instructions (commit it with the change that moved them, and say why).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
baseline="$here/compile_time_baseline.txt"
out="$root/build/compile-time-check"
reps=3
tolerance=1.20
update=0
instructions=0
while (($#)); do
  case "$1" in
    --update) update=1; instructions=1; shift ;;
    --instructions) instructions=1; shift ;;
    --reps) reps=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "compile_time_check.sh: unknown argument '$1' (expected --update, --instructions, --reps R, --tolerance F)" >&2; exit 2 ;;
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

# instructions <file>: millions of instructions g++'s compiler proper (cc1plus)
# executes on <file> with the flags compile_time.sh used, under callgrind.
instructions() {
  local driver cmd
  driver=$(g++ -std=c++20 -O2 -DNDEBUG -I"$root/include" -S "$1" -o /dev/null -### 2>&1)
  cmd=$(grep -m1 cc1plus <<<"$driver") ||
    { echo "compile_time_check.sh: g++ -### printed no cc1plus line for $1" >&2; return 1; }
  eval "valgrind --tool=callgrind --callgrind-out-file=/dev/null $cmd" 2>&1 >/dev/null |
    awk '/Collected/ { found = 1; printf "%.0f\n", $4 / 1e6 } END { exit !found }' ||
    { echo "compile_time_check.sh: callgrind did not count $1 (is valgrind installed?)" >&2; return 1; }
}
declare -A files=([include]="include reference" [seq200]="seq_200 hand_200")
# instruction_ratio <name>: sets instr_ratio and instr_detail for the two files of <name>.
instruction_ratio() {
  local num den a b
  read -r num den <<<"${files[$1]}"
  echo "compile_time_check.sh: counting g++'s instructions on $num.cpp and $den.cpp (callgrind, a few minutes)"
  # both at once: a machine has two cores or more, and the counts do not depend on it
  instructions "$out/src/$num.cpp" >"$out/$num.instructions" & local pid=$!
  instructions "$out/src/$den.cpp" >"$out/$den.instructions" || { wait "$pid"; return 1; }
  wait "$pid" || return 1
  a=$(<"$out/$num.instructions") b=$(<"$out/$den.instructions")
  instr_ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
  instr_detail="$num.cpp $a M / $den.cpp $b M instructions"
  echo "  $1: instruction ratio $instr_ratio ($instr_detail)"
}

if ((update)); then
  instruction_ratio include && include_instr=$instr_ratio || exit 1
  instruction_ratio seq200 && seq_instr=$instr_ratio || exit 1
  {
    echo "# benchmarks/compile_time_baseline.txt: the committed compile-time ratios that"
    echo "# benchmarks/compile_time_check.sh (CI) compares against; rewritten by --update."
    echo "# <name> <ratio>: CPU time (a first screen) and, with the suffix _instructions,"
    echo "# g++'s instructions under callgrind (what a failure must confirm)."
    echo "# measured $(date -u '+%Y-%m-%d %H:%M UTC') at $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(g++ --version | head -1)"
    echo "include $include_ratio"
    echo "seq200 $seq_ratio"
    echo "include_instructions $include_instr"
    echo "seq200_instructions $seq_instr"
  } >"$baseline"
  echo "compile_time_check.sh: wrote $baseline"
  exit 0
fi

[[ -f $baseline ]] || { echo "compile_time_check.sh: no baseline $baseline (run with --update and commit it)" >&2; exit 2; }
committed() {  # committed <name>: the baseline's value, or a message and status 2
  local v
  v=$(awk -v n="$1" '$1 == n { print $2 }' "$baseline")
  if [[ -z $v ]]; then
    echo "compile_time_check.sh: $baseline has no '$1' line (expected include, seq200, include_instructions and seq200_instructions; rerun with --update)" >&2
    return 2
  fi
  echo "$v"
}
over() { awk -v m="$1" -v c="$2" -v f="$tolerance" 'BEGIN { exit !(m > c * f) }'; }
limit() { awk -v c="$1" -v f="$tolerance" 'BEGIN { printf "%.3f", c * f }'; }
status=0
check() {  # check <name> <measured time ratio> <what it is>
  local c ci rc=0
  c=$(committed "$1") && ci=$(committed "$1_instructions") || rc=$?
  if ((rc)); then status=$rc; return; fi
  if over "$2" "$c"; then
    echo "  $1: time ratio $2 is over its limit ${tolerance}x $c = $(limit "$c"); confirming with instructions"
  elif ((instructions)); then
    echo "  $1: time ratio $2 (committed $c, limit $(limit "$c")): ok; counting instructions as asked"
  else
    echo "  $1: $2 (committed $c, limit ${tolerance}x): ok"
    return
  fi
  if ! instruction_ratio "$1"; then
    echo "compile_time_check.sh: could not count instructions; the time ratio of $3 alone is $2 (limit $(limit "$c"))." >&2
    status=1
    return
  fi
  if over "$instr_ratio" "$ci"; then
    echo "compile_time_check.sh: REGRESSION: $3 is $instr_ratio in instructions ($instr_detail), committed $ci (limit ${tolerance}x = $(limit "$ci")); in CPU time $2, committed $c." >&2
    echo "  Look into it with: bash benchmarks/compile_time.sh --ns \"200\" (profile in build/bench-compile/compile_time.md)." >&2
    echo "  If the cost is deliberate, rerun with --update and commit the baseline with the reason." >&2
    status=1
  else
    echo "  $1: $instr_ratio in instructions (committed $ci, limit ${tolerance}x = $(limit "$ci")): ok"
  fi
}
check include "$include_ratio" "passinfra/core.hpp / reference includes"
check seq200 "$seq_ratio" "Sequential of 200 passes / hand-written"
exit "$status"
