// passinfra/core/log.hpp: levels, the replaceable sink, ScopedLogSink, and
// the default sink (WARNING and above to stderr, INFO off; SPEC §9).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <passinfra/core.hpp>

using passinfra::LogLevel;
using passinfra::LogSink;

namespace {

using DefaultSinkPtr = void (*)(LogLevel, std::string_view);

// The sink currently installed (installing and reinstalling it).
LogSink current_sink() {
  LogSink current = passinfra::set_log_sink([](LogLevel, std::string_view) {});
  passinfra::set_log_sink(current);
  return current;
}

bool is_default(const LogSink& sink) {
  const DefaultSinkPtr* target = sink.target<DefaultSinkPtr>();
  return target != nullptr && *target == &passinfra::detail::default_log_sink<>;
}

// Runs f with stderr redirected to a temporary file; returns what was written.
template <class F>
std::string capture_stderr(F&& f) {
  std::fflush(stderr);
  std::FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = ::dup(2);
  REQUIRE(saved >= 0);
  ::dup2(::fileno(tmp), 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string out;
  std::rewind(tmp);
  char buffer[256];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, tmp)) > 0) out.append(buffer, n);
  std::fclose(tmp);
  return out;
}

}  // namespace

TEST_CASE("core/log: to_string of each level, and the levels are ordered") {
  CHECK(passinfra::to_string(LogLevel::debug) == "DEBUG");
  CHECK(passinfra::to_string(LogLevel::info) == "INFO");
  CHECK(passinfra::to_string(LogLevel::warning) == "WARNING");
  CHECK(passinfra::to_string(LogLevel::error) == "ERROR");
  static_assert(LogLevel::debug < LogLevel::info && LogLevel::info < LogLevel::warning &&
                LogLevel::warning < LogLevel::error);
}

TEST_CASE("core/log: the default sink is installed at start") { CHECK(is_default(current_sink())); }

TEST_CASE("core/log: set_log_sink returns the previous sink, and the sink gets every level verbatim") {
  std::vector<std::string> first;
  std::vector<std::string> second;
  LogSink original = passinfra::set_log_sink([&](LogLevel level, std::string_view message) {
    first.push_back(std::string(passinfra::to_string(level)) + "|" + std::string(message));
  });
  passinfra::log(LogLevel::debug, "d");
  passinfra::log(LogLevel::info, "i");
  passinfra::log(LogLevel::error, "e");
  LogSink previous = passinfra::set_log_sink([&](LogLevel, std::string_view message) { second.emplace_back(message); });
  passinfra::log(LogLevel::warning, "w");
  // The returned sink is the first one: calling it reaches `first`.
  previous(LogLevel::info, "through previous");
  passinfra::set_log_sink(original);
  CHECK(first == std::vector<std::string>{"DEBUG|d", "INFO|i", "ERROR|e", "INFO|through previous"});
  CHECK(second == std::vector<std::string>{"w"});
  CHECK(is_default(original));
}

TEST_CASE("core/log: an empty sink restores the default") {
  std::vector<std::string> seen;
  LogSink original = passinfra::set_log_sink([&](LogLevel, std::string_view m) { seen.emplace_back(m); });
  LogSink mine = passinfra::set_log_sink(LogSink{});
  CHECK(mine);
  CHECK_FALSE(is_default(mine));
  CHECK(is_default(current_sink()));
  passinfra::log(LogLevel::info, "to the default sink");  // INFO: dropped by the default sink
  CHECK(seen.empty());
  passinfra::set_log_sink(original);
}

TEST_CASE("core/log: ScopedLogSink installs a sink and restores the previous one, nested") {
  std::vector<std::string> outer_lines;
  std::vector<std::string> inner_lines;
  {
    passinfra::ScopedLogSink outer([&](LogLevel, std::string_view m) { outer_lines.emplace_back(m); });
    passinfra::log(LogLevel::info, "1");
    {
      passinfra::ScopedLogSink inner([&](LogLevel, std::string_view m) { inner_lines.emplace_back(m); });
      passinfra::log(LogLevel::info, "2");
    }
    passinfra::log(LogLevel::info, "3");
  }
  CHECK(outer_lines == std::vector<std::string>{"1", "3"});
  CHECK(inner_lines == std::vector<std::string>{"2"});
  CHECK(is_default(current_sink()));
}

TEST_CASE("core/log: a sink may replace the sink while it runs (no dead-lock)") {
  std::vector<std::string> seen;
  LogSink second = [&](LogLevel, std::string_view m) { seen.push_back("second " + std::string(m)); };
  LogSink original = passinfra::set_log_sink([&](LogLevel, std::string_view m) {
    seen.push_back("first " + std::string(m));
    passinfra::set_log_sink(second);
  });
  passinfra::log(LogLevel::info, "a");
  passinfra::log(LogLevel::info, "b");
  passinfra::set_log_sink(original);
  CHECK(seen == std::vector<std::string>{"first a", "second b"});
}

TEST_CASE("core/log: the default sink writes WARNING and ERROR to stderr and drops INFO and DEBUG") {
  REQUIRE(is_default(current_sink()));
  const std::string written = capture_stderr([] {
    passinfra::log(LogLevel::debug, "a debug line");
    passinfra::log(LogLevel::info, "an info line");
    passinfra::log(LogLevel::warning, "a warning line");
    passinfra::log(LogLevel::error, "an error line");
  });
  CHECK(written == "[passinfra] WARNING: a warning line\n[passinfra] ERROR: an error line\n");
}
