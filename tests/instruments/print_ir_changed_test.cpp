// PrintIRChanged: prints after a pass only when the printed IR changed; optional unified diff.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/print_ir_changed.hpp>

#include "support/layers.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;

TEST_CASE_TEMPLATE("PrintIRChanged: only passes that changed the printed IR are printed", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  passinfra::PrintIRChanged print(out);
  auto ctx = L::context({}, print);
  auto seq = L::seq(identity_pass("Same"), append_pass("Grow", "b = 2"), identity_pass("Same2"));
  (void)passinfra::run(seq, text_ir({"a = 1"}), ctx);
  CHECK(out.str() ==
        "After Running Pass: Grow\n"
        "a = 1\n"
        "b = 2\n"
        "After Running Pass: sequential\n"
        "a = 1\n"
        "b = 2\n");
  CHECK(print.printed() == 2);
}

TEST_CASE_TEMPLATE("PrintIRChanged: with diff, a unified diff against the pass's input", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  std::ostringstream out;
  passinfra::PrintIRChanged print({"Fold"}, out, {.diff = true, .context = 1});
  auto ctx = L::context({}, print);
  auto fold = replace_pass("Fold", "c = add a, b", "c = 3");
  (void)passinfra::run(fold, text_ir({"a = 1", "b = 2", "c = add a, b", "d = mul c, c", "ret d"}), ctx);
  CHECK(out.str() ==
        "Diff After Running Pass: Fold\n"
        "--- before Fold\n"
        "+++ after Fold\n"
        "@@ -2,3 +2,3 @@\n"
        " b = 2\n"
        "-c = add a, b\n"
        "+c = 3\n"
        " d = mul c, c\n");
}

TEST_CASE("PrintIRChanged: nested passes compare each with its own input") {
  std::ostringstream out;
  passinfra::PrintIRChanged print({"Outer", "Inner"}, out);
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(print));
  auto inner = append_pass("Inner", "i = 1");
  // Outer runs Inner, then undoes its change: Inner changed the IR, Outer did not.
  auto outer = passinfra::module_pass(passinfra::PassInfo{"Outer", 0}, [inner](TextIR ir, auto& c) {
    ir = passinfra::run(inner, std::move(ir), c);
    ir.lines.pop_back();
    return ir;
  });
  (void)passinfra::run(outer, text_ir({"x = 0"}), ctx);
  CHECK(out.str() == "After Running Pass: Inner\nx = 0\ni = 1\n");
}

TEST_CASE("PrintIRChanged: a failing pass drops its saved input; the next pass compares right") {
  std::ostringstream out;
  passinfra::PrintIRChanged print(out);
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(print));
  auto outer = passinfra::module_pass(passinfra::PassInfo{"Outer", 0}, [](TextIR ir, auto& c) {
    try {
      ir = passinfra::run(crash_if_pass("Crash", "x"), ir, c);  // a copy: the input survives the throw
    } catch (const TestError&) {
      ir.lines.emplace_back("recovered");
    }
    return ir;
  });
  (void)passinfra::run(outer, text_ir({"x"}), ctx);
  CHECK(out.str() == "After Running Pass: Outer\nx\nrecovered\n");
}

TEST_CASE("PrintIRChanged: by default it writes to the log at INFO") {
  LogCapture capture;
  passinfra::PrintIRChanged print;
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(print));
  (void)passinfra::run(append_pass("A", "a = 1"), text_ir({}), ctx);
  (void)passinfra::run(identity_pass("B"), text_ir({}), ctx);
  CHECK(capture.lines == std::vector<std::string>{"INFO After Running Pass: A\na = 1"});
}
