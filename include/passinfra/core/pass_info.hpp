// passinfra/core/pass_info.hpp — what a pass says about itself (SPEC §1).
//
// PassInfo{name, opt_level, required}    a cheap view: name and required names
//                                        are string_views owned elsewhere
// to_string(info) -> std::string         SPEC §1's text, newline included
// os << info                             the same text
//
// A static pass declares `static constexpr passinfra::PassInfo info{"Name", 2};`
// (string literals live forever); passes whose names are made at run time
// (AnyPass, registry passes) own the strings and hand out PassInfo views.
#pragma once

#include <algorithm>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace passinfra {

struct PassInfo {
  std::string_view name;
  int opt_level = 0;
  std::span<const std::string_view> required{};

  friend constexpr bool operator==(const PassInfo& a, const PassInfo& b) noexcept {
    return a.name == b.name && a.opt_level == b.opt_level &&
           std::equal(a.required.begin(), a.required.end(), b.required.begin(), b.required.end());
  }
};

// to_string(info): exactly SPEC §1, e.g.
//   "The meta data of the pass - pass name: InferType, opt_level: 0, required passes: []\n"
inline std::string to_string(const PassInfo& info) {
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

inline std::ostream& operator<<(std::ostream& os, const PassInfo& info) { return os << to_string(info); }

}  // namespace passinfra
