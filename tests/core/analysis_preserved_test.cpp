// PreservedAnalyses and the declarations of passes (SPEC §10.3, §10.4).
#include <doctest/doctest.h>

#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

namespace {

using passinfra::PreservedAnalyses;
using pitest::Custom;
using pitest::FunctionSum;
using pitest::ModuleSum;
using pitest::Tagged;
using pitest::TestSet;
using OnModule = passinfra::all_analyses_on<passinfra::module_unit>;
using OnFunction = passinfra::all_analyses_on<passinfra::function_unit>;

struct OtherSet {};
struct InBoth {
  static constexpr passinfra::AnalysisInfo info{"InBoth"};
  using result_type = int;
  using sets = passinfra::analysis_sets<TestSet, OtherSet>;
  int run(const pitest::AModule&) const { return 0; }
};
struct InOther {
  static constexpr passinfra::AnalysisInfo info{"InOther"};
  using unit = passinfra::function_unit;
  using result_type = int;
  using sets = passinfra::analysis_sets<OtherSet>;
  int run(const pitest::AFunc&, const pitest::AModule&) const { return 0; }
};

}  // namespace

TEST_CASE("analysis_preserved: none() keeps nothing and all() keeps everything (SPEC §10.3)") {
  const auto none = PreservedAnalyses::none();
  CHECK(none.is_none());
  CHECK_FALSE(none.is_all());
  CHECK_FALSE(none.preserved<ModuleSum>());
  CHECK_FALSE(none.preserved<TestSet>());
  const auto all = PreservedAnalyses::all();
  CHECK(all.is_all());
  CHECK_FALSE(all.is_none());
  CHECK(all.preserved<ModuleSum>());
  CHECK(all.preserved<FunctionSum>());
  CHECK(all.preserved<TestSet>());  // a tag: "all" or itself
}

TEST_CASE("analysis_preserved: an analysis named is kept, others are not (SPEC §10.3)") {
  PreservedAnalyses pa;
  pa.preserve<ModuleSum>();
  CHECK(pa.preserved<ModuleSum>());
  CHECK_FALSE(pa.preserved<FunctionSum>());
  CHECK_FALSE(pa.is_none());
  CHECK_FALSE(pa.is_all());
  CHECK(pa.preserved(passinfra::analysis_key<ModuleSum>));
}

TEST_CASE("analysis_preserved: all_analyses_on<unit> keeps every analysis of that unit only (SPEC §10.3)") {
  auto pa = PreservedAnalyses::all_in<OnFunction>();
  CHECK(pa.preserved<FunctionSum>());
  CHECK(pa.preserved<InOther>());
  CHECK_FALSE(pa.preserved<ModuleSum>());
  auto pm = PreservedAnalyses::all_in<OnModule>();
  CHECK(pm.preserved<ModuleSum>());
  CHECK(pm.preserved<Tagged>());
  CHECK_FALSE(pm.preserved<FunctionSum>());
}

TEST_CASE("analysis_preserved: a set tag keeps its members (unlike LLVM) and only them (SPEC §10.3)") {
  auto pa = PreservedAnalyses::all_in<TestSet>();
  CHECK(pa.preserved<Tagged>());
  CHECK(pa.preserved<InBoth>());
  CHECK_FALSE(pa.preserved<InOther>());
  CHECK_FALSE(pa.preserved<ModuleSum>());
  CHECK(pa.preserved<TestSet>());
  CHECK_FALSE(pa.preserved<OtherSet>());
}

TEST_CASE("analysis_preserved: abandon wins over all, sets, units and the analysis itself (SPEC §10.3)") {
  auto all = PreservedAnalyses::all();
  all.abandon<ModuleSum>();
  CHECK_FALSE(all.preserved<ModuleSum>());
  CHECK(all.preserved<Tagged>());
  CHECK_FALSE(all.is_all());  // the flag is set, but something is abandoned
  auto set = PreservedAnalyses::all_in<TestSet>();
  set.abandon<Tagged>();
  CHECK_FALSE(set.preserved<Tagged>());
  CHECK(set.preserved<InBoth>());
  PreservedAnalyses named;
  named.preserve<ModuleSum>().abandon<ModuleSum>();
  CHECK_FALSE(named.preserved<ModuleSum>());
  named.preserve<ModuleSum>();  // preserving again does not undo the abandon
  CHECK_FALSE(named.preserved<ModuleSum>());
  auto unit = PreservedAnalyses::all_in<OnModule>();
  unit.abandon<Tagged>();
  CHECK_FALSE(unit.preserved<Tagged>());
  CHECK(unit.preserved<ModuleSum>());
}

TEST_CASE("analysis_preserved: a tag that is not an analysis is kept only by all or by itself (SPEC §10.3)") {
  PreservedAnalyses pa;
  pa.preserve<Tagged>();  // a member does not keep its set
  CHECK_FALSE(pa.preserved<TestSet>());
  pa.preserve<TestSet>();
  CHECK(pa.preserved<TestSet>());
  pa.abandon<TestSet>();
  CHECK_FALSE(pa.preserved<TestSet>());
  CHECK(PreservedAnalyses::all().preserved<OnModule>());
  CHECK_FALSE(PreservedAnalyses::all_in<TestSet>().preserved<OnModule>());
}

