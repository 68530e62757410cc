// benchmarks/resnet_workload.cpp — the share of a real pipeline's run time
// that passinfra itself takes: tinyir's ResNet-18 through a Relay-like -O3
// Sequential, measured by subtraction against hand-written calls of the same
// pass bodies (callgrind instructions; callgrind_driver.hpp has the protocol,
// benchmarks/report.sh prints the table).
//
// The pipeline (opt_level 3), as a static Sequential:
//   InferType, FoldConstant, EliminateCommonSubexpr, CanonicalizeOps,
//   ConvertLayout({nn.conv2d: NHWC}), FoldConstant, DeadCodeElimination, FuseOps
// with SPEC §4's extra runs: required passes first (InferType before
// EliminateCommonSubexpr, CanonicalizeOps and FuseOps; InferType and
// CanonicalizeOps before ConvertLayout) and, as in Relay, an InferType after
// every function pass -- 21 pass runs, plus the Sequential's own.
//
// Variants (each is one run of the whole pipeline on a copy of the module):
//   resnet_hand          the same tinyir functions called by hand, in the same order
//   resnet_none          the Sequential, static context with InstrumentSet<>
//   resnet_timing        ... with PassTimingInstrument
//   resnet_hand_differ   hand-written, calling the call-node differ's hooks by hand
//   resnet_differ        the Sequential with the call-node differ (TVM's tutorial instrument)
//   resnet_dyn_timing    DynamicSequential of AnyPass under PassContext<Module> with
//                        AnyInstrument(PassTimingInstrument)
// passinfra's share = (Ir(variant) - Ir(its hand-written twin)) / Ir(variant);
// the timing instrument counts as passinfra, the differ's own work does not.
// The weights are shape-only constants (resnet18(true)), so no pass spends
// its time copying tensor data: the pass bodies are IR walks, which makes the
// denominator small and the share an upper bound. At start-up the program
// checks that every variant prints the same module as the hand-written one.
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/passinfra.hpp>

#include "callgrind_driver.hpp"
#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

namespace {

using passinfra::PassInfo;
using tinyir::Module;

// TVM's tutorial instrument (examples/use_pass_instrument.cpp has the
// commented original): the change in the number of calls of each operator
// caused by each pass, kept on a stack because passes nest.
class CallNodeDiffer {
 public:
  using OpCounts = std::map<std::string, long>;

  void run_before_pass(const Module& mod, const PassInfo& info) {
    stack_.emplace_back(std::string(info.name), count(mod));
  }
  void run_after_pass(const Module& mod, const PassInfo& info) {
    auto [name, before] = std::move(stack_.back());
    stack_.pop_back();
    if (name != info.name) throw std::logic_error("CallNodeDiffer: " + name + " != " + std::string(info.name));
    OpCounts after = count(mod);
    OpCounts diff;
    for (const auto& [op, n] : after) {
      const auto it = before.find(op);
      const long d = n - (it == before.end() ? 0 : it->second);
      if (d != 0) diff[op] = d;
    }
    for (const auto& [op, n] : before) {
      if (!after.contains(op)) diff[op] = -n;
    }
    if (!diff.empty()) diffs_.push_back({stack_.size(), std::string(info.name), std::move(diff)});
  }

  std::size_t size() const { return diffs_.size(); }
  void clear() { diffs_.clear(); }

