// SPEC §2, §5: entering and leaving a context, and instrument failures, on every layer.
#include <doctest/doctest.h>

#include "support/layers.hpp"
#include "support/recorder.hpp"

using namespace pitest;

namespace {
using P = TestPass<"P">;
using Thrower = ThrowingPass<"Thrower">;
}  // namespace

TEST_CASE_TEMPLATE("SPEC 2: defaults and PassEnabled", L, PITEST_LAYERS) {
  auto def = L::context({});
  CHECK(def.opt_level() == 2);
  CHECK(def.required_pass().empty());
  CHECK(def.disabled_pass().empty());
  CHECK(def.pass_enabled({"X", 2}));
  CHECK_FALSE(def.pass_enabled({"X", 3}));

  auto ctx = L::context({.opt_level = 1, .required_pass = {"Req", "Both"}, .disabled_pass = {"Dis", "Both"}});
  CHECK(ctx.pass_enabled({"Any", 1}));
  CHECK_FALSE(ctx.pass_enabled({"Any", 2}));
  CHECK(ctx.pass_enabled({"Req", 9}));
  CHECK_FALSE(ctx.pass_enabled({"Dis", 0}));
  CHECK_FALSE(ctx.pass_enabled({"Both", 0}));  // disabled wins
  CHECK_FALSE(ctx.pass_enabled({"req", 9}));   // exact match
  CHECK(ctx.is_required("Req"));
  CHECK_FALSE(ctx.is_required("Dis"));
}

TEST_CASE_TEMPLATE("SPEC 2: enter runs enter hooks in order, exit runs exit hooks in order", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  auto b = make<EnterExitOnly>("B", log);
  auto c = recorder("C", log);
  auto ctx = L::context({}, a, b, c);
  {
    auto scope = ctx.enter();
    log.add("body");
  }
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / B enter_pass_ctx / C enter_pass_ctx / body / A exit_pass_ctx / B exit_pass_ctx / "
        "C exit_pass_ctx");
}

TEST_CASE_TEMPLATE("SPEC 2: with(f) returns f's result and exits after it, also when f throws", L, PITEST_LAYERS) {
  EventLog log;
  auto a = make<EnterExitOnly>("A", log);
  auto ctx = L::context({}, a);
  int r = ctx.with([&] {
    log.add("f");
    return 42;
  });
  CHECK(r == 42);
  ctx.with([&] { log.add("g"); });
  std::exception_ptr caught;
  try {
    ctx.with([&]() -> int { throw_test_error(5, "in with"); });
  } catch (const TestError&) {
    caught = std::current_exception();
  }
  CHECK(caught == last_thrown);
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / f / A exit_pass_ctx / A enter_pass_ctx / g / A exit_pass_ctx / A enter_pass_ctx / "
        "A exit_pass_ctx");
}

TEST_CASE_TEMPLATE("SPEC 5.1: an enter failure clears, exits the ones entered, and rethrows the original", L,
                   PITEST_LAYERS) {
  EventLog log;
  LogCapture capture;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  auto c = make("C", log, Hook::enter, 3);
  auto d = recorder("D", log);
  auto ctx = L::context({}, a, b, c, d);
  std::exception_ptr caught;
  try {
    auto scope = ctx.enter();
    log.add("never here");
  } catch (const TestError&) {
    caught = std::current_exception();
  }
  CHECK(caught == last_thrown);
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / B enter_pass_ctx / C bad enter_pass_ctx!!! / A exit_pass_ctx / B exit_pass_ctx");
  CHECK(join(capture.lines) == R"(INFO Pass instrumentation entering pass context failed.
INFO Disable pass instrumentation.
INFO A exiting PassContext ...
INFO A exited PassContext.
INFO B exiting PassContext ...
INFO B exited PassContext.)");

  // Cleared: no hook of these instruments fires in this context any more.
  log.clear();
  c.fail_at.reset();
  TestIR out = passinfra::run(P{}, TestIR{&log}, ctx);
  CHECK(out.value == 1);
  CHECK(join(log.events, " / ") == "P");
}

TEST_CASE_TEMPLATE("SPEC 5.2: an exit failure clears, skips the later exits, and rethrows", L, PITEST_LAYERS) {
  EventLog log;
  LogCapture capture;
  auto a = recorder("A", log);
  auto b = make("B", log, Hook::exit, 4);
  auto c = recorder("C", log);
  auto ctx = L::context({}, a, b, c);
  std::exception_ptr caught;
  try {
    auto scope = ctx.enter();
    log.add("body");
  } catch (const TestError&) {
    caught = std::current_exception();
  }
  CHECK(caught == last_thrown);
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / B enter_pass_ctx / C enter_pass_ctx / body / A exit_pass_ctx / B bad exit_pass_ctx!!!");
  CHECK(join(capture.lines) == "INFO Pass instrumentation exiting pass context failed.");
  log.clear();
  (void)passinfra::run(P{}, TestIR{&log}, ctx);
  CHECK(join(log.events, " / ") == "P");
}

namespace {
// Counts the live objects of its type: what with(f) returned must be destroyed
// when the exit hooks throw after f returned.
struct Counted {
  static inline int live = 0;
  std::vector<std::string> payload{"owns", "memory"};
  Counted() { ++live; }
  Counted(const Counted& o) : payload(o.payload) { ++live; }
  Counted(Counted&& o) noexcept : payload(std::move(o.payload)) { ++live; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --live; }
};
}  // namespace

