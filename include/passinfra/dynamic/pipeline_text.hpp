// passinfra/dynamic/pipeline_text.hpp — pipelines as text: parse and print.
//
// parse_pipeline<IR>(text, registry = PassRegistry<IR>::global())   text -> AnyPass<IR>
// print_pipeline(pass)               AnyPass<IR> / DynamicSequential<IR> / RegistryPass<IR> -> canonical text
// PipelineOption{key, value, column} / PipelineNode{name, column, options, children}   the syntax tree
// parse_pipeline_syntax(text)        text -> PipelineNode: the syntax only, no registry
// to_string(node)                    a syntax tree as canonical text
// canonical_pipeline(text)           to_string(parse_pipeline_syntax(text))
// max_pipeline_depth                 256: how deeply passes may nest (any_pass.hpp; in code too)
//
// Grammar (EBNF; whitespace may appear between any two tokens):
//
//   pipeline := pass
//   pass     := name [ '(' [ item { ',' item } ] ')' ]
//   item     := key '=' value | pass
//   key      := name
//   value    := integer | float | 'true' | 'false' | string | '[' [ value { ',' value } ] ']'
//   name     := [A-Za-z_][A-Za-z0-9_.]*
//   integer  := [ '+' | '-' ] digits                                  (a 64-bit signed integer)
//   float    := [ '+' | '-' ] digits ( '.' digits [ exponent ] | exponent )
//   exponent := ( 'e' | 'E' ) [ '+' | '-' ] digits
//   digits   := [0-9] { [0-9] }
//   string   := '"' { any character but '"' and '\' | '\"' | '\\' | '\n' | '\t' | '\r' } '"'
//
// The elements of a list are strings (a list option is a list of strings).
// Passes nest at most max_pipeline_depth (256) levels deep; deeper text is an
// Error at the pass that goes too deep (so parsing, building, printing and
// running a pipeline never recurse without bound).
// A key may appear once per pass. `sequential(...)` makes a DynamicSequential
// of the passes among its items, with the options name="..." and opt_level=N.
// A nest kind the registry has (PassRegistry::add_nest, SPEC §11.11), e.g.
// `function(FoldConstant,EliminateCommonSubexpr)`, makes a DynamicNest of the
// passes among its items, resolved in the unit type's registry, with the
// options name="..." (default: the kind), opt_level=N and serial=true|false.
// Every other name is created through the registry with its key=value options
// (and only sequential and nest kinds take passes as items).
//
// Canonical text: no whitespace; options first, sorted by key, then the
// passes in order; parentheses only around a non-empty item list; integers in
// decimal; floats in the shortest form that reads back exactly, always with a
// '.' or an exponent; strings quoted with the escapes above. For a node that
// is `sequential` or has passes among its items (so no registry is needed to
// tell a nest kind), name="<the node's own name>", opt_level=0 and
// serial=false are left out. Adjacent nests are not merged. For every text t
// that parses, print_pipeline(parse_pipeline(t)) == canonical_pipeline(t), and
// parsing a printed pipeline prints the same text again.
//
// Printing: a pass made by a registry prints as the name and options it was
// created with (RegistryPass<IR>); a DynamicSequential as sequential(...); a
// nest made from text as it was written (canonical), one made in code as
// kind(...) when IR lists its unit type (ir_traits<IR>::unit_types); any
// other pass as its info name. A static Sequential erased into an AnyPass
// cannot show its children at run time, so printing one is an Error, as is a
// pass whose name pipeline text cannot spell.
//
// Errors: malformed text throws passinfra::Error saying
//   pipeline text, column 14: expected ')' or ',' after a pass, found '('
// followed by the text and a caret under the column (columns are 1-based
// and count bytes from the start of the text). Long text is quoted only
// within detail::pipeline_error_window (60) bytes of the column, cut with
// "..."; names from the text are quoted clipped (detail::clipped, 80 bytes). Unknown pass names, option
// keys and option types are reported the same way, at the name or key, with
// the registry's message (what was expected and the closest names). A name
// unknown at the parent level that a nest kind's unit registry has says
// `'CanonicalizeOps' is a function pass: nest it, as function(CanonicalizeOps)`;
// a name inside a nest that only the parent's registry has says
// `'ToANormalForm' is not a function pass`; other unknown names inside a nest
// get the unit registry's closest names. An unknown name written with passes
// as items (a misspelt `sequential` or nest kind, `functon(FoldConstant)`)
// gets the closest of the names that take passes.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "passinfra/core/config.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/suggest.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t
#include "passinfra/dynamic/any_pass.hpp"
#include "passinfra/dynamic/dynamic_nest.hpp"
#include "passinfra/dynamic/dynamic_sequential.hpp"
#include "passinfra/dynamic/pass_registry.hpp"

