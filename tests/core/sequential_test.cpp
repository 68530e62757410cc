// passinfra/core/sequential.hpp on the static layer: construction (types,
// values, CTAD, custom info), passes(), duplicates, run_required.
// (SPEC §4's ordering rules are in tests/spec/sequential_spec_test.cpp.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using passinfra::PassInfo;
using passinfra::requires_passes;
using passinfra::Sequential;
using namespace pitest;

namespace {

using A = TestPass<"A">;
using B = TestPass<"B", 1>;
using R = TestPass<"R">;
using NeedsR = TestPass<"NeedsR", 0, requires_passes<R, R>>;

// A pass with per-object state and info (as TVM's FuseOps(fuse_opt_level)).
struct AddN {
  int n = 1;
  PassInfo info() const { return {"AddN", n}; }
  TestIR transform(TestIR ir, auto&) const {
    ir.value += n;
    ir.trail.push_back("AddN" + std::to_string(n));
    return ir;
  }
};

}  // namespace

TEST_CASE("core/sequential: default info is 'sequential', opt_level 0") {
  Sequential<A, B> seq;
  CHECK(seq.info() == PassInfo{"sequential", 0});
  CHECK(Sequential<A, B>::default_info == PassInfo{"sequential", 0});
  static_assert(Sequential<>{}.info().name == "sequential");
}

TEST_CASE("core/sequential: CTAD from values keeps the types and the objects' state") {
  Sequential seq{AddN{2}, A{}, AddN{0}};
  static_assert(std::is_same_v<decltype(seq), Sequential<AddN, A, AddN>>);
  CHECK(seq.child<0>().n == 2);
  CHECK(seq.child<2>().n == 0);
  static_assert(decltype(seq)::size == 3);
  static_assert(std::is_same_v<decltype(seq.passes()), std::tuple<const AddN&, const A&, const AddN&>>);
  CHECK(&std::get<0>(seq.passes()) == &seq.child<0>());  // references to the children, not copies
  CHECK(std::get<2>(seq.passes()).n == 0);
  auto ctx = passinfra::make_pass_context<TestIR>({});
  TestIR out = passinfra::run(seq, TestIR{nullptr, 100}, ctx);
  CHECK(out.value == 103);
  CHECK(out.trail == std::vector<std::string>{"AddN2", "A", "AddN0"});
}

TEST_CASE("core/sequential: Sequential(PassInfo, passes...) sets a custom name and opt_level") {
  Sequential custom(PassInfo{"MyPipeline", 3}, A{}, B{});
  static_assert(std::is_same_v<decltype(custom), Sequential<A, B>>);  // the PassInfo is not a child
  CHECK(custom.info() == PassInfo{"MyPipeline", 3});

  Sequential<A> only_info(PassInfo{"Named", 1}, A{});
  CHECK(only_info.info() == PassInfo{"Named", 1});
  Sequential<> empty_named(PassInfo{"EmptyNamed", 2});
  CHECK(empty_named.info() == PassInfo{"EmptyNamed", 2});
}

TEST_CASE("core/sequential: sequential(info, passes...) is the same as a function") {
  auto seq = passinfra::sequential({"Pipe", 1}, A{}, AddN{5});
  static_assert(std::is_same_v<decltype(seq), Sequential<A, AddN>>);
  CHECK(seq.info() == PassInfo{"Pipe", 1});
  const AddN five{5};
  auto from_lvalue = passinfra::sequential({"Pipe2", 0}, five);
  static_assert(std::is_same_v<decltype(from_lvalue), Sequential<AddN>>);
  CHECK(from_lvalue.child<0>().n == 5);
}

