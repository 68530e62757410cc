// passinfra/detail/suggest.hpp — "did you mean" for names.
//
// edit_distance(a, b)                      Levenshtein distance, ASCII case-insensitive
// edit_distance_at_most(a, b, bound)       the same if it is <= bound, else bound + 1 (O(|a| * bound))
// closest_names(input, candidates, n)      up to n candidates nearest to input, nearest first
// suggestion_text(input, candidates, what) "; the closest registered <what>: 'a', 'b'" or
//                                          "; no <what> are registered" (what: a plural noun)
// clipped(text)                            text, or its first max_quoted_length bytes and
//                                          "... (N bytes)": how messages quote names given as input
// ClippedText(text)                       the same as head() and tail(), without a std::string
//
// The work is bounded: names are compared by their first max_quoted_length
// (80) bytes, and a candidate is only scored as far as it could still be
// among the n nearest (edit_distance_at_most, after a length filter), so an
// unknown name of any length against any number of candidates costs about
// 80 * (2 * the n-th best distance + 1) steps per candidate. Messages quote
// names through clipped(), so they stay short whatever the input.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "passinfra/core/error.hpp"  // detail::concat, detail::DecimalText
#include "passinfra/detail/compiled.hpp"
#include "passinfra/detail/type_name.hpp"  // detail::dependent_t

