// Tests of examples/tinyir: the IR, type inference, the printer and parser, the
// transformations and the workloads.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "tinyir/tinyir.hpp"
#include "tinyir/verify.hpp"

namespace {

using namespace tinyir;

Module from_text(const std::string& text) { return parse(text, "test"); }

// print(parse(print(m))) == print(m), and the parsed module equals m.
void check_round_trip(const Module& m) {
  const std::string text = print(m);
  const Module back = parse(text, "GeneratedSource");
  CHECK(print(back) == text);
  CHECK(structural_equal(m, back));
}

// The message of the TypeError `f` throws ("" if it throws none).
template <class F>
std::string type_error_of(F f) {
  try {
    f();
  } catch (const TypeError& e) {
    return e.what();
  }
  return "";
}

std::string parse_error_of(const std::string& text) {
  try {
    parse(text, "input.tir");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

Type type_of_main(const std::string& text) {
  Module m = infer_types(from_text(text));
  return m.main()->body->checked_type();
}

const char* const kExampleText =
    R"IR(def @main(%x: Tensor[(1, 64, 56, 56), float32], %weight: Tensor[(64, 64, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %weight);
  %1 = add(meta[Constant][0], meta[Constant][0]);
  %2 = multiply(%1, 2f);
  %3 = add(%0, %2);
  %4 = add(%3, meta[Constant][0]);
  %5 = add(%3, meta[Constant][0]);
  add(%4, %5)
}

#[metadata]
Constant[0]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
)IR";

}  // namespace

// ------------------------------------------------------------------ printer and parser

TEST_CASE("tinyir: example() prints as the tutorial's program") { CHECK(print(example()) == kExampleText); }

TEST_CASE("tinyir: round trip of example()") {
  check_round_trip(example());
  const Module m = parse(kExampleText, "GeneratedSource");
  // The constant is one node used three times, as in the original.
  CHECK(count_nodes(m) == count_nodes(example()));
}

TEST_CASE("tinyir: round trip of resnet18 with parameters and with bound constants") {
  check_round_trip(resnet18(false));
  check_round_trip(resnet18(true));
  const Module typed = infer_types(resnet18(false));
  const std::string with_types = print(typed, {.show_types = true});
  CHECK(with_types.find("/* ty=Tensor[(1, 1000), float32] */") != std::string::npos);
  // Type comments are comments: the parsed module, typed again, prints the same.
  CHECK(print(infer_types(parse(with_types, "GeneratedSource")), {.show_types = true}) == with_types);
}

TEST_CASE("tinyir: round trip of the clip module with infinite bounds") {
  const std::string text = print(clip_example());
  CHECK(text ==
        "def @main(%x: Tensor[(1, 64, 56, 56), float32]) {\n"
        "  clip(%x, a_min=-inff, a_max=inff)\n"
        "}\n");
  check_round_trip(clip_example());
  const Module back = parse(text, "GeneratedSource");
  const auto* clip = back.main()->body->as<CallNode>();
  REQUIRE(clip);
  CHECK(std::isinf(clip->attrs.find("a_min")->as_double()));
  CHECK(clip->attrs.find("a_min")->as_double() < 0);
}

TEST_CASE("tinyir: round trip of lets, tuples, nested functions, blocks and literals") {
  const std::string text =
      R"IR(def @main(%x: Tensor[(2, 3), float32], %y: (Tensor[(3), float32], int32), Primitive=1) -> Tensor[(2, 3), float32] {
  let %a: Tensor[(2, 3), float32] = nn.relu(%x);
  %0 = (%a, %x);
  %1 = %0.1;
  %4 = {
    %2 = fn (%p: Tensor[(2, 3), float32]) {
      multiply(%p, -1.5f)
    };
    %3 = %2(%1);
    let %b = add(%3, 2f64);
    %b
  };
  %5 = add(%4, %1);
  %6 = add(%5, meta[Constant][0]);
  let %c = (%6,);
  %7 = %c.0;
  %8 = add(%7, -inff);
  %9 = subtract(%8, nanf);
  divide(%9, meta[Constant][1])
}

def @second(%z: int64) {
  %0 = add(%z, 3i64);
  add(%0, -7i64)
}

#[metadata]
Constant[0]: Tensor[(3), float32] = [1, 2.5, -0 x 1]
Constant[1]: Tensor[(2, 3), float32]
)IR";
  const Module m = from_text(text);
  REQUIRE(m.size() == 2);
  CHECK(m.functions()[1].first == "second");
  check_round_trip(m);
  // The text comes back as written, except `-0 x 1`, printed `-0`.
  std::string expected = text;
  expected.replace(expected.find("-0 x 1"), 6, "-0");
  CHECK(print(m) == expected);
}

TEST_CASE("tinyir: printer options show types, spans and hide the metadata") {
  Module m = infer_types(annotate_spans(example()));
  const std::string text = print(m, {.show_types = true, .show_spans = true, .show_metadata = false});
  CHECK(text.find("  %0 = nn.conv2d(%x, %weight) /* ty=Tensor[(1, 64, 54, 54), float32] */ "
                  "/* span=GeneratedSource:2:8 */;\n") != std::string::npos);
  CHECK(text.find("#[metadata]") == std::string::npos);
  CHECK(text.find("meta[Constant][0]") != std::string::npos);
}

TEST_CASE("tinyir: printer makes variable names unique and binds shared nodes once") {
  Var a = make_var("x", tensor_type({2}));
  Var b = make_var("x", tensor_type({2}));
  Expr s = op::add(a, b);
  Module m{{"main", make_function({a, b}, op::multiply(s, s))}};
  CHECK(print(m) ==
        "def @main(%x: Tensor[(2), float32], %x1: Tensor[(2), float32]) {\n"
        "  %0 = add(%x, %x1);\n"
        "  multiply(%0, %0)\n"
        "}\n");
  check_round_trip(m);
}

TEST_CASE("tinyir: a binding used inside a nested function and after it is printed before both") {
  const std::string text = R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = nn.relu(%x);
  %1 = fn (%y: Tensor[(2), float32]) {
    add(%y, %0)
  };
  %2 = %1(%x);
  multiply(%2, %0)
}
)IR";
  Var x = make_var("x", tensor_type({2}));
  Var y = make_var("y", tensor_type({2}));
  Expr relu = op::relu(x);
  Expr call = make_call(make_function({y}, op::add(y, relu)), {x});
  const Module built{{"main", make_function({x}, op::multiply(call, relu))}};
  CHECK(print(built) == text);
  check_round_trip(built);
  CHECK(to_string(infer_types(from_text(text)).main()->body->checked_type()) == "Tensor[(2), float32]");
}

// ------------------------------------------------------------------ spans

TEST_CASE("tinyir: parsed nodes carry spans of their first token") {
  const std::string text =
      "def @main(%x: Tensor[(2), float32]) {\n"  // line 1
      "  %0 = add(%x, 1f);\n"                    // line 2
      "  let %v = nn.relu(%0);\n"                // line 3
      "  (%v, meta[Constant][0]).1\n"            // line 4
      "}\n"
      "#[metadata]\n"
      "Constant[0]: Tensor[(2), float32] = [5, 6]\n";
  const Module m = parse(text, "snippet.tir");
  const Function fn = m.main();
  REQUIRE(fn->span);
  CHECK(*fn->span == Span{"snippet.tir", 1, 1, 5, 2});
  CHECK(*fn->params[0]->span == Span{"snippet.tir", 1, 11, 1, 35});  // `%x: Tensor[(2), float32]`

  const auto* let = fn->body->as<LetNode>();
  REQUIRE(let);
  CHECK(let->span->line == 3);
  CHECK(let->span->column == 3);
  CHECK(*let->var->span == Span{"snippet.tir", 3, 7, 3, 9});

  const auto* relu = let->value->as<CallNode>();
  REQUIRE(relu);
  CHECK(*relu->span == Span{"snippet.tir", 3, 12, 3, 23});
  const auto* add = relu->args[0]->as<CallNode>();
  REQUIRE(add);
  CHECK(*add->span == Span{"snippet.tir", 2, 8, 2, 19});
  CHECK(*add->args[1]->span == Span{"snippet.tir", 2, 16, 2, 18});  // the literal 1f

  const auto* get = let->body->as<TupleGetItemNode>();
  REQUIRE(get);
  CHECK(*get->span == Span{"snippet.tir", 4, 3, 4, 28});
  const auto* tuple = get->tuple->as<TupleNode>();
  REQUIRE(tuple);
  CHECK(*tuple->span == Span{"snippet.tir", 4, 3, 4, 26});
  CHECK(*tuple->fields[1]->span == Span{"snippet.tir", 4, 8, 4, 25});  // meta[Constant][0]
  CHECK(to_string(*tuple->fields[1]->span) == "snippet.tir:4:8");
  // Every node has one.
  post_order_visit(fn, [](const Expr& e) { CHECK(e->span.has_value()); });
}

