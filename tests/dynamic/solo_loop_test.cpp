// DynamicSequential under a run-time list of one instrument (the solo loop,
// dynamic/solo_loop.hpp) against the same pipeline one child at a time
// through the list (the general walk, taken when the context lists pass
// names): every event, every instrument's destruction, the IR or the
// exception, and the list held afterwards must agree -- in particular when a
// hook, a body or a required pass's hook replaces the list in the middle of a
// pass (SPEC §2 override_instruments; DynamicInstruments' rules), when the
// instrument vetoes, and when a body throws before or after the replacement;
// and all of it again under an analysis manager whose results the bodies
// read and whose invalidation the instruments see (SPEC §10.4, §10.6, §10.7),
// including an invalidation hook that throws at a body's end; and all of it
// for a pipeline whose every child passes the gate and requires nothing (the
// loop then tests neither per child) as well as for one with a gated-out
// child and a required pass.
#include <doctest/doctest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/dynamic.hpp>

#include "support/test_ir.hpp"

using namespace pitest;
using Ctx = passinfra::PassContext<TestIR>;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::PassInfo;

namespace {

// Where the instrument "A" replaces its context's list (or a pass's body does).
enum class At { nothing, should_run, before, body, after };

struct Scenario {
  int initial_items = 1;  // the list at the start: {}, {A}, {A, X}
  At at = At::nothing;
  std::string pass;                 // the pass whose hook (or body) replaces the list
  int new_items = 0;                // the list installed: {}, {B}, {B, C}
  bool veto = false;                // A's should_run says "skip" at the replacement
  std::string throws;               // the pass whose body throws after its event ("" none)
  bool new_after_throws = false;    // B's run_after_pass throws
  bool managed = false;             // the context holds an analysis manager the bodies use
  bool invalidated_throws = false;  // A's run_analysis_invalidated throws (under a manager)
  bool plain = false;               // the pipeline without P2 (gated out) and Req (requires Q)
  std::string describe() const {
    static const char* const names[] = {"nothing", "should_run", "before", "body", "after"};
    return std::to_string(initial_items) + " item(s), replace at " + names[static_cast<int>(at)] + " of " + pass +
           " with " + std::to_string(new_items) + " item(s)" + (veto ? ", veto" : "") +
           (throws.empty() ? "" : ", " + throws + " throws") + (new_after_throws ? ", B.after throws" : "") +
           (managed ? ", with a manager" : "") + (invalidated_throws ? ", A.invalidated throws" : "") +
           (plain ? ", plain pipeline" : "");
  }
};

Ctx* g_ctx = nullptr;   // the context the scenario runs under
int g_invalidated = 0;  // run_analysis_invalidated calls of A in the scenario
const Scenario* g_scenario = nullptr;

std::vector<AnyInstrument<TestIR>> new_list(EventLog& log);

// An analysis of the IR: the length of its trail.
struct TrailLength {
  static constexpr passinfra::AnalysisInfo info{"TrailLength"};
  using result_type = std::size_t;
  std::size_t run(const TestIR& ir) const {
    ir.log->add("compute TrailLength");
    return ir.trail.size();
  }
};
// Logs every hook as "<name>.<hook>(<pass>)" and its destruction; "A" replaces
// the list where the scenario says.
struct Logging {
  EventLog* log;
  std::string name;
  Logging(EventLog* events, std::string instrument_name) : log(events), name(std::move(instrument_name)) {}
  Logging(const Logging&) = delete;
  Logging& operator=(const Logging&) = delete;
  ~Logging() { log->add(name + " destroyed"); }

