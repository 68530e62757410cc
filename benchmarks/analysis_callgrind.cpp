// benchmarks/analysis_callgrind.cpp — what the analysis manager costs (DESIGN "Analyses
// (SPEC §10)": performance targets), in callgrind instructions, next to hand-written code
// and, in the same run (benchmarks/analysis_report.sh), to LLVM 14's and MLIR 14's analysis
// managers (anchors/llvm_analysis_manager.cpp, anchors/mlir_analysis_manager.cpp).
//
// Two kinds of variant (callgrind_driver.hpp has the protocol):
//
// * Pipelines, N = 0, 10, 100 trivial passes (dispatch_variants.hpp's Inc<K>); per pass =
//   (Ir(N) - Ir(0)) / N:
//     an_seq_nomgr       Sequential, a static context without a manager (= dispatch's seq_empty)
//     an_seq_mgr         the same under a context with a manager: nothing requested, no declarations
//     an_seq_all_k0      passes declaring preserves_all, under a manager caching nothing
//     an_seq_all_k6      the same with 6 results cached (3 static slots, 3 in the run-time table)
//     an_seq_keep3       passes declaring preserves<MA, MB, MC>, those 3 cached (a walk that keeps all)
//     an_dyn_nomgr       DynamicSequential of AnyPass, PassContext<IR> without a manager
//     an_dyn_mgr         the same with &am, nothing requested
// * Operations, K = 1000 in a loop that cannot be folded or hoisted (an empty asm with a
//   memory clobber between iterations); per operation = (Ir - Ir(an_loop)) / K:
//     an_loop                 the loop alone
//     an_hand_optional        a hand-written `if (!cache) cache.emplace(...); return *cache;` on a global
//     an_hand_optional_ptr    the same cache reached through a pointer a context holds (reloaded each time,
//                             as the handle reloads the context's manager pointer)
//     an_slot_get             am.get<MA>(ir), MA in a static slot, cached
//     an_slot_handle          ctx.analyses().get<MA>(ir) under a static context, cached
//     an_table_get            am.get<MU>(ir), MU not listed (the run-time table), cached
//     an_table_dyn_handle     PassContext<IR>::analyses().get<MU>(ir), cached
//     an_table_contextref     ctx.analyses().get<MU>(ir) inside an AnyPass body (a ContextRef), cached
//     an_name_get             am.get("MU", ir), cached
//     an_fn_get               am.get<FA>(ir, fn), a function result keyed "f", cached
//     an_fn_cached            am.get_cached<FA>(fn)
//     an_invalidate_all_k6    am.invalidate(PreservedAnalyses::all()), 6 results cached
//     an_invalidate_keep3     am.invalidate(preserved_analyses_of<Keep3>) (a declaration's constant),
//                             MA, MB, MC cached (all kept)
//     an_invalidate_keep3_rt  PreservedAnalyses built at run time (preserve<MA, MB, MC>()) + the same
//     an_fn_invalidate_keep3  PreservedAnalyses built at run time preserving FA, FB, FC + am.invalidate(fn, pa),
//                             3 results of that function cached (LLVM's FAM.invalidate(F, PA) case)
//     an_miss_direct          one miss per call (K = 1): am.get<MA>(ir) on an empty cache
//     an_miss_handle_empty    ctx.analyses().get<MA>(ir), a context with InstrumentSet<>
//     an_miss_handle_hooks    the same, a context whose instrument has the 3 pass hooks, no analysis hook
//
//   analysis_callgrind --list | --run [--reps R] [variants...]
//   bash benchmarks/callgrind.sh build/release/benchmarks/analysis_callgrind
#include <optional>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "callgrind_driver.hpp"
#include "dispatch_variants.hpp"

using namespace bench;

// ---------------------------------------------------------------- an IR with functions

namespace abench {

struct Fn {
  std::string name;
  long size = 1;
};
struct FIR {
  std::vector<Fn> functions;
};

}  // namespace abench

