// passinfra/detail/type_name.hpp — readable names of types, for log lines.
//
// type_name<T>()  -> std::string_view   the type as the compiler spells it
#pragma once

#include <string_view>

namespace passinfra::detail {

// type_name<T>(): parsed out of the compiler's pretty function signature.
// g++:   "... type_name() [with T = ns::Foo; std::string_view = ...]"
// clang: "... type_name() [T = ns::Foo]"
template <class T>
constexpr std::string_view type_name() noexcept {
  std::string_view sig = __PRETTY_FUNCTION__;
  constexpr std::string_view key = "T = ";
  auto start = sig.find(key);
  if (start == std::string_view::npos) return "<unknown type>";
  start += key.size();
  auto end = sig.find(';', start);
  if (end == std::string_view::npos) end = sig.rfind(']');
  return sig.substr(start, end - start);
}

// always_false<T>: a dependent false, for static_asserts in discarded branches.
template <class...>
inline constexpr bool always_false = false;

// dependent_t<T, D>: T, spelled so that it depends on D. In a template,
// g++ instantiates a class template specialization named without a template
// parameter (a member's type, a return type, a local) where the template is
// defined, used or not; spelled this way, only when it is instantiated.
// Not std::void_t<D>-style spellings (`X<std::void_t<D>>`): clang reads
// those as X<void> and instantiates them, and what they call, at once.
// (Issue 18.)
template <class T, class>
struct dependent_type {
  using type = T;
};
template <class T, class D>
using dependent_t = typename dependent_type<T, D>::type;

// reported(check): true. `static_assert(reported(check<...>()))` instantiates
// the checks, which say what is wrong in their own static_assert; asserting
// their result as well would print a second error without a message.
consteval bool reported(bool) noexcept { return true; }

}  // namespace passinfra::detail
