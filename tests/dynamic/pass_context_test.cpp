// The dynamic PassContext<IR>: current(), the per-thread stack, override_instruments (SPEC §2).
#include <doctest/doctest.h>

#include <thread>
#include <type_traits>
#include <utility>

#include <passinfra/dynamic.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using Ctx = passinfra::PassContext<TestIR>;
using passinfra::AnyInstrument;

namespace {
using P = TestPass<"P">;

// Records which context is current() while its enter/exit hooks run.
struct CurrentProbe {
  std::vector<const Ctx*>* seen;
  void enter_pass_ctx() { seen->push_back(&Ctx::current()); }
  void exit_pass_ctx() { seen->push_back(&Ctx::current()); }
};

// Clears the thread's default context at the end of a test.
struct ResetDefault {
  ~ResetDefault() {
    try {
      Ctx::thread_default().override_instruments({});
    } catch (...) {
    }
  }
};
}  // namespace

TEST_CASE("dynamic: current() is the innermost entered context, else the thread's default") {
  Ctx& def = Ctx::current();
  CHECK(&def == &Ctx::thread_default());
  CHECK(def.opt_level() == 2);
  CHECK(def.instruments().empty());
  Ctx outer({.opt_level = 1});
  Ctx inner({.opt_level = 3});
  {
    auto s1 = outer.enter();
    CHECK(&Ctx::current() == &outer);
    {
      auto s2 = inner.enter();
      CHECK(&Ctx::current() == &inner);
    }
    CHECK(&Ctx::current() == &outer);
    inner.with([&] { CHECK(Ctx::current().opt_level() == 3); });
  }
  CHECK(&Ctx::current() == &def);
}

TEST_CASE("dynamic: during enter_pass_ctx and exit_pass_ctx the context is not current") {
  std::vector<const Ctx*> seen;
  CurrentProbe probe{&seen};
  Ctx outer;
  Ctx ctx({}, {AnyInstrument<TestIR>(std::ref(probe))});
  outer.with([&] { ctx.with([&] { seen.push_back(&Ctx::current()); }); });
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == &outer);  // enter: not yet pushed
  CHECK(seen[1] == &ctx);
  CHECK(seen[2] == &outer);  // exit: already popped
}

TEST_CASE("dynamic: a failed enter does not push; a failed exit has already popped") {
  EventLog log;
  auto bad_enter = make("E", log, Hook::enter);
  Ctx ctx({}, {AnyInstrument<TestIR>(std::ref(bad_enter))});
  CHECK_THROWS_AS(ctx.with([] {}), TestError);
  CHECK(&Ctx::current() == &Ctx::thread_default());

  auto bad_exit = make("X", log, Hook::exit);
  Ctx ctx2({}, {AnyInstrument<TestIR>(std::ref(bad_exit))});
  CHECK_THROWS_AS(ctx2.with([] {}), TestError);
  CHECK(&Ctx::current() == &Ctx::thread_default());
  CHECK(ctx2.instruments().empty());  // cleared (SPEC §5.2)
}

TEST_CASE("dynamic: p(ir) runs under current(); outer contexts' instruments do not fire inside an inner one") {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  Ctx outer({}, {AnyInstrument<TestIR>(std::ref(a))});
  Ctx inner({.opt_level = 0}, {AnyInstrument<TestIR>(std::ref(b))});
  passinfra::DynamicSequential<TestIR> seq{P{}, TestPass<"Q", 1>{}};
  TestIR out = outer.with([&] { return inner.with([&] { return seq(TestIR{&log}); }); });
  CHECK(out.trail == std::vector<std::string>{"P"});  // Q (opt_level 1) gated by inner's opt_level 0
  for (const auto& e : log.events) CHECK((e.rfind("A ", 0) != 0 || e.find("_pass_ctx") != std::string::npos));
  CHECK(std::count(log.events.begin(), log.events.end(), "B run_before_pass P") == 1);
  // A static Sequential and a module_pass are callable the same way.
  log.clear();
  passinfra::Sequential<P> sseq;
  out = inner.with([&] { return sseq(TestIR{&log}); });
  CHECK(out.trail == std::vector<std::string>{"P"});
  CHECK(std::count(log.events.begin(), log.events.end(), "B run_before_pass sequential") == 1);
}

TEST_CASE("dynamic: override_instruments on the default context, without a scope (the TVM tutorial)") {
  ResetDefault reset;
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  Ctx& cur = Ctx::current();
  cur.override_instruments({AnyInstrument<TestIR>(std::ref(a))});
  CHECK(join(log.events, " / ") == "A enter_pass_ctx");
  (void)P{};
  TestIR out = passinfra::DynamicSequential<TestIR>{P{}}(TestIR{&log});
  CHECK(out.value == 1);
  log.clear();
  cur.override_instruments({AnyInstrument<TestIR>(std::ref(b))});
  CHECK(join(log.events, " / ") == "A exit_pass_ctx / B enter_pass_ctx");
  log.clear();
  cur.override_instruments({});
  CHECK(join(log.events, " / ") == "B exit_pass_ctx");
  CHECK(cur.instruments().empty());
}

TEST_CASE("dynamic: a throwing pass hook leaves instruments registered; a later clear exits them (SPEC 5.3)") {
  ResetDefault reset;
  EventLog log;
  auto a = recorder("A", log);
  auto bad = make("Bad", log, Hook::before);
  Ctx& cur = Ctx::current();
  cur.override_instruments({AnyInstrument<TestIR>(std::ref(a)), AnyInstrument<TestIR>(std::ref(bad))});
  CHECK_THROWS_AS((void)passinfra::run(P{}, TestIR{&log}, cur), TestError);
  CHECK(cur.instruments().size() == 2);
  log.clear();
  cur.override_instruments({});
  CHECK(join(log.events, " / ") == "A exit_pass_ctx / Bad exit_pass_ctx");
}

