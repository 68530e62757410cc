// tests/support/mini_json.hpp — a strict little JSON parser, to check JSON output by reading it back.
//
// Json                    null | bool | number (double) | string | array | object (ordered members)
// parse_json(text)        throws std::runtime_error("json: ... at offset N") on anything RFC 8259 rejects
// JsonMember{first, second}   an object member: key and value
// j.is_*() / j.as_*()     kind tests and accessors; j["key"] (object member, must exist), j[i] (array)
//
// Strings are decoded (\uXXXX, surrogate pairs included, to UTF-8); raw
// control characters in strings are errors, as the RFC says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pitest {

struct JsonMember;

struct Json {
  using Array = std::vector<Json>;
  using Object = std::vector<JsonMember>;  // members in document order
  std::variant<std::nullptr_t, bool, double, std::string, Array, Object> value;

  bool is_null() const { return value.index() == 0; }
  bool is_bool() const { return value.index() == 1; }
  bool is_number() const { return value.index() == 2; }
  bool is_string() const { return value.index() == 3; }
  bool is_array() const { return value.index() == 4; }
  bool is_object() const { return value.index() == 5; }
  bool as_bool() const { return std::get<bool>(value); }
  double as_number() const { return std::get<double>(value); }
  const std::string& as_string() const { return std::get<std::string>(value); }
  // Defined below, where JsonMember is complete.
  const Array& as_array() const;
  const Object& as_object() const;
  bool has(std::string_view key) const;
  const Json& operator[](std::string_view key) const;
  const Json& operator[](std::size_t i) const;
};

struct JsonMember {
  std::string first;  // the key
  Json second;        // the value
};

inline const Json::Array& Json::as_array() const { return std::get<Array>(value); }
inline const Json::Object& Json::as_object() const { return std::get<Object>(value); }
inline bool Json::has(std::string_view key) const {
  for (const auto& member : as_object()) {
    if (member.first == key) return true;
  }
  return false;
}
inline const Json& Json::operator[](std::string_view key) const {
  for (const auto& member : as_object()) {
    if (member.first == key) return member.second;
  }
  throw std::runtime_error("json: no member '" + std::string(key) + "'");
}
inline const Json& Json::operator[](std::size_t i) const { return as_array().at(i); }

namespace detail_json {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Json document() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("json: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  char peek() {
    if (i_ >= s_.size()) fail("unexpected end");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) fail("bad literal");
    i_ += word.size();
  }

  Json value() {
    ws();
    const char c = peek();
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return Json{string()};
    if (c == 't') return literal("true"), Json{true};
    if (c == 'f') return literal("false"), Json{false};
    if (c == 'n') return literal("null"), Json{nullptr};
    return Json{number()};
  }

  Json object() {
    expect('{');
    Json::Object members;
    ws();
    if (peek() == '}') return ++i_, Json{std::move(members)};
    while (true) {
      ws();
      std::string key = string();
      ws();
      expect(':');
      Json v = value();
      members.push_back(JsonMember{std::move(key), std::move(v)});
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      return Json{std::move(members)};
    }
  }

  Json array() {
    expect('[');
    Json::Array items;
    ws();
    if (peek() == ']') return ++i_, Json{std::move(items)};
    while (true) {
      items.push_back(value());
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect(']');
      return Json{std::move(items)};
    }
  }

  double number() {
    const std::size_t start = i_;
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    } else {
      fail("bad number");
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') fail("bad fraction");
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') fail("bad exponent");
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    return std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
  }

  unsigned hex4() {
    if (i_ + 4 > s_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= unsigned(c - 'A' + 10);
      else
        fail("bad hex digit");
    }
    return v;
  }

  static void utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    expect('"');
    std::string out;
    while (true) {
      const char c = peek();
      ++i_;
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++i_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(i_, 2) != "\\u") fail("lone high surrogate");
            i_ += 2;
            const std::uint32_t lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("bad low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("lone low surrogate");
          }
          utf8(out, cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace detail_json

inline Json parse_json(std::string_view text) { return detail_json::Parser(text).document(); }

}  // namespace pitest