TEST_CASE("core/sequential: hooks see the custom name, and the custom opt_level gates a nested Sequential") {
  EventLog log;
  auto a = recorder("Rec", log);
  auto inner = passinfra::sequential({"Inner", 3}, A{});
  Sequential outer(PassInfo{"Outer", 0}, inner, B{});

  auto ctx2 = passinfra::make_pass_context<TestIR>({.opt_level = 2}, std::ref(a));
  TestIR out = passinfra::run(outer, TestIR{&log}, ctx2);
  CHECK(out.trail == std::vector<std::string>{"B"});  // Inner (opt_level 3) is skipped at 2
  CHECK(join(log.events, " / ") ==
        "Rec should_run Outer / Rec run_before_pass Outer / Rec should_run B / Rec run_before_pass B / B / "
        "Rec run_after_pass B / Rec run_after_pass Outer");

  log.clear();
  auto ctx3 = passinfra::make_pass_context<TestIR>({.opt_level = 3}, std::ref(a));
  out = passinfra::run(outer, TestIR{&log}, ctx3);
  CHECK(out.trail == std::vector<std::string>{"A", "B"});
  CHECK(log.events.at(2) == "Rec should_run Inner");

  log.clear();
  auto disabled = passinfra::make_pass_context<TestIR>({.opt_level = 3, .disabled_pass = {"Inner"}}, std::ref(a));
  CHECK(passinfra::run(outer, TestIR{&log}, disabled).trail == std::vector<std::string>{"B"});
}

TEST_CASE("core/sequential: duplicates are legal and each runs, with its required passes every time") {
  Sequential<A, A, NeedsR, NeedsR> seq;
  auto ctx = passinfra::make_pass_context<TestIR>({});
  TestIR out = passinfra::run(seq, TestIR{}, ctx);
  CHECK(out.trail == std::vector<std::string>{"A", "A", "R", "R", "NeedsR", "R", "R", "NeedsR"});
}

TEST_CASE("core/sequential: an empty Sequential returns its input, and still fires its own hooks") {
  EventLog log;
  auto a = recorder("Rec", log);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(a));
  TestIR out = passinfra::run(Sequential<>{}, TestIR{&log, 7, {"x"}}, ctx);
  CHECK(out.value == 7);
  CHECK(out.trail == std::vector<std::string>{"x"});
  CHECK(join(log.events, " / ") ==
        "Rec should_run sequential / Rec run_before_pass sequential / Rec run_after_pass sequential");
}

TEST_CASE("core/sequential: a Sequential is callable as seq(ir, ctx), and is a pass") {
  static_assert(passinfra::Pass<Sequential<A, NeedsR>>);
  static_assert(passinfra::HasPassInfoMember<Sequential<A>>);
  Sequential<A, B> seq;
  auto ctx = passinfra::make_pass_context<TestIR>({});
  CHECK(seq(TestIR{}, ctx).trail == std::vector<std::string>{"A", "B"});
}

TEST_CASE("core/sequential: run_required runs a child's required passes in order, instrumented, without the gate") {
  EventLog log;
  auto a = recorder("Rec", log);
  a.veto_only = {"NotThere"};
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 0, .disabled_pass = {"R"}}, std::ref(a));
  TestIR out = passinfra::run_required(NeedsR{}, TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"R", "R"});  // disabled_pass does not stop required passes
  CHECK(join(log.events, " / ") ==
        "Rec should_run R / Rec run_before_pass R / R / Rec run_after_pass R / Rec should_run R / "
        "Rec run_before_pass R / R / Rec run_after_pass R");
  // A pass without `required` runs nothing.
  log.clear();
  CHECK(passinfra::run_required(A{}, TestIR{&log}, ctx).trail.empty());
  CHECK(log.events.empty());
}

TEST_CASE("core/sequential: the Sequential's opt_level does not gate the Sequential itself when run directly") {
  auto seq = passinfra::sequential({"High", 4}, A{});
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 0});
  // run() applies no gate (SPEC 3): the Sequential (opt_level 4) runs at opt_level 0, and gates A (opt_level 0).
  CHECK(passinfra::run(seq, TestIR{}, ctx).trail == std::vector<std::string>{"A"});
}

