// Tests of examples/tinyir/passes.hpp: tinyir's passes as passinfra passes.
//
// Each pass on a small input with the expected output text; the infos (names,
// opt_levels, requirements) of Relay; the InferType every function pass runs
// afterwards, seen nested in the events an instrument records; ir_traits; and
// the registry (create by name, options, pipeline text).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/passinfra.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

namespace {

using namespace tinyir;
using Context = passinfra::PassContext<Module>;

Module from_text(std::string_view text) { return parse(text, "test"); }

std::string typed(const Module& m) { return print(m, {.show_types = true}); }

// run(pass, text, opt_level): the pass run through passinfra::run under a fresh context.
template <class P>
Module run_on(const P& pass, std::string_view text, int opt_level = 2) {
  Context ctx({.opt_level = opt_level});
  return passinfra::run(pass, from_text(text), ctx);
}

// Records every pass run as "<name>" indented by its nesting depth.
struct NestingRecorder {
  std::vector<std::string> events;
  std::size_t depth = 0;
  void run_before_pass(const Module&, const passinfra::PassInfo& info) {
    events.push_back(std::string(2 * depth++, ' ') + std::string(info.name));
  }
  void run_after_pass(const Module&, const passinfra::PassInfo&) { --depth; }
};

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// The passes p runs (itself included), as NestingRecorder sees them under a context.
template <class P>
std::string nesting_of(const P& pass, std::string_view text, int opt_level = 3) {
  NestingRecorder recorder;
  Context ctx({.opt_level = opt_level}, {passinfra::AnyInstrument<Module>(std::ref(recorder))});
  ctx.with([&] { return passinfra::run(pass, from_text(text), Context::current()); });
  CHECK(recorder.depth == 0);
  return join(recorder.events);
}

constexpr std::string_view kFoldInput = R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = add(1f, 2f);
  %1 = multiply(%0, 2f);
  add(%x, %1)
}
)IR";

constexpr std::string_view kConvInput =
    R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  add(%1, %x)
}
)IR";

constexpr std::string_view kConvFusedAtLevel3 =
    R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  %2 = fn (%p0: Tensor[(1, 4, 8, 8), float32], %p1: Tensor[(4, 4, 3, 3), float32], Primitive=1) {
    %0 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]) /* ty=Tensor[(1, 4, 8, 8), float32] */;
    %1 = nn.relu(%0) /* ty=Tensor[(1, 4, 8, 8), float32] */;
    add(%1, %p0) /* ty=Tensor[(1, 4, 8, 8), float32] */
  } /* ty=fn (Tensor[(1, 4, 8, 8), float32], Tensor[(4, 4, 3, 3), float32]) -> Tensor[(1, 4, 8, 8), float32] */;
  %2(%x, %w) /* ty=Tensor[(1, 4, 8, 8), float32] */
}
)IR";

constexpr std::string_view kBiasAddInput = R"IR(def @main(%x: Tensor[(1, 4, 2, 2), float32], %b: Tensor[(4), float32]) {
  nn.bias_add(%x, %b)
}
)IR";

}  // namespace

// ------------------------------------------------------------------ infos and ir_traits