TEST_CASE("tinyir: annotate_spans gives every node a GeneratedSource span") {
  const Module m = annotate_spans(example());
  CHECK(structural_equal(m, example()));
  std::size_t nodes = 0;
  post_order_visit(m.main(), [&](const Expr& e) {
    ++nodes;
    REQUIRE(e->span.has_value());
    CHECK(e->span->source == "GeneratedSource");
  });
  CHECK(nodes == count_nodes(example()));
  // %4 = add(%3, meta[Constant][0]) is on line 6.
  const auto* root = m.main()->body->as<CallNode>();
  REQUIRE(root);
  CHECK(to_string(*root->span) == "GeneratedSource:8:3");
  CHECK(to_string(*root->args[0]->span) == "GeneratedSource:6:8");
  // The constant's span is its first use.
  const Expr c = root->args[0]->as<CallNode>()->args[1];
  CHECK(to_string(*c->span) == "GeneratedSource:3:12");
}

// ------------------------------------------------------------------ parse errors

TEST_CASE("tinyir: parse errors show the place, the line and a caret") {
  CHECK(parse_error_of("def @main(%x: Tensor[(2), float32]) {\n  add(%x, %x\n}\n") ==
        "input.tir:3:1: error: expected ',' or ')' in the call of add, found '}'\n"
        "}\n"
        "^");
  CHECK(parse_error_of("def @main(%x: Tensor[(2), float32]) {\n  nn.con2d(%x, %x)\n}\n") ==
        "input.tir:2:3: error: expected an operator, found unknown operator 'nn.con2d' (did you mean "
        "'nn.conv2d'?)\n"
        "  nn.con2d(%x, %x)\n"
        "  ^");
  CHECK(parse_error_of("def @main(%x: Tensor[(2), float32]) {\n  add(%x, %y)\n}\n") ==
        "input.tir:2:11: error: expected a defined variable or binding, found undefined '%y' (did you mean "
        "'%x'?)\n"
        "  add(%x, %y)\n"
        "          ^");
}

TEST_CASE("tinyir: parse errors render through passinfra: tabs, CRLF, NUL and end of input") {
  // The caret line keeps the tabs of the line above it.
  CHECK(parse_error_of("def @main(%y: float32) {\n\tadd(%y,\t%x)\n}") ==
        "input.tir:2:10: error: expected a defined variable or binding, found undefined '%x' (did you mean "
        "'%y'?)\n"
        "\tadd(%y,\t%x)\n"
        "\t       \t^");
  // CRLF line ends: no \r in the message.
  CHECK(parse_error_of("def @main() {\r\n  add(1f)\r\n}\r\n") ==
        "input.tir:2:3: error: expected 2 arguments for add (lhs, rhs), found 1\n"
        "  add(1f)\n"
        "  ^");
  // A NUL byte shows as \0 (what() is a C string: it would end there).
  CHECK(parse_error_of(std::string("def @main() { \0 }", 17)) ==
        "input.tir:1:15: error: expected a token, found unexpected character '\\0'\n"
        "def @main() { \\0 }\n"
        "              ^");
  // End of input after a final newline is the empty line after it.
  CHECK(parse_error_of("def @main() {\n  1f\n") ==
        "input.tir:3:1: error: expected '}' to close the function body, found end of input\n"
        "\n"
        "^");
  // The error carries passinfra's Span, which is tinyir's.
  try {
    parse("def @main() {\n  add(1f)\n}", "here");
    FAIL("no ParseError");
  } catch (const ParseError& e) {
    CHECK(e.span() == Span{"here", 2, 3, 0, 0});
    CHECK(std::is_same_v<Span, passinfra::Span>);
  }
}

TEST_CASE("tinyir: parse errors name what was expected and what was found") {
  CHECK(parse_error_of("def @main(%x: Tensor[(2), float33]) { %x }")
            .find("input.tir:1:27: error: expected a dtype such as float32, found 'float33'") == 0);
  CHECK(parse_error_of("def @main(%x: Tensor[(2), float32]) {\n  nn.relu(%x, %x)\n}")
            .find("input.tir:2:3: error: expected 1 argument for nn.relu (data), found 2") == 0);
  CHECK(parse_error_of("def @main(%x: Tensor[(1, 1, 2, 2), float32]) {\n  nn.max_pool2d(%x, pool=[2, 2])\n}")
            .find("input.tir:2:21: error: expected an attribute of nn.max_pool2d (pool_size, strides, dilation, "
                  "padding, layout, ceil_mode), found 'pool'\n") == 0);
  CHECK(parse_error_of("def @main(%x: Tensor[(1, 1, 2, 2), float32]) {\n  nn.max_pool2d(%x, strides=[2, 2], "
                       "paddin=[1, 1])\n}")
            .find("found 'paddin' (did you mean 'padding'?)\n") != std::string::npos);
  CHECK(parse_error_of("def @main(%x: float32) {\n  clip(%x, a_min=\"low\", a_max=1f)\n}")
            .find("input.tir:2:3: error: attribute 'a_min' of operator 'clip' expects double, found string "
                  "\"low\"") == 0);
  CHECK(parse_error_of("def @main(%x: float32) {\n  add(%x, meta[Constant][3])\n}")
            .find("input.tir:2:26: error: expected a constant defined in the #[metadata] section, found "
                  "meta[Constant][3] and no metadata section") == 0);
  CHECK(parse_error_of("def @main() {\n  %0 = 1f;\n  %0 = 2f;\n  %0\n}")
            .find("input.tir:3:3: error: redefinition of %0") == 0);
  CHECK(parse_error_of("def @main() { 1f } /* open")
            .find("input.tir:1:20: error: expected '*/' to close this comment, found end of input") == 0);
  CHECK(parse_error_of("def @main() {\n}")
            .find("input.tir:2:1: error: expected an expression as the result of the block, found '}'") == 0);
  CHECK(parse_error_of("def @main() { 1f }\n#[metadata]\nConstant[0]: Tensor[(2), float32] = [1]")
            .find("input.tir:3:37: error: expected 2 values for Tensor[(2), float32], found 1") == 0);
  CHECK(parse_error_of("def @main() { 1f }\ndef @main() { 2f }").find("input.tir:2:5: error: redefinition of @main") ==
        0);
  // The ParseError carries the location.
  try {
    parse("def @main() {\n  add(1f)\n}", "here");
    FAIL("no ParseError");
  } catch (const ParseError& e) {
    CHECK(e.source() == "here");
    CHECK(e.line() == 2);
    CHECK(e.column() == 3);
    CHECK(e.message() == "expected 2 arguments for add (lhs, rhs), found 1");
  }
}

// ------------------------------------------------------------------ type inference

