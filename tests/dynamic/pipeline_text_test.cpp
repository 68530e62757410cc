// Pipeline text: parse -> run gives the static Sequential's events, canonical print, round trips, errors.
#include <doctest/doctest.h>

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/dynamic.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::ConfigType;
using passinfra::DynamicSequential;
using passinfra::PassInfo;
using passinfra::PassOptions;
using passinfra::Sequential;
using Registry = passinfra::PassRegistry<TestIR>;

namespace {

using InferType = TestPass<"InferType">;
using FoldConstant = TestPass<"FoldConstant", 2>;
using Canonicalize = TestPass<"Canonicalize", 1>;
using DCE = TestPass<"DeadCodeElimination", 3>;

struct FuseOps {
  int level = 1;
  PassInfo info() const { return {"FuseOps", 1}; }
  TestIR transform(TestIR ir, auto&) const {
    if (ir.log) ir.log->add("FuseOps(" + std::to_string(level) + ")");
    ir.trail.emplace_back("FuseOps");
    ir.value += level;
    return ir;
  }
};

inline constexpr std::array<std::string_view, 1> kLowerRequires{"InferType"};
struct Lower {
  static constexpr PassInfo info{"Lower", 0, kLowerRequires};
  TestIR transform(TestIR ir, auto&) const {
    if (ir.log) ir.log->add("Lower");
    ir.trail.emplace_back("Lower");
    return ir;
  }
};
using LowerStatic = TestPass<"Lower", 0, passinfra::requires_passes<InferType>>;

inline constexpr std::array<std::string_view, 1> kNeedsMissing{"Canonicalise"};
struct NeedsMissing {
  static constexpr PassInfo info{"NeedsMissing", 0, kNeedsMissing};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};

PassOptions last_options;  // what the "Opts" factory was given last

// A registry with the passes the tests spell.
Registry& registry() {
  static Registry reg;
  static const bool filled = [] {
    auto& r = reg;
    r.add<InferType>();
    r.add<FoldConstant>();
    r.add<Canonicalize>();
    r.add<DCE>();
    r.add<Lower>();
    r.add<NeedsMissing>();
    r.add("FuseOps", [](const PassOptions& o) { return FuseOps{passinfra::get_option<int>(o, "fuse_opt_level")}; },
          {{"fuse_opt_level", ConfigType::integer, std::int64_t{2}}});
    r.add("Unroll", [](const PassOptions& o) { return FuseOps{passinfra::get_option<int>(o, "factor")}; },
          {{"factor", ConfigType::integer}});
    r.add("Opts",
          [](const PassOptions& o) {
            last_options = o;
            return FuseOps{};
          },
          {{"i", ConfigType::integer, std::int64_t{0}},
           {"d", ConfigType::floating, 0.0},
           {"b", ConfigType::boolean, false},
           {"s", ConfigType::string, std::string()},
           {"l", ConfigType::string_list, passinfra::StringList{}}});
    return true;
  }();
  (void)filled;
  return reg;
}

AnyPass<TestIR> parse(std::string_view text) { return passinfra::parse_pipeline<TestIR>(text, registry()); }

template <class P>
std::vector<std::string> dynamic_events(const P& pass, passinfra::PassContextOptions options = {}) {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  passinfra::PassContext<TestIR> ctx(std::move(options),
                                     {AnyInstrument<TestIR>(std::ref(a)), AnyInstrument<TestIR>(std::ref(b))});
  (void)passinfra::run(pass, TestIR{&log}, ctx);
  return log.events;
}

template <class P>
std::vector<std::string> static_events(const P& pass, passinfra::PassContextOptions options = {}) {
  EventLog log;
  auto a = recorder("A", log);
  auto b = recorder("B", log);
  auto ctx = passinfra::make_pass_context<TestIR>(std::move(options), std::ref(a), std::ref(b));
  (void)passinfra::run(pass, TestIR{&log}, ctx);
  return log.events;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const passinfra::Error& e) {
    return e.what();
  }
  FAIL("expected a passinfra::Error");
  return {};
}

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("pipeline text: a parsed pipeline runs with the same events as the equivalent static Sequential") {
  const auto dyn = parse("sequential(InferType, FoldConstant, FuseOps(fuse_opt_level=2))");
  const Sequential<InferType, FoldConstant, FuseOps> stat(InferType{}, FoldConstant{}, FuseOps{2});
  for (int opt_level : {0, 1, 2, 3}) {
    CAPTURE(opt_level);
    const auto events = dynamic_events(dyn, {.opt_level = opt_level});
    CHECK(events == static_events(stat, {.opt_level = opt_level}));
    CHECK(std::count(events.begin(), events.end(), "FuseOps(2)") == (opt_level >= 1 ? 1 : 0));
  }
  const auto disabled = passinfra::PassContextOptions{.disabled_pass = {"FoldConstant"}};
  CHECK(dynamic_events(dyn, disabled) == static_events(stat, disabled));
}

