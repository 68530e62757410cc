// DynamicNest's unit pipelines under a PassContext<Parent> whose run-time list
// holds one instrument (or none): the children of each unit run in the
// instrument's own loop (the solo loop, dynamic/solo_loop.hpp, with the
// unit-level hooks of AnyInstrument<Parent> and the parent list's hook
// phases). Checked against the same nest one child at a time through the
// list (the general walk, taken when the context lists pass names): every
// event, every instrument's destruction, the result or the exception, and the
// list held afterwards must agree -- when a unit-level hook or a unit pass's
// body replaces the list (SPEC §2 override_instruments; DynamicInstruments'
// rules), when the instrument vetoes a unit pass, when a unit's body throws
// (SPEC §11.6), with a gated-out child and a required pass and without; and
// on an executor, the counts of a thread-safe instrument's unit hooks (SPEC §11.4).
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <passinfra/dynamic.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "support/unit_ir.hpp"

using namespace pitest;
namespace pi = passinfra;
using Ctx = pi::PassContext<UModule>;

namespace {

// Where the instrument "A" replaces its context's list (or a unit pass's body does).
enum class At { nothing, should_run, before, body, after };

struct Scenario {
  int initial_items = 1;  // the list at the start: {}, {A}, {A, X}
  At at = At::nothing;
  std::string pass;    // the pass whose hook (or body) replaces the list
  std::string unit;    // ... on this unit ("M": the module-level hook of the nest itself)
  int new_items = 0;   // the list installed: {}, {B}, {B, C}
  bool veto = false;   // A's should_run says "skip" at the replacement
  std::string throws;  // the unit on which R's body throws ("" none)
  bool plain = false;  // the pipeline without Hi (gated out) and Req (requires Q)
  std::string describe() const {
    static const char* const names[] = {"nothing", "should_run", "before", "body", "after"};
    return std::to_string(initial_items) + " item(s), replace at " + names[static_cast<int>(at)] + " of " + pass +
           " on " + unit + " with " + std::to_string(new_items) + " item(s)" + (veto ? ", veto" : "") +
           (throws.empty() ? "" : ", R throws on " + throws) + (plain ? ", plain pipeline" : "");
  }
};

Ctx* g_ctx = nullptr;
const Scenario* g_scenario = nullptr;

std::vector<pi::AnyInstrument<UModule>> new_list(EventLog& log);

// Logs every hook (both levels, the pipeline hooks) as "<name>.<hook>(<what>)"
// and its destruction; "A" replaces the list where the scenario says.
struct Logging {
  EventLog* log;
  std::string name;
  Logging(EventLog* events, std::string instrument_name) : log(events), name(std::move(instrument_name)) {}
  Logging(const Logging&) = delete;
  Logging& operator=(const Logging&) = delete;
  ~Logging() { log->add(name + " destroyed"); }

