// passinfra/core/instrument_set.hpp: InstrumentSet<Is...> -- holding by value
// or by reference, get<K>(), the has_* constants, the hook fan-out and its
// counters, clear(), make_instrument_set.
#include <doctest/doctest.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <passinfra/core.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using passinfra::InstrumentSet;
using passinfra::PassInfo;
using namespace pitest;

namespace instrument_set_test {

struct OtherIR {};

// Counts its hooks in its own members, so a copy and the original differ.
struct Counter {
  int enters = 0;
  int exits = 0;
  int should_runs = 0;
  int befores = 0;
  int afters = 0;
  void enter_pass_ctx() { ++enters; }
  void exit_pass_ctx() { ++exits; }
  bool should_run(const TestIR&, const PassInfo&) {
    ++should_runs;
    return true;
  }
  void run_before_pass(const TestIR&, const PassInfo&) { ++befores; }
  void run_after_pass(const TestIR&, const PassInfo&) { ++afters; }
};

struct EnterOnly {
  void enter_pass_ctx() {}
};
struct BeforeOnly {
  void run_before_pass(const TestIR&, const PassInfo&) {}
};
struct ShouldRunOnlyI {
  bool should_run(const TestIR&, const PassInfo&) { return true; }
};
struct AfterOnly {
  void run_after_pass(const TestIR&, const PassInfo&) {}
};
struct FailedOnly {
  void run_after_pass_failed(const PassInfo&, std::exception_ptr) {}
};

// The has_* constants say which hooks exist for an IR; hook_free means `run` calls only the body.
static_assert(InstrumentSet<>::hook_free<TestIR>);
static_assert(!InstrumentSet<>::has_should_run<TestIR> && !InstrumentSet<>::has_run_after_pass_failed);
static_assert(InstrumentSet<EnterOnly>::hook_free<TestIR>);  // enter/exit hooks are not pass-level hooks
static_assert(InstrumentSet<ShouldRunOnlyI>::has_should_run<TestIR>);
static_assert(!InstrumentSet<ShouldRunOnlyI>::has_run_before_pass<TestIR>);
static_assert(!InstrumentSet<ShouldRunOnlyI>::hook_free<TestIR>);
static_assert(InstrumentSet<EnterOnly, BeforeOnly>::has_run_before_pass<TestIR>);
static_assert(!InstrumentSet<EnterOnly, BeforeOnly>::has_should_run<TestIR>);
static_assert(!InstrumentSet<EnterOnly, BeforeOnly>::has_run_after_pass<TestIR>);
static_assert(InstrumentSet<AfterOnly&>::has_run_after_pass<TestIR>);  // by reference: the same answers
static_assert(InstrumentSet<FailedOnly>::has_run_after_pass_failed);
static_assert(!InstrumentSet<FailedOnly>::hook_free<TestIR>);
static_assert(!InstrumentSet<Counter>::has_run_after_pass_failed);
// The answers depend on the IR: Counter's hooks take TestIR.
static_assert(InstrumentSet<Counter>::has_should_run<TestIR>);
static_assert(InstrumentSet<Counter>::hook_free<OtherIR>);

// make_instrument_set: std::ref(x) -> T&, anything else by value (decayed).
inline void deduction() {
  Counter c;
  const Counter cc;
  static_assert(std::is_same_v<decltype(passinfra::make_instrument_set(std::ref(c), c, cc, Counter{})),
                               InstrumentSet<Counter&, Counter, Counter, Counter>>);
  static_assert(std::is_same_v<decltype(passinfra::make_instrument_set()), InstrumentSet<>>);
  static_assert(std::is_same_v<decltype(passinfra::make_instrument_set(std::cref(c))), InstrumentSet<const Counter&>>);
}

// Layout: an empty instrument takes no room in a set (a detail::FlatTuple of
// [[no_unique_address]] slots), a final one included; a set of distinct empty
// instruments is its cleared flag alone, and a context is no bigger for them.
struct EmptyA {
  void run_before_pass(const TestIR&, const PassInfo&) {}
};
struct EmptyB {
  void run_after_pass(const TestIR&, const PassInfo&) {}
};
struct EmptyFinal final {
  void run_before_pass(const TestIR&, const PassInfo&) {}
};
struct CountingFinal final {
  long befores = 0;
  void run_before_pass(const TestIR&, const PassInfo&) { ++befores; }
};
static_assert(std::is_empty_v<InstrumentSet<>>);
static_assert(sizeof(InstrumentSet<EmptyA>) == sizeof(bool));
static_assert(sizeof(InstrumentSet<EmptyA, EmptyB, EmptyFinal>) == sizeof(bool));
static_assert(sizeof(InstrumentSet<EmptyFinal, CountingFinal>) == sizeof(InstrumentSet<CountingFinal>));
static_assert(sizeof(InstrumentSet<Counter, EmptyA, EmptyB>) == sizeof(InstrumentSet<Counter>));
static_assert(sizeof(InstrumentSet<EmptyA, Counter, EmptyFinal>) == sizeof(InstrumentSet<Counter>));
static_assert(sizeof(InstrumentSet<Counter&, EmptyA, EmptyB>) == sizeof(InstrumentSet<Counter&>));
static_assert(sizeof(passinfra::PassContext<TestIR, InstrumentSet<EmptyA, EmptyB, EmptyFinal>>) ==
              sizeof(passinfra::PassContext<TestIR, InstrumentSet<>>));
static_assert(sizeof(passinfra::PassContext<TestIR, InstrumentSet<Counter&, EmptyA, EmptyB>>) ==
              sizeof(passinfra::PassContext<TestIR, InstrumentSet<Counter&>>));
// A set holding a reference has no default constructor (a trait asks without a hard error).
static_assert(std::is_default_constructible_v<InstrumentSet<Counter, EmptyA>>);
static_assert(!std::is_default_constructible_v<InstrumentSet<Counter&>>);
static_assert(!std::is_default_constructible_v<InstrumentSet<EmptyA, const Counter&>>);

}  // namespace instrument_set_test