TEST_CASE("pipeline text: nested sequentials, name and opt_level, and required names run as in the static layer") {
  const auto dyn = parse(R"(sequential(InferType,
                                       sequential(name="inner", opt_level=3, FoldConstant, Lower),
                                       Lower, DeadCodeElimination))");
  using Inner = Sequential<FoldConstant, LowerStatic>;
  const Sequential<InferType, Inner, LowerStatic, DCE> stat(
      InferType{}, Inner(PassInfo{"inner", 3}, FoldConstant{}, LowerStatic{}), LowerStatic{}, DCE{});
  for (int opt_level : {2, 3}) {
    CAPTURE(opt_level);
    CHECK(dynamic_events(dyn, {.opt_level = opt_level}) == static_events(stat, {.opt_level = opt_level}));
  }
  const auto* outer = dyn.target<DynamicSequential<TestIR>>();
  REQUIRE(outer != nullptr);
  REQUIRE(outer->passes().size() == 4);
  CHECK(outer->passes()[1].info().name == "inner");
  CHECK(outer->passes()[1].info().opt_level == 3);
  CHECK(outer->passes()[2].info().required[0] == "InferType");
}

TEST_CASE("pipeline text: a single pass is a pipeline; parse_pipeline uses the global registry by default") {
  const auto p = parse(" FuseOps ( fuse_opt_level = 4 ) ");
  CHECK(p.info().name == "FuseOps");
  CHECK(passinfra::print_pipeline(p) == "FuseOps(fuse_opt_level=4)");
  passinfra::PassRegistry<TestIR>::global().add<TestPass<"PipelineTextGlobalPass">>();
  const auto g = passinfra::parse_pipeline<TestIR>("sequential(PipelineTextGlobalPass)");
  CHECK(passinfra::print_pipeline(g) == "sequential(PipelineTextGlobalPass)");
  CHECK(has(error_of([] { (void)passinfra::parse_pipeline<TestIR>("NotInTheGlobalRegistry"); }),
            "unknown pass name 'NotInTheGlobalRegistry'"));
}

TEST_CASE("pipeline text: print writes the canonical text") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"sequential(InferType,FoldConstant,FuseOps(fuse_opt_level=2))",
       "sequential(InferType,FoldConstant,FuseOps(fuse_opt_level=2))"},
      {"  sequential ( InferType , FoldConstant , FuseOps ( fuse_opt_level = 2 ) )  ",
       "sequential(InferType,FoldConstant,FuseOps(fuse_opt_level=2))"},
      {"sequential(\n\tInferType,\n\tFuseOps()\n)", "sequential(InferType,FuseOps)"},
      {"sequential()", "sequential"},
      {"sequential", "sequential"},
      {"sequential(InferType, opt_level=0, name=\"sequential\")", "sequential(InferType)"},
      {"sequential(InferType, opt_level=2, name=\"main\")", "sequential(name=\"main\",opt_level=2,InferType)"},
      {"Opts(s=\"x\", i=+4, d=1.50, b=true, l=[ \"a\" , \"b\" ])", "Opts(b=true,d=1.5,i=4,l=[\"a\",\"b\"],s=\"x\")"},
      {"Opts(i=-0, d=3.0, l=[])", "Opts(d=3.0,i=0,l=[])"},
      {"Opts(d=1e5)", "Opts(d=1e+05)"},
      {"Opts(d=-2.5E-7)", "Opts(d=-2.5e-07)"},
      {"Opts(d=7)", "Opts(d=7)"},
      {"Opts(s=\"q\\\"uo\\\\te\\n\\t\\r\")", "Opts(s=\"q\\\"uo\\\\te\\n\\t\\r\")"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.first);
    CHECK(passinfra::canonical_pipeline(c.first) == c.second);
    CHECK(passinfra::print_pipeline(parse(c.first)) == c.second);
  }
}

