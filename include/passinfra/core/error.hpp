// passinfra/core/error.hpp — the error passinfra throws for bad input.
//
// Error                      std::runtime_error; the message names the input,
//                            what was expected, and the closest valid names
//
// what() is a C string, so a NUL byte in the message (one quoted from the
// input) would end it early: Error writes each NUL as the two characters \0.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace passinfra {

namespace detail {
inline std::string without_nul(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (char c : message) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace detail

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error("passinfra: " + detail::without_nul(message)) {}
};

}  // namespace passinfra
