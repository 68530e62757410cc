// PassStatistics: per pass name, runs, skips (vetoed) and failures; a printable table.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/pass_statistics.hpp>

#include "support/generic_instruments.hpp"
#include "support/layers.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;
using passinfra::PassCounts;
using passinfra::PassStatistics;

TEST_CASE_TEMPLATE("PassStatistics: runs, skips and failures per name, in first-seen order", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  PassStatistics stats;
  VetoNames veto{{"Vetoed"}};
  auto ctx = L::context({.required_pass = {"Must"}}, stats, veto);
  auto seq =
      L::seq(append_pass("A", "a"), append_pass("Vetoed", "v"), append_pass("Must", "m"), append_pass("A", "a2"));
  (void)passinfra::run(seq, text_ir({}), ctx);
  (void)passinfra::run(seq, text_ir({}), ctx);
  CHECK_THROWS((void)passinfra::run(crash_if_pass("Crash", "x"), text_ir({"x"}), ctx));
  CHECK(stats.counts("A") == PassCounts{4, 0, 0});
  CHECK(stats.counts("Vetoed") == PassCounts{0, 2, 0});
  CHECK(stats.counts("Must") == PassCounts{2, 0, 0});  // never asked (required_pass), ran
  CHECK(stats.counts("Crash") == PassCounts{1, 0, 1});
  CHECK(stats.counts("sequential") == PassCounts{2, 0, 0});
  CHECK(stats.counts("Unknown") == PassCounts{});
  CHECK(stats.table() ==
        "Pass statistics:\n"
        "      Runs     Skips  Failures  Name\n"
        "         2         0         0  sequential\n"
        "         4         0         0  A\n"
        "         0         2         0  Vetoed\n"
        "         2         0         0  Must\n"
        "         1         0         1  Crash\n");
}

TEST_CASE("PassStatistics: a nested failure fails the enclosing passes too; a vetoed parent hides its children") {
  PassStatistics stats;
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(stats), VetoNames{{"Hidden"}});
  passinfra::Sequential seq{passinfra::Sequential(passinfra::PassInfo{"Hidden", 0}, append_pass("Inside", "i")),
                            crash_if_pass("Crash", "")};
  CHECK_THROWS((void)passinfra::run(seq, text_ir({""}), ctx));
  const auto rows = stats.rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::pair<std::string, PassCounts>{"sequential", {1, 0, 1}});
  CHECK(rows[1] == std::pair<std::string, PassCounts>{"Hidden", {0, 1, 0}});
  CHECK(rows[2] == std::pair<std::string, PassCounts>{"Crash", {1, 0, 1}});
}

TEST_CASE("PassStatistics: passes the PassEnabled gate skips are not counted; reset() forgets") {
  PassStatistics stats;
  auto ctx = passinfra::make_pass_context<TextIR>({.opt_level = 1}, std::ref(stats));
  auto high = passinfra::module_pass(passinfra::PassInfo{"High", 3}, [](TextIR ir) { return ir; });
  passinfra::Sequential seq{high, append_pass("Low", "l")};
  (void)passinfra::run(seq, text_ir({}), ctx);
  CHECK(stats.counts("High") == PassCounts{});
  CHECK(stats.counts("Low") == PassCounts{1, 0, 0});
  stats.reset();
  CHECK(stats.rows().empty());
  CHECK(stats.table() == "Pass statistics:\n      Runs     Skips  Failures  Name\n");
}

TEST_CASE_TEMPLATE("PassStatistics: an instrument listed before it throws in run_before_pass -- a skip", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  PassStatistics stats;
  ThrowAt thrower{At::before, "A"};
  auto ctx = L::context({}, thrower, stats);
  CHECK_THROWS_AS((void)passinfra::run(L::seq(append_pass("A", "a")), text_ir({}), ctx), TestError);
  CHECK(stats.counts("A") == PassCounts{0, 1, 0});  // asked, never started
  CHECK(stats.counts("sequential") == PassCounts{1, 0, 1});
}
