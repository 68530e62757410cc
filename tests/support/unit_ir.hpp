// tests/support/unit_ir.hpp — a parent IR with units, for nests (SPEC §11).
//
// UFunc{name, value, trail, primitive}   one unit; `primitive` ones are not listed (as Relay's
//                                        SkipFunction): a nest never sees them
// UModule{log, functions, version}       the parent; unit_traits<UModule, UFunc> lists the
//                                        non-primitive functions as "@<name>", in order
// UStep<"Name", Opt>                     a unit pass: logs "Name(@f)", value += 1, appends to trail;
//                                        reads the parent snapshot (ctx.parent().version)
// UThrow<"Name", "@f">                   a unit pass that throws TestError on that unit
// UModuleStep<"Name">                    a parent-level pass: logs "Name", ++version
// UHooks{name, log}                      pass hooks for UModule and UFunc, the pipeline hooks,
//                                        writing "<name>.<hook>(<what>)"
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

namespace pitest {

struct UFunc {
  std::string name;
  int value = 0;
  std::vector<std::string> trail;
  bool primitive = false;
};

struct UModule {
  EventLog* log = nullptr;
  std::vector<UFunc> functions;
  int version = 0;
};

inline UModule make_umodule(EventLog* log, std::vector<std::string> names, int version = 0) {
  UModule m{log, {}, version};
  for (auto& n : names) {
    const bool primitive = !n.empty() && n[0] == '!';  // "!g": a primitive function
    m.functions.push_back(UFunc{primitive ? n.substr(1) : n, 0, {}, primitive});
  }
  return m;
}

// Every function's name and trail, for comparisons: "f:A,B;g:;".
inline std::string describe(const UModule& m) {
  std::string s;
  for (const auto& f : m.functions) {
    s += f.name + ":" + std::to_string(f.value) + ":";
    for (const auto& t : f.trail) s += t + ",";
    s += ";";
  }
  return s;
}

}  // namespace pitest

template <>
struct passinfra::ir_traits<pitest::UModule> {
  using unit_types = passinfra::unit_list<pitest::UFunc>;  // instruments may hook the units only
  static std::string print(const pitest::UModule& m) {
    std::string s;
    for (const auto& f : m.functions) s += (s.empty() ? "" : " ") + f.name + " " + std::to_string(f.value);
    return s;
  }
};

template <>
struct passinfra::ir_traits<pitest::UFunc> {
  static constexpr std::string_view name = "function";
  using parent_type = pitest::UModule;
  static std::string print(const pitest::UFunc& f) { return f.name + " " + std::to_string(f.value); }
};

template <>
struct passinfra::unit_traits<pitest::UModule, pitest::UFunc> {
  static std::vector<passinfra::UnitSlot<pitest::UFunc>> units(const pitest::UModule& m) {
    std::vector<passinfra::UnitSlot<pitest::UFunc>> out;
    for (const auto& f : m.functions) {
      if (!f.primitive) out.push_back({"@" + f.name, f});
    }
    return out;
  }
  static pitest::UModule replace_units(pitest::UModule m, std::vector<passinfra::UnitSlot<pitest::UFunc>> slots) {
    std::size_t k = 0;
    for (auto& f : m.functions) {
      if (!f.primitive) f = std::move(slots.at(k++).ir);
    }
    return m;
  }
};

namespace pitest {

template <Name N, int Opt = 0>
struct UStep {
  static constexpr passinfra::PassInfo info{N.view(), Opt};
  template <class Ctx>
  UFunc transform(UFunc f, Ctx& ctx) const {
    const UModule& parent = ctx.parent();
    if (parent.log) parent.log->add(std::string(N.view()) + "(" + std::string(ctx.unit_name()) + ")");
    f.value += 1;
    f.trail.emplace_back(std::string(N.view()) + "@v" + std::to_string(parent.version));
    return f;
  }
};

template <Name N, Name Where>
struct UThrow {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  template <class Ctx>
  UFunc transform(UFunc f, Ctx& ctx) const {
    if (ctx.parent().log) ctx.parent().log->add(std::string(N.view()) + "(" + std::string(ctx.unit_name()) + ")");
    if (ctx.unit_name() == Where.view()) throw_test_error(40, std::string(N.view()) + " failed on " + f.name);
    return f;
  }
};

template <Name N>
struct UModuleStep {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  UModule transform(UModule m, auto&) const {
    if (m.log) m.log->add(std::string(N.view()));
    ++m.version;
    return m;
  }
};

// Pass hooks for both levels and the three pipeline hooks.
struct UHooks {
  std::string name;
  EventLog* log = nullptr;
  void add(const std::string& s) const { log->add(name + "." + s); }
  bool should_run(const UModule&, const passinfra::PassInfo& i) {
    add("should_run(M," + std::string(i.name) + ")");
    return true;
  }
  bool should_run(const UFunc& f, const passinfra::PassInfo& i) {
    add("should_run(" + f.name + "," + std::string(i.name) + ")");
    return true;
  }
  void run_before_pass(const UModule&, const passinfra::PassInfo& i) { add("before(M," + std::string(i.name) + ")"); }
  void run_before_pass(const UFunc& f, const passinfra::PassInfo& i) {
    add("before(" + f.name + "," + std::string(i.name) + ")");
  }
  void run_after_pass(const UModule&, const passinfra::PassInfo& i) { add("after(M," + std::string(i.name) + ")"); }
  void run_after_pass(const UFunc& f, const passinfra::PassInfo& i) {
    add("after(" + f.name + "," + std::string(i.name) + ")");
  }
  void run_after_pass_failed(const passinfra::PassInfo& i, std::exception_ptr) {
    add("failed(" + std::string(i.name) + ")");
  }
  void run_before_pipeline(const UFunc& f, const passinfra::PipelineInfo& p) {
    add("before_pipeline(" + f.name + "," + std::to_string(p.unit_index) + ")");
  }
  void run_after_pipeline(const UFunc& f, const passinfra::PipelineInfo& p) {
    add("after_pipeline(" + f.name + "," + std::to_string(p.unit_index) + ")");
  }
  void run_after_pipeline_failed(const passinfra::PipelineInfo& p, std::exception_ptr) {
    add("pipeline_failed(" + std::string(p.unit_name) + "," + std::to_string(p.unit_index) + ")");
  }
};

// Module-level hooks only: never called for units.
struct ModuleOnlyHooks {
  EventLog* log = nullptr;
  void run_before_pass(const UModule&, const passinfra::PassInfo& i) {
    log->add("M-only.before(" + std::string(i.name) + ")");
  }
};

}  // namespace pitest
