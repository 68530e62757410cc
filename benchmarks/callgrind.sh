#!/usr/bin/env bash
# benchmarks/callgrind.sh [--separate] [--reps R] <driver> [variant names...]
#
# Instructions per call of the variants of a callgrind driver
# (benchmarks/callgrind_driver.hpp: dispatch_callgrind, resnet_workload,
# anchors/anchor_llvm, anchors/anchor_mlir), counted by callgrind: only the
# instructions executed inside the driver's v_* functions, after a warm-up
# call, averaged over R calls (default 10). Deterministic for the same binary,
# whatever else the machine is doing. Prints one line per variant and N:
#
#   <variant> <N> <Ir per call>
#
# --separate runs every variant in its own valgrind process, so each starts
# from a fresh heap (for workloads that allocate: the allocator's state then
# does not depend on which variants ran before). benchmarks/report.sh turns
# these lines into the results tables.
set -euo pipefail

separate=0
reps=10
while (($#)); do
  case "$1" in
    --separate) separate=1; shift ;;
    --reps) reps=$2; shift 2 ;;
    -*) echo "callgrind.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
  esac
done
(($# >= 1)) || { echo "usage: benchmarks/callgrind.sh [--separate] [--reps R] <driver> [variants...]" >&2; exit 2; }
driver=$1
shift
[[ -x "$driver" ]] || { echo "callgrind.sh: no driver at '$driver' (build it: make bench)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run <tag> [variants...]: one valgrind process; its dumps are $tmp/<tag>.out.<k>.
run() {
  local tag=$1
  shift
  if ! valgrind --tool=callgrind --toggle-collect='v_*' --callgrind-out-file="$tmp/$tag.out" \
      "$driver" --run --reps "$reps" "$@" >"$tmp/$tag.stdout" 2>"$tmp/$tag.stderr"; then
    echo "callgrind.sh: '$driver --run $*' failed under valgrind:" >&2
    tail -20 "$tmp/$tag.stderr" >&2
    exit 1
  fi
}

tags=()
if ((separate)); then
  mapfile -t names < <(if (($#)); then printf '%s\n' "$@"; else "$driver" --list | cut -f1 | uniq; fi)
  for i in "${!names[@]}"; do
    run "v$i" "${names[$i]}"
    tags+=("v$i")
  done
else
  run all "$@"
  tags=(all)
fi

# Each dump names its variant in "desc: Trigger: Client Request: <name> <N> <reps>"
# and counts its instructions in "totals: <Ir>". Dumps in the order written.
for tag in "${tags[@]}"; do
  for ((k = 1; ; ++k)); do
    dump="$tmp/$tag.out.$k"
    [[ -f "$dump" ]] || break
    awk '/^desc: Trigger: Client Request: / { name = $5; n = $6; r = $7 }
         /^totals: / { total = $2 }
         END { if (name != "" && r > 0) printf "%s %s %.1f\n", name, n, total / r }' "$dump"
  done
done
