#!/usr/bin/env bash
# benchmarks/callgrind.sh [driver] — instructions per pass, counted by callgrind.
#
# For each variant of dispatch_callgrind.cpp and N in {0, 100}, counts the
# instructions executed inside v_<variant>_<N> for 1 and for 11 calls; the
# difference / 10 is one call (static set-up excluded), and
# (call(N=100) - call(N=0)) / 100 is the cost per pass. Deterministic for the
# same binary, whatever else the machine is doing. Prints a Markdown table.
set -euo pipefail
driver=${1:-build/release/benchmarks/dispatch_callgrind}
[ -x "$driver" ] || { echo "callgrind.sh: no driver at '$driver'; expected the built dispatch_callgrind (make bench)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {  # count <function> <reps> -> instructions inside <function>
  local out="$tmp/cg.$1.$2"
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="$1" "$driver" "${1#v_}" "$2" \
    >/dev/null 2>&1
  awk '/^(summary|totals):/ {print $2; exit}' "$out"
}
per_call() {  # per_call <variant> <N>
  local one eleven
  one=$(count "v_$1_$2" 1)
  eleven=$(count "v_$1_$2" 11)
  echo $(((eleven - one) / 10))
}

declare -A pp
row() {  # row <variant> <description>
  local c0 c100
  c0=$(per_call "$1" 0)
  c100=$(per_call "$1" 100)
  pp[$1]=$(awk -v a="$c100" -v b="$c0" 'BEGIN { printf "%.2f", (a - b) / 100 }')
  printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$c0" "$c100" "${pp[$1]}"
}
ratio() { awk -v a="${pp[$1]}" -v b="${pp[$2]}" 'BEGIN { printf "%.3f", a / b }'; }

echo "| variant | what | Ir/call N=0 | Ir/call N=100 | Ir per pass |"
echo "|---|---|---:|---:|---:|"
row hand_calls  "hand-written calls (inlined)"
row run_empty   "passinfra::run on each pass, InstrumentSet<>"
row hand_gate   "hand-written PassEnabled gate + calls"
row seq_empty   "Sequential<100 passes>, InstrumentSet<>"
row hand_hooks  "hand-inlined gate + 3 counting hooks"
row seq_hooks   "Sequential, one instrument with 3 counting hooks"
row virtual_one "hand-written virtual dispatcher, 1 instrument (3 hooks)"
row dyn_none    "DynamicSequential of AnyPass, no instrument"
row dyn_one     "DynamicSequential of AnyPass, 1 AnyInstrument (3 hooks)"
echo
echo "| ratio | value | target |"
echo "|---|---:|---|"
echo "| run (empty set) / hand calls | $(ratio run_empty hand_calls) | <= 1.02 |"
echo "| Sequential (empty set) / hand gate + calls | $(ratio seq_empty hand_gate) | <= 1.0 |"
echo "| Sequential (3 hooks) / hand-inlined gate + hooks | $(ratio seq_hooks hand_hooks) | <= 1.05 |"
echo "| DynamicSequential + 1 AnyInstrument / virtual dispatcher | $(ratio dyn_one virtual_one) | <= 1.0 |"
echo "| gate cost per pass (hand gate - hand calls) | $(awk -v a="${pp[hand_gate]}" -v b="${pp[hand_calls]}" 'BEGIN { printf "%.2f Ir", a - b }') | |"