  bool here(At at, const pi::PassInfo& info, const std::string& unit) const {
    return name == "A" && g_scenario->at == at && info.name == g_scenario->pass && unit == g_scenario->unit;
  }
  void replace_if(At at, const pi::PassInfo& info, const std::string& unit) const {
    if (here(at, info, unit)) {
      EventLog* const events = log;  // *this may die in override_instruments
      g_ctx->override_instruments(new_list(*events));
      events->add("replaced");
    }
  }
  void enter_pass_ctx() { log->add(name + ".enter"); }
  void exit_pass_ctx() { log->add(name + ".exit"); }
  bool ask(const std::string& unit, const pi::PassInfo& info) {
    EventLog* const events = log;
    const bool veto = g_scenario->veto && here(At::should_run, info, unit);
    events->add(name + ".should_run(" + unit + "," + std::string(info.name) + ")");
    replace_if(At::should_run, info, unit);
    return !veto;
  }
  void before(const std::string& unit, const pi::PassInfo& info) {
    log->add(name + ".before(" + unit + "," + std::string(info.name) + ")");
    replace_if(At::before, info, unit);
  }
  void after(const std::string& unit, const pi::PassInfo& info) {
    log->add(name + ".after(" + unit + "," + std::string(info.name) + ")");
    replace_if(At::after, info, unit);
  }
  bool should_run(const UModule&, const pi::PassInfo& info) { return ask("M", info); }
  bool should_run(const UFunc& f, const pi::PassInfo& info) { return ask(f.name, info); }
  void run_before_pass(const UModule&, const pi::PassInfo& info) { before("M", info); }
  void run_before_pass(const UFunc& f, const pi::PassInfo& info) { before(f.name, info); }
  void run_after_pass(const UModule&, const pi::PassInfo& info) { after("M", info); }
  void run_after_pass(const UFunc& f, const pi::PassInfo& info) { after(f.name, info); }
  void run_after_pass_failed(const pi::PassInfo& info, std::exception_ptr) {
    log->add(name + ".failed(" + std::string(info.name) + ")");
  }
  void run_before_pipeline(const UFunc& f, const pi::PipelineInfo&) {
    log->add(name + ".before_pipeline(" + f.name + ")");
  }
  void run_after_pipeline(const UFunc& f, const pi::PipelineInfo&) {
    log->add(name + ".after_pipeline(" + f.name + ")");
  }
  void run_after_pipeline_failed(const pi::PipelineInfo& p, std::exception_ptr) {
    log->add(name + ".pipeline_failed(" + std::string(p.unit_name) + ")");
  }
};

pi::AnyInstrument<UModule> logging(EventLog& log, std::string name) {
  return pi::make_instrument<UModule, Logging>(&log, std::move(name));
}

std::vector<pi::AnyInstrument<UModule>> new_list(EventLog& log) {
  std::vector<pi::AnyInstrument<UModule>> list;
  if (g_scenario->new_items >= 1) list.push_back(logging(log, "B"));
  if (g_scenario->new_items >= 2) list.push_back(logging(log, "C"));
  return list;
}

// A unit pass named at run time: logs "<name>(<unit>)", replaces the list
// from its body or throws where the scenario says.
struct Step {
  std::string name;
  int opt_level = 0;
  pi::PassInfo info() const { return {name, opt_level}; }
  UFunc transform(UFunc f, auto& ctx) const {
    const UModule& parent = ctx.parent();
    if (parent.log != nullptr) parent.log->add(name + "(" + f.name + ")");  // none when units run in parallel
    f.value += 1;
    f.trail.push_back(name);
    if (g_scenario->at == At::body && g_scenario->pass == name && g_scenario->unit == f.name) {
      g_ctx->override_instruments(new_list(*parent.log));
      parent.log->add("replaced");
    }
    if (name == "R" && g_scenario->throws == f.name) throw_test_error(7, "R failed on " + f.name);
    return f;
  }
};

pi::DynamicNest<UModule, UFunc> nest(bool plain) {
  using pi::AnyPass;
  if (plain) return pi::DynamicNest<UModule, UFunc>{Step{"P1"}, Step{"R"}, Step{"P3"}};
  // Hi is above the context's opt_level; Req requires Q (run first, through run()).
  return pi::DynamicNest<UModule, UFunc>{Step{"P1"}, Step{"Hi", 3}, Step{"R"},
                                         AnyPass<UFunc>(Step{"Req"}, {AnyPass<UFunc>(Step{"Q"})}), Step{"P3"}};
}

struct Outcome {
  std::vector<std::string> events;
  std::string result;             // the module's functions, or "threw <what>"
  std::vector<std::string> held;  // the list afterwards, by name
};

// Runs the scenario under a fresh context; `general` lists a pass name no
// pass has, which sends the units' children down the one-at-a-time walk.
Outcome run_scenario(const Scenario& s, bool general) {
  EventLog log;
  g_scenario = &s;
  Outcome out;
  {
    pi::PassContextOptions options;
    if (general) options.disabled_pass = {"NoSuchPass"};
    std::vector<pi::AnyInstrument<UModule>> initial;
    if (s.initial_items >= 1) initial.push_back(logging(log, "A"));
    if (s.initial_items >= 2) initial.push_back(logging(log, "X"));
    Ctx ctx(std::move(options), pi::DynamicInstruments<UModule>(std::move(initial)));
    g_ctx = &ctx;
    const auto n = nest(s.plain);
    try {
      out.result = describe(pi::run(n, make_umodule(&log, {"f0", "f1", "f2"}), ctx));
    } catch (const TestError& e) {
      out.result = std::string("threw ") + e.what();
    }
    for (const auto& item : ctx.instruments().items()) out.held.emplace_back(item.name());
    log.add("context ends");
  }
  g_ctx = nullptr;
  out.events = log.events;
  return out;
}

std::vector<Scenario> scenarios() {
  std::vector<Scenario> all;
  for (const bool plain : {false, true}) {
    for (int initial = 0; initial <= 2; ++initial) {
      for (const char* throws : {"", "f1"}) {
        all.push_back({initial, At::nothing, "", "", 0, false, throws, plain});
        for (int items = 0; items <= 2; ++items) {
          for (const char* pass : {"P1", "R", "Q", "Req", "P3", "function"}) {
            const char* const unit = std::string(pass) == "function" ? "M" : "f1";
            for (At at : {At::should_run, At::before, At::after}) {
              if (initial == 0) continue;  // no hook to replace the list from
              all.push_back({initial, at, pass, unit, items, false, throws, plain});
              if (at == At::should_run) all.push_back({initial, at, pass, unit, items, true, throws, plain});
            }
          }
          all.push_back({initial, At::body, "R", "f1", items, false, throws, plain});
          all.push_back({initial, At::body, "P3", "f0", items, false, throws, plain});
        }
      }
    }
  }
  return all;
}

// A thread-safe instrument counting the unit-level pass hooks.
struct UnitCounter {
  static constexpr bool thread_safe = true;
  std::atomic<int> asked{0}, before{0}, after{0};
  bool should_run(const UFunc&, const pi::PassInfo&) {
    ++asked;
    return true;
  }
  void run_before_pass(const UFunc&, const pi::PassInfo&) { ++before; }
  void run_after_pass(const UFunc&, const pi::PassInfo&) { ++after; }
};

}  // namespace

