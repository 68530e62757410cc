// passinfra/instruments/crash_reproducer.hpp — on a pass failure, write what reproduces it.
//
// CrashReproducerOptions{pipeline = "", comment_prefix = "// "}
// CrashReport{pass, error, pipeline, ir, unit}   what a report says (unit: empty outside nests)
// CrashReproducer(path, options = {})        writes the report to a file (replaced at each failure)
// CrashReproducer(os, options = {})          appends it to a stream the caller owns
// r.last_report()                            the last report (std::optional<CrashReport>)
// r.reports()                                how many were written
// format_crash_report(report, prefix)        the text written
// parse_crash_report(text, prefix = "// ")   reads a report back (throws passinfra::Error if it is none)
//
// run_before_pass prints the pass's input (ir_traits<IR>::print) and keeps
// the text on a stack, since passes nest; run_after_pass drops it. When a
// pass fails -- its body, or a hook after this instrument's run_before_pass,
// throws -- run_after_pass_failed (passinfra's sixth hook) is called for
// the innermost failing pass first and then for each enclosing one as the
// exception travels out. The first call for an exception writes the report
// for that innermost pass: its name, the exception's what(), the pipeline
// text given in the options (if any), and its input IR as it was before it
// ran. Enclosing passes just drop their texts. (A failure in should_run, or
// in a hook before this instrument's run_before_pass, is reported for the
// enclosing pass, whose input does reproduce it.)
//
// The report is the IR text preceded by header lines, each starting with
// `comment_prefix`, so that with the IR's own comment syntax the whole file
// is a valid input for the IR's parser:
//
//     // passinfra crash reproducer
//     // pass: FoldConstant
//     // unit: @main                      (only inside a nest, SPEC §11.10)
//     // error: division by zero          (one line per line of what())
//     // pipeline: InferType,FoldConstant   (only when given)
//
// A value with newlines (an error's what(), but also a pass name or a
// pipeline) takes one header line per line, each with its key.
//     <the IR, as printed before the pass ran>
//
// Inside a nest (SPEC §11.10) the failing pass's input is the unit, printed
// by the unit type's printer (or, when the unit type cannot print itself,
// the nest's own input, the parent); the `unit:` line names it, for nests
// within nests the outermost unit first, joined by " > " (from
// current_pipeline() when the pass started).
//
// Thread-safe (SPEC §11.8, §11.10): each thread keeps its own stack of
// inputs (a unit that cannot print itself on a worker takes the nest
// thread's input, the parent); the reports, last_report() and the
// exceptions already reported are shared, under a lock. In a parallel nest
// several units may fail; the report that stays is the serial run's, the
// lowest failing unit's: a failure in a unit after one already reported in
// the same outermost nest run is not written (and not counted), one before
// it replaces it. The exception the nest then propagates is the lowest
// unit's, already reported, so the enclosing passes write nothing more.
//
// The report is written while the exception propagates; a failure to write
// it is logged (WARNING) and the pass's exception continues unchanged. A
// report written to a file is also announced in the log (WARNING). Printing
// the IR before every pass costs what printing costs: this is a debugging
// instrument.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/core/error.hpp"
#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/exception_text.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t
#include "passinfra/instruments/output.hpp"

namespace passinfra {

struct CrashReproducerOptions {
  std::string pipeline{};              // e.g. the textual pipeline; written when not empty
  std::string comment_prefix = "// ";  // starts every header line; must not be empty
};

struct CrashReport {
  std::string pass;
  std::string error;
  std::string pipeline;
  std::string ir;
  std::string unit{};  // the unit the pass ran on ("@f" or "@f > @g" for nested nests); empty outside nests