namespace passinfra {

// PipelineOption: `key=value` as written; column is the key's (1-based).
struct PipelineOption {
  std::string key;
  ConfigValue value;
  std::size_t column = 0;
};

// PipelineNode: `name(items)` as written; column is the name's (1-based).
struct PipelineNode {
  std::string name;
  std::size_t column = 0;
  std::vector<PipelineOption> options;
  std::vector<PipelineNode> children;
};

namespace detail {

inline constexpr std::string_view sequential_name = "sequential";

// pipeline_error_window: how many bytes of the text an error quotes on
// each side of its column; longer text is cut there, marked "...".
inline constexpr std::size_t pipeline_error_window = 60;

// "pipeline text, column N: <message>\n  <text>\n  <caret>"
template <class = void>
std::string pipeline_error_text(std::string_view text, std::size_t column, std::string_view message) {
  std::string out = "pipeline text, column " + std::to_string(column) + ": " + std::string(message) + "\n  ";
  const std::size_t at = std::min(column > 0 ? column - 1 : 0, text.size());
  std::size_t begin = at > pipeline_error_window ? at - pipeline_error_window : 0;
  std::size_t end = std::min(text.size(), at + pipeline_error_window);
  // Do not cut a UTF-8 sequence.
  const auto continuation = [&](std::size_t i) {
    return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
  };
  while (begin > 0 && continuation(begin)) --begin;
  while (continuation(end)) ++end;
  const std::string_view before = begin > 0 ? "..." : "";
  out += before;
  for (char c : text.substr(begin, end - begin)) out += (c == '\n' || c == '\t' || c == '\r') ? ' ' : c;
  if (end < text.size()) out += "...";
  out += "\n  " + std::string(before.size() + (column > 0 ? column - 1 : 0) - begin, ' ') + "^";
  return out;
}

template <class = void>
[[noreturn]] void throw_pipeline_error(std::string_view text, std::size_t column, std::string_view message) {
  throw Error(pipeline_error_text(text, column, message));
}

// PipelineParser is this template's one specialization: a class template's members are
// compiled only when used, so including the header compiles none of them
// (the types it builds are spelled dependently: see dependent_t).
template <class T = void>
class PipelineParserOf {
  using Node = dependent_t<PipelineNode, T>;
  using Option = dependent_t<PipelineOption, T>;
  using Value = dependent_t<ConfigValue, T>;

 public:
  explicit PipelineParserOf(std::string_view text) : text_(text) {}

  Node parse() {
    skip_space();
    if (!at_name()) fail_expected(pos_, "a pass name");
    Node node = parse_pass();
    skip_space();
    if (pos_ != text_.size()) fail_expected(pos_, "end of text after the pipeline");
    return node;
  }

 private:
  static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool at_name() const { return !at_end() && is_alpha(text_[pos_]); }
  void skip_space() {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }

  // The token at `at`, quoted, for "found ...".
  std::string found_at(std::size_t at) const {
    if (at >= text_.size()) return "end of text";
    const char c = text_[at];
    std::size_t end = at + 1;
    if (is_alpha(c)) {
      end = name_end(at);
    } else if (is_digit(c) || ((c == '+' || c == '-') && at + 1 < text_.size() && is_digit(text_[at + 1]))) {
      end = number_end(at);
    } else if (c == '"') {
      end = at + 1;
      while (end < text_.size() && text_[end] != '"') end += text_[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text_.size());
    } else if (static_cast<unsigned char>(c) >= 0xC0) {  // one UTF-8 character
      while (end < text_.size() && (static_cast<unsigned char>(text_[end]) & 0xC0) == 0x80) ++end;
    }
    std::string token(text_.substr(at, end - at));
    if (token.size() > 40) token = token.substr(0, 37) + "...";
    return "'" + token + "'";
  }

