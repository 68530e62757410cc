// passinfra/detail/line_diff.hpp — a small line diff in unified format (for PrintIRChanged).
//
// split_lines(text) -> lines           each line keeps its '\n' (the last one may lack it)
// diff_lines(a, b) -> edits            equal / erase / insert, in order: a longest common subsequence
// unified_diff(before, after, from, to, context = 3) -> text   "" when equal
//
// The diff trims the common prefix and suffix, then runs the textbook LCS
// table on what is left (IR changes are usually local). When that middle is
// larger than max_lcs_cells, it is reported as replaced wholesale: still a
// correct diff, just not a minimal one. Output follows GNU diff -u: `---` /
// `+++` headers, `@@ -l,s +l,s @@` hunks (",s" left out when s is 1; an empty
// side is `l,0` with l the line before), `context` lines around changes,
// hunks closer than 2 * context merged, and "\ No newline at end of file"
// after a last line that has none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra::detail {

// The functions' std types are spelled dependently (see dependent_t), so
// that nothing here is instantiated before a diff is made.
template <class T = void>
using Lines = dependent_t<std::vector<std::string_view>, T>;

template <class T = void>
Lines<T> split_lines(std::string_view text) {
  Lines<T> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

enum class EditKind : std::uint8_t { equal, erase, insert };

struct Edit {
  EditKind kind;
  std::size_t a;  // index in the old lines (equal, erase)
  std::size_t b;  // index in the new lines (equal, insert)
};

inline constexpr std::size_t max_lcs_cells = std::size_t{1} << 22;

template <class T = void>
dependent_t<std::vector<Edit>, T> diff_lines(const Lines<T>& a, const Lines<T>& b) {
  dependent_t<std::vector<Edit>, T> edits;
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  for (std::size_t i = 0; i < prefix; ++i) edits.push_back({EditKind::equal, i, i});

  const std::size_t n = a.size() - prefix - suffix;  // the middles: a[prefix, prefix + n), b[prefix, prefix + m)
  const std::size_t m = b.size() - prefix - suffix;
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= max_lcs_cells) {
    // lcs[i][j]: LCS length of a-middle[i..] and b-middle[j..].
    dependent_t<std::vector<std::uint32_t>, T> lcs((n + 1) * (m + 1), 0);
    const auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t j = m; j-- > 0;) {
        at(i, j) = a[prefix + i] == b[prefix + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
      }
    }
    std::size_t i = 0, j = 0;
    while (i < n && j < m) {
      if (a[prefix + i] == b[prefix + j]) {
        edits.push_back({EditKind::equal, prefix + i, prefix + j});
        ++i;
        ++j;
      } else if (at(i + 1, j) >= at(i, j + 1)) {
        edits.push_back({EditKind::erase, prefix + i, prefix + j});
        ++i;
      } else {
        edits.push_back({EditKind::insert, prefix + i, prefix + j});
        ++j;
      }
    }
    for (; i < n; ++i) edits.push_back({EditKind::erase, prefix + i, prefix + m});
    for (; j < m; ++j) edits.push_back({EditKind::insert, prefix + n, prefix + j});
  } else {
    for (std::size_t i = 0; i < n; ++i) edits.push_back({EditKind::erase, prefix + i, prefix});
    for (std::size_t j = 0; j < m; ++j) edits.push_back({EditKind::insert, prefix + n, prefix + j});
  }
  for (std::size_t k = 0; k < suffix; ++k) edits.push_back({EditKind::equal, prefix + n + k, prefix + m + k});
  return edits;
}

template <class = void>
std::string hunk_range(std::size_t start, std::size_t count) {
  // start: 0-based index of the first line of the range.
  if (count == 0) return std::to_string(start) + ",0";
  if (count == 1) return std::to_string(start + 1);
  return std::to_string(start + 1) + "," + std::to_string(count);
}

template <class = void>
void append_diff_line(std::string& out, char tag, std::string_view line) {
  out += tag;
  if (!line.empty() && line.back() == '\n') {
    out += line;
  } else {
    out += line;
    out += "\n\\ No newline at end of file\n";
  }
}

template <class T = void>
std::string unified_diff(std::string_view before, std::string_view after, std::string_view from, std::string_view to,
                         std::size_t context = 3) {
  if (before == after) return {};
  const auto a = split_lines<T>(before);
  const auto b = split_lines<T>(after);
  const auto edits = diff_lines<T>(a, b);

  std::string out = "--- ";
  out += from;
  out += "\n+++ ";
  out += to;
  out += '\n';
  std::size_t k = 0;
  while (k < edits.size()) {
    // The next change, then the hunk around it: extend while the next
    // change is within 2 * context equal lines.
    while (k < edits.size() && edits[k].kind == EditKind::equal) ++k;
    if (k == edits.size()) break;
    const std::size_t first_change = k;
    std::size_t last_change = k;
    std::size_t scan = k;
    while (scan < edits.size()) {
      if (edits[scan].kind != EditKind::equal) {
        last_change = scan;
        ++scan;
        continue;
      }
      std::size_t run = 0;
      while (scan + run < edits.size() && edits[scan + run].kind == EditKind::equal) ++run;
      if (scan + run == edits.size() || run > 2 * context) break;
      scan += run;
    }
    const std::size_t begin = first_change >= context ? first_change - context : 0;
    const std::size_t end = std::min(edits.size(), last_change + 1 + context);

    // The hunk's first old/new line: where edits[begin] sits in each file.
    const std::size_t a_start = edits[begin].a;
    const std::size_t b_start = edits[begin].b;
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t e = begin; e < end; ++e) {
      if (edits[e].kind != EditKind::insert) ++a_count;
      if (edits[e].kind != EditKind::erase) ++b_count;
    }
    out += "@@ -" + hunk_range(a_start, a_count) + " +" + hunk_range(b_start, b_count) + " @@\n";
    for (std::size_t e = begin; e < end; ++e) {
      switch (edits[e].kind) {
        case EditKind::equal:
          append_diff_line(out, ' ', a[edits[e].a]);
          break;
        case EditKind::erase:
          append_diff_line(out, '-', a[edits[e].a]);
          break;
        case EditKind::insert:
          append_diff_line(out, '+', b[edits[e].b]);
          break;
      }
    }
    k = end;
  }
  return out;
}

}  // namespace passinfra::detail