template <>
struct passinfra::ir_traits<abench::FIR> {
  using function_type = abench::Fn;
  template <class F>
  static abench::FIR map_functions(abench::FIR ir, F&& f) {
    for (auto& fn : ir.functions) {
      abench::Fn out = f(fn, std::as_const(ir));
      fn = std::move(out);
    }
    return ir;
  }
  static const std::string& function_key(const abench::Fn& fn) { return fn.name; }
  template <class F>
  static void for_each_function(const abench::FIR& ir, F&& f) {
    for (const auto& fn : ir.functions) f(fn);
  }
};

namespace {

constexpr int kOps = 1000;
inline void barrier() { asm volatile("" ::: "memory"); }

struct Result {
  long value;
};

// Module analyses over bench::IR (the pipelines' IR): three listed (MA, MB, MC),
// three not (MU, MV, MW).
template <int K>
struct ModuleA {
  static constexpr passinfra::AnalysisInfo info{"ModuleA"};
  using result_type = Result;
  Result run(const IR& ir) const { return {ir.value + K}; }
};
struct MA : ModuleA<0> {
  static constexpr passinfra::AnalysisInfo info{"MA"};
};
struct MB : ModuleA<1> {
  static constexpr passinfra::AnalysisInfo info{"MB"};
};
struct MC : ModuleA<2> {
  static constexpr passinfra::AnalysisInfo info{"MC"};
};
struct MU : ModuleA<3> {
  static constexpr passinfra::AnalysisInfo info{"MU"};
};
struct MV : ModuleA<4> {
  static constexpr passinfra::AnalysisInfo info{"MV"};
};
struct MW : ModuleA<5> {
  static constexpr passinfra::AnalysisInfo info{"MW"};
};

// Function analyses over FIR.
template <int K>
struct FunctionA {
  static constexpr passinfra::AnalysisInfo info{"FunctionA"};
  using unit = passinfra::function_unit;
  using result_type = Result;
  Result run(const abench::Fn& fn, const abench::FIR&) const { return {fn.size + K}; }
};
struct FA : FunctionA<0> {
  static constexpr passinfra::AnalysisInfo info{"FA"};
};
struct FB : FunctionA<1> {
  static constexpr passinfra::AnalysisInfo info{"FB"};
};
struct FC : FunctionA<2> {
  static constexpr passinfra::AnalysisInfo info{"FC"};
};

using Manager = passinfra::AnalysisManager<IR, passinfra::analyses<MA, MB, MC>>;
using FManager = passinfra::AnalysisManager<abench::FIR>;

// Passes: Inc<K> (no declaration), and the same declaring preserves_all / preserves<MA, MB, MC>.
template <int K>
struct IncAll : Inc<K> {
  using preserves = passinfra::preserves_all;
};
template <int K>
struct IncKeep3 : Inc<K> {
  using preserves = passinfra::preserves<MA, MB, MC>;
};
struct Keep3 {
  using preserves = passinfra::preserves<MA, MB, MC>;
};

template <class Seq>
struct AKit;
template <int... K>
struct AKit<std::integer_sequence<int, K...>> {
  using Plain = passinfra::Sequential<Inc<K>...>;
  using All = passinfra::Sequential<IncAll<K>...>;
  using Kept = passinfra::Sequential<IncKeep3<K>...>;
  static std::vector<passinfra::AnyPass<IR>> any_passes() { return {passinfra::AnyPass<IR>(Inc<K>{})...}; }
};
template <int N>
using AK = AKit<std::make_integer_sequence<int, N>>;

// Managers and contexts, built before the measured calls.
Manager am_empty;   // never asked anything
Manager am_k0;      // for preserves_all passes, nothing cached
Manager am_k6;      // 6 results cached
Manager am_keep3;   // MA, MB, MC cached
Manager am_lookup;  // MA and MU cached, for the lookups
Manager am_miss;    // cleared before every call
FManager fam;       // FA, FB, FC cached for f
const abench::FIR fir{{{"f", 3}, {"g", 1}, {"h", 1}}};
const IR ir0{0};

auto ctx_nomgr = passinfra::make_pass_context<IR>({});
auto ctx_mgr = passinfra::make_pass_context<IR>({}, am_empty);
auto ctx_k0 = passinfra::make_pass_context<IR>({}, am_k0);
auto ctx_k6 = passinfra::make_pass_context<IR>({}, am_k6);
auto ctx_keep3 = passinfra::make_pass_context<IR>({}, am_keep3);
auto ctx_lookup = passinfra::make_pass_context<IR>({}, am_lookup);
auto ctx_miss_empty = passinfra::make_pass_context<IR>({}, am_miss);
CountingHooks pass_hooks;
auto ctx_miss_hooks = passinfra::make_pass_context<IR>({}, am_miss, std::ref(pass_hooks));
passinfra::PassContext<IR> dyn_nomgr;
passinfra::PassContext<IR> dyn_mgr({}, {}, &am_empty);
passinfra::PassContext<IR> dyn_lookup({}, {}, &am_lookup);

void fill() {
  (void)am_k6.get<MA>(ir0);
  (void)am_k6.get<MB>(ir0);
  (void)am_k6.get<MC>(ir0);
  (void)am_k6.get<MU>(ir0);
  (void)am_k6.get<MV>(ir0);
  (void)am_k6.get<MW>(ir0);
  (void)am_keep3.get<MA>(ir0);
  (void)am_keep3.get<MB>(ir0);
  (void)am_keep3.get<MC>(ir0);
  (void)am_lookup.get<MA>(ir0);
  (void)am_lookup.get<MU>(ir0);
  for (const auto& fn : fir.functions) (void)fam.get<FA>(fir, fn);
  (void)fam.get<FB>(fir, fir.functions[0]);
  (void)fam.get<FC>(fir, fir.functions[0]);
}
void reset_miss() { am_miss.clear(); }

std::optional<Result> hand_cache;
[[gnu::noinline]] Result compute_hand(const IR& ir) { return {ir.value}; }

// The body of an AnyPass that looks MU up K times through its ContextRef.
long contextref_sink = 0;
struct LookupPass {
  static constexpr passinfra::PassInfo info{"Lookup", 0};
  using preserves = passinfra::preserves_all;
  IR transform(IR ir, auto& ctx) const {
    long sink = 0;
    for (int i = 0; i < kOps; ++i) {
      long v = ctx.analyses().template get<MU>(ir).value;
      asm volatile("" : "+r"(v));
      sink += v;
      barrier();
    }
    contextref_sink = sink;
    return ir;
  }
};

}  // namespace

