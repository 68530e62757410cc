// benchmarks/anchors/llvm_pass_manager.cpp — the anchor for passinfra's
// per-pass numbers: LLVM 14's new pass manager, measured with the same
// callgrind method (../callgrind_driver.hpp) in the same report.
//
// A ModulePassManager of N trivial PassInfoMixin module passes (N distinct
// types, like passinfra's Inc<K>) runs on a module with one function
// (`define void @f() { ret void }`), for N = 0, 10, 100:
//   llvm_none       no callbacks (PassInstrumentationAnalysis without callbacks)
//   llvm_callbacks  shouldRun / before (non-skipped) / after callbacks, each counting
//   llvm_timing     TimePassesHandler registered on the callbacks (report to a null stream)
// Each pass bumps a counter (hidden from the optimizer) and returns
// PreservedAnalyses::all(), as a pass that changed nothing does. The
// ModuleAnalysisManager lives across runs (the PassInstrumentationAnalysis
// result is cached after the first, unmeasured, call).
//
// Built without RTTI (LLVM's convention) in its own executable, only when
// find_package(LLVM 14) succeeds (llvm-14-dev); see CMakeLists.txt here.
#include <memory>
#include <utility>
#include <vector>

#include <llvm/ADT/Any.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/Support/raw_ostream.h>

#include "callgrind_driver.hpp"

namespace {

long pass_runs = 0;
long callback_calls = 0;

template <int K>
struct TrivialPass : llvm::PassInfoMixin<TrivialPass<K>> {
  llvm::PreservedAnalyses run(llvm::Module&, llvm::ModuleAnalysisManager&) {
    long v = pass_runs + K;
    asm volatile("" : "+r"(v));
    pass_runs = v;
    return llvm::PreservedAnalyses::all();
  }
};

template <int... K>
void add_passes(llvm::ModulePassManager& mpm, std::integer_sequence<int, K...>) {
  (mpm.addPass(TrivialPass<K>{}), ...);
}

// One pass manager set-up: a module, its analysis manager and N passes.
struct Setup {
  enum class Kind { none, callbacks, timing };

  llvm::LLVMContext context;
  llvm::Module module{"anchor", context};
  llvm::raw_null_ostream null_stream;  // outlives time_passes, which prints its report when destroyed
  llvm::PassInstrumentationCallbacks callbacks;
  std::unique_ptr<llvm::TimePassesHandler> time_passes;
  llvm::ModuleAnalysisManager mam;
  llvm::ModulePassManager mpm;

  template <int N>
  Setup(Kind kind, std::integral_constant<int, N>) {
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "f", module);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", f));
    builder.CreateRetVoid();

    if (kind == Kind::callbacks) {
      callbacks.registerShouldRunOptionalPassCallback([](llvm::StringRef, llvm::Any) {
        ++callback_calls;
        return true;
      });
      callbacks.registerBeforeNonSkippedPassCallback([](llvm::StringRef, llvm::Any) { ++callback_calls; });
      callbacks.registerAfterPassCallback(
          [](llvm::StringRef, llvm::Any, const llvm::PreservedAnalyses&) { ++callback_calls; });
    } else if (kind == Kind::timing) {
      time_passes = std::make_unique<llvm::TimePassesHandler>(true);
      time_passes->setOutStream(null_stream);
      time_passes->registerCallbacks(callbacks);
    }
    if (kind == Kind::none) {
      mam.registerPass([] { return llvm::PassInstrumentationAnalysis(); });
    } else {
      mam.registerPass([this] { return llvm::PassInstrumentationAnalysis(&callbacks); });
    }
    add_passes(mpm, std::make_integer_sequence<int, N>{});
  }

  long run() {
    mpm.run(module, mam);
    return pass_runs;
  }
};

}  // namespace

#define PI_LLVM_VARIANTS(N)                                                   \
  PASSINFRA_BENCH_VARIANT long v_llvm_none_##N(long) {                        \
    static Setup s(Setup::Kind::none, std::integral_constant<int, N>{});      \
    return s.run();                                                           \
  }                                                                           \
  PASSINFRA_BENCH_VARIANT long v_llvm_callbacks_##N(long) {                   \
    static Setup s(Setup::Kind::callbacks, std::integral_constant<int, N>{}); \
    return s.run();                                                           \
  }                                                                           \
  PASSINFRA_BENCH_VARIANT long v_llvm_timing_##N(long) {                      \
    static Setup s(Setup::Kind::timing, std::integral_constant<int, N>{});    \
    return s.run();                                                           \
  }

PI_LLVM_VARIANTS(0)
PI_LLVM_VARIANTS(10)
PI_LLVM_VARIANTS(100)

namespace {
#define PI_ROW(name, what)                                                              \
  {#name, 0, v_##name##_0, what, nullptr}, {#name, 10, v_##name##_10, what, nullptr}, { \
    #name, 100, v_##name##_100, what, nullptr                                           \
  }
const std::vector<bench::Variant> variants = {
    PI_ROW(llvm_none, "LLVM 14 ModulePassManager, no callbacks"),
    PI_ROW(llvm_callbacks, "LLVM 14 ModulePassManager, shouldRun/before/after callbacks"),
    PI_ROW(llvm_timing, "LLVM 14 ModulePassManager, TimePassesHandler"),
};
}  // namespace

int main(int argc, char** argv) { return bench::run_variants(argc, argv, variants); }