TEST_CASE("tinyir: type inference of elementwise ops broadcasts") {
  CHECK(to_string(type_of_main("def @main(%a: Tensor[(2, 1, 3), float32], %b: Tensor[(4, 1), float32]) {\n"
                               "  add(%a, %b)\n}")) == "Tensor[(2, 4, 3), float32]");
  CHECK(to_string(type_of_main("def @main(%a: Tensor[(5), int32]) {\n  divide(%a, 2)\n}")) == "Tensor[(5), int32]");
  CHECK(to_string(type_of_main("def @main(%a: Tensor[(5), float32]) {\n  clip(%a, a_min=0f, a_max=6f)\n}")) ==
        "Tensor[(5), float32]");
}

TEST_CASE("tinyir: type inference of nn.conv2d in both layouts") {
  CHECK(to_string(type_of_main(
            "def @main(%x: Tensor[(1, 3, 224, 224), float32], %w: Tensor[(64, 3, 7, 7), float32]) {\n"
            "  nn.conv2d(%x, %w, strides=[2, 2], padding=[3, 3, 3, 3], channels=64, kernel_size=[7, 7])\n}")) ==
        "Tensor[(1, 64, 112, 112), float32]");
  CHECK(
      to_string(type_of_main("def @main(%x: Tensor[(1, 56, 56, 64), float32], %w: Tensor[(3, 3, 64, 32), float32]) {\n"
                             "  nn.conv2d(%x, %w, padding=[1, 1, 1, 1], dilation=[2, 2], data_layout=\"NHWC\", "
                             "kernel_layout=\"HWIO\")\n}")) == "Tensor[(1, 54, 54, 32), float32]");
  // Grouped (depthwise) convolution, output in another layout.
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(1, 32, 10, 10), float32], %w: Tensor[(32, 1, 3, 3), float32]) {\n"
                               "  nn.conv2d(%x, %w, groups=32, out_layout=\"NHWC\")\n}")) ==
        "Tensor[(1, 8, 8, 32), float32]");
}

TEST_CASE("tinyir: type inference of the remaining operators") {
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(1, 8, 4, 4), float32], %g: Tensor[(8), float32]) {\n"
                               "  nn.batch_norm(%x, %g, %g, %g, %g)\n}")) ==
        "(Tensor[(1, 8, 4, 4), float32], Tensor[(8), float32], Tensor[(8), float32])");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(1, 64, 112, 112), float32]) {\n"
                               "  nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])\n}")) ==
        "Tensor[(1, 64, 56, 56), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(1, 3, 6, 6), float32]) {\n"
                               "  nn.max_pool2d(%x, pool_size=[2, 2], strides=[4, 4], ceil_mode=1)\n}")) ==
        "Tensor[(1, 3, 2, 2), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(1, 7, 7, 512), float32]) {\n"
                               "  nn.global_avg_pool2d(%x, layout=\"NHWC\")\n}")) == "Tensor[(1, 1, 1, 512), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(2, 512, 1, 1), float32]) {\n  nn.batch_flatten(%x)\n}")) ==
        "Tensor[(2, 512), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(2, 512), float32], %w: Tensor[(10, 512), float32]) {\n"
                               "  nn.dense(%x, %w, units=10)\n}")) == "Tensor[(2, 10), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(2, 10), float32], %b: Tensor[(10), float32]) {\n"
                               "  %0 = nn.bias_add(%x, %b, axis=-1);\n  nn.softmax(%0)\n}")) ==
        "Tensor[(2, 10), float32]");
  CHECK(to_string(type_of_main("def @main(%b: Tensor[(64), float32]) {\n"
                               "  expand_dims(%b, axis=1, num_newaxis=2)\n}")) == "Tensor[(64, 1, 1), float32]");
  CHECK(to_string(type_of_main("def @main(%b: Tensor[(2, 3), float32]) {\n  expand_dims(%b, axis=-1)\n}")) ==
        "Tensor[(2, 3, 1), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(1, 3, 5, 7), float32]) {\n"
                               "  layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\")\n}")) ==
        "Tensor[(1, 5, 7, 3), float32]");
  CHECK(to_string(type_of_main("def @main(%w: Tensor[(8, 4, 3, 3), float32]) {\n"
                               "  layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\")\n}")) ==
        "Tensor[(3, 3, 4, 8), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(2, 3, 4), float32]) {\n"
                               "  reshape(%x, newshape=[0, -1])\n}")) == "Tensor[(2, 12), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(2, 3, 4), float32]) {\n  (%x, %x).1\n}")) ==
        "Tensor[(2, 3, 4), float32]");
  CHECK(to_string(type_of_main("def @main(%x: Tensor[(2), float32], %y: int32) {\n  ((%x, %y), %x).0.1\n}")) ==
        "int32");
}

TEST_CASE("tinyir: infer_types types every node of resnet18") {
  for (bool bind : {false, true}) {
    const Module m = infer_types(resnet18(bind));
    CHECK(has_checked_types(m.main()));
    CHECK(to_string(m.main()->body->checked_type()) == "Tensor[(1, 1000), float32]");
    CHECK(to_string(m.main()->checked_type()).find("-> Tensor[(1, 1000), float32]") != std::string::npos);
  }
}

TEST_CASE("tinyir: type errors name the expression, the place and expected against found") {
  const std::string conv = type_error_of([] {
    infer_types(
        from_text("def @main(%x: Tensor[(1, 64, 56, 56), float32], %w: Tensor[(64, 32, 3, 3), float32]) {\n"
                  "  %0 = nn.conv2d(%x, %w, channels=64);\n  nn.relu(%0)\n}"));
  });
  CHECK(conv ==
        "test:2:8: type error in `nn.conv2d(%x, %w, channels=64)`: argument 2 (weight): expected 64 input channels "
        "(data channels 64 / groups 1) in OIHW layout, found 32 (weight Tensor[(64, 32, 3, 3), float32])");

  CHECK(type_error_of([] {
          infer_types(
              from_text("def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(4), float32]) {\n"
                        "  add(%a, %b)\n}"));
        }) ==
        "test:2:3: type error in `add(%a, %b)`: expected shapes that broadcast, found (2, 3) and (4) "
        "(dimension -1: 3 vs 4)");
  CHECK(type_error_of([] {
          infer_types(
              from_text("def @main(%a: Tensor[(2), float32], %b: Tensor[(2), int32]) {\n"
                        "  multiply(%a, %b)\n}"));
        }) ==
        "test:2:3: type error in `multiply(%a, %b)`: argument 2 (rhs): expected dtype float32 (the dtype of "
        "argument 1 (lhs)), found int32");
  CHECK(type_error_of([] {
          infer_types(from_text("def @main(%a: Tensor[(2, 3), float32]) {\n  reshape(%a, newshape=[4, 2])\n}"));
        }) ==
        "test:2:3: type error in `reshape(%a, newshape=[4, 2])`: attribute 'newshape': expected 6 elements "
        "(data Tensor[(2, 3), float32]), found 8 in [4, 2]");
  CHECK(type_error_of(
            [] { infer_types(from_text("def @main(%a: Tensor[(2), float32]) {\n  %0 = (%a, %a);\n  %0.2\n}")); }) ==
        "test:3:3: type error in `(%a, %a).2`: expected an index in [0, 2), found 2 for (Tensor[(2), float32], "
        "Tensor[(2), float32])");
  CHECK(type_error_of([] {
          infer_types(
              from_text("def @main(%a: Tensor[(2), float32], %b: Tensor[(3), float32]) {\n"
                        "  nn.dense(%a, %b)\n}"));
        }) ==
        "test:2:3: type error in `nn.dense(%a, %b)`: argument 2 (weight): expected a 2-D tensor, found "
        "Tensor[(3), float32]");
  CHECK(type_error_of([] {
          infer_types(
              from_text("def @main(%a: Tensor[(1, 2, 3, 4), float32]) {\n"
                        "  layout_transform(%a, src_layout=\"NCHW\", dst_layout=\"NHWO\")\n}"));
        }).find("expected a permutation of \"NCHW\", found \"NHWO\"") != std::string::npos);
  CHECK(type_error_of([] {
          infer_types(from_text("def @main(%a: Tensor[(2), float32]) {\n  fn (%p: float32) { %p }(%a)\n}"));
        }) == "test:2:3: type error in `fn (...) {...}(%a)`: argument 1: expected float32, found Tensor[(2), float32]");
  // Built without a parser: no span, the message still names the call.
  CHECK(type_error_of([] {
          Var x = make_var("x", tensor_type({1, 4}));
          infer_type(op::clip(make_call("nn.relu", {x, x}), 0, 1));
        }) == "type error in `nn.relu(%x, %x)`: expected 1 argument (data), found 2");
  CHECK(type_error_of([] {
          Var x = make_var("x", tensor_type({4}));
          infer_type(make_call("expand_dims", {x}));
        }) == "type error in `expand_dims(%x)`: missing required attribute 'axis' (int)");
  CHECK(type_error_of([] {
          infer_type(make_function({make_var("x")}, make_var("x")));
        }).find("expected a type annotation on parameter %x, found none") != std::string::npos);
}

