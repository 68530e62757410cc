#!/usr/bin/env bash
# tests/tool/tinyir_opt_cli.sh <tinyir-opt>: the built executable end to end
# (SPEC §12): exit codes, messages, stdin/stdout, -o left untouched on failure,
# --time-trace and --report readable by python3 -m json.tool, the reproducer's
# run line re-run through a shell. ctest tool.tinyir_opt_cli runs it.
set -uo pipefail
tool=${1:?usage: tinyir_opt_cli.sh <tinyir-opt>}
tool=$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect <code> <stdout-file-or-> <stderr-substring> -- <args...>: runs the tool.
expect() {
  local code=$1 err_has=$2; shift 3
  "$tool" "$@" >out.txt 2>err.txt < "${STDIN:-/dev/null}"
  local rc=$?
  [[ $rc == "$code" ]] || fail "tinyir-opt $*: exit $rc, expected $code; stderr: $(cat err.txt)"
  [[ -z "$err_has" ]] || grep -qF -- "$err_has" err.txt || fail "tinyir-opt $*: stderr lacks '$err_has': $(cat err.txt)"
}

cat >in.tir <<'IR'
def @main(%x: Tensor[(2), float32]) {
  %0 = add(1f, 2f);
  %1 = multiply(%0, 2f);
  add(%x, %1)
}
IR
cat >folded.tir <<'IR'
def @main(%x: Tensor[(2), float32]) {
  add(%x, 6f)
}
IR
printf 'def @main(%%x: Tensor[(2), float32]) {\n  %%0 = add(1f 2f);\n  %%0\n}\n' >bad.tir

# A pipeline from stdin to stdout, and from a file to -o.
STDIN=in.tir expect 0 "" -- --passes=InferType,FoldConstant -
cmp -s out.txt folded.tir || fail "stdin -> stdout: $(cat out.txt)"
expect 0 "" -- --passes=InferType,FoldConstant in.tir -o out.tir
cmp -s out.tir folded.tir || fail "-o out.tir: $(cat out.tir)"
expect 0 "" -- --version
[[ "$(cat out.txt)" == "tinyir-opt (passinfra "*")" ]] || fail "--version: $(cat out.txt)"
expect 0 "" -- --help
grep -q '^Available passes:$' out.txt || fail "--help has no pass list"
expect 0 "" -- --list-passes
grep -q '^FoldConstant - ' out.txt || fail "--list-passes: $(cat out.txt)"

# Usage errors: exit 2, suggestions, and the input is never read (a FIFO nobody writes would block).
mkfifo never
expect 2 "tinyir-opt: error: unknown option '--pases'; did you mean '--passes'?" -- --pases=InferType never
expect 2 "column 11: unknown pass name 'FoldConstnt'" -- --passes=InferType,FoldConstnt never
grep -qxF "            ^" err.txt || fail "no caret under the unknown pass: $(cat err.txt)"
expect 2 "key 'relay.FuseOps.max_depth' expects an integer, but 'deep' is not one" -- \
  --config=relay.FuseOps.max_depth=deep never

# Input errors: exit 3.
expect 3 "bad.tir:2:15: error: expected ',' or ')'" -- bad.tir
grep -qxF "              ^" err.txt || fail "no caret under the parse error: $(cat err.txt)"
expect 3 "tinyir-opt: error: cannot read 'missing.tir': No such file or directory" -- missing.tir

# -o untouched when the run fails: an input error, a pass failure; absent stays absent.
echo "keep me" >kept.tir
expect 3 "" -- bad.tir -o kept.tir
[[ "$(cat kept.tir)" == "keep me" ]] || fail "-o changed by a failed parse"
expect 1 "tinyir-opt: error: pass 'FuseOps' failed: " -- --passes=FuseOps --config=relay.FuseOps.max_depth=0 \
  in.tir -o kept.tir
[[ "$(cat kept.tir)" == "keep me" ]] || fail "-o changed by a failed pass"
expect 1 "" -- --passes=FuseOps --config=relay.FuseOps.max_depth=0 in.tir -o never-written.tir
[[ -e never-written.tir ]] && fail "-o created by a failed pass"
expect 0 "" -- in.tir -o absent/dir/out.tir --disable-output
expect 4 "cannot write 'absent/dir/out.tir'" -- in.tir -o absent/dir/out.tir
ls ./*.tmp.* >/dev/null 2>&1 && fail "a temporary file was left behind"
# A path that is not a regular file is written in place (renaming over /dev/null
# would replace the device): here a FIFO, which must still be one afterwards.
mkfifo pipe.out
cat pipe.out >from-pipe.txt &
reader=$!
expect 0 "" -- --passes=InferType,FoldConstant in.tir -o pipe.out
wait "$reader"
cmp -s from-pipe.txt folded.tir || fail "-o <fifo>: $(cat from-pipe.txt)"
[[ -p pipe.out ]] || fail "-o <fifo> replaced the FIFO"

# Timing, trace, report, bisect, statistics.
expect 0 "" -- --passes=InferType,FoldConstant in.tir --time-passes --time-trace=trace.json --report=report.json
grep -q '^sequential: ' err.txt || fail "--time-passes: $(cat err.txt)"
python3 -m json.tool trace.json >/dev/null || fail "--time-trace is not JSON"
python3 -m json.tool report.json >/dev/null || fail "--report is not JSON"
expect 0 "BISECT: NOT running pass (3) FoldConstant" -- --passes=InferType,FoldConstant --opt-bisect-limit=2 in.tir
cmp -s out.txt in.tir || fail "bisect limit 2 changed the IR"
expect 0 "(S) 2 folded - Number of calls folded" -- --passes=InferType,FoldConstant --statistics in.tir
expect 0 "will not run at --opt-level=1" -- --passes=InferType,FoldConstant -O1 in.tir
expect 0 "" -- --passes=InferType,FoldConstant --disable-pass=FoldConstant --print-changed=diff in.tir
cmp -s out.txt in.tir || fail "--disable-pass ran the pass"

# The reproducer's run line, run through the shell, fails the same way.
expect 1 "tinyir-opt: note: reproducer written to 'repro.tir'; re-run with: " -- \
  --passes=InferType,FuseOps --config=relay.FuseOps.max_depth=0 --crash-reproducer=repro.tir in.tir
first=$(grep 'error: pass' err.txt)
run_line=$(sed -n 's|^// run: tinyir-opt ||p' repro.tir)
[[ -n "$run_line" ]] || fail "no run line in repro.tir"
eval "set -- $run_line"
expect 1 "" -- "$@"
[[ "$(grep 'error: pass' err.txt)" == "$first" ]] || fail "re-run: '$(cat err.txt)' vs '$first'"

if ((failures)); then
  echo "tinyir_opt_cli: $failures failure(s)" >&2
  exit 1
fi
echo "tinyir_opt_cli: all checks passed"
