// tinyir-opt: passinfra's opt driver over tinyir (SPEC §12.8). This is the whole
// program: register the passes, hand main's arguments to opt_main. Try
//   tinyir-opt --help
//   tinyir-opt --passes=InferType,FoldConstant --print-changed=diff in.tir
#include <passinfra/tool/opt_main.hpp>

#include "tinyir/passes.hpp"

int main(int argc, char** argv) {
  auto& registry = passinfra::PassRegistry<tinyir::Module>::global();
  tinyir::register_passes(registry);
  return passinfra::opt_main<tinyir::Module>(argc, argv, registry,
                                             {.tool_name = "tinyir-opt", .overview = "tinyir optimizer driver"});
}
