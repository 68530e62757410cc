// Analyses by name (SPEC §10.8, §10.9): PassRegistry<IR>::add_analysis /
// analysis(name), and the pipeline-text utility passes require(analysis="X"),
// invalidate(analysis="X") and invalidate_all.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <passinfra/dynamic.hpp>

#include "support/analysis_ir.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using passinfra::AnalysisManager;
using passinfra::AnyAnalysis;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using Ctx = passinfra::PassContext<AModule>;
using Registry = passinfra::PassRegistry<AModule>;
using Rec = AnalysisRecorder<AModule>;

namespace {

// An analysis with state: factor * the number of functions.
struct Scaled {
  static constexpr passinfra::AnalysisInfo info{"Scaled"};
  using result_type = long;
  long factor = 1;
  long run(const AModule& m) const { return factor * static_cast<long>(m.functions.size()); }
};

// Another analysis type that claims the name "ModuleSum".
struct FakeSum {
  static constexpr passinfra::AnalysisInfo info{"ModuleSum"};
  using result_type = int;
  int run(const AModule&) const { return 0; }
};

void add_test_analyses(Registry& registry) {
  registry.add_analysis<ModuleSum>();
  registry.add_analysis<Derived>();
  registry.add_analysis(AnyAnalysis<AModule>(FunctionSum{}));
}

std::string caret_at(std::size_t column) { return "\n  " + std::string(column - 1, ' ') + "^"; }

}  // namespace

TEST_CASE("analysis registry: add_analysis registers by name; analysis(name) finds the same identity") {
  Registry registry;
  add_test_analyses(registry);
  CHECK(registry.analysis_names() == std::vector<std::string>{"Derived", "FunctionSum", "ModuleSum"});
  CHECK(registry.contains_analysis("ModuleSum"));
  CHECK_FALSE(registry.contains_analysis("modulesum"));
  const AnyAnalysis<AModule> sum = registry.analysis("ModuleSum");
  CHECK(sum.name() == "ModuleSum");
  CHECK(sum.key() == passinfra::analysis_key<ModuleSum>);
  CHECK_FALSE(sum.is_function());
  CHECK(registry.analysis("FunctionSum").is_function());
  // The same analysis again: nothing changes.
  registry.add_analysis<ModuleSum>();
  registry.add_analysis(AnyAnalysis<AModule>(ModuleSum{}));
  CHECK(registry.analysis_names().size() == 3);
  // The utility passes are registered with the first analysis, once.
  CHECK(registry.contains("require"));
  CHECK(registry.contains("invalidate"));
  CHECK(registry.contains("invalidate_all"));
  CHECK(registry.options("require") ==
        std::vector<passinfra::PassOptionSpec>{{"analysis", passinfra::ConfigType::string, std::nullopt}});
  CHECK(registry.options("invalidate_all").empty());
  CHECK(registry.describe_analyses() == "Derived\nFunctionSum (function analysis)\nModuleSum\n");
  // describe() names the analyses on the lines of the passes that take one.
  const std::string described = registry.describe();
  CHECK(described.find("require(analysis: string) - compute a registered analysis and cache it (runs as "
                       "require<Name>); analyses: Derived, FunctionSum, ModuleSum\n") != std::string::npos);
  CHECK(described.find("invalidate(analysis: string) - drop a registered analysis's cached results (runs as "
                       "invalidate<Name>); analyses: Derived, FunctionSum, ModuleSum\n") != std::string::npos);
  CHECK(described.find("invalidate_all - drop every cached analysis result (runs as invalidate<all>)\n") !=
        std::string::npos);
}

TEST_CASE("analysis registry: an unknown name is SPEC §10.8's Error, with the closest name and the registered ones") {
  Registry registry;
  CHECK_THROWS_WITH_AS(registry.analysis("ModuleSum"), "passinfra: unknown analysis 'ModuleSum' registered: (none)",
                       passinfra::Error);
  add_test_analyses(registry);
  CHECK_THROWS_WITH_AS(
      registry.analysis("ModuelSum"),
      "passinfra: unknown analysis 'ModuelSum'; did you mean 'ModuleSum'? registered: Derived, FunctionSum, ModuleSum",
      passinfra::Error);
  // Nothing close: no guess, still the list. Case is ignored; a name inside another is close.
  CHECK_THROWS_WITH_AS(registry.analysis("modulesum"),
                       "passinfra: unknown analysis 'modulesum'; did you mean 'ModuleSum'? registered: Derived, "
                       "FunctionSum, ModuleSum",
                       passinfra::Error);
  CHECK_THROWS_WITH_AS(registry.analysis("Sum"),
                       "passinfra: unknown analysis 'Sum'; did you mean 'FunctionSum'? registered: Derived, "
                       "FunctionSum, ModuleSum",
                       passinfra::Error);
  CHECK_THROWS_WITH_AS(registry.analysis("Zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"),
                       "passinfra: unknown analysis 'Zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' registered: Derived, FunctionSum, "
                       "ModuleSum",
                       passinfra::Error);
}

