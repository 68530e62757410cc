// passinfra/core/pass_context.hpp on the static layer: options and
// accessors, bad options, make_pass_context, scopes, nesting.
// (The rules common to both layers are in tests/spec/context_spec_test.cpp.)
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <passinfra/core.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using passinfra::InstrumentSet;
using passinfra::PassContext;
using passinfra::PassContextOptions;
using namespace pitest;

namespace {

using P = TestPass<"P">;

// The message of the passinfra::Error that f throws ("" if none).
template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const passinfra::Error& e) {
    return e.what();
  }
  return "";
}

// A static context is neither copyable nor movable (scopes point at it), nor is its scope.
using StaticCtx = PassContext<TestIR, InstrumentSet<Recorder&>>;
static_assert(!std::is_copy_constructible_v<StaticCtx> && !std::is_copy_assignable_v<StaticCtx>);
static_assert(!std::is_move_constructible_v<StaticCtx> && !std::is_move_assignable_v<StaticCtx>);
static_assert(!std::is_copy_constructible_v<StaticCtx::Scope>);

}  // namespace

TEST_CASE("core/pass_context: make_pass_context with zero instruments is a static context with the empty set") {
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 3});
  static_assert(std::is_same_v<decltype(ctx), PassContext<TestIR, InstrumentSet<>>>);
  static_assert(!decltype(ctx)::is_dynamic);
  CHECK(ctx.opt_level() == 3);
  CHECK(ctx.instruments().size() == 0);
  EventLog log;
  TestIR out = ctx.with([&] { return passinfra::run(P{}, TestIR{&log, 5}, ctx); });
  CHECK(out.value == 6);
  CHECK(join(log.events, " / ") == "P");
}

TEST_CASE("core/pass_context: make_pass_context holds std::ref by reference and the rest by value") {
  EventLog log;
  auto a = recorder("A", log);
  auto b = make<EnterExitOnly>("B", log);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(a), b);
  static_assert(std::is_same_v<decltype(ctx), PassContext<TestIR, InstrumentSet<Recorder&, EnterExitOnly>>>);
  CHECK(&ctx.instruments().get<0>() == &a);
  CHECK(&ctx.instruments().get<1>() != &b);
  CHECK(&ctx.instruments() == &ctx.instrument_set());  // a static set is its own instrument set
}

TEST_CASE("core/pass_context: the accessors return the options given") {
  auto ctx =
      passinfra::make_pass_context<TestIR>({.opt_level = 1, .required_pass = {"R1", "R2"}, .disabled_pass = {"D"}});
  CHECK(ctx.opt_level() == 1);
  CHECK(ctx.required_pass() == std::vector<std::string>{"R1", "R2"});
  CHECK(ctx.disabled_pass() == std::vector<std::string>{"D"});
  CHECK(ctx.config().empty());
  CHECK(ctx.is_required("R2"));
  CHECK_FALSE(ctx.is_required("D"));
  CHECK_FALSE(ctx.is_required("r1"));

  PassContext<TestIR, InstrumentSet<>> defaults;
  CHECK(defaults.opt_level() == 2);
  CHECK(defaults.required_pass().empty());
  CHECK(defaults.disabled_pass().empty());
  CHECK(defaults.pass_enabled({"AtTwo", 2}));
  CHECK_FALSE(defaults.pass_enabled({"AtThree", 3}));
}

TEST_CASE("core/pass_context: opt_level 0 is valid and a negative opt_level is an error naming the field") {
  auto zero = passinfra::make_pass_context<TestIR>({.opt_level = 0});
  CHECK(zero.pass_enabled({"Zero", 0}));
  CHECK_FALSE(zero.pass_enabled({"One", 1}));

  const std::string message = error_message([] { (void)passinfra::make_pass_context<TestIR>({.opt_level = -1}); });
  CHECK(message == "passinfra: PassContextOptions::opt_level is -1; expected a non-negative level (TVM uses 0 to 4)");
  CHECK_THROWS_AS((PassContext<TestIR, InstrumentSet<>>(PassContextOptions{.opt_level = -7})), passinfra::Error);
}

TEST_CASE("core/pass_context: an empty pass name is an error naming required_pass or disabled_pass") {
  const std::string required = error_message([] {
    (void)passinfra::make_pass_context<TestIR>({.required_pass = {"A", ""}});
  });
  CHECK(required == "passinfra: PassContextOptions::required_pass contains an empty name; expected pass names");
  const std::string disabled =
      error_message([] { (void)passinfra::make_pass_context<TestIR>({.disabled_pass = {""}}); });
  CHECK(disabled == "passinfra: PassContextOptions::disabled_pass contains an empty name; expected pass names");
  // passinfra::Error is a std::runtime_error.
  CHECK_THROWS_AS((void)passinfra::make_pass_context<TestIR>({.disabled_pass = {""}}), std::runtime_error);
}

