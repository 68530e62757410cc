// benchmarks/anchors/llvm_analysis_manager.cpp — the anchor for passinfra's
// analysis-manager numbers (benchmarks/analysis_callgrind.cpp, DESIGN
// "Analyses": performance targets): LLVM 14's new-pass-manager
// AnalysisManager, measured with the same callgrind method
// (../callgrind_driver.hpp).
//
// Every variant repeats one operation K = 1000 times in a loop that cannot be
// folded or hoisted (an empty asm with a memory clobber between iterations,
// the result kept live), so per operation = (variant - llvm_an_loop) / K:
//
//   llvm_an_loop             the loop alone
//   llvm_an_get_module       MAM.getResult<ModuleCount>(M), cached
//   llvm_an_get_function     FAM.getResult<InstCount0>(F), cached
//   llvm_an_cached_function  FAM.getCachedResult<InstCount0>(F) (never computes)
//   llvm_an_invalidate_3     PreservedAnalyses::none() + preserve<> of the 3 cached
//                            function analyses + FAM.invalidate(F, PA) (nothing dropped)
//   llvm_an_invalidate_all   PreservedAnalyses::all() + FAM.invalidate(F, PA) (its early exit)
//
// The module has one function (`define void @f() { ret void }`); the three
// function analyses and the module analysis are computed once before the
// measured calls (the driver's warm-up call). Built without RTTI (LLVM's
// convention) against Debian's shared libLLVM-14, only when find_package(LLVM
// 14) succeeds (llvm-14-dev); see CMakeLists.txt here.
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/IR/PassManager.h>

#include "callgrind_driver.hpp"

namespace {

constexpr int kOps = 1000;

inline void barrier() { asm volatile("" ::: "memory"); }

// A function analysis whose result is an int (the instruction count plus K,
// so that the three are distinct types with distinct keys).
template <int K>
struct InstCount : llvm::AnalysisInfoMixin<InstCount<K>> {
  struct Result {
    long value;
  };
  Result run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
    long n = K;
    for (auto& bb : f) n += static_cast<long>(bb.size());
    return {n};
  }
  static llvm::AnalysisKey Key;  // NOLINT: LLVM's convention
};
template <int K>
llvm::AnalysisKey InstCount<K>::Key;

struct ModuleCount : llvm::AnalysisInfoMixin<ModuleCount> {
  struct Result {
    long value;
  };
  Result run(llvm::Module& m, llvm::ModuleAnalysisManager&) { return {static_cast<long>(m.size())}; }
  static llvm::AnalysisKey Key;  // NOLINT
};
llvm::AnalysisKey ModuleCount::Key;

struct Setup {
  llvm::LLVMContext context;
  llvm::Module module{"anchor", context};
  llvm::Function* f = nullptr;
  llvm::FunctionAnalysisManager fam;
  llvm::ModuleAnalysisManager mam;

  Setup() {
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "f", module);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", f));
    builder.CreateRetVoid();
    // getResultImpl asks for the PassInstrumentation (its analysis callbacks): none here.
    fam.registerPass([] { return llvm::PassInstrumentationAnalysis(); });
    mam.registerPass([] { return llvm::PassInstrumentationAnalysis(); });
    fam.registerPass([] { return InstCount<0>(); });
    fam.registerPass([] { return InstCount<1>(); });
    fam.registerPass([] { return InstCount<2>(); });
    mam.registerPass([] { return ModuleCount(); });
    (void)fam.getResult<InstCount<0>>(*f);
    (void)fam.getResult<InstCount<1>>(*f);
    (void)fam.getResult<InstCount<2>>(*f);
    (void)mam.getResult<ModuleCount>(module);
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

}  // namespace

PASSINFRA_BENCH_VARIANT long v_llvm_an_loop_1000(long) {
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = i;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_llvm_an_get_module_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = s.mam.getResult<ModuleCount>(s.module).value;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_llvm_an_get_function_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = s.fam.getResult<InstCount<0>>(*s.f).value;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_llvm_an_cached_function_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    long v = s.fam.getCachedResult<InstCount<0>>(*s.f)->value;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_llvm_an_invalidate_3_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    llvm::PreservedAnalyses pa = llvm::PreservedAnalyses::none();
    pa.preserve<InstCount<0>>();
    pa.preserve<InstCount<1>>();
    pa.preserve<InstCount<2>>();
    s.fam.invalidate(*s.f, pa);
    long v = i;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

PASSINFRA_BENCH_VARIANT long v_llvm_an_invalidate_all_1000(long) {
  Setup& s = setup();
  long sink = 0;
  for (int i = 0; i < kOps; ++i) {
    s.fam.invalidate(*s.f, llvm::PreservedAnalyses::all());
    long v = i;
    asm volatile("" : "+r"(v));
    sink += v;
    barrier();
  }
  return sink;
}

int main(int argc, char** argv) {
  const std::vector<bench::Variant> variants = {
      {"llvm_an_loop", kOps, v_llvm_an_loop_1000, "the loop alone (LLVM anchor's baseline)"},
      {"llvm_an_get_module", kOps, v_llvm_an_get_module_1000, "LLVM 14 MAM.getResult<A>(M), cached"},
      {"llvm_an_get_function", kOps, v_llvm_an_get_function_1000, "LLVM 14 FAM.getResult<A>(F), cached"},
      {"llvm_an_cached_function", kOps, v_llvm_an_cached_function_1000, "LLVM 14 FAM.getCachedResult<A>(F)"},
      {"llvm_an_invalidate_3", kOps, v_llvm_an_invalidate_3_1000,
       "LLVM 14 PA preserving the 3 cached + FAM.invalidate(F, PA)"},
      {"llvm_an_invalidate_all", kOps, v_llvm_an_invalidate_all_1000,
       "LLVM 14 FAM.invalidate(F, PreservedAnalyses::all())"},
  };
  return bench::run_variants(argc, argv, variants);
}
