// tests/support/recorder.hpp — instruments that write "<name> <hook>" to an EventLog.
//
// Hook                         the five hooks of SPEC §5 (and after_failed)
// Recorder{name, log}          all five hooks (+ run_after_pass_failed when Failed = true);
//                              `.veto` makes should_run say no; `.fail_at` throws
//                              TestError at that hook after recording "<name> bad <hook>!!!"
// EnterExitOnly / PassHooksOnly / ShouldRunOnly / NoHookButName   hook subsets
#pragma once

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

namespace pitest {

enum class Hook { enter, exit, should_run, before, after, after_failed };

inline std::string_view hook_name(Hook h) {
  switch (h) {
    case Hook::enter:
      return "enter_pass_ctx";
    case Hook::exit:
      return "exit_pass_ctx";
    case Hook::should_run:
      return "should_run";
    case Hook::before:
      return "run_before_pass";
    case Hook::after:
      return "run_after_pass";
    case Hook::after_failed:
      return "run_after_pass_failed";
  }
  return "?";
}

struct RecorderBase {
  std::string name;
  EventLog* log = nullptr;
  std::optional<Hook> fail_at{};
  int error_id = 1;
  bool veto = false;
  std::vector<std::string> veto_only{};  // veto just these pass names
  bool with_pass_names = true;           // "<name> <hook> <pass>" for pass hooks

  bool vetoes(std::string_view pass) const {
    return veto || std::find(veto_only.begin(), veto_only.end(), pass) != veto_only.end();
  }

  void hit(Hook h, std::string_view pass = {}) {
    std::string e = name + " ";
    if (fail_at == h) {
      e += "bad " + std::string(hook_name(h)) + "!!!";
      log->add(e);
      throw_test_error(error_id, name + " failed in " + std::string(hook_name(h)));
    }
    e += hook_name(h);
    if (with_pass_names && !pass.empty()) e += " " + std::string(pass);
    log->add(e);
  }
};

template <bool Failed = false>
struct BasicRecorder : RecorderBase {
  void enter_pass_ctx() { hit(Hook::enter); }
  void exit_pass_ctx() { hit(Hook::exit); }
  bool should_run(const TestIR&, const passinfra::PassInfo& info) {
    hit(Hook::should_run, info.name);
    return !vetoes(info.name);
  }
  void run_before_pass(const TestIR&, const passinfra::PassInfo& info) { hit(Hook::before, info.name); }
  void run_after_pass(const TestIR&, const passinfra::PassInfo& info) { hit(Hook::after, info.name); }
};

using Recorder = BasicRecorder<false>;

// A recorder that also has passinfra's run_after_pass_failed hook.
struct FailureAwareRecorder : BasicRecorder<false> {
  void run_after_pass_failed(const passinfra::PassInfo& info, std::exception_ptr) {
    hit(Hook::after_failed, info.name);
  }
};

struct EnterExitOnly : RecorderBase {
  void enter_pass_ctx() { hit(Hook::enter); }
  void exit_pass_ctx() { hit(Hook::exit); }
};

struct PassHooksOnly : RecorderBase {
  void run_before_pass(const TestIR&, const passinfra::PassInfo& info) { hit(Hook::before, info.name); }
  void run_after_pass(const TestIR&, const passinfra::PassInfo& info) { hit(Hook::after, info.name); }
};

struct ShouldRunOnly : RecorderBase {
  bool should_run(const TestIR&, const passinfra::PassInfo& info) {
    hit(Hook::should_run, info.name);
    return !vetoes(info.name);
  }
};

inline Recorder recorder(std::string name, EventLog& log) {
  Recorder r;
  r.name = std::move(name);
  r.log = &log;
  return r;
}

template <class R = Recorder>
R make(std::string name, EventLog& log, std::optional<Hook> fail_at = {}, int error_id = 1) {
  R r;
  r.name = std::move(name);
  r.log = &log;
  r.fail_at = fail_at;
  r.error_id = error_id;
  return r;
}

// Captures log lines "<LEVEL> <message>" while alive.
struct LogCapture {
  std::vector<std::string> lines;
  passinfra::ScopedLogSink sink{[this](passinfra::LogLevel level, std::string_view message) {
    lines.push_back(std::string(passinfra::to_string(level)) + " " + std::string(message));
  }};
};

}  // namespace pitest

namespace pitest {
// join(events, sep): the events as one string, for readable comparisons.
inline std::string join(const std::vector<std::string>& events, std::string_view sep = "\n") {
  std::string out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i) out += sep;
    out += events[i];
  }
  return out;
}
}  // namespace pitest
