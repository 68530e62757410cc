#!/usr/bin/env bash
# benchmarks/compile_time.sh — what a static pipeline costs the compiler.
#
#   benchmarks/compile_time.sh [--out DIR] [--ns "10 100 200 500 1000"] [--reps R] [--include DIR]
#                              [--compilers "g++ clang++-16"] [--no-profile]
#
# Generates, for each N, translation units with N distinct pass types and
# three instruments (a counter with should_run / before / after, a recorder
# of pass names, a depth tracker with before / after), all run once:
#
#   seq_<N>.cpp    passinfra::Sequential<P0, ..., P<N-1>> under a static context
#                  with the three instruments (passinfra/core.hpp)
#   hand_<N>.cpp   the same passes and instruments with the gate and every hook
#                  call written out by hand, as SPEC §3/§4 order them (no passinfra)
#   inl_<N>.cpp    hand_<N>.cpp with its three hook fan-outs (should_run, before,
#                  after) marked [[gnu::always_inline]], as passinfra forces its own:
#                  the hand-written code the run-time comparisons are made against
#   include.cpp    passinfra/core.hpp and an empty main: the fixed cost of the header
#   reference.cpp  <string>, <vector>, <functional>, <boost/mp11.hpp> and an empty main:
#                  what the include is compared with (issue 18's target: <= 1.5x)
#   umbrella.cpp   passinfra/passinfra.hpp and an empty main (target: <= 2.5x reference)
#   context.cpp    seq_0.cpp: a context with the three instruments running Sequential<>
#                  (target: <= 1.3x include.cpp)
#   include_compiled.cpp, context_compiled.cpp
#                  include.cpp and context.cpp under PASSINFRA_COMPILED: a user of
#                  passinfra::passinfra_compiled, whose cold code is compiled once
#                  in the library (include/passinfra/detail/compiled.hpp)
#
# and compiles each with g++ 12 and clang++-16 at -O2 -DNDEBUG (-std=c++20 -c), R times
# (default 3; the fastest run counts), under /usr/bin/time for CPU time
# (user + system) and peak memory (max RSS). Writes DIR/compile_time.md (default
# build/bench-compile/compile_time.md; benchmarks/report.sh includes it) with:
# CPU seconds and MB per N, the ratios seq/hand and seq/inl, and the growth per added pass
# between consecutive N (ms per pass), for both compilers; then where the
# time goes at N = 200 (g++ -ftime-report's largest phases; clang's
# -ftime-trace as self time per kind of work and namespace). Targets (issue 18) at N = 200:
# <= 1.5x hooks inlined, <= 3x hand-written, growth <= 5 ms per pass and linear to 1,000,
# peak memory <= 2x hand-written.
#
# --include DIR: the passinfra headers to measure (default: this tree's include/).
# --table-only: only rewrite DIR/compile_time.md from the last run's raw.txt and profile.txt.
# --compilers: which of g++ and clang++-16 to measure (default both).
# --no-profile: skip "where the time goes" (benchmarks/compile_time_check.sh, in CI).
# PASSINFRA_BENCH_COMMIT=<id> names the commit measured (default: git HEAD).
# Needs g++, clang++-16 and /usr/bin/time (Debian package `time`).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$root/build/bench-compile"
ns="10 100 200 500 1000"
reps=3
include="$root/include"
table_only=0
compilers=(g++ clang++-16)
profile_on=1
while (($#)); do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --ns) ns=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --include) include=$(cd "$2" && pwd); shift 2 ;;
    --table-only) table_only=1; shift ;;
    --compilers) read -r -a compilers <<<"$2"; shift 2 ;;
    --no-profile) profile_on=0; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "compile_time.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x /usr/bin/time ]] || { echo "compile_time.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
for c in "${compilers[@]}"; do
  [[ $c == g++ || $c == clang++-16 ]] || { echo "compile_time.sh: --compilers: unknown compiler '$c' (expected g++ and/or clang++-16)" >&2; exit 2; }
  command -v "$c" >/dev/null || { echo "compile_time.sh: $c is missing (apt-get install ${c/clang++-16/clang-16})" >&2; exit 2; }
done
src="$out/src"
mkdir -p "$src"