// More children than clang's expression nesting limit (-fbracket-depth, 256)
// allows in one fold: Sequential walks them in chunks, so it compiles with
// the default limit on g++ and clang, and runs every child in order. (Plain
// int passes and no instrument: a 300-child pipeline is force-inlined into
// one function, which is slow to compile under the sanitizers otherwise.)
namespace {
template <std::size_t I>
struct Numbered {
  static constexpr PassInfo info{"Numbered", static_cast<int>(I % 4)};
  TestIR transform(TestIR ir, auto&) const {
    ir.value = (ir.value * 3 + static_cast<int>(I % 7)) % 1000003;  // no overflow
    return ir;
  }
};
template <std::size_t... I>
Sequential<Numbered<I>...> long_sequential(std::index_sequence<I...>) {
  return {};
}
}  // namespace

TEST_CASE("core/sequential: 300 children compile with the default nesting limits and run in order, gated") {
  constexpr std::size_t n = 300;
  const auto seq = long_sequential(std::make_index_sequence<n>{});
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 2});
  const TestIR out = passinfra::run(seq, TestIR{nullptr, 1}, ctx);
  int expected = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 4 <= 2) expected = (expected * 3 + static_cast<int>(i % 7)) % 1000003;  // opt_level 3: gated off
  }
  CHECK(out.value == expected);
}

// Under a context with pass hooks, a Sequential runs its children in blocks of
// detail::inline_block, one out-of-line function each (for compile time):
// 37 children are two full blocks and a partial one. Every rule of SPEC §3/§4
// holds across the block boundaries, on the fast path (no names listed) and
// the general one (names listed), under static and dynamic contexts.
namespace {
template <std::size_t I>
struct Indexed {
  static constexpr char name[] = {'N', static_cast<char>('0' + I / 10), static_cast<char>('0' + I % 10), '\0'};
  static constexpr PassInfo info{std::string_view(name, 3), static_cast<int>(I % 4)};
  TestIR transform(TestIR ir, auto&) const {
    ir.trail.emplace_back(info.name);
    return ir;
  }
};
template <std::size_t... I>
Sequential<Indexed<I>...> indexed_sequential(std::index_sequence<I...>) {
  return {};
}
constexpr std::size_t kIndexed = 37;
static_assert(kIndexed > 2 * passinfra::detail::inline_block);

std::string indexed_name(std::size_t i) { return "N" + std::to_string(i / 10) + std::to_string(i % 10); }

// What SPEC §3/§4 say recorder `R` sees, and the trail, for opt_level 2.
void expect_indexed_run(const EventLog& log, const TestIR& out, const std::vector<std::string>& disabled,
                        const std::vector<std::string>& required, const std::vector<std::string>& vetoed) {
  const auto listed = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  std::vector<std::string> events{"R should_run sequential", "R run_before_pass sequential"};
  std::vector<std::string> trail;
  for (std::size_t i = 0; i < kIndexed; ++i) {
    const std::string name = indexed_name(i);
    const bool enabled = listed(required, name) || (!listed(disabled, name) && i % 4 <= 2);
    if (!enabled) continue;
    if (!listed(required, name)) {
      events.push_back("R should_run " + name);
      if (listed(vetoed, name)) continue;
    }
    events.push_back("R run_before_pass " + name);
    events.push_back("R run_after_pass " + name);
    trail.push_back(name);
  }
  events.emplace_back("R run_after_pass sequential");
  CHECK(log.events == events);
  CHECK(out.trail == trail);
}
}  // namespace