  [[noreturn]] void fail(std::size_t at, std::string_view message) const {
    throw Error(pipeline_error_text(text_, at + 1, message));
  }
  [[noreturn]] void fail_expected(std::size_t at, std::string_view expected) const {
    fail(at, "expected " + std::string(expected) + ", found " + found_at(at));
  }

  std::size_t name_end(std::size_t at) const {
    std::size_t end = at;
    while (end < text_.size() && (is_alpha(text_[end]) || is_digit(text_[end]) || text_[end] == '.')) ++end;
    return end;
  }

  // A number token: a sign, then letters, digits, '.', '_', and a sign right after e/E.
  std::size_t number_end(std::size_t at) const {
    std::size_t end = at + 1;
    while (end < text_.size()) {
      const char c = text_[end];
      const char prev = text_[end - 1];
      if (is_alpha(c) || is_digit(c) || c == '.' || ((c == '+' || c == '-') && (prev == 'e' || prev == 'E'))) {
        ++end;
      } else {
        break;
      }
    }
    return end;
  }

  std::string read_name() {
    const std::size_t end = name_end(pos_);
    std::string name(text_.substr(pos_, end - pos_));
    pos_ = end;
    return name;
  }

  // pass := name [ '(' [ item { ',' item } ] ')' ], at a name.
  Node parse_pass() {
    if (++depth_ > max_pipeline_depth) {
      fail(pos_, "passes nested more than " + std::to_string(max_pipeline_depth) + " levels deep; expected at most " +
                     std::to_string(max_pipeline_depth) + " levels of nesting");
    }
    struct Leave {
      std::size_t& depth;
      ~Leave() { --depth; }
    } leave{depth_};
    Node node;
    node.column = pos_ + 1;
    node.name = read_name();
    skip_space();
    if (peek() != '(') return node;
    ++pos_;
    skip_space();
    if (peek() == ')') {
      ++pos_;
      return node;
    }
    for (bool first = true;; first = false) {
      skip_space();
      const std::size_t item = pos_;
      if (!at_name()) {
        fail_expected(pos_, first ? "a pass name, an option key=value or ')'" : "a pass name or an option key=value");
      }
      std::string_view after;
      const std::size_t name_stop = name_end(pos_);
      std::size_t next = name_stop;
      while (next < text_.size() && is_space(text_[next])) ++next;
      if (next < text_.size() && text_[next] == '=') {
        Option option;
        option.column = item + 1;
        option.key = read_name();
        for (const auto& o : node.options) {
          if (o.key == option.key) {
            fail(item, "option '" + clipped(option.key) + "' of '" + clipped(node.name) +
                           "' is given twice; expected each option at most once");
          }
        }
        pos_ = next + 1;
        skip_space();
        option.value = parse_value();
        node.options.push_back(std::move(option));
        after = "an option";
      } else {
        node.children.push_back(parse_pass());
        after = "a pass";
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ')') {
        ++pos_;
        return node;
      }
      fail_expected(pos_, "')' or ',' after " + std::string(after));
    }
  }

  Value parse_value() {
    static constexpr std::string_view expected_value =
        "a value (an integer, a float, true, false, a \"string\" or a [list] of strings)";
    const char c = peek();
    if (c == '"') return parse_string();
    if (c == '[') return parse_list();
    if (is_digit(c) || c == '+' || c == '-') {
      if (c != '+' && c != '-') return parse_number();
      if (pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1])) return parse_number();
    }
    if (at_name()) {
      const std::size_t end = name_end(pos_);
      const std::string_view word = text_.substr(pos_, end - pos_);
      if (word == "true" || word == "false") {
        pos_ = end;
        return word == "true";
      }
    }
    fail_expected(pos_, expected_value);
  }

