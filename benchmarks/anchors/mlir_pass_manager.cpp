// benchmarks/anchors/mlir_pass_manager.cpp — the anchor for passinfra's
// per-pass numbers: MLIR 14's PassManager, measured with the same callgrind
// method (../callgrind_driver.hpp) in the same report.
//
// A PassManager on builtin.module with N trivial OperationPass<ModuleOp>
// passes (N distinct types) runs on an empty module, multithreading off,
// verifier off, for N = 0, 10, 100:
//   mlir_none     no instrumentation
//   mlir_instr    a trivial PassInstrumentation (runBeforePass / runAfterPass counting)
//   mlir_timing   enableTiming() with a DefaultTimingManager writing to a null stream
// Each pass bumps a counter (hidden from the optimizer) and marks all
// analyses preserved, as a pass that changed nothing does. MLIR has no
// should-run hook: a PassInstrumentation cannot skip a pass.
//
// Built without RTTI (LLVM's convention) in its own executable, only when
// find_package(MLIR) finds MLIR 14 (libmlir-14-dev); see CMakeLists.txt here.
#include <memory>
#include <utility>
#include <vector>

#include <llvm/Support/raw_ostream.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Location.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/OwningOpRef.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassInstrumentation.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Support/Timing.h>

#include "callgrind_driver.hpp"

namespace {

long pass_runs = 0;
long instrumentation_calls = 0;

template <int K>
struct TrivialPass : mlir::PassWrapper<TrivialPass<K>, mlir::OperationPass<mlir::ModuleOp>> {
  void runOnOperation() override {
    long v = pass_runs + K;
    asm volatile("" : "+r"(v));
    pass_runs = v;
    this->markAllAnalysesPreserved();
  }
};

struct CountingInstrumentation : mlir::PassInstrumentation {
  void runBeforePass(mlir::Pass*, mlir::Operation*) override { ++instrumentation_calls; }
  void runAfterPass(mlir::Pass*, mlir::Operation*) override { ++instrumentation_calls; }
};

template <int... K>
void add_passes(mlir::PassManager& pm, std::integer_sequence<int, K...>) {
  (pm.addPass(std::make_unique<TrivialPass<K>>()), ...);
}

// One pass manager set-up: a context, an empty module and N passes.
struct Setup {
  enum class Kind { none, instrumentation, timing };

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::PassManager pm;

  template <int N>
  Setup(Kind kind, std::integral_constant<int, N>)
      : module(mlir::ModuleOp::create(mlir::UnknownLoc::get(&context))),
        pm(&context, mlir::ModuleOp::getOperationName()) {
    context.disableMultithreading();
    pm.enableVerifier(false);
    add_passes(pm, std::make_integer_sequence<int, N>{});
    if (kind == Kind::instrumentation) {
      pm.addInstrumentation(std::make_unique<CountingInstrumentation>());
    } else if (kind == Kind::timing) {
      auto timing = std::make_unique<mlir::DefaultTimingManager>();
      timing->setEnabled(true);
      timing->setOutput(llvm::nulls());
      pm.enableTiming(std::move(timing));
    }
  }

  long run() {
    if (mlir::failed(pm.run(*module))) return -1;
    return pass_runs;
  }
};

}  // namespace

#define PI_MLIR_VARIANTS(N)                                                         \
  PASSINFRA_BENCH_VARIANT long v_mlir_none_##N(long) {                              \
    static Setup s(Setup::Kind::none, std::integral_constant<int, N>{});            \
    return s.run();                                                                 \
  }                                                                                 \
  PASSINFRA_BENCH_VARIANT long v_mlir_instr_##N(long) {                             \
    static Setup s(Setup::Kind::instrumentation, std::integral_constant<int, N>{}); \
    return s.run();                                                                 \
  }                                                                                 \
  PASSINFRA_BENCH_VARIANT long v_mlir_timing_##N(long) {                            \
    static Setup s(Setup::Kind::timing, std::integral_constant<int, N>{});          \
    return s.run();                                                                 \
  }

PI_MLIR_VARIANTS(0)
PI_MLIR_VARIANTS(10)
PI_MLIR_VARIANTS(100)

namespace {
#define PI_ROW(name, what)                                                              \
  {#name, 0, v_##name##_0, what, nullptr}, {#name, 10, v_##name##_10, what, nullptr}, { \
    #name, 100, v_##name##_100, what, nullptr                                           \
  }
const std::vector<bench::Variant> variants = {
    PI_ROW(mlir_none, "MLIR 14 PassManager, no instrumentation"),
    PI_ROW(mlir_instr, "MLIR 14 PassManager, trivial PassInstrumentation (before/after)"),
    PI_ROW(mlir_timing, "MLIR 14 PassManager, enableTiming"),
};
}  // namespace

int main(int argc, char** argv) { return bench::run_variants(argc, argv, variants); }