using namespace instrument_set_test;

TEST_CASE("core/instrument_set: final instruments, by value and by reference, get their hooks") {
  CountingFinal by_reference;
  auto set = passinfra::make_instrument_set(EmptyFinal{}, std::ref(by_reference), CountingFinal{});
  const PassInfo info{"p", 0};
  set.run_before_pass(TestIR{}, info);
  set.run_before_pass(TestIR{}, info);
  CHECK(by_reference.befores == 2);
  CHECK(set.get<2>().befores == 2);
  CHECK(&set.get<1>() == &by_reference);
  CHECK(set.size() == 3);
}

TEST_CASE("core/instrument_set: std::ref holds the caller's object, by value holds a copy") {
  Counter by_ref;
  Counter by_value;
  by_value.enters = 10;  // the copy starts from here
  auto set = passinfra::make_instrument_set(std::ref(by_ref), by_value);
  static_assert(std::is_same_v<decltype(set), InstrumentSet<Counter&, Counter>>);

  CHECK(&set.get<0>() == &by_ref);
  CHECK(&set.get<1>() != &by_value);
  CHECK(set.get<1>().enters == 10);

  EventLog log;
  std::size_t returned = 0;
  std::size_t started = 0;
  set.enter_pass_ctx();
  CHECK(set.should_run(TestIR{&log}, PassInfo{"P", 0}));
  set.run_before_pass(TestIR{&log}, PassInfo{"P", 0}, returned);
  set.run_after_pass(TestIR{&log}, PassInfo{"P", 0}, started);
  set.exit_pass_ctx(false);

  // The referenced instrument saw every event ...
  CHECK(by_ref.enters == 1);
  CHECK(by_ref.should_runs == 1);
  CHECK(by_ref.befores == 1);
  CHECK(by_ref.afters == 1);
  CHECK(by_ref.exits == 1);
  // ... the caller's by-value object saw none; the set's copy saw them.
  CHECK(by_value.enters == 10);
  CHECK(by_value.befores == 0);
  CHECK(set.get<1>().enters == 11);
  CHECK(set.get<1>().befores == 1);
  CHECK(set.get<1>().exits == 1);
  // get<K>() on a const set reaches the same objects.
  const auto& cset = set;
  CHECK(&cset.get<0>() == &by_ref);
  CHECK(cset.get<1>().afters == 1);
}

