// annotate_spans: the AnnotateSpans notebook, on tinyir.
//
// AnnotateSpans prints a module and parses the text back with the source name
// "GeneratedSource", so every node carries a span (line and column) into that
// text -- what diagnostics then point at. Relay's parser type-checks what it
// parsed, so the pass runs InferType as a nested pass. The notebook applies it to
// ResNet-18 and to clip(%x, a_min=-inf, a_max=inf) (a module whose infinite
// bounds must print as text that parses back), times AnnotateSpans, ToANormalForm
// and InferType with PassTimingInstrument, and runs AnnotateSpans before
// DefuseOps in a Sequential at opt_level 3 (DefuseOps is an opt_level-3 pass).
// Last, what the spans are for: a type error found after AnnotateSpans says where.
//
// The `// [tag]` lines mark the regions docs/tutorial_spans.md quotes;
// scripts/check_docs.sh (ctest docs.check) keeps the two identical.
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include <passinfra/passinfra.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"
#include "tutorial.hpp"

namespace {

using tinyir::Module;
using Context = passinfra::PassContext<Module>;

// Line `line` (1-based) of `text`, and a caret under column `column`.
std::string quote_line(const std::string& text, int line, int column) {
  std::istringstream in(text);
  std::string s;
  for (int i = 0; i < line && std::getline(in, s); ++i) {
  }
  return "  " + s + "\n  " + std::string(static_cast<std::size_t>(column > 0 ? column - 1 : 0), ' ') + "^\n";
}

// [show-body-span]
// Where the result of @main's body came from: its span, and that place in the
// text AnnotateSpans generated (the printed input `source`).
void show_body_span(const Module& mod, const Module& source) {
  const auto& span = mod.main()->body->span;
  if (!span) {
    std::cout << "@main's result has no span\n";
    return;
  }
  std::cout << "@main's result comes from " << tinyir::to_string(*span) << ":\n"
            << quote_line(tinyir::print(source), span->line, span->column);
}
// [show-body-span]

std::size_t count_primitive_functions(const Module& mod) {
  std::size_t n = 0;
  tinyir::post_order_visit(mod.main(), [&](const tinyir::Expr& e) {
    if (const auto* f = e->as<tinyir::FunctionNode>(); f && f->is_primitive()) ++n;
  });
  return n;
}

}  // namespace

int main() {
  bool ok = true;

  tutorial::section("AnnotateSpans on clip(%x, a_min=-inf, a_max=inf)");
  // [clip]
  const Module clip = tinyir::clip_example();
  std::cout << tinyir::print(clip);
  const Module clip_annotated = tinyir::AnnotateSpans{}(clip);
  std::cout << "After AnnotateSpans:\n" << tinyir::print(clip_annotated, {.show_types = true, .show_spans = true});
  show_body_span(clip_annotated, clip);
  // [clip]
  ok = ok && tinyir::structural_equal(clip_annotated, clip);

  tutorial::section("AnnotateSpans on ResNet-18");
  // [resnet]
  const Module resnet = tinyir::resnet18(/*bind_params=*/false);
  Module annotated = tinyir::AnnotateSpans{}(resnet);
  std::cout << tinyir::print(annotated, {.show_spans = true});
  show_body_span(annotated, resnet);
  std::cout << "AnnotateSpans(mod) == mod (structurally): " << std::boolalpha
            << tinyir::structural_equal(annotated, resnet) << '\n';
  // [resnet]
  ok = ok && tinyir::structural_equal(annotated, resnet);

  tutorial::section("Timing AnnotateSpans, ToANormalForm and InferType");
  // [timing]
  passinfra::PassTimingInstrument timing;
  std::string profiles;
  {
    Context ctx({}, {passinfra::AnyInstrument<Module>(std::ref(timing))});
    auto scope = ctx.enter();
    Module mod = tinyir::AnnotateSpans{}(resnet);
    mod = tinyir::ToANormalForm{}(mod);
    mod = tinyir::InferType{}(mod);
    profiles = timing.render();
  }
  std::cout << "Printing results of timing profile...\n" << profiles;
  for (std::string_view name : {"AnnotateSpans", "ToANormalForm", "InferType"}) {
    const bool named = profiles.find(std::string(name) + ":") != std::string::npos;
    std::cout << "\"" << name << "\" in profiles: " << std::boolalpha << named << '\n';
    ok = ok && named;
  }
  // Leaving the context ran the timer's exit_pass_ctx, which discards the profiles.
  // (render() of nothing also logs a WARNING: "no passes have been profiled, ...".)
  profiles = timing.render();
  std::cout << "After the context exits, render() returns " << (profiles.empty() ? "\"\"" : "profiles!") << '\n';
  // [timing]
  ok = ok && profiles.empty();

  tutorial::section("Sequential[AnnotateSpans, DefuseOps] at opt_level 3");
  // [defuse]
  const Module fused = tinyir::FuseOps{2}(resnet);
  std::cout << "Primitive functions after FuseOps(fuse_opt_level=2): " << count_primitive_functions(fused) << '\n';
  passinfra::Sequential seq{tinyir::AnnotateSpans{}, tinyir::DefuseOps{}};
  Context ctx({.opt_level = 3});
  const Module defused = ctx.with([&] { return seq(fused); });
  std::cout << "Primitive functions after Sequential[AnnotateSpans, DefuseOps]: " << count_primitive_functions(defused)
            << '\n';
  std::cout << "DefuseOps(AnnotateSpans(FuseOps(mod))) == mod (structurally): " << std::boolalpha
            << tinyir::structural_equal(defused, resnet) << '\n';
  ok = ok && tinyir::structural_equal(defused, resnet) && count_primitive_functions(defused) == 0;
  // The inlined operators keep the spans they got in the fused module's text.
  show_body_span(defused, fused);
  // [defuse]

  tutorial::section("Diagnostics point at the spans");
  // [diagnostics]
  // A module built in C++ has no spans: a type error can only name the expression.
  // After AnnotateSpans (whose nested InferType reports it), it names the place too.
  const tinyir::Var x = tinyir::make_var("x", tinyir::tensor_type({2}));
  const tinyir::Var y = tinyir::make_var("y", tinyir::tensor_type({3}));
  const Module bad{{"main", tinyir::make_function({x, y}, tinyir::op::add(tinyir::op::relu(x), y))}};
  std::cout << tinyir::print(bad);
  for (const bool annotate : {false, true}) {
    try {
      if (annotate) {
        (void)tinyir::AnnotateSpans{}(bad);
      } else {
        (void)tinyir::InferType{}(bad);
      }
      ok = false;
    } catch (const tinyir::TypeError& e) {
      std::cout << (annotate ? "AnnotateSpans: " : "InferType: ") << e.what() << '\n';
      if (e.span()) std::cout << quote_line(tinyir::print(bad), e.span()->line, e.span()->column);
    }
  }
  // [diagnostics]
  return ok ? 0 : 1;
}
