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

#include "passinfra/detail/compiled.hpp"

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
// (The constructor not inlined: a TU's cold messages use it in several places;
// issue 18: context.cpp -21 M compiler instructions on g++, -8 M on clang.)
class DecimalText {
 public:
  [[gnu::noinline]] explicit DecimalText(long long value) noexcept {
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

// What every Error's message starts with.
inline constexpr std::string_view error_prefix = "passinfra: ";

// put_without_nul(out, at, c): c written at out[at], a NUL as the two
// characters \0; returns where the next character goes.
constexpr std::size_t put_without_nul(char* out, std::size_t at, char c) noexcept {
  if (c == '\0') {
    out[at++] = '\\';
    out[at++] = '0';
  } else {
    out[at++] = c;
  }
  return at;
}

// prefix, then the message with each NUL written as the two characters \0.
inline std::string without_nul(std::string_view message, std::string_view prefix = {}) {
  std::size_t nuls = 0;
  for (const char c : message) nuls += c == '\0' ? 1 : 0;
  std::string out(prefix.size() + message.size() + nuls, '\0');
  std::char_traits<char>::copy(out.data(), prefix.data(), prefix.size());
  std::size_t at = prefix.size();
  for (const char c : message) at = put_without_nul(out.data(), at, c);
  return out;
}

// ErrorText: a message already prefixed and without NULs (throw_error).
struct ErrorText {
  const char* text;
};

template <class = void>
[[noreturn, gnu::cold, gnu::noinline]] void throw_error(std::initializer_list<std::string_view> parts);

}  // namespace detail

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(detail::without_nul(message, detail::error_prefix)) {}
  // (What detail::throw_error throws: the same text, built without a std::string.)
  explicit Error(detail::ErrorText message) : std::runtime_error(message.text) {}
};

namespace detail {

// throw_error({a, b, ...}): throws Error(concat({a, b, ...})), the same text,
// composed in a buffer: a translation unit whose only messages are a few
// cold ones (a context's constructor) compiles none of std::string's members
// for them (issue 18: they were a quarter of a TU that makes one context).
// For bounded parts (names quoted through ClippedText): a message longer
// than the buffer ends in "..." rather than overflowing it.
template <class>
void throw_error(std::initializer_list<std::string_view> parts) {
  constexpr std::size_t capacity = 1024;
  constexpr std::size_t reserve = 2 + 3 + 1;  // room for a NUL written as \0, "..." and the terminator
  char text[capacity];
  std::char_traits<char>::copy(text, error_prefix.data(), error_prefix.size());
  std::size_t size = error_prefix.size();
  for (const std::string_view part : parts) {
    for (const char c : part) {
      if (size + reserve > capacity) {
        std::char_traits<char>::copy(text + size, "...\0", 4);
        throw Error(ErrorText{text});
      }
      size = put_without_nul(text, size, c);
    }
  }
  text[size] = '\0';
  throw Error(ErrorText{text});
}
PASSINFRA_COLD_INSTANCE(void throw_error<void>(std::initializer_list<std::string_view>))

}  // namespace detail

}  // namespace passinfra
