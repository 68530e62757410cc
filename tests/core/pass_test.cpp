// passinfra/core/pass.hpp: what a pass is (the named concepts), requires_passes
// and required_passes_t.
#include <doctest/doctest.h>

#include <string_view>
#include <type_traits>

#include <boost/mp11/list.hpp>
#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

using passinfra::PassInfo;
using passinfra::requires_passes;
using pitest::TestIR;

namespace pass_test {

struct Ctx {};  // any context type will do for HasTransform

struct A {
  static constexpr PassInfo info{"A", 1};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
struct B {
  static constexpr PassInfo info{"B", 2};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
struct NeedsAB {
  static constexpr PassInfo info{"NeedsAB", 1};
  using required = requires_passes<A, B>;
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
struct PerObject {
  PassInfo info() const { return {"PerObject", 0}; }
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
struct NoInfo {
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
struct BadRequired {
  static constexpr PassInfo info{"BadRequired", 0};
  using required = A;  // not requires_passes<...>
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
struct NonConstTransform {
  static constexpr PassInfo info{"NonConstTransform", 0};
  TestIR transform(TestIR ir, auto&) { return ir; }
};
struct OtherIR {};
struct WrongResult {
  static constexpr PassInfo info{"WrongResult", 0};
  OtherIR transform(TestIR, auto&) const { return {}; }
};
struct NotDefaultConstructible {
  explicit NotDefaultConstructible(int) {}
  static constexpr PassInfo info{"NotDefaultConstructible", 0};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};

// The named parts, one by one.
static_assert(passinfra::HasStaticPassInfo<A>);
static_assert(!passinfra::HasStaticPassInfo<PerObject>);
static_assert(passinfra::HasPassInfoMember<PerObject>);
static_assert(!passinfra::HasPassInfoMember<A>);
static_assert(passinfra::HasPassInfo<A> && passinfra::HasPassInfo<PerObject> && !passinfra::HasPassInfo<NoInfo>);
static_assert(passinfra::DeclaresRequired<NeedsAB> && passinfra::DeclaresRequired<BadRequired>);
static_assert(!passinfra::DeclaresRequired<A>);
static_assert(passinfra::HasValidRequired<A> && passinfra::HasValidRequired<NeedsAB>);
static_assert(!passinfra::HasValidRequired<BadRequired>);

// Pass<P>: an object type with a PassInfo and a valid `required`.
static_assert(passinfra::Pass<A> && passinfra::Pass<NeedsAB> && passinfra::Pass<PerObject>);
static_assert(!passinfra::Pass<NoInfo>);
static_assert(!passinfra::Pass<BadRequired>);
static_assert(!passinfra::Pass<int>);
static_assert(!passinfra::Pass<A&>);  // a reference is not an object type

// HasTransform / PassFor: the body must be const and return the IR.
static_assert(passinfra::HasTransform<A, TestIR, Ctx>);
static_assert(!passinfra::HasTransform<NonConstTransform, TestIR, Ctx>);
static_assert(!passinfra::HasTransform<WrongResult, TestIR, Ctx>);
static_assert(!passinfra::HasTransform<A, OtherIR, Ctx>);
static_assert(passinfra::PassFor<A, TestIR, Ctx>);
static_assert(!passinfra::PassFor<NoInfo, TestIR, Ctx>);  // has a body, no info

// RequirablePass: static info and default-constructible.
static_assert(passinfra::RequirablePass<A>);
static_assert(!passinfra::RequirablePass<PerObject>);
static_assert(!passinfra::RequirablePass<NotDefaultConstructible>);
static_assert(passinfra::Pass<NotDefaultConstructible>);

// Library passes are passes.
static_assert(passinfra::Pass<passinfra::Sequential<A, B>>);
static_assert(passinfra::Pass<passinfra::Sequential<>>);

}  // namespace pass_test

using namespace pass_test;

TEST_CASE("core/pass: requires_passes lists the types and names in order") {
  using R = requires_passes<B, A, B>;  // order kept, duplicates kept
  static_assert(std::is_same_v<R::list, boost::mp11::mp_list<B, A, B>>);
  static_assert(R::size == 3);
  CHECK(R::names[0] == "B");
  CHECK(R::names[1] == "A");
  CHECK(R::names[2] == "B");
  static_assert(requires_passes<>::size == 0);
  CHECK(requires_passes<>::names.empty());
}

TEST_CASE("core/pass: required_passes_t is the declared list, or the empty list") {
  static_assert(std::is_same_v<passinfra::required_passes_t<NeedsAB>, requires_passes<A, B>>);
  static_assert(std::is_same_v<passinfra::required_passes_t<A>, requires_passes<>>);
  const PassInfo& info = passinfra::info_of<NeedsAB>;
  REQUIRE(info.required.size() == 2);
  CHECK(info.required[0] == "A");
  CHECK(info.required[1] == "B");
  // The names are the very array of requires_passes (no copy per use).
  CHECK(info.required.data() == requires_passes<A, B>::names.data());
}

TEST_CASE("core/pass: info_of is usable in constant expressions for static passes") {
  constexpr std::string_view name = passinfra::info_of<NeedsAB>.name;
  constexpr int level = passinfra::info_of<B>.opt_level;
  constexpr std::size_t required = passinfra::info_of<NeedsAB>.required.size();
  CHECK(name == "NeedsAB");
  CHECK(level == 2);
  CHECK(required == 2);
}
