// tinyir's functions as a nest's units (docs/spec.md §11): unit_traits over
// Module -> Function, the function passes' unit-level overloads (each ends with
// a nested, instrumented InferType on its function), and the ResNet-18
// workload in 8 functions printed byte for byte the same serially, in
// parallel on a ThreadPool, and by the module-level function passes.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <passinfra/dynamic.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/printer.hpp"
#include "tinyir/workloads.hpp"

namespace pi = passinfra;
using namespace tinyir;

namespace {

// ResNet-18 eight times, as @f0 ... @f7 (eight separate builds: no node is shared).
Module resnet18_x8() {
  std::vector<Module::Entry> entries;
  for (int i = 0; i < 8; ++i) entries.emplace_back("f" + std::to_string(i), resnet18(true).main());
  return Module(std::move(entries));
}

using FunctionOpts = pi::Nest<Function, FoldConstant, EliminateCommonSubexpr, DeadCodeElimination, FuseOps>;
using Nested = pi::Sequential<InferType, FunctionOpts>;
using Flat = pi::Sequential<InferType, FoldConstant, EliminateCommonSubexpr, DeadCodeElimination, FuseOps>;

// Records "<hook> <unit or M> <pass>" for the module and its functions.
struct Trace {
  std::vector<std::string>* out;
  void run_before_pass(const Module&, const pi::PassInfo& i) { out->push_back("before M " + std::string(i.name)); }
  void run_before_pass(const Function& f, const pi::PassInfo& i) {
    out->push_back("before " + std::string(f->global_name()) + " " + std::string(i.name));
  }
  void run_before_pipeline(const Function&, const pi::PipelineInfo& p) {
    out->push_back("pipeline " + std::string(p.unit_name));
  }
};

}  // namespace

TEST_CASE("tinyir nest: a module's functions are the units, Primitive ones left out") {
  const Module m = parse(R"(
def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  subtract(%x, %x)
}
def @helper(%y: Tensor[(2), float32]) -> Tensor[(2), float32] {
  add(%y, %y)
}
)",
                         "test");
  const auto slots = pi::unit_traits<Module, Function>::units(m);
  REQUIRE(slots.size() == 2);
  CHECK(slots[0].name == "@main");
  CHECK(slots[1].name == "@helper");
  CHECK(pi::unit_kind_name<Function>() == "function");
  const Module back = pi::unit_traits<Module, Function>::replace_units(m, slots);
  CHECK(print(back) == print(m));
  // After FuseOps the fused groups are Primitive functions inside main, not module
  // entries; a module entry that is Primitive is skipped (tested with the flag below).
  static_assert(pi::NestableIR<Module, Function>);
}

TEST_CASE("tinyir nest: each unit pass is followed by InferType on its function, instrumented") {
  std::vector<std::string> events;
  Trace trace{&events};
  auto ctx = pi::make_pass_context<Module>({.opt_level = 3}, std::ref(trace));
  const Module m = parse(R"(
def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  add(%x, %x)
}
def @g(%y: Tensor[(2), float32]) -> Tensor[(2), float32] {
  multiply(%y, %y)
}
)",
                         "test");
  (void)pi::run(pi::Nest<Function, FoldConstant>{}, m, ctx);
  CHECK(events == std::vector<std::string>{"before M function", "pipeline @main", "before main FoldConstant",
                                           "before main InferType", "pipeline @g", "before g FoldConstant",
                                           "before g InferType"});
}

TEST_CASE("tinyir nest: ResNet-18 x 8 functions: serial, parallel and the module-level passes print the same") {
  const Module input = resnet18_x8();
  auto serial_ctx = pi::make_pass_context<Module>({.opt_level = 3});
  const std::string serial = print(pi::run(Nested{}, input, serial_ctx));

  pi::ThreadPool pool(2);
  auto parallel_ctx = pi::make_pass_context<Module>({.opt_level = 3, .executor = pool});
  const std::string parallel = print(pi::run(Nested{}, resnet18_x8(), parallel_ctx));

  auto flat_ctx = pi::make_pass_context<Module>({.opt_level = 3});
  const std::string flat = print(pi::run(Flat{}, resnet18_x8(), flat_ctx));

  CHECK(serial == parallel);
  CHECK(serial == flat);
  CHECK(serial.find("def @f7") != std::string::npos);
  CHECK(serial.find("Primitive=1") != std::string::npos);  // FuseOps ran on every function
  CHECK(serial != print(input));
}

