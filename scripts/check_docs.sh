#!/usr/bin/env bash
# scripts/check_docs.sh — the docs quote the code and outputs they show, exactly.
#
#   scripts/check_docs.sh [--root DIR] [--update] [FILE.md ...]
#   scripts/check_docs.sh --self-test
#
# Checks README.md and docs/*.md (or the FILEs given) under DIR (default: this
# repository); ctest runs it as `docs.check` (and `--self-test` as
# `docs.check_self_test`). A marker is an HTML comment on a line of its own,
# outside fenced blocks, so it does not show on a rendered page:
#
#   <!-- snippet: PATH#TAG -->    the fenced block right below it is the region of
#                                 PATH between the two lines `// [TAG]` (or `# [TAG]`),
#                                 without those lines or the marker lines of other
#                                 tags inside it, common indentation removed
#   <!-- snippet: PATH -->        ... is the whole of PATH
#   <!-- output: PATH#L4-L15 -->  ... is lines 4 to 15 of PATH (a golden output);
#                                 ranges `L1-L3,L9,L20-L22` are joined by a line `...`
#   <!-- output: PATH#grep=ERE --> ... is the lines of PATH that match the awk
#                                 regular expression ERE (up to the ` -->`)
#   <!-- include: PATH#tables -->  the text up to `<!-- /include -->` (not a fenced
#   <!-- /include -->              block) is every markdown table of PATH (each run of
#                                 lines starting with `|`), one blank line between two
#
# PATHs are relative to DIR. Also checked:
#   * every ```cpp block of docs/tutorial_*.md has a snippet marker;
#   * README.md quotes examples/quick_start.cpp whole (`<!-- snippet:
#     examples/quick_start.cpp -->`), and that file has at most 25 lines of code
#     (lines that are neither blank nor only a // comment);
#   * README.md has a bullet "* `NAME/`" for every top-level folder (git's
#     tracked files when DIR is a git checkout, else the folders, build* left out);
#   * relative links `](path)` of the checked files name files that exist;
#   * no link leaves the repository: a link `](path)` that is absolute
#     (`/work/...`, `file:...`) or climbs above DIR (`../shared/SPEC.md` from
#     README.md, `../../x` from docs/), and any mention of `../shared/` (fenced
#     blocks and code spans included), fails -- users have the repository only.
#
# --update rewrites every marked block from its source instead of comparing
# (look at `git diff` before committing). Exit status: 0 all good, 1 a
# difference or a broken marker (each reported with a diff or a reason), 2 bad usage.
set -euo pipefail

readonly QUICK_START=examples/quick_start.cpp
readonly QUICK_START_MAX_LINES=25

usage() {
  echo "usage: scripts/check_docs.sh [--root DIR] [--update] [FILE.md ...] | --self-test" >&2
  exit 2
}

root=""
update=0
self_test=0
files=()
while (($#)); do
  case "$1" in
    --root) (($# >= 2)) || usage; root=$2; shift 2 ;;
    --update) update=1; shift ;;
    --self-test) self_test=1; shift ;;
    -h|--help) usage ;;
    -*) echo "check_docs.sh: unknown option '$1'" >&2; usage ;;
    *) files+=("$1"); shift ;;
  esac
