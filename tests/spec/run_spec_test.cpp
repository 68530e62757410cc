// SPEC §3: running one pass, on every layer (PITEST_LAYERS).
#include <doctest/doctest.h>

#include "support/layers.hpp"
#include "support/recorder.hpp"

using namespace pitest;
using passinfra::PassContextOptions;

namespace {
using P = TestPass<"P", 1>;
using Inner = TestPass<"Inner">;
using Outer = NestedPass<"Outer", Inner>;
using Thrower = ThrowingPass<"Thrower">;
}  // namespace

TEST_CASE_TEMPLATE("SPEC 3: should_run, before, body, after -- every hook in list order", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  auto ctx = L::context({}, a, b);
  TestIR out = passinfra::run(L::pass(P{}), TestIR{&log}, ctx);
  CHECK(out.value == 1);
  CHECK(join(log.events, " / ") ==
        "A should_run P / B should_run P / A run_before_pass P / B run_before_pass P / P / "
        "A run_after_pass P / B run_after_pass P");
}

TEST_CASE_TEMPLATE("SPEC 3: should_run asks every instrument even after a no; the results are AND-ed", L,
                   PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  auto c = recorder("C", log);
  SUBCASE("the first says no") { a.veto = true; }
  SUBCASE("the middle says no") { b.veto = true; }
  SUBCASE("the last says no") { c.veto = true; }
  auto ctx = L::context({}, a, b, c);
  TestIR in{&log, 41, {"before"}};
  TestIR out = passinfra::run(L::pass(P{}), in, ctx);
  CHECK(join(log.events, " / ") == "A should_run P / B should_run P / C should_run P");
  CHECK(out.value == 41);  // input returned unchanged, no body, no after hooks
  CHECK(out.trail == std::vector<std::string>{"before"});
}

TEST_CASE_TEMPLATE("SPEC 3: a pass in required_pass skips should_run and counts as run", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  a.veto = true;
  auto ctx = L::context({.required_pass = {"P"}}, a);
  TestIR out = passinfra::run(L::pass(P{}), TestIR{&log}, ctx);
  CHECK(out.value == 1);
  CHECK(join(log.events, " / ") == "A run_before_pass P / P / A run_after_pass P");
}

TEST_CASE_TEMPLATE("SPEC 3: run does not apply the PassEnabled gate", L, PITEST_LAYERS) {
  EventLog log;
  auto ctx = L::context({.opt_level = 0, .disabled_pass = {"P"}});
  TestIR out = passinfra::run(L::pass(TestPass<"P", 4>{}), TestIR{&log}, ctx);
  CHECK(out.value == 1);
  CHECK(join(log.events, " / ") == "P");
}

TEST_CASE_TEMPLATE("SPEC 4: nested runs use the outer context; events nest between before and after", L,
                   PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  auto ctx = L::context({}, a);
  TestIR out = passinfra::run(L::pass(Outer{}), TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"Outer", "Inner"});
  CHECK(join(log.events, " / ") ==
        "A should_run Outer / A run_before_pass Outer / Outer / A should_run Inner / A run_before_pass Inner / "
        "Inner / A run_after_pass Inner / A run_after_pass Outer");
}

TEST_CASE_TEMPLATE("SPEC 3: a vetoed pass runs none of the passes it would have run", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  a.veto_only = {"Outer"};
  auto ctx = L::context({}, a);
  TestIR out = passinfra::run(L::pass(Outer{}), TestIR{&log}, ctx);
  CHECK(out.trail.empty());
  CHECK(join(log.events, " / ") == "A should_run Outer");
}

TEST_CASE_TEMPLATE("SPEC 3/5.3: a throw inside a pass run skips the rest and propagates unchanged", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  auto c = recorder("C", log);
  std::string expected;
  bool throwing_pass = false;
  SUBCASE("should_run throws") {
    b.fail_at = Hook::should_run;
    expected = "A should_run P / B bad should_run!!!";
  }
  SUBCASE("run_before_pass throws") {
    b.fail_at = Hook::before;
    expected = "A should_run P / B should_run P / C should_run P / A run_before_pass P / B bad run_before_pass!!!";
  }
  SUBCASE("the body throws") {
    throwing_pass = true;
    expected =
        "A should_run Thrower / B should_run Thrower / C should_run Thrower / A run_before_pass Thrower / "
        "B run_before_pass Thrower / C run_before_pass Thrower / Thrower";
  }
  SUBCASE("run_after_pass throws") {
    b.fail_at = Hook::after;
    expected =
        "A should_run P / B should_run P / C should_run P / A run_before_pass P / B run_before_pass P / "
        "C run_before_pass P / P / A run_after_pass P / B bad run_after_pass!!!";
  }
  auto ctx = L::context({}, a, b, c);
  auto run_once = [&] {
    if (throwing_pass) {
      (void)passinfra::run(L::pass(Thrower{}), TestIR{&log}, ctx);
    } else {
      (void)passinfra::run(L::pass(P{}), TestIR{&log}, ctx);
    }
  };

  for (bool scoped : {true, false}) {
    CAPTURE(scoped);
    log.clear();
    std::exception_ptr caught;
    try {
      if (scoped) {
        // Inside a scope: the scope exit runs every exit hook, then the exception continues.
        auto scope = ctx.enter();
        run_once();
      } else {
        // Without a scope: no exit hook runs.
        run_once();
      }
    } catch (const TestError&) {
      caught = std::current_exception();
    }
    REQUIRE(caught);
    CHECK(caught == last_thrown);  // the very same object
    if (scoped) {
      CHECK(join(log.events, " / ") == "A enter_pass_ctx / B enter_pass_ctx / C enter_pass_ctx / " + expected +
                                           " / A exit_pass_ctx / B exit_pass_ctx / C exit_pass_ctx");
    } else {
      CHECK(join(log.events, " / ") == expected);
    }
  }
  // Instrumentation stays on: the next run fires every hook again.
  log.clear();
  b.fail_at.reset();
  (void)passinfra::run(L::pass(P{}), TestIR{&log}, ctx);
  CHECK(log.events.size() == 10);  // 3 instruments x (should_run, before, after) + the body
}

