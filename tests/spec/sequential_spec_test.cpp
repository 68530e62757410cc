// SPEC §4: Sequential -- gating, required passes, nesting -- on every layer.
#include <doctest/doctest.h>

#include "support/layers.hpp"
#include "support/recorder.hpp"

using namespace pitest;
using passinfra::requires_passes;

namespace {
using R = TestPass<"R">;
using P = TestPass<"P", 0, requires_passes<R>>;
}  // namespace

TEST_CASE_TEMPLATE("SPEC 4: the Sequential's own events wrap its children's (the SPEC's example)", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  auto ctx = L::context({}, a, b);
  auto seq = L::seq(L::pass(P{}));
  TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"R", "P"});
  CHECK(join(log.events) == R"(A should_run sequential
B should_run sequential
A run_before_pass sequential
B run_before_pass sequential
A should_run R
B should_run R
A run_before_pass R
B run_before_pass R
R
A run_after_pass R
B run_after_pass R
A should_run P
B should_run P
A run_before_pass P
B run_before_pass P
P
A run_after_pass P
B run_after_pass P
A run_after_pass sequential
B run_after_pass sequential)");
}

TEST_CASE_TEMPLATE("SPEC 4: a child that is not enabled is skipped entirely", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  a.with_pass_names = true;
  using P1 = TestPass<"P1", 1>;
  using P2 = TestPass<"P2", 3, requires_passes<R>>;
  using P3 = TestPass<"P3", 2>;
  auto seq = L::seq(L::pass(P1{}), L::pass(P2{}), L::pass(P3{}));

  SUBCASE("by opt_level (default 2): P2 (opt_level 3) and its required R do not run") {
    auto ctx = L::context({}, a);
    TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"P1", "P3"});
    for (const auto& e : log.events) {
      CHECK(e.find("P2") == std::string::npos);
      CHECK(e.find(" R") == std::string::npos);
    }
  }
  SUBCASE("at opt_level 3 everything runs") {
    auto ctx = L::context({.opt_level = 3}, a);
    CHECK(passinfra::run(seq, TestIR{&log}, ctx).trail == std::vector<std::string>{"P1", "R", "P2", "P3"});
  }
  SUBCASE("disabled_pass wins over opt_level and required_pass") {
    auto ctx = L::context({.opt_level = 3, .required_pass = {"P1"}, .disabled_pass = {"P1"}}, a);
    CHECK(passinfra::run(seq, TestIR{&log}, ctx).trail == std::vector<std::string>{"R", "P2", "P3"});
  }
  SUBCASE("required_pass enables a pass above the opt_level, and it skips should_run") {
    a.veto_only = {"P2"};
    auto ctx = L::context({.opt_level = 0, .required_pass = {"P2"}}, a);
    TestIR out = passinfra::run(seq, TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"R", "P2"});
    CHECK(join(log.events, " / ") ==
          "A should_run sequential / A run_before_pass sequential / A should_run R / A run_before_pass R / R / "
          "A run_after_pass R / A run_before_pass P2 / P2 / A run_after_pass P2 / A run_after_pass sequential");
  }
  SUBCASE("names match exactly") {
    auto ctx = L::context({.opt_level = 3, .disabled_pass = {"p1", "P", "P1 "}}, a);
    CHECK(passinfra::run(seq, TestIR{&log}, ctx).trail == std::vector<std::string>{"P1", "R", "P2", "P3"});
  }
}

TEST_CASE_TEMPLATE("SPEC 4: required passes run without the gate, with should_run, every time, one level deep", L,
                   PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  using T = TestPass<"T">;
  using Deep = TestPass<"Deep", 4, requires_passes<T>>;  // opt_level 4, requires T
  using Q = TestPass<"Q", 0, requires_passes<Deep, R>>;  // requires Deep then R
  using Q2 = TestPass<"Q2", 0, requires_passes<R>>;

  SUBCASE("not gated: a required pass above the opt_level and disabled still runs; its own requirement does not") {
    auto ctx = L::context({.opt_level = 0, .disabled_pass = {"Deep", "R"}}, a);
    TestIR out = passinfra::run(L::seq(L::pass(Q{})), TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"Deep", "R", "Q"});
  }
  SUBCASE("no de-duplication") {
    auto ctx = L::context({}, a);
    TestIR out = passinfra::run(L::seq(L::pass(P{}), L::pass(Q2{}), L::pass(P{})), TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"R", "P", "R", "Q2", "R", "P"});
  }
  SUBCASE("should_run applies to required passes") {
    a.veto_only = {"R"};
    auto ctx = L::context({}, a);
    TestIR out = passinfra::run(L::seq(L::pass(P{})), TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"P"});
  }
  SUBCASE("a required pass named in required_pass skips should_run") {
    a.veto_only = {"R"};
    auto ctx = L::context({.required_pass = {"R"}}, a);
    TestIR out = passinfra::run(L::seq(L::pass(P{})), TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"R", "P"});
  }
  SUBCASE("a required pass is only run by a Sequential, not by run() itself") {
    auto ctx = L::context({}, a);
    TestIR out = passinfra::run(L::pass(P{}), TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"P"});
  }
}

TEST_CASE_TEMPLATE("SPEC 4: Sequentials nest, each gated by its own opt_level like any child", L, PITEST_LAYERS) {
  EventLog log;
  auto a = recorder("A", log);
  using X = TestPass<"X">;
  using Y = TestPass<"Y">;
  auto inner = L::seq(L::pass(X{}), L::pass(Y{}));
  auto outer = L::seq(L::pass(P{}), inner, L::pass(X{}));

  SUBCASE("at opt_level 0 the nested Sequential (opt_level 0) runs, its events inside the outer's") {
    auto ctx = L::context({.opt_level = 0}, a);
    TestIR out = passinfra::run(outer, TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"R", "P", "X", "Y", "X"});
    CHECK(std::count(log.events.begin(), log.events.end(), "A run_before_pass sequential") == 2);
    CHECK(log.events.front() == "A should_run sequential");
    CHECK(log.events.back() == "A run_after_pass sequential");
  }
  SUBCASE("vetoing the Sequential skips all of its children") {
    a.veto = true;
    auto ctx = L::context({}, a);
    TestIR out = passinfra::run(outer, TestIR{&log}, ctx);
    CHECK(out.trail.empty());
    CHECK(join(log.events, " / ") == "A should_run sequential");
  }
  SUBCASE("duplicates are legal") {
    auto ctx = L::context({}, a);
    TestIR out = passinfra::run(L::seq(L::pass(X{}), L::pass(X{})), TestIR{&log}, ctx);
    CHECK(out.trail == std::vector<std::string>{"X", "X"});
  }
  SUBCASE("an empty Sequential is a pass that does nothing but its own hooks") {
    auto ctx = L::context({}, a);
    TestIR out = passinfra::run(L::seq(), TestIR{&log}, ctx);
    CHECK(out.trail.empty());
    CHECK(join(log.events, " / ") ==
          "A should_run sequential / A run_before_pass sequential / A run_after_pass sequential");
  }
}