TEST_CASE("core/instrument_set: a context built with std::ref lets the caller read the results") {
  Counter by_ref;
  Counter by_value;
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(by_ref), by_value);
  EventLog log;
  ctx.with([&] { (void)passinfra::run(TestPass<"P">{}, TestIR{&log}, ctx); });
  CHECK(by_ref.enters == 1);
  CHECK(by_ref.befores == 1);
  CHECK(by_ref.exits == 1);
  CHECK(by_value.befores == 0);
  CHECK(ctx.instruments().get<1>().befores == 1);
  CHECK(ctx.instruments().get<1>().exits == 1);
}

TEST_CASE("core/instrument_set: size, and for_each_instrument visits every instrument with its position") {
  EventLog log;
  auto a = recorder("A", log);
  auto b = make<EnterExitOnly>("B", log);
  auto set = passinfra::make_instrument_set(std::ref(a), std::ref(b), Counter{});
  CHECK(set.size() == 3);
  CHECK(passinfra::make_instrument_set().size() == 0);

  std::vector<std::string> seen;
  set.for_each_instrument([&](auto& instrument, std::size_t position) {
    seen.push_back(std::to_string(position) + ":" + std::string(passinfra::instrument_name(instrument)));
  });
  CHECK(join(seen, ",") == "0:A,1:B,2:instrument_set_test::Counter");
}

TEST_CASE("core/instrument_set: should_run asks everyone and ANDs, before and after count their hooks") {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  auto c = make<EnterExitOnly>("C", log);  // no pass hooks, still counted by position
  auto set = passinfra::make_instrument_set(std::ref(a), std::ref(b), std::ref(c));
  b.veto = true;
  const TestIR ir{&log};
  const PassInfo info{"P", 0};
  CHECK_FALSE(set.should_run(ir, info));
  CHECK(join(log.events, " / ") == "A should_run P / B should_run P");
  b.veto = false;
  CHECK(set.should_run(ir, info));

  log.clear();
  std::size_t returned = 0;
  set.run_before_pass(ir, info, returned);
  CHECK(returned == 3);
  std::size_t started = 0;
  set.run_after_pass(ir, info, started);
  CHECK(started == 3);
  CHECK(join(log.events, " / ") ==
        "A run_before_pass P / B run_before_pass P / A run_after_pass P / B run_after_pass P");

  // A throwing before hook stops the count at the ones that returned.
  b.fail_at = Hook::before;
  returned = 0;
  CHECK_THROWS_AS(set.run_before_pass(ir, info, returned), TestError);
  CHECK(returned == 1);
  // A throwing after hook: it was started, the later ones were not.
  b.fail_at = Hook::after;
  started = 0;
  CHECK_THROWS_AS(set.run_after_pass(ir, info, started), TestError);
  CHECK(started == 2);
  b.fail_at.reset();

  // An instrument without pass hooks between two with them still counts:
  // the third one's throw finds two returned, three started.
  auto set2 = passinfra::make_instrument_set(std::ref(a), std::ref(c), std::ref(b));
  b.fail_at = Hook::before;
  returned = 0;
  CHECK_THROWS_AS(set2.run_before_pass(ir, info, returned), TestError);
  CHECK(returned == 2);
  b.fail_at = Hook::after;
  started = 0;
  CHECK_THROWS_AS(set2.run_after_pass(ir, info, started), TestError);
  CHECK(started == 3);
  a.fail_at = Hook::after;  // the first one's throw: one started
  b.fail_at.reset();
  started = 0;
  CHECK_THROWS_AS(set2.run_after_pass(ir, info, started), TestError);
  CHECK(started == 1);
  // The counts add to what they were (the caller's running total).
  a.fail_at.reset();
  returned = 5;
  set2.run_before_pass(ir, info, returned);
  CHECK(returned == 8);
  started = 5;
  set2.run_after_pass(ir, info, started);
  CHECK(started == 8);
}

