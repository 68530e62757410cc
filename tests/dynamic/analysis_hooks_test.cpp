// The four analysis hooks through the dynamic instrument erasure (SPEC §10.7):
// AnyInstrument forwards them when the wrapped type has them, the hook mask
// has one bit each, and a DynamicInstruments list's mask says whether any
// item has one (a list without them is passed over by the analysis phases).
#include <doctest/doctest.h>

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <passinfra/dynamic.hpp>

#include "support/test_ir.hpp"

using namespace pitest;
using passinfra::AnalysisInfo;
using passinfra::AnyInstrument;

namespace {

// All four analysis hooks, writing "<name> <hook> <analysis>[@<function>]".
struct AnalysisHookRecorder {
  std::string name;
  EventLog* log = nullptr;

  std::string tag(const AnalysisInfo& info) const {
    std::string s(info.name);
    if (!info.function.empty()) s += "@" + std::string(info.function);
    return s;
  }
  void run_before_analysis(const TestIR&, const AnalysisInfo& info) {
    log->add(name + " run_before_analysis " + tag(info));
  }
  void run_after_analysis(const TestIR&, const AnalysisInfo& info) {
    log->add(name + " run_after_analysis " + tag(info));
  }
  void run_after_analysis_failed(const AnalysisInfo& info, std::exception_ptr error) {
    log->add(name + " run_after_analysis_failed " + tag(info) + (error ? " (error)" : " (no error)"));
  }
  void run_analysis_invalidated(const AnalysisInfo& info) { log->add(name + " run_analysis_invalidated " + tag(info)); }
};

// Only one analysis hook: the others must do nothing.
struct InvalidatedOnly {
  EventLog* log = nullptr;
  void run_analysis_invalidated(const AnalysisInfo& info) { log->add("only " + std::string(info.name)); }
};

// Pass hooks only: no analysis bit.
struct PassOnly {
  void run_before_pass(const TestIR&, const passinfra::PassInfo&) {}
};

}  // namespace

TEST_CASE("dynamic analysis hooks: AnyInstrument forwards the four analysis hooks (SPEC §10.7)") {
  EventLog log;
  AnalysisHookRecorder rec{"r", &log};
  const AnyInstrument<TestIR> any(std::ref(rec));
  const TestIR ir;
  const AnalysisInfo module_info{"CallGraph"};
  const AnalysisInfo function_info{"Liveness", "main"};
  any.run_before_analysis(ir, module_info);
  any.run_after_analysis(ir, module_info);
  any.run_after_analysis_failed(function_info, std::make_exception_ptr(TestError(1)));
  any.run_analysis_invalidated(function_info);
  CHECK(log.events == std::vector<std::string>{"r run_before_analysis CallGraph", "r run_after_analysis CallGraph",
                                               "r run_after_analysis_failed Liveness@main (error)",
                                               "r run_analysis_invalidated Liveness@main"});
  CHECK(any.has_run_before_analysis());
  CHECK(any.has_run_after_analysis());
  CHECK(any.has_run_after_analysis_failed());
  CHECK(any.has_run_analysis_invalidated());
  CHECK((any.hook_mask() & passinfra::detail::analysis_hooks) == passinfra::detail::analysis_hooks);
}

TEST_CASE("dynamic analysis hooks: a hook the wrapped type lacks does nothing and has no bit") {
  EventLog log;
  InvalidatedOnly only{&log};
  const AnyInstrument<TestIR> any(std::ref(only));
  const TestIR ir;
  any.run_before_analysis(ir, AnalysisInfo{"A"});
  any.run_after_analysis(ir, AnalysisInfo{"A"});
  any.run_after_analysis_failed(AnalysisInfo{"A"}, nullptr);
  any.run_analysis_invalidated(AnalysisInfo{"B"});
  CHECK(log.events == std::vector<std::string>{"only B"});
  CHECK_FALSE(any.has_run_before_analysis());
  CHECK_FALSE(any.has_run_after_analysis());
  CHECK_FALSE(any.has_run_after_analysis_failed());
  CHECK(any.has_run_analysis_invalidated());
  CHECK(any.hook_mask() == passinfra::detail::hook_run_analysis_invalidated);

  // An instrument with only an analysis hook is an instrument (InstrumentFor).
  static_assert(passinfra::InstrumentFor<InvalidatedOnly, TestIR>);
}

TEST_CASE("dynamic analysis hooks: a list's hook mask has the analysis bits only when an item has them") {
  EventLog log;
  PassOnly pass_only;
  AnalysisHookRecorder rec{"r", &log};
  passinfra::DynamicInstruments<TestIR> list{AnyInstrument<TestIR>(std::ref(pass_only))};
  CHECK((list.hook_mask() & passinfra::detail::analysis_hooks) == 0);
  list.replace({AnyInstrument<TestIR>(std::ref(pass_only)), AnyInstrument<TestIR>(std::ref(rec))});
  CHECK((list.hook_mask() & passinfra::detail::analysis_hooks) == passinfra::detail::analysis_hooks);
  list.replace({});
  CHECK(list.hook_mask() == 0);
  // make_instrument owns the object; the hooks still forward.
  auto owned = passinfra::make_instrument<TestIR, AnalysisHookRecorder>(AnalysisHookRecorder{"o", &log});
  owned.run_analysis_invalidated(AnalysisInfo{"X"});
  CHECK(log.events.back() == "o run_analysis_invalidated X");
}