TEST_CASE("tinyir nest: the text function(...) runs as the flat pipeline; serial, parallel and printed back") {
  pi::PassRegistry<Module> registry;
  pi::PassRegistry<Function> functions;
  register_passes(registry, functions);
  CHECK(registry.contains_nest("function"));
  CHECK(functions.names() == std::vector<std::string>{"CanonicalizeOps", "ConvertLayout", "DeadCodeElimination",
                                                      "DefuseOps", "EliminateCommonSubexpr", "FoldConstant", "FuseOps",
                                                      "InferType"});
  const std::string text = "sequential(InferType,function(FoldConstant,EliminateCommonSubexpr),FuseOps)";
  const auto nested = pi::parse_pipeline<Module>(text, registry);
  CHECK(pi::print_pipeline(nested) == text);
  const auto flat =
      pi::parse_pipeline<Module>("sequential(InferType,FoldConstant,EliminateCommonSubexpr,FuseOps)", registry);
  pi::PassContext<Module> flat_ctx(pi::PassContextOptions{.opt_level = 3});
  const std::string expected = print(flat(resnet18_x8(), flat_ctx));
  pi::PassContext<Module> serial_ctx(pi::PassContextOptions{.opt_level = 3});
  CHECK(print(nested(resnet18_x8(), serial_ctx)) == expected);
  pi::ThreadPool pool(2);
  pi::PassContext<Module> parallel_ctx(pi::PassContextOptions{.opt_level = 3, .executor = pool});
  CHECK(print(nested(resnet18_x8(), parallel_ctx)) == expected);
  CHECK(expected.find("Primitive=1") != std::string::npos);
  // Statistics see through the nest: FoldConstant's counter.
  const auto fold = pi::parse_pipeline<Module>("function(FoldConstant)", registry);
  const Module small = parse(R"(
def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  add(%x, multiply(2f, 3f))
}
)",
                             "test");
  CHECK(print(fold(small, serial_ctx)).find("add(%x, 6f)") != std::string::npos);
  const auto stats = pi::collect_statistics(fold);
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].pass == "FoldConstant");
  REQUIRE(stats[0].statistics.size() == 1);
  CHECK(stats[0].statistics[0].name == "folded");
  CHECK(stats[0].statistics[0].value == 1);
  // The function passes, with options, inside the nest.
  CHECK(pi::print_pipeline(pi::parse_pipeline<Module>("function(serial=true,FuseOps(fuse_opt_level=0))", registry)) ==
        "function(serial=true,FuseOps(fuse_opt_level=0))");
  // Passes of the wrong level (SPEC §11.11).
  CHECK_THROWS_WITH_AS(pi::parse_pipeline<Module>("sequential(InferType,function(ToANormalForm))", registry),
                       "passinfra: pipeline text, column 31: 'ToANormalForm' is not a function pass\n"
                       "  sequential(InferType,function(ToANormalForm))\n"
                       "                                ^",
                       pi::Error);
  pi::PassRegistry<Module> modules_only;
  modules_only.add<InferType>();
  modules_only.add_nest<Function>(functions);
  CHECK_THROWS_WITH_AS(pi::parse_pipeline<Module>("sequential(InferType,CanonicalizeOps)", modules_only),
                       "passinfra: pipeline text, column 22: 'CanonicalizeOps' is a function pass: nest it, as "
                       "function(CanonicalizeOps)\n"
                       "  sequential(InferType,CanonicalizeOps)\n"
                       "                       ^",
                       pi::Error);
}

namespace {

// Records the analysis events and the unit passes' after hooks.
struct AnalysisTrace {
  std::vector<std::string>* out;
  static std::string text(const pi::AnalysisInfo& i) {
    return std::string(i.name) + (i.function.empty() ? "" : " " + std::string(i.function));  // the key: "@f"
  }
  void run_before_analysis(const Module&, const pi::AnalysisInfo& i) { out->push_back("compute " + text(i)); }
  void run_analysis_invalidated(const pi::AnalysisInfo& i) { out->push_back("drop " + text(i)); }
  // (A unit pass's output may be a new function, not yet in a module: no global name.)
  void run_after_pass(const Function&, const pi::PassInfo& i) { out->push_back("after " + std::string(i.name)); }
  void run_after_pass(const Module&, const pi::PassInfo& i) { out->push_back("after M " + std::string(i.name)); }
};

}  // namespace

TEST_CASE("tinyir nest: DeadCodeElimination in a nest reads its function's Liveness through ctx.analyses()") {
  const std::string text = R"(
def @f(%x: Tensor[(2), float32]) {
  let %a = add(%x, %x);
  let %b = multiply(%a, %a);
  let %c = nn.relu(%x);
  %c
}
def @g(%y: Tensor[(2), float32]) {
  nn.relu(%y)
}
)";
  std::vector<std::string> events;
  AnalysisTrace trace{&events};
  pi::AnalysisManager<Module, pi::analyses<Liveness, CallGraph>> am;
  auto ctx = pi::make_pass_context<Module>({.opt_level = 3}, am, std::ref(trace));
  const Module m = parse(text, "test");
  (void)am.get<CallGraph>(m);  // a module result, cached before the nest
  const Module out = pi::run(pi::Nest<Function, DeadCodeElimination>{}, m, ctx);
  // Without a manager the pass computes liveness itself: the same module.
  auto plain = pi::make_pass_context<Module>({.opt_level = 3});
  CHECK(print(out) == print(pi::run(pi::Nest<Function, DeadCodeElimination>{}, m, plain)));
  CHECK(print(out).find("multiply") == std::string::npos);
  // Per unit: Liveness computed through the module's manager, dropped after the pass (which
  // keeps nothing) before its run_after_pass; CallGraph dropped once, after the units.
  const std::vector<std::string> expected{"compute Liveness @f", "drop Liveness @f", "after DeadCodeElimination",
                                          "compute Liveness @g", "drop Liveness @g", "after DeadCodeElimination",
                                          "drop CallGraph",      "after M function"};
  std::vector<std::string> seen;
  for (const auto& e : events) {
    if (e.find("InferType") == std::string::npos && e.find("FunctionTypes") == std::string::npos) seen.push_back(e);
  }
  CHECK(seen == expected);
  CHECK(am.empty());
}