TEST_CASE("tinyir: make_call checks operator and attribute names") {
  CHECK_THROWS_WITH_AS(make_call("nn.relux", {}), "unknown operator 'nn.relux' (did you mean 'nn.relu'?)", Error);
  CHECK_THROWS_WITH_AS(make_call("nn.softmax", {}, {{"axes", 1}}),
                       "operator 'nn.softmax' has no attribute 'axes' (did you mean 'axis'?); its attributes are: axis",
                       Error);
  // Attributes are kept in schema order; defaults are dropped; padding becomes 4 values.
  Var x = make_var("x", tensor_type({1, 3, 8, 8}));
  Var w = make_var("w", tensor_type({4, 3, 3, 3}));
  const Call c = op::conv2d(x, w, {{"kernel_size", {3, 3}}, {"padding", {1, 1}}, {"groups", 1}});
  CHECK(describe(c) == "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], kernel_size=[3, 3])");
}

// ------------------------------------------------------------------ transformations

TEST_CASE("tinyir: fold_constant evaluates operators on constants with data") {
  const Module m = from_text(R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = add(meta[Constant][0], 1f);
  %1 = multiply(%0, meta[Constant][1]);
  %2 = add(%x, %1);
  %3 = add(meta[Constant][2], 1f);
  %4 = clip(%2, a_min=0f, a_max=6f);
  (%4, %3)
}

#[metadata]
Constant[0]: Tensor[(2), float32] = [1, 2]
Constant[1]: Tensor[(2), float32] = [3, -1]
Constant[2]: Tensor[(2), float32]
)IR");
  CHECK(print(fold_constant(m)) == R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = add(%x, meta[Constant][0]);
  %1 = clip(%0, a_min=0f, a_max=6f);
  %2 = add(meta[Constant][1], 1f);
  (%1, %2)
}

#[metadata]
Constant[0]: Tensor[(2), float32] = [6, -3]
Constant[1]: Tensor[(2), float32]
)IR");
}

TEST_CASE("tinyir: fold_constant on the example folds add(c, c) and the multiply") {
  CHECK(print(fold_constant(example())) ==
        R"IR(def @main(%x: Tensor[(1, 64, 56, 56), float32], %weight: Tensor[(64, 64, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %weight);
  %1 = add(%0, meta[Constant][0]);
  %2 = add(%1, meta[Constant][1]);
  %3 = add(%1, meta[Constant][1]);
  add(%2, %3)
}

#[metadata]
Constant[0]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
Constant[1]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
)IR");
}

TEST_CASE("tinyir: fold_constant computes broadcasts, transposes and reshapes") {
  const Module m = from_text(R"IR(def @main() {
  %0 = subtract(meta[Constant][0], meta[Constant][1]);
  %1 = divide(%0, 2f);
  %2 = nn.relu(%1);
  %3 = reshape(%2, newshape=[3, 2]);
  %4 = expand_dims(%3, axis=0);
  %5 = layout_transform(meta[Constant][2], src_layout="NCHW", dst_layout="NHWC");
  (%4, %5)
}

#[metadata]
Constant[0]: Tensor[(2, 1), float32] = [10, 20]
Constant[1]: Tensor[(3), float32] = [0, 12, 30]
Constant[2]: Tensor[(1, 2, 1, 3), float32] = [1, 2, 3, 4, 5, 6]
)IR");
  CHECK(print(fold_constant(m)) == R"IR(def @main() {
  (meta[Constant][0], meta[Constant][1])
}

#[metadata]
Constant[0]: Tensor[(1, 3, 2), float32] = [5, 0 x 2, 10, 4, 0]
Constant[1]: Tensor[(1, 1, 3, 2), float32] = [1, 4, 2, 5, 3, 6]
)IR");
}

TEST_CASE("tinyir: eliminate_common_subexpr merges equal calls") {
  const Module m = from_text(R"IR(def @main(%x: Tensor[(1, 4), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  %2 = add(%0, %1);
  %3 = add(%1, %0);
  %4 = nn.softmax(%x, axis=0);
  %5 = nn.softmax(%x);
  %6 = multiply(%2, %3);
  (%6, %4, %5)
}
)IR");
  CHECK(print(eliminate_common_subexpr(m)) == R"IR(def @main(%x: Tensor[(1, 4), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, %0);
  %2 = multiply(%1, %1);
  %3 = nn.softmax(%x, axis=0);
  %4 = nn.softmax(%x);
  (%2, %3, %4)
}
)IR");
  // The tutorial's case: the two add(%y, c) become one.
  const Module folded = eliminate_common_subexpr(fold_constant(example()));
  CHECK(print(folded).find("  %2 = add(%1, meta[Constant][1]);\n  add(%2, %2)\n") != std::string::npos);
  CHECK(count_calls(folded).at("add") == 3);
}

TEST_CASE("tinyir: dead_code_elimination removes unused lets") {
  const Module m = from_text(R"IR(def @main(%x: Tensor[(2), float32]) {
  let %a = nn.relu(%x);
  let %b = add(%a, %a);
  let %u = nn.relu(%x);
  let %w = add(%u, %u);
  let %c = multiply(%a, %x);
  let %d = add(%c, %c);
  %c
}
)IR");
  CHECK(print(dead_code_elimination(m)) == R"IR(def @main(%x: Tensor[(2), float32]) {
  let %a = nn.relu(%x);
  let %c = multiply(%a, %x);
  %c
}
)IR");
  // Graph form has no dead code: the same nodes come back.
  const Module ex = example();
  CHECK(dead_code_elimination(ex).main() == ex.main());
}

TEST_CASE("tinyir: fuse_ops at level 1 fuses conv2d with the elementwise ops after it") {
  CHECK(print(fuse_ops(example(), 1)) ==
        R"IR(def @main(%x: Tensor[(1, 64, 56, 56), float32], %weight: Tensor[(64, 64, 3, 3), float32]) {
  %6 = fn (%p0: Tensor[(1, 64, 56, 56), float32], %p1: Tensor[(64, 64, 3, 3), float32], %p2: Tensor[(1, 64, 54, 54), float32], Primitive=1) {
    %0 = nn.conv2d(%p0, %p1);
    %1 = add(%p2, %p2);
    %2 = multiply(%1, 2f);
    %3 = add(%0, %2);
    %4 = add(%3, %p2);
    %5 = add(%3, %p2);
    add(%4, %5)
  };
  %6(%x, %weight, meta[Constant][0])
}

#[metadata]
Constant[0]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
)IR");
}

