// examples/use_nesting.cpp — nests (docs/spec.md §11): a pipeline over each
// function of a module, serially and in parallel, with the events an
// instrument sees, a thread-safe instrument, a failing unit, and the same
// nest as pipeline text.
// docs/tutorial_nesting.md walks through it; its output is
// examples/golden/use_nesting.stdout.
#include <atomic>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <passinfra/passinfra.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/printer.hpp"
#include "tinyir/workloads.hpp"

namespace pi = passinfra;
using tinyir::Function;
using tinyir::Module;

namespace {

constexpr const char* kProgram = R"(
def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  add(%x, multiply(2f, 3f))
}
def @scale(%y: Tensor[(2), float32]) -> Tensor[(2), float32] {
  multiply(add(%y, %y), add(%y, %y))
}
)";

// [event-printer]
// Prints the hooks it sees, indented by nesting: the module's passes, the
// pipeline of each unit, and the unit's passes (the same hook names, with a
// Function instead of a Module).
struct EventPrinter {
  int depth = 0;
  void line(const std::string& s) const {
    std::cout << std::string(2 * static_cast<std::size_t>(depth), ' ') << s << '\n';
  }
  void run_before_pass(const Module&, const pi::PassInfo& info) { line("before " + std::string(info.name)), ++depth; }
  void run_after_pass(const Module&, const pi::PassInfo& info) { --depth, line("after " + std::string(info.name)); }
  void run_before_pass(const Function&, const pi::PassInfo& info) { line("before " + std::string(info.name)), ++depth; }
  void run_after_pass(const Function&, const pi::PassInfo& info) { --depth, line("after " + std::string(info.name)); }
  void run_before_pipeline(const Function&, const pi::PipelineInfo& p) {
    line("unit " + std::string(p.unit_name) + " (" + std::to_string(p.unit_index + 1) + " of " +
         std::to_string(p.unit_count) + ")"),
        ++depth;
  }
  void run_after_pipeline(const Function&, const pi::PipelineInfo&) { --depth; }
};
// [event-printer]

// [thread-safe]
// Counts the passes run on functions. Its hooks may be called from several
// threads at once, and it says so: a nest under a context holding it may run
// in parallel. (An instrument that says nothing is taken as not thread-safe.)
struct UnitPassCounter {
  static constexpr bool thread_safe = true;
  std::atomic<int> passes{0};
  void run_after_pass(const Function&, const pi::PassInfo&) { ++passes; }
};
// [thread-safe]

// The same counter without the declaration.
struct NotDeclared {
  std::string name = "NotDeclared";  // how log lines name it
  int passes = 0;
  void run_after_pass(const Function&, const pi::PassInfo&) { ++passes; }
};

// A unit pass that fails on one function.
struct FailsOnScale {
  static constexpr pi::PassInfo info{"FailsOnScale", 0};
  Function transform(Function fn, auto& ctx) const {
    if (ctx.unit_name() == "@scale")
      throw std::runtime_error("FailsOnScale: cannot handle " + std::string(ctx.unit_name()));
    return fn;
  }
};

Module resnet18_x8() {
  std::vector<Module::Entry> entries;
  for (int i = 0; i < 8; ++i) entries.emplace_back("f" + std::to_string(i), tinyir::resnet18(true).main());
  return Module(std::move(entries));
}

}  // namespace

int main() {
  const Module program = tinyir::parse(kProgram, "example");

  std::cout << "== 1. A nest over the functions, serially\n";
  // [nest]
  using FunctionOpts = pi::Nest<Function, tinyir::FoldConstant, tinyir::EliminateCommonSubexpr>;
  const pi::Sequential<tinyir::InferType, FunctionOpts> pipeline;
  // [nest]
  EventPrinter printer;
  auto ctx = pi::make_pass_context<Module>({.opt_level = 3}, std::ref(printer));
  const Module out = pi::run(pipeline, program, ctx);
  std::cout << tinyir::print(out);

  std::cout << "\n== 2. The same nest in parallel: ResNet-18 in 8 functions\n";
  // [parallel]
  pi::ThreadPool pool(2);  // two workers; the calling thread takes units too
  UnitPassCounter counter;
  const auto parallel_ctx = [&] {
    return pi::make_pass_context<Module>({.opt_level = 3, .executor = pool}, std::ref(counter));
  };
  using Optimize =
      pi::Sequential<tinyir::InferType, pi::Nest<Function, tinyir::FoldConstant, tinyir::EliminateCommonSubexpr,
                                                 tinyir::DeadCodeElimination, tinyir::FuseOps>>;
  auto pctx = parallel_ctx();
  const std::string parallel = tinyir::print(pi::run(Optimize{}, resnet18_x8(), pctx));
  // [parallel]
  auto sctx = pi::make_pass_context<Module>({.opt_level = 3});
  const std::string serial = tinyir::print(pi::run(Optimize{}, resnet18_x8(), sctx));
  // Per function: the 4 passes, the InferType after each, and the InferType that
  // EliminateCommonSubexpr and FuseOps require (run before them, as in a Sequential).
  std::cout << "functions: 8, unit passes run: " << counter.passes << " (10 per function)\n";
  std::cout << "parallel output == serial output: " << (parallel == serial ? "yes" : "NO") << '\n';

  std::cout << "\n== 3. An instrument that is not thread-safe makes the nest serial\n";
  // [log]
  const pi::ScopedLogSink log_to_stdout([](pi::LogLevel level, std::string_view message) {
    if (level >= pi::LogLevel::info) std::cout << "[log] " << message << '\n';
  });
  // [log]
  NotDeclared plain;
  auto unsafe_ctx = pi::make_pass_context<Module>({.opt_level = 3, .executor = pool}, std::ref(plain));
  (void)pi::run(FunctionOpts{}, program, unsafe_ctx);
  std::cout << "unit passes seen: " << plain.passes << '\n';

  std::cout << "\n== 4. A failing unit, in parallel\n";
  auto fail_ctx = pi::make_pass_context<Module>({.executor = pool});
  try {
    (void)pi::run(pi::Nest<Function, FailsOnScale>{}, program, fail_ctx);
  } catch (const std::runtime_error& e) {
    std::cout << "caught: " << e.what() << '\n';
  }

  std::cout << "\n== 5. The nest as pipeline text\n";
  // [text]
  pi::PassRegistry<Module> registry;
  tinyir::register_passes(registry);  // tinyir's passes and the nest kind `function`
  const pi::AnyPass<Module> from_text =
      pi::parse_pipeline<Module>("sequential(InferType, function(FoldConstant, EliminateCommonSubexpr))", registry);
  std::cout << pi::print_pipeline(from_text) << '\n';
  try {
    (void)pi::parse_pipeline<Module>("sequential(InferType,function(ToANormalForm))", registry);
  } catch (const pi::Error& e) {
    std::cout << e.what() << '\n';
  }
  // [text]
  auto text_ctx = pi::make_pass_context<Module>({.opt_level = 3});
  const bool same = tinyir::print(pi::run(from_text, program, text_ctx)) == tinyir::print(out);
  std::cout << "text pipeline output == static pipeline output: " << (same ? "yes" : "NO") << '\n';
  return 0;
}
