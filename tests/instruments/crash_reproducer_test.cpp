// CrashReproducer: on a failure, writes the failing pass's input IR, its name, the error and
// the pipeline; the written IR fed back into that pass fails again.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/crash_reproducer.hpp>

#include "support/generic_instruments.hpp"
#include "support/layers.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;
using passinfra::CrashReport;
using passinfra::CrashReproducer;

namespace {
// Lowering introduces a division by zero; Fold crashes on it. Built by layer L.
template <class L = StaticLayerOf<TextIR>>
auto crashing_pipeline() {
  return L::seq(append_pass("Append", "a = 1"), append_pass("Lower", "x = div 0"), crash_if_pass("Fold", "x = div 0"),
                append_pass("Never", "never"));
}
}  // namespace

TEST_CASE_TEMPLATE("CrashReproducer: reports the failing pass with its input; fed back, that input fails again", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  CrashReproducer reproducer(out, {.pipeline = "Append,Lower,Fold,Never"});
  auto ctx = L::context({}, reproducer);
  CHECK_THROWS_AS((void)passinfra::run(crashing_pipeline<L>(), text_ir({"entry"}), ctx), TestError);

  CHECK(out.str() ==
        "// passinfra crash reproducer\n"
        "// pass: Fold\n"
        "// error: crash: x = div 0\n"
        "// pipeline: Append,Lower,Fold,Never\n"
        "entry\n"
        "a = 1\n"
        "x = div 0\n");
  CHECK(reproducer.reports() == 1);  // the enclosing Sequential fails too, but is not reported again
  REQUIRE(reproducer.last_report().has_value());

  const CrashReport report = passinfra::parse_crash_report(out.str());
  CHECK(report == *reproducer.last_report());
  CHECK(report.pass == "Fold");
  CHECK(report.error == "crash: x = div 0");
  CHECK(report.pipeline == "Append,Lower,Fold,Never");

  // Feed it back: the IR from the report, and the whole file as the IR's own input
  // (its comments skip the header), both make Fold fail again.
  auto replay_ctx = passinfra::make_pass_context<TextIR>({});
  const TextIR from_report = passinfra::ir_traits<TextIR>::parse(report.ir, "reproducer");
  const TextIR from_file = passinfra::ir_traits<TextIR>::parse(out.str(), "reproducer");
  CHECK(from_report == from_file);
  CHECK_THROWS_WITH_AS((void)passinfra::run(crash_if_pass("Fold", "x = div 0"), from_report, replay_ctx),
                       "crash: x = div 0", TestError);
}

TEST_CASE("CrashReproducer: writes to a file, and says so in the log") {
  const auto path = std::filesystem::temp_directory_path() / "passinfra_crash_reproducer_test.txt";
  std::filesystem::remove(path);
  LogCapture capture;
  CrashReproducer reproducer(path);
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(reproducer));
  CHECK_THROWS((void)passinfra::run(crashing_pipeline(), text_ir({}), ctx));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "// passinfra crash reproducer\n// pass: Fold\n// error: crash: x = div 0\na = 1\nx = div 0\n");
  const std::string announced = "WARNING CrashReproducer: pass 'Fold' failed; reproducer written to " + path.string();
  CHECK(capture.lines == std::vector<std::string>{announced});
  std::filesystem::remove(path);
}

TEST_CASE("CrashReproducer: the innermost failing pass is the one reported") {
  std::ostringstream out;
  CrashReproducer reproducer(out);
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(reproducer));
  auto outer = passinfra::module_pass(passinfra::PassInfo{"Outer", 0}, [](TextIR ir, auto& c) {
    ir.lines.emplace_back("boom");
    return passinfra::run(crash_if_pass("Inner", "boom"), std::move(ir), c);
  });
  CHECK_THROWS((void)passinfra::run(outer, text_ir({"start"}), ctx));
  REQUIRE(reproducer.reports() == 1);
  CHECK(reproducer.last_report()->pass == "Inner");
  CHECK(reproducer.last_report()->ir == "start\nboom\n");
}

TEST_CASE("CrashReproducer: a failing hook is reported for the pass whose input reproduces it") {
  std::ostringstream out;
  CrashReproducer reproducer(out);
  SUBCASE("a run_before_pass listed after it: that pass") {
    auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(reproducer), ThrowAt{At::before, "B"});
    passinfra::Sequential seq{append_pass("A", "a"), append_pass("B", "b")};
    CHECK_THROWS_AS((void)passinfra::run(seq, text_ir({}), ctx), TestError);
    REQUIRE(reproducer.reports() == 1);
    CHECK(reproducer.last_report()->pass == "B");
    CHECK(reproducer.last_report()->ir == "a\n");
    CHECK(reproducer.last_report()->error == "ThrowAt before B");
  }
  SUBCASE("a should_run: the enclosing pass, with its input") {
    auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(reproducer), ThrowAt{At::should_run, "B"});
    passinfra::Sequential seq{append_pass("A", "a"), append_pass("B", "b")};
    CHECK_THROWS_AS((void)passinfra::run(seq, text_ir({"in"}), ctx), TestError);
    REQUIRE(reproducer.reports() == 1);
    CHECK(reproducer.last_report()->pass == "sequential");
    CHECK(reproducer.last_report()->ir == "in\n");
  }
}

TEST_CASE("CrashReproducer: nothing is written when passes succeed; each failure gets its report") {
  std::ostringstream out;
  CrashReproducer reproducer(out);
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(reproducer));
  (void)passinfra::run(append_pass("A", "a"), text_ir({}), ctx);
  CHECK(out.str().empty());
  CHECK_FALSE(reproducer.last_report().has_value());
  CHECK_THROWS((void)passinfra::run(crash_if_pass("F", "x"), text_ir({"x"}), ctx));
  CHECK_THROWS((void)passinfra::run(crash_if_pass("G", "y"), text_ir({"y"}), ctx));
  CHECK(reproducer.reports() == 2);
  CHECK(out.str() ==
        "// passinfra crash reproducer\n// pass: F\n// error: crash: x\nx\n"
        "// passinfra crash reproducer\n// pass: G\n// error: crash: y\ny\n");
}

TEST_CASE("CrashReproducer: reports format and parse back, multi-line errors and other prefixes included") {
  const CrashReport report{"Pass", "line one\nline two", "A,B", "# not a header\ncode\n"};
  const std::string text = passinfra::format_crash_report(report, "# ");
  CHECK(text ==
        "# passinfra crash reproducer\n# pass: Pass\n# error: line one\n# error: line two\n# pipeline: A,B\n"
        "# not a header\ncode\n");
  CHECK(passinfra::parse_crash_report(text, "# ") == report);
  CHECK_THROWS_AS(passinfra::parse_crash_report("code\n"), passinfra::Error);
  CHECK_THROWS_AS(CrashReproducer(std::cout, {.comment_prefix = ""}), passinfra::Error);
}

TEST_CASE("CrashReproducer: a pass name or pipeline with newlines stays in the header, one line per line") {
  // Before, "Bad\nname" wrote "// pass: Bad" and then "name" as the first
  // line of the IR, so the report no longer parsed as the IR it reproduces.
  const CrashReport report{"Bad\nname", "boom", "A,\nB", "code\n"};
  const std::string text = passinfra::format_crash_report(report);
  CHECK(text ==
        "// passinfra crash reproducer\n// pass: Bad\n// pass: name\n// error: boom\n// pipeline: A,\n"
        "// pipeline: B\ncode\n");
  CHECK(passinfra::parse_crash_report(text) == report);
}