TEST_CASE("tinyir passes: names, opt_levels and required passes are Relay's") {
  using passinfra::info_of;
  using passinfra::to_string;
  CHECK(to_string(info_of<InferType>) ==
        "The meta data of the pass - pass name: InferType, opt_level: 0, required passes: []\n");
  CHECK(to_string(info_of<FoldConstant>) ==
        "The meta data of the pass - pass name: FoldConstant, opt_level: 2, required passes: []\n");
  CHECK(to_string(info_of<EliminateCommonSubexpr>) ==
        "The meta data of the pass - pass name: EliminateCommonSubexpr, opt_level: 3, required passes: [\n"
        "InferType, ]\n");
  CHECK(to_string(info_of<DeadCodeElimination>) ==
        "The meta data of the pass - pass name: DeadCodeElimination, opt_level: 1, required passes: []\n");
  CHECK(to_string(info_of<FuseOps>) ==
        "The meta data of the pass - pass name: FuseOps, opt_level: 0, required passes: [\nInferType, ]\n");
  CHECK(to_string(info_of<DefuseOps>) ==
        "The meta data of the pass - pass name: DefuseOps, opt_level: 3, required passes: [\nInferType, ]\n");
  CHECK(to_string(info_of<ToANormalForm>) ==
        "The meta data of the pass - pass name: ToANormalForm, opt_level: 1, required passes: []\n");
  CHECK(to_string(info_of<CanonicalizeOps>) ==
        "The meta data of the pass - pass name: CanonicalizeOps, opt_level: 3, required passes: [\nInferType, ]\n");
  CHECK(to_string(info_of<ConvertLayout>) ==
        "The meta data of the pass - pass name: ConvertLayout, opt_level: 3, required passes: [\n"
        "InferType, CanonicalizeOps, ]\n");
  CHECK(to_string(info_of<BackwardFoldScaleAxis>) ==
        "The meta data of the pass - pass name: BackwardFoldScaleAxis, opt_level: 3, required passes: [\n"
        "InferType, ]\n");
  CHECK(to_string(info_of<ForwardFoldScaleAxis>) ==
        "The meta data of the pass - pass name: ForwardFoldScaleAxis, opt_level: 3, required passes: [\n"
        "InferType, ]\n");
  CHECK(to_string(info_of<FoldScaleAxisSequential>(FoldScaleAxis())) ==
        "The meta data of the pass - pass name: FoldScaleAxis, opt_level: 0, required passes: []\n");
  CHECK(to_string(info_of<AnnotateSpans>) ==
        "The meta data of the pass - pass name: AnnotateSpans, opt_level: 0, required passes: []\n");
  CHECK(to_string(info_of<PrintIR>(PrintIR{})) ==
        "The meta data of the pass - pass name: PrintIR, opt_level: 0, required passes: []\n");
  CHECK(FuseOps{}.fuse_opt_level == -1);
  CHECK(FuseOps{2}.fuse_opt_level == 2);
}

TEST_CASE("tinyir passes: ir_traits maps the non-Primitive functions, prints and parses") {
  using Traits = passinfra::ir_traits<Module>;
  static_assert(passinfra::FunctionIterableIR<Module>);
  static_assert(passinfra::HasFunctionPassFollowUp<Module>);
  static_assert(std::is_same_v<Traits::function_pass_follow_up, InferType>);
  static_assert(passinfra::PrintableIR<Module>);
  static_assert(passinfra::ParsableIR<Module>);

  Module m = from_text(kFoldInput);
  const Var y = make_var("y", tensor_type({2}));
  const Function primitive = make_function({y}, op::relu(y), nullptr, Attrs{{"Primitive", 1}});
  m.update("fused", primitive);
  std::vector<std::string> seen;
  const Module out = Traits::map_functions(m, [&](Function fn, const Module& mod) {
    seen.push_back(mod.functions()[0].first);
    return fold_constant(fn, mod);
  });
  CHECK(seen == std::vector<std::string>{"main"});
  CHECK(out["fused"] == primitive);
  CHECK(print(out["main"]).find("6f") != std::string::npos);

  CHECK(Traits::print(m) == print(m));
  const Module back = Traits::parse(Traits::print(m), "here");
  CHECK(structural_equal(back, m));
  REQUIRE(back.main()->body->span.has_value());
  CHECK(back.main()->body->span->source == "here");
}

// ------------------------------------------------------------------ each pass on a small input

TEST_CASE("tinyir passes: InferType types every node") {
  const Module m = from_text(kFoldInput);
  CHECK_FALSE(has_checked_types(m.main()));
  const Module out = InferType{}(m);
  CHECK(has_checked_types(out.main()));
  CHECK(typed(out) == R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = add(1f, 2f) /* ty=float32 */;
  %1 = multiply(%0, 2f) /* ty=float32 */;
  add(%x, %1) /* ty=Tensor[(2), float32] */
}
)IR");
}

TEST_CASE("tinyir passes: FoldConstant folds and types the result") {
  CHECK(typed(run_on(FoldConstant{}, kFoldInput)) == R"IR(def @main(%x: Tensor[(2), float32]) {
  add(%x, 6f) /* ty=Tensor[(2), float32] */
}
)IR");
}

TEST_CASE("tinyir passes: EliminateCommonSubexpr merges equal calls") {
  CHECK(typed(run_on(EliminateCommonSubexpr{}, R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  add(%0, %1)
}
)IR")) == R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = nn.relu(%x) /* ty=Tensor[(2), float32] */;
  add(%0, %0) /* ty=Tensor[(2), float32] */
}
)IR");
}

