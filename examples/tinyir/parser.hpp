// tinyir/parser.hpp — reads the printer's text back, giving every node a span.
//
// parse(text, source)       the module; throws ParseError
//
// Every node gets Span{source, line, column, end_line, end_column} of its text: the
// first token's 1-based line and column, and the position just past its last token.
// A variable's span is that of its declaration (parameter or `let`); a metadata
// constant's span is that of its first `meta[Constant][i]` reference; a `%n = ...`
// binding's node has the span of the text after `=`.
//
// A ParseError's what() is
//   <source>:<line>:<col>: error: expected <what>, found <what was there>
//   <the line of text>
//       ^
// Operator names, attribute names and argument counts are checked against the op
// table here, so such mistakes are reported at their place in the text.
//
// Limits. Every input ends in a module or a ParseError, in time and memory that
// follow the text's size:
// * nesting: at most kMaxNestingDepth (256, type.hpp) nested expressions -- each
//   `(`, call, `{ }` block or `fn` goes one level deeper -- and, counted apart, 256
//   nested types; deeper is "expected at most 256 nested expressions
//   (kMaxNestingDepth), found deeper nesting" at the token that goes past. Bindings
//   and let chains are not nesting: a flat program of any length parses.
// * shapes: a tensor type's element count must fit int64;
// * literals: an int32 literal (no suffix, or i32) must fit int32, an i64 literal
//   int64; a float literal (f, f32, f64: held as float32) must be within the
//   float32 range, an f16 literal within +-65504 (`inf`/`nan` are words of their own);
// * metadata: a constant's data holds exactly its type's element count of values
//   (a run `v x n` is checked before it is expanded), values of an integer dtype
//   are whole numbers within that dtype's range, and all the constants of a text
//   together hold at most kMaxConstantValues (16,777,216) values (a bound that does
//   not depend on how the text spells them, so printed text always parses again);
//   constant indexes are any non-negative int64 (kept in a map, not an array);
// * messages: input bytes that are not valid UTF-8 show as `\xNN`, a multi-byte
//   character whole.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tinyir/ir.hpp"

namespace tinyir {

namespace detail {

struct Token {
  enum Kind { Ident, Number, Local, Global, String, Punct, End };
  Kind kind = End;
  std::string text;  // Local/Global: the name without % or @; String: the unescaped contents
  int line = 1, col = 1, end_line = 1, end_col = 1;
};

inline bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_name_char(char c) { return is_ident_start(c) || is_digit(c); }

// All the constants of one text hold at most this many values (64 MB of float32);
// `[0 x 1000000000]` would expand 16 bytes to 4 GB.
inline constexpr std::int64_t kMaxConstantValues = std::int64_t{1} << 24;

class Parser {
 public:
  Parser(std::string_view text, std::string_view source)
      : value_budget_(kMaxConstantValues), text_(text), source_(source) {
    lex();
  }

  Module parse_module() {
    // The metadata section comes last in the text but first in meaning.
    std::size_t meta_at = toks_.size() - 1;
    for (std::size_t i = 0; i + 1 < toks_.size(); ++i)
      if (toks_[i].kind == Token::Punct && toks_[i].text == "#") {
        meta_at = i;
        break;
      }
    if (meta_at + 1 < toks_.size()) {
      pos_ = meta_at;
      parse_metadata();
      Token end = toks_.back();
      end.line = toks_[meta_at].line;
      end.col = toks_[meta_at].col;
      toks_.resize(meta_at);
      toks_.push_back(end);
    }
    pos_ = 0;
    Module mod;
    while (peek().kind != Token::End) {
      if (!at_ident("def")) error_at(peek(), "expected 'def' or '#[metadata]', found " + describe_token(peek()));
      const Token& def = next();
      const Token& g = peek();
      if (g.kind != Token::Global) error_at(g, "expected a function name such as @main, found " + describe_token(g));
      next();
      if (mod.contains(g.text)) error_at(g, "redefinition of @" + g.text);
      scopes_.clear();
      scopes_.emplace_back();
      Function fn = parse_function_rest(def);
      mod.update(g.text, std::move(fn));
    }
    return mod;
  }

 private:
  struct MetaEntry {
    Type type;
    std::optional<std::vector<float>> data;
    Constant node;  // made at the first reference
  };

