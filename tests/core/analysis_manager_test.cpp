// AnalysisManager used directly (SPEC §10.1, §10.2, §10.4 invalidation, §10.6 throwing analyses).
// Direct use fires no hook (SPEC §10.7).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

namespace {

using passinfra::PreservedAnalyses;
using pitest::AModule;
using pitest::Custom;
using pitest::Derived;
using pitest::FunctionSize;
using pitest::FunctionSum;
using pitest::ModuleSum;
using pitest::runs;
using pitest::Tagged;
using pitest::Total;

using Manager =
    passinfra::AnalysisManager<AModule, passinfra::analyses<Derived, FunctionSum, FunctionSize, Total, Tagged, Custom,
                                                            pitest::Throwing, pitest::NoEq>>;

std::vector<std::string> cached_names(const passinfra::AnalysisManager<AModule>& am) {
  std::vector<std::string> out;
  am.for_each_cached(
      [&](const passinfra::AnalysisInfo& info, const auto&) { out.push_back(pitest::analysis_text(info)); });
  return out;
}

struct Scaled {  // an analysis object with state
  static constexpr passinfra::AnalysisInfo info{"Scaled"};
  using result_type = long;
  long factor = 1;
  long run(const AModule& m) const { return factor * (m.version + 1); }
};

}  // namespace

TEST_CASE("analysis_manager: the closure of the listed analyses, dependencies first (SPEC §10.1)") {
  using L = passinfra::AnalysisManager<AModule, passinfra::analyses<Derived, Total>>::listed;
  static_assert(std::is_same_v<L, boost::mp11::mp_list<ModuleSum, Derived, FunctionSum, Total>>);
  static_assert(std::is_same_v<passinfra::dependency_closure_t<Total, FunctionSize, Derived>,
                               boost::mp11::mp_list<FunctionSum, Total, ModuleSum, FunctionSize, Derived>>);
  Manager am;
  CHECK(am.contains<ModuleSum>());  // in the closure
  CHECK(am.contains<Derived>());
  CHECK(am.empty());
}

TEST_CASE("analysis_manager: get computes once and caches at a fixed address (SPEC §10.2)") {
  runs().clear();
  Manager am;
  AModule m = pitest::make_module();
  CHECK(am.get_cached<ModuleSum>() == nullptr);
  const long& first = am.get<ModuleSum>(m);
  CHECK(first == 136);
  CHECK(runs()["ModuleSum"] == 1);
  const long& again = am.get<ModuleSum>(m);
  CHECK(&again == &first);
  CHECK(runs()["ModuleSum"] == 1);
  CHECK(am.get_cached<ModuleSum>() == &first);
  CHECK(am.size() == 1);
  m.version = 5;  // the manager does not look at the IR: the cached result stays (SPEC §10.1)
  CHECK(am.get<ModuleSum>(m) == 136);
}

TEST_CASE("analysis_manager: get_cached never computes (SPEC §10.2)") {
  runs().clear();
  Manager am;
  AModule m = pitest::make_module();
  CHECK(am.get_cached<Tagged>() == nullptr);
  CHECK(am.get_cached<FunctionSum>(m.functions[0]) == nullptr);
  CHECK(runs().empty());
  am.get<FunctionSum>(m, m.functions[0]);
  CHECK(am.get_cached<FunctionSum>(m.functions[0]) != nullptr);
  CHECK(am.get_cached<FunctionSum>(m.functions[1]) == nullptr);
}

TEST_CASE("analysis_manager: function results are keyed by the function key (SPEC §10.1)") {
  runs().clear();
  Manager am;
  AModule m = pitest::make_module();
  CHECK(am.get<FunctionSum>(m, m.functions[0]) == 6);
  CHECK(am.get<FunctionSum>(m, m.functions[1]) == 30);
  CHECK(runs()["FunctionSum@f"] == 1);
  CHECK(runs()["FunctionSum@g"] == 1);
  pitest::AFunc copy = m.functions[0];  // "the same function": same key, another object
  copy.body.push_back(99);
  CHECK(am.get<FunctionSum>(m, copy) == 6);
  CHECK(runs()["FunctionSum@f"] == 1);
  CHECK(am.size() == 2);
  CHECK(cached_names(am) == std::vector<std::string>{"FunctionSum@f", "FunctionSum@g"});
}

