// Tests of tinyir's passes under an analysis manager (SPEC §10, issue 19 part 6):
// the same IR with and without a manager; InferType as a TypeMap lookup that
// re-infers only the functions a pass changed; the passes asking for CallGraph,
// Liveness and FunctionTypes instead of recomputing; honest preserve declarations,
// checked by the AnalysisPreservationChecker over the ResNet-18 pipeline with every
// analysis requested between passes (SPEC §10.10), static and dynamic layers; and
// a deliberately false claim, caught.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/instruments/analysis_preservation_checker.hpp>
#include <passinfra/passinfra.hpp>

#include "tinyir/analyses.hpp"
#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

namespace {

using namespace tinyir;
using Manager = passinfra::AnalysisManager<Module, passinfra::analyses<TypeMap, CallGraph, Liveness>>;

Module from_text(std::string_view text) { return parse(text, "test"); }

std::string typed(const Module& m) { return print(m, {.show_types = true}); }

// Records the analysis hooks as "<hook> <name>[ <function>]" and the passes as "pass <name>".
struct AnalysisRecorder {
  std::vector<std::string> events;
  static std::string label(const passinfra::AnalysisInfo& info) {
    return std::string(info.name) + (info.function.empty() ? "" : " " + std::string(info.function));
  }
  void run_before_pass(const Module&, const passinfra::PassInfo& info) {
    events.push_back("pass " + std::string(info.name));
  }
  void run_before_analysis(const Module&, const passinfra::AnalysisInfo& info) {
    events.push_back("compute " + label(info));
  }
  void run_after_analysis(const Module&, const passinfra::AnalysisInfo&) {}
  void run_analysis_invalidated(const passinfra::AnalysisInfo& info) { events.push_back("drop " + label(info)); }
  std::vector<std::string> take() { return std::exchange(events, {}); }
};

using Events = std::vector<std::string>;

// RequireEverything: a module pass that computes every tinyir analysis (the
// function ones for every global function) and changes nothing -- what the
// pipeline below runs between passes so that the checker has results to check.
struct RequireEverything : passinfra::CallablePass<RequireEverything> {
  static constexpr passinfra::PassInfo info{"RequireEverything", 0};
  using preserves = passinfra::preserves_all;
  template <class Ctx>
  Module transform(Module m, Ctx& ctx) const {
    ctx.analyses().template get<TypeMap>(m);
    ctx.analyses().template get<CallGraph>(m);
    for (const auto& [name, fn] : m) ctx.analyses().template get<Liveness>(m, fn);
    return m;
  }
};

// The ResNet-18 pipeline: every tinyir pass at opt_level 3, RequireEverything after each.
auto resnet_pipeline() {
  const RequireEverything all;
  return passinfra::Sequential{all, InferType{},
                               all, FoldConstant{},
                               all, EliminateCommonSubexpr{},
                               all, DeadCodeElimination{},
                               all, CanonicalizeOps{},
                               all, ConvertLayout({{"nn.conv2d", {"NHWC", "default"}}}),
                               all, FoldConstant{},
                               all, ToANormalForm{},
                               all, DeadCodeElimination{},
                               all, FuseOps{},
                               all, DefuseOps{},
                               all, FuseOps{},
                               all, InferType{},
                               all};
}

// The same passes without RequireEverything (RequireEverything needs a manager).
auto plain_pipeline() {
  return passinfra::Sequential{InferType{},
                               FoldConstant{},
                               EliminateCommonSubexpr{},
                               DeadCodeElimination{},
                               CanonicalizeOps{},
                               ConvertLayout({{"nn.conv2d", {"NHWC", "default"}}}),
                               FoldConstant{},
                               ToANormalForm{},
                               DeadCodeElimination{},
                               FuseOps{},
                               DefuseOps{},
                               FuseOps{},
                               InferType{}};
}

constexpr std::string_view kTwoFunctions = R"IR(def @f(%x: Tensor[(2), float32]) {
  let %a = add(%x, %x);
  let %b = multiply(%a, 2f);
  let %c = add(1f, 2f);
  add(%x, %c)
}
def @g(%y: Tensor[(2), float32], %w: Tensor[(2), float32]) {
  %0 = nn.bias_add(%y, %w, axis=0);
  nn.relu(%0)
}
)IR";