 private:
  static OpCounts count(const Module& mod) {
    OpCounts out;
    for (const auto& [op, n] : tinyir::count_calls(mod.main())) out[op] = static_cast<long>(n);
    return out;
  }
  struct Diff {
    std::size_t depth;
    std::string pass;
    OpCounts diff;
  };
  std::vector<Diff> diffs_;
  std::vector<std::pair<std::string, OpCounts>> stack_;
};

const tinyir::DesiredLayouts& nhwc() {
  static const tinyir::DesiredLayouts layouts{{"nn.conv2d", {"NHWC", "default"}}};
  return layouts;
}

using Pipeline = passinfra::Sequential<tinyir::InferType, tinyir::FoldConstant, tinyir::EliminateCommonSubexpr,
                                       tinyir::CanonicalizeOps, tinyir::ConvertLayout, tinyir::FoldConstant,
                                       tinyir::DeadCodeElimination, tinyir::FuseOps>;
const Pipeline& pipeline() {
  static const Pipeline p(tinyir::InferType{}, tinyir::FoldConstant{}, tinyir::EliminateCommonSubexpr{},
                          tinyir::CanonicalizeOps{}, tinyir::ConvertLayout(nhwc()), tinyir::FoldConstant{},
                          tinyir::DeadCodeElimination{}, tinyir::FuseOps{});
  return p;
}

// The hand-written pipeline. Hooks h.before(m, info) / h.after(m, info)
// stand where passinfra would call instruments (nothing for NoHooks).
struct NoHooks {
  void before(const Module&, const PassInfo&) {}
  void after(const Module&, const PassInfo&) {}
};
struct DifferHooks {
  CallNodeDiffer* differ;
  void before(const Module& m, const PassInfo& info) { differ->run_before_pass(m, info); }
  void after(const Module& m, const PassInfo& info) { differ->run_after_pass(m, info); }
};

constexpr PassInfo sequential_info{"sequential", 0};

template <class Hooks, class F>
Module step(Hooks& h, const PassInfo& info, Module m, F&& f) {
  h.before(m, info);
  m = f(std::move(m));
  h.after(m, info);
  return m;
}
template <class Hooks>
Module infer(Hooks& h, Module m) {
  return step(h, tinyir::InferType::info, std::move(m), [](Module x) { return tinyir::infer_types(std::move(x)); });
}
// A function pass: map the functions, then the follow-up InferType (nested).
template <class Hooks, class F>
Module function_pass(Hooks& h, const PassInfo& info, Module m, F f) {
  return step(h, info, std::move(m), [&](Module x) {
    x = passinfra::ir_traits<Module>::map_functions(std::move(x), f);
    return infer(h, std::move(x));
  });
}

template <class Hooks>
Module hand_pipeline(Hooks& h, Module m) {
  using namespace tinyir;
  return step(h, sequential_info, std::move(m), [&](Module x) {
    x = infer(h, std::move(x));
    x = function_pass(h, FoldConstant::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return fold_constant(fn, mod); });
    x = infer(h, std::move(x));  // required by EliminateCommonSubexpr
    x = function_pass(h, EliminateCommonSubexpr::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return eliminate_common_subexpr(fn, mod); });
    x = infer(h, std::move(x));  // required by CanonicalizeOps
    x = function_pass(h, CanonicalizeOps::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return canonicalize_ops(fn, mod); });
    x = infer(h, std::move(x));  // required by ConvertLayout: InferType, CanonicalizeOps
    x = function_pass(h, CanonicalizeOps::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return canonicalize_ops(fn, mod); });
    x = function_pass(h, ConvertLayout::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return convert_layout(fn, mod, nhwc()); });
    x = function_pass(h, FoldConstant::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return fold_constant(fn, mod); });
    x = function_pass(h, DeadCodeElimination::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return dead_code_elimination(fn, mod); });
    x = infer(h, std::move(x));  // required by FuseOps
    x = function_pass(h, FuseOps::info, std::move(x),
                      [](const Function& fn, const Module& mod) { return fuse_ops(fn, mod, 3); });
    return x;
  });
}

const Module& input() {
  static const Module m = tinyir::resnet18(/*bind_params=*/true);
  return m;
}

passinfra::PassTimingInstrument timing;
passinfra::PassTimingInstrument dyn_timing;
CallNodeDiffer differ;
CallNodeDiffer hand_differ;

auto ctx_none = passinfra::make_pass_context<Module>({.opt_level = 3});
auto ctx_timing = passinfra::make_pass_context<Module>({.opt_level = 3}, std::ref(timing));
auto ctx_differ = passinfra::make_pass_context<Module>({.opt_level = 3}, std::ref(differ));

passinfra::PassContext<Module>& dyn_ctx() {
  static passinfra::PassContext<Module> ctx({.opt_level = 3}, {passinfra::AnyInstrument<Module>(std::ref(dyn_timing))});
  return ctx;
}
const passinfra::DynamicSequential<Module>& dyn_pipeline() {
  static const passinfra::DynamicSequential<Module> seq{tinyir::InferType{},
                                                        tinyir::FoldConstant{},
                                                        tinyir::EliminateCommonSubexpr{},
                                                        tinyir::CanonicalizeOps{},
                                                        tinyir::ConvertLayout(nhwc()),
                                                        tinyir::FoldConstant{},
                                                        tinyir::DeadCodeElimination{},
                                                        tinyir::FuseOps{}};
  return seq;
}

