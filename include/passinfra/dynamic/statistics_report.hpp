// passinfra/dynamic/statistics_report.hpp — read and print pass statistics (SPEC §13.2-§13.3).
//
// StatisticValue{name, description, value}
// PassStatisticsEntry{pass, statistics}   one pass instance with at least one counter
// collect_statistics(pass)                the instances in `pass` and everything it holds, in pipeline order
// format_statistics(entries)              MLIR's "Pass statistics report" list (merged by pass name)
// statistics_to_json(entries)             LLVM's -stats-json object: {"<pass>.<name>": value, ...}
//
// collect_statistics walks AnyPass, RegistryPass, DynamicSequential and
// static Sequential children and the required passes an AnyPass was given;
// a pass run from inside another pass's body is seen only if the enclosing
// pass lists its counters in its own statistics(). Reading is relaxed: read
// after the run (or accept a count in flight).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/core/statistic.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra {

struct StatisticValue {
  std::string name;
  std::string description;
  std::uint64_t value = 0;

  friend bool operator==(const StatisticValue&, const StatisticValue&) = default;
};

struct PassStatisticsEntry {
  std::string pass;
  std::vector<StatisticValue> statistics;

  friend bool operator==(const PassStatisticsEntry&, const PassStatisticsEntry&) = default;
};

namespace detail {

// StatisticsCollector is this template's one specialization: a class template's members are
// compiled only when used, so including the header compiles none of them
// (its std types spelled dependently: see dependent_t).
template <class T = void>
struct StatisticsCollectorOf final : StatisticsVisitor {
  dependent_t<std::vector<PassStatisticsEntry>, T> entries;
  void visit(std::string_view pass, const StatisticList& statistics) override {
    dependent_t<PassStatisticsEntry, T> entry{std::string(pass), {}};
    const dependent_t<StatisticList, T>& list = statistics;
    for (const Statistic* s : list) {
      if (s == nullptr) continue;
      entry.statistics.push_back({std::string(s->name()), std::string(s->description()), s->value()});
    }
    if (!entry.statistics.empty()) entries.push_back(std::move(entry));
  }
};
using StatisticsCollector = StatisticsCollectorOf<>;

// Merged by pass name, then by statistic name: values summed, the first description kept.
// (Spelled dependently, as the functions' parameters below: see dependent_t.)
template <class T = void>
using MergedStatistics =
    dependent_t<std::map<std::string, std::map<std::string, std::pair<std::uint64_t, std::string>>>, T>;
template <class T = void>
using StatisticsEntries = dependent_t<std::vector<PassStatisticsEntry>, T>;

template <class T = void>
MergedStatistics<T> merge_statistics(const StatisticsEntries<T>& entries) {
  MergedStatistics<T> merged;
  for (const auto& entry : entries) {
    auto& pass = merged[entry.pass];
    for (const auto& s : entry.statistics) {
      auto [it, inserted] = pass.try_emplace(s.name, s.value, s.description);
      if (!inserted) it->second.first += s.value;
    }
  }
  return merged;
}

}  // namespace detail

// collect_statistics(pass): see the header comment.
template <class P>
detail::StatisticsEntries<P> collect_statistics(const P& pass) {  // std::vector<PassStatisticsEntry>
  detail::dependent_t<detail::StatisticsCollector, P> collector;
  detail::visit_statistics(pass, collector);
  return std::move(collector.entries);
}

// format_statistics(entries): MLIR's list display (SPEC §13.3), ending with an empty line.
template <class T = void>
std::string format_statistics(const detail::StatisticsEntries<T>& entries) {
  const std::string rule = "===" + std::string(73, '-') + "===\n";
  std::string out = rule + std::string(25, ' ') + "... Pass statistics report ...\n" + rule;
  for (const auto& [pass, stats] : detail::merge_statistics<T>(entries)) {
    if (stats.empty()) continue;
    std::size_t value_width = 0;
    std::size_t name_width = 0;
    for (const auto& [name, v] : stats) {
      value_width = std::max(value_width, std::to_string(v.first).size());
      name_width = std::max(name_width, name.size());
    }
    out += "  " + pass + "\n";
    for (const auto& [name, v] : stats) {
      const std::string value = std::to_string(v.first);
      out += "    (S) ";
      out.append(value_width - value.size(), ' ');
      out += value + " " + name;
      out.append(name_width - name.size(), ' ');
      out += " - " + v.second + "\n";
    }
  }
  return out + "\n";
}

namespace detail {
// A JSON string literal (quotes, backslashes and control characters escaped).
template <class = void>
std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}
}  // namespace detail

// statistics_to_json(entries): LLVM's -stats-json shape (SPEC §13.3).
template <class T = void>
std::string statistics_to_json(const detail::StatisticsEntries<T>& entries) {
  detail::dependent_t<std::map<std::string, std::uint64_t>, T> flat;
  for (const auto& [pass, stats] : detail::merge_statistics<T>(entries)) {
    for (const auto& [name, v] : stats) flat[pass + "." + name] += v.first;
  }
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : flat) {
    if (!first) out += ",\n";
    first = false;
    out += "\t" + detail::json_string(key) + ": " + std::to_string(value);
  }
  if (!first) out += "\n";
  return out + "}\n";
}

}  // namespace passinfra