TEST_CASE("nest solo loop: every replacement point agrees with the walk through the list") {
  const std::vector<Scenario> all = scenarios();
  for (const Scenario& s : all) {
    INFO(s.describe());
    const Outcome solo = run_scenario(s, false);
    const Outcome general = run_scenario(s, true);
    CHECK(solo.events == general.events);
    CHECK(solo.result == general.result);
    CHECK(solo.held == general.held);
  }
  // Per pipeline, initial list and thrower: the plain run, then per new list
  // 2 body replacements and, with an A, 6 passes x 4 hook replacements (one
  // of them with a veto).
  CHECK(all.size() == 2 * 2 * (3 * (1 + 3 * 2) + 2 * 3 * 6 * 4));
}

TEST_CASE("nest solo loop: a unit hook's replacement ends the instrument's part; the new list takes over") {
  // One scenario spelled out, so the agreement above is known to test something.
  const Scenario s{1, At::before, "R", "f1", 1, false, "", true};
  const Outcome out = run_scenario(s, false);
  const std::vector<std::string> expected{"A.should_run(M,function)",
                                          "A.before(M,function)",
                                          "A.before_pipeline(f0)",
                                          "A.should_run(f0,P1)",
                                          "A.before(f0,P1)",
                                          "P1(f0)",
                                          "A.after(f0,P1)",
                                          "A.should_run(f0,R)",
                                          "A.before(f0,R)",
                                          "R(f0)",
                                          "A.after(f0,R)",
                                          "A.should_run(f0,P3)",
                                          "A.before(f0,P3)",
                                          "P3(f0)",
                                          "A.after(f0,P3)",
                                          "A.after_pipeline(f0)",
                                          "A.before_pipeline(f1)",
                                          "A.should_run(f1,P1)",
                                          "A.before(f1,P1)",
                                          "P1(f1)",
                                          "A.after(f1,P1)",
                                          "A.should_run(f1,R)",
                                          "A.before(f1,R)",
                                          "A.exit",
                                          "B.enter",
                                          "replaced",
                                          "A destroyed",
                                          "R(f1)",
                                          "B.after(f1,R)",
                                          "B.should_run(f1,P3)",
                                          "B.before(f1,P3)",
                                          "P3(f1)",
                                          "B.after(f1,P3)",
                                          "B.after_pipeline(f1)",
                                          "B.before_pipeline(f2)",
                                          "B.should_run(f2,P1)",
                                          "B.before(f2,P1)",
                                          "P1(f2)",
                                          "B.after(f2,P1)",
                                          "B.should_run(f2,R)",
                                          "B.before(f2,R)",
                                          "R(f2)",
                                          "B.after(f2,R)",
                                          "B.should_run(f2,P3)",
                                          "B.before(f2,P3)",
                                          "P3(f2)",
                                          "B.after(f2,P3)",
                                          "B.after_pipeline(f2)",
                                          "B.after(M,function)",
                                          "context ends",
                                          "B destroyed"};
  CHECK(out.events == expected);
  CHECK(out.result == "f0:3:P1,R,P3,;f1:3:P1,R,P3,;f2:3:P1,R,P3,;");
  CHECK(out.held == std::vector<std::string>{"B"});
}

TEST_CASE("nest solo loop: on an executor, a thread-safe instrument's unit hooks, serial and parallel alike") {
  pi::ThreadPool pool(1);  // the caller + one worker
  Scenario none{};
  g_scenario = &none;
  const auto n = nest(true);
  std::vector<std::string> fns;
  for (int i = 0; i < 16; ++i) fns.push_back("f" + std::to_string(i));
  std::string serial_result;
  for (const bool parallel : {false, true}) {
    CAPTURE(parallel);
    auto counter = std::make_shared<UnitCounter>();
    pi::PassContextOptions options;
    if (parallel) options.executor = pool;
    Ctx ctx(std::move(options), {pi::AnyInstrument<UModule>(counter)});
    // No log: an EventLog is not thread-safe, and parallel units would write it at once.
    const std::string result = describe(pi::run(n, make_umodule(nullptr, fns), ctx));
    if (!parallel) serial_result = result;
    CHECK(result == serial_result);
    CHECK(counter->asked == 16 * 3);
    CHECK(counter->before == 16 * 3);
    CHECK(counter->after == 16 * 3);
  }
  g_scenario = nullptr;
}