TEST_CASE("analysis registry: another analysis under a registered name, or a pass named require, is an Error") {
  Registry registry;
  registry.add_analysis<ModuleSum>();
  CHECK_THROWS_WITH_AS(registry.add_analysis<FakeSum>(),
                       doctest::Contains("analysis 'ModuleSum' is already registered by another analysis"),
                       passinfra::Error);
  CHECK(registry.analysis("ModuleSum").key() == passinfra::analysis_key<ModuleSum>);

  // A registry whose "require" is some other pass cannot hold analyses:
  // pipeline text would not know which `require` is meant.
  Registry taken;
  taken.add<Touch<"require">>();
  CHECK_THROWS_WITH_AS(taken.add_analysis<ModuleSum>(),
                       doctest::Contains("add_analysis registers the passes 'require', 'invalidate' and "
                                         "'invalidate_all' for pipeline text"),
                       passinfra::Error);
  CHECK_FALSE(taken.contains_analysis("ModuleSum"));
}

TEST_CASE("analysis registry: the utility passes' PassInfo names, their preserves and their printed text") {
  Registry registry;
  add_test_analyses(registry);
  const std::string text =
      "sequential(require(analysis=\"Derived\"),invalidate(analysis=\"ModuleSum\"),invalidate_all,"
      "require(analysis=\"FunctionSum\"))";
  const AnyPass<AModule> pipeline = passinfra::parse_pipeline<AModule>(text, registry);
  CHECK(passinfra::print_pipeline(pipeline) == text);
  CHECK(passinfra::canonical_pipeline(
            " sequential( require( analysis = \"Derived\" ) , invalidate(analysis=\"ModuleSum\"),"
            "invalidate_all, require(analysis=\"FunctionSum\") )") == text);
  const auto* seq = pipeline.target<passinfra::DynamicSequential<AModule>>();
  REQUIRE(seq != nullptr);
  REQUIRE(seq->passes().size() == 4);
  CHECK(seq->passes()[0].info().name == "require<Derived>");
  CHECK(seq->passes()[1].info().name == "invalidate<ModuleSum>");
  CHECK(seq->passes()[2].info().name == "invalidate<all>");
  CHECK(seq->passes()[3].info().name == "require<FunctionSum>");
  CHECK(seq->passes()[0].info().opt_level == 0);
  CHECK(seq->passes()[0].preserved_analyses().is_all());
  CHECK(seq->passes()[1].preserved_analyses().is_all());  // ... and its body abandons ModuleSum
  CHECK(seq->passes()[2].preserved_analyses().is_none());
}

TEST_CASE("analysis registry: require / invalidate / invalidate_all from pipeline text run SPEC §10's events") {
  Registry registry;
  add_test_analyses(registry);
  EventLog log;
  Rec rec{"r", &log};
  AnalysisManager<AModule> am;
  Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))}, &am);
  const AnyPass<AModule> pipeline = passinfra::parse_pipeline<AModule>(
      "sequential(require(analysis=\"Derived\"),invalidate(analysis=\"ModuleSum\"),require(analysis=\"FunctionSum\"),"
      "invalidate_all)",
      registry);
  AModule m = make_module(&log);
  runs().clear();
  m = passinfra::run(pipeline, std::move(m), ctx);
  CHECK(log.events == std::vector<std::string>{
                          "r before_pass sequential",
                          "r before_pass require<Derived>",
                          "r before_analysis Derived",
                          "run Derived",
                          "r before_analysis ModuleSum",
                          "run ModuleSum",
                          "r after_analysis ModuleSum",
                          "r after_analysis Derived",
                          "r after_pass require<Derived>",
                          // ModuleSum abandoned; Derived, computed from it, goes too.
                          "r before_pass invalidate<ModuleSum>",
                          "r invalidated ModuleSum",
                          "r invalidated Derived",
                          "r after_pass invalidate<ModuleSum>",
                          // A function analysis: for every function, in order.
                          "r before_pass require<FunctionSum>",
                          "r before_analysis FunctionSum@f",
                          "run FunctionSum@f",
                          "r after_analysis FunctionSum@f",
                          "r before_analysis FunctionSum@g",
                          "run FunctionSum@g",
                          "r after_analysis FunctionSum@g",
                          "r before_analysis FunctionSum@h",
                          "run FunctionSum@h",
                          "r after_analysis FunctionSum@h",
                          "r after_pass require<FunctionSum>",
                          "r before_pass invalidate<all>",
                          "r invalidated FunctionSum@f",
                          "r invalidated FunctionSum@g",
                          "r invalidated FunctionSum@h",
                          "r after_pass invalidate<all>",
                          "r after_pass sequential",
                      });
  CHECK(am.empty());

  // A second require of a cached result fires nothing but the pass hooks.
  log.clear();
  const AnyPass<AModule> twice = passinfra::parse_pipeline<AModule>(
      "sequential(require(analysis=\"ModuleSum\"),require(analysis=\"ModuleSum\"))", registry);
  m = passinfra::run(twice, std::move(m), ctx);
  CHECK(log.events == std::vector<std::string>{"r before_pass sequential", "r before_pass require<ModuleSum>",
                                               "r before_analysis ModuleSum", "run ModuleSum",
                                               "r after_analysis ModuleSum", "r after_pass require<ModuleSum>",
                                               "r before_pass require<ModuleSum>", "r after_pass require<ModuleSum>",
                                               "r after_pass sequential"});
  // The result is the manager's entry, the one get<A> finds.
  CHECK(am.get_cached<ModuleSum>() != nullptr);
}