TEST_CASE("analysis_preserved: intersect keeps what both keep, by meaning (SPEC §10.3)") {
  SUBCASE("named and named") {
    PreservedAnalyses a, b;
    a.preserve<ModuleSum, Tagged>();
    b.preserve<ModuleSum, FunctionSum>();
    a.intersect(b);
    CHECK(a.preserved<ModuleSum>());
    CHECK_FALSE(a.preserved<Tagged>());
    CHECK_FALSE(a.preserved<FunctionSum>());
  }
  SUBCASE("disjoint names give none") {
    PreservedAnalyses a, b;
    a.preserve<ModuleSum>();
    b.preserve<Tagged>();
    a.intersect(b);
    CHECK(a.is_none());
  }
  SUBCASE("a set on one side and a member named on the other keep that member") {
    auto a = PreservedAnalyses::all_in<TestSet>();
    PreservedAnalyses b;
    b.preserve<Tagged, ModuleSum>();
    a.intersect(b);
    CHECK(a.preserved<Tagged>());
    CHECK_FALSE(a.preserved<ModuleSum>());
    CHECK_FALSE(a.preserved<InBoth>());
    PreservedAnalyses c;
    c.preserve<Tagged>();
    c.intersect(PreservedAnalyses::all_in<TestSet>());
    CHECK(c.preserved<Tagged>());
  }
  SUBCASE("two different sets keep the analyses in both") {
    auto a = PreservedAnalyses::all_in<TestSet>();
    a.intersect(PreservedAnalyses::all_in<OtherSet>());
    CHECK(a.preserved<InBoth>());
    CHECK_FALSE(a.preserved<Tagged>());
    CHECK_FALSE(a.preserved<InOther>());
    auto u = PreservedAnalyses::all_in<OnModule>();
    u.intersect(PreservedAnalyses::all_in<TestSet>());
    CHECK(u.preserved<Tagged>());
    CHECK(u.preserved<InBoth>());
    CHECK_FALSE(u.preserved<ModuleSum>());
  }
  SUBCASE("all with something is that something; abandons of either side stay") {
    auto a = PreservedAnalyses::all();
    a.abandon<Tagged>();
    PreservedAnalyses b;
    b.preserve<ModuleSum, Tagged>();
    a.intersect(b);
    CHECK(a.preserved<ModuleSum>());
    CHECK_FALSE(a.preserved<Tagged>());
    CHECK_FALSE(a.preserved<FunctionSum>());
    auto c = PreservedAnalyses::all();
    auto d = PreservedAnalyses::all();
    d.abandon<ModuleSum>();
    c.intersect(d);
    CHECK_FALSE(c.preserved<ModuleSum>());
    CHECK(c.preserved<Tagged>());
  }
  SUBCASE("a tag is kept only when both sides keep it") {
    auto a = PreservedAnalyses::all_in<TestSet>();
    a.intersect(PreservedAnalyses::all_in<OtherSet>());
    CHECK_FALSE(a.preserved<TestSet>());
    auto b = PreservedAnalyses::all_in<TestSet>();
    b.intersect(PreservedAnalyses::all_in<TestSet>());
    CHECK(b.preserved<TestSet>());
    CHECK(b.preserved<Tagged>());
  }
}

TEST_CASE("analysis_preserved: unite keeps what either keeps, abandons of either win (SPEC §10.4 marks)") {
  auto a = PreservedAnalyses::all_in<TestSet>();
  a.intersect(PreservedAnalyses::all_in<OtherSet>());  // InBoth only
  PreservedAnalyses b;
  b.preserve<ModuleSum>();
  a.unite(b);
  CHECK(a.preserved<InBoth>());
  CHECK(a.preserved<ModuleSum>());
  CHECK_FALSE(a.preserved<Tagged>());
  a.unite(PreservedAnalyses::all_in<TestSet>());
  CHECK(a.preserved<Tagged>());
  PreservedAnalyses c;
  c.abandon<ModuleSum>();
  a.unite(c);
  CHECK_FALSE(a.preserved<ModuleSum>());
  a.unite(PreservedAnalyses::all());
  CHECK(a.preserved<FunctionSum>());
  CHECK_FALSE(a.preserved<ModuleSum>());
}

namespace {
struct DeclaresSome {
  using preserves = passinfra::preserves<ModuleSum, TestSet>;
};
struct DeclaresAll {
  using preserves = passinfra::preserves_all;
};
struct DeclaresNothing {};
}  // namespace

TEST_CASE("analysis_preserved: preserved_analyses_of<P> is the declaration, a constant (SPEC §10.4)") {
  constinit static const PreservedAnalyses& some = passinfra::preserved_analyses_of<DeclaresSome>;
  CHECK(some.preserved<ModuleSum>());
  CHECK(some.preserved<Tagged>());
  CHECK_FALSE(some.preserved<FunctionSum>());
  CHECK(passinfra::preserved_analyses_of<DeclaresAll>.is_all());
  CHECK(passinfra::preserved_analyses_of<DeclaresNothing>.is_none());
  static_assert(passinfra::declares_preserves_all<DeclaresAll>);
  static_assert(!passinfra::declares_preserves_all<DeclaresSome>);
  static_assert(passinfra::declares_preserves_nothing<DeclaresNothing>);
  static_assert(passinfra::declares_preserves_all<passinfra::Sequential<>>);
}

TEST_CASE("analysis_preserved: is_invalidated replaces the default test (SPEC §10.4)") {
  CHECK(passinfra::HasIsInvalidated<Custom, PreservedAnalyses>);
  CHECK_FALSE(passinfra::HasIsInvalidated<ModuleSum, PreservedAnalyses>);
}
