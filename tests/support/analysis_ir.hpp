// tests/support/analysis_ir.hpp — a small IR with keyed functions, analyses over it, and an
// instrument that records every hook (SPEC §10). Shared by the analysis tests of every layer.
//
// AFunc{name, body, external}       a function: its key is its name (ir_traits::function_key)
// named(fn, "g")                    fn's name is "g" (use it in function-pass lambdas)
// AModule{functions, version, log}  the IR; map_functions visits the functions that are not
//                                   `external`, for_each_function visits all of them
// Runs                              how many times each analysis ran: runs()["ModuleSum"], ...
//                                   (runs().clear() at the start of a test)
// Analyses (results are `long`, with ==):
//   ModuleSum       module: version * 1000 + the sum of every body
//   FunctionSum     function: the sum of the function's body
//   FunctionSize    function: the body's length; depends_on<ModuleSum> (reads it)
//   Total           module: the sum of FunctionSum over all functions; depends_on<FunctionSum>
//   Derived         module: ModuleSum + 1; depends_on<ModuleSum>
//   Tagged          module: version; analysis_sets<TestSet>
//   Throwing        module: throws TestError(7) while `throwing_enabled()` is true
//   Custom          module: version; is_invalidated: only an abandon or "Custom" missing from a
//                   preserve of the tag CustomTag drops it (its own test)
//   NoEq            module: a result without ==
// AnalysisRecorder<IR>{name, log}   records "<name> <hook> <what>" for the pass hooks and the
//                                   four analysis hooks ("<name> before_analysis ModuleSum",
//                                   "<name> invalidated FunctionSum@f", ...); `fail_at` and
//                                   `fail_on` make one hook throw TestError
// Passes: Touch<"Name", Preserves...> (version += 1; `using preserves = preserves<Preserves...>`),
//   KeepAll<"Name"> (changes nothing; preserves_all)
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

namespace pitest {

struct AFunc {
  std::string name;
  std::vector<int> body;
  bool external = false;
};

// named(f, "g"): f's name is "g". Out of line: g++ 12 -O1 warns "may be used
// uninitialized" (a false positive) about an inlined compare of the name of a
// function a function pass received by value.
[[gnu::noinline]] inline bool named(const AFunc& f, std::string_view name) { return f.name == name; }

struct AModule {
  std::vector<AFunc> functions;
  int version = 0;
  EventLog* log = nullptr;
};

inline AModule make_module(EventLog* log = nullptr) {
  AModule m;
  m.functions = {{"f", {1, 2, 3}, false}, {"g", {10, 20}, false}, {"h", {100}, false}};
  m.log = log;
  return m;
}

inline std::map<std::string, int>& runs() {
  thread_local std::map<std::string, int> counts;
  return counts;
}
inline bool& throwing_enabled() {
  thread_local bool enabled = false;
  return enabled;
}
inline void note_run(std::string_view name, const AModule& m) {
  ++runs()[std::string(name)];
  if (m.log) m.log->add("run " + std::string(name));
}

struct TestSet {};
struct CustomTag {};

struct ModuleSum {
  static constexpr passinfra::AnalysisInfo info{"ModuleSum"};
  using result_type = long;
  long run(const AModule& m) const {
    note_run(info.name, m);
    long s = m.version * 1000L;
    for (const auto& f : m.functions) {
      for (int x : f.body) s += x;
    }
    return s;
  }
};

struct FunctionSum {
  static constexpr passinfra::AnalysisInfo info{"FunctionSum"};
  using unit = passinfra::function_unit;
  using result_type = long;
  long run(const AFunc& f, const AModule& m) const {
    note_run(std::string(info.name) + "@" + f.name, m);
    long s = 0;
    for (int x : f.body) s += x;
    return s;
  }
};

struct FunctionSize {
  static constexpr passinfra::AnalysisInfo info{"FunctionSize"};
  using unit = passinfra::function_unit;
  using result_type = long;
  using depends_on = passinfra::depends_on<ModuleSum>;
  long run(const AFunc& f, const AModule& m, auto& deps) const {
    (void)deps.template get<ModuleSum>();
    note_run(std::string(info.name) + "@" + f.name, m);
    return static_cast<long>(f.body.size());
  }
};

struct Total {
  static constexpr passinfra::AnalysisInfo info{"Total"};
  using result_type = long;
  using depends_on = passinfra::depends_on<FunctionSum>;
  long run(const AModule& m, auto& deps) const {
    note_run(info.name, m);
    long s = 0;
    for (const auto& f : m.functions) s += deps.template get<FunctionSum>(f);
    return s;
  }
};

struct Derived {
  static constexpr passinfra::AnalysisInfo info{"Derived"};
  using result_type = long;
  using depends_on = passinfra::depends_on<ModuleSum>;
  long run(const AModule& m, auto& deps) const {
    note_run(info.name, m);
    return deps.template get<ModuleSum>() + 1;
  }
};

struct Tagged {
  static constexpr passinfra::AnalysisInfo info{"Tagged"};
  using result_type = long;
  using sets = passinfra::analysis_sets<TestSet>;
  long run(const AModule& m) const {
    note_run(info.name, m);
    return m.version;
  }
};

struct Throwing {
  static constexpr passinfra::AnalysisInfo info{"Throwing"};
  using result_type = long;
  long run(const AModule& m) const {
    note_run(info.name, m);
    if (throwing_enabled()) throw_test_error(7, "analysis Throwing failed");
    return m.version;
  }
};

struct Custom {
  static constexpr passinfra::AnalysisInfo info{"Custom"};
  using result_type = long;
  long run(const AModule& m) const {
    note_run(info.name, m);
    return m.version;
  }
  // Survives unless abandoned, or unless the tag CustomTag is not kept.
  bool is_invalidated(const long&, const passinfra::PreservedAnalyses& pa) const {
    return !pa.preserved<Custom>() && !pa.preserved<CustomTag>();
  }
};

struct NoEqResult {
  long value = 0;
};
struct NoEq {
  static constexpr passinfra::AnalysisInfo info{"NoEq"};
  using result_type = NoEqResult;
  NoEqResult run(const AModule& m) const {
    note_run(info.name, m);
    return {m.version};
  }
};

enum class AHook { before_pass, after_pass, after_pass_failed, before, after, failed, invalidated };

inline std::string_view ahook_name(AHook h) {
  switch (h) {
    case AHook::before_pass:
      return "before_pass";
    case AHook::after_pass:
      return "after_pass";
    case AHook::after_pass_failed:
      return "after_pass_failed";
    case AHook::before:
      return "before_analysis";
    case AHook::after:
      return "after_analysis";
    case AHook::failed:
      return "failed_analysis";
    case AHook::invalidated:
      return "invalidated";
  }
  return "?";
}

inline std::string analysis_text(const passinfra::AnalysisInfo& info) {
  std::string s(info.name);
  if (!info.function.empty()) s += "@" + std::string(info.function);
  return s;
}

// Records every pass and analysis hook to `log`. fail_at / fail_on: the
// hook `fail_at` throws TestError(error_id) when its subject is `fail_on`
// (any subject if empty), after recording "<name> bad <hook> <subject>".
template <class IR>
struct AnalysisRecorder {
  std::string name;
  EventLog* log = nullptr;
  std::optional<AHook> fail_at{};
  std::string fail_on{};
  int error_id = 3;
  bool pass_hooks = true;