TEST_CASE("tinyir: fuse_ops at level 0 makes one function per operator call") {
  const Module m = from_text(R"IR(def @main(%x: Tensor[(1, 4), float32]) {
  %0 = nn.relu(%x);
  %1 = multiply(%0, 2f);
  add(%1, %0)
}
)IR");
  CHECK(print(fuse_ops(m, 0)) == R"IR(def @main(%x: Tensor[(1, 4), float32]) {
  %0 = fn (%p0: Tensor[(1, 4), float32], Primitive=1) {
    nn.relu(%p0)
  };
  %1 = %0(%x);
  %2 = fn (%p1: Tensor[(1, 4), float32], Primitive=1) {
    multiply(%p1, 2f)
  };
  %3 = %2(%1);
  %4 = fn (%p2: Tensor[(1, 4), float32], %p3: Tensor[(1, 4), float32], Primitive=1) {
    add(%p2, %p3)
  };
  %4(%3, %1)
}
)IR");
  // At level 1 the three are one group (relu's post-dominator is the add).
  CHECK(count_calls(fuse_ops(m, 1)).size() == 3);
  CHECK(print(fuse_ops(m, 1)).find("Primitive=1") == print(fuse_ops(m, 1)).rfind("Primitive=1"));
}

TEST_CASE("tinyir: fuse_ops on resnet18 groups like Relay and defuse_ops inverts it") {
  const Module r = resnet18(true);
  const Module fused = infer_types(fuse_ops(canonicalize_ops(r), 2));
  const std::string text = print(fused);
  // conv2d + residual add, the projection + relu after a batch_norm, dense + add are groups.
  CHECK(text.find("  %27 = fn (%p30: Tensor[(1, 64, 56, 56), float32], %p31: Tensor[(64, 64, 3, 3), float32], "
                  "%p32: Tensor[(1, 64, 56, 56), float32], Primitive=1) {\n"
                  "    %26 = nn.conv2d(%p30, %p31, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);\n"
                  "    add(%26, %p32)\n  };\n") != std::string::npos);
  CHECK(text.find("  %8 = fn (%p12: (Tensor[(1, 64, 112, 112), float32], Tensor[(64), float32], Tensor[(64), "
                  "float32]), Primitive=1) {\n    %7 = %p12.0;\n    nn.relu(%7)\n  };\n  %9 = %8(%6);\n") !=
        std::string::npos);
  CHECK(text.find("    %149 = nn.dense(%p166, %p167, units=1000);\n    add(%149, %p168)\n") != std::string::npos);
  // The data's batch_norm projection stays alone (conv2d cannot absorb it).
  CHECK(text.find("  %2 = %1.0;\n") != std::string::npos);
  std::size_t functions = 0;
  for (std::size_t at = text.find("Primitive=1"); at != std::string::npos; at = text.find("Primitive=1", at + 1))
    ++functions;
  // 21 conv2d (8 with their residual add), 19 batch_norm, 18 relu (with their projection),
  // max_pool2d, global_avg_pool2d, batch_flatten, dense + add, softmax.
  CHECK(functions == 21 + 19 + 18 + 1 + 1 + 1 + 1 + 1);
  check_round_trip(fused);
  check_round_trip(to_a_normal_form(fused));
  const Module back = defuse_ops(fused);
  CHECK(structural_equal(back, canonicalize_ops(r)));
  CHECK(print(back) == print(canonicalize_ops(r)));
}

TEST_CASE("tinyir: defuse_ops inlines primitive functions") {
  CHECK(print(defuse_ops(fuse_ops(example(), 0))) == kExampleText);
  CHECK(print(defuse_ops(fuse_ops(example(), 1))) == kExampleText);
}

TEST_CASE("tinyir: to_a_normal_form binds every call") {
  CHECK(print(to_a_normal_form(example())) ==
        R"IR(def @main(%x: Tensor[(1, 64, 56, 56), float32], %weight: Tensor[(64, 64, 3, 3), float32]) {
  let %v0 = nn.conv2d(%x, %weight);
  let %v1 = add(meta[Constant][0], meta[Constant][0]);
  let %v2 = multiply(%v1, 2f);
  let %v3 = add(%v0, %v2);
  let %v4 = add(%v3, meta[Constant][0]);
  let %v5 = add(%v3, meta[Constant][0]);
  let %v6 = add(%v4, %v5);
  %v6
}

#[metadata]
Constant[0]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
)IR");
  const Module m = from_text(R"IR(def @main(%x: Tensor[(2), float32]) {
  let %a = nn.relu(%x);
  %0 = (%a, %x);
  %1 = %0.1;
  add(%1, %a)
}
)IR");
  CHECK(print(to_a_normal_form(m)) == R"IR(def @main(%x: Tensor[(2), float32]) {
  let %a = nn.relu(%x);
  let %v0 = (%a, %x);
  let %v1 = %v0.1;
  let %v2 = add(%v1, %a);
  %v2
}
)IR");
  // A normal form is a fixed point, DCE keeps it, and it computes the same thing.
  const Module anf = to_a_normal_form(resnet18(true));
  CHECK(print(to_a_normal_form(anf)) == print(anf));
  CHECK(has_checked_types(infer_types(anf).main()));
  CHECK(print(dead_code_elimination(anf)) == print(anf));
  check_round_trip(anf);
}

TEST_CASE("tinyir: canonicalize_ops rewrites bias_add into add and expand_dims") {
  const Module m = from_text(
      R"IR(def @main(%x: Tensor[(1, 4, 2, 2), float32], %b: Tensor[(4), float32], %y: Tensor[(3, 4), float32]) {
  %0 = nn.bias_add(%x, %b);
  %1 = nn.bias_add(%y, %b, axis=-1);
  (%0, %1)
}
)IR");
  const Module c = canonicalize_ops(m);
  CHECK(print(c) ==
        R"IR(def @main(%x: Tensor[(1, 4, 2, 2), float32], %b: Tensor[(4), float32], %y: Tensor[(3, 4), float32]) {
  %0 = expand_dims(%b, axis=1, num_newaxis=2);
  %1 = add(%x, %0);
  %2 = add(%y, %b);
  (%1, %2)
}
)IR");
  CHECK(to_string(infer_types(c).main()->body->checked_type()) ==
        "(Tensor[(1, 4, 2, 2), float32], Tensor[(3, 4), float32])");
}

TEST_CASE("tinyir: convert_layout runs conv2d in NHWC with transforms at the edges") {
  CHECK(print(convert_layout(example(), {{"nn.conv2d", {"NHWC", "default"}}})) ==
        R"IR(def @main(%x: Tensor[(1, 64, 56, 56), float32], %weight: Tensor[(64, 64, 3, 3), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%weight, src_layout="OIHW", dst_layout="HWIO");
  %2 = nn.conv2d(%0, %1, data_layout="NHWC", kernel_layout="HWIO");
  %3 = add(meta[Constant][0], meta[Constant][0]);
  %4 = multiply(%3, 2f);
  %5 = layout_transform(%4, src_layout="NCHW", dst_layout="NHWC");
  %6 = add(%2, %5);
  %7 = layout_transform(meta[Constant][0], src_layout="NCHW", dst_layout="NHWC");
  %8 = add(%6, %7);
  %9 = add(%6, %7);
  %10 = add(%8, %9);
  layout_transform(%10, src_layout="NHWC", dst_layout="NCHW")
}

#[metadata]
Constant[0]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
)IR");
  const Module m = from_text(
      R"IR(def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %g: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.batch_norm(%0, %g, %g, %g, %g);
  %2 = %1.0;
  %3 = nn.relu(%2);
  %4 = nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2]);
  %5 = nn.global_avg_pool2d(%4);
  nn.batch_flatten(%5)
}
)IR");
  const Module c = convert_layout(m, {{"nn.conv2d", {"NHWC"}}});
  CHECK(print(c) ==
        R"IR(def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %g: Tensor[(4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = layout_transform(%w, src_layout="OIHW", dst_layout="HWIO");
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO");
  %3 = nn.batch_norm(%2, %g, %g, %g, %g, axis=3);
  %4 = %3.0;
  %5 = nn.relu(%4);
  %6 = nn.max_pool2d(%5, pool_size=[2, 2], strides=[2, 2], layout="NHWC");
  %7 = nn.global_avg_pool2d(%6, layout="NHWC");
  %8 = layout_transform(%7, src_layout="NHWC", dst_layout="NCHW");
  nn.batch_flatten(%8)
}
)IR");
  CHECK(type_equal(infer_types(c).main()->body->checked_type(), infer_types(m).main()->body->checked_type()));
  CHECK_THROWS_WITH_AS(convert_layout(m, {{"nn.dense", {"NC"}}}),
                       "convert_layout: expected desired layouts for nn.conv2d, found an entry for 'nn.dense'", Error);
}

