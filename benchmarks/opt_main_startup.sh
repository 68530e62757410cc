#!/usr/bin/env bash
# benchmarks/opt_main_startup.sh [BUILD_DIR]: the process-level costs of
# tinyir-opt (DESIGN's driver targets), median of 20 runs each, wall time:
#
#   start-up    tinyir-opt --version                          target <= 5 ms
#   empty       tinyir-opt --passes=InferType on an empty input      <= 10 ms
#   resnet18    tinyir-opt --passes=InferType,FoldConstant on the ResNet-18 text
#               (printed by benchmarks/opt_main_input), -o a file, --report:
#               the report's phases, and the rest of the process's time
#               (start-up, exit, the driver itself) = wall - sum(phases)
#
# BUILD_DIR defaults to build/release (make bench builds it). Prints one line
# per measure; noisy on a shared machine (medians, not means).
set -euo pipefail
build=${1:-build/release}
tool=$build/examples/tinyir-opt
input_gen=$build/benchmarks/opt_main_input
[[ -x $tool && -x $input_gen ]] || { echo "opt_main_startup.sh: build $tool and $input_gen first (make bench)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$input_gen" >"$tmp/resnet18.tir"
: >"$tmp/empty.tir"

# median_ms <runs> <command...>: the median wall time of the command, in ms.
median_ms() {
  local runs=$1; shift
  local times=()
  for ((i = 0; i < runs; ++i)); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.2f", m / 1000}'
}

"$tool" --version >/dev/null  # warm the page cache
echo "start-up  tinyir-opt --version: $(median_ms 20 "$tool" --version) ms (median of 20)"
echo "empty     --passes=InferType, empty input: $(median_ms 20 "$tool" --passes=InferType "$tmp/empty.tir") ms"
wall=$(median_ms 20 "$tool" --passes=InferType,FoldConstant "$tmp/resnet18.tir" -o "$tmp/out.tir" --report "$tmp/report.json")
python3 - "$tmp/report.json" "$wall" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall_ms = float(sys.argv[2])
p = r["phases_us"]
phases = sum(p.values()) / 1000
print(f"resnet18  --passes=InferType,FoldConstant: wall {wall_ms:.2f} ms (median of 20); last run's phases "
      + ", ".join(f"{k} {v / 1000:.2f}" for k, v in p.items())
      + f" ms; outside the phases {wall_ms - phases:.2f} ms ({100 * (wall_ms - phases) / wall_ms:.1f}%)")
PY