  friend bool operator==(const CrashReport&, const CrashReport&) = default;
};

namespace detail {
inline constexpr std::string_view crash_report_title = "passinfra crash reproducer";

// One header line per line of `value` (a value with n newlines takes n + 1
// lines with the same key; parse_crash_report joins them back), so that no
// text a user gave -- a pass name or pipeline with a newline included -- can
// end the comment and spill into the IR.
template <class = void>
void append_header_lines(std::string& out, std::string_view prefix, std::string_view key, std::string_view value) {
  do {
    const std::size_t nl = value.find('\n');
    out += prefix;
    out += key;
    out += ": ";
    out += value.substr(0, nl);
    out += '\n';
    value = nl == std::string_view::npos ? std::string_view{} : value.substr(nl + 1);
  } while (!value.empty());
}
}  // namespace detail

// format_crash_report(report, prefix): the text a CrashReproducer writes.
template <class = void>
std::string format_crash_report(const CrashReport& report, std::string_view prefix = "// ") {
  std::string out(prefix);
  out += detail::crash_report_title;
  out += '\n';
  detail::append_header_lines(out, prefix, "pass", report.pass);
  if (!report.unit.empty()) detail::append_header_lines(out, prefix, "unit", report.unit);
  detail::append_header_lines(out, prefix, "error", report.error);
  if (!report.pipeline.empty()) detail::append_header_lines(out, prefix, "pipeline", report.pipeline);
  out += report.ir;
  return out;
}

// parse_crash_report(text, prefix): the report back, `ir` being everything
// after the header lines.
template <class T = void>
CrashReport parse_crash_report(std::string_view text, std::string_view prefix = "// ") {
  const auto next_line = [&](std::string_view& rest) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    return line;
  };
  std::string_view rest = text;
  const std::string title = std::string(prefix) + std::string(detail::crash_report_title);
  if (prefix.empty() || next_line(rest) != title) {
    throw Error("parse_crash_report: the text does not start with '" + title +
                "'; expected a report written by passinfra::CrashReproducer with this comment prefix");
  }
  CrashReport report;
  // Repeated keys are the lines of one multi-line value.
  bool seen_pass = false, seen_error = false, seen_pipeline = false, seen_unit = false;
  const auto append = [](std::string& field, bool& seen, std::string_view line) {
    if (seen) field += '\n';
    field += line;
    seen = true;
  };
  while (!rest.empty() && rest.substr(0, prefix.size()) == prefix) {
    std::string_view probe = rest;
    std::string_view line = next_line(probe).substr(prefix.size());
    const auto value_of = [&](std::string_view key) -> detail::dependent_t<std::optional<std::string_view>, T> {
      if (line.substr(0, key.size()) == key && line.substr(key.size(), 2) == ": ") return line.substr(key.size() + 2);
      return std::nullopt;
    };
    if (auto v = value_of("pass")) {
      append(report.pass, seen_pass, *v);
    } else if (auto u = value_of("unit")) {
      append(report.unit, seen_unit, *u);
    } else if (auto e = value_of("error")) {
      append(report.error, seen_error, *e);
    } else if (auto p = value_of("pipeline")) {
      append(report.pipeline, seen_pipeline, *p);
    } else {
      break;  // a comment of the IR itself
    }
    rest = probe;
  }
  report.ir = rest;
  return report;
}

namespace detail {
// CrashReproducer is this template's one specialization: a class template's members are
// compiled only when used, so including the header compiles none of them
// (the std types of its state spelled dependently: see dependent_t).
template <class T = void>
class CrashReproducerOf {
 public:
  // `file`: a std::filesystem::path, or anything else a std::string is made
  // from (a path converts to its native string; <filesystem> is the
  // caller's include, not this header's).
  template <class Path>
    requires std::constructible_from<std::string, const Path&>
  explicit CrashReproducerOf(const Path& file, CrashReproducerOptions options = {})
      : file_(file), options_(std::move(options)), state_(std::make_shared<State>()) {
    check_options();
  }
  explicit CrashReproducerOf(std::ostream& out, CrashReproducerOptions options = {})
      : stream_(&out), options_(std::move(options)), state_(std::make_shared<State>()) {
    check_options();
  }

  std::string_view name() const noexcept { return "CrashReproducer"; }
  static constexpr bool thread_safe = true;  // SPEC §11.8

  // exit_pass_ctx: drops the calling thread's inputs and what was reported.
  void exit_pass_ctx() noexcept {
    const detail::LightLock lock(state_->mutex);
    if (Stack* stack = state_->stacks.find()) stack->clear();
    state_->reported.clear();
  }

  // run_before_pass: keeps the printed input (and the unit, in a nest).
  template <class IR>
  void run_before_pass(const IR& ir, const PassInfo&) {
    if constexpr (PrintableIR<IR>) {
      Input input{std::make_shared<dependent_t<const std::string, T>>(ir_traits<IR>::print(ir)), unit_path(),
                  unit_key()};
      const detail::LightLock lock(state_->mutex);
      state_->stacks.mine().push_back(std::move(input));
    } else if constexpr (HasParentType<IR>) {
      // A unit that cannot print itself: the nest's input stands for it, shared: the
      // enclosing entry on this thread, or on a worker the top of the nest thread's stack.
      Input input{nullptr, unit_path(), unit_key()};
      const detail::LightLock lock(state_->mutex);
      Stack& mine = state_->stacks.mine();
      const Stack* from = &mine;
      if (mine.empty()) {
        if (const PipelineInfo* p = current_pipeline(); p != nullptr && p->parent_thread != p->thread)
          from = state_->stacks.find(p->parent_thread);
      }
      input.text =
          from == nullptr || from->empty() ? std::make_shared<dependent_t<const std::string, T>>() : from->back().text;
      mine.push_back(std::move(input));
    } else {
      static_assert(PrintableIR<IR>,
                    "passinfra::CrashReproducer writes the IR, but the IR cannot print itself: specialize "
                    "passinfra::ir_traits<IR> with `static std::string print(const IR&)` (see "
                    "passinfra/core/ir_traits.hpp)");
    }
  }