  // The values the metadata may still hold (see kMaxConstantValues).
  std::int64_t value_budget_ = 0;

  // ---------------------------------------------------------------- lexer
  [[noreturn]] void lex_error(int line, int col, const std::string& message) const {
    throw ParseError(Span{source_, line, col}, valid_utf8(message), text_);
  }

  // The character at text_[i] for a message: a whole UTF-8 character, else `\xNN`.
  std::string char_at(std::size_t i) const {
    const std::size_t n = utf8_length(text_, i);
    return valid_utf8(text_.substr(i, n == 0 ? 1 : n));
  }

  void lex() {
    std::size_t i = 0;
    int line = 1, col = 1;
    auto advance = [&](std::size_t n) {
      for (std::size_t k = 0; k < n && i < text_.size(); ++k, ++i) {
        if (text_[i] == '\n') {
          ++line;
          col = 1;
        } else {
          ++col;
        }
      }
    };
    while (true) {
      // whitespace and comments
      while (i < text_.size()) {
        const char c = text_[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          advance(1);
        } else if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '/') {
          while (i < text_.size() && text_[i] != '\n') advance(1);
        } else if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '*') {
          const int l0 = line, c0 = col;
          advance(2);
          while (i < text_.size() && !(text_[i] == '*' && i + 1 < text_.size() && text_[i + 1] == '/')) advance(1);
          if (i >= text_.size()) lex_error(l0, c0, "expected '*/' to close this comment, found end of input");
          advance(2);
        } else {
          break;
        }
      }
      Token t;
      t.line = line;
      t.col = col;
      if (i >= text_.size()) {
        t.kind = Token::End;
        t.end_line = line;
        t.end_col = col;
        toks_.push_back(t);
        return;
      }
      const char c = text_[i];
      const std::size_t start = i;
      if (is_ident_start(c)) {
        while (i < text_.size() && (is_name_char(text_[i]) || text_[i] == '.')) advance(1);
        t.kind = Token::Ident;
        t.text = std::string(text_.substr(start, i - start));
      } else if (is_digit(c)) {
        while (i < text_.size() && is_digit(text_[i])) advance(1);
        if (i + 1 < text_.size() && text_[i] == '.' && is_digit(text_[i + 1])) {
          advance(1);
          while (i < text_.size() && is_digit(text_[i])) advance(1);
        }
        if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
          std::size_t j = i + 1;
          if (j < text_.size() && (text_[j] == '+' || text_[j] == '-')) ++j;
          if (j < text_.size() && is_digit(text_[j])) {
            advance(j - i);
            while (i < text_.size() && is_digit(text_[i])) advance(1);
          }
        }
        while (i < text_.size() && is_name_char(text_[i])) advance(1);  // suffix: f, f64, i64, ...
        t.kind = Token::Number;
        t.text = std::string(text_.substr(start, i - start));
      } else if (c == '%' || c == '@') {
        advance(1);
        while (i < text_.size() && is_name_char(text_[i])) advance(1);
        if (i == start + 1)
          lex_error(t.line, t.col,
                    std::string("expected a name after '") + c + "', found " +
                        (i < text_.size() ? "'" + char_at(i) + "'" : "end of input"));
        t.kind = c == '%' ? Token::Local : Token::Global;
        t.text = std::string(text_.substr(start + 1, i - start - 1));
      } else if (c == '"') {
        advance(1);
        std::string s;
        while (i < text_.size() && text_[i] != '"' && text_[i] != '\n') {
          if (text_[i] == '\\' && i + 1 < text_.size()) {
            const char e = text_[i + 1];
            s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            advance(2);
          } else {
            s += text_[i];
            advance(1);
          }
        }
        if (i >= text_.size() || text_[i] != '"')
          lex_error(t.line, t.col, "expected '\"' to close this string, found end of line");
        advance(1);
        t.kind = Token::String;
        t.text = std::move(s);
      } else if (c == '-' && i + 1 < text_.size() && text_[i + 1] == '>') {
        advance(2);
        t.kind = Token::Punct;
        t.text = "->";
      } else if (std::string_view("()[]{},;:=.-#").find(c) != std::string_view::npos) {
        advance(1);
        t.kind = Token::Punct;
        t.text = std::string(1, c);
      } else {
        lex_error(t.line, t.col, "expected a token, found unexpected character '" + char_at(i) + "'");
      }
      t.end_line = line;
      t.end_col = col;
      toks_.push_back(std::move(t));
    }
  }

  // ---------------------------------------------------------------- tokens
  [[noreturn]] void error_at(const Token& t, const std::string& message) const {
    throw ParseError(Span{source_, t.line, t.col}, valid_utf8(message), text_);
  }

  // Depth: one level of expression or type nesting while alive; past
  // kMaxNestingDepth, a ParseError at the token that goes deeper.
  class Nest {
   public:
    Nest(const Parser& p, int& depth, const char* what) : depth_(depth) {
      if (depth_ >= kMaxNestingDepth)
        p.error_at(p.peek(), "expected at most " + std::to_string(kMaxNestingDepth) + " nested " + what +
                                 " (kMaxNestingDepth), found deeper nesting");
      ++depth_;
    }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    ~Nest() { --depth_; }

   private:
    int& depth_;
  };

  static std::string describe_token(const Token& t) {
    switch (t.kind) {
      case Token::End:
        return "end of input";
      case Token::Local:
        return "'%" + t.text + "'";
      case Token::Global:
        return "'@" + t.text + "'";
      case Token::String:
        return valid_utf8(quote(t.text));
      default:
        return "'" + t.text + "'";
    }
  }

  const Token& peek(std::size_t k = 0) const {
    const std::size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool at_punct(std::string_view p, std::size_t k = 0) const {
    return peek(k).kind == Token::Punct && peek(k).text == p;
  }
  bool at_ident(std::string_view s, std::size_t k = 0) const {
    return peek(k).kind == Token::Ident && peek(k).text == s;
  }
  const Token& expect_punct(std::string_view p, std::string_view what = {}) {
    if (!at_punct(p))
      error_at(peek(), "expected '" + std::string(p) + "'" + (what.empty() ? "" : " " + std::string(what)) +
                           ", found " + describe_token(peek()));
    return next();
  }
  const Token& expect_ident(std::string_view s) {
    if (!at_ident(s)) error_at(peek(), "expected '" + std::string(s) + "', found " + describe_token(peek()));
    return next();
  }

  Span span_from(const Token& first) const {
    const Token& last = toks_[pos_ == 0 ? 0 : pos_ - 1];
    return Span{source_, first.line, first.col, last.end_line, last.end_col};
  }

  // ---------------------------------------------------------------- scopes
  static bool all_digits(const std::string& s) {
    for (char c : s)
      if (!is_digit(c)) return false;
    return !s.empty();
  }

  void declare(const Token& at, const std::string& name, Expr e) {
    auto [it, inserted] = scopes_.back().emplace(name, e);
    if (!inserted) {
      if (all_digits(name)) error_at(at, "redefinition of %" + name);
      it->second = std::move(e);  // a let may shadow
    }
  }

  Expr lookup(const Token& t) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto f = it->find(t.text); f != it->end()) return f->second;
    std::vector<std::string> known;
    for (const auto& s : scopes_)
      for (const auto& [name, e] : s) known.push_back("%" + name);
    std::sort(known.begin(), known.end());
    error_at(t, "expected a defined variable or binding, found undefined '%" + t.text + "'" +
                    did_you_mean("%" + t.text, known));
  }

  // ---------------------------------------------------------------- numbers
  struct NumberText {
    std::string mantissa;  // "1e-05", "inf", "nan"
    std::string suffix;    // "", "f", "f64", "i64", ...
    bool negative = false;
  };

  // A number: ['-'] (NUMBER | inf | nan with suffix); returns its parts.
  NumberText read_number(std::string_view what) {
    NumberText n;
    if (at_punct("-")) {
      next();
      n.negative = true;
    }
    const Token& t = peek();
    if (t.kind == Token::Number) {
      std::size_t k = 0;
      const std::string& s = t.text;
      while (k < s.size() && (is_digit(s[k]) || s[k] == '.')) ++k;
      if (k < s.size() && (s[k] == 'e' || s[k] == 'E') && k + 1 < s.size() &&
          (is_digit(s[k + 1]) || s[k + 1] == '+' || s[k + 1] == '-')) {
        k += 2;
        while (k < s.size() && is_digit(s[k])) ++k;
      }
      n.mantissa = s.substr(0, k);
      n.suffix = s.substr(k);
    } else if (t.kind == Token::Ident && (t.text.starts_with("inf") || t.text.starts_with("nan"))) {
      n.mantissa = t.text.substr(0, 3);
      n.suffix = t.text.substr(3);
    } else {
      error_at(t, "expected " + std::string(what) + ", found " + describe_token(t));
    }
    next();
    return n;
  }

  static bool is_integral_text(const NumberText& n) { return n.mantissa.find_first_of(".eEin") == std::string::npos; }

  template <class T>
  T number_value(const NumberText& n, const Token& at) const {
    T v{};
    if (n.mantissa == "inf") {
      v = std::numeric_limits<T>::infinity();
    } else if (n.mantissa == "nan") {
      v = std::numeric_limits<T>::quiet_NaN();
    } else {
      const auto res = std::from_chars(n.mantissa.data(), n.mantissa.data() + n.mantissa.size(), v);
      if (res.ec == std::errc::result_out_of_range && res.ptr == n.mantissa.data() + n.mantissa.size())
        error_at(at, std::string("expected a number within the range of ") +
                         (sizeof(T) == sizeof(float) ? "float32" : "float64") + " (magnitude 0 or about 1e-45 to " +
                         (sizeof(T) == sizeof(float) ? "3.4e38" : "1.8e308") + "), found '" + n.mantissa + "'");
      if (res.ec != std::errc() || res.ptr != n.mantissa.data() + n.mantissa.size())
        error_at(at, "expected a number, found '" + n.mantissa + "'");
    }
    return n.negative ? -v : v;
  }

  // The value of an integer literal of `dtype` (int8 ... int64, uint8, bool),
  // checked against the dtype's range.
  std::int64_t int_in_range(const NumberText& n, const Token& at, const std::string& dtype) const {
    const std::int64_t v = int64_of(n, at);
    const auto [lo, hi] = int_range(dtype);
    if (v < lo || v > hi)
      error_at(at, "expected an " + dtype + " value in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                       "], found '" + std::string(n.negative ? "-" : "") + n.mantissa + n.suffix + "'");
    return v;
  }

  // An integer dtype's value as held (float32): a whole number within the dtype's
  // range. The printer writes what is held (2147483647 is held as 2147483648, and
  // 9007199254740993 prints as 9.007199e+15), so the check is on the value.
  void check_int_value(float x, const NumberText& n, const Token& at, const std::string& dtype,
                       const char* what) const {
    const auto [lo, hi] = int_range(dtype);
    const std::string text = std::string(n.negative ? "-" : "") + n.mantissa + n.suffix;
    if (!std::isfinite(x) || std::trunc(x) != x)
      error_at(at, "expected a whole number for " + dtype + " " + what + ", found '" + text + "'");
    if (static_cast<double>(x) < static_cast<double>(lo) || static_cast<double>(x) > static_cast<double>(hi))
      error_at(at, "expected an " + dtype + " value in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                       "], found '" + text + "'" +
                       (text == format_float(x) ? "" : " (held as float32: " + format_float(x) + ")"));
  }

  static std::pair<std::int64_t, std::int64_t> int_range(std::string_view dtype) {
    if (dtype == "int8") return {INT8_MIN, INT8_MAX};
    if (dtype == "int16") return {INT16_MIN, INT16_MAX};
    if (dtype == "int32") return {INT32_MIN, INT32_MAX};
    if (dtype == "uint8") return {0, UINT8_MAX};
    if (dtype == "bool") return {0, 1};
    return {INT64_MIN, INT64_MAX};
  }

  std::int64_t int_value(const NumberText& n, const Token& at) const {
    if (!is_integral_text(n) || !n.suffix.empty())
      error_at(at, "expected an integer, found '" + std::string(n.negative ? "-" : "") + n.mantissa + n.suffix + "'");
    return int64_of(n, at);
  }

  // The int64 value of integral text, suffix ignored.
  std::int64_t int64_of(const NumberText& n, const Token& at) const {
    std::uint64_t v = 0;
    const auto res = std::from_chars(n.mantissa.data(), n.mantissa.data() + n.mantissa.size(), v);
    const std::uint64_t limit = n.negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    if (res.ec != std::errc() || v > limit)
      error_at(
          at, "expected an integer that fits 64 bits, found '" + std::string(n.negative ? "-" : "") + n.mantissa + "'");
    return n.negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
  }

  std::int64_t read_int(std::string_view what) {
    const Token& at = peek();
    return int_value(read_number(what), at);
  }

  // ---------------------------------------------------------------- types
  Type parse_type() {
    const Nest nest(*this, type_depth_, "types");
    const Token& t = peek();
    if (at_ident("Tensor")) {
      next();
      expect_punct("[", "after Tensor");
      expect_punct("(", "to open the shape");
      std::vector<std::int64_t> shape;
      while (!at_punct(")")) {
        const Token& d = peek();
        const std::int64_t v = read_int("a dimension");
        if (v < 0) error_at(d, "expected a non-negative dimension, found " + std::to_string(v));
        shape.push_back(v);
        if (!at_punct(",")) break;
        next();
      }
      if (!checked_num_elements(shape))
        error_at(t, "expected a shape of at most 2^63-1 elements, found " + format_shape(shape) +
                        " whose element count overflows");
      expect_punct(")", "to close the shape");
      expect_punct(",", "between shape and dtype");
      const Token& dt = peek();
      if (dt.kind != Token::Ident || !is_valid_dtype(dt.text))
        error_at(dt, "expected a dtype such as float32, found " + describe_token(dt));
      next();
      expect_punct("]", "to close the tensor type");
      return tensor_type(std::move(shape), dt.text);
    }
    if (t.kind == Token::Ident && is_valid_dtype(t.text)) {
      next();
      return scalar_type(t.text);
    }
    if (at_punct("(")) {
      next();
      std::vector<Type> fields;
      while (!at_punct(")")) {
        fields.push_back(parse_type());
        if (!at_punct(",")) break;
        next();
      }
      expect_punct(")", "to close the tuple type");
      return tuple_type(std::move(fields));
    }
    if (at_ident("fn")) {
      next();
      expect_punct("(", "after fn");
      std::vector<Type> params;
      while (!at_punct(")")) {
        params.push_back(parse_type());
        if (!at_punct(",")) break;
        next();
      }
      expect_punct(")", "to close the parameter types");
      expect_punct("->", "before the return type");
      return func_type(std::move(params), parse_type());
    }
    error_at(t, "expected a type (Tensor[...], a dtype, a tuple or fn), found " + describe_token(t));
  }

  // ---------------------------------------------------------------- attributes
  AttrValue parse_attr_value() {
    const Token& t = peek();
    if (t.kind == Token::String) {
      next();
      return AttrValue(t.text);
    }
    if (at_punct("[")) {
      next();
      Ints v;
      while (!at_punct("]")) {
        v.push_back(read_int("an integer"));
        if (!at_punct(",")) break;
        next();
      }
      expect_punct("]", "to close the list");
      return AttrValue(std::move(v));
    }
    const NumberText n = read_number("an attribute value (number, string or [list])");
    if (n.suffix.empty() && is_integral_text(n)) return AttrValue(int_value(n, t));
    if (n.suffix != "f" && n.suffix != "f32" && n.suffix != "f64" && !n.suffix.empty())
      error_at(t, "expected a number suffix f, f32 or f64, found '" + n.suffix + "'");
    return AttrValue(number_value<double>(n, t));
  }

  // ---------------------------------------------------------------- metadata
  void parse_metadata() {
    expect_punct("#");
    expect_punct("[", "after '#'");
    expect_ident("metadata");
    expect_punct("]", "after 'metadata'");
    while (peek().kind != Token::End) {
      expect_ident("Constant");
      expect_punct("[", "after Constant");
      const Token& it = peek();
      const std::int64_t idx = read_int("a constant index");
      expect_punct("]", "after the constant index");
      expect_punct(":", "before the constant's type");
      const Token& tt = peek();
      Type type = parse_type();
      const TensorType* tensor = as_tensor(type);
      if (!tensor) error_at(tt, "expected a tensor type for a constant, found " + to_string(type));
      std::optional<std::vector<float>> data;
      if (at_punct("=")) {
        next();
        data = parse_data(*tensor, type);
      }
      if (idx < 0) error_at(it, "expected a constant index, found " + std::to_string(idx));
      if (meta_.count(idx)) error_at(it, "redefinition of Constant[" + std::to_string(idx) + "]");
      meta_.emplace(idx, MetaEntry{std::move(type), std::move(data), nullptr});
    }
  }

  // `[v, v x n, ...]`: exactly num_elements(tensor) values, counted before a run is
  // expanded, and within the text's budget of values (kMaxConstantValues).
  std::vector<float> parse_data(const TensorType& tensor, const Type& type) {
    const Token& open = peek();
    const std::int64_t want = num_elements(tensor);
    auto wrong_count = [&](const Token& at, const std::string& found) {
      error_at(at, "expected " + std::to_string(want) + " values for " + to_string(type) + ", found " + found);
    };
    expect_punct("[", "to open the data");
    const bool integer = is_integer_dtype(tensor.dtype) || tensor.dtype == "bool";
    std::vector<float> v;
    std::int64_t count = 0;
    while (!at_punct("]")) {
      const Token& t = peek();
      const NumberText n = read_number("a value");
      if (!n.suffix.empty()) error_at(t, "expected a plain number in constant data, found suffix '" + n.suffix + "'");
      const float x = number_value<float>(n, t);
      if (integer) check_int_value(x, n, t, tensor.dtype, "data");
      std::int64_t repeat = 1;
      if (at_ident("x")) {
        next();
        const Token& r = peek();
        repeat = read_int("a repeat count");
        if (repeat < 1) error_at(r, "expected a positive repeat count, found " + std::to_string(repeat));
      }
      if (repeat > want - count) wrong_count(t, "more");
      if (repeat > value_budget_)
        error_at(t, "expected at most " + std::to_string(kMaxConstantValues) +
                        " constant values in all (kMaxConstantValues), found more");
      value_budget_ -= repeat;
      count += repeat;
      v.insert(v.end(), static_cast<std::size_t>(repeat), x);
      if (!at_punct(",")) break;
      next();
    }
    if (count != want) wrong_count(open, std::to_string(count));
    expect_punct("]", "to close the data");
    return v;
  }

  Expr meta_ref() {
    const Token& m = next();  // meta
    expect_punct("[", "after meta");
    expect_ident("Constant");
    expect_punct("]", "after Constant");
    expect_punct("[", "before the constant index");
    const Token& it = peek();
    const std::int64_t idx = read_int("a constant index");
    expect_punct("]", "after the constant index");
    auto found = meta_.find(idx);
    if (found == meta_.end())
      error_at(it, "expected a constant defined in the #[metadata] section, found meta[Constant][" +
                       std::to_string(idx) + "]" + (meta_.empty() ? " and no metadata section" : ""));
    MetaEntry& e = found->second;
    if (!e.node) e.node = make_constant(e.type, e.data, span_from(m));
    return e.node;
  }

  // ---------------------------------------------------------------- expressions
  Expr scalar_literal_expr() {
    const Token& first = peek();
    const NumberText n = read_number("a number");
    std::string dtype;
    if (n.suffix.empty())
      dtype = is_integral_text(n) ? "int32" : "float32";
    else if (n.suffix == "f" || n.suffix == "f32")
      dtype = "float32";
    else if (n.suffix == "f64")
      dtype = "float64";
    else if (n.suffix == "f16")
      dtype = "float16";
    else if (n.suffix == "i32")
      dtype = "int32";
    else if (n.suffix == "i64")
      dtype = "int64";
    else
      error_at(first, "expected a literal suffix (f, f16, f32, f64, i32, i64), found '" + n.suffix + "'");
    const bool integer = dtype == "int32" || dtype == "int64";
    if (integer && !is_integral_text(n))
      error_at(first, "expected an integer for an " + dtype + " literal, found '" + n.mantissa + n.suffix + "'");
    if (integer) (void)int_in_range(n, first, dtype);
    const float v = number_value<float>(n, first);  // float64 and float16 values are held as float32
    if (integer) check_int_value(v, n, first, dtype, "literal");
    if (dtype == "float16" && std::isfinite(v) && std::fabs(v) > 65504.0f)
      error_at(first, "expected a float16 literal within +-65504, found '" + std::string(n.negative ? "-" : "") +
                          n.mantissa + n.suffix + "'");
    return make_scalar(v, dtype, span_from(first));
  }

  Expr parse_op_call() {
    const Token& name = next();
    const OpInfo* info = find_op(name.text);
    if (!at_punct("("))
      error_at(peek(), "expected '(' after operator " + name.text + ", found " + describe_token(peek()));
    next();
    std::vector<Expr> args;
    Attrs attrs;
    while (!at_punct(")")) {
      if (peek().kind == Token::Ident && at_punct("=", 1)) {
        const Token& a = next();
        next();
        if (!info->find_attr(a.text))
          error_at(a, "expected an attribute of " + info->name +
                          (info->attrs.empty() ? " (it has none)" : " (" + join(attr_names(*info), ", ") + ")") +
                          ", found '" + a.text + "'" + did_you_mean(a.text, attr_names(*info)));
        if (attrs.find(a.text)) error_at(a, "attribute '" + a.text + "' given twice");
        attrs.set(a.text, parse_attr_value());
      } else {
        if (!attrs.empty())
          error_at(peek(), "expected an attribute (name=value) after the attributes, found " + describe_token(peek()));
        args.push_back(parse_expr());
      }
      if (!at_punct(",")) break;
      next();
    }
    if (!at_punct(")"))
      error_at(peek(), "expected ',' or ')' in the call of " + info->name + ", found " + describe_token(peek()));
    next();
    if (args.size() != info->arity())
      error_at(name, "expected " + std::to_string(info->arity()) + " argument" + (info->arity() == 1 ? "" : "s") +
                         " for " + info->name + " (" + join(info->inputs, ", ") + "), found " +
                         std::to_string(args.size()));
    try {
      return make_call(info->name, std::move(args), attrs, span_from(name));
    } catch (const ParseError&) {
      throw;
    } catch (const Error& e) {
      error_at(name, e.what());
    }
  }

  // (params [, attr=value...]) — parameters are declared in the current scope.
  void parse_params(std::vector<Var>& params, Attrs& attrs) {
    expect_punct("(", "to open the parameter list");
    while (!at_punct(")")) {
      const Token& t = peek();
      if (t.kind == Token::Local) {
        if (!attrs.empty()) error_at(t, "expected an attribute after the attributes, found " + describe_token(t));
        next();
        if (all_digits(t.text)) error_at(t, "expected a parameter name, found the binding name '%" + t.text + "'");
        for (const auto& p : params)
          if (p->name == t.text) error_at(t, "parameter %" + t.text + " declared twice");
        Type ty;
        if (at_punct(":")) {
          next();
          ty = parse_type();
        }
        Var v = make_var(t.text, std::move(ty), span_from(t));
        declare(t, t.text, v);
        params.push_back(std::move(v));
      } else if (t.kind == Token::Ident && at_punct("=", 1)) {
        next();
        next();
        attrs.set(t.text, parse_attr_value());
      } else {
        error_at(t, "expected a parameter (%name) or an attribute (name=value), found " + describe_token(t));
      }
      if (!at_punct(",")) break;
      next();
    }
    expect_punct(")", "to close the parameter list");
  }

  // After `def @name` or `fn`: (params) [-> type] { block }.
  Function parse_function_rest(const Token& first) {
    std::vector<Var> params;
    Attrs attrs;
    parse_params(params, attrs);
    Type ret;
    if (at_punct("->")) {
      next();
      ret = parse_type();
    }
    expect_punct("{", "to open the function body");
    Expr body = parse_block();
    expect_punct("}", "to close the function body");
    return make_function(std::move(params), std::move(body), std::move(ret), std::move(attrs), span_from(first));
  }

  // Statements then a result; the caller consumes the braces and owns the scope.
  Expr parse_block() {
    struct PendingLet {
      Var var;
      Expr value;
      const Token* let;
    };
    std::vector<PendingLet> lets;
    Expr result;
    while (true) {
      if (at_ident("let")) {
        const Token& let = next();
        const Token& v = peek();
        if (v.kind != Token::Local || all_digits(v.text))
          error_at(v, "expected a variable name after let, found " + describe_token(v));
        next();
        Type ty;
        if (at_punct(":")) {
          next();
          ty = parse_type();
        }
        Var var = make_var(v.text, std::move(ty), Span{source_, v.line, v.col, v.end_line, v.end_col});
        expect_punct("=", "after the let variable");
        Expr value = parse_expr();
        expect_punct(";", "after the let value");
        declare(v, v.text, var);
        lets.push_back({std::move(var), std::move(value), &let});
      } else if (peek().kind == Token::Local && all_digits(peek().text) && at_punct("=", 1)) {
        const Token& b = next();
        next();
        Expr value = parse_expr();
        expect_punct(";", "after the binding");
        declare(b, b.text, std::move(value));
      } else {
        if (peek().kind == Token::End || at_punct("}"))
          error_at(peek(), "expected an expression as the result of the block, found " + describe_token(peek()));
        result = parse_expr();
        break;
      }
    }
    const Token& last = toks_[pos_ - 1];
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
      result =
          make_let(it->var, it->value, result, Span{source_, it->let->line, it->let->col, last.end_line, last.end_col});
    return result;
  }

  Expr parse_expr() {
    const Nest nest(*this, expr_depth_, "expressions");
    const Token& first = peek();
    Expr e = parse_primary();
    while (true) {
      if (at_punct("(")) {
        next();
        std::vector<Expr> args;
        while (!at_punct(")")) {
          args.push_back(parse_expr());
          if (!at_punct(",")) break;
          next();
        }
        expect_punct(")", "to close the argument list");
        e = make_call(std::move(e), std::move(args), span_from(first));
      } else if (at_punct(".")) {
        next();
        const Token& it = peek();
        // `%t.0.1` lexes as `%t`, `.`, `0.1`: two projections.
        if (it.kind == Token::Number && it.text.find_first_not_of("0123456789.") == std::string::npos &&
            std::count(it.text.begin(), it.text.end(), '.') == 1) {
          next();
          const std::size_t dot = it.text.find('.');
          for (const std::string& part : {it.text.substr(0, dot), it.text.substr(dot + 1)}) {
            int idx = 0;
            const auto res = std::from_chars(part.data(), part.data() + part.size(), idx);
            if (res.ec != std::errc() || idx < 0) error_at(it, "expected a tuple index, found '" + part + "'");
            e = make_tuple_get_item(std::move(e), idx, span_from(first));
          }
          continue;
        }
        const std::int64_t idx = read_int("a tuple index");
        if (idx < 0 || idx > std::numeric_limits<int>::max())
          error_at(it, "expected a tuple index, found " + std::to_string(idx));
        e = make_tuple_get_item(std::move(e), static_cast<int>(idx), span_from(first));
      } else {
        return e;
      }
    }
  }

  Expr parse_primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Token::Local:
        next();
        return lookup(t);
      case Token::Number:
        return scalar_literal_expr();
      case Token::Ident: {
        if (t.text == "fn") {
          next();
          scopes_.emplace_back();
          Function f = parse_function_rest(t);
          scopes_.pop_back();
          return f;
        }
        if (t.text == "meta") return meta_ref();
        if (t.text.starts_with("inf") || t.text.starts_with("nan")) return scalar_literal_expr();
        if (t.text == "let")
          error_at(t, "expected an expression, found 'let' (a let in operand position needs braces: { let ...; ... })");
        if (find_op(t.text)) return parse_op_call();
        error_at(t, "expected an operator, found unknown operator '" + t.text + "'" + did_you_mean(t.text, op_names()));
      }
      case Token::Punct: {
        if (t.text == "-") return scalar_literal_expr();
        if (t.text == "{") {
          next();
          scopes_.emplace_back();
          Expr e = parse_block();
          scopes_.pop_back();
          expect_punct("}", "to close the block");
          return e;
        }
        if (t.text == "(") {
          next();
          std::vector<Expr> fields;
          bool comma = false;
          while (!at_punct(")")) {
            fields.push_back(parse_expr());
            if (!at_punct(",")) break;
            next();
            comma = true;
          }
          expect_punct(")", "to close the tuple");
          if (fields.size() == 1 && !comma) return fields[0];
          return make_tuple_expr(std::move(fields), span_from(t));
        }
        break;
      }
      default:
        break;
    }
    error_at(t, "expected an expression, found " + describe_token(t));
  }

  std::string_view text_;
  std::string source_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  std::map<std::int64_t, MetaEntry> meta_;
  int expr_depth_ = 0;  // nesting of expressions (Nest)
  int type_depth_ = 0;  // nesting of types (Nest)
  std::vector<std::unordered_map<std::string, Expr>> scopes_;
};

}  // namespace detail

// parse(text, source): the module the text describes; every node carries a Span
// naming `source`. Throws ParseError.
inline Module parse(std::string_view text, std::string_view source) {
  return detail::Parser(text, source).parse_module();
}

}  // namespace tinyir
