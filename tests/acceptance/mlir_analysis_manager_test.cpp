// Acceptance: the scenarios of MLIR's mlir/unittests/Pass/AnalysisManagerTest.cpp
// (fine-grained preservation of module and function results, custom invalidation,
// dependent and nested dependent analyses, an analysis with two constructors), written
// for passinfra with DESIGN's names (SPEC §10): each directly on a manager of either
// storage and through pass bodies on both layers (ACCEPTANCE_LAYERS), where MLIR's
// markAnalysesPreserved / markAllAnalysesPreserved are ctx.analyses().preserve<...>() /
// preserve_all().
#include <doctest/doctest.h>

#include <string>

#include "acceptance/acceptance.hpp"

using namespace acceptance;
using passinfra::AnalysisInfo;
using passinfra::PassInfo;
using passinfra::PreservedAnalyses;

namespace {

int g_runs = 0;  // computations of every analysis below

struct MyAnalysis {
  static constexpr AnalysisInfo info{"MyAnalysis"};
  using result_type = int;
  int run(const LModule&) const { return ++g_runs; }
};
struct OtherAnalysis {
  static constexpr AnalysisInfo info{"OtherAnalysis"};
  using result_type = int;
  int run(const LModule&) const { return ++g_runs; }
};
// The same two on functions (MLIR's nested managers hold any analysis for any op).
struct MyFunctionAnalysis {
  static constexpr AnalysisInfo info{"MyFunctionAnalysis"};
  using unit = passinfra::function_unit;
  using result_type = int;
  int run(const LFn&, const LModule&) const { return ++g_runs; }
};
struct OtherFunctionAnalysis {
  static constexpr AnalysisInfo info{"OtherFunctionAnalysis"};
  using unit = passinfra::function_unit;
  using result_type = int;
  int run(const LFn&, const LModule&) const { return ++g_runs; }
};

// Custom invalidation: kept as long as TestAnalysisSet is (a tag, not an analysis).
struct TestAnalysisSet {};
struct CustomInvalidatingAnalysis {
  static constexpr AnalysisInfo info{"CustomInvalidatingAnalysis"};
  using result_type = int;
  int run(const LModule&) const { return ++g_runs; }
  bool is_invalidated(const int&, const PreservedAnalyses& pa) const { return !pa.preserved<TestAnalysisSet>(); }
};

// An analysis taking the IR's own type without deps (MLIR: OpSpecificAnalysis(ModuleOp)).
struct OpSpecificAnalysis {
  static constexpr AnalysisInfo info{"OpSpecificAnalysis"};
  using result_type = std::size_t;
  std::size_t run(const LModule& m) const {
    ++g_runs;
    return m.functions.size();
  }
};

// Dependent analyses: MLIR's need an isInvalidated that checks the dependency by hand;
// passinfra records what `deps` returned and drops the dependents itself (SPEC §10.4).
struct AnalysisWithDependency {
  static constexpr AnalysisInfo info{"AnalysisWithDependency"};
  using result_type = int;
  using depends_on = passinfra::depends_on<MyAnalysis>;
  int run(const LModule&, auto& deps) const {
    (void)deps.template get<MyAnalysis>();
    return ++g_runs;
  }
};
struct AnalysisWithNestedDependency {
  static constexpr AnalysisInfo info{"AnalysisWithNestedDependency"};
  using result_type = int;
  using depends_on = passinfra::depends_on<AnalysisWithDependency>;
  int run(const LModule&, auto& deps) const {
    (void)deps.template get<AnalysisWithDependency>();
    return ++g_runs;
  }
};
// MLIR's version of the dependent analysis, with its hand-written isInvalidated (kept
// here as is_invalidated: it decides the analysis's own fate; the cascade still applies).
struct AnalysisWithDependencyAndTest {
  static constexpr AnalysisInfo info{"AnalysisWithDependencyAndTest"};
  using result_type = int;
  using depends_on = passinfra::depends_on<MyAnalysis>;
  int run(const LModule&, auto& deps) const {
    (void)deps.template get<MyAnalysis>();
    return ++g_runs;
  }
  bool is_invalidated(const int&, const PreservedAnalyses& pa) const {
    return !pa.preserved<AnalysisWithDependencyAndTest>() || !pa.preserved<MyAnalysis>();
  }
};

// Two run forms: the one taking deps is used (DESIGN; MLIR: the (Operation*, AnalysisManager&) ctor).
struct AnalysisWith2Ctors {
  static constexpr AnalysisInfo info{"AnalysisWith2Ctors"};
  struct Result {
    bool ctor1called = false;
    bool ctor2called = false;
  };
  using result_type = Result;
  Result run(const LModule&) const { return {true, false}; }
  Result run(const LModule&, auto&) const { return {false, true}; }
};

using Listed = passinfra::analyses<MyAnalysis, OtherAnalysis, CustomInvalidatingAnalysis, OpSpecificAnalysis,
                                   AnalysisWithNestedDependency, AnalysisWithDependencyAndTest, AnalysisWith2Ctors>;

}  // namespace

