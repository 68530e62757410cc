// passinfra/core/instrument.hpp: hook detection (one named concept per hook),
// InstrumentFor, and instrument_name.
#include <doctest/doctest.h>

#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>

#include <passinfra/core.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using passinfra::PassInfo;
using pitest::TestIR;

namespace instrument_test {

struct OtherIR {};

struct EnterOnly {
  void enter_pass_ctx() {}
};
struct ExitOnly {
  void exit_pass_ctx() {}
};
struct ShouldRunOnly {
  bool should_run(const TestIR&, const PassInfo&) { return true; }
};
struct BeforeOnly {
  void run_before_pass(const TestIR&, const PassInfo&) {}
};
struct AfterOnly {
  void run_after_pass(const TestIR&, const PassInfo&) {}
};
struct FailedOnly {
  void run_after_pass_failed(const PassInfo&, std::exception_ptr) {}
};
// Generic hooks work for every IR.
struct Generic {
  bool should_run(const auto&, const PassInfo&) { return true; }
  void run_before_pass(const auto&, const PassInfo&) {}
  void run_after_pass(const auto&, const PassInfo&) {}
};
// Hooks for another IR are not hooks for TestIR.
struct ForOtherIR {
  bool should_run(const OtherIR&, const PassInfo&) { return true; }
  void run_before_pass(const OtherIR&, const PassInfo&) {}
};
// Typos and wrong parameter lists are not hooks.
struct Typos {
  void enter_pass_context() {}
  void run_before(const TestIR&, const PassInfo&) {}
  void run_after_pass(const TestIR&) {}
};
// A const hook is found through a non-const object too.
struct ConstHooks {
  void enter_pass_ctx() const {}
  bool should_run(const TestIR&, const PassInfo&) const { return false; }
};

static_assert(passinfra::HasEnterPassCtx<EnterOnly> && !passinfra::HasExitPassCtx<EnterOnly>);
static_assert(passinfra::HasExitPassCtx<ExitOnly> && !passinfra::HasEnterPassCtx<ExitOnly>);
static_assert(passinfra::HasShouldRun<ShouldRunOnly, TestIR> && !passinfra::HasRunBeforePass<ShouldRunOnly, TestIR>);
static_assert(passinfra::HasRunBeforePass<BeforeOnly, TestIR> && !passinfra::HasRunAfterPass<BeforeOnly, TestIR>);
static_assert(passinfra::HasRunAfterPass<AfterOnly, TestIR> && !passinfra::HasShouldRun<AfterOnly, TestIR>);
static_assert(passinfra::HasRunAfterPassFailed<FailedOnly> && !passinfra::HasRunAfterPassFailed<AfterOnly>);

static_assert(passinfra::HasShouldRun<Generic, TestIR> && passinfra::HasShouldRun<Generic, OtherIR>);
static_assert(passinfra::HasRunAfterPass<Generic, OtherIR>);

static_assert(passinfra::HasShouldRun<ForOtherIR, OtherIR> && !passinfra::HasShouldRun<ForOtherIR, TestIR>);
static_assert(!passinfra::HasRunBeforePass<ForOtherIR, TestIR>);
static_assert(passinfra::InstrumentFor<ForOtherIR, OtherIR> && !passinfra::InstrumentFor<ForOtherIR, TestIR>);

static_assert(!passinfra::HasEnterPassCtx<Typos> && !passinfra::HasRunBeforePass<Typos, TestIR> &&
              !passinfra::HasRunAfterPass<Typos, TestIR>);
static_assert(!passinfra::InstrumentFor<Typos, TestIR>);

static_assert(passinfra::HasEnterPassCtx<ConstHooks> && passinfra::HasShouldRun<ConstHooks, TestIR>);

// InstrumentFor<I, IR>: any one hook is enough.
static_assert(passinfra::InstrumentFor<EnterOnly, TestIR> && passinfra::InstrumentFor<ExitOnly, TestIR> &&
              passinfra::InstrumentFor<ShouldRunOnly, TestIR> && passinfra::InstrumentFor<BeforeOnly, TestIR> &&
              passinfra::InstrumentFor<AfterOnly, TestIR> && passinfra::InstrumentFor<FailedOnly, TestIR>);
static_assert(!passinfra::InstrumentFor<int, TestIR>);
static_assert(passinfra::InstrumentFor<pitest::Recorder, TestIR>);

// A static instrument is not a run-time list.
static_assert(!passinfra::InstrumentList<pitest::Recorder>);

struct NamedByFunction {
  std::string_view name() const { return "by-function"; }
  void enter_pass_ctx() {}
};
struct NamedByMember {
  std::string name = "by-member";
  void enter_pass_ctx() {}
};
struct NamedByConstant {
  static constexpr std::string_view name = "by-constant";
  void enter_pass_ctx() {}
};
struct Plain {
  void enter_pass_ctx() {}
};
template <class T>
struct Wrapper {
  void enter_pass_ctx() {}
};

}  // namespace instrument_test

using namespace instrument_test;

TEST_CASE("core/instrument: instrument_name uses name(), else a name member, else the type's name") {
  CHECK(passinfra::instrument_name(NamedByFunction{}) == "by-function");
  NamedByMember member;
  CHECK(passinfra::instrument_name(member) == "by-member");
  member.name = "renamed";
  CHECK(passinfra::instrument_name(member) == "renamed");  // read each time, not cached
  CHECK(passinfra::instrument_name(NamedByConstant{}) == "by-constant");
  CHECK(passinfra::instrument_name(Plain{}) == "instrument_test::Plain");
  CHECK(passinfra::instrument_name(Wrapper<int>{}) == "instrument_test::Wrapper<int>");
}

TEST_CASE("core/instrument: the Recorder of the test kit is named by its name member") {
  pitest::EventLog log;
  auto r = pitest::recorder("Fine_0", log);
  CHECK(passinfra::instrument_name(r) == "Fine_0");
}

TEST_CASE("core/instrument: hooks found through the concepts are the ones called") {
  // ConstHooks::should_run says no: a set built from it vetoes the pass.
  auto set = passinfra::make_instrument_set(ConstHooks{});
  pitest::EventLog log;
  CHECK_FALSE(set.should_run(TestIR{&log}, PassInfo{"P", 0}));
  // Generic hooks answer for any IR.
  auto generic = passinfra::make_instrument_set(Generic{});
  CHECK(generic.should_run(OtherIR{}, PassInfo{"P", 0}));
}