// The hand-written cache reached through a pointer a context holds. External linkage,
// so that the optimizer may not fold the pointer into a constant (the barrier then
// forces it to be loaded again, as the context's manager pointer is).
struct HandContext {
  std::optional<Result>* cache;
};
HandContext hand_ctx{&hand_cache};

// ---------------------------------------------------------------- pipelines

#define PI_AN_VARIANTS(N)                                                   \
  PASSINFRA_BENCH_VARIANT long v_an_seq_nomgr_##N(long x) {                 \
    static const AK<N>::Plain seq;                                          \
    return passinfra::run(seq, IR{x}, ctx_nomgr).value;                     \
  }                                                                         \
  PASSINFRA_BENCH_VARIANT long v_an_seq_mgr_##N(long x) {                   \
    static const AK<N>::Plain seq;                                          \
    return passinfra::run(seq, IR{x}, ctx_mgr).value;                       \
  }                                                                         \
  PASSINFRA_BENCH_VARIANT long v_an_seq_all_k0_##N(long x) {                \
    static const AK<N>::All seq;                                            \
    return passinfra::run(seq, IR{x}, ctx_k0).value;                        \
  }                                                                         \
  PASSINFRA_BENCH_VARIANT long v_an_seq_all_k6_##N(long x) {                \
    static const AK<N>::All seq;                                            \
    return passinfra::run(seq, IR{x}, ctx_k6).value;                        \
  }                                                                         \
  PASSINFRA_BENCH_VARIANT long v_an_seq_keep3_##N(long x) {                 \
    static const AK<N>::Kept seq;                                           \
    return passinfra::run(seq, IR{x}, ctx_keep3).value;                     \
  }                                                                         \
  PASSINFRA_BENCH_VARIANT long v_an_dyn_nomgr_##N(long x) {                 \
    static const passinfra::DynamicSequential<IR> seq(AK<N>::any_passes()); \
    return passinfra::run(seq, IR{x}, dyn_nomgr).value;                     \
  }                                                                         \
  PASSINFRA_BENCH_VARIANT long v_an_dyn_mgr_##N(long x) {                   \
    static const passinfra::DynamicSequential<IR> seq(AK<N>::any_passes()); \
    return passinfra::run(seq, IR{x}, dyn_mgr).value;                       \
  }

