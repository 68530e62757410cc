// Function passes and analyses (SPEC §10.5): per-function invalidation after each call, then
// a module-level invalidation with (declaration ∪ the intersection of the per-function marks).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"
#include "support/func_ir.hpp"

namespace {

using passinfra::PreservedAnalyses;
using pitest::AFunc;
using pitest::AModule;
using pitest::EventLog;
using pitest::FunctionSum;
using pitest::ModuleSum;
using pitest::Total;
using Rec = pitest::AnalysisRecorder<AModule>;
using Manager = passinfra::AnalysisManager<AModule, passinfra::analyses<Total, ModuleSum, pitest::FunctionSize>>;
using Events = std::vector<std::string>;

Rec recorder(EventLog& log) {
  Rec r;
  r.name = "r";
  r.log = &log;
  return r;
}

std::vector<std::string> cached_names(const Manager& am) {
  std::vector<std::string> out;
  am.for_each_cached(
      [&](const passinfra::AnalysisInfo& info, const auto&) { out.push_back(pitest::analysis_text(info)); });
  return out;
}

void fill(Manager& am, const AModule& m) {
  am.get<Total>(m);  // FunctionSum@f, @g, @h, Total
  am.get<ModuleSum>(m);
}

}  // namespace

TEST_CASE(
    "analysis_function_pass: each function's results go right after its call, module results at the end (SPEC §10.5)") {
  EventLog log;
  Rec r = recorder(log);
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am, std::ref(r));
  AModule m = pitest::make_module();
  fill(am, m);
  std::vector<std::string> seen;
  auto fp = passinfra::function_pass({"FP", 0}, [&](AFunc fn, const AModule&, auto& c) {
    seen.push_back(fn.name + " " + std::to_string(c.analyses().template get_cached<FunctionSum>(fn) != nullptr));
    if (pitest::named(fn, "g")) c.analyses().preserve_all();
    return fn;
  });
  m = passinfra::run(fp, std::move(m), ctx);
  // f's result is gone before g is visited; g kept by its mark; h dropped.
  CHECK(seen == Events{"f 1", "g 1", "h 1"});
  CHECK(log.events == Events{"r before_pass FP", "r invalidated FunctionSum@f", "r invalidated Total",
                             "r invalidated FunctionSum@h", "r invalidated ModuleSum", "r after_pass FP"});
  // The module-level invalidation (none ∪ (none ∩ all ∩ none)) does not touch function results again.
  CHECK(cached_names(am) == Events{"FunctionSum@g"});
}

TEST_CASE("analysis_function_pass: marks for one function apply to that function (SPEC §10.5)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  fill(am, m);
  am.get<pitest::FunctionSize>(m, m.functions[0]);
  auto fp = passinfra::function_pass({"FP", 0}, [](AFunc fn, const AModule&, auto& c) {
    if (pitest::named(fn, "f")) c.analyses().template preserve<FunctionSum>();
    return fn;
  });
  m = passinfra::run(fp, std::move(m), ctx);
  // f: FunctionSum kept, FunctionSize dropped; g, h: dropped; Total read g's: dropped; ModuleSum: dropped at the end.
  CHECK(cached_names(am) == Events{"FunctionSum@f"});
}

TEST_CASE("analysis_function_pass: the intersection of the marks and the declaration at module level (SPEC §10.5)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  SUBCASE("every function marks ModuleSum: kept") {
    fill(am, m);
    auto fp = passinfra::function_pass({"FP", 0}, [](AFunc fn, const AModule&, auto& c) {
      c.analyses().template preserve<ModuleSum>();
      if (!pitest::named(fn, "g")) c.analyses().template preserve<FunctionSum>();
      return fn;
    });
    m = passinfra::run(fp, std::move(m), ctx);
    CHECK(cached_names(am) == Events{"FunctionSum@f", "FunctionSum@h", "ModuleSum"});
  }
  SUBCASE("one function does not: dropped") {
    fill(am, m);
    auto fp = passinfra::function_pass({"FP", 0}, [](AFunc fn, const AModule&, auto& c) {
      if (!pitest::named(fn, "h")) c.analyses().template preserve<ModuleSum>();
      return fn;
    });
    m = passinfra::run(fp, std::move(m), ctx);
    CHECK(am.empty());
  }
  SUBCASE("the declaration holds for every function and for the module") {
    fill(am, m);
    auto fp = passinfra::function_pass(
        {"FP", 0}, [](AFunc fn, const AModule&) { return fn; }, passinfra::preserves<ModuleSum, FunctionSum>{});
    m = passinfra::run(fp, std::move(m), ctx);
    CHECK(cached_names(am) == Events{"FunctionSum@f", "FunctionSum@g", "FunctionSum@h", "ModuleSum"});
  }
  SUBCASE("a module result that read a dropped function result goes with it, at once") {
    fill(am, m);
    std::vector<bool> total_cached;
    auto fp = passinfra::function_pass({"FP", 0}, [&](AFunc fn, const AModule&, auto& c) {
      total_cached.push_back(c.analyses().template get_cached<Total>() != nullptr);
      c.analyses().template preserve<ModuleSum, Total>();
      if (!pitest::named(fn, "g")) c.analyses().template preserve<FunctionSum>();
      return fn;
    });
    m = passinfra::run(fp, std::move(m), ctx);
    CHECK(total_cached == std::vector<bool>{true, true, false});
    CHECK(cached_names(am) == Events{"FunctionSum@f", "FunctionSum@h", "ModuleSum"});
  }
}

