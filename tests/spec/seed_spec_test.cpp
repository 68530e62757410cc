// SPEC §5.5: the seed example, line for line, on every layer.
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>

#include "support/layers.hpp"
#include "support/recorder.hpp"

using namespace pitest;

namespace {
// Prints "<name> <hook>", as the TVM tutorial's instruments do.
struct PrintingInstrument {
  std::string name;
  std::ostream* out;
  bool bad_run_before = false;
  void enter_pass_ctx() { *out << name << " enter_pass_ctx\n"; }
  void exit_pass_ctx() { *out << name << " exit_pass_ctx\n"; }
  bool should_run(const TestIR&, const passinfra::PassInfo&) {
    *out << name << " should_run\n";
    return true;
  }
  void run_before_pass(const TestIR&, const passinfra::PassInfo&) {
    if (bad_run_before) {
      *out << name << " bad run_before_pass!!!\n";
      throw std::runtime_error("Bad run_before_pass");
    }
    *out << name << " run_before_pass\n";
  }
  void run_after_pass(const TestIR&, const passinfra::PassInfo&) { *out << name << " run_after_pass\n"; }
};
}  // namespace

TEST_CASE_TEMPLATE("SPEC 5.5: [Fine_0, BadRunBefore, Fine_1], one pass run inside a scope", L, PITEST_LAYERS) {
  std::ostringstream out;
  PrintingInstrument fine0{"Fine_0", &out};
  PrintingInstrument bad{"BadRunBefore", &out, true};
  PrintingInstrument fine1{"Fine_1", &out};
  auto ctx = L::context({}, fine0, bad, fine1);
  try {
    auto scope = ctx.enter();
    (void)passinfra::run(L::pass(TestPass<"P">{}), TestIR{}, ctx);
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "Bad run_before_pass");
    out << "(exception caught)\n";
  }
  CHECK(out.str() == R"(Fine_0 enter_pass_ctx
BadRunBefore enter_pass_ctx
Fine_1 enter_pass_ctx
Fine_0 should_run
BadRunBefore should_run
Fine_1 should_run
Fine_0 run_before_pass
BadRunBefore bad run_before_pass!!!
Fine_0 exit_pass_ctx
BadRunBefore exit_pass_ctx
Fine_1 exit_pass_ctx
(exception caught)
)");
}