TEST_CASE("analysis_manager: dependencies are computed through deps and recorded as inputs (SPEC §10.1, §10.2)") {
  runs().clear();
  Manager am;
  AModule m = pitest::make_module();
  CHECK(am.get<Derived>(m) == 137);
  CHECK(runs()["ModuleSum"] == 1);
  CHECK(cached_names(am) == std::vector<std::string>{"ModuleSum", "Derived"});  // the input first
  CHECK(am.get<Total>(m) == 136);
  CHECK(cached_names(am) ==
        std::vector<std::string>{"ModuleSum", "Derived", "FunctionSum@f", "FunctionSum@g", "FunctionSum@h", "Total"});
  am.get<FunctionSize>(m, m.functions[1]);  // a function analysis reading a module one
  CHECK(runs()["ModuleSum"] == 1);
}

TEST_CASE("analysis_manager: invalidation drops what is not preserved, and what read a dropped result (SPEC §10.4)") {
  runs().clear();
  Manager am;
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  am.get<Tagged>(m);
  SUBCASE("the default test") {
    am.invalidate(PreservedAnalyses::none().preserve<ModuleSum, Derived>());
    CHECK(cached_names(am) == std::vector<std::string>{"ModuleSum", "Derived"});
  }
  SUBCASE("an input dropped drops its users, even preserved ones (cascade)") {
    am.invalidate(PreservedAnalyses::none().preserve<Derived, Tagged>());
    CHECK(cached_names(am) == std::vector<std::string>{"Tagged"});
    am.get<Derived>(m);
    CHECK(runs()["ModuleSum"] == 2);
    CHECK(runs()["Derived"] == 2);
  }
  SUBCASE("a user dropped keeps its inputs") {
    am.invalidate(PreservedAnalyses::none().preserve<ModuleSum, Tagged>());
    CHECK(cached_names(am) == std::vector<std::string>{"ModuleSum", "Tagged"});
  }
  SUBCASE("all keeps everything, abandon drops even under all") {
    am.invalidate(PreservedAnalyses::all());
    CHECK(am.size() == 3);
    am.invalidate(PreservedAnalyses::all().abandon<Tagged>());
    CHECK(cached_names(am) == std::vector<std::string>{"ModuleSum", "Derived"});
  }
  SUBCASE("a set tag keeps its members") {
    am.invalidate(PreservedAnalyses::all_in<pitest::TestSet>());
    CHECK(cached_names(am) == std::vector<std::string>{"Tagged"});
  }
}

TEST_CASE("analysis_manager: a module-level invalidation reaches every function result (SPEC §10.5)") {
  Manager am;
  AModule m = pitest::make_module();
  am.get<ModuleSum>(m);
  am.get<FunctionSum>(m, m.functions[0]);
  am.get<FunctionSum>(m, m.functions[2]);
  am.invalidate(PreservedAnalyses::all_in<passinfra::all_analyses_on<passinfra::module_unit>>());
  CHECK(cached_names(am) == std::vector<std::string>{"ModuleSum"});
  am.get<FunctionSum>(m, m.functions[0]);
  am.invalidate(PreservedAnalyses::all_in<passinfra::all_analyses_on<passinfra::function_unit>>());
  CHECK(cached_names(am) == std::vector<std::string>{"FunctionSum@f"});
}

TEST_CASE("analysis_manager: invalidate(fn, pa) drops that function's results and what read them (SPEC §10.5)") {
  Manager am;
  AModule m = pitest::make_module();
  am.get<Total>(m);
  am.get<ModuleSum>(m);
  am.get<FunctionSize>(m, m.functions[1]);
  SUBCASE("one function") {
    am.invalidate(m.functions[1], PreservedAnalyses::none());
    // FunctionSum@g dropped, and Total which read it; FunctionSize@g too (own test). ModuleSum stays.
    CHECK(cached_names(am) == std::vector<std::string>{"FunctionSum@f", "FunctionSum@h", "ModuleSum"});
  }
  SUBCASE("module results are out of its scope") {
    am.invalidate(m.functions[0], PreservedAnalyses::none().preserve<FunctionSum>());
    CHECK(am.size() == 6);
  }
}