TEST_CASE("tinyir passes: DeadCodeElimination drops unused lets") {
  CHECK(typed(run_on(DeadCodeElimination{}, R"IR(def @main(%x: Tensor[(2), float32]) {
  let %a = nn.relu(%x);
  let %b = add(%x, %x);
  %a
}
)IR")) == R"IR(def @main(%x: Tensor[(2), float32]) {
  let %a = nn.relu(%x) /* ty=Tensor[(2), float32] */;
  %a /* ty=Tensor[(2), float32] */
}
)IR");
}

TEST_CASE("tinyir passes: FuseOps fuses at its level, or at the context's opt_level for -1") {
  CHECK(typed(run_on(FuseOps{0}, kConvInput, 3)) ==
        R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  %0 = fn (%p0: Tensor[(1, 4, 8, 8), float32], %p1: Tensor[(4, 4, 3, 3), float32], Primitive=1) {
    nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]) /* ty=Tensor[(1, 4, 8, 8), float32] */
  } /* ty=fn (Tensor[(1, 4, 8, 8), float32], Tensor[(4, 4, 3, 3), float32]) -> Tensor[(1, 4, 8, 8), float32] */;
  %1 = %0(%x, %w) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %2 = fn (%p2: Tensor[(1, 4, 8, 8), float32], Primitive=1) {
    nn.relu(%p2) /* ty=Tensor[(1, 4, 8, 8), float32] */
  } /* ty=fn (Tensor[(1, 4, 8, 8), float32]) -> Tensor[(1, 4, 8, 8), float32] */;
  %3 = %2(%1) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %4 = fn (%p3: Tensor[(1, 4, 8, 8), float32], %p4: Tensor[(1, 4, 8, 8), float32], Primitive=1) {
    add(%p3, %p4) /* ty=Tensor[(1, 4, 8, 8), float32] */
  } /* ty=fn (Tensor[(1, 4, 8, 8), float32], Tensor[(1, 4, 8, 8), float32]) -> Tensor[(1, 4, 8, 8), float32] */;
  %4(%3, %x) /* ty=Tensor[(1, 4, 8, 8), float32] */
}
)IR");
  CHECK(typed(run_on(FuseOps{}, kConvInput, 3)) == kConvFusedAtLevel3);
  CHECK(typed(run_on(FuseOps{3}, kConvInput, 0)) == kConvFusedAtLevel3);
  // -1 under opt_level 0: no fusion, as FuseOps{0}.
  CHECK(print(run_on(FuseOps{}, kConvInput, 0)) == print(run_on(FuseOps{0}, kConvInput)));
}

TEST_CASE("tinyir passes: DefuseOps inlines what FuseOps made") {
  Context ctx({.opt_level = 3});
  const Module fused = passinfra::run(FuseOps{}, from_text(kConvInput), ctx);
  const Module defused = passinfra::run(DefuseOps{}, fused, ctx);
  CHECK(typed(defused) == R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %1 = nn.relu(%0) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  add(%1, %x) /* ty=Tensor[(1, 4, 8, 8), float32] */
}
)IR");
}

TEST_CASE("tinyir passes: ToANormalForm binds every call, without InferType after it") {
  CHECK(typed(run_on(ToANormalForm{}, kConvInput)) ==
        R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  let %v0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  let %v1 = nn.relu(%v0);
  let %v2 = add(%v1, %x);
  %v2
}
)IR");
}

TEST_CASE("tinyir passes: CanonicalizeOps rewrites bias_add") {
  CHECK(typed(run_on(CanonicalizeOps{}, kBiasAddInput)) ==
        R"IR(def @main(%x: Tensor[(1, 4, 2, 2), float32], %b: Tensor[(4), float32]) {
  %0 = expand_dims(%b, axis=1, num_newaxis=2) /* ty=Tensor[(4, 1, 1), float32] */;
  add(%x, %0) /* ty=Tensor[(1, 4, 2, 2), float32] */
}
)IR");
}