TEST_CASE("core/sequential: more children than one inline block keep SPEC order, gates and vetoes") {
  const auto seq = indexed_sequential(std::make_index_sequence<kIndexed>{});
  const std::vector<std::string> vetoed{"N05", "N16", "N32"};  // one per block
  struct Case {
    const char* what;
    std::vector<std::string> disabled, required;
  };
  const std::vector<Case> cases{
      {"fast path: no names listed", {}, {}},
      {"general path: names listed", {"N01", "N17", "N34"}, {"N03", "N16", "N35"}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const passinfra::PassContextOptions options{
        .opt_level = 2, .required_pass = c.required, .disabled_pass = c.disabled};
    for (const bool dynamic : {false, true}) {
      CAPTURE(dynamic);
      EventLog log;
      Recorder rec;
      rec.name = "R";
      rec.log = &log;
      rec.veto_only = vetoed;
      TestIR out;
      if (dynamic) {
        passinfra::PassContext<TestIR> ctx(options, {passinfra::AnyInstrument<TestIR>(std::ref(rec))});
        out = passinfra::run(seq, TestIR{&log}, ctx);
      } else {
        auto ctx = passinfra::make_pass_context<TestIR>(options, std::ref(rec));
        out = passinfra::run(seq, TestIR{&log}, ctx);
      }
      expect_indexed_run(log, out, c.disabled, c.required, vetoed);
    }
  }
}

// A block whose children all have a static PassInfo runs as one fold (no
// function per child); a block with any other child steps through them one
// by one. Both in one Sequential: child N20 gives its PassInfo per object.
namespace {
template <std::size_t I>
struct IndexedByObject {
  PassInfo info() const { return Indexed<I>::info; }
  TestIR transform(TestIR ir, auto& ctx) const { return Indexed<I>{}.transform(std::move(ir), ctx); }
};
template <std::size_t... I, std::size_t... J>
Sequential<Indexed<I>..., IndexedByObject<20>, Indexed<21 + J>...> mixed_sequential(std::index_sequence<I...>,
                                                                                    std::index_sequence<J...>) {
  return {};
}
}  // namespace

TEST_CASE("core/sequential: blocks of plain children and a block with a per-object PassInfo keep SPEC order") {
  const auto seq = mixed_sequential(std::make_index_sequence<20>{}, std::make_index_sequence<kIndexed - 21>{});
  static_assert(decltype(seq)::size == kIndexed);
  const std::vector<std::string> vetoed{"N05", "N20", "N32"};
  EventLog log;
  Recorder rec;
  rec.name = "R";
  rec.log = &log;
  rec.veto_only = vetoed;
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 2}, std::ref(rec));
  const TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
  expect_indexed_run(log, out, {}, {}, vetoed);
  Recorder plain;  // no veto: N20 runs
  plain.name = "R";
  EventLog log2;
  plain.log = &log2;
  auto ctx2 = passinfra::make_pass_context<TestIR>({.opt_level = 2}, std::ref(plain));
  expect_indexed_run(log2, passinfra::run(seq, TestIR{&log2}, ctx2), {}, {}, {});
}

// A block of plain children that hold state of their own (not stateless):
// each runs as its own object, on both paths.
namespace {
template <std::size_t I>
struct Weighted {
  static constexpr PassInfo info = Indexed<I>::info;
  int weight = 0;
  TestIR transform(TestIR ir, auto&) const {
    ir.trail.push_back(std::string(info.name) + "*" + std::to_string(weight));
    return ir;
  }
};
template <std::size_t... I>
Sequential<Weighted<I>...> weighted_sequential(std::index_sequence<I...>) {
  return Sequential<Weighted<I>...>(Weighted<I>{static_cast<int>(100 + I)}...);
}
}  // namespace

TEST_CASE("core/sequential: blocks of children with state run each child's own object") {
  const auto seq = weighted_sequential(std::make_index_sequence<kIndexed>{});
  for (const bool names_listed : {false, true}) {
    CAPTURE(names_listed);
    std::vector<std::string> disabled, expected;
    if (names_listed) disabled = {"N17"};
    for (std::size_t i = 0; i < kIndexed; ++i) {
      if (indexed_name(i) != "N17" || !names_listed)
        expected.push_back(indexed_name(i) + "*" + std::to_string(100 + i));
    }
    EventLog log;
    Recorder rec;
    rec.name = "R";
    rec.log = &log;
    auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 3, .disabled_pass = disabled}, std::ref(rec));
    CHECK(passinfra::run(seq, TestIR{&log}, ctx).trail == expected);
    // Without pass hooks all children run inline, 16 at a time (each_child).
    auto hook_free = passinfra::make_pass_context<TestIR>({.opt_level = 3, .disabled_pass = disabled});
    CHECK(passinfra::run(seq, TestIR{&log}, hook_free).trail == expected);
  }
}