  void replace_if(At at, const PassInfo& info) const {
    if (name == "A" && g_scenario->at == at && info.name == g_scenario->pass) {
      EventLog* const events = log;  // *this may die in override_instruments
      g_ctx->override_instruments(new_list(*events));
      events->add("replaced");
    }
  }
  void enter_pass_ctx() { log->add(name + ".enter"); }
  void exit_pass_ctx() { log->add(name + ".exit"); }
  bool should_run(const TestIR&, const PassInfo& info) {
    EventLog* const events = log;
    const bool veto = name == "A" && g_scenario->veto && info.name == g_scenario->pass;
    events->add(name + ".should_run(" + std::string(info.name) + ")");
    replace_if(At::should_run, info);
    return !veto;
  }
  void run_before_pass(const TestIR&, const PassInfo& info) {
    log->add(name + ".before(" + std::string(info.name) + ")");
    replace_if(At::before, info);
  }
  void run_after_pass(const TestIR&, const PassInfo& info) {
    log->add(name + ".after(" + std::string(info.name) + ")");
    if (name == "B" && g_scenario->new_after_throws) throw_test_error(8, "B.after failed");
    replace_if(At::after, info);
  }
  void run_after_pass_failed(const PassInfo& info, std::exception_ptr) {
    log->add(name + ".failed(" + std::string(info.name) + ")");
  }
  void run_before_analysis(const TestIR&, const passinfra::AnalysisInfo& info) {
    log->add(name + ".before_analysis(" + std::string(info.name) + ")");
  }
  void run_after_analysis(const TestIR&, const passinfra::AnalysisInfo& info) {
    log->add(name + ".after_analysis(" + std::string(info.name) + ")");
  }
  void run_analysis_invalidated(const passinfra::AnalysisInfo& info) {
    log->add(name + ".invalidated(" + std::string(info.name) + ")");
    if (name == "A" && g_scenario->invalidated_throws && g_invalidated++ == 0) {
      throw_test_error(9, "A.invalidated failed");
    }
  }
};

AnyInstrument<TestIR> logging(EventLog& log, std::string name) {
  return passinfra::make_instrument<TestIR, Logging>(&log, std::move(name));
}

std::vector<AnyInstrument<TestIR>> new_list(EventLog& log) {
  std::vector<AnyInstrument<TestIR>> list;
  if (g_scenario->new_items >= 1) list.push_back(logging(log, "B"));
  if (g_scenario->new_items >= 2) list.push_back(logging(log, "C"));
  return list;
}

// A pass named at run time: logs its name, replaces the list from its body
// or throws when the scenario says. Under a manager it reads TrailLength
// (computed when not cached) and logs it; P3 marks it preserved, P4 marks
// everything preserved, the others keep nothing.
struct Step {
  std::string name;
  int opt_level = 0;
  PassInfo info() const { return {name, opt_level}; }
  TestIR transform(TestIR ir, auto& ctx) const {
    ir.log->add(name);
    if (g_scenario->managed) {
      ir.log->add(name + " reads " + std::to_string(ctx.analyses().template get<TrailLength>(ir)));
      if (name == "P3") ctx.analyses().template preserve<TrailLength>();
      if (name == "P4") ctx.analyses().preserve_all();
    }
    ir.trail.push_back(name);
    if (g_scenario->at == At::body && g_scenario->pass == name) {
      g_ctx->override_instruments(new_list(*ir.log));
      ir.log->add("replaced");
    }
    if (g_scenario->throws == name) throw_test_error(7, name + " failed");
    return ir;
  }
};

passinfra::DynamicSequential<TestIR> pipeline(bool plain) {
  if (plain) return passinfra::DynamicSequential<TestIR>{Step{"P1"}, Step{"R"}, Step{"P3"}, Step{"P4"}};
  // P2 is above the context's opt_level; Req requires Q (run first, through run()).
  return passinfra::DynamicSequential<TestIR>{Step{"P1"}, Step{"P2", 3},
                                              Step{"R"},  AnyPass<TestIR>(Step{"Req"}, {AnyPass<TestIR>(Step{"Q"})}),
                                              Step{"P3"}, Step{"P4"}};
}

struct Outcome {
  std::vector<std::string> events;
  std::vector<std::string> trail;
  std::string error;              // what() of the escaping exception
  std::vector<std::string> held;  // the list afterwards, by name
};

// Runs the scenario under a fresh context; `general` lists a pass name no
// pass has, which sends DynamicSequential down the one-child-at-a-time walk.
Outcome run_scenario(const Scenario& s, bool general) {
  EventLog log;
  g_scenario = &s;
  g_invalidated = 0;
  Outcome out;
  {
    passinfra::PassContextOptions options;
    if (general) options.disabled_pass = {"NoSuchPass"};
    std::vector<AnyInstrument<TestIR>> initial;
    if (s.initial_items >= 1) initial.push_back(logging(log, "A"));
    if (s.initial_items >= 2) initial.push_back(logging(log, "X"));
    passinfra::AnalysisManager<TestIR> am;
    Ctx ctx(std::move(options), passinfra::DynamicInstruments<TestIR>(std::move(initial)), s.managed ? &am : nullptr);
    g_ctx = &ctx;
    const auto seq = pipeline(s.plain);
    try {
      out.trail = passinfra::run(seq, TestIR{&log}, ctx).trail;
    } catch (const TestError& e) {
      out.error = e.what();
    }
    for (const auto& item : ctx.instruments().items()) out.held.emplace_back(item.name());
    if (s.managed) log.add("cached: " + std::to_string(am.get_cached<TrailLength>() != nullptr));
    log.add("context ends");
  }
  g_ctx = nullptr;
  out.events = log.events;
  return out;
}

std::vector<Scenario> scenarios() {
  std::vector<Scenario> all;
  const auto add = [&](Scenario s) {
    all.push_back(s);
    if (s.new_items > 0) {
      s.new_after_throws = true;
      all.push_back(s);
    }
  };
  for (int initial = 0; initial <= 2; ++initial) {
    for (const char* throws : {"", "R", "P3"}) {
      add({initial, At::nothing, "", 0, false, throws});
      for (int items = 0; items <= 2; ++items) {
        for (const char* pass : {"P1", "R", "Q", "Req", "P3", "P4", "sequential"}) {
          for (At at : {At::should_run, At::before, At::after}) {
            if (initial == 0) continue;  // no hook to replace the list from
            add({initial, at, pass, items, false, throws});
            if (at == At::should_run) add({initial, at, pass, items, true, throws});
          }
        }
        add({initial, At::body, "R", items, false, throws});
        add({initial, At::body, "P3", items, false, throws});
      }
    }
  }
  // Each again under a manager.
  const std::size_t unmanaged = all.size();
  for (std::size_t i = 0; i < unmanaged; ++i) {
    Scenario s = all[i];
    s.managed = true;
    all.push_back(s);
  }
  // Under a manager, A's invalidation hook throws at the first body's end.
  for (int initial = 1; initial <= 2; ++initial) {
    Scenario s{initial, At::nothing, "", 0, false, ""};
    s.managed = true;
    s.invalidated_throws = true;
    all.push_back(s);
  }
  // Each again with the plain pipeline.
  const std::size_t gated = all.size();
  for (std::size_t i = 0; i < gated; ++i) {
    Scenario s = all[i];
    s.plain = true;
    all.push_back(s);
  }
  return all;
}

}  // namespace

