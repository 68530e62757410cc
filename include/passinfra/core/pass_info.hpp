// passinfra/core/pass_info.hpp — what a pass says about itself (SPEC §1).
//
// PassInfo{name, opt_level, required}    a cheap view: name and required names
//                                        are string_views owned elsewhere
//                                        (a temporary std::string name is a
//                                        compile-time error: it would dangle)
// to_string(info) -> std::string         SPEC §1's text, newline included
// os << info                             the same text
//
// A static pass declares `static constexpr passinfra::PassInfo info{"Name", 2};`
// (string literals live forever); passes whose names are made at run time
// (AnyPass, registry passes) own the strings and hand out PassInfo views.
#pragma once

#include <concepts>
#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "passinfra/detail/compiled.hpp"

namespace passinfra {

namespace detail {
template <class>
inline constexpr bool dangling_pass_name = false;
}  // namespace detail

struct PassInfo {
  std::string_view name;
  int opt_level = 0;
  std::span<const std::string_view> required{};

  constexpr PassInfo() noexcept = default;
  // NOLINTNEXTLINE(google-explicit-constructor): `{"Name", 2}` is how a PassInfo is written
  constexpr PassInfo(std::string_view pass_name, int level = 0, std::span<const std::string_view> required_names = {})
      : name(pass_name), opt_level(level), required(required_names) {}
  // A PassInfo only views its name, so a temporary std::string (such as
  // `{"Dyn" + std::to_string(i), 0}`) would dangle as soon as the
  // expression ends: rejected at compile time. Keep the string alive
  // elsewhere and pass it as an lvalue, or erase the pass into an
  // AnyPass<IR> / DynamicSequential<IR>, which own their names.
  template <class S>
    requires std::same_as<S, std::string>
  // NOLINTNEXTLINE(google-explicit-constructor,bugprone-forwarding-reference-overload): only rejects
  PassInfo(S&& /*temporary*/, int /*level*/ = 0, std::span<const std::string_view> /*required*/ = {}) {
    static_assert(detail::dangling_pass_name<S>,
                  "passinfra::PassInfo: the pass name is a temporary std::string, which the PassInfo (a view) "
                  "would outlive; keep the name in a std::string that outlives the pass (or use a string "
                  "literal) and pass that");
  }

  friend constexpr bool operator==(const PassInfo& a, const PassInfo& b) noexcept {
    if (a.name != b.name || a.opt_level != b.opt_level || a.required.size() != b.required.size()) return false;
    for (std::size_t i = 0; i < a.required.size(); ++i) {
      if (a.required[i] != b.required[i]) return false;
    }
    return true;
  }
};

// to_string(info): exactly SPEC §1, e.g.
//   "The meta data of the pass - pass name: InferType, opt_level: 0, required passes: []\n"
// (A template called as to_string(info), like the other cold helpers: a
// translation unit compiles it only when it uses it.)
template <class = void>
std::string to_string(const PassInfo& info) {
  std::string out = "The meta data of the pass - pass name: ";
  out += info.name;
  out += ", opt_level: ";
  out += std::to_string(info.opt_level);
  out += ", required passes: [";
  if (!info.required.empty()) {
    out += '\n';
    for (std::string_view r : info.required) {
      out += r;
      out += ", ";
    }
  }
  out += "]\n";
  return out;
}
PASSINFRA_COLD_INSTANCE(std::string to_string<void>(const PassInfo&))

// A template over the stream's traits, so that this header needs only <iosfwd>:
// the insertion is compiled where it is used, with the caller's <ostream>.
template <class Traits>
std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os, const PassInfo& info) {
  return os << to_string(info);
}

}  // namespace passinfra