  // run_after_pass: the pass succeeded; drops its input.
  template <class IR>
  void run_after_pass(const IR&, const PassInfo&) noexcept {
    const detail::LightLock lock(state_->mutex);
    if (Stack* stack = state_->stacks.find(); stack != nullptr && !stack->empty()) stack->pop_back();
  }

  // run_after_pass_failed: the first call for an exception writes the report
  // (unless a lower unit of the same nest run has already failed).
  void run_after_pass_failed(const PassInfo& info, const std::exception_ptr& error) {
    const detail::LightLock lock(state_->mutex);
    Stack* stack = state_->stacks.find();
    if (stack == nullptr || stack->empty()) return;  // dropped by exit_pass_ctx while the pass ran
    Input input = std::move(stack->back());
    stack->pop_back();
    auto& reported = state_->reported;
    if (std::find(reported.begin(), reported.end(), error) != reported.end()) return;
    const std::optional<UnitKey>& last = state_->last_key;
    const bool same_run = last && input.key && last->run == input.key->run;
    if (same_run && last->indices < input.key->indices) {
      reported.push_back(error);  // a later unit than the one reported: the serial run never got here
      return;
    }
    if (!same_run) reported.clear();  // a new failure: what was reported before is over
    reported.push_back(error);
    CrashReport report{std::string(info.name), detail::describe(error), options_.pipeline, *input.text,
                       std::move(input.unit)};
    write(report);
    state_->last = std::move(report);
    state_->last_key = std::move(input.key);
    ++state_->reports;
  }

  dependent_t<std::optional<CrashReport>, T> last_report() const {
    const detail::LightLock lock(state_->mutex);
    return state_->last;
  }
  std::size_t reports() const {
    const detail::LightLock lock(state_->mutex);
    return state_->reports;
  }
  const CrashReproducerOptions& options() const noexcept { return options_; }

 private:
  void check_options() const {
    if (options_.comment_prefix.empty()) {
      throw Error(
          "CrashReproducerOptions::comment_prefix is empty; expected the IR's line-comment marker, e.g. \"// \"");
    }
  }

  void write(const CrashReport& report) {
    const std::string text = format_crash_report(report, options_.comment_prefix);
    if (stream_ != nullptr) {
      *stream_ << text;
      stream_->flush();
      if (!*stream_) log(LogLevel::warning, "CrashReproducer: could not write the report to its stream");
      return;
    }
    // Replaces the file (what std::ofstream with binary | trunc did), through
    // <cstdio>: no <fstream> for every includer.
    std::FILE* out = std::fopen(file_.c_str(), "wb");
    bool ok = out != nullptr;
    if (ok) {
      ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
      ok = std::fclose(out) == 0 && ok;
    }
    if (!ok) {
      log(LogLevel::warning, "CrashReproducer: could not write the report for pass '" + report.pass + "' to " + file_);
    } else {
      log(LogLevel::warning, "CrashReproducer: pass '" + report.pass + "' failed; reproducer written to " + file_);
    }
  }

  // The unit pipelines running on this thread, outermost first: "@f > @g".
  static std::string unit_path() {
    std::string path;
    for (const PipelineInfo* p = current_pipeline(); p != nullptr; p = p->parent) {
      path.insert(0, path.empty() ? std::string(p->unit_name) : std::string(p->unit_name) + " > ");
    }
    return path;
  }

  // Where a pass ran: the outermost nest run and the unit indices from it
  // inwards (a failure's place in the serial order within that run).
  struct UnitKey {
    std::uint64_t run = 0;
    dependent_t<std::vector<std::size_t>, T> indices;
  };
  static std::optional<UnitKey> unit_key() {
    const PipelineInfo* p = current_pipeline();
    if (p == nullptr) return std::nullopt;
    UnitKey key;
    for (; p != nullptr; p = p->parent) {
      key.indices.insert(key.indices.begin(), p->unit_index);
      key.run = p->nest_run;
    }
    return key;
  }

  struct Input {
    dependent_t<std::shared_ptr<const std::string>, T>
        text;                    // the pass's input, printed (shared by a unit that cannot print)
    std::string unit;            // unit_path() when it started
    std::optional<UnitKey> key;  // unit_key() when it started
  };
  using Stack = std::vector<Input>;

  // Shared by copies (as the stream or file they write to).
  struct State {
    detail::LightMutex mutex;                                  // guards everything below
    detail::PerThread<Stack> stacks;                           // per thread_ordinal()
    dependent_t<std::vector<std::exception_ptr>, T> reported;  // the exceptions of the current failure, reported
    dependent_t<std::optional<CrashReport>, T> last;
    std::optional<UnitKey> last_key;  // where `last` failed (none: outside nests)
    std::size_t reports = 0;
  };

  std::string file_;  // the path's native string (empty: a stream)
  std::ostream* stream_ = nullptr;
  CrashReproducerOptions options_;
  std::shared_ptr<State> state_;
};
}  // namespace detail

using CrashReproducer = detail::CrashReproducerOf<>;

}  // namespace passinfra
