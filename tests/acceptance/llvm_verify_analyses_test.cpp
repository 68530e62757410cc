// Acceptance: the EXPENSIVE_CHECKS scenarios of LLVM's PassManagerTest.cpp
// (FunctionPassMissedFunctionAnalysisInvalidation,
// ModulePassMissedFunctionAnalysisInvalidation,
// ModulePassMissedModuleAnalysisInvalidation, and the CFGChecker tests where a
// pass invalidates by hand or wraps an inner pipeline), written with
// passinfra's AnalysisPreservationChecker (SPEC §10.10), which needs no special
// build. On both layers and both manager storages (ACCEPTANCE_LAYERS). LLVM's
// checks hash the IR; the checker recomputes the cached results instead, so
// each wrong pass here changes what a cached analysis computes.
#include <doctest/doctest.h>

#include <string>

#include <passinfra/instruments/analysis_preservation_checker.hpp>

#include "acceptance/acceptance.hpp"

using namespace acceptance;
using passinfra::AnalysisInfo;
using passinfra::PassInfo;
using passinfra::PreservedAnalyses;

namespace {

// The analyses of PassManagerTest, with == on their results (what the checker
// compares).
struct InstructionCount {
  static constexpr AnalysisInfo info{"TestFunctionAnalysis"};
  using unit = passinfra::function_unit;
  struct Result {
    int instruction_count;
    friend bool operator==(const Result &, const Result &) = default;
  };
  using result_type = Result;
  Result run(const LFn &f, const LModule &) const { return {static_cast<int>(f.insts.size())}; }
};
struct FunctionCount {
  static constexpr AnalysisInfo info{"TestModuleAnalysis"};
  struct Result {
    int function_count;
    friend bool operator==(const Result &, const Result &) = default;
  };
  using result_type = Result;
  Result run(const LModule &m) const { return {static_cast<int>(m.functions.size())}; }
};

// Computes both analyses everywhere, changes nothing.
struct UseAll {
  static constexpr PassInfo info{"UseAll", 0};
  using preserves = passinfra::preserves_all;
  LModule transform(LModule m, auto &ctx) const {
    auto &&am = ctx.analyses();
    (void)am.template get<FunctionCount>(m);
    for (const auto &f : m.functions) (void)am.template get<InstructionCount>(m, f);
    return m;
  }
};

// WrongFunctionPass: erases a function's first instruction and claims to
// preserve everything.
auto wrong_function_pass() {
  return passinfra::function_pass(
      PassInfo{"WrongFunctionPass", 0},
      [](LFn f, const LModule &) {
        f.insts.erase(f.insts.begin());
        return f;
      },
      passinfra::preserves_all{});
}

// WrongModulePass: erases every function's first instruction, claims to keep
// every function analysis.
struct WrongModulePass {
  static constexpr PassInfo info{"WrongModulePass", 0};
  using preserves = passinfra::preserves<passinfra::all_analyses_on<passinfra::function_unit>>;
  LModule transform(LModule m, auto &) const {
    for (auto &f : m.functions) f.insts.erase(f.insts.begin());
    return m;
  }
};

// WrongModulePass2: removes a function, claims to keep every module analysis
// (LLVM's abandons the function analyses' proxy: here function results go by
// the set).
struct WrongModulePass2 {
  static constexpr PassInfo info{"WrongModulePass2", 0};
  using preserves = passinfra::preserves<passinfra::all_analyses_on<passinfra::module_unit>>;
  LModule transform(LModule m, auto &) const {
    m.functions.pop_back();
    return m;
  }
};

// TestSimplifyCFGInvalidatingAnalysisPass: changes f, drops f's results by
// hand, then claims to preserve everything (truthfully: nothing cached
// describes the old f).
auto invalidating_by_hand_pass() {
  return passinfra::function_pass(
      PassInfo{"InvalidatingByHand", 0},
      [](LFn f, const LModule &, auto &ctx) {
        if (f.insts.size() == 3) {
          f.insts.erase(f.insts.begin());
          ctx.analyses().invalidate(f, PreservedAnalyses::none());
        }
        return f;
      },
      passinfra::preserves_all{});
}

// An inner pass that changes f and says so (no declaration), run from a wrapper
// that preserves everything (TestSimplifyCFGWrapperPass): the inner run's
// invalidation already dropped what changed.
struct HonestInner {
  static constexpr PassInfo info{"HonestInner", 0};
  LModule transform(LModule m, auto &) const {
    m.functions.front().insts.erase(m.functions.front().insts.begin());
    return m;
  }
};
struct Wrapper {
  static constexpr PassInfo info{"Wrapper", 0};
  using preserves = passinfra::preserves_all;
  LModule transform(LModule m, auto &ctx) const { return passinfra::run(HonestInner{}, std::move(m), ctx); }
};

using Listed = passinfra::analyses<FunctionCount>;

template <class L, class Pipeline>
std::string run_checked(const Pipeline &pipeline, typename L::template Manager<Listed> &am, EventLog &log) {
  AnalysisRecorder rec{&log};
  passinfra::AnalysisPreservationChecker<LModule> chk(am);
  auto ctx = L::context({}, am, rec, chk);
  try {
    (void)passinfra::run(pipeline, make_module(), ctx);
  } catch (const passinfra::Error &e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE_TEMPLATE(
    "acceptance LLVM "
    "PassManagerTest.FunctionPassMissedFunctionAnalysisInvalidation: the "
    "checker "
    "names the pass, the analysis and the function",
    L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  EventLog log;
  const std::string error = run_checked<L>(L::seq(UseAll{}, wrong_function_pass()), am, log);
  CHECK(error ==
        "passinfra: pass 'WrongFunctionPass' preserved analysis "
        "'TestFunctionAnalysis' (function 'f'), but recomputing it "
        "gives a different result");
  CHECK(am.empty());  // the checker cleared the cache (one invalidated event per
                      // result)
  CHECK(log.joined().find("invalidated TestModuleAnalysis | invalidated "
                          "TestFunctionAnalysis@f | "
                          "invalidated TestFunctionAnalysis@g | invalidated "
                          "TestFunctionAnalysis@h | "
                          "failed sequential") != std::string::npos);
}

TEST_CASE_TEMPLATE(
    "acceptance LLVM "
    "PassManagerTest.ModulePassMissedFunctionAnalysisInvalidation",
    L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  EventLog log;
  const std::string error = run_checked<L>(L::seq(UseAll{}, WrongModulePass{}), am, log);
  CHECK(error ==
        "passinfra: pass 'WrongModulePass' preserved analysis "
        "'TestFunctionAnalysis' "
        "(function 'f'), but recomputing it gives "
        "a different result");
  CHECK(am.empty());
}

TEST_CASE_TEMPLATE(
    "acceptance LLVM "
    "PassManagerTest.ModulePassMissedModuleAnalysisInvalidation",
    L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  EventLog log;
  const std::string error = run_checked<L>(L::seq(UseAll{}, WrongModulePass2{}), am, log);
  CHECK(error ==
        "passinfra: pass 'WrongModulePass2' preserved analysis "
        "'TestModuleAnalysis', but recomputing it gives a different "
        "result");
  CHECK(am.empty());
}

TEST_CASE_TEMPLATE(
    "acceptance LLVM PassManagerTest.FunctionPassCFGCheckerInvalidateAnalysis: "
    "results dropped by "
    "hand are not checked",
    L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  EventLog log;
  CHECK(run_checked<L>(L::seq(UseAll{}, invalidating_by_hand_pass()), am, log).empty());
  const LModule m = make_module();
  CHECK(am.template get_cached<InstructionCount>(fn(m, "f")) == nullptr);
  CHECK(am.template get_cached<InstructionCount>(fn(m, "g")) != nullptr);
  CHECK(am.template get_cached<FunctionCount>() != nullptr);
}

TEST_CASE_TEMPLATE(
    "acceptance LLVM PassManagerTest.FunctionPassCFGCheckerWrapped: a wrapper "
    "preserving all around "
    "an honest inner pass",
    L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  EventLog log;
  CHECK(run_checked<L>(L::seq(UseAll{}, Wrapper{}), am, log).empty());
  CHECK(am.empty());  // HonestInner declared nothing: everything was dropped
                      // after it
  CHECK(log.joined().find("invalidated TestFunctionAnalysis@h | after "
                          "HonestInner | after Wrapper") != std::string::npos);
}