TEST_CASE("core/instrument_set: run_after_pass_failed reaches the positions from..to only") {
  EventLog log;
  auto a = make<FailureAwareRecorder>("A", log);
  auto b = make<FailureAwareRecorder>("B", log);
  auto c = make<FailureAwareRecorder>("C", log);
  auto set = passinfra::make_instrument_set(std::ref(a), std::ref(b), std::ref(c));
  static_assert(decltype(set)::has_run_after_pass_failed);
  const auto error = std::make_exception_ptr(std::runtime_error("x"));
  set.run_after_pass_failed(PassInfo{"P", 0}, error, 1, 3);
  CHECK(join(log.events, " / ") == "B run_after_pass_failed P / C run_after_pass_failed P");
  log.clear();
  set.run_after_pass_failed(PassInfo{"P", 0}, error, 0, 1);
  CHECK(join(log.events, " / ") == "A run_after_pass_failed P");
  log.clear();
  set.run_after_pass_failed(PassInfo{"P", 0}, error, 2, 2);
  CHECK(log.events.empty());
}

TEST_CASE("core/instrument_set: clear() turns every hook off for good, enter and exit included") {
  EventLog log;
  auto a = recorder("A", log);
  a.veto = true;
  auto set = passinfra::make_instrument_set(std::ref(a));
  CHECK(set.active());
  set.clear();
  CHECK_FALSE(set.active());
  std::size_t returned = 0;
  std::size_t started = 0;
  set.enter_pass_ctx();
  CHECK(set.should_run(TestIR{&log}, PassInfo{"P", 0}));  // no one asked: "run"
  set.run_before_pass(TestIR{&log}, PassInfo{"P", 0}, returned);
  set.run_after_pass(TestIR{&log}, PassInfo{"P", 0}, started);
  set.exit_pass_ctx(false);
  CHECK(log.events.empty());
  CHECK(returned == 0);
  CHECK(started == 0);
  CHECK(set.size() == 1);  // the instrument is still held, only silenced
  // The empty set is always active.
  InstrumentSet<> empty;
  empty.clear();
  CHECK(empty.active());
}

TEST_CASE("core/instrument_set: exit_pass_ctx with an exception in flight logs the exit's exception and drops it") {
  EventLog log;
  LogCapture capture;
  auto a = make("A", log, Hook::exit, 3);
  auto b = recorder("B", log);
  auto set = passinfra::make_instrument_set(std::ref(a), std::ref(b));
  CHECK_NOTHROW(set.exit_pass_ctx(true));
  CHECK(join(log.events, " / ") == "A bad exit_pass_ctx!!!");  // B is not exited (SPEC 5.2)
  CHECK_FALSE(set.active());
  REQUIRE(capture.lines.size() == 2);
  CHECK(capture.lines[0] == "INFO Pass instrumentation exiting pass context failed.");
  CHECK(capture.lines[1] ==
        "WARNING exit_pass_ctx of instrument A threw while another exception was propagating; it is dropped: "
        "A failed in exit_pass_ctx");
}

TEST_CASE("core/instrument_set: the set's own constructor takes values and reference_wrappers") {
  Counter c;
  InstrumentSet<Counter&, Counter> set(std::ref(c), Counter{});
  CHECK(&set.get<0>() == &c);
  InstrumentSet<Counter&> from_lvalue(c);  // T& elements bind to an lvalue directly
  CHECK(&from_lvalue.get<0>() == &c);
  InstrumentSet<Counter&> copy = from_lvalue;  // copying the set keeps the reference
  CHECK(&copy.get<0>() == &c);
}