TEST_CASE("tinyir passes: ConvertLayout runs conv2d in NHWC") {
  CHECK(typed(run_on(ConvertLayout({{"nn.conv2d", {"NHWC", "default"}}}), kConvInput, 3)) ==
        R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC") /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %1 = layout_transform(%w, src_layout="OIHW", dst_layout="HWIO") /* ty=Tensor[(3, 3, 4, 4), float32] */;
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO") /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %3 = nn.relu(%2) /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %4 = add(%3, %0) /* ty=Tensor[(1, 8, 8, 4), float32] */;
  layout_transform(%4, src_layout="NHWC", dst_layout="NCHW") /* ty=Tensor[(1, 4, 8, 8), float32] */
}
)IR");
  CHECK_THROWS_WITH_AS(run_on(ConvertLayout({{"nn.dense", {"NC"}}}), kConvInput),
                       "convert_layout: expected desired layouts for nn.conv2d, found an entry for 'nn.dense'",
                       tinyir::Error);
}

TEST_CASE("tinyir passes: AnnotateSpans gives every node a GeneratedSource span, typed") {
  const Module out = run_on(AnnotateSpans{}, kBiasAddInput);
  CHECK(print(out, {.show_types = true, .show_spans = true}) ==
        R"IR(def @main(%x: Tensor[(1, 4, 2, 2), float32], %b: Tensor[(4), float32]) {
  nn.bias_add(%x, %b) /* ty=Tensor[(1, 4, 2, 2), float32] */ /* span=GeneratedSource:2:3 */
}
)IR");
  bool all_spans = true;
  post_order_visit(out.main(), [&](const Expr& e) {
    all_spans = all_spans && e->span.has_value() && e->span->source == "GeneratedSource";
  });
  CHECK(all_spans);
  CHECK(structural_equal(out, from_text(kBiasAddInput)));
}

TEST_CASE("tinyir passes: after AnnotateSpans a type error names its place in GeneratedSource") {
  const Var x = make_var("x", tensor_type({2}));
  const Var y = make_var("y", tensor_type({3}));
  const Module bad{{"main", make_function({x, y}, op::add(op::relu(x), y))}};
  const std::string detail =
      "type error in `add(nn.relu(...), %y)`: expected shapes that broadcast, found (2) and (3) (dimension -1: 2 vs 3)";
  CHECK_THROWS_WITH_AS(InferType{}(bad), detail.c_str(), TypeError);
  // The nested InferType of AnnotateSpans throws; the error leaves both passes unchanged.
  CHECK_THROWS_WITH_AS(AnnotateSpans{}(bad), ("GeneratedSource:3:3: " + detail).c_str(), TypeError);
}

TEST_CASE("tinyir passes: PrintIR logs the module at INFO and returns it unchanged") {
  std::vector<std::string> lines;
  passinfra::ScopedLogSink sink([&](passinfra::LogLevel level, std::string_view message) {
    if (level == passinfra::LogLevel::info) lines.emplace_back(message);
  });
  const Module m = from_text(kBiasAddInput);
  Context ctx;
  const Module out = passinfra::run(PrintIR("after parsing"), m, ctx);
  CHECK(out.main() == m.main());
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "PrintIR(after parsing):\n" + print(m).substr(0, print(m).size() - 1));
}

// ------------------------------------------------------------------ nesting: the InferType follow-up

TEST_CASE("tinyir passes: every function pass ends with a nested, instrumented InferType") {
  CHECK(nesting_of(FoldConstant{}, kFoldInput) == "FoldConstant\n  InferType\n");
  CHECK(nesting_of(EliminateCommonSubexpr{}, kFoldInput) == "EliminateCommonSubexpr\n  InferType\n");
  CHECK(nesting_of(DeadCodeElimination{}, kFoldInput) == "DeadCodeElimination\n  InferType\n");
  CHECK(nesting_of(FuseOps{}, kConvInput) == "FuseOps\n  InferType\n");
  CHECK(nesting_of(CanonicalizeOps{}, kBiasAddInput) == "CanonicalizeOps\n  InferType\n");
  CHECK(nesting_of(ConvertLayout({{"nn.conv2d", {"NHWC"}}}), kConvInput) == "ConvertLayout\n  InferType\n");
  CHECK(nesting_of(DefuseOps{}, kConvInput) == "DefuseOps\n  InferType\n");
  // A function pass made with passinfra::function_pass gets the same follow-up.
  auto custom = passinfra::function_pass({"CustomPipeline", 1},
                                         [](Function fn, const Module&) { return multiply_constants(fn, 3.0f); });
  CHECK(nesting_of(custom, kFoldInput) == "CustomPipeline\n  InferType\n");
  // Module passes have none; AnnotateSpans runs its own InferType.
  CHECK(nesting_of(InferType{}, kFoldInput) == "InferType\n");
  CHECK(nesting_of(ToANormalForm{}, kFoldInput) == "ToANormalForm\n");
  CHECK(nesting_of(AnnotateSpans{}, kFoldInput) == "AnnotateSpans\n  InferType\n");
  CHECK(nesting_of(PrintIR{}, kFoldInput) == "PrintIR\n");
}