# ------------------------------------------------------------------ generate
common_instruments() {  # the three instruments, written against a PassInfo type $1
  cat <<EOF
struct Counter {
  long calls = 0;
  bool should_run(const IR&, const $1&) { ++calls; return true; }
  void run_before_pass(const IR&, const $1&) { ++calls; }
  void run_after_pass(const IR&, const $1&) { ++calls; }
};
struct Recorder {
  std::vector<std::string_view> names;
  void run_before_pass(const IR&, const $1& info) { names.push_back(info.name); }
};
struct Depth {
  int depth = 0, max_depth = 0;
  void run_before_pass(const IR&, const $1&) { if (++depth > max_depth) max_depth = depth; }
  void run_after_pass(const IR&, const $1&) { --depth; }
};
EOF
}

gen_passes() {  # gen_passes N: N pass types P<k> (names Pass<k>, opt_level k % 4)
  local n=$1 k
  for ((k = 0; k < n; ++k)); do
    printf 'struct P%d {\n  static constexpr PassInfo info{"Pass%d", %d};\n  IR transform(IR ir, auto&) const { ir.value = ir.value * 3 + %d; return ir; }\n};\n' \
      "$k" "$k" $((k % 4)) "$k"
  done
}

gen_seq() {  # gen_seq N > seq_N.cpp
  local n=$1 k
  echo '// Generated by benchmarks/compile_time.sh: a static Sequential of N passes, 3 instruments.'
  echo '#include <functional>'
  echo '#include <string_view>'
  echo '#include <vector>'
  echo '#include <passinfra/core.hpp>'
  echo 'using passinfra::PassInfo;'
  echo 'struct IR { long value = 0; };'
  gen_passes "$n"
  common_instruments PassInfo
  printf 'using Pipeline = passinfra::Sequential<'
  for ((k = 0; k < n; ++k)); do printf '%sP%d' "$([[ $k == 0 ]] || echo ', ')" "$k"; done
  echo '>;'
  cat <<'EOF'
int main(int argc, char**) {
  Counter counter;
  Recorder recorder;
  Depth depth;
  auto ctx = passinfra::make_pass_context<IR>({.opt_level = argc + 1}, std::ref(counter), std::ref(recorder),
                                              std::ref(depth));
  IR out = passinfra::run(Pipeline{}, IR{argc}, ctx);
  return static_cast<int>(out.value + counter.calls + static_cast<long>(recorder.names.size()) + depth.max_depth);
}
EOF
}

gen_hand() {  # gen_hand N [inline] > hand_N.cpp (inl_N.cpp): the same work, written out
  local n=$1 k fan_out=""
  [[ ${2:-} == inline ]] && fan_out="[[gnu::always_inline]] "
  echo '// Generated by benchmarks/compile_time.sh: the hand-written twin of seq_N.cpp.'
  echo '#include <string_view>'
  echo '#include <vector>'
  echo 'struct PassInfo { std::string_view name; int opt_level; };'
  echo 'struct IR { long value = 0; };'
  echo 'struct Options { int opt_level; };'
  gen_passes "$n"
  common_instruments PassInfo
  cat <<EOF
struct Hooks {
  Counter& c;
  Recorder& r;
  Depth& d;
  ${fan_out}bool should_run(const IR& ir, const PassInfo& info) { return c.should_run(ir, info); }
  ${fan_out}void before(const IR& ir, const PassInfo& info) {
    c.run_before_pass(ir, info);
    r.run_before_pass(ir, info);
    d.run_before_pass(ir, info);
  }
  ${fan_out}void after(const IR& ir, const PassInfo& info) {
    c.run_after_pass(ir, info);
    d.run_after_pass(ir, info);
  }
};
constexpr PassInfo sequential_info{"sequential", 0};
IR run_all(IR ir, const Options& options, Hooks& h) {
  if (!h.should_run(ir, sequential_info)) return ir;
  h.before(ir, sequential_info);
  const int level = options.opt_level;
EOF
  for ((k = 0; k < n; ++k)); do
    printf '  if (level >= P%d::info.opt_level && h.should_run(ir, P%d::info)) {\n    h.before(ir, P%d::info);\n    ir = P%d{}.transform(ir, options);\n    h.after(ir, P%d::info);\n  }\n' \
      "$k" "$k" "$k" "$k" "$k"
  done
  cat <<'EOF'
  h.after(ir, sequential_info);
  return ir;
}
int main(int argc, char**) {
  Counter counter;
  Recorder recorder;
  Depth depth;
  Hooks hooks{counter, recorder, depth};
  IR out = run_all(IR{argc}, Options{argc + 1}, hooks);
  return static_cast<int>(out.value + counter.calls + static_cast<long>(recorder.names.size()) + depth.max_depth);
}
EOF
}

