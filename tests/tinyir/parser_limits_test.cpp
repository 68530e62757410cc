// Tests of the limits of tinyir's parser and type inference on hostile input
// (issue 23: 4, 5, 6, 7, 10b): every input ends in a module, a ParseError or a
// TypeError, quickly and in memory that follows the text's size -- never
// std::bad_alloc, a crash or undefined behaviour (the sanitizer builds run these).
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <string_view>

#include "tinyir/tinyir.hpp"

namespace {

using namespace tinyir;

// The ParseError message of parsing text ("" when it parses), within `seconds`.
std::string parse_message(std::string_view text, double seconds = 5.0) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string message;
  try {
    (void)parse(text, "input.tir");
  } catch (const ParseError& e) {
    message = e.message();
  }
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds);
  return message;
}

// The TypeError of typing text ("" when it types).
std::string type_message(std::string_view text) {
  const Module m = parse(text, "input.tir");
  try {
    (void)infer_types(m);
  } catch (const TypeError& e) {
    return e.detail();
  }
  return "";
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

// A well-formed UTF-8 string (no byte outside a valid sequence).
bool is_valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = detail::utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string with_constant(std::string_view constant) {
  return "def @main() { meta[Constant][0] }\n#[metadata]\n" + std::string(constant) + "\n";
}

}  // namespace

TEST_CASE("tinyir limits: a metadata run longer than the declared element count is a ParseError before expanding") {
  // 135 bytes: took 56 s and 3.9 GB, then std::bad_alloc escaped.
  const std::string m = parse_message(
      "def @main() { meta[Constant][0] }\n#[metadata]\n"
      "Constant[0]: Tensor[(1), float32] = [0 x 1000000000, 0 x 1000000000]\n");
  CHECK(contains(m, "expected 1 values for Tensor[(1), float32], found more"));
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(2), float32] = [1, 2, 3 x 9223372036854775807]")),
                 "found more"));
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(4), float32] = [1 x 3]")), "found 3"));
  CHECK(parse_message(with_constant("Constant[0]: Tensor[(4), float32] = [1 x 3, 2]")).empty());
  // More than kMaxConstantValues (16M) values in all.
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(1000000000), float32] = [0 x 1000000000]")),
                 "kMaxConstantValues"));
  CHECK(contains(parse_message("def @main() { meta[Constant][0] }\n#[metadata]\n"
                               "Constant[0]: Tensor[(10000000), float32] = [0 x 10000000]\n"
                               "Constant[1]: Tensor[(10000000), float32] = [0 x 10000000]\n"),
                 "kMaxConstantValues"));
  CHECK(parse_message(with_constant("Constant[0]: Tensor[(1000000), float32] = [0.5 x 1000000]")).empty());
}

TEST_CASE("tinyir limits: a huge constant index takes no memory of its size") {
  // 100 bytes: the constant table was resized to the index (700 MB).
  CHECK(parse_message("def @main() { meta[Constant][10000000] }\n#[metadata]\n"
                      "Constant[10000000]: Tensor[(1), float32] = [0]\n")
            .empty());
  CHECK(parse_message("def @main() { meta[Constant][9223372036854775807] }\n#[metadata]\n"
                      "Constant[9223372036854775807]: Tensor[(1), float32] = [0]\n")
            .empty());
  CHECK(contains(parse_message("def @main() { meta[Constant][5] }\n#[metadata]\n"
                               "Constant[4000000000]: Tensor[(1), float32] = [0]\n"),
                 "expected a constant defined in the #[metadata] section, found meta[Constant][5]"));
  CHECK(contains(parse_message(with_constant("Constant[0]: float32\nConstant[0]: float32")), "redefinition"));
}

TEST_CASE("tinyir limits: a shape whose element count overflows int64 is a ParseError") {
  // The product wrapped to 0 and an empty data list "matched".
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(4294967296, 4294967296), float32] = []")),
                 "overflows"));
  CHECK(contains(parse_message("def @main(%x: Tensor[(4294967296, 4294967296), float32]) { %x }"), "overflows"));
  CHECK(contains(parse_message("def @main(%x: (Tensor[(3037000500, 3037000500), int8],)) { %x }"), "overflows"));
  CHECK(contains(parse_message("def @main() { let %v: Tensor[(9223372036854775807, 2), float32] = 1f; %v }"),
                 "overflows"));
  // A large shape that fits is fine (no data is allocated for it).
  CHECK(parse_message("def @main(%x: Tensor[(3037000499, 3037000499), int8]) { %x }").empty());
  CHECK(parse_message("def @main(%x: Tensor[(0, 9223372036854775807, 9223372036854775807), int8]) { %x }").empty());
}