TEST_CASE("core/pass_context: a bad option throws before any instrument is entered") {
  EventLog log;
  auto a = recorder("A", log);
  CHECK_THROWS_AS((void)passinfra::make_pass_context<TestIR>({.opt_level = -1}, std::ref(a)), passinfra::Error);
  CHECK(log.events.empty());
}

TEST_CASE("core/pass_context: with(f) returns what f returns, references included") {
  auto ctx = passinfra::make_pass_context<TestIR>({});
  int x = 1;
  int& r = ctx.with([&]() -> int& { return x; });
  CHECK(&r == &x);
  static_assert(std::is_same_v<decltype(ctx.with([]() -> int& {
                                 static int y;
                                 return y;
                               })),
                               int&>);
  static_assert(std::is_same_v<decltype(ctx.with([] {})), void>);
  CHECK(ctx.with([] { return std::string("value"); }) == "value");
}

TEST_CASE("core/pass_context: nested static contexts -- a run sees only the instruments of the context it is given") {
  EventLog log;
  auto outer_a = recorder("OuterA", log);
  auto inner_b = recorder("InnerB", log);
  auto outer = passinfra::make_pass_context<TestIR>({}, std::ref(outer_a));
  auto inner = passinfra::make_pass_context<TestIR>({.opt_level = 3}, std::ref(inner_b));
  {
    auto outer_scope = outer.enter();
    {
      auto inner_scope = inner.enter();
      (void)passinfra::run(P{}, TestIR{&log}, inner);
    }
    log.add("between");
  }
  CHECK(join(log.events, " / ") ==
        "OuterA enter_pass_ctx / InnerB enter_pass_ctx / InnerB should_run P / InnerB run_before_pass P / P / "
        "InnerB run_after_pass P / InnerB exit_pass_ctx / between / OuterA exit_pass_ctx");
}

TEST_CASE("core/pass_context: a static context can be entered again after it was left") {
  EventLog log;
  auto a = make<EnterExitOnly>("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(a));
  for (int i = 0; i < 2; ++i) {
    auto scope = ctx.enter();
    log.add("body" + std::to_string(i));
  }
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / body0 / A exit_pass_ctx / A enter_pass_ctx / body1 / "
        "A exit_pass_ctx");
}

TEST_CASE("core/pass_context: the static layer does not gate a pass run directly, Sequential gates its children") {
  EventLog log;
  auto ctx = passinfra::make_pass_context<TestIR>({.opt_level = 1, .disabled_pass = {"Off"}});
  using High = TestPass<"High", 2>;
  using Off = TestPass<"Off", 0>;
  using Low = TestPass<"Low", 1>;
  CHECK(passinfra::run(High{}, TestIR{&log}, ctx).value == 1);
  log.clear();
  passinfra::Sequential<High, Off, Low> seq;
  TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"Low"});
}

TEST_CASE("core/pass_context: gate() answers pass_enabled and is_required as the context does") {
  auto plain = passinfra::make_pass_context<TestIR>({.opt_level = 1});
  const auto plain_gate = plain.gate();
  CHECK_FALSE(plain.names_listed());
  CHECK_FALSE(plain.has_required());
  CHECK(plain_gate.pass_enabled({"Low", 1}));
  CHECK_FALSE(plain_gate.pass_enabled({"High", 2}));
  CHECK_FALSE(plain_gate.is_required("Low"));

  auto named =
      passinfra::make_pass_context<TestIR>({.opt_level = 1, .required_pass = {"High"}, .disabled_pass = {"Low"}});
  const auto gate = named.gate();
  CHECK(named.names_listed());
  CHECK(named.has_required());
  CHECK(gate.pass_enabled({"High", 4}));       // required
  CHECK_FALSE(gate.pass_enabled({"Low", 0}));  // disabled
  CHECK(gate.pass_enabled({"Other", 1}));
  CHECK_FALSE(gate.pass_enabled({"Other", 2}));
  CHECK(gate.is_required("High"));
  CHECK_FALSE(gate.is_required("Low"));

  auto only_disabled = passinfra::make_pass_context<TestIR>({.disabled_pass = {"Off"}});
  CHECK(only_disabled.names_listed());
  CHECK_FALSE(only_disabled.has_required());
  CHECK_FALSE(only_disabled.gate().pass_enabled({"Off", 0}));
}