results="$out/raw.txt"
profile="$out/profile.txt"
n_profile=200
[[ " $ns " == *" $n_profile "* ]] || n_profile=${ns%% *}

if ((table_only == 0)); then
date -u '+%Y-%m-%d %H:%M UTC' >"$out/measured_at.txt"
echo "${PASSINFRA_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}" >"$out/measured_commit.txt"
for n in $ns; do
  gen_seq "$n" >"$src/seq_$n.cpp"
  gen_hand "$n" >"$src/hand_$n.cpp"
  gen_hand "$n" inline >"$src/inl_$n.cpp"
done
printf '#include <passinfra/core.hpp>\nint main() { return 0; }\n' >"$src/include.cpp"
printf '#include <functional>\n#include <string>\n#include <vector>\n#include <boost/mp11.hpp>\nint main() { return 0; }\n' >"$src/reference.cpp"
printf '#include <passinfra/passinfra.hpp>\nint main() { return 0; }\n' >"$src/umbrella.cpp"
gen_seq 0 >"$src/context.cpp"
for kind in include context; do
  { echo '#define PASSINFRA_COMPILED 1  // a user of passinfra::passinfra_compiled'; cat "$src/$kind.cpp"; } >"$src/${kind}_compiled.cpp"
done

# ------------------------------------------------------------------- measure
# -DNDEBUG: a release build, in which passinfra forces its hot path inline
# (PASSINFRA_FORCE_INLINE, detail/inline.hpp) -- the build the run-time
# tables measure; a debug build leaves inlining to the compiler.
flags=(-std=c++20 -O2 -DNDEBUG -c -I"$include")  # Boost from /usr/include (libboost1.81-dev)

# measure <compiler> <file> -> "cpu_seconds maxrss_kb status": user + system
# CPU time (less disturbed than wall time by other work on a shared
# machine), the fastest of $reps runs (one run when it takes over 30 s), with
# that run's peak memory. status: ok; deep when clang needed
# -fbracket-depth=2048 (its default limit of 256 nested expressions, which a
# fold expression over more than 256 pack elements exceeds); fail otherwise
# (the first error line goes to $out/failures.txt).
measure() {
  local cxx=$1 file=$2 best="" r cpu status=ok extra=() deep_error=""
  for ((r = 0; r < reps; ++r)); do
    if ! /usr/bin/time -o "$out/time.txt" -f '%U %S %M' "$cxx" "${flags[@]}" "${extra[@]}" "$file" -o "$out/obj.o" \
        >/dev/null 2>"$out/errors.txt"; then
      if [[ $status == ok && $cxx == clang* ]] && grep -q 'exceeded expression nesting limit' "$out/errors.txt"; then
        status=deep
        deep_error=$(grep -m1 'exceeded expression nesting limit' "$out/errors.txt" | sed 's|^[^ ]*/include/passinfra/|passinfra/|')
        extra=(-fbracket-depth=2048)
        r=-1
        continue
      fi
      echo "$cxx $(basename "$file"): $(grep -m1 'error' "$out/errors.txt" || head -1 "$out/errors.txt")" >>"$out/failures.txt"
      echo "0 0 fail"
      return
    fi
    read -r u sy kb <"$out/time.txt"
    cpu=$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.2f", u + s }')
    if [[ -z "$best" ]] || awk -v a="$cpu" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then best="$cpu $kb"; fi
    awk -v a="$cpu" 'BEGIN { exit !(a > 30) }' && break
  done
  if [[ $status == deep ]]; then
    echo "$cxx $(basename "$file"): $deep_error" >>"$out/failures.txt"
  fi
  echo "$best $status"
}

