// PrintIRAfter: prints each (filtered) pass's output, to a stream or the log.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/print_ir_after.hpp>

#include "support/layers.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;

TEST_CASE_TEMPLATE("PrintIRAfter: prints the output of every pass, innermost first, to a stream", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  passinfra::PrintIRAfter print(out);
  auto ctx = L::context({}, print);
  auto seq = L::seq(append_pass("A", "a = 1"), replace_pass("B", "a = 1", "a = 2"));
  (void)passinfra::run(seq, text_ir({}), ctx);
  CHECK(out.str() ==
        "After Running Pass: A\n"
        "a = 1\n"
        "After Running Pass: B\n"
        "a = 2\n"
        "After Running Pass: sequential\n"
        "a = 2\n");
  CHECK(print.printed() == 3);
}

TEST_CASE("PrintIRAfter: a name filter, and the log sink at a chosen level") {
  LogCapture capture;
  passinfra::PrintIRAfter print({"A", "C"}, passinfra::TextSink(passinfra::LogLevel::debug));
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(print));
  passinfra::Sequential seq{append_pass("A", "a = 1"), append_pass("B", "b = 1"), append_pass("C", "c = 1")};
  (void)passinfra::run(seq, text_ir({}), ctx);
  CHECK(capture.lines == std::vector<std::string>{"DEBUG After Running Pass: A\na = 1",
                                                  "DEBUG After Running Pass: C\na = 1\nb = 1\nc = 1"});
}

TEST_CASE("PrintIRAfter: a failing pass prints nothing") {
  std::ostringstream out;
  passinfra::PrintIRAfter print(out);
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(print));
  CHECK_THROWS_AS((void)passinfra::run(crash_if_pass("Crash", "x"), text_ir({"x"}), ctx), TestError);
  CHECK(out.str().empty());
  CHECK(print.printed() == 0);
}
