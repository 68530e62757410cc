// tests/support/text_ir.hpp — a printable, parsable IR for the instrument tests.
//
// TextIR{lines}                   a module: one instruction per line
// ir_traits<TextIR>::print(ir)    each line followed by '\n'
// ir_traits<TextIR>::parse(text, source)   the lines back; blank lines and "//" comments are skipped
// text_ir({"a", "b"})             shorthand
// append_pass(name, line)         a module pass appending `line`
// replace_pass(name, from, to)    a module pass replacing every line `from` by `to`
// identity_pass(name)             a module pass returning its input
// crash_if_pass(name, line)       a module pass that throws TestError(7, "crash: <line>") if `line` is present
//
// Pass names are string_views: pass string literals (they must outlive the pass).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

namespace pitest {

struct TextIR {
  std::vector<std::string> lines;
  friend bool operator==(const TextIR&, const TextIR&) = default;
};

inline TextIR text_ir(std::vector<std::string> lines) { return TextIR{std::move(lines)}; }

}  // namespace pitest

template <>
struct passinfra::ir_traits<pitest::TextIR> {
  static std::string print(const pitest::TextIR& ir) {
    std::string out;
    for (const auto& line : ir.lines) {
      out += line;
      out += '\n';
    }
    return out;
  }
  static pitest::TextIR parse(std::string_view text, std::string_view /*source*/) {
    pitest::TextIR ir;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t nl = text.find('\n', start);
      const std::string_view line = text.substr(start, nl == std::string_view::npos ? text.npos : nl - start);
      if (!line.empty() && line.substr(0, 2) != "//") ir.lines.emplace_back(line);
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    return ir;
  }
};

namespace pitest {

inline auto append_pass(std::string_view name, std::string line) {
  return passinfra::module_pass(passinfra::PassInfo{name, 0}, [line = std::move(line)](TextIR ir) {
    ir.lines.push_back(line);
    return ir;
  });
}

inline auto replace_pass(std::string_view name, std::string from, std::string to) {
  return passinfra::module_pass(passinfra::PassInfo{name, 0}, [from = std::move(from), to = std::move(to)](TextIR ir) {
    std::replace(ir.lines.begin(), ir.lines.end(), from, to);
    return ir;
  });
}

inline auto identity_pass(std::string_view name) {
  return passinfra::module_pass(passinfra::PassInfo{name, 0}, [](TextIR ir) { return ir; });
}

inline auto crash_if_pass(std::string_view name, std::string line) {
  return passinfra::module_pass(passinfra::PassInfo{name, 0}, [line = std::move(line)](TextIR ir) {
    if (std::find(ir.lines.begin(), ir.lines.end(), line) != ir.lines.end()) throw_test_error(7, "crash: " + line);
    return ir;
  });
}

}  // namespace pitest