TEST_CASE("analysis_function_pass: functions the IR does not let through keep their results (SPEC §10.5)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  m.functions[2].external = true;
  fill(am, m);
  auto fp = passinfra::function_pass({"FP", 0}, [](AFunc fn, const AModule&) { return fn; });
  m = passinfra::run(fp, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"FunctionSum@h"});
}

TEST_CASE("analysis_function_pass: a function pass that visits no function preserves everything (SPEC §10.5)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  for (auto& f : m.functions) f.external = true;
  fill(am, m);
  auto fp = passinfra::function_pass({"FP", 0}, [](AFunc fn, const AModule&) { return fn; });
  m = passinfra::run(fp, std::move(m), ctx);
  CHECK(am.size() == 5);
}

TEST_CASE(
    "analysis_function_pass: a module pass that does not preserve a function analysis drops it for all functions (SPEC "
    "§10.5)") {
  Manager am;
  auto ctx = passinfra::make_pass_context<AModule>({}, am);
  AModule m = pitest::make_module();
  m.functions[2].external = true;
  fill(am, m);
  m = passinfra::run(pitest::Touch<"T", ModuleSum>{}, std::move(m), ctx);
  CHECK(cached_names(am) == Events{"ModuleSum"});
}

namespace {
struct Count {
  static constexpr passinfra::AnalysisInfo info{"Count"};
  using result_type = int;
  int run(const pitest::FuncModule& m) const { return static_cast<int>(m.functions.size()); }
};
}  // namespace

TEST_CASE("analysis_function_pass: the IR's follow-up pass is an ordinary nested run (SPEC §10.5)") {
  // FuncModule attaches CheckBodies as the follow-up; it has no function keys, so only module results exist.
  passinfra::AnalysisManager<pitest::FuncModule, passinfra::analyses<Count>> am;
  EventLog log;
  auto rec = pitest::func_recorder<pitest::FuncModule>("r", log);
  auto ctx = passinfra::make_pass_context<pitest::FuncModule>({}, am, std::ref(rec));
  pitest::FuncModule m;
  m.functions = {{"a", {1}}, {"b", {2}}};
  am.get<Count>(m);
  auto fp = passinfra::function_pass({"FP", 0}, [](pitest::Func fn, const pitest::FuncModule&, auto& c) {
    c.analyses().template preserve<Count>();
    return fn;
  });
  m = passinfra::run(fp, std::move(m), ctx);
  // CheckBodies declares nothing: its own run drops Count, whatever FP's marks said.
  CHECK(am.empty());
  CHECK(log.events == Events{"r should_run FP", "r run_before_pass FP", "r should_run CheckBodies",
                             "r run_before_pass CheckBodies", "r run_after_pass CheckBodies", "r run_after_pass FP"});
}

namespace {
struct SeesCount {
  passinfra::AnalysisManager<pitest::FuncModule, passinfra::analyses<Count>>* am;
  std::vector<std::string>* seen;
  void run_before_pass(const pitest::FuncModule&, const passinfra::PassInfo& info) {
    seen->push_back(std::string(info.name) + " " + std::to_string(am->get_cached<Count>() != nullptr));
  }
};
}  // namespace

TEST_CASE("analysis_function_pass: module results are invalidated before the follow-up pass runs (SPEC §10.5)") {
  passinfra::AnalysisManager<pitest::FuncModule, passinfra::analyses<Count>> am;
  std::vector<std::string> seen;
  auto ctx = passinfra::make_pass_context<pitest::FuncModule>({}, am, SeesCount{&am, &seen});
  pitest::FuncModule m;
  m.functions = {{"a", {1}}, {"b", {2}}};
  am.get<Count>(m);
  auto fp = passinfra::function_pass({"FP", 0}, [](pitest::Func fn, const pitest::FuncModule&) { return fn; });
  m = passinfra::run(fp, std::move(m), ctx);
  // The follow-up's instruments (a preservation checker) never see a result FP made stale.
  CHECK(seen == Events{"FP 1", "CheckBodies 0"});
}
