// fuzz/pipeline_text_fuzz.cpp — libFuzzer target: the pipeline-text parser and printer.
//
// Input: any bytes, taken as pipeline text. Invariants (pipeline_text.hpp's contract):
//  * parse_pipeline_syntax / parse_pipeline either return or throw passinfra::Error --
//    nothing else escapes, nothing crashes;
//  * an Error from the parser says "passinfra: pipeline text, column N: ..." with
//    1 <= N <= size + 1;
//  * canonical text is a fixed point: canonical(canonical(t)) == canonical(t);
//  * if the registry accepts t: the syntax accepted it too, print(parse(t)) ==
//    canonical(t), and parse(print(p)) prints the same text again;
//  * the parsed pipeline runs (trivial test passes) under a context with an
//    instrument on every hook, and returns.
// Build and run: `make fuzz` (scripts/fuzz.sh). Seeds: fuzz/corpus/pipeline_text/.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <passinfra/dynamic.hpp>

#include "support/test_ir.hpp"

namespace {

using passinfra::ConfigType;
using passinfra::PassOptions;
using pitest::TestIR;
using pitest::TestPass;
using Registry = passinfra::PassRegistry<TestIR>;

struct Leveled {
  int level = 0;
  passinfra::PassInfo info() const { return {"FuseOps", 1}; }
  TestIR transform(TestIR ir, auto&) const {
    ir.value += level;
    return ir;
  }
};

inline constexpr std::array<std::string_view, 1> kLowerRequires{"InferType"};
struct Lower {
  static constexpr passinfra::PassInfo info{"Lower", 0, kLowerRequires};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};
inline constexpr std::array<std::string_view, 1> kNeedsMissing{"Missing"};
struct NeedsMissing {
  static constexpr passinfra::PassInfo info{"NeedsMissing", 0, kNeedsMissing};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};

const Registry& registry() {
  static Registry reg;
  static const bool filled = [] {
    reg.add<TestPass<"InferType">>();
    reg.add<TestPass<"FoldConstant", 2>>();
    reg.add<TestPass<"a", 1>>();
    reg.add<TestPass<"b.c_d", 3, passinfra::requires_passes<TestPass<"InferType">>>>();
    reg.add<Lower>();
    reg.add<NeedsMissing>();
    reg.add("FuseOps", [](const PassOptions& o) { return Leveled{passinfra::get_option<int>(o, "fuse_opt_level")}; },
            {{"fuse_opt_level", ConfigType::integer, std::int64_t{2}}});
    reg.add("Unroll", [](const PassOptions& o) { return Leveled{passinfra::get_option<int>(o, "factor")}; },
            {{"factor", ConfigType::integer}});
    reg.add("Opts", [](const PassOptions&) { return Leveled{}; },
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

// An instrument with every hook, doing nothing.
struct AllHooks {
  void enter_pass_ctx() {}
  void exit_pass_ctx() {}
  bool should_run(const TestIR&, const passinfra::PassInfo&) { return true; }
  void run_before_pass(const TestIR&, const passinfra::PassInfo&) {}
  void run_after_pass(const TestIR&, const passinfra::PassInfo&) {}
  void run_after_pass_failed(const passinfra::PassInfo&, std::exception_ptr) {}
};

[[noreturn]] void violated(const char* what, std::string_view text, const std::string& detail = {}) {
  std::fprintf(stderr, "pipeline_text_fuzz: invariant violated: %s\n  text: '%.*s'\n  %s\n", what,
               static_cast<int>(text.size()), text.data(), detail.c_str());
  std::abort();
}

// A parser error: "passinfra: pipeline text, column N: ..." with N in [1, size + 1].
void check_parse_error(const passinfra::Error& e, std::string_view text) {
  const std::string_view what = e.what();
  constexpr std::string_view prefix = "passinfra: pipeline text, column ";
  if (!what.starts_with(prefix)) violated("error without 'pipeline text, column'", text, std::string(what));
  std::size_t column = 0;
  std::size_t i = prefix.size();
  while (i < what.size() && what[i] >= '0' && what[i] <= '9')
    column = column * 10 + static_cast<std::size_t>(what[i++] - '0');
  if (column < 1 || column > text.size() + 1) violated("error column out of range", text, std::string(what));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  std::optional<std::string> canonical;
  try {
    const passinfra::PipelineNode node = passinfra::parse_pipeline_syntax(text);
    canonical = passinfra::to_string(node);
  } catch (const passinfra::Error& e) {
    check_parse_error(e, text);
  }
  if (canonical) {
    try {
      const std::string again = passinfra::canonical_pipeline(*canonical);
      if (again != *canonical) violated("canonical text is not a fixed point", text, *canonical + " -> " + again);
    } catch (const passinfra::Error& e) {
      violated("canonical text does not parse", text, *canonical + ": " + e.what());
    }
  }

  std::optional<passinfra::AnyPass<TestIR>> pass;
  try {
    pass.emplace(passinfra::parse_pipeline<TestIR>(text, registry()));
  } catch (const passinfra::Error& e) {
    check_parse_error(e, text);
  }
  if (!pass) return 0;
  if (!canonical) violated("the registry accepted text the syntax rejected", text);
  std::string printed;
  try {
    printed = passinfra::print_pipeline(*pass);
  } catch (const passinfra::Error& e) {
    violated("a parsed pipeline does not print", text, e.what());
  }
  if (printed != *canonical) violated("print(parse(t)) != canonical(t)", text, printed + " vs " + *canonical);
  try {
    const auto reparsed = passinfra::parse_pipeline<TestIR>(printed, registry());
    if (passinfra::print_pipeline(reparsed) != printed) violated("parse(print(p)) prints differently", text, printed);
  } catch (const passinfra::Error& e) {
    violated("printed text does not parse", text, printed + ": " + e.what());
  }
  AllHooks hooks;
  passinfra::PassContext<TestIR> ctx({.opt_level = 3}, {passinfra::AnyInstrument<TestIR>(std::ref(hooks))});
  ctx.with([&] { (void)(*pass)(TestIR{}); });
  return 0;
}