TEST_CASE("solo loop: every replacement point agrees with the walk through the list") {
  const std::vector<Scenario> all = scenarios();
  std::size_t compared = 0;
  for (const Scenario& s : all) {
    INFO(s.describe());
    const Outcome solo = run_scenario(s, false);
    const Outcome general = run_scenario(s, true);
    CHECK(solo.events == general.events);
    CHECK(solo.trail == general.trail);
    CHECK(solo.error == general.error);
    CHECK(solo.held == general.held);
    ++compared;
  }
  CHECK(compared == all.size());
  // Per initial list and thrower: the plain run, then for each new list ({}
  // once; {B} and {B, C} with and without B.after throwing) 2 body
  // replacements, and 7 passes x 4 hook replacements when there is an A.
  // All of it with and without a manager, plus 2 invalidation-hook throws,
  // for both pipelines.
  CHECK(all.size() == 2 * (2 * (3 * (1 + 2 * (1 + 2 * 2)) + 2 * 3 * (1 + (7 * 4 + 2) * (1 + 2 * 2))) + 2));
}

TEST_CASE("solo loop: a replacement ends the instrument's part; the new list's hooks take over from the next phase") {
  // One scenario spelled out, so the agreement above is known to test something.
  const Scenario s{1, At::before, "R", 1, false, ""};
  const Outcome out = run_scenario(s, false);
  const std::vector<std::string> expected{"A.should_run(sequential)",
                                          "A.before(sequential)",
                                          "A.should_run(P1)",
                                          "A.before(P1)",
                                          "P1",
                                          "A.after(P1)",
                                          "A.should_run(R)",
                                          "A.before(R)",
                                          "A.exit",
                                          "B.enter",
                                          "replaced",
                                          "A destroyed",
                                          "R",
                                          "B.after(R)",
                                          "B.should_run(Q)",
                                          "B.before(Q)",
                                          "Q",
                                          "B.after(Q)",
                                          "B.should_run(Req)",
                                          "B.before(Req)",
                                          "Req",
                                          "B.after(Req)",
                                          "B.should_run(P3)",
                                          "B.before(P3)",
                                          "P3",
                                          "B.after(P3)",
                                          "B.should_run(P4)",
                                          "B.before(P4)",
                                          "P4",
                                          "B.after(P4)",
                                          "B.after(sequential)",
                                          "context ends",
                                          "B destroyed"};
  CHECK(out.events == expected);
  CHECK(out.trail == std::vector<std::string>{"P1", "R", "Q", "Req", "P3", "P4"});
  CHECK(out.held == std::vector<std::string>{"B"});
}