TEST_CASE_TEMPLATE("passinfra: run_after_pass_failed reaches the instruments whose before returned", L, PITEST_LAYERS) {
  EventLog log;
  auto a = make<FailureAwareRecorder>("A", log);
  auto b = make<FailureAwareRecorder>("B", log);
  auto c = make<FailureAwareRecorder>("C", log);
  std::string tail;
  bool throwing_pass = false;
  SUBCASE("before of B throws: only A learns of it") {
    b.fail_at = Hook::before;
    tail = "A run_before_pass P / B bad run_before_pass!!! / A run_after_pass_failed P";
  }
  SUBCASE("the body throws: all learn of it, in order") {
    throwing_pass = true;
    tail =
        "A run_before_pass Thrower / B run_before_pass Thrower / C run_before_pass Thrower / Thrower / "
        "A run_after_pass_failed Thrower / B run_after_pass_failed Thrower / C run_after_pass_failed Thrower";
  }
  SUBCASE("after of B throws: only C (not yet started) learns of it") {
    b.fail_at = Hook::after;
    tail =
        "A run_before_pass P / B run_before_pass P / C run_before_pass P / P / A run_after_pass P / "
        "B bad run_after_pass!!! / C run_after_pass_failed P";
  }
  auto ctx = L::context({}, a, b, c);
  std::exception_ptr caught;
  try {
    if (throwing_pass) {
      (void)passinfra::run(L::pass(Thrower{}), TestIR{&log}, ctx);
    } else {
      (void)passinfra::run(L::pass(P{}), TestIR{&log}, ctx);
    }
  } catch (const TestError&) {
    caught = std::current_exception();
  }
  CHECK(caught == last_thrown);
  const std::string name = throwing_pass ? "Thrower" : "P";
  CHECK(join(log.events, " / ") ==
        "A should_run " + name + " / B should_run " + name + " / C should_run " + name + " / " + tail);
}

TEST_CASE_TEMPLATE("passinfra: run_after_pass_failed is not called when should_run throws", L, PITEST_LAYERS) {
  EventLog log;
  auto a = make<FailureAwareRecorder>("A", log);
  auto b = make<FailureAwareRecorder>("B", log, Hook::should_run);
  auto ctx = L::context({}, a, b);
  CHECK_THROWS_AS((void)passinfra::run(L::pass(P{}), TestIR{&log}, ctx), TestError);
  CHECK(join(log.events, " / ") == "A should_run P / B bad should_run!!!");
}

TEST_CASE_TEMPLATE("passinfra: run_after_pass_failed travels out through enclosing passes, innermost first", L,
                   PITEST_LAYERS) {
  EventLog log;
  auto a = make<FailureAwareRecorder>("A", log);
  auto ctx = L::context({}, a);
  using Wrapper = NestedPass<"Wrapper", Thrower>;
  CHECK_THROWS_AS((void)passinfra::run(L::pass(Wrapper{}), TestIR{&log}, ctx), TestError);
  CHECK(join(log.events, " / ") ==
        "A should_run Wrapper / A run_before_pass Wrapper / Wrapper / A should_run Thrower / "
        "A run_before_pass Thrower / Thrower / A run_after_pass_failed Thrower / A run_after_pass_failed Wrapper");
}

TEST_CASE_TEMPLATE("passinfra: a throwing run_after_pass_failed is logged and dropped", L, PITEST_LAYERS) {
  EventLog log;
  LogCapture capture;
  auto a = make<FailureAwareRecorder>("A", log, Hook::after_failed, 7);
  auto ctx = L::context({}, a);
  std::exception_ptr caught;
  try {
    (void)passinfra::run(L::pass(Thrower{}), TestIR{&log}, ctx);
  } catch (const TestError& e) {
    CHECK(e.id == 100);  // the body's exception, not the hook's
    caught = std::current_exception();
  }
  CHECK(caught);
  REQUIRE(capture.lines.size() == 1);
  CHECK(capture.lines[0].rfind("WARNING run_after_pass_failed of instrument A threw", 0) == 0);
}
