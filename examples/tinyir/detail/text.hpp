// tinyir/detail/text.hpp — number and string formatting shared by the printer,
// the parser and error messages (internal).
//
// format_double(v)          shortest text that reads back as v ("1e-05", "-inf", "nan")
// format_float(v)           the same for float
// quote(s)                  "s" with \" \\ \n \t escaped
// edit_distance(a, b)       Levenshtein distance, for "did you mean" hints
// closest_names(word, names) the names within a small edit distance of word
// join(items, sep)          items joined by sep
// utf8_length(s, i)         length of the valid UTF-8 character at s[i], 0 for an invalid byte
// valid_utf8(s)             s with each byte that is not part of valid UTF-8 as `\xNN`
// printable(s)              valid_utf8(s), control characters as `\xNN` too
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "passinfra/detail/utf8.hpp"

namespace tinyir::detail {

// format_double(v): shortest round-trip text; "inf", "-inf", "nan" for the specials.
inline std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// format_float(v): shortest round-trip text of a float.
inline std::string format_float(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// quote(s): a double-quoted string literal.
inline std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  out += '"';
  return out;
}

// utf8_length(s, i): the length (1-4) of the well-formed UTF-8 character at s[i],
// 0 when s[i] does not start one (a stray continuation byte, an overlong form, a
// surrogate, a code point past U+10FFFF, or a sequence cut short).
inline std::size_t utf8_length(std::string_view s, std::size_t i) {
  return passinfra::detail::utf8_sequence_length(s, i);
}

namespace text_detail {
inline void append_hex_byte(std::string& out, unsigned char c) {
  const char* digits = "0123456789abcdef";
  out += "\\x";
  out += digits[c >> 4];
  out += digits[c & 15];
}
inline std::string escape(std::string_view s, bool controls) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n == 0 || (controls && (c < 0x20 || c == 0x7f))) {
      append_hex_byte(out, c);
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}
}  // namespace text_detail

// valid_utf8(s): s, each byte that is not part of a well-formed UTF-8 character
// written as the four characters `\xNN` (so a message built from input bytes is
// valid UTF-8 whatever the input).
inline std::string valid_utf8(std::string_view s) { return text_detail::escape(s, false); }

// printable(s): valid_utf8(s) with control characters (below 0x20, and 0x7f) as `\xNN` too.
inline std::string printable(std::string_view s) { return text_detail::escape(s, true); }

// join(items, sep)
inline std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

// format_shape(shape): "(1, 64, 56, 56)"; "(64)" for rank 1; "()" for rank 0.
inline std::string format_shape(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  out += ")";
  return out;
}

// edit_distance(a, b): Levenshtein distance.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// closest_names(word, names): the names at the smallest edit distance from word,
// if that distance is at most a third of the word's length (at least 2).
inline std::vector<std::string> closest_names(std::string_view word, const std::vector<std::string>& names) {
  std::vector<std::string> best;
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::size_t best_d = limit + 1;
  for (const auto& n : names) {
    const std::size_t d = edit_distance(word, n);
    if (d > limit) continue;
    if (d < best_d) {
      best_d = d;
      best.clear();
    }
    if (d == best_d) best.push_back(n);
  }
  return best;
}

// did_you_mean(word, names): " (did you mean 'x'?)" or "".
inline std::string did_you_mean(std::string_view word, const std::vector<std::string>& names) {
  const auto close = closest_names(word, names);
  if (close.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    if (i) out += i + 1 == close.size() ? " or " : ", ";
    out += "'" + close[i] + "'";
  }
  return out + "?)";
}

}  // namespace tinyir::detail
