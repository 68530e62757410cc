// Tests of tinyir on long and deep programs (issue 23): flat programs of 10,000 and
// 100,000 bindings -- chains of calls of several operators, tuples and projections,
// let chains, constant chains -- are parsed, typed, printed and run through every
// tinyir pass with the default 8 MB stack (they overflowed it before: infer_types at
// 10,000 bindings, print at 100,000, and destroying a long chain); deep *syntactic*
// nesting (`((((%x))))`, `add(add(...))`, `(((%x,),),)`, blocks, functions, types) is
// a ParseError naming kMaxNestingDepth, not a crash.
#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/passinfra.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

namespace {

using namespace tinyir;

// The sanitizer builds (-O0, several times slower) run the flat programs at
// 10,000 bindings only -- still far deeper than a recursive walk survives
// there -- and the dev and clang builds at 10,000 and 100,000 (at 100,000 as
// well, ASan's one-process suite took 385 s instead of 16 s).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::string header() {
  return "def @main(%x: Tensor[(1, 4, 2, 2), float32], %w: Tensor[(4, 4, 1, 1), float32], "
         "%b: Tensor[(4), float32]) {\n";
}

// %i = <op i>(%i-1 ...) for i < n, then %n-1 as the result.
std::string binding_chain(int n, const std::function<std::string(int, const std::string&)>& value) {
  std::string text = header();
  for (int i = 0; i < n; ++i) {
    const std::string prev = i == 0 ? "%x" : "%" + std::to_string(i - 1);
    text += "  %" + std::to_string(i) + " = " + value(i, prev) + ";\n";
  }
  return text + "  %" + std::to_string(n - 1) + "\n}\n";
}

std::string add_chain(int n) {
  return binding_chain(n, [](int, const std::string& p) { return "add(" + p + ", " + p + ")"; });
}

// Ten operators in turn: elementwise, broadcast, conv2d (an anchor for FuseOps and
// ConvertLayout), bias_add (CanonicalizeOps), reshape, layout_transform there and back.
std::string mixed_chain(int n) {
  return binding_chain(n, [](int i, const std::string& p) -> std::string {
    switch (i % 10) {
      case 0:
        return "add(" + p + ", %x)";
      case 1:
        return "nn.conv2d(" + p + ", %w)";
      case 2:
        return "nn.relu(" + p + ")";
      case 3:
        return "multiply(" + p + ", 2f)";
      case 4:
        return "nn.bias_add(" + p + ", %b)";
      case 5:
        return "clip(" + p + ", a_min=0f, a_max=6f)";
      case 6:
        return "reshape(" + p + ", newshape=[1, 4, 2, 2])";
      case 7:
        return "subtract(" + p + ", %x)";
      case 8:
        return "divide(" + p + ", 3f)";
      default:
        return "nn.softmax(" + p + ")";
    }
  });
}

// Tuples and projections: %2k = (%2k-1, %x); %2k+1 = %2k.0 (types stay shallow).
std::string tuple_chain(int n) {
  return binding_chain(n, [](int i, const std::string& p) { return i % 2 == 0 ? "(" + p + ", %x)" : p + ".0"; });
}

// let %v0 = add(%x, %x); let %v1 = multiply(%v0, %v0); ...; %vn-1
std::string let_chain(int n) {
  std::string text = header();
  for (int i = 0; i < n; ++i) {
    const std::string prev = i == 0 ? "%x" : "%v" + std::to_string(i - 1);
    text += "  let %v" + std::to_string(i) + " = " + (i % 2 ? "multiply(" : "add(") + prev + ", " + prev + ");\n";
  }
  return text + "  %v" + std::to_string(n - 1) + "\n}\n";
}