TEST_CASE("tinyir passes: a Sequential runs required passes first and gates by opt_level") {
  const passinfra::Sequential seq{FoldConstant{}, EliminateCommonSubexpr{}, FuseOps{}};
  CHECK(nesting_of(seq, kFoldInput, 3) ==
        "sequential\n"
        "  FoldConstant\n"
        "    InferType\n"
        "  InferType\n"
        "  EliminateCommonSubexpr\n"
        "    InferType\n"
        "  InferType\n"
        "  FuseOps\n"
        "    InferType\n");
  // opt_level 2: EliminateCommonSubexpr (3) is skipped with its InferType.
  CHECK(nesting_of(seq, kFoldInput, 2) ==
        "sequential\n"
        "  FoldConstant\n"
        "    InferType\n"
        "  InferType\n"
        "  FuseOps\n"
        "    InferType\n");
  // ConvertLayout requires InferType and CanonicalizeOps, one level deep.
  const passinfra::Sequential layout{ConvertLayout({{"nn.conv2d", {"NHWC"}}})};
  CHECK(nesting_of(layout, kConvInput, 3) ==
        "sequential\n"
        "  InferType\n"
        "  CanonicalizeOps\n"
        "    InferType\n"
        "  ConvertLayout\n"
        "    InferType\n");
}

// conv2d then a per-channel scale, both parameters: the scale is folded into an
// expression on the weight (FoldConstant cannot fold parameters).
constexpr std::string_view kScaleInput =
    R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(2, 4, 3, 3), float32], %s: Tensor[(2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  multiply(%0, %s)
}
)IR";

TEST_CASE("tinyir passes: FoldScaleAxis folds from opt_level 3, as Relay's Sequential does") {
  // At the default opt_level 2 only its FoldConstant runs (the instrument tutorial's profile).
  CHECK(nesting_of(FoldScaleAxis(), kScaleInput, 2) == "FoldScaleAxis\n  FoldConstant\n    InferType\n");
  CHECK(print(run_on(FoldScaleAxis(), kScaleInput, 2)) == print(from_text(kScaleInput)));
  CHECK(nesting_of(FoldScaleAxis(), kScaleInput, 3) ==
        "FoldScaleAxis\n"
        "  InferType\n"
        "  BackwardFoldScaleAxis\n"
        "    InferType\n"
        "  InferType\n"
        "  ForwardFoldScaleAxis\n"
        "    InferType\n"
        "  FoldConstant\n"
        "    InferType\n");
  CHECK(
      typed(run_on(FoldScaleAxis(), kScaleInput, 3)) ==
      R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(2, 4, 3, 3), float32], %s: Tensor[(2, 1, 1), float32]) {
  %0 = reshape(%s, newshape=[2]) /* ty=Tensor[(2), float32] */;
  %1 = expand_dims(%0, axis=1, num_newaxis=3) /* ty=Tensor[(2, 1, 1, 1), float32] */;
  %2 = multiply(%w, %1) /* ty=Tensor[(2, 4, 3, 3), float32] */;
  nn.conv2d(%x, %2, padding=[1, 1, 1, 1]) /* ty=Tensor[(1, 2, 8, 8), float32] */
}
)IR");
}

TEST_CASE("tinyir passes: the follow-up InferType runs under a static context too") {
  NestingRecorder recorder;
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, std::ref(recorder));
  const Module out = passinfra::run(FoldConstant{}, from_text(kFoldInput), ctx);
  CHECK(join(recorder.events) == "FoldConstant\n  InferType\n");
  CHECK(print(out).find("add(%x, 6f)") != std::string::npos);
}

// ------------------------------------------------------------------ registry