PI_AN_VARIANTS(0)
PI_AN_VARIANTS(10)
PI_AN_VARIANTS(100)

// ---------------------------------------------------------------- operations

#define PI_OP_LOOP(expr)           \
  long sink = 0;                   \
  for (int i = 0; i < kOps; ++i) { \
    long v = (expr);               \
    asm volatile("" : "+r"(v));    \
    sink += v;                     \
    barrier();                     \
  }                                \
  return sink

PASSINFRA_BENCH_VARIANT long v_an_loop_1000(long) { PI_OP_LOOP(i); }
PASSINFRA_BENCH_VARIANT long v_an_hand_optional_1000(long) {
  PI_OP_LOOP((hand_cache ? *hand_cache : hand_cache.emplace(compute_hand(ir0))).value);
}
PASSINFRA_BENCH_VARIANT long v_an_hand_optional_ptr_1000(long) {
  PI_OP_LOOP((*hand_ctx.cache ? **hand_ctx.cache : hand_ctx.cache->emplace(compute_hand(ir0))).value);
}
PASSINFRA_BENCH_VARIANT long v_an_slot_get_1000(long) { PI_OP_LOOP(am_lookup.get<MA>(ir0).value); }
PASSINFRA_BENCH_VARIANT long v_an_slot_handle_1000(long) {
  PI_OP_LOOP(ctx_lookup.analyses().template get<MA>(ir0).value);
}
PASSINFRA_BENCH_VARIANT long v_an_table_get_1000(long) { PI_OP_LOOP(am_lookup.get<MU>(ir0).value); }
PASSINFRA_BENCH_VARIANT long v_an_table_dyn_handle_1000(long) {
  PI_OP_LOOP(dyn_lookup.analyses().template get<MU>(ir0).value);
}
PASSINFRA_BENCH_VARIANT long v_an_table_contextref_1000(long x) {
  static const passinfra::DynamicSequential<IR> seq{passinfra::AnyPass<IR>(LookupPass{})};
  (void)passinfra::run(seq, IR{x}, dyn_lookup);
  return contextref_sink;
}
PASSINFRA_BENCH_VARIANT long v_an_name_get_1000(long) {
  PI_OP_LOOP(am_lookup.get("MU", ir0).template get<Result>().value);
}
PASSINFRA_BENCH_VARIANT long v_an_fn_get_1000(long) { PI_OP_LOOP(fam.get<FA>(fir, fir.functions[0]).value); }
PASSINFRA_BENCH_VARIANT long v_an_fn_cached_1000(long) { PI_OP_LOOP(fam.get_cached<FA>(fir.functions[0])->value); }
PASSINFRA_BENCH_VARIANT long v_an_invalidate_all_k6_1000(long) {
  PI_OP_LOOP((am_k6.invalidate(passinfra::PreservedAnalyses::all()), i));
}
PASSINFRA_BENCH_VARIANT long v_an_invalidate_keep3_1000(long) {
  PI_OP_LOOP((am_keep3.invalidate(passinfra::preserved_analyses_of<Keep3>), i));
}
PASSINFRA_BENCH_VARIANT long v_an_invalidate_keep3_rt_1000(long) {
  PI_OP_LOOP((
      [&] {
        passinfra::PreservedAnalyses pa;
        pa.preserve<MA, MB, MC>();
        am_keep3.invalidate(pa);
      }(),
      i));
}
PASSINFRA_BENCH_VARIANT long v_an_fn_invalidate_keep3_1000(long) {
  PI_OP_LOOP((
      [&] {
        passinfra::PreservedAnalyses pa;
        pa.preserve<FA, FB, FC>();
        fam.invalidate(fir.functions[0], pa);
      }(),
      i));
}
PASSINFRA_BENCH_VARIANT long v_an_miss_direct_1(long) { return am_miss.get<MA>(ir0).value; }
PASSINFRA_BENCH_VARIANT long v_an_miss_handle_empty_1(long) {
  return ctx_miss_empty.analyses().template get<MA>(ir0).value;
}
PASSINFRA_BENCH_VARIANT long v_an_miss_handle_hooks_1(long) {
  return ctx_miss_hooks.analyses().template get<MA>(ir0).value;
}