// @h has no nn.conv2d, yet ConvertLayout changes it as Relay's does: the bias that
// CanonicalizeOps adds to nn.dense's "NC" result is expanded from "C" to "NC".
constexpr std::string_view kDenseWithoutConv =
    R"IR(def @h(%d: Tensor[(2, 16), float32], %dw: Tensor[(3, 16), float32], %db: Tensor[(3), float32]) {
  %0 = nn.dense(%d, %dw, units=3);
  nn.bias_add(%0, %db, axis=-1)
}
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1])
}
)IR";

}  // namespace

TEST_CASE("tinyir analyses in passes: every pass gives the same IR with and without an analysis manager") {
  for (const Module& input :
       {example(), resnet18(false), resnet18(true), from_text(kTwoFunctions), from_text(kDenseWithoutConv)}) {
    passinfra::PassContext<Module> plain({.opt_level = 3});
    const Module expected = passinfra::run(plain_pipeline(), input, plain);

    Manager am;
    auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am);
    const Module got = passinfra::run(plain_pipeline(), input, ctx);
    CHECK(typed(got) == typed(expected));
    CHECK_FALSE(am.empty());  // the passes used it
  }
}

TEST_CASE("tinyir analyses in passes: FoldScaleAxis gives the same IR with and without an analysis manager") {
  // @main's scale folds into the weight (backward) and @g's input scale too (forward);
  // @h has nothing to fold and stays the same node.
  const Module input = from_text(
      R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(2, 4, 3, 3), float32], %s: Tensor[(2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  multiply(%0, %s)
}
def @g(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(2, 4, 3, 3), float32], %t: Tensor[(4, 1, 1), float32]) {
  %0 = multiply(%x, %t);
  nn.conv2d(%0, %w)
}
def @h(%y: Tensor[(2), float32]) {
  add(%y, %y)
}
)IR");
  passinfra::PassContext<Module> plain({.opt_level = 3});
  const Module expected = passinfra::run(FoldScaleAxis(), input, plain);
  CHECK(count_calls(expected.lookup("main")).at("multiply") == 1);  // on the weight
  CHECK(count_calls(expected.lookup("g")).at("multiply") == 1);
  CHECK(expected.lookup("h") == input.lookup("h"));

  Manager am;
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am);
  const Module got = passinfra::run(FoldScaleAxis(), input, ctx);
  CHECK(typed(got) == typed(expected));
}

TEST_CASE("tinyir analyses in passes: InferType is a TypeMap lookup that re-infers only the functions a pass changed") {
  AnalysisRecorder rec;
  Manager am;
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(rec));
  Module m = passinfra::run(InferType{}, from_text(kTwoFunctions), ctx);
  CHECK(rec.take() ==
        Events{"pass InferType", "compute TypeMap", "compute FunctionTypes @f", "compute FunctionTypes @g"});
  CHECK(has_checked_types(m["f"]));

  // A second InferType: a cached lookup, no event but its own.
  m = passinfra::run(InferType{}, std::move(m), ctx);
  CHECK(rec.take() == Events{"pass InferType"});

  // FoldConstant changes @f only: @f's types go (and the map, which read them);
  // @g is left as it was, so it keeps its results. The follow-up InferType
  // re-infers @f alone.
  m = passinfra::run(FoldConstant{}, std::move(m), ctx);
  const Events fold = rec.take();
  CHECK(fold.front() == "pass FoldConstant");
  CHECK(std::count(fold.begin(), fold.end(), "drop FunctionTypes @f") == 1);
  CHECK(std::count(fold.begin(), fold.end(), "compute FunctionTypes @f") == 1);
  CHECK(std::count(fold.begin(), fold.end(), "drop FunctionTypes @g") == 0);
  CHECK(std::count(fold.begin(), fold.end(), "compute FunctionTypes @g") == 0);
  CHECK(has_checked_types(m["f"]));
  CHECK(print(m).find("let %c = 3f;") != std::string::npos);

  // A function pass that changes nothing preserves everything: no event but the passes'.
  m = passinfra::run(InferType{}, std::move(m), ctx);  // the map again, if FoldConstant's end dropped it
  rec.take();
  const std::size_t cached = am.size();
  m = passinfra::run(FoldConstant{}, std::move(m), ctx);
  CHECK(rec.take() == Events{"pass FoldConstant", "pass InferType"});
  CHECK(am.size() == cached);
}