TEST_CASE("analysis registry: the utility passes do nothing under a context without a manager") {
  Registry registry;
  add_test_analyses(registry);
  EventLog log;
  Rec rec{"r", &log};
  Ctx ctx({}, {AnyInstrument<AModule>(std::ref(rec))});
  AModule m = make_module(&log);
  runs().clear();
  m = passinfra::run(
      passinfra::parse_pipeline<AModule>(
          "sequential(require(analysis=\"ModuleSum\"),invalidate(analysis=\"ModuleSum\"),invalidate_all)", registry),
      std::move(m), ctx);
  CHECK(runs().empty());
  CHECK(log.events.size() == 8);  // the pass hooks of the sequential and its three children
}

TEST_CASE("analysis registry: require computes with the manager's own object, not the registry's") {
  Registry registry;
  registry.add_analysis(AnyAnalysis<AModule>(Scaled{10}));
  const AnyPass<AModule> require = passinfra::parse_pipeline<AModule>("require(analysis=\"Scaled\")", registry);
  const AModule m = make_module();
  SUBCASE("the manager was given an object: it computes with it") {
    AnalysisManager<AModule> am;
    CHECK(am.add(Scaled{3}));
    Ctx ctx({}, {}, &am);
    (void)passinfra::run(require, m, ctx);
    REQUIRE(am.get_cached<Scaled>() != nullptr);
    CHECK(*am.get_cached<Scaled>() == 9);
  }
  SUBCASE("none given: Scaled{} computes, as for get<Scaled>") {
    AnalysisManager<AModule> am;
    Ctx ctx({}, {}, &am);
    (void)passinfra::run(require, m, ctx);
    REQUIRE(am.get_cached<Scaled>() != nullptr);
    CHECK(*am.get_cached<Scaled>() == 3);
    // The manager now knows the name too.
    CHECK(&am.get("Scaled", m).get<long>() == am.get_cached<Scaled>());
  }
}

TEST_CASE("analysis registry: pipeline text naming an unknown analysis is an Error at the option, with suggestions") {
  Registry registry;
  add_test_analyses(registry);
  const std::string text = "sequential(require(analysis=\"ModuelSum\"))";
  CHECK_THROWS_WITH_AS(passinfra::parse_pipeline<AModule>(text, registry),
                       ("passinfra: pipeline text, column 20: unknown analysis 'ModuelSum'; did you mean 'ModuleSum'? "
                        "registered: Derived, FunctionSum, ModuleSum\n  " +
                        text + caret_at(20))
                           .c_str(),
                       passinfra::Error);
  const std::string invalidate = "invalidate(analysis=\"Derivd\")";
  CHECK_THROWS_WITH_AS(passinfra::parse_pipeline<AModule>(invalidate, registry),
                       ("passinfra: pipeline text, column 12: unknown analysis 'Derivd'; did you mean 'Derived'? "
                        "registered: Derived, FunctionSum, ModuleSum\n  " +
                        invalidate + caret_at(12))
                           .c_str(),
                       passinfra::Error);
  // The option is required, and a string.
  CHECK_THROWS_WITH_AS(passinfra::parse_pipeline<AModule>("require", registry),
                       doctest::Contains("pass 'require' requires option 'analysis' (a string), which was not given"),
                       passinfra::Error);
  CHECK_THROWS_WITH_AS(passinfra::parse_pipeline<AModule>("require(analysis=3)", registry),
                       doctest::Contains("column 9: pass 'require': option 'analysis' expects a string"),
                       passinfra::Error);
  CHECK_THROWS_WITH_AS(passinfra::parse_pipeline<AModule>("invalidate_all(analysis=\"Derived\")", registry),
                       doctest::Contains("column 16: pass 'invalidate_all' takes no options"), passinfra::Error);
  // Created directly: the same message, without the text.
  CHECK_THROWS_WITH_AS(registry.create("require", {{"analysis", std::string("CalGraph")}}),
                       "passinfra: unknown analysis 'CalGraph' registered: Derived, FunctionSum, ModuleSum",
                       passinfra::Error);
}
