// The release build's code paths, in a debug test build.
//
// PASSINFRA_FORCE_INLINE follows NDEBUG (detail/inline.hpp), and with it
// PASSINFRA_GATE_FAST_PATH: the opt_level-only gate a Sequential or a Nest
// takes when no pass names are listed and the instruments are on. The test
// presets build without NDEBUG, so every other test file runs the general
// gate only; this file turns both on and runs SPEC §3/§4/§11.3 scenarios
// through the fast path and, in the same file, through the general one.
//
// Every pass type here is in an anonymous namespace, so the Sequential and
// Nest functions this file instantiates are its own (no other translation
// unit makes the same instantiation with the other setting).
#define PASSINFRA_FORCE_INLINE 1
#define PASSINFRA_GATE_FAST_PATH 1

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"
#include "support/unit_ir.hpp"

static_assert(PASSINFRA_FORCE_INLINE == 1 && PASSINFRA_GATE_FAST_PATH == 1);

using passinfra::PassInfo;
using namespace pitest;

namespace {

// A pass of this file: logs its name, appends it to the trail.
template <Name N, int Opt = 0, class Req = passinfra::requires_passes<>>
struct FastPass {
  static constexpr PassInfo info{N.view(), Opt};
  using required = Req;
  TestIR transform(TestIR ir, auto&) const {
    ir.trail.emplace_back(N.view());
    if (ir.log) ir.log->add(std::string(N.view()));
    return ir;
  }
};

using Low = FastPass<"Low">;
using High = FastPass<"High", 3>;
using Mid = FastPass<"Mid", 2>;
using Req = FastPass<"Req", 3>;
using NeedsReq = FastPass<"NeedsReq", 1, passinfra::requires_passes<Req>>;

// A unit pass of this file: "<name>(@f)", and the unit's trail.
template <Name N, int Opt = 0>
struct FastUnitPass {
  static constexpr PassInfo info{N.view(), Opt};
  UFunc transform(UFunc fn, auto& ctx) const {
    fn.trail.emplace_back(N.view());
    if (ctx.parent().log) ctx.parent().log->add(std::string(N.view()) + "(@" + fn.name + ")");
    return fn;
  }
};

}  // namespace

TEST_CASE("release path: a Sequential gates by opt_level alone when no names are listed") {
  EventLog log;
  auto a = recorder("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 2}, std::ref(a));
  passinfra::Sequential<Low, High, Mid, NeedsReq> seq;
  const TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
  // High (3) is above the context's level; Req (3) runs anyway, as required by NeedsReq.
  CHECK(out.trail == std::vector<std::string>{"Low", "Mid", "Req", "NeedsReq"});
  CHECK(join(log.events, ",") ==
        "A should_run sequential,A run_before_pass sequential,"
        "A should_run Low,A run_before_pass Low,Low,A run_after_pass Low,"
        "A should_run Mid,A run_before_pass Mid,Mid,A run_after_pass Mid,"
        "A should_run Req,A run_before_pass Req,Req,A run_after_pass Req,"
        "A should_run NeedsReq,A run_before_pass NeedsReq,NeedsReq,A run_after_pass NeedsReq,"
        "A run_after_pass sequential");
}

TEST_CASE("release path: listed names take the general gate in the same build") {
  EventLog log;
  auto a = recorder("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 2, .required_pass = {"High"}, .disabled_pass = {"Mid"}},
                                                  std::ref(a));
  passinfra::Sequential<Low, High, Mid, NeedsReq> seq;
  const TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"Low", "High", "Req", "NeedsReq"});
}

// The general path runs the children from a constant table: a stateful
// child runs as itself (its state, its per-object PassInfo), a stateless one
// as a value made for the call, each after its required passes: the same
// children and events as the fast path.
namespace {
struct Keeps {  // stateful: a member the body reads, an address it records
  int k = 0;
  mutable const Keeps* seen = nullptr;
  static constexpr PassInfo info{"Keeps", 0};
  TestIR transform(TestIR ir, auto&) const {
    seen = this;
    ir.value += k;
    ir.trail.push_back("Keeps" + std::to_string(k));
    return ir;
  }
};
struct AddN {  // stateful, with a per-object PassInfo
  int n = 1;
  PassInfo info() const { return {"AddN", n}; }
  TestIR transform(TestIR ir, auto&) const {
    ir.value += 10 * n;
    ir.trail.push_back("AddN" + std::to_string(n));
    return ir;
  }
};
}  // namespace