TEST_CASE("tinyir passes: register_passes registers every pass by name") {
  passinfra::PassRegistry<Module> registry;
  register_passes(registry);
  register_passes(registry);  // the same registrations again: a no-op
  CHECK(registry.names() == std::vector<std::string>{"AnnotateSpans", "BackwardFoldScaleAxis", "CanonicalizeOps",
                                                     "ConvertLayout", "DeadCodeElimination", "DefuseOps",
                                                     "EliminateCommonSubexpr", "FoldConstant", "FoldScaleAxis",
                                                     "ForwardFoldScaleAxis", "FuseOps", "InferType", "PrintIR",
                                                     "ToANormalForm"});

  // Created by name, a pass does what the pass type does, with the same info.
  const auto fold = registry.create("FoldConstant");
  CHECK(fold.info() == passinfra::info_of<FoldConstant>);
  CHECK(typed(run_on(fold, kFoldInput)) == typed(run_on(FoldConstant{}, kFoldInput)));
  CHECK(nesting_of(fold, kFoldInput) == "FoldConstant\n  InferType\n");

  const auto scale = registry.create("FoldScaleAxis");
  CHECK(passinfra::to_string(scale.info()) ==
        "The meta data of the pass - pass name: FoldScaleAxis, opt_level: 0, required passes: []\n");
  CHECK(typed(run_on(scale, kScaleInput, 3)) == typed(run_on(FoldScaleAxis(), kScaleInput, 3)));
  CHECK(nesting_of(scale, kScaleInput, 3) == nesting_of(FoldScaleAxis(), kScaleInput, 3));

  const auto cse = registry.create("EliminateCommonSubexpr");
  CHECK(passinfra::to_string(cse.info()) ==
        "The meta data of the pass - pass name: EliminateCommonSubexpr, opt_level: 3, required passes: [\n"
        "InferType, ]\n");

  // Options: FuseOps(fuse_opt_level), ConvertLayout(nn.conv2d) (required), PrintIR(header).
  CHECK(print(run_on(registry.create("FuseOps", {{"fuse_opt_level", std::int64_t{0}}}), kConvInput, 3)) ==
        print(run_on(FuseOps{0}, kConvInput)));
  CHECK(print(run_on(registry.create("FuseOps"), kConvInput, 3)) == print(run_on(FuseOps{3}, kConvInput)));
  const auto layout = registry.create("ConvertLayout", {{"nn.conv2d", passinfra::StringList{"NHWC", "default"}}});
  CHECK(print(run_on(layout, kConvInput, 3)) ==
        print(run_on(ConvertLayout({{"nn.conv2d", {"NHWC", "default"}}}), kConvInput)));
  CHECK(passinfra::to_string(layout.info()) ==
        "The meta data of the pass - pass name: ConvertLayout, opt_level: 3, required passes: [\n"
        "InferType, CanonicalizeOps, ]\n");
  CHECK_THROWS_WITH_AS(registry.create("ConvertLayout"),
                       "passinfra: pass 'ConvertLayout' requires option 'nn.conv2d' (a list of strings), which was "
                       "not given; expected ConvertLayout(nn.conv2d=...)",
                       passinfra::Error);
  CHECK_THROWS_AS(registry.create("FoldConstants"), passinfra::Error);
  CHECK(registry.create("PrintIR", {{"header", std::string("x")}}).info().name == "PrintIR");
}

TEST_CASE("tinyir passes: pipelines as text over the registry") {
  passinfra::PassRegistry<Module> registry;
  register_passes(registry);
  const auto pipeline = passinfra::parse_pipeline<Module>(
      "sequential(FoldConstant, EliminateCommonSubexpr, FuseOps(fuse_opt_level=0))", registry);
  CHECK(passinfra::print_pipeline(pipeline) ==
        "sequential(FoldConstant,EliminateCommonSubexpr,FuseOps(fuse_opt_level=0))");
  // The same events as the static Sequential, required InferType included.
  CHECK(nesting_of(pipeline, kFoldInput, 3) ==
        "sequential\n"
        "  FoldConstant\n"
        "    InferType\n"
        "  InferType\n"
        "  EliminateCommonSubexpr\n"
        "    InferType\n"
        "  InferType\n"
        "  FuseOps\n"
        "    InferType\n");
  const auto layout = passinfra::parse_pipeline<Module>(R"(ConvertLayout(nn.conv2d=["NHWC","default"]))", registry);
  CHECK(passinfra::print_pipeline(layout) == R"(ConvertLayout(nn.conv2d=["NHWC","default"]))");
}