  Value parse_number() {
    const std::size_t start = pos_;
    const std::size_t end = number_end(pos_);
    const std::string_view token = text_.substr(start, end - start);
    std::string_view body = token;
    if (body.front() == '+' || body.front() == '-') body.remove_prefix(1);
    // digits ( '.' digits [exponent] | exponent )?
    std::size_t i = 0;
    auto digits = [&] {
      const std::size_t from = i;
      while (i < body.size() && is_digit(body[i])) ++i;
      return i > from;
    };
    bool ok = digits();
    bool is_float = false;
    if (ok && i < body.size() && body[i] == '.') {
      ++i;
      is_float = true;
      ok = digits();
    }
    if (ok && i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
      ++i;
      is_float = true;
      if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
      ok = digits();
    }
    if (!ok || i != body.size()) {
      fail_expected(start, "a number (digits, with an optional '.' and digits and an optional exponent)");
    }
    // from_chars takes '-' but not '+'.
    const char* first = token.data() + (token.front() == '+' ? 1 : 0);
    const char* last = token.data() + token.size();
    pos_ = end;
    if (is_float) {
      double value = 0;
      const auto result = std::from_chars(first, last, value);
      if (result.ec != std::errc{} || result.ptr != last) {
        fail_expected(start, "a float within the range of a double");
      }
      return value;
    }
    std::int64_t value = 0;
    const auto result = std::from_chars(first, last, value);
    if (result.ec != std::errc{} || result.ptr != last) {
      fail_expected(start, "an integer within the range of a 64-bit signed integer");
    }
    return value;
  }

  std::string parse_string() {
    const std::size_t start = pos_;
    ++pos_;
    std::string out;
    while (true) {
      if (at_end()) fail(start, "unterminated string: expected a closing '\"', found end of text");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      const char e = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        default:
          fail(pos_, std::string("expected one of \\\" \\\\ \\n \\t \\r after '\\' in a string, found ") +
                         (pos_ + 1 < text_.size() ? "'\\" + std::string(1, e) + "'" : "end of text"));
      }
      pos_ += 2;
    }
  }

  dependent_t<StringList, T> parse_list() {
    ++pos_;  // '['
    dependent_t<StringList, T> out;
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return out;
    }
    while (true) {
      skip_space();
      if (peek() != '"') fail_expected(pos_, "a \"string\" (the elements of a list are strings)");
      out.push_back(parse_string());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return out;
      }
      fail_expected(pos_, "',' or ']' in a list");
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
};
using PipelineParser = PipelineParserOf<>;

// Whether an option of a node that takes passes (sequential, a nest kind)
// has its default value, and prints as nothing: name="<the node's name>",
// opt_level=0, serial=false.
template <class T = void>
bool is_default_item_option(std::string_view node_name, const dependent_t<PipelineOption, T>& option) {
  if (option.key == "name") {
    const auto* s = std::get_if<std::string>(&option.value);
    return s && *s == node_name;
  }
  if (option.key == "opt_level") {
    const auto* n = std::get_if<std::int64_t>(&option.value);
    return n && *n == 0;
  }
  if (option.key == "serial") {
    const auto* b = std::get_if<bool>(&option.value);
    return b && !*b;
  }
  return false;
}

// Whether a node's default options are left out of canonical text.
template <class T = void>
bool drops_default_options(const dependent_t<PipelineNode, T>& node) {
  return node.name == sequential_name || !node.children.empty();
}

// opt_level=N of sequential or a nest kind: an int.
template <class T = void>
int opt_level_option(std::string_view text, std::string_view node, const dependent_t<PipelineOption, T>& option) {
  const auto* level = std::get_if<std::int64_t>(&option.value);
  if (!level || *level < std::numeric_limits<int>::min() || *level > std::numeric_limits<int>::max()) {
    throw_pipeline_error(
        text, option.column,
        "option 'opt_level' of '" + clipped(node) + "' expects an integer in the range of int, but was given " +
            type_with_article(config_type_of(option.value)) + " (" + format_option_value(option.value) + ")");
  }
  return static_cast<int>(*level);
}

template <class IR>
AnyPass<IR> build_pipeline(const PipelineNode& node, std::string_view text, const PassRegistry<IR>& registry,
                           const NestScope* scope = nullptr);

// NestText<IR>: a nest made from pipeline text: the DynamicNest, the kind it
// was written with and how it prints (canonical: a nest without passes keeps
// the options as written, since canonical text cannot tell it is a nest).
template <class IR>
class NestText : public CallablePass<NestText<IR>> {
 public:
  NestText(AnyPass<IR> nest, std::string text) : nest_(std::move(nest)), text_(std::move(text)) {}