namespace {
#define PI_ROW(name, what)                                                              \
  {#name, 0, v_##name##_0, what, nullptr}, {#name, 10, v_##name##_10, what, nullptr}, { \
    #name, 100, v_##name##_100, what, nullptr                                           \
  }
#define PI_OP(name, what) \
  { #name, kOps, v_##name##_1000, what, nullptr }
}  // namespace

int main(int argc, char** argv) {
  fill();
  const std::vector<bench::Variant> variants = {
      PI_ROW(an_seq_nomgr, "Sequential, static context without a manager"),
      PI_ROW(an_seq_mgr, "Sequential, static context with a manager, nothing requested, no declarations"),
      PI_ROW(an_seq_all_k0, "Sequential of preserves_all passes, manager caching nothing"),
      PI_ROW(an_seq_all_k6, "Sequential of preserves_all passes, manager caching 6 results"),
      PI_ROW(an_seq_keep3, "Sequential of passes preserving MA, MB, MC, those 3 cached"),
      PI_ROW(an_dyn_nomgr, "DynamicSequential, PassContext<IR> without a manager"),
      PI_ROW(an_dyn_mgr, "DynamicSequential, PassContext<IR> with &am, nothing requested"),
      PI_OP(an_loop, "the loop alone (analysis_callgrind's baseline)"),
      PI_OP(an_hand_optional, "hand-written std::optional cache check (a global)"),
      PI_OP(an_hand_optional_ptr, "the same through a pointer held by a context"),
      PI_OP(an_slot_get, "am.get<A>(ir), A in a static slot, cached"),
      PI_OP(an_slot_handle, "ctx.analyses().get<A>(ir), static context, static slot, cached"),
      PI_OP(an_table_get, "am.get<A>(ir), A in the run-time table, cached"),
      PI_OP(an_table_dyn_handle, "PassContext<IR>::analyses().get<A>(ir), run-time table, cached"),
      PI_OP(an_table_contextref, "ctx.analyses().get<A>(ir) in an AnyPass body (ContextRef), cached"),
      PI_OP(an_name_get, "am.get(\"MU\", ir), cached"),
      PI_OP(an_fn_get, "am.get<A>(ir, fn), function result keyed \"f\", cached"),
      PI_OP(an_fn_cached, "am.get_cached<A>(fn)"),
      PI_OP(an_invalidate_all_k6, "am.invalidate(PreservedAnalyses::all()), 6 cached"),
      PI_OP(an_invalidate_keep3, "am.invalidate(a declaration preserving the 3 cached)"),
      PI_OP(an_invalidate_keep3_rt, "PreservedAnalyses built at run time (3) + am.invalidate, 3 cached"),
      PI_OP(an_fn_invalidate_keep3, "PreservedAnalyses built (3 function analyses) + am.invalidate(fn, pa)"),
      {"an_miss_direct", 1, v_an_miss_direct_1, "am.get<A>(ir), a miss (a trivial analysis)", reset_miss},
      {"an_miss_handle_empty", 1, v_an_miss_handle_empty_1, "ctx.analyses().get<A>(ir), a miss, InstrumentSet<>",
       reset_miss},
      {"an_miss_handle_hooks", 1, v_an_miss_handle_hooks_1,
       "ctx.analyses().get<A>(ir), a miss, an instrument with pass hooks only", reset_miss},
  };
  return bench::run_variants(argc, argv, variants);
}
