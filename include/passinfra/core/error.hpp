// passinfra/core/error.hpp — the error passinfra throws for bad input.
//
// Error                      std::runtime_error; the message names the input,
//                            what was expected, and the closest valid names
//
// what() is a C string, so a NUL byte in the message (one quoted from the
// input) would end it early: Error writes each NUL as the two characters \0.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace passinfra {

namespace detail {

// concat({a, b, ...}): the pieces in one string, sized once. Messages are
// built with it rather than a chain of std::string operator+: since C++20
// every member of std::string is constexpr (so inline), and a translation
// unit that throws compiles each one it reaches (issue 18: _M_replace,
// _M_mutate, append... were most of the cost of a TU that makes a context).
inline std::string concat(std::initializer_list<std::string_view> parts) {
  std::size_t size = 0;
  for (const std::string_view part : parts) size += part.size();
  std::string out(size, '\0');
  char* at = out.data();
  for (const std::string_view part : parts) {
    std::char_traits<char>::copy(at, part.data(), part.size());
    at += part.size();
  }
  return out;
}

// DecimalText(n): n in decimal, as std::to_string(n) writes it, without a string.
class DecimalText {
 public:
  explicit DecimalText(long long value) noexcept {
    unsigned long long magnitude =
        value < 0 ? 0ULL - static_cast<unsigned long long>(value) : static_cast<unsigned long long>(value);
    do {
      digits_[--begin_] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0);
    if (value < 0) digits_[--begin_] = '-';
  }
  std::string_view view() const noexcept { return {digits_ + begin_, sizeof digits_ - begin_}; }

 private:
  char digits_[24] = {};
  std::size_t begin_ = sizeof digits_;
};

// prefix, then the message with each NUL written as the two characters \0.
inline std::string without_nul(std::string_view message, std::string_view prefix = {}) {
  std::size_t nuls = 0;
  for (const char c : message) nuls += c == '\0' ? 1 : 0;
  std::string out(prefix.size() + message.size() + nuls, '\0');
  char* at = out.data();
  std::char_traits<char>::copy(at, prefix.data(), prefix.size());
  at += prefix.size();
  for (const char c : message) {
    if (c == '\0') {
      *at++ = '\\';
      *at++ = '0';
    } else {
      *at++ = c;
    }
  }
  return out;
}

}  // namespace detail

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(detail::without_nul(message, "passinfra: ")) {}
};

}  // namespace passinfra