// ---------------------------------------------------------------- directly on a manager

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.FineGrainModuleAnalysisPreservation", L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  (void)am.template get<MyAnalysis>(m);
  (void)am.template get<OtherAnalysis>(m);
  PreservedAnalyses pa;
  pa.preserve<MyAnalysis>();
  am.invalidate(pa);
  CHECK(am.template get_cached<MyAnalysis>() != nullptr);
  CHECK(am.template get_cached<OtherAnalysis>() == nullptr);
}

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.FineGrainFunctionAnalysisPreservation", L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  const LFn& f = fn(m, "f");
  (void)am.template get<MyFunctionAnalysis>(m, f);
  (void)am.template get<OtherFunctionAnalysis>(m, f);
  (void)am.template get<OtherFunctionAnalysis>(m, fn(m, "g"));
  PreservedAnalyses pa;
  pa.preserve<MyFunctionAnalysis>();
  am.invalidate(f, pa);  // MLIR: fam = am.nest(func1); fam.invalidate(pa)
  CHECK(am.template get_cached<MyFunctionAnalysis>(f) != nullptr);
  CHECK(am.template get_cached<OtherFunctionAnalysis>(f) == nullptr);
  CHECK(am.template get_cached<OtherFunctionAnalysis>(fn(m, "g")) != nullptr);  // another function: untouched
}

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.FineGrainChildFunctionAnalysisPreservation", L,
                   ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  const LFn& f = fn(m, "f");
  CHECK(am.template get_cached<MyFunctionAnalysis>(f) == nullptr);  // initially empty
  (void)am.template get<MyFunctionAnalysis>(m, f);
  (void)am.template get<OtherFunctionAnalysis>(m, f);
  PreservedAnalyses pa;
  pa.preserve<MyFunctionAnalysis>();
  am.invalidate(pa);  // from the module level: applies to function results too (SPEC §10.5)
  CHECK(am.template get_cached<MyFunctionAnalysis>(f) != nullptr);
  CHECK(am.template get_cached<OtherFunctionAnalysis>(f) == nullptr);
}

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.CustomInvalidation", L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  PreservedAnalyses pa;
  (void)am.template get<CustomInvalidatingAnalysis>(m);
  am.invalidate(pa);
  CHECK(am.template get_cached<CustomInvalidatingAnalysis>() == nullptr);
  (void)am.template get<CustomInvalidatingAnalysis>(m);
  pa.preserve<TestAnalysisSet>();
  am.invalidate(pa);
  CHECK(am.template get_cached<CustomInvalidatingAnalysis>() != nullptr);
  // is_invalidated replaces the default test: naming the analysis itself does not keep it.
  am.invalidate(PreservedAnalyses::none().preserve<CustomInvalidatingAnalysis>());
  CHECK(am.template get_cached<CustomInvalidatingAnalysis>() == nullptr);
}

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.OpSpecificAnalysis", L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  CHECK(am.template get<OpSpecificAnalysis>(m) == 3);
  REQUIRE(am.template get_cached<OpSpecificAnalysis>() != nullptr);
  CHECK(*am.template get_cached<OpSpecificAnalysis>() == 3);
}

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.DependentAnalysis", L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  SUBCASE("without a test of its own") {
    (void)am.template get<AnalysisWithDependency>(m);
    CHECK(am.template get_cached<AnalysisWithDependency>() != nullptr);
    CHECK(am.template get_cached<MyAnalysis>() != nullptr);
    PreservedAnalyses pa;
    pa.preserve<AnalysisWithDependency>();
    am.invalidate(pa);
    CHECK(am.template get_cached<AnalysisWithDependency>() == nullptr);
    CHECK(am.template get_cached<MyAnalysis>() == nullptr);
  }
  SUBCASE("with MLIR's hand-written test") {
    (void)am.template get<AnalysisWithDependencyAndTest>(m);
    CHECK(am.template get_cached<AnalysisWithDependencyAndTest>() != nullptr);
    CHECK(am.template get_cached<MyAnalysis>() != nullptr);
    PreservedAnalyses pa;
    pa.preserve<AnalysisWithDependencyAndTest>();
    am.invalidate(pa);
    CHECK(am.template get_cached<AnalysisWithDependencyAndTest>() == nullptr);
    CHECK(am.template get_cached<MyAnalysis>() == nullptr);
  }
  SUBCASE("keeping the dependency keeps both") {
    (void)am.template get<AnalysisWithDependency>(m);
    am.invalidate(PreservedAnalyses::none().preserve<AnalysisWithDependency, MyAnalysis>());
    CHECK(am.template get_cached<AnalysisWithDependency>() != nullptr);
    CHECK(am.template get_cached<MyAnalysis>() != nullptr);
  }
  SUBCASE("keeping only the dependency drops the dependent") {
    (void)am.template get<AnalysisWithDependency>(m);
    am.invalidate(PreservedAnalyses::none().preserve<MyAnalysis>());
    CHECK(am.template get_cached<AnalysisWithDependency>() == nullptr);
    CHECK(am.template get_cached<MyAnalysis>() != nullptr);
  }
}

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.NestedDependentAnalysis", L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  (void)am.template get<AnalysisWithNestedDependency>(m);
  CHECK(am.template get_cached<AnalysisWithNestedDependency>() != nullptr);
  CHECK(am.template get_cached<AnalysisWithDependency>() != nullptr);
  CHECK(am.template get_cached<MyAnalysis>() != nullptr);
  PreservedAnalyses pa;
  pa.preserve<AnalysisWithDependency>();
  pa.preserve<AnalysisWithNestedDependency>();
  am.invalidate(pa);
  CHECK(am.template get_cached<AnalysisWithNestedDependency>() == nullptr);
  CHECK(am.template get_cached<AnalysisWithDependency>() == nullptr);
  CHECK(am.template get_cached<MyAnalysis>() == nullptr);
}