namespace {
// Takes the items out of its own context's list from run_before_pass of "P"
// (and keeps them: they are std::ref instruments here).
struct TakesItems {
  EventLog* log = nullptr;
  std::vector<AnyInstrument<TestIR>> taken;
  void run_before_pass(const TestIR&, const passinfra::PassInfo& info) {
    if (info.name != std::string_view("P")) return;
    taken = Ctx::current().instruments().take_items();
    log->add("Taker took");
  }
};
}  // namespace

// A hook phase reads the list's bounds once: the list is read-only through
// items() and changes only by replace() or take_items(), which end the phase
// after the hook that made them (the next phase sees the list as it is then).
TEST_CASE("dynamic: the list changes only by replace or take_items; a hook that takes the items ends its phase") {
  static_assert(std::is_const_v<std::remove_reference_t<decltype(std::declval<Ctx&>().instruments().items())>>,
                "DynamicInstruments::items() is read-only");
  ResetDefault reset;
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  TakesItems taker{&log, {}};
  Ctx::current().override_instruments(
      {AnyInstrument<TestIR>(std::ref(a)), AnyInstrument<TestIR>(std::ref(taker)), AnyInstrument<TestIR>(std::ref(b))});
  log.clear();
  const TestIR out = passinfra::DynamicSequential<TestIR>{P{}, TestPass<"Q">{}}(TestIR{&log});
  CHECK(out.trail == std::vector<std::string>{"P", "Q"});
  CHECK(join(log.events, " / ") ==
        "A should_run sequential / B should_run sequential / A run_before_pass sequential / "
        "B run_before_pass sequential / A should_run P / B should_run P / A run_before_pass P / Taker took / P / Q");
  CHECK(Ctx::current().instruments().empty());
  CHECK(taker.taken.size() == 3);
}

TEST_CASE("dynamic: override_instruments -- a failed old exit clears and never installs the new list") {
  ResetDefault reset;
  EventLog log;
  LogCapture capture;
  auto a = make("A", log, Hook::exit);
  auto b = recorder("B", log);
  auto n = recorder("New", log);
  Ctx ctx({}, {AnyInstrument<TestIR>(std::ref(a)), AnyInstrument<TestIR>(std::ref(b))});
  CHECK_THROWS_AS(ctx.override_instruments({AnyInstrument<TestIR>(std::ref(n))}), TestError);
  CHECK(join(log.events, " / ") == "A bad exit_pass_ctx!!!");  // B not exited, New never entered
  CHECK(ctx.instruments().empty());
  CHECK(join(capture.lines) == "INFO Pass instrumentation exiting pass context failed.");
}

TEST_CASE("dynamic: override_instruments -- a failed new enter clears the new list") {
  EventLog log;
  LogCapture capture;
  auto n1 = recorder("N1", log);
  auto n2 = make("N2", log, Hook::enter);
  Ctx ctx;
  CHECK_THROWS_AS(ctx.override_instruments({AnyInstrument<TestIR>(std::ref(n1)), AnyInstrument<TestIR>(std::ref(n2))}),
                  TestError);
  CHECK(join(log.events, " / ") == "N1 enter_pass_ctx / N2 bad enter_pass_ctx!!! / N1 exit_pass_ctx");
  CHECK(ctx.instruments().empty());
  CHECK(capture.lines.front() == "INFO Pass instrumentation entering pass context failed.");
}

TEST_CASE("dynamic: each thread has its own stack and default context; a new thread inherits nothing") {
  ResetDefault reset;
  EventLog log;
  auto a = recorder("A", log);
  Ctx ctx({.opt_level = 4}, {AnyInstrument<TestIR>(std::ref(a))});
  auto scope = ctx.enter();
  Ctx::current().override_instruments(Ctx::current().instruments().items());  // re-enter A on ctx
  const Ctx* seen_current = nullptr;
  const Ctx* seen_default = nullptr;
  int seen_level = -1;
  std::size_t seen_instruments = 99;
  std::thread t([&] {
    seen_current = &Ctx::current();
    seen_default = &Ctx::thread_default();
    seen_level = Ctx::current().opt_level();
    seen_instruments = Ctx::current().instruments().size();
  });
  t.join();
  CHECK(seen_current == seen_default);
  CHECK(seen_current != &Ctx::thread_default());
  CHECK(seen_level == 2);
  CHECK(seen_instruments == 0);
  CHECK(&Ctx::current() == &ctx);
}

TEST_CASE("dynamic: a null shared_ptr instrument is rejected with a clear error") {
  std::shared_ptr<Recorder> none;
  try {
    AnyInstrument<TestIR> i(none);
    FAIL("expected passinfra::Error");
  } catch (const passinfra::Error& e) {
    CHECK(std::string(e.what()).find("is null; expected an instrument object") != std::string::npos);
    CHECK(std::string(e.what()).find("Recorder") != std::string::npos);
  }
}

TEST_CASE("dynamic: AnyInstrument -- owning copies share the object; name and hook presence") {
  EventLog log;
  auto owned = passinfra::make_instrument<TestIR, EnterExitOnly>();
  owned.target<EnterExitOnly>()->name = "Owned";
  owned.target<EnterExitOnly>()->log = &log;
  auto copy = owned;
  copy.enter_pass_ctx();
  CHECK(join(log.events) == "Owned enter_pass_ctx");
  CHECK(owned.name() == "Owned");
  CHECK(owned.has_enter_pass_ctx());
  CHECK_FALSE(owned.has_should_run());
  CHECK(owned.should_run(TestIR{}, {"X", 0}));  // defaults to run
  CHECK(copy.target<Recorder>() == nullptr);
}