done

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ -n "$root" ]] || root=$(cd "$script_dir/.." && pwd)
root=$(cd "$root" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failures=0
fail() {  # fail <file:line> <message...>
  local where=$1; shift
  echo "check_docs: $where: $*" >&2
  failures=$((failures + 1))
}

# ------------------------------------------------------------ the expected texts

# region <path> <tag>: the lines between the two `// [tag]` lines, dedented.
region() {
  local path=$1 tag=$2
  TAG=$tag awk '
    function is_marker(line, t) {
      return line ~ ("^[ \t]*(//|#)[ \t]*\\[" t "\\][ \t]*$")
    }
    BEGIN { tag = ENVIRON["TAG"]; gsub(/[.]/, "[.]", tag); n = 0; seen = 0 }
    is_marker($0, tag) { seen++; next }
    seen == 1 && !is_marker($0, "[A-Za-z0-9_.-]+") { lines[++n] = $0 }
    END {
      if (seen != 2) { print "found " seen " marker line(s)" > "/dev/stderr"; exit 3 }
      indent = -1
      for (i = 1; i <= n; i++) {
        if (lines[i] ~ /^[ \t]*$/) continue
        match(lines[i], /^ */)
        if (indent < 0 || RLENGTH < indent) indent = RLENGTH
      }
      if (indent < 0) indent = 0
      for (i = 1; i <= n; i++) print (lines[i] ~ /^[ \t]*$/ ? "" : substr(lines[i], indent + 1))
    }' "$path"
}

# line_ranges <path> <L1-L3,L9>: those lines, ranges joined by "...".
line_ranges() {
  local path=$1 spec=$2
  SPEC=$spec awk '
    BEGIN {
      k = split(ENVIRON["SPEC"], parts, ",")
      for (i = 1; i <= k; i++) {
        p = parts[i]
        if (p ~ /^L[0-9]+$/) { from[i] = to[i] = substr(p, 2) + 0 }
        else if (p ~ /^L[0-9]+-L[0-9]+$/) {
          split(p, ends, "-"); from[i] = substr(ends[1], 2) + 0; to[i] = substr(ends[2], 2) + 0
        } else { print "bad range \"" p "\"" > "/dev/stderr"; bad = 1; exit 3 }
        if (from[i] < 1 || to[i] < from[i] || (i > 1 && from[i] <= to[i - 1])) {
          print "ranges must be increasing and non-empty: \"" p "\"" > "/dev/stderr"; bad = 1; exit 3
        }
      }
    }
    { text[NR] = $0 }
    END {
      if (bad) exit 3
      if (to[k] > NR) { print "line " to[k] " is past the end (" NR " lines)" > "/dev/stderr"; exit 3 }
      for (i = 1; i <= k; i++) {
        if (i > 1) print "..."
        for (j = from[i]; j <= to[i]; j++) print text[j]
      }
    }' "$path"
}

# grep_lines <path> <ere>: the lines matching ere (at least one).
grep_lines() {
  RE=$2 awk 'BEGIN { re = ENVIRON["RE"] } $0 ~ re { print; n++ }
             END { if (!n) { print "no line matches" > "/dev/stderr"; exit 3 } }' "$1"
}

# tables <path>: every markdown table, one blank line between two.
tables() {
  awk '/^\|/ { if (!in_table && n) print ""; print; in_table = 1; n++; next } { in_table = 0 }
       END { if (!n) { print "no markdown table" > "/dev/stderr"; exit 3 } }' "$1"
}

# expected <kind> <spec> <out>: writes what the block must be; returns non-zero
# (with the reason on stderr) when the marker cannot be resolved.
expected() {
  local kind=$1 spec=$2 out=$3 path selector=""
  path=${spec%%#*}
  [[ "$spec" == *"#"* ]] && selector=${spec#*#}
  if [[ ! -f "$root/$path" ]]; then
    echo "no file $path" >&2
    return 3
  fi
  case "$kind" in
    snippet)
      if [[ -z "$selector" ]]; then
        cat "$root/$path" >"$out"
      elif [[ "$selector" =~ ^[A-Za-z0-9_.-]+$ ]]; then
        region "$root/$path" "$selector" >"$out" || { echo "tag [$selector] must mark exactly one region (two marker lines)" >&2; return 3; }
      else
        echo "bad tag '$selector' (letters, digits, _ . -)" >&2
        return 3
      fi ;;
    output)
      if [[ "$selector" == grep=* ]]; then
        grep_lines "$root/$path" "${selector#grep=}" >"$out"
      elif [[ "$selector" =~ ^L[0-9] ]]; then
        line_ranges "$root/$path" "$selector" >"$out"
      elif [[ -z "$selector" ]]; then
        cat "$root/$path" >"$out"
      else
        echo "bad output selector '$selector' (L4-L15,L20 or grep=ERE)" >&2
        return 3
      fi ;;
    include)
      if [[ "$selector" == tables ]]; then
        tables "$root/$path" >"$out"
      else
        echo "bad include selector '$selector' (only #tables)" >&2
        return 3
      fi ;;
  esac
}

# ------------------------------------------------------------ reading a document