TEST_CASE("solo loop: under an analysis manager, each body's invalidation comes before its run_after_pass") {
  // Spelled out, as above: the solo loop (one instrument, no names listed)
  // with a manager, and the cache emptied by a body that throws.
  Scenario s{1, At::nothing, "", 0, false, "P4"};
  s.managed = true;
  const Outcome out = run_scenario(s, false);
  const std::vector<std::string> expected{"A.should_run(sequential)",
                                          "A.before(sequential)",
                                          "A.should_run(P1)",
                                          "A.before(P1)",
                                          "P1",
                                          "A.before_analysis(TrailLength)",
                                          "compute TrailLength",
                                          "A.after_analysis(TrailLength)",
                                          "P1 reads 0",
                                          "A.invalidated(TrailLength)",  // P1 keeps nothing
                                          "A.after(P1)",
                                          "A.should_run(R)",
                                          "A.before(R)",
                                          "R",
                                          "A.before_analysis(TrailLength)",
                                          "compute TrailLength",
                                          "A.after_analysis(TrailLength)",
                                          "R reads 1",
                                          "A.invalidated(TrailLength)",
                                          "A.after(R)",
                                          "A.should_run(Q)",  // Req's required pass, through run()
                                          "A.before(Q)",
                                          "Q",
                                          "A.before_analysis(TrailLength)",
                                          "compute TrailLength",
                                          "A.after_analysis(TrailLength)",
                                          "Q reads 2",
                                          "A.invalidated(TrailLength)",
                                          "A.after(Q)",
                                          "A.should_run(Req)",
                                          "A.before(Req)",
                                          "Req",
                                          "A.before_analysis(TrailLength)",
                                          "compute TrailLength",
                                          "A.after_analysis(TrailLength)",
                                          "Req reads 3",
                                          "A.invalidated(TrailLength)",
                                          "A.after(Req)",
                                          "A.should_run(P3)",
                                          "A.before(P3)",
                                          "P3",
                                          "A.before_analysis(TrailLength)",
                                          "compute TrailLength",
                                          "A.after_analysis(TrailLength)",
                                          "P3 reads 4",  // P3 marks it preserved: kept (and now stale)
                                          "A.after(P3)",
                                          "A.should_run(P4)",
                                          "A.before(P4)",
                                          "P4",
                                          "P4 reads 4",                  // cached
                                          "A.invalidated(TrailLength)",  // P4 threw: the cache is cleared ...
                                          "A.failed(P4)",                // ... before run_after_pass_failed
                                          "A.failed(sequential)",
                                          "cached: 0",
                                          "context ends",
                                          "A destroyed"};
  CHECK(out.events == expected);
  CHECK(out.error == "P4 failed");
  CHECK(run_scenario(s, true).events == expected);  // the walk through the list agrees
}

TEST_CASE("solo loop: an invalidation hook that throws at a body's end is not the body's failure") {
  // The cache is cleared for a body that throws (SPEC §10.6), not for a
  // throw of end-of-pass invalidation; the walk through the list agrees.
  for (const bool plain : {false, true}) {
    Scenario s{1, At::nothing, "", 0, false, ""};
    s.managed = true;
    s.invalidated_throws = true;
    s.plain = plain;
    const Outcome out = run_scenario(s, false);
    CHECK(out.error == "A.invalidated failed");
    CHECK(out.trail.empty());
    // The hook's throw leaves P1 (not cleared again: the invalidation has
    // dropped the result) and then the pipeline.
    const std::vector<std::string> expected{"A.should_run(sequential)",
                                            "A.before(sequential)",
                                            "A.should_run(P1)",
                                            "A.before(P1)",
                                            "P1",
                                            "A.before_analysis(TrailLength)",
                                            "compute TrailLength",
                                            "A.after_analysis(TrailLength)",
                                            "P1 reads 0",
                                            "A.invalidated(TrailLength)",
                                            "A.failed(P1)",
                                            "A.failed(sequential)",
                                            "cached: 0",
                                            "context ends",
                                            "A destroyed"};
    CHECK(out.events == expected);
    CHECK(run_scenario(s, true).events == out.events);
  }
}