  PassInfo info() const noexcept { return nest_.info(); }
  template <class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    return nest_.transform(std::move(ir), ctx);
  }
  const AnyPass<IR>& pass() const noexcept { return nest_; }
  std::size_t nesting_depth() const noexcept { return nest_.nesting_depth(); }
  const std::string& text() const noexcept { return text_; }

 private:
  AnyPass<IR> nest_;
  std::string text_;
};

template <class IR>
AnyPass<IR> build_pipeline(const PipelineNode& syntax, std::string_view text, const PassRegistry<IR>& registry,
                           const NestScope* scope) {
  const dependent_t<PipelineNode, IR>& node = syntax;  // (spelled dependently: see dependent_t)
  auto fail = [&](std::size_t column, const std::string& message) { throw_pipeline_error(text, column, message); };
  if (node.name != sequential_name) {
    if (const auto kind = registry.nest_kind(node.name)) return kind->build(node, text, registry);
  }
  if (node.name == sequential_name) {
    std::string name(sequential_name);
    int opt_level = 0;
    for (const auto& option : node.options) {
      const ConfigType given = config_type_of(option.value);
      if (option.key == "name") {
        if (given != ConfigType::string) {
          fail(option.column, "option 'name' of 'sequential' expects a string, but was given " +
                                  type_with_article(given) + " (" + format_option_value(option.value) + ")");
        }
        name = std::get<std::string>(option.value);
      } else if (option.key == "opt_level") {
        opt_level = opt_level_option(text, sequential_name, option);
      } else {
        constexpr std::string_view keys[] = {"name", "opt_level"};
        fail(option.column, "'sequential' has no option '" + clipped(option.key) +
                                "'; expected name=\"...\" or opt_level=N, or a pass" +
                                suggestion_text(option.key, keys, "options"));
      }
    }
    std::vector<AnyPass<IR>> children;
    children.reserve(node.children.size());
    for (const auto& child : node.children) children.push_back(build_pipeline<IR>(child, text, registry, scope));
    return AnyPass<IR>(DynamicSequential<IR>(std::move(children), PassInfo{name, opt_level}));
  }
  if (!registry.contains(node.name)) {
    // SPEC §11.11: a pass of the wrong level says where it belongs (before
    // anything else is said of it, items included).
    if (scope != nullptr && scope->parent_contains(scope->parent_registry, node.name)) {
      fail(node.column, "'" + clipped(node.name) + "' is not a " + std::string(scope->unit_kind) + " pass");
    }
    if (const auto kind = registry.unit_level_kind(node.name)) {
      fail(node.column, "'" + clipped(node.name) + "' is a " + std::string(kind->unit_kind) + " pass: nest it, as " +
                            kind->name + "(" + clipped(node.name) + ")");
    }
  }
  if (!node.children.empty()) {
    const auto kinds = registry.nest_names();
    if (!registry.contains(node.name)) {
      // Unknown and written with passes: a misspelt `sequential` or nest kind
      // (MLIR: "does not refer to a registered pass or pass pipeline"); the
      // closest names are those that take passes, not the passes.
      dependent_t<std::vector<std::string>, IR> takers(kinds.begin(), kinds.end());
      takers.emplace_back(sequential_name);
      fail(node.column, "unknown pass name '" + clipped(node.name) + "' with passes as items; expected 'sequential'" +
                            (kinds.empty() ? std::string() : " or a nest kind") +
                            suggestion_text(node.name, takers, "names that take passes"));
    }
    fail(node.children.front().column,
         "expected an option key=value in the options of '" + clipped(node.name) + "' (only 'sequential'" +
             (kinds.empty() ? std::string(" takes passes")
                            : " and nest kinds such as '" + kinds.front() + "' take passes") +
             "), found pass '" + clipped(node.children.front().name) + "'");
  }
  dependent_t<PassOptions, IR> options;
  for (const auto& option : node.options) options.emplace(option.key, option.value);
  try {
    return registry.create(node.name, options);
  } catch (const PassOptionError& error) {
    std::size_t column = node.column;
    for (const auto& option : node.options) {
      if (option.key == error.key()) column = option.column;
    }
    throw Error(pipeline_error_text(text, column, message_of(error)));
  } catch (const Error& error) {
    throw Error(pipeline_error_text(text, node.column, message_of(error)));
  }
}