: >"$results"
: >"$out/failures.txt"
for cxx in "${compilers[@]}"; do
  echo "compile_time.sh: $cxx include.cpp" >&2
  echo "$cxx include 0 $(measure "$cxx" "$src/include.cpp")" >>"$results"
  echo "compile_time.sh: $cxx reference.cpp" >&2
  echo "$cxx reference 0 $(measure "$cxx" "$src/reference.cpp")" >>"$results"
  for kind in umbrella context include_compiled context_compiled; do
    echo "compile_time.sh: $cxx $kind.cpp" >&2
    echo "$cxx $kind 0 $(measure "$cxx" "$src/$kind.cpp")" >>"$results"
  done
  for n in $ns; do
    for kind in hand inl seq; do
      echo "compile_time.sh: $cxx ${kind}_$n.cpp" >&2
      echo "$cxx $kind $n $(measure "$cxx" "$src/${kind}_$n.cpp")" >>"$results"
    done
  done
done

# ------------------------------------------------------ where the time goes
# g++: -ftime-report's phases with the most wall time. clang: -ftime-trace
# with granularity 0, turned into self time per kind of work (nested events
# subtracted from their parent); template instantiations, parsing and IR
# generation split by namespace (passinfra, boost::mp11, std, the
# TU's own types), the LLVM passes summed. The trace itself slows clang down,
# so these times are larger than the table's; the proportions are what count.

gcc_phases() {  # the 8 phases of g++ -ftime-report with the most wall time
  g++ "${flags[@]}" -ftime-report "$1" -o "$out/obj.o" 2>&1 |
    awk -F: '/^ [a-z|].*: +[0-9.]+ \( *[0-9]+%\)/ && $1 !~ /TOTAL/ {
               name = $1; gsub(/^ +| +$/, "", name)
               n = split($2, f, /[ ()%]+/)
               # f: "" usr pct sys pct wall pct ggc ...
               printf "%s\t%.2f\t%d\n", name, f[6], f[7]
             }' | sort -t$'\t' -k2,2nr | head -8 |
    awk -F'\t' '{ printf "  %-40s %7.2f s wall %4d%%\n", $1, $2, $3 }'
}