TEST_CASE(
    "tinyir analyses in passes: DeadCodeElimination reads Liveness, CanonicalizeOps and DefuseOps read CallGraph") {
  AnalysisRecorder rec;
  Manager am;
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(rec));
  const Module input = passinfra::run(InferType{}, from_text(kTwoFunctions), ctx);
  rec.take();

  const Module dce = passinfra::run(DeadCodeElimination{}, input, ctx);
  const Events events = rec.take();
  CHECK(std::count(events.begin(), events.end(), "compute Liveness @f") == 1);
  CHECK(std::count(events.begin(), events.end(), "compute Liveness @g") == 1);
  CHECK(typed(dce) == typed(infer_types(dead_code_elimination(input))));

  // CanonicalizeOps rewrites @g (it calls nn.bias_add) and leaves @f: @f keeps its types.
  const Module canon = passinfra::run(CanonicalizeOps{}, dce, ctx);
  const Events c = rec.take();
  CHECK(std::count(c.begin(), c.end(), "compute CallGraph") == 1);
  CHECK(std::count(c.begin(), c.end(), "drop FunctionTypes @g") == 1);
  CHECK(std::count(c.begin(), c.end(), "drop FunctionTypes @f") == 0);
  CHECK(canon["f"] == dce["f"]);
  CHECK(typed(canon) == typed(infer_types(canonicalize_ops(dce))));

  // DefuseOps: no function calls a function value, so nothing changes and nothing is dropped.
  const Module defused = passinfra::run(DefuseOps{}, canon, ctx);
  const Events d = rec.take();
  CHECK(std::count_if(d.begin(), d.end(), [](const std::string& e) { return e.starts_with("drop "); }) == 0);
  CHECK(defused["f"] == canon["f"]);
  CHECK(defused["g"] == canon["g"]);
}

TEST_CASE("tinyir analyses in passes: the preservation checker finds no false claim over the ResNet-18 pipeline") {
  for (const bool bind : {false, true}) {
    Manager am;
    passinfra::AnalysisPreservationChecker<Module> checker(am);
    auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(checker));
    Module out;
    CHECK_NOTHROW(out = passinfra::run(resnet_pipeline(), resnet18(bind), ctx));
    CHECK(am.get_cached<TypeMap>() != nullptr);
    CHECK(am.get_cached<CallGraph>() != nullptr);
    passinfra::PassContext<Module> plain({.opt_level = 3});
    CHECK(typed(out) == typed(passinfra::run(plain_pipeline(), resnet18(bind), plain)));
  }
}

TEST_CASE("tinyir analyses in passes: the preservation checker finds no false claim on the dynamic layer either") {
  passinfra::PassRegistry<Module> registry;
  register_passes(registry);
  registry.add_analysis<TypeMap>();
  registry.add_analysis<CallGraph>();
  const auto pipeline = passinfra::parse_pipeline<Module>(
      "sequential(require(analysis=\"TypeMap\"), require(analysis=\"CallGraph\"), FoldConstant, "
      "require(analysis=\"TypeMap\"), require(analysis=\"CallGraph\"), EliminateCommonSubexpr, "
      "require(analysis=\"CallGraph\"), ToANormalForm, require(analysis=\"CallGraph\"), FuseOps, "
      "require(analysis=\"TypeMap\"), require(analysis=\"CallGraph\"), DeadCodeElimination)",
      registry);
  Manager am;
  passinfra::AnalysisPreservationChecker<Module> checker(am);
  passinfra::PassContext<Module> ctx({.opt_level = 3}, {passinfra::AnyInstrument<Module>(std::ref(checker))}, &am);
  Module out;
  CHECK_NOTHROW(out = passinfra::run(pipeline, resnet18(true), ctx));
  CHECK(am.get_cached<CallGraph>() != nullptr);
}

TEST_CASE("tinyir analyses in passes: a false preserves claim is caught by the checker") {
  // A module pass that rewrites nn.bias_add but says it keeps CallGraph.
  const auto lying = passinfra::module_pass(
      {"LyingCanonicalize", 0}, [](Module m) { return canonicalize_ops(infer_types(std::move(m))); },
      passinfra::preserves<CallGraph>{});
  Manager am;
  AnalysisRecorder rec;
  passinfra::AnalysisPreservationChecker<Module> checker(am);
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(checker), std::ref(rec));
  const passinfra::Sequential seq{RequireEverything{}, lying};
  CHECK_THROWS_WITH_AS(passinfra::run(seq, resnet18(true), ctx),
                       "passinfra: pass 'LyingCanonicalize' preserved analysis 'CallGraph', but recomputing it gives a "
                       "different result",
                       passinfra::Error);
  CHECK(am.empty());  // the checker cleared the cache

  // A claim about a function analysis: a module pass that drops the dead lets of
  // @f and says it keeps Liveness; the message names the function.
  const auto lying_dce = passinfra::module_pass(
      {"LyingDCE", 0}, [](Module m) { return dead_code_elimination(m); }, passinfra::preserves<Liveness>{});
  const passinfra::Sequential seq2{RequireEverything{}, lying_dce};
  CHECK_THROWS_WITH_AS(
      passinfra::run(seq2, from_text(kTwoFunctions), ctx),
      "passinfra: pass 'LyingDCE' preserved analysis 'Liveness' (function '@f'), but recomputing it gives a "
      "different result",
      passinfra::Error);
}

