// passinfra/core/pass_info.hpp: PassInfo and its text (SPEC §1), and the
// PassInfo every kind of static pass hands to hooks (info_of).
#include <doctest/doctest.h>

#include <array>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

using passinfra::PassInfo;
using passinfra::requires_passes;

namespace {

struct InferType {
  static constexpr PassInfo info{"InferType", 0};
  pitest::TestIR transform(pitest::TestIR ir, auto&) const { return ir; }
};

struct SimplifyInference {
  static constexpr PassInfo info{"SimplifyInference", 0};
  pitest::TestIR transform(pitest::TestIR ir, auto&) const { return ir; }
};

struct EliminateCommonSubexpr {
  static constexpr PassInfo info{"EliminateCommonSubexpr", 3};
  using required = requires_passes<InferType>;
  pitest::TestIR transform(pitest::TestIR ir, auto&) const { return ir; }
};

struct FoldScaleAxis {
  static constexpr PassInfo info{"FoldScaleAxis", 3};
  using required = requires_passes<InferType, SimplifyInference>;
  pitest::TestIR transform(pitest::TestIR ir, auto&) const { return ir; }
};

// A pass whose info is per object (as FuseOps(level) is in TVM).
struct FuseOps {
  int level = 2;
  passinfra::PassInfo info() const { return {"FuseOps", level}; }
  using required = requires_passes<InferType>;
  pitest::TestIR transform(pitest::TestIR ir, auto&) const { return ir; }
};

constexpr std::array<std::string_view, 2> kTwoNames{"InferType", "FoldConstant"};

}  // namespace

TEST_CASE("core/pass_info: to_string without required passes is SPEC 1's one line") {
  const PassInfo info{"InferType", 0};
  CHECK(passinfra::to_string(info) ==
        "The meta data of the pass - pass name: InferType, opt_level: 0, required passes: []\n");
  const PassInfo high{"FuseOps", 4};
  CHECK(passinfra::to_string(high) ==
        "The meta data of the pass - pass name: FuseOps, opt_level: 4, required passes: []\n");
}

TEST_CASE("core/pass_info: to_string with required passes puts each name on the next line, each followed by a comma") {
  const std::array<std::string_view, 1> one{"InferType"};
  const PassInfo cse{"EliminateCommonSubexpr", 3, one};
  CHECK(passinfra::to_string(cse) ==
        "The meta data of the pass - pass name: EliminateCommonSubexpr, opt_level: 3, required passes: [\n"
        "InferType, ]\n");
  const PassInfo two{"FoldScaleAxis", 3, kTwoNames};
  CHECK(passinfra::to_string(two) ==
        "The meta data of the pass - pass name: FoldScaleAxis, opt_level: 3, required passes: [\n"
        "InferType, FoldConstant, ]\n");
}

TEST_CASE("core/pass_info: operator<< prints the same text as to_string") {
  const PassInfo info{"FoldScaleAxis", 3, kTwoNames};
  std::ostringstream os;
  os << info << PassInfo{"X", 1};
  CHECK(os.str() == passinfra::to_string(info) + passinfra::to_string(PassInfo{"X", 1}));
}

TEST_CASE("core/pass_info: defaults and equality compare name, opt_level and the required names") {
  constexpr PassInfo empty{};
  CHECK(empty.name.empty());
  CHECK(empty.opt_level == 0);
  CHECK(empty.required.empty());

  const std::array<std::string_view, 2> same_names{"InferType", "FoldConstant"};
  const std::array<std::string_view, 1> fewer{"InferType"};
  CHECK(PassInfo{"A", 1, kTwoNames} == PassInfo{"A", 1, same_names});  // compared by content
  CHECK_FALSE(PassInfo{"A", 1, kTwoNames} == PassInfo{"A", 1, fewer});
  CHECK_FALSE(PassInfo{"A", 1} == PassInfo{"A", 2});
  CHECK_FALSE(PassInfo{"A", 1} == PassInfo{"B", 1});
  static_assert(PassInfo{"A", 1} == PassInfo{"A", 1});
}

