// PrintIRBefore: prints each (filtered) pass's input, to a stream or the log.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/print_ir_before.hpp>

#include "support/generic_instruments.hpp"
#include "support/layers.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;

TEST_CASE_TEMPLATE("PrintIRBefore: prints the input of every pass, nested ones included, to a stream", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  passinfra::PrintIRBefore print(out);
  auto ctx = L::context({}, print);
  auto seq = L::seq(append_pass("A", "a = 1"), append_pass("B", "b = 2"));
  TextIR result = passinfra::run(seq, text_ir({"x = 0"}), ctx);
  CHECK(result == text_ir({"x = 0", "a = 1", "b = 2"}));
  CHECK(out.str() ==
        "Before Running Pass: sequential\n"
        "x = 0\n"
        "Before Running Pass: A\n"
        "x = 0\n"
        "Before Running Pass: B\n"
        "x = 0\n"
        "a = 1\n");
  CHECK(print.printed() == 3);
}

TEST_CASE_TEMPLATE("PrintIRBefore: a name filter prints only the listed passes", L, PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  passinfra::PrintIRBefore print({"B"}, out);
  auto ctx = L::context({}, print);
  auto seq = L::seq(append_pass("A", "a = 1"), append_pass("B", "b = 2"));
  (void)passinfra::run(seq, text_ir({}), ctx);
  CHECK(out.str() == "Before Running Pass: B\na = 1\n");
  CHECK(print.filter().names() == std::vector<std::string>{"B"});
}

TEST_CASE("PrintIRBefore: by default it writes one INFO message per pass to the log sink") {
  LogCapture capture;
  passinfra::PrintIRBefore print;
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(print));
  (void)passinfra::run(append_pass("A", "a = 1"), text_ir({"x = 0", "y = 1"}), ctx);
  CHECK(capture.lines == std::vector<std::string>{"INFO Before Running Pass: A\nx = 0\ny = 1"});
}

TEST_CASE("PrintIRBefore: a vetoed pass is not printed; an empty IR prints an empty body") {
  std::ostringstream out;
  passinfra::PrintIRBefore print(out);
  auto ctx = passinfra::make_pass_context<TextIR>({}, VetoNames{{"A"}}, std::ref(print));
  (void)passinfra::run(append_pass("A", "a = 1"), text_ir({}), ctx);
  CHECK(out.str().empty());
  (void)passinfra::run(append_pass("B", "b = 1"), text_ir({}), ctx);
  CHECK(out.str() == "Before Running Pass: B\n");
}