TEST_CASE("tinyir analyses in passes: a function pass's false claim is blamed on it, not on its follow-up InferType") {
  // A TVM-style function pass that drops the dead lets of each function but
  // says it keeps Liveness. Its invalidation happens after the last function,
  // before tinyir's follow-up InferType runs as a nested pass: the checker
  // compares then, at that pass's start, and names the function pass (it
  // used to compare only after InferType, and blamed InferType).
  const auto lying_dce = passinfra::function_pass(
      {"LyingFunctionDCE", 0}, [](Function f, const Module& m) { return dead_code_elimination(f, m); },
      passinfra::preserves<Liveness>{});
  const std::string expected =
      "passinfra: pass 'LyingFunctionDCE' preserved analysis 'Liveness' (function '@f'), but recomputing it "
      "gives a different result";
  {
    Manager am;
    passinfra::AnalysisPreservationChecker<Module> checker(am);
    auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(checker));
    const passinfra::Sequential seq{RequireEverything{}, lying_dce};
    CHECK_THROWS_WITH_AS(passinfra::run(seq, from_text(kTwoFunctions), ctx), expected.c_str(), passinfra::Error);
    CHECK(am.empty());
  }
  {
    Manager am;
    passinfra::AnalysisPreservationChecker<Module> checker(am);
    passinfra::PassContext<Module> ctx({.opt_level = 3}, {passinfra::AnyInstrument<Module>(std::ref(checker))}, &am);
    const passinfra::DynamicSequential<Module> seq{passinfra::AnyPass<Module>(RequireEverything{}),
                                                   passinfra::AnyPass<Module>(lying_dce)};
    CHECK_THROWS_WITH_AS(passinfra::run(seq, from_text(kTwoFunctions), ctx), expected.c_str(), passinfra::Error);
    CHECK(am.empty());
  }
  {
    // The honest function DCE (it declares nothing): no complaint, and the
    // nested InferType's start is checked too.
    Manager am;
    passinfra::AnalysisPreservationChecker<Module> checker(am);
    auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(checker));
    const auto honest = passinfra::function_pass(
        {"FunctionDCE", 0}, [](Function f, const Module& m) { return dead_code_elimination(f, m); });
    const passinfra::Sequential seq{RequireEverything{}, honest, RequireEverything{}};
    CHECK_NOTHROW((void)passinfra::run(seq, from_text(kTwoFunctions), ctx));
    CHECK(checker.checked() > 0);
  }
}

TEST_CASE("tinyir analyses in passes: passes run under a dynamic context without a manager") {
  passinfra::PassContext<Module> ctx({.opt_level = 3});
  const Module out = passinfra::run(plain_pipeline(), from_text(kTwoFunctions), ctx);
  CHECK(has_checked_types(out["f"]));
  CHECK(print(out).find("nn.bias_add") == std::string::npos);
}

TEST_CASE("tinyir analyses in passes: AnnotateSpans replaces the module, so its nested InferType types the new one") {
  // The parsed module has new nodes: the results cached for the old ones are
  // dropped before the nested InferType runs, so it infers the parsed module
  // and the checker has nothing stale to blame it for.
  Manager am;
  AnalysisRecorder rec;
  passinfra::AnalysisPreservationChecker<Module> checker(am);
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(checker), std::ref(rec));
  const passinfra::Sequential seq{RequireEverything{}, AnnotateSpans{}, RequireEverything{}};
  Module out;
  CHECK_NOTHROW(out = passinfra::run(seq, example(), ctx));
  CHECK(has_checked_types(out.main()));
  CHECK(out.main()->span.has_value());
  const TypeMapInfo* types = am.get_cached<TypeMap>();
  REQUIRE(types != nullptr);
  CHECK(types->describes(out));
}