long size_of(const Module& m) { return static_cast<long>(tinyir::print(m).size()); }
long calls_in(const Module& m) {
  long n = 0;
  for (const auto& [op, count] : tinyir::count_calls(m.main())) n += static_cast<long>(count);
  return n;
}

void reset() {
  timing.clear();
  dyn_timing.clear();
  differ.clear();
  hand_differ.clear();
}

}  // namespace

PASSINFRA_BENCH_VARIANT long v_resnet_hand_0(long) {
  NoHooks h;
  return calls_in(hand_pipeline(h, input()));
}
PASSINFRA_BENCH_VARIANT long v_resnet_none_0(long) { return calls_in(passinfra::run(pipeline(), input(), ctx_none)); }
PASSINFRA_BENCH_VARIANT long v_resnet_timing_0(long) {
  return calls_in(passinfra::run(pipeline(), input(), ctx_timing));
}
PASSINFRA_BENCH_VARIANT long v_resnet_hand_differ_0(long) {
  DifferHooks h{&hand_differ};
  return calls_in(hand_pipeline(h, input()));
}
PASSINFRA_BENCH_VARIANT long v_resnet_differ_0(long) {
  return calls_in(passinfra::run(pipeline(), input(), ctx_differ));
}
PASSINFRA_BENCH_VARIANT long v_resnet_dyn_timing_0(long) {
  return calls_in(passinfra::run(dyn_pipeline(), input(), dyn_ctx()));
}

namespace {
const std::vector<bench::Variant> variants = {
    {"resnet_hand", 0, v_resnet_hand_0, "hand-written calls of the same pass bodies", reset},
    {"resnet_none", 0, v_resnet_none_0, "Sequential, InstrumentSet<>", reset},
    {"resnet_timing", 0, v_resnet_timing_0, "Sequential, PassTimingInstrument", reset},
    {"resnet_hand_differ", 0, v_resnet_hand_differ_0, "hand-written + call-node differ hooks by hand", reset},
    {"resnet_differ", 0, v_resnet_differ_0, "Sequential, call-node differ instrument", reset},
    {"resnet_dyn_timing", 0, v_resnet_dyn_timing_0, "DynamicSequential, AnyInstrument(PassTimingInstrument)", reset},
};

// The variants must do the same work: same output, same number of pass runs.
int check() {
  NoHooks none;
  const Module expected = hand_pipeline(none, input());
  const std::string text = tinyir::print(expected);
  const Module outputs[] = {
      passinfra::run(pipeline(), input(), ctx_none), passinfra::run(pipeline(), input(), ctx_timing),
      passinfra::run(pipeline(), input(), ctx_differ), passinfra::run(dyn_pipeline(), input(), dyn_ctx())};
  for (const Module& m : outputs) {
    if (tinyir::print(m) != text) {
      std::fprintf(stderr, "resnet_workload: a pipeline variant differs from the hand-written one\n");
      return 1;
    }
  }
  DifferHooks by_hand{&hand_differ};
  (void)hand_pipeline(by_hand, input());
  if (differ.size() != hand_differ.size() || differ.size() == 0) {
    std::fprintf(stderr, "resnet_workload: the differ saw %zu changes through passinfra, %zu by hand\n", differ.size(),
                 hand_differ.size());
    return 1;
  }
  std::size_t entries = 0;
  const auto count = [&](auto& self, const passinfra::PassProfile& p) -> void {
    ++entries;
    for (const auto& c : p.children) self(self, c);
  };
  for (const auto& p : timing.profile()) count(count, p);
  if (entries != 21 + 1) {  // 21 pass runs + the Sequential
    std::fprintf(stderr, "resnet_workload: timing recorded %zu runs; expected 22\n", entries);
    return 1;
  }
  reset();
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::string_view(argv[i]) == "--list";
  if (!listing) {
    if (const int bad = check()) return bad;
    std::fprintf(stderr, "resnet_workload: %ld bytes of printed module after the pipeline; all variants agree\n",
                 size_of(passinfra::run(pipeline(), input(), ctx_none)));
  }
  return bench::run_variants(argc, argv, variants);
}
