// AnnotateSpans (SPEC §7): print, parse back as "GeneratedSource", then the Then passes.
#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>
#include <passinfra/ir/annotate_spans.hpp>

#include "support/generic_instruments.hpp"

namespace {

// A module of lines; parsing gives every line a span (source, line, column of
// its first non-blank character) and leaves it untyped, like a real parser.
struct Span {
  std::string source;
  int line = 0;
  int column = 0;
  friend bool operator==(const Span&, const Span&) = default;
};
struct SpannedIR {
  std::vector<std::string> lines;
  std::vector<Span> spans{};  // empty: never parsed
  bool typed = false;
};

SpannedIR lines(std::vector<std::string> text) { return SpannedIR{std::move(text), {}, false}; }

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "Typing" the lines: what Then passes are for.
struct MarkTyped {
  static constexpr passinfra::PassInfo info{"MarkTyped", 0};
  SpannedIR transform(SpannedIR ir, auto&) const {
    ir.typed = true;
    return ir;
  }
};

struct Unparsable {
  std::string text;
};

}  // namespace

template <>
struct passinfra::ir_traits<SpannedIR> {
  static std::string print(const SpannedIR& ir) {
    std::string out;
    for (const auto& line : ir.lines) out += line + "\n";
    return out;
  }
  static SpannedIR parse(std::string_view text, std::string_view source) {
    SpannedIR ir;
    int number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t nl = text.find('\n', start);
      const std::string line(text.substr(start, nl - start));
      ++number;
      if (line.find('!') != std::string::npos) {
        throw ParseError(std::string(source) + ":" + std::to_string(number) + ": unexpected '!'");
      }
      const std::size_t first = line.find_first_not_of(' ');
      ir.lines.push_back(line);
      ir.spans.push_back({std::string(source), number, static_cast<int>(first == std::string::npos ? 1 : first + 1)});
      start = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    return ir;
  }
};

template <>
struct passinfra::ir_traits<Unparsable> {
  static std::string print(const Unparsable& ir) { return ir.text; }
};

static_assert(passinfra::Pass<passinfra::AnnotateSpans<>>);
static_assert(passinfra::PrintableIR<Unparsable> && !passinfra::ParsableIR<Unparsable>);

TEST_CASE("AnnotateSpans: info is AnnotateSpans, opt_level 0, no required passes") {
  const passinfra::PassInfo info = passinfra::info_of<passinfra::AnnotateSpans<MarkTyped>>;
  CHECK(info.name == "AnnotateSpans");
  CHECK(info.opt_level == 0);
  CHECK(info.required.empty());
  CHECK(passinfra::AnnotateSpans<>::source_name == "GeneratedSource");
}

TEST_CASE("AnnotateSpans: every node gets a span into the printed text, source GeneratedSource") {
  auto ctx = passinfra::make_pass_context<SpannedIR>({});
  const SpannedIR out = passinfra::run(passinfra::AnnotateSpans<>{}, lines({"%0 = f(x)", "  %1 = g(%0)"}), ctx);
  CHECK(out.lines == std::vector<std::string>{"%0 = f(x)", "  %1 = g(%0)"});
  CHECK(out.spans == std::vector<Span>{{"GeneratedSource", 1, 1}, {"GeneratedSource", 2, 3}});
  CHECK_FALSE(out.typed);  // no Then pass
}

TEST_CASE("AnnotateSpans: the Then passes are nested, instrumented runs under the same context") {
  std::vector<std::string> events;
  auto ctx = passinfra::make_pass_context<SpannedIR>({.opt_level = 0, .disabled_pass = {"MarkTyped"}},
                                                     pitest::HookLog{&events});
  const SpannedIR out = passinfra::run(passinfra::AnnotateSpans<MarkTyped>{}, lines({"a"}), ctx);
  CHECK(out.typed);  // ran although disabled: no PassEnabled check on nested runs (SPEC §3)
  CHECK(out.spans.size() == 1);
  CHECK(events == std::vector<std::string>{"should_run AnnotateSpans", "before AnnotateSpans", "should_run MarkTyped",
                                           "before MarkTyped", "after MarkTyped", "after AnnotateSpans"});
}

TEST_CASE("AnnotateSpans: a parse error leaves the pass unchanged, after_failed told, no after hook") {
  std::vector<std::string> events;
  passinfra::PassContext<SpannedIR> ctx({}, {passinfra::make_instrument<SpannedIR, pitest::HookLog>(&events)});
  const passinfra::AnyPass<SpannedIR> pass(passinfra::AnnotateSpans<MarkTyped>{});
  CHECK_THROWS_WITH_AS((void)passinfra::run(pass, lines({"ok", "bad!"}), ctx), "GeneratedSource:2: unexpected '!'",
                       ParseError);
  CHECK(events ==
        std::vector<std::string>{"should_run AnnotateSpans", "before AnnotateSpans", "after_failed AnnotateSpans"});
}

TEST_CASE("AnnotateSpans: runs on the dynamic layer through the registry like any static pass") {
  passinfra::PassRegistry<SpannedIR> registry;
  registry.add<passinfra::AnnotateSpans<MarkTyped>>();
  const auto pass = passinfra::parse_pipeline<SpannedIR>("sequential(AnnotateSpans)", registry);
  passinfra::PassContext<SpannedIR> ctx;
  const SpannedIR out = ctx.with([&] { return pass(lines({"x", "y"})); });
  CHECK(out.typed);
  CHECK(out.spans == std::vector<Span>{{"GeneratedSource", 1, 1}, {"GeneratedSource", 2, 1}});
}