clang_breakdown() {  # self time per kind of work from clang's -ftime-trace
  rm -f "$out/obj.json"
  clang++-16 "${flags[@]}" -ftime-trace -ftime-trace-granularity=0 "$1" -o "$out/obj.o"
  sed 's/},{/}\n{/g' "$out/obj.json" |
    awk 'function kind(name, detail,    ns) {
           ns = "other"
           if (detail ~ /^boost::mp11/) ns = "boost::mp11"
           else if (detail ~ /^passinfra/) ns = "passinfra"
           else if (detail ~ /^(std::|__gnu_cxx|__cxx|__detail)/) ns = "std"
           else if (detail ~ /^([A-Z][A-Za-z0-9_]*|\(anonymous namespace\)|\(lambda)/) ns = "the TU'"'"'s own types"
           if (name ~ /^Instantiate/) return "template instantiation: " ns
           if (name == "CodeGen Function") return "IR generation (clang CodeGen): " ns
           if (name ~ /^(Source|ParseClass|ParseTemplate|ParseDeclarationOrFunctionDefinition|ParseFunctionDefinition)$/) return "parsing"
           if (name ~ /^Evaluate/) return "constant evaluation"
           if (name ~ /^(Backend|CodeGenPasses)$/) return "LLVM code generation (instruction selection, registers)"
           if (name ~ /(Pass|Analysis|AA|AAManager|Adaptor|Optimizer|OptFunction|OptModule)$/ || name ~ /^(PassManager|RequireAnalysisPass|InvalidateAnalysisPass)/) return "LLVM optimizer passes (inliner, GVN, InstCombine, ...)"
           return "other (" name ")"
         }
         /"ph":"X"/ {
           if (!match($0, /"ts":[0-9]+/)) next; ts = substr($0, RSTART + 5, RLENGTH - 5)
           if (!match($0, /"dur":[0-9]+/)) next; dur = substr($0, RSTART + 6, RLENGTH - 6)
           if (!match($0, /"name":"[^"]*"/)) next; name = substr($0, RSTART + 8, RLENGTH - 9)
           if (name ~ /^Total /) next
           detail = ""
           if (match($0, /"detail":"[^"]*"/)) detail = substr($0, RSTART + 10, RLENGTH - 11)
           printf "%s\t%s\t%s\n", ts, dur, kind(name, detail)
         }' |
    sort -t$'\t' -k1,1n -k2,2nr |
    awk -F'\t' '{
           s = $1 + 0; e = s + $2
           while (sp > 0 && E[sp] <= s) sp--
           if (sp > 0) self[K[sp]] -= $2
           self[$3] += $2; total += (sp == 0) ? $2 : 0
           sp++; E[sp] = e; K[sp] = $3
         }
         END { for (k in self) if (self[k] >= 0.01 * total) printf "%.0f\t%.1f\t%s\n", self[k] / 1000, 100 * self[k] / total, k }' |
    sort -t$'\t' -k1,1nr | awk -F'\t' '{ printf "  %-62s %6d ms %5.1f%%\n", $3, $1, $2 }'
  tr '{' '\n' <"$out/obj.json" | awk '/"name":"CodeGen Function"/ { f++ } /"name":"InstantiateFunction"/ { i++ } /"name":"InstantiateClass"/ { c++ }
      END { printf "  (%d functions given to LLVM, %d function and %d class template instantiations)\n", f, i, c }'
  rm -f "$out/obj.json"
}

if ((profile_on == 0)); then
  echo "(not measured: --no-profile)" >"$profile"
else {
  for kind in seq hand; do
    echo "g++ -ftime-report, ${kind}_$n_profile.cpp (the 8 largest phases):"
    gcc_phases "$src/${kind}_$n_profile.cpp"
  done
  for kind in seq hand; do
    echo "clang++-16 -ftime-trace, ${kind}_$n_profile.cpp (self time over 1% of the total):"
    clang_breakdown "$src/${kind}_$n_profile.cpp"
  done
} >"$profile" 2>&1 || true
fi

fi  # table_only

# --------------------------------------------------------------------- table
md="$out/compile_time.md"
{
  echo "Measured $(cat "$out/measured_at.txt" 2>/dev/null || echo '(date unknown)') by \`benchmarks/compile_time.sh\` at commit \`$(cat "$out/measured_commit.txt" 2>/dev/null || echo unknown)\`:"
  echo "$(g++ --version | head -1); $(clang++-16 --version | head -1); \`-std=c++20 -O2 -c\`; CPU time (user + system), fastest of $reps runs (one run when over 30 s);"
  echo "\`include\` is passinfra/core.hpp and an empty main (the header's fixed cost), \`reference\` the same with"
  echo "\`<string>\`, \`<vector>\`, \`<functional>\` and \`<boost/mp11.hpp>\` instead; \`passinfra.hpp\` the umbrella header and an"
  echo "empty main; \`context\` a context with the three instruments running \`Sequential<>\` (seq_0.cpp); \"compiled mode\" the same two"
  echo "under \`PASSINFRA_COMPILED\` (a user of \`passinfra::passinfra_compiled\`, whose cold code is compiled once, in the library); \"hooks inlined\" is the"
  echo "hand-written code with its three hook fan-outs forced inline, as passinfra forces its own (\`inl_N.cpp\`)."
  echo
  awk -v ns="$ns" '
    {
      key = $1 " " $2 " " $3; t[key] = $4; m[key] = $5; st[key] = $6
      if (!($1 in seen)) { seen[$1] = 1; cs[++nc] = $1 }
    }
    function cell(key, value, fmt) {
      if (st[key] == "fail") return "fails"
      return sprintf(fmt, value) (st[key] == "deep" ? " †" : "")
    }
    function ok(key) { return st[key] != "fail" }
    END {
      k = split(ns, n, " ")
      print "| compiler | N | hand-written s | hooks inlined s | Sequential s | seq / hand | seq / hooks inlined | hand MB | Sequential MB | seq / hand (MB) | growth, hand ms/pass | growth, Sequential ms/pass |"
      print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
      for (c = 1; c <= nc; ++c) {
        cc = cs[c]
        printf "| %s | include only | | | %s | | | | %s | | | |\n", cc, cell(cc " include 0", t[cc " include 0"], "%.2f"), cell(cc " include 0", m[cc " include 0"] / 1024, "%.0f")
        rk = cc " reference 0"; ik0 = cc " include 0"
        if (rk in t) {
          rr = (ok(rk) && ok(ik0) && t[rk] > 0) ? sprintf("include / reference = %.2f", t[ik0] / t[rk]) : ""
          printf "| %s | reference | | | %s | %s | | | %s | | | |\n", cc, cell(rk, t[rk], "%.2f"), rr, cell(rk, m[rk] / 1024, "%.0f")
        }
        uk = cc " umbrella 0"
        if (uk in t) {
          ur = (ok(rk) && ok(uk) && t[rk] > 0) ? sprintf("passinfra.hpp / reference = %.2f", t[uk] / t[rk]) : ""
          printf "| %s | passinfra.hpp only | | | %s | %s | | | %s | | | |\n", cc, cell(uk, t[uk], "%.2f"), ur, cell(uk, m[uk] / 1024, "%.0f")
        }
        xk = cc " context 0"
        if (xk in t) {
          xr = (ok(ik0) && ok(xk) && t[ik0] > 0) ? sprintf("context / include = %.2f", t[xk] / t[ik0]) : ""
          printf "| %s | context, Sequential<> | | | %s | %s | | | %s | | | |\n", cc, cell(xk, t[xk], "%.2f"), xr, cell(xk, m[xk] / 1024, "%.0f")
        }
        ick = cc " include_compiled 0"; xck = cc " context_compiled 0"
        if (ick in t && xck in t) {
          xcr = (ok(ick) && ok(xck) && t[ick] > 0) ? sprintf("context / include = %.2f", t[xck] / t[ick]) : ""
          printf "| %s | include only, compiled mode | | | %s | | | | %s | | | |\n", cc, cell(ick, t[ick], "%.2f"), cell(ick, m[ick] / 1024, "%.0f")
          printf "| %s | context, compiled mode | | | %s | %s | | | %s | | | |\n", cc, cell(xck, t[xck], "%.2f"), xcr, cell(xck, m[xck] / 1024, "%.0f")
        }
        for (i = 1; i <= k; ++i) {
          hk = cc " hand " n[i]; sk = cc " seq " n[i]; ik = cc " inl " n[i]
          h = t[hk]; s = t[sk]; hi = t[ik]; hm = m[hk] / 1024; sm = m[sk] / 1024
          r = (ok(hk) && ok(sk) && h > 0) ? sprintf("%.2f", s / h) : ""
          ri = (ok(ik) && ok(sk) && hi > 0) ? sprintf("%.2f", s / hi) : ""
          rm = (ok(hk) && ok(sk) && hm > 0) ? sprintf("%.2f", sm / hm) : ""
          gh = gs = ""
          if (i > 1) {
            ph = cc " hand " n[i-1]; ps = cc " seq " n[i-1]
            if (ok(hk) && ok(ph)) gh = sprintf("%.1f", 1000 * (h - t[ph]) / (n[i] - n[i-1]))
            if (ok(sk) && ok(ps) ) gs = sprintf("%.1f", 1000 * (s - t[ps]) / (n[i] - n[i-1]))
          }
          printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", cc, n[i], cell(hk, h, "%.2f"), (ik in t) ? cell(ik, hi, "%.2f") : "", cell(sk, s, "%.2f"), r, ri, cell(hk, hm, "%.0f"), cell(sk, sm, "%.0f"), rm, gh, gs
        }
      }
    }' "$results"
  if [[ -s "$out/failures.txt" ]]; then
    echo
    echo "Compiler errors (a value marked † was then measured with \`-fbracket-depth=2048\`):"
    echo
    sed 's/^/    /' "$out/failures.txt"
  fi
  echo
  echo "Where the time goes at N = $n_profile (wall times of single traced compiles on a shared machine, slowed by"
  echo "the tracing itself: read the proportions):"
  echo
  echo '```'
  cat "$profile"
  echo '```'
} >"$md"

cat "$md"
echo "compile_time.sh: wrote $md" >&2
