// benchmarks/opt_main_bench.cpp — what opt_main adds to a run (DESIGN's
// driver targets: overhead on the ResNet-18 text <= 2 ms and <= 5% of the
// run). Google Benchmark, wall time, medians of 10 repetitions:
//
//   BM_ResNet18_ByHand    parse the ResNet-18 text (bound constants), run
//                         sequential(InferType,FoldConstant) under a PassContext,
//                         print: the work itself, no driver
//   BM_ResNet18_ByHandVerified   the same with tinyir::verify on the input and
//                         the output, the checks opt_main makes by default (as
//                         LLVM's opt runs its verifier; --no-verify skips them)
//   BM_ResNet18_OptMain   the same through opt_main (-o - into a string): the
//                         command line, the registry's pipeline text, the
//                         instrument list (a failure recorder), the output check
//   BM_ResNet18_OptMainNoVerify  opt_main --no-verify: compare with ByHand
//   BM_ResNet18_Verify    tinyir's structural verify of the module, once
//   BM_OptMain_Version    opt_main --version: the in-process part of start-up
//
// Driver overhead = OptMain - ByHandVerified = OptMainNoVerify - ByHand; the
// process start-up (exec, dynamic loading) is benchmarks/opt_main_startup.sh's.
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>
#include <vector>

#include <passinfra/tool/opt_main.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/workloads.hpp"

namespace {

using tinyir::Module;

const std::string& resnet_text() {
  static const std::string text = tinyir::print(tinyir::resnet18(/*bind_params=*/true));
  return text;
}

passinfra::PassRegistry<Module>& registry() {
  static passinfra::PassRegistry<Module> r;
  static const bool once = (tinyir::register_passes(r), true);
  (void)once;
  return r;
}

int run_opt_main(const std::vector<std::string>& args, const std::string& input, std::string& output) {
  std::istringstream in(input);
  std::ostringstream out;
  std::ostringstream err;
  const int code = passinfra::opt_main<Module>(args, registry(), {.tool_name = "tinyir-opt"}, {in, out, err});
  output = out.str();
  return code;
}

void BM_ResNet18_ByHand(benchmark::State& state) {
  const auto pipeline = passinfra::parse_pipeline<Module>("sequential(InferType,FoldConstant)", registry());
  for (auto _ : state) {
    Module m = tinyir::parse(resnet_text(), "<stdin>");
    passinfra::PassContext<Module> ctx;
    m = ctx.with([&] { return passinfra::run(pipeline, std::move(m), ctx); });
    std::string printed = tinyir::print(m);
    benchmark::DoNotOptimize(printed);
  }
}
BENCHMARK(BM_ResNet18_ByHand)->Unit(benchmark::kMillisecond)->Repetitions(10)->ReportAggregatesOnly(true);

void BM_ResNet18_ByHandVerified(benchmark::State& state) {
  const auto pipeline = passinfra::parse_pipeline<Module>("sequential(InferType,FoldConstant)", registry());
  for (auto _ : state) {
    Module m = tinyir::parse(resnet_text(), "<stdin>");
    if (tinyir::verify(m)) state.SkipWithError("invalid input");
    passinfra::PassContext<Module> ctx;
    m = ctx.with([&] { return passinfra::run(pipeline, std::move(m), ctx); });
    if (tinyir::verify(m)) state.SkipWithError("invalid output");
    std::string printed = tinyir::print(m);
    benchmark::DoNotOptimize(printed);
  }
}
BENCHMARK(BM_ResNet18_ByHandVerified)->Unit(benchmark::kMillisecond)->Repetitions(10)->ReportAggregatesOnly(true);

void BM_ResNet18_OptMainNoVerify(benchmark::State& state) {
  const std::vector<std::string> args{"--passes=InferType,FoldConstant", "--no-verify", "-"};
  std::string output;
  for (auto _ : state) {
    if (run_opt_main(args, resnet_text(), output) != 0) state.SkipWithError("opt_main failed");
    benchmark::DoNotOptimize(output);
  }
}
BENCHMARK(BM_ResNet18_OptMainNoVerify)->Unit(benchmark::kMillisecond)->Repetitions(10)->ReportAggregatesOnly(true);

void BM_ResNet18_OptMain(benchmark::State& state) {
  const std::vector<std::string> args{"--passes=InferType,FoldConstant", "-"};
  std::string output;
  for (auto _ : state) {
    if (run_opt_main(args, resnet_text(), output) != 0) state.SkipWithError("opt_main failed");
    benchmark::DoNotOptimize(output);
  }
}
BENCHMARK(BM_ResNet18_OptMain)->Unit(benchmark::kMillisecond)->Repetitions(10)->ReportAggregatesOnly(true);

void BM_ResNet18_Verify(benchmark::State& state) {
  const Module m = tinyir::parse(resnet_text(), "<stdin>");
  for (auto _ : state) {
    auto problem = tinyir::verify(m);
    benchmark::DoNotOptimize(problem);
  }
}
BENCHMARK(BM_ResNet18_Verify)->Unit(benchmark::kMillisecond)->Repetitions(10)->ReportAggregatesOnly(true);

void BM_OptMain_Version(benchmark::State& state) {
  const std::vector<std::string> args{"--version"};
  std::string output;
  for (auto _ : state) {
    run_opt_main(args, "", output);
    benchmark::DoNotOptimize(output);
  }
}
BENCHMARK(BM_OptMain_Version)->Unit(benchmark::kMicrosecond)->Repetitions(10)->ReportAggregatesOnly(true);

}  // namespace
