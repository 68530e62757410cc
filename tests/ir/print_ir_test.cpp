// PrintIR (SPEC §7): a module pass, opt_level 0, that logs the IR and returns it unchanged.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/ir/print_ir.hpp>

#include "support/generic_instruments.hpp"
#include "support/recorder.hpp"
#include "support/text_ir.hpp"

using namespace pitest;

TEST_CASE("PrintIR: info is PrintIR, opt_level 0, no required passes") {
  const passinfra::PrintIR p("after fold");
  const passinfra::PassInfo info = passinfra::info_of<passinfra::PrintIR>(p);
  CHECK(info.name == "PrintIR");
  CHECK(info.opt_level == 0);
  CHECK(info.required.empty());
  CHECK(p.header() == "after fold");
}

TEST_CASE("PrintIR: logs PrintIR(<header>): and the module at INFO, returns the input unchanged") {
  LogCapture capture;
  auto ctx = passinfra::make_pass_context<TextIR>({});
  const TextIR in = text_ir({"a = 1", "b = add a, a"});
  TextIR out = passinfra::run(passinfra::PrintIR("after fold"), in, ctx);
  CHECK(out == in);
  CHECK(capture.lines == std::vector<std::string>{"INFO PrintIR(after fold):\na = 1\nb = add a, a"});
}

TEST_CASE("PrintIR: is an ordinary instrumented pass inside a Sequential") {
  LogCapture capture;
  std::vector<std::string> events;
  auto ctx = passinfra::make_pass_context<TextIR>({.opt_level = 0}, HookLog{&events});
  passinfra::Sequential seq{append_pass("A", "a = 1"), passinfra::PrintIR(), append_pass("B", "b = 2")};
  TextIR out = passinfra::run(seq, text_ir({}), ctx);
  CHECK(out == text_ir({"a = 1", "b = 2"}));
  CHECK(capture.lines == std::vector<std::string>{"INFO PrintIR():\na = 1"});
  CHECK(std::count(events.begin(), events.end(), "before PrintIR") == 1);
  CHECK(std::count(events.begin(), events.end(), "after PrintIR") == 1);
}
