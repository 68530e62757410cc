// passinfra/detail/exception_text.hpp — say what an exception_ptr holds.
//
// describe(eptr) -> std::string    "<what()>" for std::exception, else "non-standard exception"
#pragma once

#include <exception>
#include <string>

#include "passinfra/detail/compiled.hpp"

namespace passinfra::detail {

// (A template, called as describe(error), like the other cold helpers: a
// translation unit compiles it only when it uses it.)
template <class = void>
std::string describe(const std::exception_ptr& error) {
  if (!error) return "no exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}
PASSINFRA_COLD_INSTANCE(std::string describe<void>(const std::exception_ptr&))

}  // namespace passinfra::detail