// name(items) with items already written.
template <class T = void>
std::string join_items(std::string name, const dependent_t<std::vector<std::string>, T>& items) {
  if (items.empty()) return name;
  name += '(';
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) name += ',';
    name += items[i];
  }
  return name + ')';
}

}  // namespace detail

// parse_pipeline_syntax(text): the syntax tree of a pipeline; Error on malformed text.
template <class T = void>
PipelineNode parse_pipeline_syntax(std::string_view text) {
  return detail::PipelineParserOf<T>(text).parse();  // (T: void; spelled dependently, see detail::dependent_t)
}

// to_string(node): the canonical text of a syntax tree.
template <class T = void>
std::string to_string(const PipelineNode& node) {
  const detail::dependent_t<PipelineNode, T>& n = node;  // (spelled dependently: see detail::dependent_t)
  detail::dependent_t<std::vector<const PipelineOption*>, T> options;
  for (const auto& option : n.options) {
    if (detail::drops_default_options<T>(n) && detail::is_default_item_option<T>(n.name, option)) continue;
    options.push_back(&option);
  }
  std::sort(options.begin(), options.end(), [](const auto* a, const auto* b) { return a->key < b->key; });
  detail::dependent_t<std::vector<std::string>, T> items;
  for (const auto* option : options) items.push_back(option->key + "=" + format_option_value(option->value));
  for (const auto& child : n.children) items.push_back(to_string<T>(child));
  return detail::join_items<T>(n.name, items);
}

// canonical_pipeline(text): the text as print_pipeline writes it; Error on malformed text.
template <class T = void>
std::string canonical_pipeline(std::string_view text) {
  return to_string<T>(parse_pipeline_syntax<T>(text));
}

// parse_pipeline<IR>(text, registry): the pipeline the text describes.
template <class IR>
AnyPass<IR> parse_pipeline(std::string_view text, const PassRegistry<IR>& registry = PassRegistry<IR>::global()) {
  return detail::build_pipeline<IR>(parse_pipeline_syntax<detail::dependent_t<void, IR>>(text), text, registry);
}

template <class IR>
std::string print_pipeline(const AnyPass<IR>& pass);

// print_pipeline(seq): sequential(name=...,opt_level=...,children...) in canonical form.
template <class IR>
std::string print_pipeline(const DynamicSequential<IR>& seq) {
  const PassInfo info = seq.info();
  detail::dependent_t<std::vector<std::string>, IR> items;
  if (info.name != detail::sequential_name) items.push_back("name=" + detail::quote(info.name));
  if (info.opt_level != 0) items.push_back("opt_level=" + std::to_string(info.opt_level));
  for (const auto& child : seq.passes()) items.push_back(print_pipeline(child));
  return detail::join_items(std::string(detail::sequential_name), items);
}

// print_pipeline(pass): the name and options it was created with.
template <class IR>
std::string print_pipeline(const RegistryPass<IR>& pass) {
  return pass.text();
}

// print_pipeline(nest, kind): kind(name=...,opt_level=...,serial=true,passes...) in canonical form.
template <class Parent, class Unit>
std::string print_pipeline(const DynamicNest<Parent, Unit>& nest, std::string_view kind = unit_kind_name<Unit>()) {
  const PassInfo info = nest.info();
  detail::dependent_t<std::vector<std::string>, Unit> items;
  if (info.name != kind) items.push_back("name=" + detail::quote(info.name));
  if (info.opt_level != 0) items.push_back("opt_level=" + std::to_string(info.opt_level));
  if (nest.options().serial) items.push_back("serial=true");
  for (const auto& child : nest.passes()) items.push_back(print_pipeline(child));
  return detail::join_items(std::string(kind), items);
}

