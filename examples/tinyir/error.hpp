// tinyir/error.hpp — source spans and the three error types of tinyir.
//
// Span                      passinfra::Span: source name, 1-based line and column, end
// to_string(Span)           passinfra::to_string: "<source>:<line>:<column>"
// Error                     base of every tinyir error (a std::runtime_error)
// TypeError                 type inference failed; what() names the expression
// ParseError                the parser rejected its input; what() shows the line and a caret
//
// Spans and the text of errors are passinfra's (passinfra/ir/span.hpp): tinyir
// keeps no span type or diagnostic renderer of its own.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <passinfra/ir/span.hpp>

#include "tinyir/detail/text.hpp"

namespace tinyir {

// [span]
// Span: the source text a node was parsed from -- passinfra's, so passinfra's
// to_string and render_diagnostic work on it. `line` and `column` are those of
// the node's first token (1-based); `end_line`/`end_column` the position just
// past its last token (0 when unknown).
using Span = passinfra::Span;
using passinfra::to_string;  // to_string(span): "<source>:<line>:<column>"
// [span]

// Error: base class of every exception tinyir throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// TypeError(detail, expression, span): type inference rejected `expression`
// (a short rendering such as `nn.conv2d(%x, %weight, channels=64)`).
// what(): "[<source>:<line>:<col>: ]type error in `<expression>`: <detail>"
// Bytes of detail and expression that are not valid UTF-8 show as `\xNN`.
class TypeError : public Error {
 public:
  TypeError(std::string detail, std::string expression, std::optional<Span> span)
      : TypeError(Checked{}, to_valid_utf8(std::move(detail)), to_valid_utf8(std::move(expression)), std::move(span)) {}

  const std::string& detail() const noexcept { return detail_; }
  const std::string& expression() const noexcept { return expression_; }
  const std::optional<Span>& span() const noexcept { return span_; }

 private:
  struct Checked {};
  static std::string to_valid_utf8(std::string&& s) {
    for (std::size_t i = 0; i < s.size();) {
      const std::size_t n = tinyir::detail::utf8_length(s, i);
      if (n == 0) return tinyir::detail::valid_utf8(s);
      i += n;
    }
    return std::move(s);
  }
  TypeError(Checked /*valid UTF-8*/, std::string detail, std::string expression, std::optional<Span> span)
      : Error(compose(detail, expression, span)),
        detail_(std::move(detail)),
        expression_(std::move(expression)),
        span_(std::move(span)) {}

  static std::string compose(const std::string& detail, const std::string& expression,
                             const std::optional<Span>& span) {
    std::string message = "type error in `" + expression + "`: " + detail;
    return span ? passinfra::render_diagnostic("", *span, message) : message;
  }

  std::string detail_;
  std::string expression_;
  std::optional<Span> span_;
};

// ParseError(span, message, text): the parser's complaint about `text`, the
// whole input, at `span` (line and column; no end, so the caret stands alone).
// what(), by passinfra::render_diagnostic:
//   <source>:<line>:<column>: error: <message>
//   <the line of text>
//   <spaces>^
// The parser passes messages through detail::valid_utf8 (input bytes that are not
// valid UTF-8 show as `\xNN`); the line of text is echoed by
// passinfra::render_diagnostic.
class ParseError : public Error {
 public:
  // [parse-error]
  ParseError(Span span, std::string message, std::string_view text)
      : Error(passinfra::render_diagnostic("error", span, message, text)),
        span_(std::move(span)),
        message_(std::move(message)) {}
  // [parse-error]

  const Span& span() const noexcept { return span_; }
  const std::string& source() const noexcept { return span_.source; }
  int line() const noexcept { return span_.line; }
  int column() const noexcept { return span_.column; }
  // The message alone, without location, line of text and caret.
  const std::string& message() const noexcept { return message_; }

 private:
  Span span_;
  std::string message_;
};

}  // namespace tinyir
