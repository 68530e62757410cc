// tinyir/error.hpp — source spans and the three error types of tinyir.
//
// Span                      where a node came from: source name, 1-based line and column
// to_string(Span)           "<source>:<line>:<column>"
// Error                     base of every tinyir error (a std::runtime_error)
// TypeError                 type inference failed; what() names the expression
// ParseError                the parser rejected its input; what() shows the line and a caret
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace tinyir {

// Span: the source text a node was parsed from. `line` and `column` are those of
// the node's first token (1-based); `end_line`/`end_column` the position just past
// its last token (0 when unknown).
struct Span {
  std::string source;
  int line = 0;
  int column = 0;
  int end_line = 0;
  int end_column = 0;

  friend bool operator==(const Span&, const Span&) = default;
};

// to_string(span): "<source>:<line>:<column>"
inline std::string to_string(const Span& span) {
  return span.source + ":" + std::to_string(span.line) + ":" + std::to_string(span.column);
}

// Error: base class of every exception tinyir throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// TypeError(detail, expression, span): type inference rejected `expression`
// (a short rendering such as `nn.conv2d(%x, %weight, channels=64)`).
// what(): "[<source>:<line>:<col>: ]type error in `<expression>`: <detail>"
class TypeError : public Error {
 public:
  TypeError(std::string detail, std::string expression, std::optional<Span> span)
      : Error(compose(detail, expression, span)),
        detail_(std::move(detail)),
        expression_(std::move(expression)),
        span_(std::move(span)) {}

  const std::string& detail() const noexcept { return detail_; }
  const std::string& expression() const noexcept { return expression_; }
  const std::optional<Span>& span() const noexcept { return span_; }

 private:
  static std::string compose(const std::string& detail, const std::string& expression,
                             const std::optional<Span>& span) {
    std::string out;
    if (span) out += to_string(*span) + ": ";
    out += "type error in `" + expression + "`: " + detail;
    return out;
  }

  std::string detail_;
  std::string expression_;
  std::optional<Span> span_;
};

// ParseError(source, line, column, message, line_text): the parser's complaint.
// what():
//   <source>:<line>:<column>: error: <message>
//   <line_text>
//   <spaces>^
class ParseError : public Error {
 public:
  ParseError(std::string source, int line, int column, std::string message,
             std::string_view line_text)
      : Error(compose(source, line, column, message, line_text)),
        source_(std::move(source)),
        line_(line),
        column_(column),
        message_(std::move(message)) {}

  const std::string& source() const noexcept { return source_; }
  int line() const noexcept { return line_; }
  int column() const noexcept { return column_; }
  // The message alone, without location, line of text and caret.
  const std::string& message() const noexcept { return message_; }

 private:
  static std::string compose(const std::string& source, int line, int column,
                             const std::string& message, std::string_view line_text) {
    std::string out = source + ":" + std::to_string(line) + ":" + std::to_string(column) +
                      ": error: " + message + "\n";
    out.append(line_text);
    out += "\n";
    // Keep tabs so the caret lines up with the text above it.
    for (int i = 1; i < column; ++i) {
      const auto idx = static_cast<std::size_t>(i - 1);
      out += (idx < line_text.size() && line_text[idx] == '\t') ? '\t' : ' ';
    }
    out += "^";
    return out;
  }

  std::string source_;
  int line_;
  int column_;
  std::string message_;
};

}  // namespace tinyir