TEST_CASE("tinyir limits: type inference reports shape arithmetic that overflows int64 as a TypeError") {
  const std::string big = "Tensor[(4294967296, 1), float32]";
  const std::string wide = "Tensor[(1, 4294967296), float32]";
  CHECK(contains(type_message("def @main(%a: " + big + ", %b: " + wide + ") { add(%a, %b) }"), "overflow"));
  CHECK(contains(type_message("def @main(%a: " + big + ", %b: " + wide + ") { multiply(%a, %b) }"), "overflow"));
  CHECK(contains(type_message("def @main(%x: Tensor[(2, 3), float32]) { reshape(%x, newshape=[4294967296, "
                              "4294967296, -1]) }"),
                 "overflow"));
  CHECK(contains(type_message("def @main(%x: Tensor[(1, 1, 8, 8), float32]) { nn.max_pool2d(%x, pool_size=[1, "
                              "1], padding=[9223372036854775807, 0, 9223372036854775807, 0]) }"),
                 "overflow"));
  CHECK(contains(type_message("def @main(%x: Tensor[(1, 1, 8, 8), float32]) { nn.max_pool2d(%x, pool_size=[3, "
                              "3], dilation=[9223372036854775807, 1]) }"),
                 "overflow"));
  CHECK(contains(type_message("def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 2, 1, 1), float32]) "
                              "{ nn.conv2d(%x, %w, groups=4611686018427387904) }"),
                 "groups"));
  CHECK(contains(type_message("def @main(%x: Tensor[(2), float32]) { expand_dims(%x, axis=0, "
                              "num_newaxis=1000000000000) }"),
                 "at most 1024 new axes"));
  CHECK(type_message("def @main(%x: Tensor[(2), float32]) { expand_dims(%x, axis=0, num_newaxis=3) }").empty());
  CHECK(contains(type_message("def @main(%t: (float32, float32)) { %t.2147483647 }"), "expected an index"));
  CHECK(contains(parse_message("def @main(%t: (float32, float32)) { %t.2147483648 }"), "tuple index"));
  CHECK(
      contains(parse_message("def @main(%x: float32) { nn.softmax(%x, axis=99999999999999999999) }"), "fits 64 bits"));
  CHECK(contains(type_message("def @main(%x: float32) { nn.softmax(%x, axis=-9223372036854775808) }"), "axis"));
}

TEST_CASE("tinyir limits: FoldConstant does not build a result far larger than its inputs") {
  // Two vectors of 100,000 values broadcast to 10^10 values: left unfolded.
  const Module m = parse(
      "def @main() { add(meta[Constant][0], meta[Constant][1]) }\n#[metadata]\n"
      "Constant[0]: Tensor[(100000, 1), float32] = [1 x 100000]\n"
      "Constant[1]: Tensor[(1, 100000), float32] = [2 x 100000]\n",
      "input.tir");
  const Module folded = fold_constant(m);
  CHECK(count_calls(folded).at("add") == 1);
  const Module small = fold_constant(
      parse("def @main() { add(meta[Constant][0], meta[Constant][1]) }\n#[metadata]\n"
            "Constant[0]: Tensor[(100, 1), float32] = [1 x 100]\nConstant[1]: Tensor[(1, 100), float32] = [2 x 100]\n",
            "input.tir"));
  CHECK(count_calls(small).empty());
}