TEST_CASE("analysis_manager: is_invalidated decides an analysis's own fate (SPEC §10.4)") {
  Manager am;
  AModule m = pitest::make_module();
  am.get<Custom>(m);
  am.invalidate(PreservedAnalyses::none().preserve<pitest::CustomTag>());
  CHECK(am.get_cached<Custom>() != nullptr);  // the default test would drop it
  am.invalidate(PreservedAnalyses::none());
  CHECK(am.get_cached<Custom>() == nullptr);
}

namespace {
struct ReadsCustom {
  static constexpr passinfra::AnalysisInfo info{"ReadsCustom"};
  using result_type = long;
  using depends_on = passinfra::depends_on<ModuleSum>;
  long run(const AModule&, auto& deps) const { return deps.template get<ModuleSum>(); }
  bool is_invalidated(const long&, const PreservedAnalyses&) const { return false; }  // "never"
};
}  // namespace

TEST_CASE("analysis_manager: is_invalidated cannot keep a result whose input is dropped (SPEC §10.4)") {
  passinfra::AnalysisManager<AModule, passinfra::analyses<ReadsCustom>> am;
  AModule m = pitest::make_module();
  am.get<ReadsCustom>(m);
  am.invalidate(PreservedAnalyses::none().preserve<pitest::Tagged>());
  CHECK(am.empty());
}

namespace {
struct Fails {
  static constexpr passinfra::AnalysisInfo info{"Fails"};
  using result_type = long;
  using depends_on = passinfra::depends_on<ModuleSum>;
  long run(const AModule&, auto& deps) const {
    (void)deps.template get<ModuleSum>();
    pitest::throw_test_error(9, "Fails");
  }
};
struct FailsFor {
  static constexpr passinfra::AnalysisInfo info{"FailsFor"};
  using unit = passinfra::function_unit;
  using result_type = long;
  long run(const pitest::AFunc& f, const AModule&) const {
    if (pitest::throwing_enabled() && f.name == "g") throw pitest::TestError(4);
    return 1;
  }
};
}  // namespace

TEST_CASE("analysis_manager: an analysis that throws caches nothing, its deps stay (SPEC §10.6)") {
  runs().clear();
  passinfra::AnalysisManager<AModule, passinfra::analyses<Fails>> am;
  AModule m = pitest::make_module();
  try {
    am.get<Fails>(m);
    FAIL("no exception");
  } catch (const pitest::TestError& e) {
    CHECK(e.id == 9);
    CHECK(std::current_exception() == pitest::last_thrown);  // the same object
  }
  CHECK(am.get_cached<Fails>() == nullptr);
  CHECK(cached_names(am) == std::vector<std::string>{"ModuleSum"});
  CHECK_THROWS_AS(am.get<Fails>(m), pitest::TestError);  // computed again
  CHECK(runs()["ModuleSum"] == 1);
}

TEST_CASE("analysis_manager: a failed function analysis leaves no entry behind (SPEC §10.6)") {
  pitest::throwing_enabled() = true;
  passinfra::AnalysisManager<AModule, passinfra::analyses<FailsFor>> am;
  AModule m = pitest::make_module();
  am.get<FailsFor>(m, m.functions[0]);
  CHECK_THROWS_AS(am.get<FailsFor>(m, m.functions[1]), pitest::TestError);
  CHECK(am.size() == 1);
  pitest::throwing_enabled() = false;
  CHECK(am.get<FailsFor>(m, m.functions[1]) == 1);
  CHECK(am.size() == 2);
}

TEST_CASE("analysis_manager: add sets the object of its type once (DESIGN manager members)") {
  passinfra::AnalysisManager<AModule, passinfra::analyses<Scaled>> am;
  AModule m = pitest::make_module();
  CHECK(am.add(Scaled{10}));
  CHECK_FALSE(am.add(Scaled{20}));  // the first add stays
  CHECK(am.get<Scaled>(m) == 10);
  passinfra::AnalysisManager<AModule, passinfra::analyses<Scaled>> fresh;
  CHECK(fresh.get<Scaled>(m) == 1);  // not added: Scaled{} computes
  CHECK(fresh.add(Scaled{3}));       // listing, or computing with A{}, is not adding
}