TEST_CASE("tinyir: convert_layout then fold_constant on resnet18 keeps the types") {
  const Module r = resnet18(true);
  const Module c = fold_constant(convert_layout(r, {{"nn.conv2d", {"NHWC", "default"}}}));
  const Module typed = infer_types(c);
  CHECK(to_string(typed.main()->body->checked_type()) == "Tensor[(1, 1000), float32]");
  const auto before = count_calls(r);
  const auto after = count_calls(c);
  CHECK(before.count("layout_transform") == 0);
  // data in, 21 weights (shape-only constants do not fold), and back before batch_flatten.
  CHECK(after.at("layout_transform") == 1 + 21 + 1);
  CHECK(after.at("nn.conv2d") == before.at("nn.conv2d"));
}

// Relay's ConvertLayout on operands of lower rank: the trailing sub-layout of the
// other operand is theirs ("CHW" for (4, 1, 1), "W" for (8), "C" after nn.dense's
// "NC"); they are expanded at axis 0 (missing axes in front) and transformed like
// the other operand. nn.bias_add has no layout rule in Relay: its data goes back
// to NCHW first.
TEST_CASE("tinyir: convert_layout expands a lower-rank operand before its transform, as Relay") {
  const Module m = from_text(
      R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32], %b: Tensor[(4, 1, 1), float32], %v: Tensor[(8), float32], %c: Tensor[(4), float32], %d: Tensor[(2, 16), float32], %dw: Tensor[(3, 16), float32], %db: Tensor[(3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = add(%0, %b);
  %2 = multiply(%1, %v);
  %3 = multiply(%2, 2f);
  %4 = nn.bias_add(%3, %c);
  %5 = nn.dense(%d, %dw, units=3);
  %6 = add(%5, %db);
  (%4, %6)
}
)IR");
  const Module c = convert_layout(m, {{"nn.conv2d", {"NHWC"}}});
  CHECK(
      print(infer_types(c), {.show_types = true}) ==
      R"IR(def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 3, 3), float32], %b: Tensor[(4, 1, 1), float32], %v: Tensor[(8), float32], %c: Tensor[(4), float32], %d: Tensor[(2, 16), float32], %dw: Tensor[(3, 16), float32], %db: Tensor[(3), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC") /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %1 = layout_transform(%w, src_layout="OIHW", dst_layout="HWIO") /* ty=Tensor[(3, 3, 4, 4), float32] */;
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], data_layout="NHWC", kernel_layout="HWIO") /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %3 = expand_dims(%b, axis=0) /* ty=Tensor[(1, 4, 1, 1), float32] */;
  %4 = layout_transform(%3, src_layout="NCHW", dst_layout="NHWC") /* ty=Tensor[(1, 1, 1, 4), float32] */;
  %5 = add(%2, %4) /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %6 = expand_dims(%v, axis=0, num_newaxis=3) /* ty=Tensor[(1, 1, 1, 8), float32] */;
  %7 = layout_transform(%6, src_layout="NHCW", dst_layout="NHWC") /* ty=Tensor[(1, 1, 8, 1), float32] */;
  %8 = multiply(%5, %7) /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %9 = multiply(%8, 2f) /* ty=Tensor[(1, 8, 8, 4), float32] */;
  %10 = layout_transform(%9, src_layout="NHWC", dst_layout="NCHW") /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %11 = nn.bias_add(%10, %c) /* ty=Tensor[(1, 4, 8, 8), float32] */;
  %12 = nn.dense(%d, %dw, units=3) /* ty=Tensor[(2, 3), float32] */;
  %13 = expand_dims(%db, axis=0) /* ty=Tensor[(1, 3), float32] */;
  %14 = add(%12, %13) /* ty=Tensor[(2, 3), float32] */;
  (%11, %14) /* ty=(Tensor[(1, 4, 8, 8), float32], Tensor[(2, 3), float32]) */
}
)IR");
  CHECK(!verify(c));
  // After CanonicalizeOps the bias is add(x, expand_dims(%c, axis=1, num_newaxis=2)):
  // rank 3, so expanded once more and transformed, and the add stays in NHWC.
  const auto counts = count_calls(convert_layout(canonicalize_ops(m), {{"nn.conv2d", {"NHWC"}}}));
  CHECK(counts.at("expand_dims") == 5);
  CHECK(counts.at("layout_transform") == 6);  // %x, %w, %b, %v, %c in; the result out
  CHECK(counts.count("nn.bias_add") == 0);
}

TEST_CASE("tinyir: convert_layout then fold_constant folds the expanded, transformed constants") {
  // %v's values along W (0..7): after NHWC conversion and folding, a (1, 1, 8, 1)
  // constant holding the same values along W.
  std::vector<float> v(8);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  Var x = make_var("x", tensor_type({1, 2, 8, 8}));
  Var w = make_var("w", tensor_type({2, 2, 1, 1}));
  Expr body = op::multiply(op::conv2d(x, w), make_constant(tensor_type({8}), v));
  const Module m{{"main", make_function({x, w}, body)}};
  const Module folded = fold_constant(convert_layout(m, {{"nn.conv2d", {"NHWC"}}}));
  const auto counts = count_calls(folded);
  CHECK(counts.count("expand_dims") == 0);
  CHECK(counts.at("layout_transform") == 3);  // x and w in, the result out
  std::vector<Constant> constants;
  post_order_visit(folded.main()->body, [&](const Expr& e) {
    if (e->kind == ExprKind::Constant) constants.push_back(std::static_pointer_cast<const ConstantNode>(e));
  });
  REQUIRE(constants.size() == 1);
  CHECK(to_string(constants[0]->type) == "Tensor[(1, 1, 8, 1), float32]");
  REQUIRE(constants[0]->data);
  CHECK(*constants[0]->data == v);
}

TEST_CASE("tinyir: canonicalize_ops, convert_layout and fold_constant on resnet18 give the tutorial's op counts") {
  // relay.testing.resnet's parameters bound to constants with data (zeros), as the
  // instrument tutorial's bind_params_by_name does.
  const Module r = resnet18(false);
  std::unordered_map<const VarNode*, Expr> binds;
  std::vector<Var> params;
  for (const Var& p : r.main()->params) {
    if (p->name == "data") {
      params.push_back(p);
      continue;
    }
    const auto n = static_cast<std::size_t>(num_elements(*as_tensor(p->type_annotation)));
    binds.emplace(p.get(), make_constant(p->type_annotation, std::vector<float>(n, 0.0f)));
  }
  const Module bound{{"main", make_function(params, substitute(r.main()->body, binds))}};
  const Module canonical = canonicalize_ops(bound);
  const Module converted = convert_layout(canonical, {{"nn.conv2d", {"NHWC", "HWIO"}}});
  const Module folded = fold_constant(converted);
  auto count = [](const Module& m, const char* op) {
    const auto c = count_calls(m);
    const auto it = c.find(op);
    return it == c.end() ? std::size_t{0} : it->second;
  };
  // ConvertLayout: data in and out, 21 weights; the classifier's bias, added to
  // nn.dense's "NC" result, is expanded from "C". FoldConstant folds the constants'.
  CHECK(count(canonical, "expand_dims") == 0);
  CHECK(count(converted, "layout_transform") == 23);
  CHECK(count(converted, "expand_dims") == 1);
  CHECK(count(folded, "layout_transform") == 2);
  CHECK(count(folded, "expand_dims") == 0);
  CHECK(!verify(folded));
  CHECK(to_string(infer_types(folded).main()->body->checked_type()) == "Tensor[(1, 1000), float32]");
}

