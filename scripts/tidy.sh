#!/usr/bin/env bash
# scripts/tidy.sh BUILD_DIR: clang-tidy-16 with the repository's .clang-tidy
# over the TUs of BUILD_DIR/compile_commands.json that exercise the library:
# the examples (which instantiate most of it on tinyir) and the generated
# one-TU-per-public-header files. `make tidy` runs it on build/dev.
# Exit 1 if clang-tidy reports anything (WarningsAsErrors: '*').
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${1:?usage: scripts/tidy.sh BUILD_DIR (with compile_commands.json)}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy-16}
db=$build/compile_commands.json
[[ -f $db ]] || { echo "tidy.sh: $db not found; configure first (cmake --preset dev)" >&2; exit 1; }
command -v "$CLANG_TIDY" >/dev/null || { echo "tidy.sh: $CLANG_TIDY not found (apt-get install clang-tidy-16)" >&2; exit 1; }

mapfile -t files < <(python3 - "$db" <<'PY'
import json, sys, re
for entry in json.load(open(sys.argv[1])):
    f = entry["file"]
    if re.search(r"/examples/(tools/)?[^/]+\.cpp$", f) or re.search(r"/tests/headers/generated/.*\.cpp$", f):
        print(f)
PY
)
((${#files[@]} > 0)) || { echo "tidy.sh: no example or header TUs in $db" >&2; exit 1; }

# TIDY_JOBS files at a time (default 2, the machine's cores); each file's report
# is printed whole, in the order of the list, once all have run.
jobs=${TIDY_JOBS:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in "${!files[@]}"; do printf '%s\n%s\n' "$i" "${files[$i]}"; done |
  CLANG_TIDY=$CLANG_TIDY BUILD=$build OUT=$out xargs -P "$jobs" -d '\n' -n 2 bash -c '
    "$CLANG_TIDY" -p "$BUILD" --quiet "$2" >"$OUT/$1.log" 2>/dev/null || : >"$OUT/$1.failed"
  ' _
status=0
for i in "${!files[@]}"; do
  echo "==== tidy: ${files[$i]#"$PWD"/}"
  cat "$out/$i.log"
  [[ -e $out/$i.failed ]] && status=1
done
((status == 0)) && echo "tidy.sh: ${#files[@]} TUs clean" || echo "tidy.sh: clang-tidy reported problems (above)" >&2
exit "$status"