TEST_CASE_TEMPLATE("SPEC 5.2: with(f) destroys f's result when an exit hook throws after f returned", L,
                   PITEST_LAYERS) {
  // `return f();` under a scope whose destructor throws leaks the result with
  // GCC 12 and clang 16 (GCC PR 33799, LLVM issue 12658): with() must not
  // rely on the compiler destroying an already-made return value.
  EventLog log;
  LogCapture capture;
  auto a = make("A", log, Hook::exit, 4);
  auto ctx = L::context({}, a);
  Counted::live = 0;
  std::exception_ptr caught;
  try {
    Counted kept = ctx.with([] { return Counted{}; });
    log.add("never here");
  } catch (const TestError&) {
    caught = std::current_exception();
  }
  CHECK(caught == last_thrown);
  CHECK(Counted::live == 0);
  CHECK(join(log.events, " / ") == "A enter_pass_ctx / A bad exit_pass_ctx!!!");
}

TEST_CASE_TEMPLATE("SPEC 5.4: an exit failure while another exception leaves the scope: the first one wins", L,
                   PITEST_LAYERS) {
  EventLog log;
  LogCapture capture;
  auto a = recorder("A", log);
  auto b = make("B", log, Hook::exit, 4);
  auto c = recorder("C", log);
  auto ctx = L::context({}, a, b, c);
  std::exception_ptr body_error;
  std::exception_ptr caught;
  try {
    auto scope = ctx.enter();
    try {
      (void)passinfra::run(Thrower{}, TestIR{&log}, ctx);
    } catch (...) {
      body_error = std::current_exception();
      throw;
    }
  } catch (const TestError& e) {
    CHECK(e.id == 100);
    caught = std::current_exception();
  }
  CHECK(caught == body_error);
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / B enter_pass_ctx / C enter_pass_ctx / A should_run Thrower / B should_run Thrower / "
        "C should_run Thrower / A run_before_pass Thrower / B run_before_pass Thrower / C run_before_pass Thrower / "
        "Thrower / A exit_pass_ctx / B bad exit_pass_ctx!!!");
  REQUIRE(capture.lines.size() == 2);
  CHECK(capture.lines[0] == "INFO Pass instrumentation exiting pass context failed.");
  CHECK(capture.lines[1].rfind("WARNING exit_pass_ctx of instrument B threw while another exception was "
                               "propagating; it is dropped: B failed in exit_pass_ctx",
                               0) == 0);
}

TEST_CASE_TEMPLATE("SPEC 5.4: an exit failure during the enter clean-up: the enter exception wins, clean-up goes on", L,
                   PITEST_LAYERS) {
  EventLog log;
  LogCapture capture;
  auto a = make("A", log, Hook::exit, 8);
  auto b = recorder("B", log);
  auto c = make("C", log, Hook::enter, 9);
  auto ctx = L::context({}, a, b, c);
  try {
    auto scope = ctx.enter();
  } catch (const TestError& e) {
    CHECK(e.id == 9);
  }
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / B enter_pass_ctx / C bad enter_pass_ctx!!! / A bad exit_pass_ctx!!! / B exit_pass_ctx");
  REQUIRE(capture.lines.size() == 6);
  CHECK(capture.lines[2] == "INFO A exiting PassContext ...");
  CHECK(capture.lines[3].rfind("WARNING exit_pass_ctx of instrument A threw while the context's enter_pass_ctx", 0) ==
        0);
  CHECK(capture.lines[4] == "INFO B exiting PassContext ...");
  CHECK(capture.lines[5] == "INFO B exited PassContext.");
}

TEST_CASE_TEMPLATE("SPEC 5: a missing hook does nothing; should_run defaults to run", L, PITEST_LAYERS) {
  EventLog log;
  auto a = make<EnterExitOnly>("A", log);
  auto b = make<PassHooksOnly>("B", log);
  auto c = make<ShouldRunOnly>("C", log);
  auto ctx = L::context({}, a, b, c);
  TestIR out = ctx.with([&] { return passinfra::run(P{}, TestIR{&log}, ctx); });
  CHECK(out.value == 1);
  CHECK(join(log.events, " / ") ==
        "A enter_pass_ctx / C should_run P / B run_before_pass P / P / B run_after_pass P / A exit_pass_ctx");
}

TEST_CASE_TEMPLATE("SPEC 5: exceptions of any type are handled, and rethrown unchanged", L, PITEST_LAYERS) {
  struct Odd {
    int code;
  };
  struct OddEnter : RecorderBase {
    void enter_pass_ctx() { throw Odd{77}; }
  };
  EventLog log;
  LogCapture capture;
  auto a = recorder("A", log);
  auto b = make<OddEnter>("OddEnter", log);
  auto ctx = L::context({}, a, b);
  try {
    auto scope = ctx.enter();
    FAIL("enter should have thrown");
  } catch (const Odd& odd) {
    CHECK(odd.code == 77);
  }
  CHECK(join(log.events, " / ") == "A enter_pass_ctx / A exit_pass_ctx");
}
