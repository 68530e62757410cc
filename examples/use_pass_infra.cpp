// use_pass_infra: TVM's tutorial "How to Use TVM Pass Infra", step by step, on tinyir.
//
// The tutorial applies passes to a small Relay program by hand, then through a
// Sequential under PassContexts with different opt_levels and disabled passes,
// writes a custom function pass, and debugs a pipeline with the PrintIR pass and
// an instrument printing every pass before it runs. Here the program is
// tinyir::example(), the passes are tinyir's (tinyir/passes.hpp), and the
// contexts are passinfra::PassContext<tinyir::Module> -- the dynamic context that
// current() returns, like Python's `with tvm.transform.PassContext(...)`.
//
// Modules print with `/* ty=... */` wherever type inference has run, as Relay's do.
//
// The `// [tag]` lines mark the regions docs/tutorial_pass_infra.md quotes;
// scripts/check_docs.sh (ctest docs.check) keeps the two identical.
// [setup]
#include <iostream>
#include <string>

#include <passinfra/passinfra.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"
#include "tutorial.hpp"

namespace {

using tinyir::Module;
using Context = passinfra::PassContext<Module>;

void show(const Module& mod) { std::cout << tinyir::print(mod, {.show_types = true}); }
// [setup]

// [print-ir-instrument]
// The tutorial's PrintIR instrument: "Print the name of the pass, the IR, only
// before passes execute."
struct PrintIRBefore {
  std::string_view name() const { return "PrintIR"; }
  void run_before_pass(const Module& mod, const passinfra::PassInfo& info) {
    std::cout << "Running pass: " << info;
    show(mod);
  }
};
// [print-ir-instrument]

}  // namespace

int main() {
  // [log-lines]
  // PrintIR (the pass) writes the module to the log at INFO; show it.
  tutorial::LogLines log_lines(std::cout);
  // [log-lines]

  tutorial::section("Create An Example Relay Program");
  // [example]
  Module mod = tinyir::example();
  show(mod);
  // [example]

  tutorial::section("Manually Apply Optimization Passes");
  // [manual]
  // Constant folding works at the function level: every function of the module
  // is folded, then InferType runs (the FunctionPass follow-up).
  tinyir::FoldConstant fold_const;
  mod = fold_const(mod);
  show(mod);

  // Eliminate the common expressions used by `z` and `z1`.
  mod = tinyir::EliminateCommonSubexpr{}(mod);
  show(mod);

  // fuse_opt_level 0: no operators are fused; each is its own Primitive function.
  mod = tinyir::FuseOps{0}(mod);
  show(mod);
  // [manual]

  tutorial::section("Use Sequential to Apply a Sequence of Passes");
  // [sequential]
  mod = tinyir::example();
  passinfra::Sequential seq{tinyir::FoldConstant{}, tinyir::EliminateCommonSubexpr{}, tinyir::FuseOps{2}};
  // At the default opt_level 2, EliminateCommonSubexpr (opt_level 3) is skipped:
  // the two identical additions stay.
  Module mod1 = seq(mod);
  show(mod1);
  // [sequential]

  // [opt-level-3]
  // At opt_level 3 it runs (after InferType, which it requires): one addition is kept.
  Module mod2;
  {
    Context ctx({.opt_level = 3});
    auto scope = ctx.enter();
    mod2 = seq(mod);
  }
  show(mod2);
  // [opt-level-3]

  // [disabled]
  // disabled_pass, like -fno-xxx: the two identical additions are back.
  Context no_cse({.opt_level = 3, .disabled_pass = {"EliminateCommonSubexpr"}});
  Module mod3 = no_cse.with([&] { return seq(mod); });
  show(mod3);
  // [disabled]

  tutorial::section("Implement a Pass Using a Lambda");
  // [custom-pass]
  // The tutorial's CustomPipeline (a function pass at opt_level 1): every constant
  // c becomes multiply(3f, c). A function pass runs InferType after it, as Relay's do.
  const float multiplier = 3.0f;
  auto custom_pass = passinfra::function_pass(
      {"CustomPipeline", 1},
      [multiplier](const tinyir::Function& fn, const Module&) { return tinyir::multiply_constants(fn, multiplier); });
  std::cout << "custom_pass.info().name == \"" << custom_pass.info().name << "\"\n";
  if (custom_pass.info().name != "CustomPipeline") return 1;
  mod = tinyir::example();
  Module mod4 = custom_pass(mod);
  show(mod4);
  // [custom-pass]

  tutorial::section("Debug a Pass");
  // [debug]
  // PrintIR after FoldConstant dumps the module (to the log, at INFO) once
  // FoldConstant is done; the PrintIRBefore instrument prints every pass and its
  // input before it runs (FuseOps() fuses at the context's opt_level, 3).
  mod = tinyir::example();
  passinfra::Sequential debug_seq{tinyir::FoldConstant{}, tinyir::PrintIR{}, tinyir::EliminateCommonSubexpr{},
                                  tinyir::FuseOps{}};
  PrintIRBefore print_ir;
  {
    Context ctx({.opt_level = 3}, {passinfra::AnyInstrument<Module>(std::ref(print_ir))});
    auto scope = ctx.enter();
    mod = debug_seq(mod);
  }
  show(mod);
  // [debug]
  std::cout << "done\n";
  return 0;
}