// ---- FoldScaleAxis: each program evaluated before and after on the same inputs.

// Deterministic, varied values (every other one negative unless `positive`).
std::vector<float> sample_values(std::size_t n, unsigned seed, bool positive = false) {
  std::vector<float> v(n);
  unsigned x = seed * 2654435761u + 12345u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    const float u = 0.25f + static_cast<float>((x >> 8) % 1000) / 1000.0f;  // [0.25, 1.25)
    v[i] = positive || i % 2 == 1 ? u : -u;
  }
  return v;
}

// conv2d in NCHW/OIHW (groups 1, dilation 1), what fold_constant does not evaluate.
std::vector<float> conv2d_nchw(const CallNode& c, const ConstantNode& x, const ConstantNode& w, const TensorType& out) {
  const auto& xs = x.tensor_type().shape;
  const auto& ws = w.tensor_type().shape;
  const AttrValue* st = c.attrs.find("strides");
  const AttrValue* pd = c.attrs.find("padding");
  const std::int64_t sh = st ? st->as_ints()[0] : 1, sw = st ? st->as_ints()[1] : 1;
  const std::int64_t pt = pd ? pd->as_ints()[0] : 0, pl = pd ? pd->as_ints()[1] : 0;
  std::vector<float> r(static_cast<std::size_t>(num_elements(out)), 0.0f);
  const auto& os = out.shape;
  auto at = [](const std::vector<std::int64_t>& s, std::int64_t a, std::int64_t b, std::int64_t c2, std::int64_t d) {
    return static_cast<std::size_t>(((a * s[1] + b) * s[2] + c2) * s[3] + d);
  };
  for (std::int64_t n = 0; n < os[0]; ++n)
    for (std::int64_t o = 0; o < os[1]; ++o)
      for (std::int64_t y = 0; y < os[2]; ++y)
        for (std::int64_t xx = 0; xx < os[3]; ++xx) {
          float acc = 0.0f;
          for (std::int64_t i = 0; i < ws[1]; ++i)
            for (std::int64_t ky = 0; ky < ws[2]; ++ky)
              for (std::int64_t kx = 0; kx < ws[3]; ++kx) {
                const std::int64_t iy = y * sh + ky - pt, ix = xx * sw + kx - pl;
                if (iy < 0 || ix < 0 || iy >= xs[2] || ix >= xs[3]) continue;
                acc += (*x.data)[at(xs, n, i, iy, ix)] * (*w.data)[at(ws, o, i, ky, kx)];
              }
          r[at(os, n, o, y, xx)] = acc;
        }
  return r;
}

// The values of @main's result (a tensor) with every parameter bound to sample
// values: fold_constant's evaluator for every operator but conv2d.
std::vector<float> evaluate_main(const Module& m) {
  std::unordered_map<const VarNode*, Expr> binds;
  unsigned seed = 1;
  for (const Var& p : m.main()->params) {
    const TensorType& t = *as_tensor(p->type_annotation);
    binds.emplace(p.get(),
                  make_constant(p->type_annotation, sample_values(static_cast<std::size_t>(num_elements(t)), seed++)));
  }
  const Module bound = infer_types(Module{{"main", make_function({}, substitute(m.main()->body, binds))}});
  std::unordered_map<const ExprNode*, Constant> value;
  post_order_visit(bound.main()->body, [&](const Expr& e) {
    if (e->kind == ExprKind::Constant) {
      value[e.get()] = std::static_pointer_cast<const ConstantNode>(e);
      return;
    }
    const auto* c = e->as<CallNode>();
    if (!c) return;
    const TensorType& out = *as_tensor(e->checked_type());
    std::vector<const ConstantNode*> args;
    for (const Expr& a : c->args) args.push_back(value.at(a.get()).get());
    std::vector<float> data;
    if (c->op == "nn.conv2d") {
      data = conv2d_nchw(*c, *args[0], *args[1], out);
    } else if (c->op == "nn.dense") {  // (n, k) x (units, k)
      const auto k = static_cast<std::size_t>(args[0]->tensor_type().shape[1]);
      const auto units = static_cast<std::size_t>(out.shape[1]);
      data.assign(static_cast<std::size_t>(num_elements(out)), 0.0f);
      for (std::size_t i = 0; i < data.size(); ++i)
        for (std::size_t j = 0; j < k; ++j)
          data[i] += (*args[0]->data)[i / units * k + j] * (*args[1]->data)[i % units * k + j];
    } else if (c->op == "nn.bias_add") {  // axis 1 of NCHW
      const auto& sh = out.shape;
      const auto plane = static_cast<std::size_t>(sh[2] * sh[3]);
      data = *args[0]->data;
      for (std::size_t i = 0; i < data.size(); ++i)
        data[i] += (*args[1]->data)[i / plane % static_cast<std::size_t>(sh[1])];
    } else {
      data = evaluate_op(*c, args, out).value();
    }
    value[e.get()] = make_constant(e->checked_type(), data);
  });
  return *value.at(bound.main()->body.get())->data;
}

bool close(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::abs(a[i] - b[i]) > 1e-4f * (1.0f + std::abs(b[i]))) return false;
  return true;
}

Constant sample_constant(std::vector<std::int64_t> shape, unsigned seed, bool positive = false) {
  const Type t = tensor_type(std::move(shape));
  return make_constant(t, sample_values(static_cast<std::size_t>(num_elements(*as_tensor(t))), seed, positive));
}

std::size_t calls_of(const Module& m, const std::string& op) {
  const auto c = count_calls(m);
  const auto it = c.find(op);
  return it == c.end() ? 0 : it->second;
}

// fold_scale_axis(m) folds every multiply away and computes what m computes.
void check_folded(const Module& m) {
  const Module f = fold_scale_axis(m);
  CHECK(calls_of(m, "multiply") > 0);
  CHECK(calls_of(f, "multiply") == 0);
  CHECK(calls_of(f, "nn.conv2d") + calls_of(f, "nn.dense") == calls_of(m, "nn.conv2d") + calls_of(m, "nn.dense"));
  CHECK(!verify(f));
  CHECK(close(evaluate_main(f), evaluate_main(m)));
}

