// benchmarks/anchors/mlir_analysis_manager.cpp — the anchor for passinfra's
// analysis-manager numbers (benchmarks/analysis_callgrind.cpp): MLIR 14's
// AnalysisManager, measured with the same callgrind method
// (../callgrind_driver.hpp).
//
// Every variant repeats one operation K = 1000 times in a loop that cannot be
// folded or hoisted (an empty asm with a memory clobber between iterations,
// the result kept live), so per operation = (variant - mlir_an_loop) / K:
//
//   mlir_an_loop             the loop alone
//   mlir_an_get              am.getAnalysis<A0>() on the module, cached
//   mlir_an_cached           am.getCachedAnalysis<A0>() (never computes)
//   mlir_an_get_child        am.getChildAnalysis<A0>(func), cached (MLIR's function-level lookup)
//   mlir_an_invalidate_3     PreservedAnalyses preserving the 3 cached module analyses +
//                            am.invalidate(pa) (nothing dropped; the function's map has 1 entry)
//   mlir_an_invalidate_all   preserveAll() + am.invalidate(pa) (its early exit)
//
// MLIR's getAnalysis is a header template: it is inlined here as passinfra's
// is in its driver. Built without RTTI (LLVM's convention) against Debian's
// shared libMLIR, only when find_package(MLIR) finds MLIR 14 (libmlir-14-dev);
// see CMakeLists.txt here.
#include <vector>

#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/BuiltinTypes.h>
#include <mlir/IR/Location.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/OwningOpRef.h>
#include <mlir/Pass/AnalysisManager.h>

#include "callgrind_driver.hpp"

namespace {

constexpr int kOps = 1000;

inline void barrier() { asm volatile("" ::: "memory"); }

template <int K>
struct Count {
  long value;
  explicit Count(mlir::Operation* op) : value(K + static_cast<long>(op->getNumRegions())) {}
};

struct Setup {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::FuncOp func;
  mlir::ModuleAnalysisManager mam;
  mlir::AnalysisManager am;

  Setup()
      : module(mlir::ModuleOp::create(mlir::UnknownLoc::get(&context))),
        func(make_func(context, *module)),
        mam(module->getOperation(), /*passInstrumentor=*/nullptr),
        am(mam) {
    (void)am.getAnalysis<Count<0>>();
    (void)am.getAnalysis<Count<1>>();
    (void)am.getAnalysis<Count<2>>();
    (void)am.getChildAnalysis<Count<0>>(func.getOperation());
  }

  static mlir::FuncOp make_func(mlir::MLIRContext& ctx, mlir::ModuleOp m) {
    mlir::Builder builder(&ctx);
    auto f = mlir::FuncOp::create(builder.getUnknownLoc(), "f", builder.getFunctionType({}, {}));
    f.setPrivate();
    m.push_back(f);
    return f;
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

}  // namespace

PASSINFRA_BENCH_VARIANT long v_mlir_an_loop_1000(long) {
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = i;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_mlir_an_get_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = s.am.getAnalysis<Count<0>>().value;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_mlir_an_cached_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = s.am.getCachedAnalysis<Count<0>>()->get().value;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_mlir_an_get_child_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = s.am.getChildAnalysis<Count<0>>(s.func.getOperation()).value;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_mlir_an_invalidate_3_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    mlir::AnalysisManager::PreservedAnalyses pa;
    pa.preserve<Count<0>, Count<1>, Count<2>>();
    s.am.invalidate(pa);
    long v = i;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_mlir_an_invalidate_all_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    mlir::AnalysisManager::PreservedAnalyses pa;
    pa.preserveAll();
    s.am.invalidate(pa);
    long v = i;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

int main(int argc, char** argv) {
  const std::vector<bench::Variant> variants = {
      {"mlir_an_loop", kOps, v_mlir_an_loop_1000, "the loop alone (MLIR anchor's baseline)"},
      {"mlir_an_get", kOps, v_mlir_an_get_1000, "MLIR 14 am.getAnalysis<A>(), cached"},
      {"mlir_an_cached", kOps, v_mlir_an_cached_1000, "MLIR 14 am.getCachedAnalysis<A>()"},
      {"mlir_an_get_child", kOps, v_mlir_an_get_child_1000, "MLIR 14 am.getChildAnalysis<A>(func), cached"},
      {"mlir_an_invalidate_3", kOps, v_mlir_an_invalidate_3_1000,
       "MLIR 14 PreservedAnalyses preserving the 3 cached + am.invalidate(pa)"},
      {"mlir_an_invalidate_all", kOps, v_mlir_an_invalidate_all_1000, "MLIR 14 preserveAll() + am.invalidate(pa)"},
  };
  return bench::run_variants(argc, argv, variants);
}
