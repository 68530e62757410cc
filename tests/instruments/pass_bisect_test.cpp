// PassBisect: numbers the passes it is asked about and skips those past the limit.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/pass_bisect.hpp>

#include "support/layers.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;
using passinfra::PassBisect;

TEST_CASE_TEMPLATE("PassBisect: runs passes 1..limit, skips the rest, and says so", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  PassBisect bisect(2, out);
  auto ctx = L::context({}, bisect);
  auto seq = L::seq(append_pass("A", "a"), append_pass("B", "b"), append_pass("C", "c"));
  TextIR result = passinfra::run(seq, text_ir({}), ctx);
  CHECK(result == text_ir({"a"}));
  CHECK(out.str() ==
        "BISECT: running pass (1) sequential\n"
        "BISECT: running pass (2) A\n"
        "BISECT: NOT running pass (3) B\n"
        "BISECT: NOT running pass (4) C\n");
  CHECK(bisect.count() == 4);
}

TEST_CASE("PassBisect: limit 0 skips everything; no_limit runs everything and counts") {
  std::ostringstream out;
  SUBCASE("0") {
    PassBisect bisect(0, out);
    auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(bisect));
    passinfra::Sequential seq{append_pass("A", "a")};
    CHECK(passinfra::run(seq, text_ir({}), ctx) == text_ir({}));
    CHECK(out.str() == "BISECT: NOT running pass (1) sequential\n");  // its children are never asked
  }
  SUBCASE("no_limit") {
    PassBisect bisect(PassBisect::no_limit, out);
    auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(bisect));
    passinfra::Sequential seq{append_pass("A", "a"), passinfra::Sequential{append_pass("B", "b")}};
    CHECK(passinfra::run(seq, text_ir({}), ctx) == text_ir({"a", "b"}));
    CHECK(bisect.count() == 4);
    bisect.reset();
    CHECK(bisect.count() == 0);
  }
}

TEST_CASE_TEMPLATE("PassBisect: names in required_pass are never asked, so they run and take no number", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  PassBisect bisect(2, out);
  auto ctx = L::context({.required_pass = {"Must"}}, bisect);
  auto seq = L::seq(append_pass("A", "a"), append_pass("Must", "m"), append_pass("C", "c"));
  CHECK(passinfra::run(seq, text_ir({}), ctx) == text_ir({"a", "m"}));
  CHECK(out.str() ==
        "BISECT: running pass (1) sequential\n"
        "BISECT: running pass (2) A\n"
        "BISECT: NOT running pass (3) C\n");
}

TEST_CASE("PassBisect: writes to the log at INFO by default") {
  LogCapture capture;
  PassBisect bisect(0);
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(bisect));
  (void)passinfra::run(append_pass("A", "a"), text_ir({}), ctx);
  CHECK(capture.lines == std::vector<std::string>{"INFO BISECT: NOT running pass (1) A"});
}

TEST_CASE("PassBisect: bisection finds the first pass that breaks the output") {
  // Ten passes; "Breaker" (the 7th child, pass number 8 counting the Sequential)
  // introduces a line that makes the output bad, and later passes keep it.
  passinfra::Sequential pipeline{append_pass("P1", "v1 = 1"),
                                 append_pass("P2", "v2 = 2"),
                                 replace_pass("P3", "v1 = 1", "v1 = 10"),
                                 identity_pass("P4"),
                                 append_pass("P5", "v5 = 5"),
                                 append_pass("P6", "v6 = 6"),
                                 append_pass("Breaker", "bad = div 0"),
                                 replace_pass("P8", "v2 = 2", "v2 = 20"),
                                 identity_pass("P9"),
                                 append_pass("P10", "ret")};
  const TextIR input = text_ir({"entry"});
  const auto is_bad = [](const TextIR& ir) {
    return std::find(ir.lines.begin(), ir.lines.end(), "bad = div 0") != ir.lines.end();
  };
  const auto run_with_limit = [&](std::size_t limit, std::ostringstream& log) {
    PassBisect bisect(limit, log);
    auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(bisect));
    TextIR out = passinfra::run(pipeline, input, ctx);
    return std::pair{out, bisect.count()};
  };

  std::ostringstream full_log;
  const auto [full, n] = run_with_limit(PassBisect::no_limit, full_log);
  REQUIRE(is_bad(full));
  CHECK(n == 11);

  std::size_t lo = 0, hi = n, tries = 0;  // invariant: limit hi is bad, limit lo - 1 is good
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    std::ostringstream ignored;
    if (is_bad(run_with_limit(mid, ignored).first)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
    ++tries;
  }
  CHECK(lo == 8);
  CHECK(tries <= 4);
  std::ostringstream culprit_log;
  (void)run_with_limit(lo, culprit_log);
  const std::string marker = "BISECT: running pass (" + std::to_string(lo) + ") ";
  const std::string text = culprit_log.str();
  const auto at = text.find(marker);
  REQUIRE(at != std::string::npos);
  CHECK(text.substr(at + marker.size(), text.find('\n', at) - at - marker.size()) == "Breaker");
}