namespace {
struct Uninitialized {  // a pass whose state has no initializer of its own
  static constexpr PassInfo info{"Uninitialized", 0};
  int n;
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
}  // namespace

TEST_CASE("core/sequential: children are value-initialized and empty children take no room") {
  const Sequential<Uninitialized, A> seq;
  CHECK(seq.child<0>().n == 0);
  static_assert(sizeof(Sequential<A, B, A>) == sizeof(Sequential<>));
}

// A Sequential reaches its context's instruments through a hook_view made
// once per run (or block of children); the view must still see the set's
// cleared state as it changes. Here a child's body enters the context, the
// enter hook throws (SPEC §5.1 clears the instruments) and the body catches
// the error: no hook fires after that, in the same block of children or a
// later one, for instruments held by reference or by value, and the passes
// after it still run.
namespace {
struct EntersFailingScope {
  static constexpr PassInfo info{"EntersFailingScope", 0};
  TestIR transform(TestIR ir, auto& ctx) const {
    try {
      auto scope = ctx.enter();
    } catch (const TestError&) {
      ir.trail.emplace_back("caught");
    }
    return ir;
  }
};
template <std::size_t... I, std::size_t... J>
Sequential<Indexed<I>..., EntersFailingScope, Indexed<sizeof...(I) + J>...> clearing_sequential(
    std::index_sequence<I...>, std::index_sequence<J...>) {
  return {};
}
using ClearingInline = decltype(clearing_sequential(std::make_index_sequence<1>{}, std::make_index_sequence<1>{}));
using ClearingBlocks = decltype(clearing_sequential(std::make_index_sequence<20>{}, std::make_index_sequence<17>{}));
}  // namespace

// Short names for the test names (doctest spells a type out in full: the
// 38-child one was ~1,000 characters, and ctest pads every line to the
// longest name).
TYPE_TO_STRING_AS("3 children", ClearingInline);
TYPE_TO_STRING_AS("38 children, in blocks", ClearingBlocks);

TEST_CASE_TEMPLATE("core/sequential: instruments cleared by a child's body call no further hook in the run", Seq,
                   ClearingInline, ClearingBlocks) {
  static_assert(Seq::size == 3 || Seq::size > 2 * passinfra::detail::inline_block);
  const std::size_t before = Seq::size == 3 ? 1 : 20;  // children before EntersFailingScope
  std::vector<std::string> events{"R should_run sequential", "R run_before_pass sequential"};
  std::vector<std::string> trail;
  for (std::size_t i = 0; i + 1 < Seq::size; ++i) {
    if (i == before) trail.emplace_back("caught");
    if (i % 4 == 3) continue;  // opt_level 3: gated off at opt_level 2
    if (i < before) {
      for (const char* hook : {"should_run ", "run_before_pass ", "run_after_pass "})
        events.push_back("R " + std::string(hook) + indexed_name(i));
    }
    trail.push_back(indexed_name(i));
  }
  for (const char* e :
       {"R should_run EntersFailingScope", "R run_before_pass EntersFailingScope", "R bad enter_pass_ctx!!!"})
    events.emplace_back(e);

  for (const std::string_view held : {"by reference", "by value", "in a run-time list"}) {
    CAPTURE(held);
    EventLog log;
    Recorder rec;
    rec.name = "R";
    rec.log = &log;
    rec.fail_at = Hook::enter;
    const Seq seq;
    TestIR out;
    if (held == "by reference") {
      auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 2}, std::ref(rec));
      out = passinfra::run(seq, TestIR{&log}, ctx);
      CHECK_FALSE(ctx.instrument_set().active());
    } else if (held == "by value") {
      auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 2}, rec);
      out = passinfra::run(seq, TestIR{&log}, ctx);
      CHECK_FALSE(ctx.instrument_set().active());
    } else {
      passinfra::PassContext<TestIR> ctx({.opt_level = 2}, {passinfra::AnyInstrument<TestIR>(std::ref(rec))});
      out = passinfra::run(seq, TestIR{&log}, ctx);
      CHECK(ctx.instruments().empty());
    }
    CHECK(log.events == events);
    CHECK(out.trail == trail);
  }
}