TEST_CASE_TEMPLATE("acceptance MLIR AnalysisManagerTest.DependentAnalysis2Ctors", L, ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const auto& an = am.template get<AnalysisWith2Ctors>(make_module());
  CHECK_FALSE(an.ctor1called);
  CHECK(an.ctor2called);
}

// ---------------------------------------------------------------- through pass bodies

namespace {

// UsePass<As...>: requests every A, then marks `Keep...` preserved (MLIR: markAnalysesPreserved).
template <class... Keep>
struct Marks {};

template <class Uses, class Keep>
struct UsePass;
template <class... As, class... Keep>
struct UsePass<passinfra::analyses<As...>, Marks<Keep...>> {
  static constexpr PassInfo info{"UsePass", 0};
  bool keep_all = false;
  LModule transform(LModule m, auto& ctx) const {
    auto&& am = ctx.analyses();
    (..., (void)am.template get<As>(m));
    if constexpr (sizeof...(Keep) > 0) am.template preserve<Keep...>();
    if (keep_all) am.preserve_all();
    return m;
  }
};

// Checks what is cached from inside the next pass's body (it preserves everything).
struct Probe {
  static constexpr PassInfo info{"Probe", 0};
  using preserves = passinfra::preserves_all;
  std::string* out = nullptr;
  LModule transform(LModule m, auto& ctx) const {
    auto&& am = ctx.analyses();
    *out = std::string(am.template get_cached<MyAnalysis>() ? "My " : "") +
           (am.template get_cached<OtherAnalysis>() ? "Other " : "") +
           (am.template get_cached<AnalysisWithDependency>() ? "Dep " : "") +
           (am.template get_cached<AnalysisWithNestedDependency>() ? "Nested " : "") +
           (am.template get_cached<CustomInvalidatingAnalysis>() ? "Custom " : "");
    return m;
  }
};

}  // namespace