TEST_CASE("tinyir limits: integer literals out of their dtype's range are a ParseError") {
  CHECK(contains(parse_message("def @main() { 3000000000 }"), "expected an int32 value in [-2147483648, 2147483647]"));
  CHECK(contains(parse_message("def @main() { -2147483649 }"), "int32"));
  CHECK(contains(parse_message("def @main() { 2147483648i32 }"), "int32"));
  // Values are held as float32: 2147483647 would be 2147483648, out of int32.
  CHECK(contains(parse_message("def @main() { 2147483647 }"), "held as float32: 2147483648"));
  CHECK(parse_message("def @main() { 2147483520 }").empty());
  CHECK(parse_message("def @main() { -2147483648 }").empty());
  CHECK(parse_message("def @main() { 3000000000i64 }").empty());
  CHECK(parse_message("def @main() { -9223372036854775808i64 }").empty());
  CHECK(contains(parse_message("def @main() { 9223372036854775808i64 }"), "64 bits"));
  CHECK(contains(parse_message("def @main() { 99999999999999999999999i64 }"), "64 bits"));
  // Constant data of an integer dtype: whole numbers within the dtype's range.
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(1), int8] = [128]")), "int8"));
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(1), uint8] = [-1]")), "uint8"));
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(1), int32] = [3000000000]")), "int32"));
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(1), bool] = [2]")), "bool"));
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(1), int16] = [1.5]")), "whole number"));
  CHECK(parse_message(with_constant("Constant[0]: Tensor[(3), int8] = [-128, 127, 0]")).empty());
  // What the printer writes for integer values parses again: a large int64 literal
  // becomes a metadata constant whose value prints as 9.0071993e+15.
  for (const char* text : {"def @main() { 9007199254740993i64 }", "def @main() { -9223372036854775808i64 }",
                           "def @main() { 9223372036854775807i64 }", "def @main() { -2147483648 }"}) {
    CAPTURE(text);
    const std::string printed = print(parse(text, "input.tir"));
    CHECK(print(parse(printed, "printed")) == printed);
  }
}

TEST_CASE("tinyir limits: float literals outside float32 (f16: outside +-65504) are a ParseError") {
  CHECK(contains(parse_message("def @main() { 1e39f }"), "float32"));
  CHECK(contains(parse_message("def @main() { -1e39 }"), "float32"));
  CHECK(contains(parse_message("def @main() { 1e300f64 }"), "float32"));  // held as float32
  CHECK(contains(parse_message("def @main() { 70000f16 }"), "float16"));
  CHECK(contains(parse_message(with_constant("Constant[0]: Tensor[(1), float32] = [1e39]")), "float32"));
  CHECK(parse_message("def @main() { 3.4028235e38f }").empty());
  CHECK(parse_message("def @main() { 65504f16 }").empty());
  CHECK(parse_message("def @main() { inff16 }").empty());
  CHECK(parse_message("def @main() { -inff }").empty());
}

TEST_CASE("tinyir limits: error messages are valid UTF-8 whatever the input bytes") {
  // A multi-byte character is shown whole (only its first byte was).
  const std::string e_acute = parse_message("def @main() { \xc3\xa9 }");
  CHECK(contains(e_acute, "unexpected character '\xc3\xa9'"));
  CHECK(is_valid_utf8(e_acute));
  const std::string emoji = parse_message("def @main() { %x\xf0\x9f\x98\x80 }");
  CHECK(is_valid_utf8(emoji));
  CHECK(contains(parse_message("def @main() { %\xe2\x82\xac }"), "'\xe2\x82\xac'"));
  // Invalid bytes show as \xNN.
  const std::string ff = parse_message("def @main() { \xff }");
  CHECK(contains(ff, "unexpected character '\\xff'"));
  CHECK(is_valid_utf8(ff));
  // The whole what(), the echoed source line included.
  try {
    (void)parse("def @main() { \xff\xc3 }", "input.tir");
    FAIL("expected a ParseError");
  } catch (const ParseError& e) {
    CHECK(is_valid_utf8(e.what()));
    CHECK(contains(e.what(), "def @main() { \\xff\\xc3 }\n"));
  }
  CHECK(contains(parse_message("def @main() { \xc3 }"), "'\\xc3'"));          // cut short
  CHECK(contains(parse_message("def @main() { \xc0\xaf }"), "'\\xc0'"));      // overlong
  CHECK(contains(parse_message("def @main() { \xed\xa0\x80 }"), "'\\xed'"));  // surrogate
  const std::string str = parse_message("def @main(%x: float32) { nn.softmax(%x, \"\xff\xfe\") }");
  CHECK(is_valid_utf8(str));
  CHECK(!str.empty());
  const Module m = parse(
      "def @main(%x: Tensor[(1, 2), float32]) { layout_transform(%x, src_layout=\"N\xff\", "
      "dst_layout=\"\xc3\xa9\") }",
      "input.tir");
  try {
    (void)infer_types(m);
    FAIL("expected a TypeError");
  } catch (const TypeError& e) {
    CHECK(is_valid_utf8(e.what()));
    CHECK(contains(e.what(), "\\xff"));
  }
}