# markers <md>: one line per marker: "<kind>\t<spec>\t<marker line>\t<first>\t<last>"
# (first..last: the lines the block holds; last = first - 1 when it is empty),
# or "error\t<reason>\t<line>" for a marker without its block.
markers() {
  awk '
    function open_fence(line) { return match(line, /^```+/) ? substr(line, 1, RLENGTH) : "" }
    BEGIN { fence = ""; pending = ""; include_open = 0 }
    {
      if (fence != "") {                      # inside a fenced block
        if ($0 == fence) {
          fence = ""
          if (block_kind != "") { print block_kind "\t" block_spec "\t" block_marker "\t" block_first "\t" (NR - 1) }
          block_kind = ""
        }
        next
      }
      if (pending != "") {                    # the line after a snippet/output marker
        f = open_fence($0)
        if (f == "") { print "error\tmarker not followed by a fenced block\t" pending_line }
        else { fence = f; block_kind = pending; block_spec = pending_spec; block_marker = pending_line; block_first = NR + 1 }
        pending = ""
        next
      }
      if (include_open) {
        if ($0 == "<!-- /include -->") {
          print "include\t" include_spec "\t" include_line "\t" (include_line + 1) "\t" (NR - 1)
          include_open = 0
        }
        next
      }
      if (match($0, /^<!-- (snippet|output): [^ ]+ -->$/) || match($0, /^<!-- output: [^ ]+#grep=.* -->$/)) {
        rest = substr($0, 6, length($0) - 9)            # "snippet: PATH#X"
        pending = substr(rest, 1, index(rest, ":") - 1)
        pending_spec = substr(rest, index(rest, ":") + 2)
        pending_line = NR
        next
      }
      if (match($0, /^<!-- include: [^ ]+ -->$/)) {
        include_spec = substr($0, 15, length($0) - 18)
        include_line = NR
        include_open = 1
        next
      }
      if ($0 ~ /^<!-- (snippet|output|include)/ || $0 == "<!-- /include -->") {
        print "error\tmalformed marker: " $0 "\t" NR
        next
      }
      f = open_fence($0)
      if (f != "") { fence = f; block_kind = "" }
    }
    END {
      if (pending != "") print "error\tmarker not followed by a fenced block\t" pending_line
      if (include_open) print "error\tinclude without <!-- /include -->\t" include_line
      if (fence != "" && block_kind != "") print "error\tfenced block not closed\t" block_marker
    }' "$1"
}

# unmarked_cpp_blocks <md>: line numbers of ```cpp fences without a snippet marker above.
unmarked_cpp_blocks() {
  awk '
    fence != "" { if ($0 == fence) fence = ""; next }
    match($0, /^```+/) {
      fence = substr($0, 1, RLENGTH)
      if ($0 ~ /^```+ *(cpp|c\+\+)/ && prev !~ /^<!-- snippet: /) print NR
      prev = $0; next
    }
    { prev = $0 }' "$1"
}

# ------------------------------------------------------------ the checks

check_file() {
  local md=$1 rel=${1#"$root"/}
  local -a found=()
  mapfile -t found < <(markers "$md")
  local kind spec mline first last entry line replaced=0
  local -a edits=()
  for entry in "${found[@]}"; do
    IFS=$'\t' read -r kind spec mline first last <<<"$entry"
    if [[ "$kind" == error ]]; then
      fail "$rel:$mline" "$spec"
      continue
    fi
    local want="$tmp/want" have="$tmp/have" why
    if ! why=$(expected "$kind" "$spec" "$want" 2>&1); then
      fail "$rel:$mline" "<!-- $kind: $spec -->: ${why:-cannot resolve the marker}"
      continue
    fi
    if ((last >= first)); then sed -n "${first},${last}p" "$md" >"$have"; else : >"$have"; fi
    if ! cmp -s "$want" "$have"; then
      if ((update)); then
        cp "$want" "$tmp/edit.${#edits[@]}"
        edits+=("$first $last $tmp/edit.${#edits[@]}")
      else
        fail "$rel:$mline" "the block below <!-- $kind: $spec --> differs from its source (- source, + $rel):"
        diff -u --label "$spec" --label "$rel:$first" "$want" "$have" >&2 || true
      fi
    fi
  done
  # --update: replace the blocks, last first, so earlier line numbers stay valid.
  local i
  for ((i = ${#edits[@]} - 1; i >= 0; i--)); do
    read -r first last file <<<"${edits[i]}"
    { head -n $((first - 1)) "$md"; cat "$file"; tail -n +$((last + 1)) "$md"; } >"$tmp/rewritten"
    cat "$tmp/rewritten" >"$md"
    replaced=$((replaced + 1))
  done
  ((replaced == 0)) || echo "check_docs: $rel: rewrote $replaced block(s)"

  if [[ "$rel" == docs/tutorial_*.md ]]; then
    local line
    for line in $(unmarked_cpp_blocks "$md"); do
      fail "$rel:$line" "a cpp block in a tutorial must be quoted from an example: put <!-- snippet: PATH#TAG --> above it"
    done
  fi

  # Relative links: [text](path) or [text](path#anchor), outside fenced blocks.
  # Each must stay inside the repository (a file outside it may well exist on
  # this machine, but not for a user) and name a file that exists.
  local target dir resolved
  dir=$(dirname "$md")
  while IFS=$'\t' read -r line target; do
    [[ -z "$target" ]] && continue
    if [[ "$target" == /* || "$target" == file:* ]]; then
      fail "$rel:$line" "link to $target: an absolute path, outside the repository; link a file of the repository, relative to $rel"
      continue
    fi
    resolved=$(realpath -m -s -- "$dir/$target")
    if [[ "$resolved" != "$root" && "$resolved" != "$root"/* ]]; then
      fail "$rel:$line" "link to $target: outside the repository (it leads to $resolved); link a file of the repository, e.g. docs/spec.md for the contract"
      continue
    fi
    if [[ ! -e "$dir/$target" ]]; then fail "$rel:$line" "link to $target: no such file"; fi
  done < <(awk '
    fence != "" { if ($0 == fence) fence = ""; next }
    match($0, /^```+/) { fence = substr($0, 1, RLENGTH); next }
    {
      s = $0
      while (match(s, /\]\([^) ]+\)/)) {
        t = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
        if (t ~ /^#/ || (t ~ /^[a-z]+:/ && t !~ /^file:/)) continue
        sub(/#.*/, "", t)
        print NR "\t" t
      }
    }' "$md")
  # Mentions of the directory beside the repository, linked or not.
  local mention
  while IFS=: read -r line mention; do
    fail "$rel:$line" "mentions ../shared/, outside the repository: \"$mention\"; name a file of the repository instead (the contract is docs/spec.md)"
  done < <(grep -n -F '../shared/' "$md" || true)

  if [[ "$rel" == README.md ]]; then check_readme "$md"; fi
}

check_readme() {
  local md=$1
  if ! grep -qxF "<!-- snippet: $QUICK_START -->" "$md"; then
    fail "README.md" "the quick start must be quoted whole: <!-- snippet: $QUICK_START --> above a fenced block"
  fi
  if [[ -f "$root/$QUICK_START" ]]; then
    local code
    code=$(grep -v -E '^[[:space:]]*(//.*)?$' "$root/$QUICK_START" | wc -l)
    if ((code > QUICK_START_MAX_LINES)); then
      fail "$QUICK_START" "$code lines of code; the README's quick start must stay at most $QUICK_START_MAX_LINES"
    fi
  fi
  local -a folders=()
  if git -C "$root" rev-parse --show-toplevel >/dev/null 2>&1 &&
     [[ "$(git -C "$root" rev-parse --show-toplevel)" == "$root" ]]; then
    mapfile -t folders < <(git -C "$root" ls-files | awk -F/ 'NF > 1 && $1 !~ /^\./ { print $1 }' | sort -u)
  else
    mapfile -t folders < <(cd "$root" && find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' ! -name 'build*' \
                             -printf '%f\n' | sort)
  fi
  local folder
  for folder in "${folders[@]}"; do
    if ! grep -qE "^[*-] \`$folder/" "$md"; then
      fail "README.md" "no bullet \"* \`$folder/\` — ...\" for the top-level folder $folder/ (What is where)"
    fi
  done
}

# ------------------------------------------------------------ self-test

# The checker must notice each kind of drift: a fixture repository, checked
# as it is (must pass), then altered one way at a time (each must fail).
run_self_test() {
  local fx="$tmp/fixture" me="${BASH_SOURCE[0]}" ok=1
  mkdir -p "$fx/examples/golden" "$fx/docs" "$fx/bench"
  cat >"$fx/examples/quick_start.cpp" <<'EOF'
// a comment line, not counted
int main() { return 0; }
EOF
  cat >"$fx/examples/a.cpp" <<'EOF'
int main() {
  // [setup]
  int x = 1;
  // [inner]
  x += 1;
  // [inner]
  // [setup]
  return x == 2 ? 0 : 1;
}
EOF
  printf 'one\ntwo\nthree\nfour\nfive\n' >"$fx/examples/golden/a.stdout"
  printf '# b\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n| c |\n|---|\n' >"$fx/bench/README.md"
  cat >"$fx/docs/tutorial_a.md" <<'EOF'
# A

<!-- snippet: examples/a.cpp#setup -->
```cpp
int x = 1;
x += 1;
```

<!-- output: examples/golden/a.stdout#L1-L2,L5 -->
```
one
two
...
five
```

<!-- output: examples/golden/a.stdout#grep=^t -->
```
two
three
```

See [the other page](../README.md).
EOF
  cat >"$fx/README.md" <<'EOF'
# fixture

<!-- snippet: examples/quick_start.cpp -->
```cpp
// a comment line, not counted
int main() { return 0; }
```

* `bench/` — numbers
* `docs/` — pages
* `examples/` — programs

<!-- include: bench/README.md#tables -->
| a | b |
|---|---|
| 1 | 2 |

| c |
|---|
<!-- /include -->
EOF
  expect() {  # expect <pass|fail> <what>
    local want=$1 what=$2 rc=0
    bash "$me" --root "$fx" >"$tmp/self.out" 2>&1 || rc=$?
    if [[ -n "${CHECK_DOCS_VERBOSE:-}" ]]; then echo "== $what (exit $rc)"; cat "$tmp/self.out"; fi
    if [[ "$want" == pass && $rc != 0 ]] || [[ "$want" == fail && $rc != 1 ]]; then
      echo "check_docs --self-test: expected $want (exit $([[ $want == pass ]] && echo 0 || echo 1)) for: $what; got exit $rc" >&2
      sed 's/^/    /' "$tmp/self.out" >&2
      ok=0
    fi
  }
  mutate() {  # mutate <file> <sed script> <what>: expect a failure, then restore
    cp "$fx/$1" "$tmp/saved"
    sed -i "$2" "$fx/$1"
    expect fail "$3"
    cp "$tmp/saved" "$fx/$1"
  }
  expect pass "the fixture as written"
  mutate docs/tutorial_a.md 's/x += 1;/x += 2;/' "a snippet line altered in the doc"
  mutate examples/a.cpp 's/x += 1;/x -= 1;/' "the example changed under the snippet"
  mutate examples/a.cpp '/\[setup\]/d' "the tag's marker lines removed"
  mutate docs/tutorial_a.md 's/^five$/six/' "an output line altered"
  mutate examples/golden/a.stdout 's/^three$/tree/' "the golden file changed under a grep block"
  mutate docs/tutorial_a.md 's/#L1-L2,L5/#L1-L2,L9/' "a range past the end"
  mutate docs/tutorial_a.md 's/^<!-- snippet: examples\/a.cpp#setup -->$//' "a tutorial cpp block without a marker"
  mutate docs/tutorial_a.md 's/\.\.\/README\.md/..\/MISSING.md/' "a link to a missing file"
  # Links that leave the repository fail although the file they name exists.
  printf 'outside\n' >"$tmp/outside.md"
  mutate docs/tutorial_a.md 's/\.\.\/README\.md/..\/..\/outside.md/' "a link climbing out of the repository"
  mutate docs/tutorial_a.md "s|\\.\\./README\\.md|$tmp/outside.md|" "a link by absolute path"
  mutate README.md '$a The contract is `../shared/SPEC.md`.' "a mention of ../shared/"
  mutate README.md 's/^int main() { return 0; }$/int main() { return 1; }/' "the quick start altered"
  mutate README.md 's/^| 1 | 2 |$/| 1 | 3 |/' "an included table altered"
  mutate README.md '/`docs\/`/d' "a top-level folder without a bullet"
  # A quick start of 26 lines of code, quoted correctly (--update): still a failure.
  cp "$fx/examples/quick_start.cpp" "$tmp/saved.cpp"
  cp "$fx/README.md" "$tmp/saved.md"
  awk '{ print } NR == 1 { for (i = 1; i <= 25; i++) print "int a" i ";" }' "$tmp/saved.cpp" \
    >"$fx/examples/quick_start.cpp"
  bash "$me" --root "$fx" --update >/dev/null 2>&1 || true
  expect fail "a quick start of more than 25 lines of code"
  cp "$tmp/saved.cpp" "$fx/examples/quick_start.cpp"
  cp "$tmp/saved.md" "$fx/README.md"
  # --update repairs a drifted block and the result passes.
  sed -i 's/x += 1;/x += 7;/' "$fx/docs/tutorial_a.md"
  bash "$me" --root "$fx" --update >/dev/null 2>&1 || true
  expect pass "the fixture after --update"
  if ((ok)); then echo "check_docs --self-test: ok"; else return 1; fi
}

if ((self_test)); then
  run_self_test
  exit $?
fi

# ------------------------------------------------------------ main

if ((${#files[@]} == 0)); then
  [[ -f "$root/README.md" ]] && files+=("$root/README.md")
  for f in "$root"/docs/*.md; do [[ -f "$f" ]] && files+=("$f"); done
fi
for f in "${files[@]}"; do
  [[ "$f" == /* ]] || f="$PWD/$f"
  if [[ ! -f "$f" ]]; then fail "$f" "no such file"; continue; fi
  f="$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
  check_file "$f"
done

if ((failures)); then
  echo "check_docs: $failures problem(s). The docs quote the examples and golden outputs exactly:" >&2
  echo "check_docs: fix the doc, or run scripts/check_docs.sh --update and review the diff." >&2
  exit 1
fi
((update)) || echo "check_docs: ok (${#files[@]} file(s))"
