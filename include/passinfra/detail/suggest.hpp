// passinfra/detail/suggest.hpp — "did you mean" for names.
//
// edit_distance(a, b)                      Levenshtein distance, ASCII case-insensitive
// closest_names(input, candidates, n)      up to n candidates nearest to input, nearest first
// suggestion_text(input, candidates, what) "; the closest registered <what>: 'a', 'b'" or
//                                          "; no <what> are registered" (what: a plural noun)
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace passinfra::detail {

inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

template <class Range>
std::vector<std::string> closest_names(std::string_view input, const Range& candidates, std::size_t n = 3) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string_view name(c);
    std::size_t d = edit_distance(input, name);
    // A candidate that contains the input (or the reverse) is a good guess.
    const bool contains =
        !input.empty() && (name.find(input) != std::string_view::npos || input.find(name) != std::string_view::npos);
    if (contains) d = std::min<std::size_t>(d, 1);
    scored.emplace_back(d, std::string(name));
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (auto& [d, name] : scored) {
    if (out.size() == n) break;
    out.push_back(std::move(name));
  }
  return out;
}

template <class Range>
std::string suggestion_text(std::string_view input, const Range& candidates, std::string_view what) {
  auto names = closest_names(input, candidates);
  if (names.empty()) return "; no " + std::string(what) + " are registered";
  std::string out = "; the closest registered " + std::string(what) + ": ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

}  // namespace passinfra::detail