namespace passinfra::detail {

// min_of / max_of: std::min / std::max without <algorithm>.
constexpr std::size_t min_of(std::size_t a, std::size_t b) noexcept { return b < a ? b : a; }
constexpr std::size_t max_of(std::size_t a, std::size_t b) noexcept { return a < b ? b : a; }

// max_quoted_length: how many bytes of a name messages quote and suggestions compare.
inline constexpr std::size_t max_quoted_length = 80;

// fold(c): c with ASCII upper case made lower case.
constexpr char fold(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// (edit_distance, edit_distance_at_most: templates called as plain functions,
// so that a translation unit compiles them only when it reports a name; the
// types they name are spelled dependently, type_name.hpp.)
template <class D = void>
std::size_t edit_distance(std::string_view a, std::string_view b) {
  dependent_t<std::vector<std::size_t>, D> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t next =
          min_of(min_of(row[j] + 1, row[j - 1] + 1), diagonal + (fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1));
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}
PASSINFRA_COLD_INSTANCE(std::size_t edit_distance<void>(std::string_view, std::string_view))

// NameScorer(input): edit distances from one input to many names, each
// computed only as far as a bound: distance_at_most(name, bound) is the
// distance if it is at most bound, else bound + 1. Cheap lower bounds come
// first (the difference in length, then in letters: each edit changes at
// most one letter of either side), then only the cells within `bound` of the
// diagonal, stopping at the first row all of whose cells exceed bound.
// (A class template, NameScorer below, so that only a translation unit that
// reports a name compiles its members.)
template <class D = void>
class NameScorerOf {
 public:
  explicit NameScorerOf(std::string_view input) : input_(input.size(), '\0') {
    for (std::size_t i = 0; i < input.size(); ++i) {
      input_[i] = fold(input[i]);
      ++counts_[static_cast<unsigned char>(input_[i])];
    }
  }

  std::size_t distance_at_most(std::string_view name, std::size_t bound) {
    const std::size_t la = input_.size();
    const std::size_t lb = name.size();
    bound = min_of(bound, max_of(la, lb));  // the distance never exceeds the longer length
    const std::size_t over = bound + 1;
    if ((la > lb ? la - lb : lb - la) > bound) return over;
    std::size_t only_name = 0;  // letters of name the input lacks (with multiplicity)
    for (const char c : name) {
      const auto f = static_cast<unsigned char>(fold(c));
      if (used_[f] < counts_[f]) {
        ++used_[f];
      } else {
        ++only_name;
      }
    }
    for (const char c : name) used_[static_cast<unsigned char>(fold(c))] = 0;
    const std::size_t only_input = la - (lb - only_name);
    if (max_of(only_name, only_input) > bound) return over;

    row_.resize(lb + 1);
    std::size_t* const row = row_.data();
    for (std::size_t j = 0; j <= lb; ++j) row[j] = j < over ? j : over;
    for (std::size_t i = 1; i <= la; ++i) {
      const std::size_t lo = i > bound ? i - bound : 1;
      const std::size_t hi = min_of(lb, i + bound);
      const char a = input_[i - 1];
      std::size_t diagonal = row[lo - 1];
      row[lo - 1] = lo == 1 && i < over ? i : over;  // left of the band: too far
      std::size_t row_min = row[lo - 1];
      for (std::size_t j = lo; j <= hi; ++j) {
        std::size_t next = diagonal + (a == fold(name[j - 1]) ? 0 : 1);
        if (row[j] + 1 < next) next = row[j] + 1;
        if (row[j - 1] + 1 < next) next = row[j - 1] + 1;
        if (next > over) next = over;
        diagonal = row[j];
        row[j] = next;
        if (next < row_min) row_min = next;
      }
      if (row_min >= over) return over;
    }
    return row[lb] < over ? row[lb] : over;
  }

 private:
  std::string input_;  // folded
  std::array<std::size_t, 256> counts_{};
  std::array<std::size_t, 256> used_{};
  dependent_t<std::vector<std::size_t>, D> row_;
};

using NameScorer = NameScorerOf<>;

// edit_distance_at_most(a, b, bound): edit_distance(a, b) if it is at most
// bound, else bound + 1 (NameScorer's way).
template <class D = void>
std::size_t edit_distance_at_most(std::string_view a, std::string_view b, std::size_t bound) {
  return NameScorerOf<D>(a).distance_at_most(b, bound);
}
PASSINFRA_COLD_INSTANCE(std::size_t edit_distance_at_most<void>(std::string_view, std::string_view, std::size_t))

// ClippedText(text): clipped(text) in two pieces, without a std::string (for
// throw_error): head(), text or its first max_quoted_length bytes at most, not
// splitting a UTF-8 sequence; tail(), "... (N bytes)" when text was cut, else "".
class ClippedText {
 public:
  explicit ClippedText(std::string_view text) noexcept : head_(text) {
    if (text.size() <= max_quoted_length) return;
    std::size_t cut = max_quoted_length;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    head_ = text.substr(0, cut);
    const DecimalText count(static_cast<long long>(text.size()));
    const std::string_view bytes = count.view();
    tail_size_ = 5 + bytes.size() + 7;
    std::char_traits<char>::copy(tail_, "... (", 5);
    std::char_traits<char>::copy(tail_ + 5, bytes.data(), bytes.size());
    std::char_traits<char>::copy(tail_ + 5 + bytes.size(), " bytes)", 7);
  }
  std::string_view head() const noexcept { return head_; }
  std::string_view tail() const noexcept { return {tail_, tail_size_}; }

 private:
  std::string_view head_;
  char tail_[40] = {};  // "... (" + at most 20 digits + " bytes)"
  std::size_t tail_size_ = 0;
};

// clipped(text): text if it has at most max_quoted_length bytes, else its
// first ones and "... (N bytes)" (ClippedText). (A template called as
// clipped(text): compiled only where it is used.)
template <class = void>
std::string clipped(std::string_view text) {
  if (text.size() <= max_quoted_length) return std::string(text);
  const ClippedText clip(text);
  return concat({clip.head(), clip.tail()});
}
PASSINFRA_COLD_INSTANCE(std::string clipped<void>(std::string_view))

template <class Range>
dependent_t<std::vector<std::string>, Range> closest_names(std::string_view input, const Range& candidates,
                                                           std::size_t n = 3) {
  struct Scored {
    std::size_t distance;
    std::string_view name;
  };
  std::vector<Scored> best;  // the n nearest so far, nearest first; ties in candidate order
  if (n == 0) return {};
  best.reserve(n + 1);
  input = input.substr(0, max_quoted_length);
  NameScorerOf<dependent_t<void, Range>> scorer(input);
  for (const auto& c : candidates) {
    const std::string_view full(c);
    const std::string_view name = full.substr(0, max_quoted_length);
    // A later candidate enters only if nearer than the n-th (ties keep the earlier).
    std::size_t bound = max_of(input.size(), name.size());
    if (best.size() == n) {
      if (best.back().distance == 0) break;
      bound = min_of(bound, best.back().distance - 1);
    }
    std::size_t d = 0;
    // A candidate that contains the input (or the reverse) is a good guess.
    const bool contains =
        !input.empty() && (name.find(input) != std::string_view::npos || input.find(name) != std::string_view::npos);
    if (contains) {
      d = name.size() == input.size() ? 0 : 1;
    } else {
      d = scorer.distance_at_most(name, bound);
    }
    if (d > bound) continue;
    auto at = best.begin();  // after every candidate at distance <= d
    while (at != best.end() && at->distance <= d) ++at;
    best.insert(at, Scored{d, full});
    if (best.size() > n) best.pop_back();
  }
  dependent_t<std::vector<std::string>, Range> out;
  out.reserve(best.size());
  for (const auto& s : best) out.emplace_back(s.name);
  return out;
}

template <class Range>
std::string suggestion_text(std::string_view input, const Range& candidates, std::string_view what) {
  auto names = closest_names(input, candidates);
  if (names.empty()) return "; no " + std::string(what) + " are registered";
  std::string out = "; the closest registered " + std::string(what) + ": ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += "'" + clipped(names[i]) + "'";
  }
  return out;
}

}  // namespace passinfra::detail
