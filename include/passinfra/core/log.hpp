// passinfra/core/log.hpp — the replaceable log sink (SPEC §9).
//
// LogLevel                               debug < info < warning < error
// log(level, message)                    sends one line to the sink
// set_log_sink(sink) -> previous sink    an empty sink restores the default
// ScopedLogSink                          RAII: install a sink, restore the old one
//
// The default sink writes WARNING and above to stderr and drops INFO and
// DEBUG. The messages that docs/spec.md quotes (instrument failures, timing) are
// part of the contract and go through here verbatim, one message per call,
// without a trailing newline.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "passinfra/detail/compiled.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/type_name.hpp"
#include "passinfra/detail/unit_output.hpp"

namespace passinfra {

enum class LogLevel { debug = 0, info = 1, warning = 2, error = 3 };

// to_string(LogLevel) -> "DEBUG" | "INFO" | "WARNING" | "ERROR"
constexpr std::string_view to_string(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::debug:
      return "DEBUG";
    case LogLevel::info:
      return "INFO";
    case LogLevel::warning:
      return "WARNING";
    case LogLevel::error:
      return "ERROR";
  }
  return "?";
}

// A sink receives every message, whatever its level; it filters itself.
using LogSink = std::function<void(LogLevel, std::string_view)>;

// Everything below is a template (one instance, called as a plain function:
// log(level, message), ScopedLogSink through its alias), with the types it
// names spelled dependently on its parameter V (type_name.hpp), so a
// translation unit compiles the sink's std::function, the lock and the
// default sink's string only when it logs or replaces the sink (issue 18).
namespace detail {

template <class V = void>
void default_log_sink(LogLevel level, std::string_view message) {
  if (level < LogLevel::warning) return;
  dependent_t<std::string, V> line = "[passinfra] ";
  line += to_string(level);
  line += ": ";
  line += message;
  line += '\n';
  std::fputs(line.c_str(), stderr);
}
PASSINFRA_COLD_INSTANCE(void default_log_sink<void>(LogLevel, std::string_view))

template <class V = void>
struct LogStateOf {
  LightMutex mutex;
  dependent_t<LogSink, V> sink = default_log_sink<V>;
};

template <class V = void>
LogStateOf<V>& log_state() {
  static LogStateOf<V> state;
  return state;
}
PASSINFRA_COLD_INSTANCE(LogStateOf<void>& log_state<void>())

}  // namespace detail

// set_log_sink(sink): installs `sink` for all threads and returns the previous
// one. An empty function restores the default sink.
template <class V = void>
detail::dependent_t<LogSink, V> set_log_sink(detail::dependent_t<LogSink, V> sink) {
  auto& state = detail::log_state<V>();
  detail::LightLock lock(state.mutex);
  if (!sink) sink = detail::default_log_sink<V>;
  return std::exchange(state.sink, std::move(sink));
}
PASSINFRA_COLD_INSTANCE(LogSink set_log_sink<void>(LogSink))

// log(level, message): one message to the current sink. The sink is called
// outside the lock, so a sink may itself log or replace the sink.
template <class V = void>
void log(LogLevel level, std::string_view message) {
  if (detail::dependent_t<detail::UnitOutput, V>* held = detail::current_unit_output) [[unlikely]] {
    // A unit of a parallel nest: held back, replayed in unit order (SPEC §11.5).
    held->add([](int l, void*, std::string_view text) { log(static_cast<LogLevel>(l), text); }, static_cast<int>(level),
              nullptr, message);
    return;
  }
  auto& state = detail::log_state<V>();
  detail::dependent_t<LogSink, V> sink;
  {
    detail::LightLock lock(state.mutex);
    sink = state.sink;
  }
  sink(level, message);
}
PASSINFRA_COLD_INSTANCE(void log<void>(LogLevel, std::string_view))

// ScopedLogSink: installs a sink for the lifetime of the object.
template <class V = void>
class ScopedLogSinkOf {
 public:
  explicit ScopedLogSinkOf(detail::dependent_t<LogSink, V> sink) : previous_(set_log_sink<V>(std::move(sink))) {}
  ScopedLogSinkOf(const ScopedLogSinkOf&) = delete;
  ScopedLogSinkOf& operator=(const ScopedLogSinkOf&) = delete;
  ~ScopedLogSinkOf() { set_log_sink<V>(std::move(previous_)); }

 private:
  detail::dependent_t<LogSink, V> previous_;
};

using ScopedLogSink = ScopedLogSinkOf<>;

}  // namespace passinfra
