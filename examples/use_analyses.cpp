// use_analyses: passinfra's analysis manager on tinyir (SPEC §10), for readers who
// know LLVM's new pass manager or MLIR's.
//
// tinyir's analyses (tinyir/analyses.hpp: TypeMap over FunctionTypes, CallGraph,
// Liveness) are cached by an AnalysisManager that the context holds; tinyir's
// passes ask for them through ctx.analyses() and say what they keep. The program
// shows the events an instrument sees (what is computed, what is dropped and
// why), a timing profile with analyses nested under the passes that asked for
// them, the utility passes require<...> / invalidate<...> in pipeline text, and
// the AnalysisPreservationChecker catching a pass whose preserves claim is false.
//
// The `// [tag]` lines mark the regions docs/tutorial_analyses.md quotes;
// scripts/check_docs.sh (ctest docs.check) keeps the two identical.
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>

#include <passinfra/instruments/analysis_preservation_checker.hpp>
#include <passinfra/passinfra.hpp>

#include "tinyir/analyses.hpp"
#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"
#include "tutorial.hpp"

namespace {

using tinyir::Module;

// [event-printer]
// Prints the passes and the analysis events, indented by pass nesting.
struct EventPrinter {
  int depth = 0;
  std::string indent() const { return std::string(static_cast<std::size_t>(2 * depth), ' '); }
  static std::string label(const passinfra::AnalysisInfo& info) {
    return std::string(info.name) + (info.function.empty() ? "" : "(" + std::string(info.function) + ")");
  }
  void run_before_pass(const Module&, const passinfra::PassInfo& info) {
    std::cout << indent() << info.name << '\n';
    ++depth;
  }
  void run_after_pass(const Module&, const passinfra::PassInfo&) { --depth; }
  void run_before_analysis(const Module&, const passinfra::AnalysisInfo& info) {
    std::cout << indent() << "compute " << label(info) << '\n';
  }
  void run_analysis_invalidated(const passinfra::AnalysisInfo& info) {
    std::cout << indent() << "drop " << label(info) << '\n';
  }
};
// [event-printer]

constexpr std::string_view kProgram = R"IR(def @f(%x: Tensor[(2), float32]) {
  let %unused = multiply(%x, %x);
  add(%x, add(1f, 2f))
}
def @g(%y: Tensor[(1, 4, 2, 2), float32], %b: Tensor[(4), float32]) {
  nn.relu(nn.bias_add(%y, %b))
}
)IR";

}  // namespace

int main() {
  bool ok = true;
  const Module program = tinyir::parse(kProgram, "program");

  tutorial::section("A manager, a context, and the first requests");
  // [manager]
  // The analyses listed get static slots (a std::optional each); the manager
  // holds every result, the context holds the manager by reference.
  passinfra::AnalysisManager<Module, passinfra::analyses<tinyir::TypeMap, tinyir::CallGraph, tinyir::Liveness>> am;
  EventPrinter events;
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(events));

  Module mod = passinfra::run(tinyir::InferType{}, program, ctx);  // computes the types
  mod = passinfra::run(tinyir::InferType{}, std::move(mod), ctx);  // a cached lookup
  std::cout << "cached results: " << am.size() << '\n';
  // [manager]
  ok = ok && am.size() == 3;

  tutorial::section("A pass that changes one function");
  // [fold]
  // FoldConstant rewrites @f and leaves @g alone: @f's results go, @g's stay,
  // and the InferType that follows every function pass re-infers @f only.
  mod = passinfra::run(tinyir::FoldConstant{}, std::move(mod), ctx);
  // [fold]

  tutorial::section("Passes that read analyses");
  // [readers]
  // DeadCodeElimination reads Liveness; CanonicalizeOps reads CallGraph and
  // rewrites only the functions that call nn.bias_add.
  mod = passinfra::run(tinyir::DeadCodeElimination{}, std::move(mod), ctx);
  mod = passinfra::run(tinyir::CanonicalizeOps{}, std::move(mod), ctx);
  std::cout << tinyir::print(mod);
  // [readers]
  ok = ok && tinyir::print(mod).find("unused") == std::string::npos;

  tutorial::section("require, invalidate and invalidate_all");
  // [utility]
  passinfra::PassRegistry<Module> registry;
  tinyir::register_passes(registry);
  registry.add_analysis<tinyir::CallGraph>();
  registry.add_analysis<tinyir::TypeMap>();
  auto pipeline = passinfra::parse_pipeline<Module>(
      R"(sequential(require(analysis="CallGraph"), ToANormalForm, require(analysis="TypeMap"),)"
      R"(invalidate(analysis="CallGraph"), invalidate_all))",
      registry);
  passinfra::PassContext<Module> dctx({.opt_level = 3}, {passinfra::AnyInstrument<Module>(std::ref(events))}, &am);
  mod = passinfra::run(pipeline, std::move(mod), dctx);
  std::cout << "cached results: " << am.size() << '\n';
  // [utility]
  ok = ok && am.empty();

  tutorial::section("Analyses in a timing profile");
  // [timing]
  passinfra::PassTimingInstrument timing;
  auto timed = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(timing));
  const passinfra::Sequential resnet_pipeline{tinyir::FoldConstant{}, tinyir::DeadCodeElimination{}, tinyir::FuseOps{}};
  Module resnet = passinfra::run(resnet_pipeline, tinyir::resnet18(/*bind_params=*/true), timed);
  std::cout << timing.render();
  // [timing]
  ok = ok && timing.render().find("(A) TypeMap") != std::string::npos;

  tutorial::section("Catching a false preserves claim");
  // [checker]
  // A pass that rewrites nn.bias_add and claims CallGraph stays valid.
  const auto lying = passinfra::module_pass(
      {"LyingCanonicalize", 0}, [](Module m) { return tinyir::canonicalize_ops(tinyir::infer_types(std::move(m))); },
      passinfra::preserves<tinyir::CallGraph>{});
  am.clear();  // a new module below: the cache described the one before
  passinfra::AnalysisPreservationChecker<Module> checker(am);
  auto checked = passinfra::make_pass_context<Module>({.opt_level = 3}, am, std::ref(checker));
  try {
    const passinfra::Sequential seq{passinfra::RequireAnalysis<tinyir::CallGraph>{}, lying};
    resnet = passinfra::run(seq, tinyir::resnet18(true), checked);
    ok = false;
  } catch (const passinfra::Error& e) {
    std::cout << "passinfra::Error: " << e.what() << '\n';
  }
  // [checker]
  return ok ? 0 : 1;
}
