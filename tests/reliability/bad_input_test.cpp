// Bad input: every error path of core/ and dynamic/ in one table. Each entry
// must throw passinfra::Error whose message names the input and says what was
// expected, and must leave everything as docs/spec.md says: current() unchanged, no
// hook of any instrument called (neither of the contexts in use nor of the
// instruments handed to the failing call), nothing logged, the registries
// unchanged. Every entry is tried three times: with no context entered, inside
// an entered PassContext<IR> with a recorder, and under the thread's default
// context holding a recorder installed with override_instruments.
// PASSINFRA_BAD_INPUT_SHOW=1 prints every message (to review them).
//
// tinyir's parse and type errors (tinyir::ParseError / tinyir::TypeError, not
// passinfra::Error: they belong to the IR) are the last test case, including
// a type error thrown by a pass inside an instrumented pipeline (SPEC §3, §5.3).
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"
#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

using namespace pitest;
using Ctx = passinfra::PassContext<TestIR>;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::ConfigType;
using passinfra::PassInfo;
using passinfra::PassOptions;
using Registry = passinfra::PassRegistry<TestIR>;

namespace {

using InferType = TestPass<"InferType">;
using FoldConstant = TestPass<"FoldConstant", 2>;
using Canonicalize = TestPass<"Canonicalize", 1>;

inline constexpr std::array<std::string_view, 1> kNeedsMissing{"Canonicalise"};
struct NeedsMissing {
  static constexpr PassInfo info{"NeedsMissing", 0, kNeedsMissing};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
inline constexpr std::array<std::string_view, 1> kNeedsUnroll{"Unroll"};
struct NeedsUnroll {
  static constexpr PassInfo info{"NeedsUnroll", 0, kNeedsUnroll};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
struct Leveled {
  int level = 0;
  PassInfo info() const { return {"Leveled", 1}; }
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
Leveled make_leveled(const PassOptions& o) { return Leveled{passinfra::get_option<int>(o, "fuse_opt_level")}; }

// The registry the table's pass names resolve in.
Registry& registry() {
  static Registry reg;
  static const bool filled = [] {
    reg.add<InferType>();
    reg.add<FoldConstant>();
    reg.add<Canonicalize>();
    reg.add<NeedsMissing>();
    reg.add<NeedsUnroll>();
    reg.add("FuseOps", &make_leveled, {{"fuse_opt_level", ConfigType::integer, std::int64_t{2}}});
    reg.add("Unroll", [](const PassOptions& o) { return Leveled{passinfra::get_option<int>(o, "factor")}; },
            {{"factor", ConfigType::integer}});
    reg.add("Opts", [](const PassOptions&) { return Leveled{}; },
            {{"s", ConfigType::string, std::string()}, {"l", ConfigType::string_list, passinfra::StringList{}}});
    reg.add("ReadsUndeclared", [](const PassOptions& o) { return Leveled{passinfra::get_option<int>(o, "depth")}; });
    reg.add("ReadsWrongType", [](const PassOptions& o) { return Leveled{passinfra::get_option<int>(o, "mode")}; },
            {{"mode", ConfigType::string, std::string("fast")}});
    return true;
  }();
  (void)filled;
  return reg;
}

void register_options() {
  passinfra::register_config_option<std::int64_t>("reliability.bad.max_depth", "the depth");
  passinfra::register_config_option<bool>("reliability.bad.verbose");
  passinfra::register_config_option<double>("reliability.bad.ratio");
}

AnyPass<TestIR> parse(std::string_view text) { return passinfra::parse_pipeline<TestIR>(text, registry()); }

struct BadInput {
  std::string input;              // what is wrong
  std::function<void()> action;   // the call that must fail
  std::vector<std::string> says;  // the message names the input and what was expected
};

// Instruments handed to the failing calls themselves: none may be called.
EventLog& handed_log() {
  static EventLog log;
  return log;
}
Recorder& handed() {
  static Recorder r = recorder("Handed", handed_log());
  return r;
}

std::vector<BadInput> table() {
  using passinfra::PassContextOptions;
  std::vector<BadInput> t;
  auto add = [&](std::string input, std::function<void()> action, std::vector<std::string> says) {
    t.push_back({std::move(input), std::move(action), std::move(says)});
  };
  auto ctx_with = [](PassContextOptions options) {
    return [options] { Ctx ctx(options, {AnyInstrument<TestIR>(std::ref(handed()))}); };
  };
  auto static_ctx_with = [](PassContextOptions options) {
    return [options] { auto ctx = passinfra::make_pass_context<TestIR>(options, std::ref(handed())); };
  };

  // ---- unknown pass names
  add("unknown pass name (registry)", [] { (void)registry().create("FoldConstnt"); },
      {"unknown pass name 'FoldConstnt'", "expected a registered pass name", "'FoldConstant'"});
  add("unknown pass name (pipeline text)", [] { (void)parse("sequential(InferType, FoldConstnt)"); },
      {"pipeline text, column 23", "unknown pass name 'FoldConstnt'", "expected a registered pass name",
       "'FoldConstant'", "\n  sequential(InferType, FoldConstnt)\n                        ^"});
  add("unknown pass name (global registry)", [] { (void)passinfra::parse_pipeline<TestIR>("NoSuchPassAnywhere"); },
      {"column 1", "unknown pass name 'NoSuchPassAnywhere'", "expected a registered pass name"});
  add("unknown pass name (options)", [] { (void)registry().options("Fuse"); },
      {"unknown pass name 'Fuse'", "'FuseOps'"});

  // ---- config
  add("unknown config key", ctx_with({.config = {{"reliability.bad.max_dept", std::int64_t{3}}}}),
      {"unknown config key 'reliability.bad.max_dept'", "expected a registered option", "'reliability.bad.max_depth'"});
  add("unknown config key (static context)", static_ctx_with({.config = {{"reliability.bad.verbse", true}}}),
      {"unknown config key 'reliability.bad.verbse'", "expected a registered option", "'reliability.bad.verbose'"});
  add("wrong config type", ctx_with({.config = {{"reliability.bad.max_depth", std::string("deep")}}}),
      {"config key 'reliability.bad.max_depth'", "expects a value of type integer", "string"});
  add("wrong config type (bool given an integer)", ctx_with({.config = {{"reliability.bad.verbose", std::int64_t{1}}}}),
      {"config key 'reliability.bad.verbose'", "expects a value of type bool", "integer"});
  add("wrong config type (double given a string list)",
      static_ctx_with({.config = {{"reliability.bad.ratio", passinfra::StringList{"0.5"}}}}),
      {"config key 'reliability.bad.ratio'", "expects a value of type double", "list of strings"});
  add("config read with the wrong type",
      [] {
        Ctx ctx({.config = {{"reliability.bad.max_depth", std::int64_t{3}}}});
        (void)ctx.get_config<bool>("reliability.bad.max_depth", false);
      },
      {"get_config: key 'reliability.bad.max_depth'", "integer", "read as a bool"});
  add("empty config key registered", [] { passinfra::register_config_option<bool>(""); },
      {"register_config_option", "the key is empty", "expected a non-empty name"});
  add("config key registered with another type",
      [] { passinfra::register_config_option<std::string>("reliability.bad.max_depth"); },
      {"'reliability.bad.max_depth' is already registered as integer", "not string"});

  // ---- context options
  add("opt_level out of range (negative)", ctx_with({.opt_level = -1}),
      {"opt_level is -1", "expected a non-negative level"});
  add("opt_level out of range (static context)", static_ctx_with({.opt_level = -7}),
      {"opt_level is -7", "expected a non-negative level"});
  add("an empty name in required_pass", ctx_with({.required_pass = {"InferType", ""}}),
      {"required_pass contains an empty name", "expected pass names"});
  add("an empty name in disabled_pass", static_ctx_with({.disabled_pass = {""}}),
      {"disabled_pass contains an empty name", "expected pass names"});

  // ---- instruments
  add("a null shared_ptr instrument",
      [] {
        Ctx ctx({}, {AnyInstrument<TestIR>(std::ref(handed())), AnyInstrument<TestIR>(std::shared_ptr<Recorder>())});
      },
      {"AnyInstrument<IR>: the shared_ptr<", "Recorder", "is null; expected an instrument object"});
  add("a null shared_ptr instrument given to override_instruments",
      [] {
        Ctx::current().override_instruments(
            {AnyInstrument<TestIR>(std::ref(handed())), AnyInstrument<TestIR>(std::shared_ptr<EnterExitOnly>())});
      },
      {"is null; expected an instrument object", "EnterExitOnly"});

  // ---- malformed pipeline text
  add("malformed pipeline text (empty)", [] { (void)parse(""); },
      {"column 1", "expected a pass name, found end of text"});
  add("malformed pipeline text (blank)", [] { (void)parse("   "); },
      {"column 4", "expected a pass name, found end of text"});
  add("malformed pipeline text (empty item)", [] { (void)parse("sequential(InferType,,FoldConstant)"); },
      {"column 22", "expected a pass name or an option key=value, found ','"});
  add("malformed pipeline text (unclosed)", [] { (void)parse("sequential(InferType"); },
      {"column 21", "expected ')' or ',' after a pass, found end of text"});
  add("malformed pipeline text (trailing text)", [] { (void)parse("InferType FoldConstant"); },
      {"column 11", "expected end of text after the pipeline, found 'FoldConstant'"});
  add("malformed pipeline text (not a name)", [] { (void)parse("(InferType)"); },
      {"column 1", "expected a pass name, found '('"});
  add("malformed pipeline text (bad number)", [] { (void)parse("FuseOps(fuse_opt_level=1x)"); },
      {"column 24", "expected a number", "found '1x'"});
  add("malformed pipeline text (integer out of range)",
      [] { (void)parse("FuseOps(fuse_opt_level=99999999999999999999)"); },
      {"column 24", "an integer within the range of a 64-bit signed integer"});
  add("malformed pipeline text (double out of range)", [] { (void)parse("FuseOps(fuse_opt_level=1e999)"); },
      {"column 24", "a float within the range of a double"});
  add("malformed pipeline text (missing value)", [] { (void)parse("FuseOps(fuse_opt_level=)"); },
      {"column 24", "expected a value", "found ')'"});
  add("malformed pipeline text (unterminated string)", [] { (void)parse("Opts(s=\"abc)"); },
      {"column 8", "unterminated string", "expected a closing '\"'"});
  add("malformed pipeline text (bad escape)", [] { (void)parse("Opts(s=\"a\\qb\")"); },
      {"column 10", "after '\\' in a string, found '\\q'"});
  add("malformed pipeline text (list of non-strings)", [] { (void)parse("Opts(l=[1])"); },
      {"column 9", "expected a \"string\" (the elements of a list are strings), found '1'"});
  add("malformed pipeline text (list without comma)", [] { (void)parse("Opts(l=[\"a\" \"b\"])"); },
      {"column 13", "expected ',' or ']' in a list"});
  add("malformed pipeline text (option twice)", [] { (void)parse("FuseOps(fuse_opt_level=1, fuse_opt_level=2)"); },
      {"column 27", "option 'fuse_opt_level' of 'FuseOps' is given twice", "expected each option at most once"});
  add("malformed pipeline text (passes inside a pass)", [] { (void)parse("InferType(FoldConstant)"); },
      {"column 11", "expected an option key=value in the options of 'InferType'", "found pass 'FoldConstant'"});
  add("sequential option of the wrong type", [] { (void)parse("sequential(opt_level=\"high\")"); },
      {"column 12", "option 'opt_level' of 'sequential' expects an integer", "given a string (\"high\")"});
  add("sequential opt_level out of range", [] { (void)parse("sequential(opt_level=99999999999)"); },
      {"column 12", "expects an integer in the range of int", "99999999999"});
  add("sequential option unknown", [] { (void)parse("sequential(nme=\"x\", InferType)"); },
      {"column 12", "'sequential' has no option 'nme'", "expected name=\"...\" or opt_level=N", "'name'"});

  // ---- pass options
  add("pass option of the wrong type", [] { (void)parse("FuseOps(fuse_opt_level=\"2\")"); },
      {"column 9", "pass 'FuseOps': option 'fuse_opt_level' expects an integer, but was given a string (\"2\")"});
  add("pass option unknown", [] { (void)parse("FuseOps(fuse_level=2)"); },
      {"column 9", "pass 'FuseOps' has no option 'fuse_level'", "'fuse_opt_level'"});
  add("pass option missing", [] { (void)parse("sequential(Unroll)"); },
      {"column 12", "pass 'Unroll' requires option 'factor'", "expected Unroll(factor=...)"});
  add("pass option given to a pass without options",
      [] {
        (void)registry().create("InferType", {{"x", true}});
      },
      {"pass 'InferType' takes no options, but was given option 'x'"});
  add("factory reads an option it did not declare", [] { (void)registry().create("ReadsUndeclared"); },
      {"get_option: option 'depth' is not set"});
  add("factory reads an option with the wrong type", [] { (void)registry().create("ReadsWrongType"); },
      {"get_option: option 'mode' holds a string", "read as an integer"});

  // ---- required passes
  add("a required pass missing from the registry", [] { (void)registry().create("NeedsMissing"); },
      {"pass 'NeedsMissing' requires 'Canonicalise', which is not registered", "expected a registered pass name",
       "'Canonicalize'"});
  add("a required pass missing from the registry (pipeline text)", [] { (void)parse("sequential(NeedsMissing)"); },
      {"column 12", "pass 'NeedsMissing' requires 'Canonicalise', which is not registered"});
  add("a required pass that cannot be created", [] { (void)registry().create("NeedsUnroll"); },
      {"pass 'NeedsUnroll' requires 'Unroll', which cannot be created", "requires option 'factor'"});

  // ---- registering passes (a failed add leaves the registry as it was)
  add("registering an invalid pass name", [] { registry().add("Bad Name", &make_leveled); },
      {"'Bad Name' is not a valid pass name", "expected a name of the form [A-Za-z_][A-Za-z0-9_.]*"});
  add("registering the reserved name", [] { registry().add("sequential", &make_leveled); },
      {"'sequential' is reserved for pipelines", "expected another pass name"});
  add("registering a name twice", [] { registry().add("InferType", &make_leveled); },
      {"pass 'InferType' is already registered", "expected each name to be registered once"});
  add("registering an invalid option key",
      [] {
        registry().add("NewPass", &make_leveled, {{"bad key", ConfigType::integer}});
      },
      {"pass 'NewPass': 'bad key' is not a valid option key"});
  add("registering an option twice",
      [] {
        registry().add("NewPass", &make_leveled, {{"k", ConfigType::integer}, {"k", ConfigType::boolean}});
      },
      {"pass 'NewPass': option 'k' is listed twice"});
  add("registering a default of the wrong type",
      [] {
        registry().add("NewPass", &make_leveled, {{"k", ConfigType::boolean, std::int64_t{1}}});
      },
      {"pass 'NewPass': the default of option 'k' is an integer, but the option expects a bool"});
  add("registering a null factory",
      [] { registry().add("NewPass", static_cast<Leveled (*)(const PassOptions&)>(nullptr)); },
      {"the factory for 'NewPass' is null"});
  add("registering an empty factory", [] { registry().add("NewPass", Registry::Factory{}); },
      {"the factory for 'NewPass' is empty"});

  // ---- printing
  add("printing a static Sequential erased into an AnyPass",
      [] { (void)passinfra::print_pipeline(AnyPass<TestIR>(passinfra::Sequential<InferType>{})); },
      {"print_pipeline: a pass named 'sequential' that is not a DynamicSequential", "expected a DynamicSequential"});
  add("printing a pass whose name pipeline text cannot spell",
      [] { (void)passinfra::print_pipeline(AnyPass<TestIR>(TestPass<"Not spellable">{})); },
      {"pass name 'Not spellable' cannot be written as pipeline text", "expected a name of the form"});
  return t;
}

struct State {
  const Ctx* current;
  std::size_t default_instruments;
  std::vector<std::string> pass_names;
  std::size_t config_options;
};

State state() {
  return {&Ctx::current(), Ctx::thread_default().instruments().size(), registry().names(),
          passinfra::registered_config_options().size()};
}

// Runs one entry; "" if it behaved, else what went wrong.
std::string check(const BadInput& bad, EventLog& outer_log) {
  LogCapture capture;
  handed_log().clear();
  outer_log.clear();
  const State before = state();
  std::string problem;
  try {
    bad.action();
    problem = "did not throw";
  } catch (const passinfra::Error& e) {
    const std::string what = e.what();
    if (std::getenv("PASSINFRA_BAD_INPUT_SHOW")) std::printf("[%s]\n%s\n\n", bad.input.c_str(), what.c_str());
    if (what.rfind("passinfra: ", 0) != 0) problem += "message does not start with 'passinfra: ': " + what + "\n";
    for (const auto& part : bad.says) {
      if (what.find(part) == std::string::npos) problem += "message lacks \"" + part + "\": " + what + "\n";
    }
  } catch (const std::exception& e) {
    problem = std::string("threw a std::exception that is not passinfra::Error: ") + e.what();
  } catch (...) {
    problem = "threw something that is not passinfra::Error";
  }
  const State after = state();
  if (after.current != before.current) problem += "current() changed\n";
  if (after.default_instruments != before.default_instruments) problem += "the default context's instruments changed\n";
  if (after.pass_names != before.pass_names) problem += "the registry changed\n";
  if (after.config_options != before.config_options) problem += "the config registry changed\n";
  if (!handed_log().events.empty())
    problem += "an instrument handed to the failing call was called: " + join(handed_log().events, " / ") + "\n";
  if (!outer_log.events.empty())
    problem += "an instrument of the context in use was called: " + join(outer_log.events, " / ") + "\n";
  if (!capture.lines.empty()) problem += "something was logged: " + join(capture.lines, " / ") + "\n";
  return problem;
}

}  // namespace

TEST_CASE(
    "reliability: bad input -- every error path throws passinfra::Error, says what was expected, changes nothing") {
  register_options();
  (void)registry();
  const auto cases = table();
  EventLog outer_log;
  auto outer = recorder("Outer", outer_log);
  for (const auto& bad : cases) {
    CAPTURE(bad.input);
    // 1. No context entered.
    CHECK_MESSAGE(check(bad, outer_log) == "", "with no context entered");
    // 2. Inside an entered dynamic context holding a recorder.
    Ctx ctx({.opt_level = 3}, {AnyInstrument<TestIR>(std::ref(outer))});
    {
      auto scope = ctx.enter();
      CHECK_MESSAGE(check(bad, outer_log) == "", "inside an entered context");
      CHECK(&Ctx::current() == &ctx);
      outer_log.clear();
    }
    // 3. Under the thread's default context, holding a recorder without a scope.
    Ctx::current().override_instruments({AnyInstrument<TestIR>(std::ref(outer))});
    outer_log.clear();
    CHECK_MESSAGE(check(bad, outer_log) == "", "under the default context with override_instruments");
    Ctx::current().override_instruments({});
    CHECK(Ctx::thread_default().instruments().empty());
  }
  CHECK(cases.size() >= 50);
}

TEST_CASE("reliability: bad input -- after a failed construction the same options, corrected, work") {
  register_options();
  EventLog log;
  auto rec = recorder("R", log);
  Ctx ctx({.opt_level = 0, .required_pass = {"InferType"}, .config = {{"reliability.bad.ratio", std::int64_t{1}}}},
          {AnyInstrument<TestIR>(std::ref(rec))});
  CHECK(ctx.get_config<double>("reliability.bad.ratio", 0.0) == 1.0);  // an integer for a double is converted
  const TestIR out = ctx.with([&] { return parse("sequential(InferType, FuseOps(fuse_opt_level=3))")(TestIR{&log}); });
  CHECK(out.trail == std::vector<std::string>{"InferType"});  // FuseOps (opt_level 1) gated at opt_level 0
}

namespace {

// Records hooks on tinyir modules: "<hook> <pass>".
struct ModuleRecorder {
  EventLog* log;
  void enter_pass_ctx() { log->add("enter_pass_ctx"); }
  void exit_pass_ctx() { log->add("exit_pass_ctx"); }
  bool should_run(const tinyir::Module&, const PassInfo& info) {
    log->add("should_run " + std::string(info.name));
    return true;
  }
  void run_before_pass(const tinyir::Module&, const PassInfo& info) {
    log->add("run_before_pass " + std::string(info.name));
  }
  void run_after_pass(const tinyir::Module&, const PassInfo& info) {
    log->add("run_after_pass " + std::string(info.name));
  }
};

std::string parse_error_of(const std::string& text) {
  try {
    (void)tinyir::parse(text, "bad.tir");
  } catch (const tinyir::ParseError& e) {
    CHECK(e.line() >= 1);
    CHECK(e.column() >= 1);
    return e.what();
  }
  return "(no ParseError)";
}

}  // namespace

TEST_CASE("reliability: bad input -- tinyir parse and type errors name the place and what was expected") {
  // Parse errors: "<source>:<line>:<col>: error: expected ..., found ...", the line and a caret.
  const std::vector<std::pair<std::string, std::vector<std::string>>> parse_cases{
      {"def @main() {\n  %0 = 1f;\n  %0 = 2f;\n  %0\n}", {"bad.tir:3:3: error: redefinition of %0"}},
      {"def @main(%x: Tensor[(2), float32]) {\n  add(%x, %x\n}\n",
       {"bad.tir:3:1: error: expected ',' or ')' in the call of add, found '}'", "\n}\n^"}},
      {"def @main(%x: Tensor[(2), float33]) { %x }", {"bad.tir:1:27: error: expected a dtype", "found 'float33'"}},
      {"def @main(%x: Tensor[(2), float32]) {\n  nn.con2d(%x, %x)\n}\n",
       {"unknown operator 'nn.con2d'", "'nn.conv2d'"}},
      {"def @main() {\n}", {"bad.tir:2:1: error: expected an expression"}},
      {"def @main() { 1f } /* open", {"expected '*/' to close this comment, found end of input"}},
  };
  for (const auto& [text, says] : parse_cases) {
    CAPTURE(text);
    const std::string what = parse_error_of(text);
    for (const auto& part : says) CHECK_MESSAGE(what.find(part) != std::string::npos, what);
  }

  // A type error thrown by a pass inside an instrumented pipeline: it leaves
  // run() unchanged (no after hooks, SPEC §3), clears nothing (SPEC §5.3), and
  // the scope exit runs the exit hooks; current() is restored.
  using Module = tinyir::Module;
  using MCtx = passinfra::PassContext<Module>;
  EventLog log;
  ModuleRecorder rec{&log};
  MCtx ctx({}, {AnyInstrument<Module>(std::ref(rec))});
  const passinfra::DynamicSequential<Module> pipeline{tinyir::InferType{}};
  Module bad =
      tinyir::parse("def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(4), float32]) {\n  add(%a, %b)\n}", "bad.tir");
  std::string what;
  try {
    ctx.with([&] { (void)pipeline(std::move(bad)); });
    FAIL("expected a tinyir::TypeError");
  } catch (const tinyir::TypeError& e) {
    what = e.what();
  }
  CHECK(what.find("bad.tir:2:3: type error in `add(%a, %b)`") == 0);
  CHECK(what.find("expected shapes that broadcast, found (2, 3) and (4)") != std::string::npos);
  CHECK(join(log.events, " / ") ==
        "enter_pass_ctx / should_run sequential / run_before_pass sequential / should_run InferType / "
        "run_before_pass InferType / exit_pass_ctx");
  CHECK(ctx.instruments().size() == 1);  // not cleared
  CHECK(&MCtx::current() == &MCtx::thread_default());
}