  void hit(AHook h, const std::string& subject) {
    if (fail_at == h && (fail_on.empty() || fail_on == subject)) {
      log->add(name + " bad " + std::string(ahook_name(h)) + " " + subject);
      throw_test_error(error_id, name + " failed in " + std::string(ahook_name(h)));
    }
    log->add(name + " " + std::string(ahook_name(h)) + " " + subject);
  }

  void run_before_pass(const IR&, const passinfra::PassInfo& info) {
    if (pass_hooks) hit(AHook::before_pass, std::string(info.name));
  }
  void run_after_pass(const IR&, const passinfra::PassInfo& info) {
    if (pass_hooks) hit(AHook::after_pass, std::string(info.name));
  }
  void run_after_pass_failed(const passinfra::PassInfo& info, std::exception_ptr) {
    if (pass_hooks) hit(AHook::after_pass_failed, std::string(info.name));
  }
  void run_before_analysis(const IR&, const passinfra::AnalysisInfo& info) { hit(AHook::before, analysis_text(info)); }
  void run_after_analysis(const IR&, const passinfra::AnalysisInfo& info) { hit(AHook::after, analysis_text(info)); }
  void run_after_analysis_failed(const passinfra::AnalysisInfo& info, std::exception_ptr) {
    hit(AHook::failed, analysis_text(info));
  }
  void run_analysis_invalidated(const passinfra::AnalysisInfo& info) { hit(AHook::invalidated, analysis_text(info)); }
};

// Touch<"Name", Preserves...>: version += 1, declares preserves<Preserves...>.
template <Name N, class... Preserves>
struct Touch {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves<Preserves...>;
  AModule transform(AModule m, auto&) const {
    if (m.log) m.log->add(std::string(N.view()));
    m.version += 1;
    return m;
  }
};

// KeepAll<"Name">: changes nothing, preserves everything.
template <Name N>
struct KeepAll {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves_all;
  AModule transform(AModule m, auto&) const {
    if (m.log) m.log->add(std::string(N.view()));
    return m;
  }
};

}  // namespace pitest

template <>
struct passinfra::ir_traits<pitest::AModule> {
  using function_type = pitest::AFunc;
  static const std::string& function_key(const pitest::AFunc& f) { return f.name; }
  // The functions that are not external, in order, replaced by what f returns.
  template <class F>
  static pitest::AModule map_functions(pitest::AModule m, F&& f) {
    for (std::size_t i = 0; i < m.functions.size(); ++i) {
      if (m.functions[i].external) continue;
      pitest::AFunc result = f(m.functions[i], std::as_const(m));
      m.functions[i] = std::move(result);
    }
    return m;
  }
  template <class F>
  static void for_each_function(const pitest::AModule& m, F&& f) {
    for (const auto& fn : m.functions) f(fn);
  }
};
