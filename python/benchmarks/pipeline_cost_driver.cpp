// python/benchmarks/pipeline_cost_driver.cpp — the C++ side of pipeline_cost.py.
//
//     pipeline_cost_driver PASS MODULE REPS N...
//
// Builds, for each N, the pipeline passinfra.transform.Sequential builds from
// Python -- a DynamicSequential<tinyir::Module> named "sequential" of N
// registry-created passes PASS, as one AnyPass -- and runs it REPS times on
// MODULE ("empty": tinyir::Module{}, "example": tinyir::example()) under a
// PassContext whose only instrument is a PassTimingInstrument (an
// AnyInstrument, as PassContext(instruments=[PassTimingInstrument()]) makes
// it), the context entered once. Each run is timed alone with
// std::chrono::steady_clock; the instrument's records are cleared between runs,
// outside the timed region. Prints one line per N: "N <N> median_ns <t>".
//
// pipeline_cost.py compiles it with g++ -O2 -DNDEBUG (the flags of the
// extension's RelWithDebInfo build, less -g) against the same headers, as an
// executable (--link exe: what a C++ user builds), or (--link shared) as a
// shared library compiled as the extension is (-fPIC -fvisibility=hidden,
// -DPIPELINE_COST_SHARED: the entry is pipeline_cost_main) run by a stub
// executable built from this file with -DPIPELINE_COST_STUB.
#ifdef PIPELINE_COST_STUB
extern "C" int pipeline_cost_main(int argc, char** argv);
int main(int argc, char** argv) { return pipeline_cost_main(argc, argv); }
#else
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "passinfra/passinfra.hpp"
#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

namespace {

using IR = tinyir::Module;

long parse_count(const char* text, const char* what) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0) {
    std::fprintf(stderr, "pipeline_cost_driver: %s expected a positive integer; got '%s'\n", what, text);
    std::exit(2);
  }
  return value;
}

}  // namespace

#ifdef PIPELINE_COST_SHARED
extern "C" __attribute__((visibility("default"))) int pipeline_cost_main(int argc, char** argv) {
#else
int main(int argc, char** argv) {
#endif
  if (argc < 5) {
    std::fprintf(stderr, "usage: pipeline_cost_driver PASS MODULE(empty|example) REPS N...\n");
    return 2;
  }
  const std::string pass_name = argv[1];
  const std::string module_kind = argv[2];
  const long reps = parse_count(argv[3], "REPS");
  IR module;
  if (module_kind == "example") {
    module = tinyir::example();
  } else if (module_kind != "empty") {
    std::fprintf(stderr, "pipeline_cost_driver: MODULE expected 'empty' or 'example'; got '%s'\n", argv[2]);
    return 2;
  }

  auto& registry = passinfra::PassRegistry<IR>::global();
  tinyir::register_passes(registry);

  auto timing = std::make_shared<passinfra::PassTimingInstrument>();
  std::vector<passinfra::AnyInstrument<IR> > instruments{passinfra::AnyInstrument<IR>(timing)};
  passinfra::PassContext<IR> context(passinfra::PassContextOptions{},
                                     passinfra::DynamicInstruments<IR>(std::move(instruments)));
  auto scope = context.enter();

  for (int a = 4; a < argc; ++a) {
    const long n = parse_count(argv[a], "N");
    std::vector<passinfra::AnyPass<IR> > passes;
    passes.reserve(static_cast<std::size_t>(n));
    try {
      for (long i = 0; i < n; ++i) passes.push_back(registry.create(pass_name));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pipeline_cost_driver: PASS: %s\n", e.what());
      return 2;
    }
    const passinfra::AnyPass<IR> seq(
        passinfra::DynamicSequential<IR>(std::move(passes), passinfra::PassInfo("sequential", 0)));
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(reps));
    for (long r = 0; r < reps; ++r) {
      timing->clear();
      const auto start = std::chrono::steady_clock::now();
      IR out = seq(module);
      const auto stop = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double, std::nano>(stop - start).count());
      if (out.size() != module.size()) {
        std::fprintf(stderr, "pipeline_cost_driver: the pipeline changed the module's function count\n");
        return 1;
      }
    }
    std::sort(times.begin(), times.end());
    const std::size_t mid = times.size() / 2;
    const double median = times.size() % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
    std::printf("N %ld median_ns %.1f\n", n, median);
  }
  timing->clear();
  return 0;
}
#endif  // PIPELINE_COST_STUB