TEST_CASE("pipeline text: round trips -- print(parse(t)) == canonical(t), and parse(print(p)) prints the same") {
  const std::vector<std::string> texts{
      "InferType",
      "sequential(InferType,FoldConstant,FuseOps(fuse_opt_level=2))",
      "sequential(name=\"outer\", sequential(opt_level=1, Lower, DeadCodeElimination), Unroll(factor=8))",
      "Opts(d=0.1, i=-9223372036854775808, s=\"\", l=[\"x,y\", \"(z)\"], b=false)",
      "Opts(d=1e300)",
      "Opts(d=-0.0)",
      "Opts(d=5e-324)",
      "sequential(sequential(sequential()))",
  };
  for (const auto& text : texts) {
    CAPTURE(text);
    const std::string printed = passinfra::print_pipeline(parse(text));
    CHECK(printed == passinfra::canonical_pipeline(text));
    CHECK(passinfra::print_pipeline(parse(printed)) == printed);
    CHECK(passinfra::canonical_pipeline(printed) == printed);
  }
}

TEST_CASE("pipeline text: option values reach the factory as typed values") {
  (void)parse("Opts(i=42, d=2.5, b=true, s=\"a \\\"b\\\"\", l=[\"p\", \"q\"])");
  CHECK(std::get<std::int64_t>(last_options.at("i")) == 42);
  CHECK(std::get<double>(last_options.at("d")) == 2.5);
  CHECK(std::get<bool>(last_options.at("b")));
  CHECK(std::get<std::string>(last_options.at("s")) == "a \"b\"");
  CHECK(std::get<passinfra::StringList>(last_options.at("l")) == passinfra::StringList{"p", "q"});
  (void)parse("Opts(d=3)");  // an integer for a double option
  CHECK(std::get<double>(last_options.at("d")) == 3.0);
}

TEST_CASE("pipeline text: pipelines built in code print, and parse back to the same text") {
  DynamicSequential<TestIR> seq{
      InferType{}, registry().create("FuseOps", {{"fuse_opt_level", 2}}),
      DynamicSequential<TestIR>({FoldConstant{}, registry().create("Lower")}, PassInfo{"inner", 1}),
      AnyPass<TestIR>(FuseOps{5}),  // a static pass prints its name (its level is not in the text)
  };
  const std::string text = passinfra::print_pipeline(seq);
  CHECK(text ==
        "sequential(InferType,FuseOps(fuse_opt_level=2),sequential(name=\"inner\",opt_level=1,FoldConstant,Lower),"
        "FuseOps)");
  CHECK(passinfra::print_pipeline(parse(text)) == text);
  CHECK(passinfra::print_pipeline(AnyPass<TestIR>(seq)) == text);
  // An AnyPass given its required passes prints as the pass it holds.
  CHECK(passinfra::print_pipeline(AnyPass<TestIR>(registry().create("FuseOps"), {AnyPass<TestIR>(InferType{})})) ==
        "FuseOps");
}

TEST_CASE("pipeline text: passes that text cannot spell are print errors") {
  const auto msg = error_of([] { (void)passinfra::print_pipeline(AnyPass<TestIR>(Sequential<InferType>{})); });
  CHECK(has(msg, "a pass named 'sequential' that is not a DynamicSequential"));
  CHECK(has(msg, "expected a DynamicSequential, a registry-created pass or a named pass"));
  const auto msg2 = error_of([] { (void)passinfra::print_pipeline(AnyPass<TestIR>(TestPass<"my pass">{})); });
  CHECK(has(msg2, "pass name 'my pass' cannot be written as pipeline text"));
}

