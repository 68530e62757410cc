// benchmarks/opt_main_input.cpp — prints tinyir's ResNet-18 (bound constants)
// as text, the input benchmarks/opt_main_startup.sh runs tinyir-opt on.
#include <cstdio>

#include "tinyir/printer.hpp"
#include "tinyir/workloads.hpp"

int main() {
  const std::string text = tinyir::print(tinyir::resnet18(/*bind_params=*/true));
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
