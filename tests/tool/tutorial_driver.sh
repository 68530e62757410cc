#!/usr/bin/env bash
# tests/tool/tutorial_driver.sh <tinyir-opt> <golden-dir>: runs every command of
# docs/tutorial_driver.md and compares what each prints (stdout and stderr, then
# "exit N") with <golden-dir>/<step>.txt; timing numbers are masked (<N>).
# PASSINFRA_UPDATE_GOLDEN=1 rewrites the golden files instead. The tutorial
# quotes the commands from the `# [step]` regions below (scripts/check_docs.sh
# keeps them identical) and the outputs from the golden files. ctest:
# tool.tutorial_driver.
set -uo pipefail
tool=${1:?usage: tutorial_driver.sh <tinyir-opt> <golden-dir>}
golden=$(cd "${2:?usage: tutorial_driver.sh <tinyir-opt> <golden-dir>}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/bin"
mkdir -p "$bin" "$work/out"
ln -s "$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")" "$bin/tinyir-opt"
export PATH="$bin:$PATH"
cp "$here/../../examples/tools/tutorial/model.tir" "$work/model.tir"
cd "$work"
out=$work/out

# Each step: its commands' stdout and stderr, then the exit status of the last.
# Timing numbers vary from run to run; mask them.
mask() { sed -E 's/[0-9]+us/<N>us/g; s/[0-9]+\.[0-9]+%/<P>%/g; s/"(ts|dur)": ?[0-9.]+/"\1": <N>/g'; }

{
  # [run]
  tinyir-opt --passes=InferType,FoldConstant,FuseOps model.tir
  # [run]
} >"$out/run.txt" 2>&1; echo "exit $?" >>"$out/run.txt"

{
  # [print-changed]
  tinyir-opt --passes=InferType,FoldConstant,FuseOps --print-changed=diff \
    --filter-passes=FoldConstant,FuseOps --disable-output model.tir
  # [print-changed]
} >"$out/print-changed.txt" 2>&1; echo "exit $?" >>"$out/print-changed.txt"

{
  # [time]
  tinyir-opt --passes=InferType,FoldConstant,FuseOps --time-passes --statistics \
    --disable-output model.tir
  # [time]
} >"$out/time.txt" 2>&1; echo "exit $?" >>"$out/time.txt"

{
  # [analyses]
  tinyir-opt --passes='require(analysis="CallGraph"),InferType,FuseOps' --verify-analyses --time-passes \
    --disable-output model.tir
  # [analyses]
} >"$out/analyses.txt" 2>&1; echo "exit $?" >>"$out/analyses.txt"

{
  # [bisect-all]
  tinyir-opt --passes=InferType,FoldConstant,FuseOps --opt-bisect-limit=-1 --disable-output model.tir
  # [bisect-all]
} >"$out/bisect-all.txt" 2>&1; echo "exit $?" >>"$out/bisect-all.txt"

{
  # [bisect]
  tinyir-opt --passes=InferType,FoldConstant,FuseOps --opt-bisect-limit=5 model.tir
  # [bisect]
} >"$out/bisect.txt" 2>&1; echo "exit $?" >>"$out/bisect.txt"

{
  # [crash]
  tinyir-opt --passes=InferType,FoldConstant,FuseOps --config=relay.FuseOps.max_depth=0 \
    --crash-reproducer=repro.tir model.tir
  # [crash]
} >"$out/crash.txt" 2>&1; echo "exit $?" >>"$out/crash.txt"

{
  # [repro]
  head -n 6 repro.tir
  # [repro]
} >"$out/repro.txt" 2>&1; echo "exit $?" >>"$out/repro.txt"

{
  # [rerun]
  tinyir-opt --passes='FuseOps' --opt-level=2 --config='relay.FuseOps.max_depth=0' repro.tir
  # [rerun]
} >"$out/rerun.txt" 2>&1; echo "exit $?" >>"$out/rerun.txt"

failures=0
for f in "$out"/*.txt; do
  name=$(basename "$f")
  mask <"$f" >"$f.masked"
  if [[ "${PASSINFRA_UPDATE_GOLDEN:-0}" == 1 ]]; then
    cp "$f.masked" "$golden/$name"
  elif ! diff -u "$golden/$name" "$f.masked"; then
    echo "tutorial_driver: $name differs from $golden/$name (PASSINFRA_UPDATE_GOLDEN=1 rewrites it)" >&2
    failures=$((failures + 1))
  fi
done
# The rerun line is the one the reproducer names.
grep -qxF "// run: tinyir-opt --passes='FuseOps' --opt-level=2 --config='relay.FuseOps.max_depth=0' repro.tir" \
  repro.tir || { echo "tutorial_driver: repro.tir's run line is not the one the tutorial re-runs" >&2; failures=$((failures + 1)); }
((failures == 0)) || exit 1
echo "tutorial_driver: every command's output matches"
