// tests/support/func_ir.hpp — a tiny IR with functions, for function passes.
//
// Func{name, body, external}           one function: `body` is a list of ints
// FuncIR<FollowUp>{log, functions, trail}
//                                      a module of functions; ir_traits<FuncIR<...>> maps the
//                                      functions that are not `external`, in order
// FuncModule = FuncIR<true>            the IR attaches CheckBodies as function_pass_follow_up
//                                      (as Relay attaches InferType)
// BareFuncModule = FuncIR<false>       the same IR without a follow-up pass
// CheckBodies                          the follow-up: records "CheckBodies", appends to `trail`
// FuncRecorder<IR>                     the five hooks of SPEC §5 for any IR (see recorder.hpp)
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

namespace pitest {

struct Func {
  std::string name;
  std::vector<int> body;
  bool external = false;  // not defined here: function passes do not see it
};

template <bool FollowUp>
struct FuncIR {
  EventLog* log = nullptr;
  std::vector<Func> functions;
  std::vector<std::string> trail;
};

using FuncModule = FuncIR<true>;
using BareFuncModule = FuncIR<false>;

// The follow-up pass of FuncModule: checks nothing, leaves a trace.
struct CheckBodies {
  static constexpr passinfra::PassInfo info{"CheckBodies", 0};
  template <bool B>
  FuncIR<B> transform(FuncIR<B> ir, auto&) const {
    if (ir.log) ir.log->add("CheckBodies");
    ir.trail.emplace_back("CheckBodies");
    return ir;
  }
};

// An instrument with the five hooks, for any IR (the hooks of Recorder take TestIR).
template <class IR>
struct FuncRecorder : RecorderBase {
  void enter_pass_ctx() { hit(Hook::enter); }
  void exit_pass_ctx() { hit(Hook::exit); }
  bool should_run(const IR&, const passinfra::PassInfo& info) {
    hit(Hook::should_run, info.name);
    return !vetoes(info.name);
  }
  void run_before_pass(const IR&, const passinfra::PassInfo& info) { hit(Hook::before, info.name); }
  void run_after_pass(const IR&, const passinfra::PassInfo& info) { hit(Hook::after, info.name); }
};

template <class IR>
FuncRecorder<IR> func_recorder(std::string name, EventLog& log) {
  FuncRecorder<IR> r;
  r.name = std::move(name);
  r.log = &log;
  return r;
}

// What ir_traits<FuncIR<B>> shares: the functions that are not external are
// handed to f(function, module) in order, and replaced by what it returns.
template <bool B>
struct FuncIRTraitsBase {
  using function_type = Func;
  template <class F>
  static FuncIR<B> map_functions(FuncIR<B> ir, F&& f) {
    for (std::size_t i = 0; i < ir.functions.size(); ++i) {
      if (ir.functions[i].external) continue;
      Func result = f(ir.functions[i], std::as_const(ir));
      ir.functions[i] = std::move(result);
    }
    return ir;
  }
};

}  // namespace pitest

template <>
struct passinfra::ir_traits<pitest::FuncModule> : pitest::FuncIRTraitsBase<true> {
  using function_pass_follow_up = pitest::CheckBodies;
};

template <>
struct passinfra::ir_traits<pitest::BareFuncModule> : pitest::FuncIRTraitsBase<false> {};
