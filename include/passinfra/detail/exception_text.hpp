// passinfra/detail/exception_text.hpp — say what an exception_ptr holds.
//
// describe(eptr) -> std::string    "<what()>" for std::exception, else "non-standard exception"
#pragma once

#include <exception>
#include <string>

namespace passinfra::detail {

inline std::string describe(const std::exception_ptr& error) {
  if (!error) return "no exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

}  // namespace passinfra::detail