TEST_CASE_TEMPLATE("acceptance MLIR fine-grained preservation through marks: a pass keeps what it marks", L,
                   ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  std::string seen;
  SUBCASE("markAnalysesPreserved<MyAnalysis>") {
    using P = UsePass<passinfra::analyses<MyAnalysis, OtherAnalysis>, Marks<MyAnalysis>>;
    auto ctx = L::context({}, am);
    (void)passinfra::run(L::seq(P{}, Probe{&seen}), make_module(), ctx);
    CHECK(seen == "My ");
  }
  SUBCASE("markAllAnalysesPreserved") {
    using P = UsePass<passinfra::analyses<MyAnalysis, OtherAnalysis>, Marks<>>;
    auto ctx = L::context({}, am);
    (void)passinfra::run(L::seq(P{true}, Probe{&seen}), make_module(), ctx);
    CHECK(seen == "My Other ");
  }
  SUBCASE("no mark: nothing kept") {
    using P = UsePass<passinfra::analyses<MyAnalysis, OtherAnalysis>, Marks<>>;
    auto ctx = L::context({}, am);
    (void)passinfra::run(L::seq(P{}, Probe{&seen}), make_module(), ctx);
    CHECK(seen.empty());
  }
  SUBCASE("dependent analyses: keeping the dependents only keeps nothing") {
    using P = UsePass<passinfra::analyses<AnalysisWithNestedDependency>,
                      Marks<AnalysisWithDependency, AnalysisWithNestedDependency>>;
    auto ctx = L::context({}, am);
    (void)passinfra::run(L::seq(P{}, Probe{&seen}), make_module(), ctx);
    CHECK(seen.empty());
  }
  SUBCASE("custom invalidation: kept by its tag") {
    using P = UsePass<passinfra::analyses<CustomInvalidatingAnalysis, MyAnalysis>, Marks<TestAnalysisSet>>;
    auto ctx = L::context({}, am);
    (void)passinfra::run(L::seq(P{}, Probe{&seen}), make_module(), ctx);
    CHECK(seen == "Custom ");
  }
}

TEST_CASE_TEMPLATE("acceptance MLIR function analyses through a function pass: marks apply to the function visited", L,
                   ACCEPTANCE_LAYERS) {
  typename L::template Manager<Listed> am;
  const LModule m = make_module();
  // On f, keep MyFunctionAnalysis only; on g, keep everything; on h, nothing.
  auto mark = passinfra::function_pass(PassInfo{"Mark", 0}, [](LFn f, const LModule& mod, auto& ctx) {
    auto&& h = ctx.analyses();
    (void)h.template get<MyFunctionAnalysis>(mod, f);
    (void)h.template get<OtherFunctionAnalysis>(mod, f);
    if (f.name == "f") h.template preserve<MyFunctionAnalysis>();
    if (f.name == "g") h.preserve_all();
    return f;
  });
  auto ctx = L::context({}, am);
  (void)passinfra::run(L::seq(mark), m, ctx);
  CHECK(am.template get_cached<MyFunctionAnalysis>(fn(m, "f")) != nullptr);
  CHECK(am.template get_cached<OtherFunctionAnalysis>(fn(m, "f")) == nullptr);
  CHECK(am.template get_cached<MyFunctionAnalysis>(fn(m, "g")) != nullptr);
  CHECK(am.template get_cached<OtherFunctionAnalysis>(fn(m, "g")) != nullptr);
  CHECK(am.template get_cached<MyFunctionAnalysis>(fn(m, "h")) == nullptr);
  CHECK(am.template get_cached<OtherFunctionAnalysis>(fn(m, "h")) == nullptr);
  CHECK(am.size() == 3);
}
