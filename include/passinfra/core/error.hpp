// passinfra/core/error.hpp — the error passinfra throws for bad input.
//
// Error                      std::runtime_error; the message names the input,
//                            what was expected, and the closest valid names
#pragma once

#include <stdexcept>
#include <string>

namespace passinfra {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error("passinfra: " + message) {}
};

}  // namespace passinfra
