// passinfra/tool/opt_report.hpp — the driver's --report JSON (SPEC §12.7).
//
// OptReportError{kind, pass, message, file, line, column}   kind: usage input parse pass verify output
// OptReportChunk{index, first_line, exit_code, error}
// OptReportPass{name, runs, skips, failures, total_us}
// OptReport{tool, argv, input, exit_code, status, pipeline, opt_level, chunks, phases_us,
//           passes, statistics, reproducer}
// status_of(exit_code)               "ok" | "pass_failure" | "usage_error" | "input_error" | "output_error"
// to_json(report)                    one object, schema "passinfra-opt-report/1", keys in SPEC order
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/dynamic/statistics_report.hpp"

namespace passinfra {

struct OptReportError {
  std::string kind;  // usage, input, parse, pass, verify, output
  std::optional<std::string> pass{};
  std::string message;
  std::optional<std::string> file{};
  std::optional<int> line{};
  std::optional<int> column{};
};

struct OptReportChunk {
  int index = 0;
  int first_line = 1;
  int exit_code = 0;
  std::optional<OptReportError> error{};
};

struct OptReportPass {
  std::string name;
  std::uint64_t runs = 0;
  std::uint64_t skips = 0;
  std::uint64_t failures = 0;
  std::uint64_t total_us = 0;
};

struct OptReportPhases {
  std::uint64_t read = 0;
  std::uint64_t parse = 0;
  std::uint64_t passes = 0;
  std::uint64_t print = 0;
  std::uint64_t write = 0;
};

struct OptReportReproducer {
  std::string path;
  std::string command;
};

struct OptReport {
  std::string tool;
  std::vector<std::string> argv;
  std::string input = "-";
  int exit_code = 0;
  std::optional<std::string> pipeline{};
  int opt_level = 2;
  std::vector<OptReportChunk> chunks;
  OptReportPhases phases_us;
  std::vector<OptReportPass> passes;
  std::vector<std::pair<std::string, std::uint64_t>> statistics;  // "<pass>.<name>", sorted
  std::optional<OptReportReproducer> reproducer{};
};

// status_of(exit_code): the report's "status" for an exit code of SPEC §12.2.
constexpr std::string_view status_of(int exit_code) noexcept {
  switch (exit_code) {
    case 0:
      return "ok";
    case 1:
      return "pass_failure";
    case 2:
      return "usage_error";
    case 3:
      return "input_error";
    default:
      return "output_error";
  }
}

namespace detail {

inline std::string json_optional(const std::optional<std::string>& s) { return s ? json_string(*s) : "null"; }
inline std::string json_optional(const std::optional<int>& n) { return n ? std::to_string(*n) : "null"; }

}  // namespace detail

// to_json(report): the report as one JSON object and a newline.
inline std::string to_json(const OptReport& r) {
  using detail::json_string;
  std::string out = "{\"schema\": \"passinfra-opt-report/1\", \"tool\": " + json_string(r.tool) + ", \"argv\": [";
  for (std::size_t i = 0; i < r.argv.size(); ++i) out += (i ? ", " : "") + json_string(r.argv[i]);
  out += "],\n \"input\": " + json_string(r.input) + ", \"exit_code\": " + std::to_string(r.exit_code) +
         ", \"status\": " + json_string(status_of(r.exit_code)) +
         ",\n \"pipeline\": " + detail::json_optional(r.pipeline) + ", \"opt_level\": " + std::to_string(r.opt_level) +
         ",\n \"chunks\": [";
  for (std::size_t i = 0; i < r.chunks.size(); ++i) {
    const auto& c = r.chunks[i];
    out += std::string(i ? ", " : "") + "{\"index\": " + std::to_string(c.index) +
           ", \"first_line\": " + std::to_string(c.first_line) + ", \"exit_code\": " + std::to_string(c.exit_code) +
           ", \"error\": ";
    if (!c.error) {
      out += "null}";
      continue;
    }
    const auto& e = *c.error;
    out += "{\"kind\": " + json_string(e.kind) + ", \"pass\": " + detail::json_optional(e.pass) +
           ", \"message\": " + json_string(e.message) + ", \"file\": " + detail::json_optional(e.file) +
           ", \"line\": " + detail::json_optional(e.line) + ", \"column\": " + detail::json_optional(e.column) + "}}";
  }
  const auto& p = r.phases_us;
  out += "],\n \"phases_us\": {\"read\": " + std::to_string(p.read) + ", \"parse\": " + std::to_string(p.parse) +
         ", \"passes\": " + std::to_string(p.passes) + ", \"print\": " + std::to_string(p.print) +
         ", \"write\": " + std::to_string(p.write) + "},\n \"passes\": [";
  for (std::size_t i = 0; i < r.passes.size(); ++i) {
    const auto& s = r.passes[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + json_string(s.name) + ", \"runs\": " + std::to_string(s.runs) +
           ", \"skips\": " + std::to_string(s.skips) + ", \"failures\": " + std::to_string(s.failures) +
           ", \"total_us\": " + std::to_string(s.total_us) + "}";
  }
  out += "],\n \"statistics\": {";
  for (std::size_t i = 0; i < r.statistics.size(); ++i) {
    out +=
        std::string(i ? ", " : "") + json_string(r.statistics[i].first) + ": " + std::to_string(r.statistics[i].second);
  }
  out += "},\n \"reproducer\": ";
  if (r.reproducer) {
    out +=
        "{\"path\": " + json_string(r.reproducer->path) + ", \"command\": " + json_string(r.reproducer->command) + "}";
  } else {
    out += "null";
  }
  return out + "}\n";
}

}  // namespace passinfra