TEST_CASE("pipeline text: an error shows the column, what was expected and found, the text and a caret") {
  const auto msg = error_of([] { (void)parse("sequential(A()("); });
  CHECK(msg ==
        "passinfra: pipeline text, column 15: expected ')' or ',' after a pass, found '('\n"
        "  sequential(A()(\n"
        "                ^");
  // Newlines and tabs are shown as blanks so the caret stays under the column.
  const auto msg2 = error_of([] { (void)parse("sequential(\n\tInferType,\n)"); });
  CHECK(has(msg2,
            "column 25: expected a pass name or an option key=value, found ')'\n"
            "  sequential(  InferType, )\n"
            "                          ^"));
}

TEST_CASE("pipeline text: malformed texts report their column and what was expected") {
  struct Case {
    std::string text;
    int column;
    std::string expected;  // the message after "column N: "
  };
  const std::vector<Case> cases{
      {"", 1, "expected a pass name, found end of text"},
      {"   ", 4, "expected a pass name, found end of text"},
      {"1Pass", 1, "expected a pass name, found '1Pass'"},
      {"(InferType)", 1, "expected a pass name, found '('"},
      {"sequential(InferType", 21, "expected ')' or ',' after a pass, found end of text"},
      {"sequential(FuseOps(fuse_opt_level=2)", 37, "expected ')' or ',' after a pass, found end of text"},
      {"FuseOps(fuse_opt_level=2", 25, "expected ')' or ',' after an option, found end of text"},
      {"sequential(InferType))", 22, "expected end of text after the pipeline, found ')'"},
      {"sequential(InferType)(", 22, "expected end of text after the pipeline, found '('"},
      {"InferType FoldConstant", 11, "expected end of text after the pipeline, found 'FoldConstant'"},
      {"InferType,FoldConstant", 10, "expected end of text after the pipeline, found ','"},
      {"Infer#Type", 6, "expected end of text after the pipeline, found '#'"},
      {"sequential(,InferType)", 12, "expected a pass name, an option key=value or ')', found ','"},
      {"sequential(InferType,)", 22, "expected a pass name or an option key=value, found ')'"},
      {"sequential(InferType,,)", 22, "expected a pass name or an option key=value, found ','"},
      {"sequential(InferType FoldConstant)", 22, "expected ')' or ',' after a pass, found 'FoldConstant'"},
      {"sequential(opt_level=1=2)", 23, "expected ')' or ',' after an option, found '='"},
      {"FuseOps(fuse_opt_level=two)", 24,
       "expected a value (an integer, a float, true, false, a \"string\" or a [list] of strings), found 'two'"},
      {"FuseOps(fuse_opt_level=)", 24,
       "expected a value (an integer, a float, true, false, a \"string\" or a [list] of strings), found ')'"},
      {"FuseOps(fuse_opt_level=-)", 24,
       "expected a value (an integer, a float, true, false, a \"string\" or a [list] of strings), found '-'"},
      {"FuseOps(fuse_opt_level=1.)", 24,
       "expected a number (digits, with an optional '.' and digits and an optional exponent), found '1.'"},
      {"FuseOps(fuse_opt_level=0x10)", 24,
       "expected a number (digits, with an optional '.' and digits and an optional exponent), found '0x10'"},
      {"FuseOps(fuse_opt_level=1e)", 24,
       "expected a number (digits, with an optional '.' and digits and an optional exponent), found '1e'"},
      {"FuseOps(fuse_opt_level=99999999999999999999)", 24,
       "expected an integer within the range of a 64-bit signed integer, found '99999999999999999999'"},
      {"Opts(d=1e999)", 8, "expected a float within the range of a double, found '1e999'"},
      {"Opts(l=[1])", 9, "expected a \"string\" (the elements of a list are strings), found '1'"},
      {"Opts(l=[\"a\",])", 13, "expected a \"string\" (the elements of a list are strings), found ']'"},
      {"Opts(l=[\"a\" \"b\"])", 13, "expected ',' or ']' in a list, found '\"b\"'"},
      {"Opts(l=[\"a\"", 12, "expected ',' or ']' in a list, found end of text"},
      {"Opts(s=\"abc)", 8, "unterminated string: expected a closing '\"', found end of text"},
      {"Opts(s=\"a\\qb\")", 10, "expected one of \\\" \\\\ \\n \\t \\r after '\\' in a string, found '\\q'"},
      {"Opts(i=1, i=2)", 11, "option 'i' of 'Opts' is given twice; expected each option at most once"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto msg = error_of([&] { (void)parse(c.text); });
    CHECK(has(msg, "pipeline text, column " + std::to_string(c.column) + ": " + c.expected + "\n"));
    CHECK(has(msg, "\n  " + std::string(static_cast<std::size_t>(c.column - 1), ' ') + "^"));
    // The syntax alone (no registry) gives the same error.
    CHECK(error_of([&] { (void)passinfra::canonical_pipeline(c.text); }) == msg);
  }
}

TEST_CASE("pipeline text: unknown names, options and types are reported at their column with suggestions") {
  struct Case {
    std::string text;
    int column;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases{
      {"sequential(InferType, FoldConstnat)",
       23,
       {"unknown pass name 'FoldConstnat'", "expected a registered pass name",
        "the closest registered names: 'FoldConstant'"}},
      {"sequential(FuseOps(fuse_opt_lvl=2))",
       20,
       {"pass 'FuseOps' has no option 'fuse_opt_lvl'", "expected an option of 'FuseOps'",
        "the closest registered options: 'fuse_opt_level'"}},
      {"FuseOps(fuse_opt_level=\"2\")",
       9,
       {"pass 'FuseOps': option 'fuse_opt_level' expects an integer, but was given a string (\"2\")"}},
      {"InferType(level=1)", 11, {"pass 'InferType' takes no options, but was given option 'level'"}},
      {"sequential(Unroll)", 12, {"pass 'Unroll' requires option 'factor' (an integer), which was not given"}},
      {"sequential(NeedsMissing)",
       12,
       {"pass 'NeedsMissing' requires 'Canonicalise', which is not registered",
        "the closest registered names: 'Canonicalize'"}},
      {"FuseOps(InferType)",
       9,
       {"expected an option key=value in the options of 'FuseOps' (only 'sequential' takes passes), "
        "found pass 'InferType'"}},
      {"sequential(nme=\"x\")",
       12,
       {"'sequential' has no option 'nme'", "expected name=\"...\" or opt_level=N, or a pass",
        "the closest registered options: 'name'"}},
      {"sequential(name=3)", 12, {"option 'name' of 'sequential' expects a string, but was given an integer (3)"}},
      {"sequential(opt_level=\"high\")",
       12,
       {"option 'opt_level' of 'sequential' expects an integer in the range of int, but was given a string "
        "(\"high\")"}},
      {"sequential(opt_level=4294967296)", 12, {"but was given an integer (4294967296)"}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const auto msg = error_of([&] { (void)parse(c.text); });
    CHECK(has(msg, "pipeline text, column " + std::to_string(c.column) + ": "));
    for (const auto& part : c.parts) CHECK(has(msg, part));
    CHECK(has(msg, "\n  " + c.text + "\n  " + std::string(static_cast<std::size_t>(c.column - 1), ' ') + "^"));
    CHECK_NOTHROW((void)passinfra::canonical_pipeline(c.text));  // the syntax is fine
  }
}

TEST_CASE("pipeline text: the syntax tree keeps names, options, children and columns") {
  const auto node = passinfra::parse_pipeline_syntax("sequential(A, B(k=[\"v\"]), opt_level=1)");
  CHECK(node.name == "sequential");
  CHECK(node.column == 1);
  REQUIRE(node.children.size() == 2);
  CHECK(node.children[0].name == "A");
  CHECK(node.children[0].column == 12);
  CHECK(node.children[1].name == "B");
  CHECK(node.children[1].column == 15);
  REQUIRE(node.children[1].options.size() == 1);
  CHECK(node.children[1].options[0].key == "k");
  CHECK(node.children[1].options[0].column == 17);
  CHECK(std::get<passinfra::StringList>(node.children[1].options[0].value) == passinfra::StringList{"v"});
  REQUIRE(node.options.size() == 1);
  CHECK(node.options[0].key == "opt_level");
  CHECK(passinfra::to_string(node) == "sequential(opt_level=1,A,B(k=[\"v\"]))");
}
