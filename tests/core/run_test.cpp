// passinfra/core/run.hpp on the static layer: what `run` needs of a context,
// the hook-free path, and an IR that can only be moved.
// (SPEC §3's event order is in tests/spec/run_spec_test.cpp.)
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using passinfra::PassInfo;
using namespace pitest;

namespace run_test {

static_assert(passinfra::PassRunContext<passinfra::PassContext<TestIR, passinfra::InstrumentSet<>>>);
static_assert(passinfra::PassRunContext<passinfra::PassContext<TestIR, passinfra::InstrumentSet<Recorder&>>>);
static_assert(!passinfra::PassRunContext<int>);
static_assert(!passinfra::PassRunContext<passinfra::InstrumentSet<>>);

// An IR that cannot be copied: every step of `run` must move it.
struct MoveOnlyIR {
  std::unique_ptr<std::vector<std::string>> trail = std::make_unique<std::vector<std::string>>();
};

struct MoveOnlyRecorder {
  std::vector<std::string>* events;
  bool veto = false;
  bool should_run(const MoveOnlyIR& ir, const PassInfo& info) {
    events->push_back("should_run " + std::string(info.name) + " " + std::to_string(ir.trail->size()));
    return !veto;
  }
  void run_before_pass(const MoveOnlyIR& ir, const PassInfo& info) {
    events->push_back("before " + std::string(info.name) + " " + std::to_string(ir.trail->size()));
  }
  void run_after_pass(const MoveOnlyIR& ir, const PassInfo& info) {
    events->push_back("after " + std::string(info.name) + " " + std::to_string(ir.trail->size()));
  }
};

struct Append {
  static constexpr PassInfo info{"Append", 0};
  MoveOnlyIR transform(MoveOnlyIR ir, auto&) const {
    ir.trail->push_back("Append");
    return ir;
  }
};
struct AppendTwice {
  static constexpr PassInfo info{"AppendTwice", 0};
  using required = passinfra::requires_passes<Append>;
  MoveOnlyIR transform(MoveOnlyIR ir, auto&) const {
    ir.trail->push_back("AppendTwice");
    return ir;
  }
};

// Counts the bodies it runs, so the hook-free path can be checked.
struct Counted {
  static constexpr PassInfo info{"Counted", 0};
  int* count;
  TestIR transform(TestIR ir, auto&) const {
    ++*count;
    ir.value *= 10;
    return ir;
  }
};

}  // namespace run_test

using namespace run_test;

TEST_CASE("core/run: with the empty set, run is the body") {
  int count = 0;
  auto ctx = passinfra::make_pass_context<TestIR>({});
  static_assert(decltype(ctx)::instrument_set_type::hook_free<TestIR>);
  TestIR out = passinfra::run(Counted{&count}, TestIR{nullptr, 4}, ctx);
  CHECK(count == 1);
  CHECK(out.value == 40);
}

TEST_CASE("core/run: instruments with only enter and exit hooks leave run hook-free") {
  EventLog log;
  int count = 0;
  auto a = make<EnterExitOnly>("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>({}, std::ref(a));
  static_assert(decltype(ctx)::instrument_set_type::hook_free<TestIR>);
  TestIR out = ctx.with([&] { return passinfra::run(Counted{&count}, TestIR{nullptr, 2}, ctx); });
  CHECK(out.value == 20);
  CHECK(join(log.events, " / ") == "A enter_pass_ctx / A exit_pass_ctx");
}

TEST_CASE("core/run: a move-only IR goes through run, Sequential and module_pass, hooks see it by reference") {
  std::vector<std::string> events;
  MoveOnlyRecorder rec{&events};
  auto ctx = passinfra::make_pass_context<MoveOnlyIR>({}, std::ref(rec));
  auto lambda = passinfra::module_pass({"Lambda", 0}, [](MoveOnlyIR ir) {
    ir.trail->push_back("Lambda");
    return ir;
  });
  passinfra::Sequential seq{AppendTwice{}, lambda};
  MoveOnlyIR out = passinfra::run(seq, MoveOnlyIR{}, ctx);
  CHECK(*out.trail == std::vector<std::string>{"Append", "AppendTwice", "Lambda"});
  CHECK(join(events, " / ") ==
        "should_run sequential 0 / before sequential 0 / should_run Append 0 / before Append 0 / after Append 1 / "
        "should_run AppendTwice 1 / before AppendTwice 1 / after AppendTwice 2 / should_run Lambda 2 / "
        "before Lambda 2 / after Lambda 3 / after sequential 3");

  // A veto returns the very same (moved) input.
  rec.veto = true;
  MoveOnlyIR in;
  in.trail->push_back("kept");
  const auto* address = in.trail.get();
  MoveOnlyIR vetoed = passinfra::run(Append{}, std::move(in), ctx);
  CHECK(vetoed.trail.get() == address);
  CHECK(*vetoed.trail == std::vector<std::string>{"kept"});
}