namespace detail {

template <class Parent, class Unit>
AnyPass<Parent> build_nest(const PipelineNode& syntax, std::string_view text, const PassRegistry<Unit>& units,
                           const PassRegistry<Parent>& parents) {
  const dependent_t<PipelineNode, Unit>& node = syntax;  // (spelled dependently: see dependent_t)
  std::string name = node.name;
  int opt_level = 0;
  NestOptions options{};
  for (const auto& option : node.options) {
    const ConfigType given = config_type_of(option.value);
    if (option.key == "name") {
      if (given != ConfigType::string) {
        throw_pipeline_error(text, option.column,
                             "option 'name' of '" + clipped(node.name) + "' expects a string, but was given " +
                                 type_with_article(given) + " (" + format_option_value(option.value) + ")");
      }
      name = std::get<std::string>(option.value);
    } else if (option.key == "opt_level") {
      opt_level = opt_level_option(text, node.name, option);
    } else if (option.key == "serial") {
      if (given != ConfigType::boolean) {
        throw_pipeline_error(text, option.column,
                             "option 'serial' of '" + clipped(node.name) + "' expects a boolean, but was given " +
                                 type_with_article(given) + " (" + format_option_value(option.value) + ")");
      }
      options.serial = std::get<bool>(option.value);
    } else {
      constexpr std::string_view keys[] = {"name", "opt_level", "serial"};
      throw_pipeline_error(text, option.column,
                           "'" + clipped(node.name) + "' has no option '" + clipped(option.key) +
                               "'; expected name=\"...\", opt_level=N or serial=true|false, or a " +
                               std::string(unit_kind_name<Unit>()) + " pass" +
                               suggestion_text(option.key, keys, "options"));
    }
  }
  const NestScope scope{unit_kind_name<Unit>(), &parents, +[](const void* registry, std::string_view n) {
                          return static_cast<const PassRegistry<Parent>*>(registry)->contains(n);
                        }};
  std::vector<AnyPass<Unit>> children;
  children.reserve(node.children.size());
  for (const auto& child : node.children) children.push_back(build_pipeline<Unit>(child, text, units, &scope));
  DynamicNest<Parent, Unit> nest(std::move(children), PassInfo{name, opt_level}, options);
  // With passes: canonical text drops the defaults; without: as written.
  std::string printed = node.children.empty() ? to_string(node) : print_pipeline(nest, node.name);
  return AnyPass<Parent>(NestText<Parent>(AnyPass<Parent>(std::move(nest)), std::move(printed)));
}

// print_code_nest(pass): a DynamicNest made in code, over a unit type IR lists.
template <class IR, class... Us>
bool print_code_nest(const AnyPass<IR>& pass, std::string& out, unit_list<Us...>*) {
  return ([&] {
    if (const auto* n = pass.template target<DynamicNest<IR, Us>>()) {
      out = print_pipeline(*n);
      return true;
    }
    return false;
  }() || ...);
}

}  // namespace detail

// print_pipeline(pass): see the header comment.
template <class IR>
std::string print_pipeline(const AnyPass<IR>& pass) {
  if (const auto* p = pass.template target<RegistryPass<IR>>()) return print_pipeline(*p);
  if (const auto* p = pass.template target<DynamicSequential<IR>>()) return print_pipeline(*p);
  if (const auto* p = pass.template target<AnyPass<IR>>()) return print_pipeline(*p);
  if (const auto* p = pass.template target<detail::NestText<IR>>()) return p->text();
  if constexpr (requires { typename ir_traits<IR>::unit_types; }) {
    std::string out;
    if (detail::print_code_nest(pass, out, static_cast<typename ir_traits<IR>::unit_types*>(nullptr))) return out;
  }
  const std::string_view name = pass.info().name;
  if (name == detail::sequential_name) {
    throw Error(
        "print_pipeline: a pass named 'sequential' that is not a DynamicSequential (a static Sequential "
        "erased into an AnyPass?) cannot be printed: its children are not visible at run time; expected "
        "a DynamicSequential, a registry-created pass or a named pass");
  }
  if (!is_pipeline_name(name)) {
    throw Error("print_pipeline: pass name '" + std::string(name) +
                "' cannot be written as pipeline text; expected a name of the form [A-Za-z_][A-Za-z0-9_.]*");
  }
  return std::string(name);
}

}  // namespace passinfra