TEST_CASE("tinyir: fold_scale_axis folds a scale after conv2d or nn.dense into the weight (backward)") {
  Var x = make_var("x", tensor_type({1, 2, 5, 5}));
  const Constant w = sample_constant({3, 2, 3, 3}, 1);
  const Attrs pad{{"padding", {1, 1}}};
  // (3, 1, 1) and (3): both broadcast on the channel axis only; negative values too.
  check_folded(
      Module{{"main", make_function({x}, op::multiply(op::conv2d(x, w, pad), sample_constant({3, 1, 1}, 2)))}});
  check_folded(Module{{"main", make_function({x}, op::multiply(sample_constant({3, 1, 1}, 3), op::conv2d(x, w)))}});
  // Through add of two convolutions, and through nn.bias_add on axis 1.
  Expr two = op::add(op::conv2d(x, w, pad), op::conv2d(x, sample_constant({3, 2, 1, 1}, 4)));
  check_folded(Module{{"main", make_function({x}, op::multiply(two, sample_constant({3, 1, 1}, 5)))}});
  Expr biased = op::bias_add(op::conv2d(x, w), sample_constant({3}, 6));
  check_folded(Module{{"main", make_function({x}, op::multiply(biased, sample_constant({3, 1, 1}, 7)))}});
  // nn.dense: the output's axis 1 scales the weight's rows.
  Var d = make_var("d", tensor_type({2, 4}));
  Expr dense = op::dense(d, sample_constant({3, 4}, 8), {{"units", 3}});
  check_folded(Module{{"main", make_function({d}, op::multiply(dense, sample_constant({3}, 9)))}});
  // The scale's own form: a reshape to (3), expanded to the kernel's O axis.
  const Module back = backward_fold_scale_axis(
      Module{{"main", make_function({x}, op::multiply(op::conv2d(x, w), make_var("s", tensor_type({3, 1, 1}))))}});
  CHECK(print(back).find("%0 = reshape(%s, newshape=[3]);\n  %1 = expand_dims(%0, axis=1, num_newaxis=3);\n  "
                         "%2 = multiply(meta[Constant][0], %1);\n  nn.conv2d(%x, %2)") != std::string::npos);
}

TEST_CASE("tinyir: fold_scale_axis folds a scale before conv2d into the weight (forward), dividing what is added") {
  Var x = make_var("x", tensor_type({1, 2, 5, 5}));
  const Constant w = sample_constant({3, 2, 3, 3}, 11);
  Expr scaled = op::multiply(x, sample_constant({2, 1, 1}, 12));
  check_folded(Module{{"main", make_function({x}, op::conv2d(scaled, w))}});
  // add(x * s, b) = (x + b / s) * s: b is divided, the scale goes on.
  Expr added = op::add(scaled, sample_constant({2, 1, 1}, 13, /*positive=*/true));
  check_folded(Module{{"main", make_function({x}, op::conv2d(added, w))}});
  // Both users of the scaled value are convolutions: both weights take it.
  check_folded(Module{{"main", make_function({x}, op::add(op::conv2d(scaled, w),
                                                          op::conv2d(scaled, sample_constant({3, 2, 3, 3}, 14))))}});
}

TEST_CASE("tinyir: fold_scale_axis crosses nn.relu only with a non-negative scale, and needs single users") {
  Var x = make_var("x", tensor_type({1, 2, 5, 5}));
  const Constant w = sample_constant({3, 2, 3, 3}, 21);
  Expr act = op::relu(op::conv2d(x, w));
  check_folded(Module{{"main", make_function({x}, op::multiply(act, sample_constant({3, 1, 1}, 22, true)))}});
  check_folded(Module{
      {"main", make_function({x}, op::conv2d(op::relu(op::multiply(x, sample_constant({2, 1, 1}, 23, true))), w))}});
  // relu(y) * s != relu(y * s) for s < 0: left alone, both ways.
  const Module neg_back{{"main", make_function({x}, op::multiply(act, sample_constant({3, 1, 1}, 24)))}};
  const Module neg_fwd{
      {"main", make_function({x}, op::conv2d(op::relu(op::multiply(x, sample_constant({2, 1, 1}, 25))), w))}};
  // A convolution used twice, and a scaled value also returned as it is.
  Expr conv = op::conv2d(x, w);
  const Module shared_back{
      {"main", make_function({x}, op::add(op::multiply(conv, sample_constant({3, 1, 1}, 26)), conv))}};
  Expr scaled = op::multiply(x, sample_constant({2, 1, 1}, 27));
  const Module shared_fwd{
      {"main", make_function({x}, op::add(op::conv2d(scaled, w), op::conv2d(x, sample_constant({3, 2, 3, 3}, 28))))}};
  const Module shared_out{{"main", make_function({x}, make_tuple_expr({op::conv2d(scaled, w), scaled}))}};
  for (const Module& m : {neg_back, neg_fwd, shared_back}) {
    const Module f = fold_scale_axis(m);
    CHECK(calls_of(f, "multiply") == calls_of(m, "multiply"));
    CHECK(close(evaluate_main(f), evaluate_main(m)));
  }
  CHECK(calls_of(fold_scale_axis(shared_fwd), "multiply") == 0);
  CHECK(print(fold_scale_axis(shared_out)) == print(fold_constant(shared_out)));
}

TEST_CASE("tinyir: multiply_constants wraps each constant as the tutorial's custom pass") {
  CHECK(print(multiply_constants(example(), 3.0f)) ==
        R"IR(def @main(%x: Tensor[(1, 64, 56, 56), float32], %weight: Tensor[(64, 64, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %weight);
  %1 = multiply(3f, meta[Constant][0]);
  %2 = add(%1, %1);
  %3 = multiply(3f, 2f);
  %4 = multiply(%2, %3);
  %5 = add(%0, %4);
  %6 = add(%5, %1);
  %7 = add(%5, %1);
  add(%6, %7)
}

#[metadata]
Constant[0]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
)IR");
  // As a function pass: one function at a time, then folded.
  const Module m = map_functions(example(), [](const Function& f, const Module&) { return multiply_constants(f, 3); });
  CHECK(print(fold_constant(m)) == print(fold_constant(example())));
}

// ------------------------------------------------------------------ module, analysis, workloads

TEST_CASE("tinyir: module keeps functions in order and copies cheaply") {
  Module m = example();
  const Module copy = m;
  CHECK(copy.main() == m.main());
  m.update("other", clip_example().main());
  m.update("main", fold_constant(m).main());
  REQUIRE(m.size() == 2);
  CHECK(m.functions()[0].first == "main");
  CHECK(m.functions()[1].first == "other");
  CHECK(m.lookup("missing") == nullptr);
  CHECK_THROWS_WITH_AS(m["missing"], "module has no function '@missing'", Error);
  CHECK(copy.size() == 1);
  CHECK(copy.main() != m.main());
  check_round_trip(m);
}

TEST_CASE("tinyir: structural_equal compares programs up to variable names") {
  const Module a = from_text("def @main(%x: Tensor[(2), float32]) {\n  add(%x, 1f)\n}");
  const Module b = from_text("def @main(%y: Tensor[(2), float32]) {\n  add(%y, 1f)\n}");
  const Module c = from_text("def @main(%y: Tensor[(2), float32]) {\n  add(%y, 2f)\n}");
  const Module d = from_text("def @main(%y: Tensor[(2), float32]) {\n  subtract(%y, 1f)\n}");
  CHECK(structural_equal(a, b));
  CHECK_FALSE(structural_equal(a, c));
  CHECK_FALSE(structural_equal(a, d));
  CHECK_FALSE(structural_equal(example(), fold_constant(example())));
}

TEST_CASE("tinyir: count_calls counts operator calls of the workloads") {
  const auto ex = count_calls(example());
  CHECK(ex.at("add") == 5);
  CHECK(ex.at("multiply") == 1);
  CHECK(ex.at("nn.conv2d") == 1);
  const auto r = count_calls(resnet18(false));
  CHECK(r.at("nn.conv2d") == 21);
  CHECK(r.at("nn.batch_norm") == 19);
  CHECK(r.at("nn.relu") == 18);
  CHECK(r.at("add") == 8);
  CHECK(r.at("nn.max_pool2d") == 1);
  CHECK(r.at("nn.global_avg_pool2d") == 1);
  CHECK(r.at("nn.batch_flatten") == 1);
  CHECK(r.at("nn.dense") == 1);
  CHECK(r.at("nn.bias_add") == 1);
  CHECK(r.at("nn.softmax") == 1);
  CHECK(resnet18(false).main()->params.size() == 1 + 19 * 4 + 21 + 2);
  CHECK(resnet18(true).main()->params.size() == 1);
  CHECK(free_vars(resnet18(false).main()->body).size() == resnet18(false).main()->params.size());
}