TEST_CASE("analysis_manager: clear, empty and size (DESIGN manager members)") {
  Manager am;
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  am.get<FunctionSum>(m, m.functions[0]);
  CHECK(am.size() == 3);
  CHECK_FALSE(am.empty());
  am.clear();
  CHECK(am.empty());
  CHECK(am.get_cached<ModuleSum>() == nullptr);
  CHECK(am.get_cached<FunctionSum>(m.functions[0]) == nullptr);
  am.get<Derived>(m);  // and computes again
  CHECK(am.size() == 2);
}

TEST_CASE("analysis_manager: for_each_cached and recompute, for the checker (SPEC §10.10)") {
  Manager am;
  AModule m = pitest::make_module();
  am.get<Derived>(m);
  am.get<FunctionSum>(m, m.functions[1]);
  am.get<pitest::NoEq>(m);
  std::vector<std::string> seen;
  am.for_each_cached([&](const passinfra::AnalysisInfo& info, const auto& result) {
    seen.push_back(pitest::analysis_text(info));
    CHECK(result.info() == info);
    auto again = am.recompute(info, m);
    CHECK(again.info() == info);
    if (info.name == "NoEq") {
      CHECK_FALSE(result.equals(again).has_value());
      CHECK(result.template target<long>() == nullptr);
    } else {
      CHECK(result.equals(again) == std::optional<bool>(true));
    }
  });
  CHECK(seen == std::vector<std::string>{"ModuleSum", "Derived", "FunctionSum@g", "NoEq"});
  CHECK(am.size() == 4);  // recompute caches nothing
  m.functions[1].body.push_back(1);
  auto changed = am.recompute({"FunctionSum", "g"}, m);
  CHECK(changed.get<long>() == 31);
  CHECK(am.get<FunctionSum>(m, m.functions[1]) == 30);
  CHECK_THROWS_WITH_AS(changed.get<int>(), doctest::Contains("analysis 'FunctionSum' has result type long"),
                       passinfra::Error);
  m.functions.erase(m.functions.begin() + 1);
  CHECK_FALSE(am.recompute({"FunctionSum", "g"}, m).has_value());  // no such function any more
  CHECK_THROWS_AS(am.recompute({"Tagged"}, m), passinfra::Error);  // not cached
}

namespace {
passinfra::AnalysisManager<AModule, passinfra::analyses<struct SelfLoop>>* loop_manager = nullptr;
struct SelfLoop {
  static constexpr passinfra::AnalysisInfo info{"SelfLoop"};
  using result_type = long;
  long run(const AModule& m) const { return loop_manager->get<SelfLoop>(m); }  // not through deps
};
}  // namespace

TEST_CASE("analysis_manager: an analysis requested while it is computed is a cycle Error (SPEC §10.8)") {
  passinfra::AnalysisManager<AModule, passinfra::analyses<SelfLoop>> am;
  loop_manager = &am;
  AModule m = pitest::make_module();
  CHECK_THROWS_WITH_AS(am.get<SelfLoop>(m), "passinfra: analysis dependency cycle: SelfLoop -> SelfLoop",
                       passinfra::Error);
  CHECK(am.empty());
  loop_manager = nullptr;
}

TEST_CASE("analysis_manager: by name, the same entry as by type (SPEC §10.9)") {
  Manager am;
  AModule m = pitest::make_module();
  const long& typed = am.get<ModuleSum>(m);
  const auto& erased = am.get("ModuleSum", m);
  CHECK(erased.target<long>() == &typed);
  CHECK(am.key_of("Derived") == passinfra::analysis_key<Derived>);
  const auto& fn = am.get("FunctionSum", m, m.functions[2]);
  CHECK(fn.get<long>() == 100);
  CHECK(fn.info().function == "h");
  CHECK(am.get_cached<FunctionSum>(m.functions[2]) == fn.target<long>());
  CHECK_THROWS_WITH_AS(am.get("ModuleSun", m),
                       doctest::Contains("unknown analysis 'ModuleSun'; did you mean 'ModuleSum'? registered: "),
                       passinfra::Error);
  CHECK_THROWS_WITH_AS(am.get("FunctionSum", m), doctest::Contains("is a function analysis"), passinfra::Error);
  CHECK_THROWS_WITH_AS(am.get("ModuleSum", m, m.functions[0]), doctest::Contains("is a module analysis"),
                       passinfra::Error);
}