TEST_CASE("core/pass_info: info_of a static pass fills required from requires_passes, in order") {
  constexpr const PassInfo& cse = passinfra::info_of<EliminateCommonSubexpr>;
  static_assert(cse.name == "EliminateCommonSubexpr");
  static_assert(cse.opt_level == 3);
  static_assert(cse.required.size() == 1);
  CHECK(passinfra::to_string(cse) ==
        "The meta data of the pass - pass name: EliminateCommonSubexpr, opt_level: 3, required passes: [\n"
        "InferType, ]\n");

  const PassInfo& fsa = passinfra::info_of<FoldScaleAxis>;
  REQUIRE(fsa.required.size() == 2);
  CHECK(fsa.required[0] == "InferType");
  CHECK(fsa.required[1] == "SimplifyInference");
  CHECK(passinfra::to_string(fsa) ==
        "The meta data of the pass - pass name: FoldScaleAxis, opt_level: 3, required passes: [\n"
        "InferType, SimplifyInference, ]\n");

  // The static member itself is untouched, and a pass without `required` has none.
  CHECK(FoldScaleAxis::info.required.empty());
  CHECK(passinfra::info_of<InferType>.required.empty());
  CHECK(passinfra::to_string(passinfra::info_of<InferType>) ==
        "The meta data of the pass - pass name: InferType, opt_level: 0, required passes: []\n");
}

TEST_CASE("core/pass_info: info_of(p) works for static passes and for passes with an info() member") {
  // Static: the call returns the very same PassInfo object.
  const PassInfo& by_call = passinfra::info_of<FoldScaleAxis>(FoldScaleAxis{});
  CHECK(&by_call == &static_cast<const PassInfo&>(passinfra::info_of<FoldScaleAxis>));

  // Per object: the object's info() with required filled from `required`.
  const PassInfo fuse3 = passinfra::info_of<FuseOps>(FuseOps{3});
  CHECK(fuse3.name == "FuseOps");
  CHECK(fuse3.opt_level == 3);
  REQUIRE(fuse3.required.size() == 1);
  CHECK(fuse3.required[0] == "InferType");
  CHECK(passinfra::to_string(passinfra::info_of<FuseOps>(FuseOps{0})) ==
        "The meta data of the pass - pass name: FuseOps, opt_level: 0, required passes: [\nInferType, ]\n");
  // info_of<P> is the same for P, const P and P&.
  CHECK(passinfra::info_of<const FuseOps&>(FuseOps{1}).opt_level == 1);
}

TEST_CASE("core/pass_info: info_of<P> is P's for every cv and reference form of P, static or per object") {
  // Static without `required` (its own specialization), static with `required`
  // (filled in) and per object: the same answers through const, volatile,
  // const volatile, & and &&.
  const auto same_static = []<class P>(std::type_identity<P>) {
    static_assert(passinfra::info_of<const P> == passinfra::info_of<P>);
    static_assert(passinfra::info_of<volatile P> == passinfra::info_of<P>);
    static_assert(passinfra::info_of<const volatile P> == passinfra::info_of<P>);
    static_assert(passinfra::info_of<P&> == passinfra::info_of<P>);
    static_assert(passinfra::info_of<const P&> == passinfra::info_of<P>);
    static_assert(passinfra::info_of<P&&> == passinfra::info_of<P>);
    return static_cast<const PassInfo&>(passinfra::info_of<const volatile P&>);
  };
  CHECK(same_static(std::type_identity<InferType>{}) == PassInfo{"InferType", 0});
  const PassInfo fsa = same_static(std::type_identity<FoldScaleAxis>{});
  CHECK(fsa.name == "FoldScaleAxis");
  REQUIRE(fsa.required.size() == 2);
  CHECK(fsa.required[1] == "SimplifyInference");
  CHECK(passinfra::info_of<FuseOps&&>(FuseOps{2}) == passinfra::info_of<FuseOps>(FuseOps{2}));
  CHECK(passinfra::info_of<const volatile FuseOps>(FuseOps{2}).opt_level == 2);
}

TEST_CASE("core/pass_info: a Sequential prints as 'sequential' with opt_level 0, or with its custom info") {
  passinfra::Sequential<InferType, EliminateCommonSubexpr> seq;
  CHECK(passinfra::to_string(passinfra::info_of<decltype(seq)>(seq)) ==
        "The meta data of the pass - pass name: sequential, opt_level: 0, required passes: []\n");
  passinfra::Sequential custom(PassInfo{"MyPipeline", 3}, InferType{}, EliminateCommonSubexpr{});
  CHECK(passinfra::to_string(passinfra::info_of<decltype(custom)>(custom)) ==
        "The meta data of the pass - pass name: MyPipeline, opt_level: 3, required passes: []\n");
}
