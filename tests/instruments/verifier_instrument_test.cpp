// VerifierInstrument: runs a user verifier after each pass; a failure names the pass.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/verifier_instrument.hpp>

#include "support/generic_instruments.hpp"
#include "support/layers.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;
using passinfra::VerificationError;
using passinfra::VerifierInstrument;

namespace {
bool no_invalid_line(const TextIR& ir) {
  return std::find(ir.lines.begin(), ir.lines.end(), "invalid") == ir.lines.end();
}
std::optional<std::string> explain(const TextIR& ir) {
  for (std::size_t i = 0; i < ir.lines.size(); ++i) {
    if (ir.lines[i] == "invalid") return "line " + std::to_string(i + 1) + " is invalid";
  }
  return std::nullopt;
}
template <class L = StaticLayerOf<TextIR>>
auto pipeline() {
  return L::seq(append_pass("A", "a"), append_pass("Break", "invalid"), append_pass("C", "c"));
}
}  // namespace

TEST_CASE_TEMPLATE("VerifierInstrument: a bool verifier; the error names the pass that broke the IR", L,
                   PITEST_INSTRUMENT_LAYERS(TextIR)) {
  VerifierInstrument verifier(no_invalid_line);
  auto ctx = L::context({}, verifier);
  try {
    (void)passinfra::run(pipeline<L>(), text_ir({}), ctx);
    FAIL("no error");
  } catch (const VerificationError& e) {
    CHECK(std::string(e.what()) == "passinfra: verifier failed after pass 'Break'");
    CHECK(e.pass_name() == "Break");
    CHECK(e.detail().empty());
    CHECK_FALSE(e.on_input());
  }
  CHECK(verifier.verified() == 3);  // the input, then after A and after Break
}

TEST_CASE("VerifierInstrument: a verifier returning optional<string> puts its message in the error") {
  auto ctx = passinfra::make_pass_context<TextIR>({}, VerifierInstrument(explain));
  CHECK_THROWS_WITH_AS((void)passinfra::run(pipeline(), text_ir({}), ctx),
                       "passinfra: verifier failed after pass 'Break': line 2 is invalid", passinfra::Error);
}

TEST_CASE("VerifierInstrument: an invalid input is reported as such, not blamed on the first pass") {
  const TextIR bad_input = text_ir({"invalid"});
  SUBCASE("verify_input (default)") {
    auto ctx = passinfra::make_pass_context<TextIR>({}, VerifierInstrument(explain));
    CHECK_THROWS_WITH_AS((void)passinfra::run(pipeline(), bad_input, ctx),
                         "passinfra: verifier failed on the input of pass 'sequential' (invalid before it ran): "
                         "line 1 is invalid",
                         VerificationError);
  }
  SUBCASE("without it, the first pass is blamed") {
    auto ctx = passinfra::make_pass_context<TextIR>(
        {}, VerifierInstrument(explain, passinfra::PassFilter{}, {.verify_input = false}));
    CHECK_THROWS_WITH_AS((void)passinfra::run(pipeline(), bad_input, ctx),
                         "passinfra: verifier failed after pass 'A': line 1 is invalid", VerificationError);
  }
}

TEST_CASE("VerifierInstrument: a filter limits the passes verified; valid pipelines pass") {
  VerifierInstrument verifier(no_invalid_line, {"C"});
  auto ctx = passinfra::make_pass_context<TextIR>({}, std::ref(verifier));
  passinfra::Sequential ok{append_pass("A", "invalid"), replace_pass("Fix", "invalid", "fixed"), append_pass("C", "c")};
  CHECK(passinfra::run(ok, text_ir({}), ctx) == text_ir({"fixed", "c"}));
  CHECK(verifier.verified() == 1);
}

TEST_CASE("VerifierInstrument: the error leaves run() like any hook's; enclosing passes see the failure") {
  std::vector<std::string> events;
  auto ctx = passinfra::make_pass_context<TextIR>({}, VerifierInstrument(no_invalid_line), HookLog{&events});
  CHECK_THROWS_AS((void)passinfra::run(pipeline(), text_ir({}), ctx), VerificationError);
  // Break's after hook threw in the verifier: HookLog (listed after) never saw Break's after;
  // run_after_pass_failed tells HookLog that Break and the Sequential failed.
  CHECK(events == std::vector<std::string>{"should_run sequential", "before sequential", "should_run A", "before A",
                                           "after A", "should_run Break", "before Break", "after_failed Break",
                                           "after_failed sequential"});
}