TEST_CASE("release path: the general path runs stateful children as themselves, stateless ones made") {
  static_assert(passinfra::detail::stateless_child<Low> && passinfra::detail::stateless_child<NeedsReq>);
  static_assert(!passinfra::detail::stateless_child<Keeps> && !passinfra::detail::stateless_child<AddN>);
  const passinfra::Sequential seq{
      Low{}, Keeps{7}, AddN{2}, NeedsReq{}, passinfra::sequential({"Inner", 1}, Keeps{5}, AddN{3}), Mid{}};
  const std::string events =
      "A should_run sequential,A run_before_pass sequential,A should_run Low,A run_before_pass Low,Low,"
      "A run_after_pass Low,A should_run Keeps,A run_before_pass Keeps,A run_after_pass Keeps,"
      "A should_run AddN,A run_before_pass AddN,A run_after_pass AddN,"
      "A should_run Req,A run_before_pass Req,Req,A run_after_pass Req,"
      "A should_run NeedsReq,A run_before_pass NeedsReq,NeedsReq,A run_after_pass NeedsReq,"
      "A should_run Inner,A run_before_pass Inner,A should_run Keeps,A run_before_pass Keeps,"
      "A run_after_pass Keeps,A should_run AddN,A run_before_pass AddN,A run_after_pass AddN,"
      "A run_after_pass Inner,A should_run Mid,A run_before_pass Mid,Mid,A run_after_pass Mid,"
      "A run_after_pass sequential";
  for (const bool listed : {false, true}) {
    CAPTURE(listed);
    EventLog log;
    auto a = recorder("A", log);
    passinfra::PassContextOptions options{.opt_level = 3};
    if (listed) options.disabled_pass = {"NotAChild"};  // a listed name: the general path
    auto ctx = passinfra::make_pass_context<TestIR>(std::move(options), std::ref(a));
    const TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"Low", "Keeps7", "AddN2", "Req", "NeedsReq", "Keeps5", "AddN3", "Mid"});
    CHECK(out.value == 7 + 20 + 5 + 30);
    CHECK(seq.child<1>().seen == &seq.child<1>());  // the child itself, not a copy
    CHECK(join(log.events, ",") == events);
  }
  // Listed names gate the children from the table as inline: per-object
  // names (the nested Sequential's, AddN's), a required pass, opt_levels.
  auto ctx = passinfra::make_pass_context<TestIR>(
      {.opt_level = 0, .required_pass = {"Inner", "Mid"}, .disabled_pass = {"AddN", "Keeps"}});
  const TestIR out = passinfra::run(seq, TestIR{nullptr}, ctx);
  CHECK(out.trail == std::vector<std::string>{"Low", "Mid"});
  auto ctx2 = passinfra::make_pass_context<TestIR>({.opt_level = 2, .disabled_pass = {"Keeps"}});
  CHECK(passinfra::run(seq, TestIR{nullptr}, ctx2).trail ==
        std::vector<std::string>{"Low", "AddN2", "Req", "NeedsReq", "Mid"});
}

TEST_CASE("release path: a vetoing should_run and an opt_level skip leave no other event") {
  EventLog log;
  auto a = recorder("A", log);
  a.veto_only = {"Low"};
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 1}, std::ref(a));
  passinfra::Sequential<Low, Mid> seq;
  const TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
  CHECK(out.trail.empty());
  CHECK(join(log.events, ",") ==
        "A should_run sequential,A run_before_pass sequential,A should_run Low,A run_after_pass sequential");
}

TEST_CASE("release path: a Nest gates its unit passes by opt_level alone") {
  EventLog log;
  UHooks hooks{"h", &log};
  auto ctx = passinfra::make_pass_context<UModule>({.opt_level = 1}, std::ref(hooks));
  auto n = passinfra::nest<UFunc>(FastUnitPass<"U1">{}, FastUnitPass<"U3", 3>{}, FastUnitPass<"U0">{});
  const UModule out = passinfra::run(n, make_umodule(&log, {"f", "g"}), ctx);
  CHECK(describe(out) == "f:0:U1,U0,;g:0:U1,U0,;");
  // Each unit ran U1 and U0 only, in unit order.
  std::vector<std::string> runs;
  for (const auto& e : log.events) {
    if (e.starts_with("U")) runs.push_back(e);
  }
  CHECK(runs == std::vector<std::string>{"U1(@f)", "U0(@f)", "U1(@g)", "U0(@g)"});
}