// A chain of calls on constants: FoldConstant folds it whole.
std::string constant_chain(int n) {
  return binding_chain(n, [](int i, const std::string& p) {
    const std::string arg = i == 0 ? "1f" : p;
    return std::string(i % 2 ? "subtract(" : "add(") + arg + ", 1f)";
  });
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every pass of tinyir on m, directly and (with `through_passinfra`) as a
// passinfra Sequential, which runs InferType after each function pass.
void run_every_pass(const Module& m, bool through_passinfra) {
  const Module typed = infer_types(m);
  CHECK(!print(typed, {.show_types = true}).empty());
  CHECK(count_nodes(typed) > 0);
  CHECK(free_vars(typed.functions()[0].second).size() <= 3);
  CHECK(structural_equal(m, m));
  (void)fold_constant(m);
  (void)eliminate_common_subexpr(m);
  (void)dead_code_elimination(m);
  const Module anf = to_a_normal_form(m);
  CHECK(!print(infer_types(anf)).empty());
  (void)canonicalize_ops(m);
  (void)convert_layout(m, {{"nn.conv2d", {"NHWC"}}});
  (void)fold_scale_axis(m);
  const Module fused = fuse_ops(m, 1);
  (void)infer_types(fused);
  (void)defuse_ops(fused);
  (void)fuse_ops(m, 0);
  (void)multiply_constants(m, 2.0f);
  const Module spans = annotate_spans(m);
  CHECK(structural_equal(spans, m));
  if (!through_passinfra) return;
  passinfra::PassContext<Module> ctx({.opt_level = 3});
  const passinfra::Sequential all{FoldConstant{}, EliminateCommonSubexpr{}, DeadCodeElimination{}, CanonicalizeOps{},
                                  FuseOps{},      ToANormalForm{},          AnnotateSpans{}};
  (void)passinfra::run(all, m, ctx);
}

// A flat program of 10,000 and of 100,000 bindings made by `make`: parsed, typed,
// printed, and through every pass.
void check_flat(std::string (*make)(int)) {
  for (const int n : {10'000, 100'000}) {
    if (n == 100'000 && kSanitized) break;
    CAPTURE(n);
    const auto t0 = std::chrono::steady_clock::now();
    const Module m = parse(make(n), "deep");
    const std::string text = print(m);
    CHECK(print(parse(text, "again")) == text);
    CHECK(infer_types(m).size() == 1);
    run_every_pass(m, n == 10'000);
    MESSAGE(n << " bindings: " << seconds_since(t0) << " s");
  }
}

}  // namespace

TEST_CASE("tinyir deep: a chain of 10,000 and 100,000 adds goes through every pass") { check_flat(add_chain); }

TEST_CASE("tinyir deep: a chain of 10,000 and 100,000 calls of ten operators goes through every pass") {
  check_flat(mixed_chain);
}

TEST_CASE("tinyir deep: 10,000 and 100,000 tuples and projections go through every pass") { check_flat(tuple_chain); }

TEST_CASE("tinyir deep: a let chain of 10,000 and 100,000 lets goes through every pass") { check_flat(let_chain); }

TEST_CASE("tinyir deep: a chain of 10,000 and 100,000 calls on constants folds and goes through every pass") {
  check_flat(constant_chain);
}

TEST_CASE("tinyir deep: a chain built through the API, 1,000,000 nodes, is destroyed without recursion") {
  Var x = make_var("x", tensor_type({2}));
  Expr e = x;
  for (int i = 0; i < 1'000'000; ++i) e = make_call(i % 2 ? "add" : "multiply", {e, e});
  Expr t = make_tuple_expr({e});
  for (int i = 0; i < 200'000; ++i) t = make_tuple_get_item(make_tuple_expr({t, x}), 0);
  Expr l = t;
  for (int i = 0; i < 200'000; ++i) l = make_let(make_var("v" + std::to_string(i)), x, l);
  CHECK(l != nullptr);
  e = nullptr;
  t = nullptr;
  l = nullptr;  // the chains go here
}

TEST_CASE("tinyir deep: a chain of 100,000 projections `%t.0.0...` parses; typing it is a TypeError") {
  std::string text = "def @main(%t: ((Tensor[(2), float32],),)) {\n  %t";
  for (int i = 0; i < 100'000; ++i) text += ".0";
  text += "\n}\n";
  const Module m = parse(text, "deep");
  CHECK(!print(m).empty());
  CHECK_THROWS_AS(infer_types(m), TypeError);
}

TEST_CASE("tinyir deep: tuple types nest at most kMaxNestingDepth deep in type inference") {
  // %k = (%k-1,): the type of %k nests k deep.
  std::string text = "def @main(%x: float32) {\n";
  const int n = 10'000;
  for (int i = 0; i < n; ++i)
    text += "  %" + std::to_string(i) + " = (" + (i == 0 ? "%x" : "%" + std::to_string(i - 1)) + ",);\n";
  text += "  %" + std::to_string(n - 1) + "\n}\n";
  const Module m = parse(text, "deep");
  CHECK(!print(m).empty());
  try {
    (void)infer_types(m);
    FAIL("expected a TypeError");
  } catch (const TypeError& e) {
    CHECK(std::string(e.what()).find("kMaxNestingDepth") != std::string::npos);
  }
  // At the limit itself it types, and the typed text parses and types again.
  std::string ok = "def @main(%x: float32) {\n";
  for (int i = 0; i < kMaxNestingDepth - 1; ++i)
    ok += "  %" + std::to_string(i) + " = (" + (i == 0 ? "%x" : "%" + std::to_string(i - 1)) + ",);\n";
  ok += "  add(%x, %x)\n}\n";
  const Module typed = infer_types(parse(ok, "ok"));
  const std::string with_types = print(typed, {.show_types = true});
  CHECK(print(infer_types(parse(with_types, "typed")), {.show_types = true}) == with_types);
  // A parameter typed that deep (FuseOps makes such parameters) prints and parses.
  CHECK_NOTHROW(infer_types(fuse_ops(typed, 1)));
}

namespace {

// The nesting forms, `depth` levels deep around %x.
std::string nested(std::string_view form, int depth) {
  std::string open, close;
  std::string inner = "%x";
  std::string params = "%x: Tensor[(2), float32]";
  if (form == "parens") {
    open = "(", close = ")";
  } else if (form == "add") {
    open = "add(", close = ", %x)";
  } else if (form == "relu") {
    open = "nn.relu(", close = ")";
  } else if (form == "tuple") {
    open = "(", close = ",)";
  } else if (form == "tuple2") {
    open = "(%x, ", close = ")";
  } else if (form == "block") {
    open = "{ ", close = " }";
  } else if (form == "let block") {
    open = "{ let %a = ", close = "; %a }";
  } else if (form == "fn") {
    open = "fn () { ", close = " }";
  } else if (form == "call") {
    params += ", %f: fn (Tensor[(2), float32]) -> Tensor[(2), float32]";
    open = "%f(", close = ")";
  } else if (form == "type") {
    params = "%x: ";
    for (int i = 0; i < depth; ++i) params += "(";
    params += "Tensor[(2), float32]";
    for (int i = 0; i < depth; ++i) params += ",)";
    depth = 0;
  } else if (form == "fn type") {
    params = "%x: ";
    for (int i = 0; i < depth; ++i) params += "fn () -> ";
    params += "float32";
    depth = 0;
  }
  std::string body;
  body.reserve(static_cast<std::size_t>(depth) * (open.size() + close.size()) + 8);
  for (int i = 0; i < depth; ++i) body += open;
  body += inner;
  for (int i = 0; i < depth; ++i) body += close;
  return "def @main(" + params + ") {\n  " + body + "\n}\n";
}

constexpr const char* kNestingForms[] = {"parens",    "add", "relu", "tuple", "tuple2", "block",
                                         "let block", "fn",  "call", "type",  "fn type"};

}  // namespace

TEST_CASE("tinyir deep: nesting 10,000 and 100,000 deep is a ParseError naming kMaxNestingDepth") {
  for (const char* form : kNestingForms) {
    for (const int depth : {kMaxNestingDepth + 1, 10'000, 100'000}) {
      CAPTURE(form);
      CAPTURE(depth);
      try {
        (void)parse(nested(form, depth), "deep");
        FAIL("expected a ParseError");
      } catch (const ParseError& e) {
        CHECK(e.message().find("kMaxNestingDepth") != std::string::npos);
        CHECK(e.message().find(std::to_string(kMaxNestingDepth)) != std::string::npos);
        CHECK(e.line() == (std::string_view(form).find("type") != std::string_view::npos ? 1 : 2));
      }
    }
  }
}

TEST_CASE("tinyir deep: nesting up to kMaxNestingDepth parses, types and round-trips") {
  for (const char* form : kNestingForms) {
    CAPTURE(form);
    // Expressions nest one level for `def`'s block, so kMaxNestingDepth - 1 around %x.
    const int depth =
        std::string_view(form).find("type") != std::string_view::npos ? kMaxNestingDepth - 1 : kMaxNestingDepth - 1;
    const Module m = parse(nested(form, depth), "ok");
    const std::string text = print(m);
    CHECK(print(parse(text, "again")) == text);
  }
}

TEST_CASE("tinyir deep: DeadCodeElimination removes a dead chain of 100,000 lets in one round") {
  // Each let used only by the next, none by the result: one let went per round
  // (100,000 rounds over the whole chain).
  const int n = kSanitized ? 10'000 : 100'000;
  std::string text = "def @main(%x: Tensor[(2), float32]) {\n";
  for (int i = 0; i < n; ++i) {
    const std::string prev = i == 0 ? "%x" : "%v" + std::to_string(i - 1);
    text += "  let %v" + std::to_string(i) + " = add(" + prev + ", " + prev + ");\n";
  }
  text += "  let %keep = multiply(%x, %x);\n  let %dead = { let %in = %keep; %in };\n  %keep\n}\n";
  const auto t0 = std::chrono::steady_clock::now();
  const Module out = dead_code_elimination(parse(text, "dead"));
  CHECK(print(out) == "def @main(%x: Tensor[(2), float32]) {\n  let %keep = multiply(%x, %x);\n  %keep\n}\n");
  CHECK(seconds_since(t0) < 120);
}

TEST_CASE(
    "tinyir deep: a chain of 100,000 calls of calls `%f(%x)(%x)...` parses and prints; typing it is a "
    "TypeError") {
  std::string text = "def @main(%x: float32, %f: fn (float32) -> float32) {\n  %f";
  for (int i = 0; i < 100'000; ++i) text += "(%x)";
  text += "\n}\n";
  const Module m = parse(text, "deep");
  const std::string printed = print(m);
  CHECK(print(parse(printed, "again")) == printed);
  CHECK_THROWS_AS(infer_types(m), TypeError);
  CHECK(structural_equal(annotate_spans(m), m));
}

TEST_CASE("tinyir deep: a scale 10,000 and 100,000 relus away from its convolution folds, both ways") {
  for (const int n : {10'000, 100'000}) {
    if (n == 100'000 && kSanitized) break;
    CAPTURE(n);
    Var x = make_var("x", tensor_type({1, 2, 4, 4}));
    const Constant w = make_constant(tensor_type({2, 2, 1, 1}), std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f});
    const Constant s = make_constant(tensor_type({2, 1, 1}), std::vector<float>{2.0f, 3.0f});
    // Backward: conv2d, n relus, then the scale; forward: the scale, n relus, then conv2d.
    Expr back = op::conv2d(x, w);
    for (int i = 0; i < n; ++i) back = op::relu(back);
    back = op::multiply(back, s);
    Expr fwd = op::multiply(x, s);
    for (int i = 0; i < n; ++i) fwd = op::relu(fwd);
    fwd = op::conv2d(fwd, w);
    const Module m{{"main", make_function({x}, op::add(back, fwd))}};
    const Module folded = fold_scale_axis(m);
    const auto counts = count_calls(folded);
    CHECK(counts.count("multiply") == 0);
    CHECK(counts.at("nn.relu") == static_cast<std::size_t>(2 * n));
    CHECK(infer_types(folded).size() == 1);
  }
}
