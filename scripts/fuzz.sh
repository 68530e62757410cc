#!/usr/bin/env bash
# scripts/fuzz.sh: build the libFuzzer targets fuzz/*_fuzz.cpp with clang++-16
# (-fsanitize=fuzzer,address,undefined) into build/fuzz/, then run each for a
# bounded time on a copy of its seed corpus. `make fuzz` runs this.
#
#   FUZZ_SECONDS=60     seconds per target (libFuzzer -max_total_time)
#   FUZZ_TARGETS="a b"  only these targets (names without _fuzz.cpp)
#   FUZZ_JOBS=1         parallel fuzzing jobs per target (-jobs/-workers)
#   FUZZ_MAX_LEN=...    libFuzzer -max_len for every target; by default 4096, and
#                       524288 for tinyir_parser, whose seeds include flat programs of
#                       10,000 bindings and 100,000-deep nesting (up to ~320 KB)
#   FUZZ_BUILD_ONLY=1   build, do not run
#
# Seeds: fuzz/corpus/<target>/ (kept in the repository). The working corpus
# (seeds + what the fuzzer finds) is build/fuzz/corpus/<target>/; crashes are
# written to build/fuzz/artifacts/<target>/ and make the script fail: turn
# each into a regression test in tests/reliability/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CXX=${FUZZ_CXX:-clang++-16}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
# max_len_of <target>: FUZZ_MAX_LEN, else the target's default.
max_len_of() {
  if [[ -n "${FUZZ_MAX_LEN:-}" ]]; then
    echo "$FUZZ_MAX_LEN"
    return
  fi
  case "$1" in
    tinyir_parser) echo 524288 ;;
    *) echo 4096 ;;
  esac
}
OUT=build/fuzz
mkdir -p "$OUT"

if ! command -v "$CXX" >/dev/null; then
  echo "fuzz.sh: $CXX not found (apt-get install clang-16 libclang-rt-16-dev)" >&2
  exit 1
fi

targets=()
if [[ -n "${FUZZ_TARGETS:-}" ]]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  for f in fuzz/*_fuzz.cpp; do
    name=$(basename "$f" _fuzz.cpp)
    targets+=("$name")
  done
fi

flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Iinclude -Itests -Iexamples -Wall -Wextra -Werror)

for t in "${targets[@]}"; do
  src=fuzz/${t}_fuzz.cpp
  bin=$OUT/${t}_fuzz
  if [[ ! -x "$bin" || "$src" -nt "$bin" || -n "$(find include tests/support examples/tinyir -newer "$bin" -name '*.hpp' -print -quit)" ]]; then
    echo "==== fuzz: building $bin"
    "$CXX" "${flags[@]}" "$src" -o "$bin"
  fi
done
[[ -n "${FUZZ_BUILD_ONLY:-}" ]] && exit 0

status=0
for t in "${targets[@]}"; do
  bin=$OUT/${t}_fuzz
  corpus=$OUT/corpus/$t
  artifacts=$OUT/artifacts/$t/
  mkdir -p "$corpus" "$artifacts"
  [[ -d fuzz/corpus/$t ]] && cp -n fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  dict=()
  [[ -f fuzz/$t.dict ]] && dict=(-dict="fuzz/$t.dict")
  max_len=$(max_len_of "$t")
  echo "==== fuzz: $t for ${SECONDS_PER_TARGET}s, max_len $max_len (corpus $corpus)"
  log=$OUT/$t.log
  rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$bin" "$corpus" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" -max_len="$max_len" \
      -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts" \
      ${JOBS:+$( ((JOBS > 1)) && echo "-jobs=$JOBS -workers=$JOBS")} >"$log" 2>&1 || rc=$?
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n1 || true)
  echo "==== fuzz: $t: ${runs:-?} executions, exit $rc (log $log)"
  if ((rc != 0)); then
    status=1
    tail -n 40 "$log"
    ls -1 "$artifacts"
  fi
done
exit "$status"
