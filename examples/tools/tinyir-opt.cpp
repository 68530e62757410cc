// tinyir-opt: passinfra's opt driver over tinyir (SPEC §12.8). This is the whole
// program: register the passes and the analyses, hand main's arguments to
// opt_main. Try
//   tinyir-opt --help
//   tinyir-opt --passes=InferType,FoldConstant --print-changed=diff in.tir
//   tinyir-opt --passes='require(analysis="CallGraph"),FuseOps' --time-passes --verify-analyses in.tir
#include <passinfra/tool/opt_main.hpp>

#include "tinyir/passes.hpp"

int main(int argc, char** argv) {
  auto& registry = passinfra::PassRegistry<tinyir::Module>::global();
  tinyir::register_passes(registry);
  // The analyses pipeline text can name (SPEC §10.9): require(analysis="CallGraph"), ...
  registry.add_analysis<tinyir::CallGraph>("what each global function calls");
  registry.add_analysis<tinyir::FunctionTypes>("the types of one function's nodes");
  registry.add_analysis<tinyir::Liveness>("the variables one function uses; its dead let bindings");
  registry.add_analysis<tinyir::TypeMap>("the type of every global function (what InferType produces)");
  return passinfra::opt_main<tinyir::Module>(argc, argv, registry,
                                             {.tool_name = "tinyir-opt", .overview = "tinyir optimizer driver"});
}
