// tests/acceptance/acceptance.hpp — what the acceptance suites share (issue 19, "How it is judged").
//
// LModule / LFn                 a module of functions with instruction lists, like the
//                               module of LLVM's PassManagerTest:
//                                 f: call g, call h, ret     g: ret     h: ret
//                               ir_traits: function_type, map_functions (every function),
//                               function_key (the name), for_each_function
// make_module()                 that module
// Layer<Dynamic, Listed>        how a test builds its manager, context and pipelines:
//   L::Manager<analyses<As...>>   AnalysisManager<LModule, analyses<As...>> (static slots) when
//                                 Listed, else AnalysisManager<LModule> (the run-time table only)
//   L::context(options, am, instruments&...)   make_pass_context<LModule>(options, am, std::ref(i)...)
//                                 or PassContext<LModule>(options, DynamicInstruments{...}, &am)
//   L::pass(p) / L::seq(ps...)    the pass as is / Sequential, or AnyPass / DynamicSequential
// ACCEPTANCE_LAYERS             the four combinations (the ctest names' suffixes)
// EventLog / AnalysisRecorder   an instrument recording the pass and analysis hooks as text
#pragma once

#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

namespace acceptance {

struct LFn {
  std::string name;
  std::vector<std::string> insts;
};

struct LModule {
  std::vector<LFn> functions;
};

inline LModule make_module() { return LModule{{{"f", {"call g", "call h", "ret"}}, {"g", {"ret"}}, {"h", {"ret"}}}}; }

inline const LFn& fn(const LModule& m, const std::string& name) {
  for (const auto& f : m.functions) {
    if (f.name == name) return f;
  }
  throw std::logic_error("no function " + name);
}

}  // namespace acceptance

template <>
struct passinfra::ir_traits<acceptance::LModule> {
  using function_type = acceptance::LFn;
  template <class F>
  static acceptance::LModule map_functions(acceptance::LModule m, F&& f) {
    for (auto& fn : m.functions) {
      acceptance::LFn out = f(fn, std::as_const(m));
      fn = std::move(out);
    }
    return m;
  }
  static const std::string& function_key(const acceptance::LFn& fn) { return fn.name; }
  template <class F>
  static void for_each_function(const acceptance::LModule& m, F&& f) {
    for (const auto& fn : m.functions) f(fn);
  }
};

namespace acceptance {

template <bool Dynamic, bool Listed>
struct Layer {
  static constexpr bool dynamic = Dynamic;
  static constexpr bool listed = Listed;

  template <class List>
  using Manager =
      std::conditional_t<Listed, passinfra::AnalysisManager<LModule, List>, passinfra::AnalysisManager<LModule>>;

  template <class Mgr, class... Is>
  static auto context(passinfra::PassContextOptions options, Mgr& am, Is&... instruments) {
    if constexpr (Dynamic) {
      return passinfra::PassContext<LModule>(
          std::move(options),
          passinfra::DynamicInstruments<LModule>{passinfra::AnyInstrument<LModule>(std::ref(instruments))...}, &am);
    } else {
      return passinfra::make_pass_context<LModule>(std::move(options), am, std::ref(instruments)...);
    }
  }
  template <class P>
  static auto pass(P p) {
    if constexpr (Dynamic) {
      return passinfra::AnyPass<LModule>(std::move(p));
    } else {
      return p;
    }
  }
  template <class... Ps>
  static auto seq(Ps... passes) {
    if constexpr (Dynamic) {
      return passinfra::DynamicSequential<LModule>{passinfra::AnyPass<LModule>(std::move(passes))...};
    } else {
      return passinfra::Sequential<Ps...>(std::move(passes)...);
    }
  }
};

using StaticListed = Layer<false, true>;
using StaticTable = Layer<false, false>;
using DynamicListed = Layer<true, true>;
using DynamicTable = Layer<true, false>;

#define ACCEPTANCE_LAYERS \
  acceptance::StaticListed, acceptance::StaticTable, acceptance::DynamicListed, acceptance::DynamicTable

struct EventLog {
  std::vector<std::string> events;
  std::string joined() const {
    std::string out;
    for (const auto& e : events) out += (out.empty() ? "" : " | ") + e;
    return out;
  }
};

inline std::string subject(const passinfra::AnalysisInfo& info) {
  std::string s(info.name);
  if (!info.function.empty()) {
    s += "@";
    s += info.function;
  }
  return s;
}

// Records run_before_pass / run_after_pass / run_after_pass_failed and the four analysis hooks.
struct AnalysisRecorder {
  EventLog* log = nullptr;
  void run_before_pass(const LModule&, const passinfra::PassInfo& info) {
    log->events.push_back("before " + std::string(info.name));
  }
  void run_after_pass(const LModule&, const passinfra::PassInfo& info) {
    log->events.push_back("after " + std::string(info.name));
  }
  void run_after_pass_failed(const passinfra::PassInfo& info, std::exception_ptr) {
    log->events.push_back("failed " + std::string(info.name));
  }
  void run_before_analysis(const LModule&, const passinfra::AnalysisInfo& info) {
    log->events.push_back("compute " + subject(info));
  }
  void run_after_analysis(const LModule&, const passinfra::AnalysisInfo& info) {
    log->events.push_back("computed " + subject(info));
  }
  void run_after_analysis_failed(const passinfra::AnalysisInfo& info, std::exception_ptr) {
    log->events.push_back("analysis failed " + subject(info));
  }
  void run_analysis_invalidated(const passinfra::AnalysisInfo& info) {
    log->events.push_back("invalidated " + subject(info));
  }
};

}  // namespace acceptance
