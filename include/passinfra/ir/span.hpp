// passinfra/ir/span.hpp — source spans and diagnostics that point at them, for any IR.
//
// Span{source, line, column, end_line, end_column}   a place in a source text; 1-based, 0 = unknown
// to_string(span)                      "<source>:<line>:<column>" ("<source>:<line>", "<source>" when unknown)
// source_line(text, line)              line `line` (1-based) of text without its line end; nullopt past the end
// render_diagnostic(severity, span, message)               "<to_string(span)>: <severity>: <message>"
// render_diagnostic(severity, span, message, source_text)  the same, then the span's line and a caret line
//
// Spans are what AnnotateSpans (SPEC §7) gives every node, and what an IR's
// errors point at; an IR stores passinfra::Span (tinyir: `using Span =
// passinfra::Span`) or converts its own to one to render. A diagnostic is
// compiler-style text without a trailing newline, so it can be an exception's
// what() or one log message:
//
//   input.tir:2:11: error: expected a defined variable, found '%y'
//     add(%x, %y)
//             ^~
//
// Columns count bytes, as lexers do. The source line is echoed as it is, tabs
// included, so the caret line copies each tab above the caret and under the
// underline and the caret lines up whatever the tab width; UTF-8 continuation
// bytes take no cell, so a multi-byte character before the caret takes one
// (double-width characters are not measured). The caret sits under `column`;
// when the span ends on its first line, `~` underlines up to (not including)
// `end_column`; a span over several lines gets the caret alone. A column past
// the end of the line puts the caret just after the line's last character.
// Line ends are "\n", with a "\r" before one (CRLF) or at the end of the text
// dropped; a text ending in "\n" has one more, empty, line (where an
// end-of-input error points). No source line is shown when the span's line is
// unknown or past the end of the text, no caret line when the column is
// unknown. An empty severity is left out with its ": ". The result never holds
// a NUL byte (a C string such as what() would end there): each NUL byte, in
// the line or in any other part, shows as the two characters `\0` (and takes
// two cells in the caret line). It is always valid UTF-8: a byte that starts
// no well-formed UTF-8 sequence shows as `\xNN` (four cells).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t
#include "passinfra/detail/utf8.hpp"

namespace passinfra {

// Span: the source text a node came from. `line` and `column` are those of its
// first character (1-based); `end_line` and `end_column` the position just past
// its last one. 0 (or less) means unknown.
struct Span {
  std::string source;
  int line = 0;
  int column = 0;
  int end_line = 0;
  int end_column = 0;

  friend bool operator==(const Span&, const Span&) = default;
};

namespace detail {

// Appends `text` to `out` as valid UTF-8 with no NUL byte: each NUL byte as
// the two characters "\0", each byte that starts no well-formed UTF-8
// sequence as the four characters "\xNN" (hex), the rest unchanged.
template <class = void>
void append_without_nul(std::string& out, std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (text[i] == '\0') {
      out += "\\0";
    } else if (n == 0) {
      constexpr char hex[] = "0123456789abcdef";
      const auto b = static_cast<unsigned char>(text[i]);
      out += "\\x";
      out += hex[b >> 4U];
      out += hex[b & 0xFU];
    } else {
      out.append(text.substr(i, n));
    }
    i += n == 0 ? 1 : n;
  }
}

// Appends to `out` what goes under bytes [from, to) of a source line in the
// caret line, `fill` standing for a plain character: a tab stays a tab, a
// NUL (shown as "\0") takes two cells, a byte shown as "\xNN" four, a
// multi-byte UTF-8 character one (under its first byte).
template <class = void>
void append_cells(std::string& out, std::string_view line, std::size_t from, std::size_t to, char fill) {
  for (std::size_t i = 0; i < to;) {
    const std::size_t n = utf8_sequence_length(line, i);
    if (i >= from) {
      if (line[i] == '\t') {
        out += '\t';
      } else if (line[i] == '\0') {
        out.append(2, fill);
      } else {
        out.append(n == 0 ? 4 : 1, fill);
      }
    }
    i += n == 0 ? 1 : n;
  }
}

}  // namespace detail

// to_string(span): "<source>:<line>:<column>"; "<source>:<line>" when the column
// is unknown, "<source>" when the line is.
template <class = void>
std::string to_string(const Span& span) {
  std::string out;
  detail::append_without_nul(out, span.source);
  if (span.line > 0) {
    out += ':';
    out += std::to_string(span.line);
    if (span.column > 0) {
      out += ':';
      out += std::to_string(span.column);
    }
  }
  return out;
}

// source_line(text, line): line `line` (1-based) of `text`, without its "\n" or
// "\r\n" (or a "\r" ending the text); nullopt when `line` < 1 or the text has
// fewer lines. "a\n" has two lines, "a" and "".
// (std::optional<std::string_view>, spelled dependently: see detail::dependent_t.)
template <class T = void>
detail::dependent_t<std::optional<std::string_view>, T> source_line(std::string_view text, int line) {
  if (line < 1) return std::nullopt;
  std::size_t begin = 0;
  for (int i = 1; i < line; ++i) {
    const std::size_t newline = text.find('\n', begin);
    if (newline == std::string_view::npos) return std::nullopt;
    begin = newline + 1;
  }
  std::string_view result = text.substr(begin, text.find('\n', begin) - begin);  // npos - begin: to the end
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

// render_diagnostic(severity, span, message): "<to_string(span)>: <severity>: <message>",
// or "<to_string(span)>: <message>" when `severity` is empty.
template <class = void>
std::string render_diagnostic(std::string_view severity, const Span& span, std::string_view message) {
  std::string out = to_string(span);
  out += ": ";
  if (!severity.empty()) {
    detail::append_without_nul(out, severity);
    out += ": ";
  }
  detail::append_without_nul(out, message);
  return out;
}

// render_diagnostic(severity, span, message, source_text): the line above, then,
// when `source_text` has the span's line, that line and (when the column is
// known) a caret line under it:
//   <source>:<line>:<column>: <severity>: <message>
//   <the line of source text>
//   <spaces and tabs>^~~~
template <class T = void>
std::string render_diagnostic(std::string_view severity, const Span& span, std::string_view message,
                              std::string_view source_text) {
  std::string out = render_diagnostic(severity, span, message);
  const auto line = source_line<T>(source_text, span.line);
  if (!line) return out;
  out += '\n';
  detail::append_without_nul(out, *line);
  if (span.column < 1) return out;
  out += '\n';
  // 0-based byte offsets of the caret and of the end of the underline, at most
  // just past the line.
  const std::size_t caret = std::min(static_cast<std::size_t>(span.column - 1), line->size());
  std::size_t stop = caret;
  if (span.end_line == span.line && span.end_column > span.column)
    stop = std::min(static_cast<std::size_t>(span.end_column - 1), line->size());
  detail::append_cells(out, *line, 0, caret, ' ');
  out += '^';
  detail::append_cells(out, *line, caret + 1, stop, '~');
  return out;
}

}  // namespace passinfra
