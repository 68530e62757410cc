// opt_main<IR> and analyses (SPEC §10, §12): the driver's context holds an
// analysis manager, so require(analysis="X") / invalidate(analysis="X") /
// invalidate_all work in --passes for the registry's analyses, --time-passes
// shows "(A) <name>" rows, and --verify-analyses adds the
// AnalysisPreservationChecker. Over tinyir, with its analyses registered as
// tinyir-opt registers them, and one pass that lies about what it preserves.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <passinfra/tool/opt_main.hpp>

#include "support/mini_json.hpp"
#include "tinyir/builders.hpp"
#include "tinyir/passes.hpp"

namespace {

using tinyir::Module;

// Lie: @main becomes add(%x, %x), but the pass says it preserves everything.
struct Lie {
  static constexpr passinfra::PassInfo info{"Lie", 0};
  using preserves = passinfra::preserves_all;
  Module transform(const Module& m, auto& /*ctx*/) const {
    const auto& fn = m.functions().front().second;
    const auto& x = fn->params.front();
    std::vector<Module::Entry> entries;
    entries.emplace_back("main", tinyir::make_function(fn->params, tinyir::op::add(x, x)));
    return Module(std::move(entries));
  }
};

passinfra::PassRegistry<Module>& registry() {
  static passinfra::PassRegistry<Module> r;
  static const bool once = [] {
    tinyir::register_passes(r);
    r.add_analysis<tinyir::CallGraph>();
    r.add_analysis<tinyir::FunctionTypes>();
    r.add_analysis<tinyir::Liveness>();
    r.add_analysis<tinyir::TypeMap>();
    r.add<Lie>("says it preserves everything; rewrites @main");
    return true;
  }();
  (void)once;
  return r;
}

constexpr std::string_view kInput = R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = add(1f, 2f);
  %1 = multiply(%0, 2f);
  add(%x, %1)
}
)IR";

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result opt(std::vector<std::string> args, std::string_view input = kInput) {
  std::istringstream in{std::string(input)};
  std::ostringstream out;
  std::ostringstream err;
  passinfra::OptMainOptions options{.tool_name = "tinyir-opt"};
  const int code = passinfra::opt_main<Module>(args, registry(), options, {in, out, err});
  return {code, out.str(), err.str()};
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("opt_main analyses: require / invalidate / invalidate_all in --passes, printed back as given") {
  auto r = opt({"--passes=require(analysis=\"CallGraph\"),invalidate(analysis=\"TypeMap\"),invalidate_all",
                "--print-pipeline-passes"});
  CHECK(r.code == 0);
  CHECK(r.out == "sequential(require(analysis=\"CallGraph\"),invalidate(analysis=\"TypeMap\"),invalidate_all)\n");
  // They run: the output is the input (they change nothing).
  const Result plain = opt({});
  r =
      opt({"--passes=require(analysis=\"CallGraph\"),require(analysis=\"Liveness\"),InferType,"
           "invalidate(analysis=\"TypeMap\"),invalidate_all"});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == plain.out);
}

TEST_CASE("opt_main analyses: an unknown analysis in --passes is a usage error at its column, with suggestions") {
  const auto r = opt({"--passes=InferType,require(analysis=\"CalGraph\")"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "tinyir-opt: error: --passes: pipeline text, column 19: unknown analysis 'CalGraph'; did you mean "
        "'CallGraph'? registered: CallGraph, FunctionTypes, Liveness, TypeMap\n"
        "  InferType,require(analysis=\"CalGraph\")\n"
        "                    ^\n");
}

TEST_CASE("opt_main analyses: --time-passes shows analyses as (A) rows under the pass that asked (SPEC §10.7)") {
  auto r = opt({"--passes=require(analysis=\"CallGraph\"),require(analysis=\"CallGraph\")", "--time-passes",
                "--disable-output"});
  CHECK(r.code == 0);
  // Computed once, under the first require; the second finds it cached.
  CHECK(contains(r.err, "\trequire<CallGraph>: "));
  CHECK(contains(r.err, "\t\t(A) CallGraph: "));
  const auto first = r.err.find("\t\t(A) CallGraph: ");
  CHECK(r.err.find("\t\t(A) CallGraph: ", first + 1) == std::string::npos);

  r = opt(
      {"--passes=require(analysis=\"TypeMap\")", "--time-passes", "--time-passes-display=list", "--disable-output"});
  CHECK(r.code == 0);
  CHECK(contains(r.err, "(A) TypeMap"));
  CHECK(contains(r.err, "(A) FunctionTypes"));  // TypeMap's dependency
}

TEST_CASE("opt_main analyses: --report lists passes, not analyses") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("passinfra_opt_analyses_" + std::to_string(::getpid()) + ".json"))
          .string();
  const auto r = opt({"--passes=require(analysis=\"CallGraph\")", "--report", path, "--disable-output"});
  CHECK(r.code == 0);
  std::ifstream f(path);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  auto j = pitest::parse_json(text);
  std::vector<std::string> names;
  for (const auto& p : j["passes"].as_array()) names.push_back(p["name"].as_string());
  CHECK(names == std::vector<std::string>{"sequential", "require<CallGraph>"});
}

TEST_CASE("opt_main analyses: --verify-analyses passes honest pipelines and catches a false claim (SPEC §10.10)") {
  const auto plain = opt({"--passes=InferType,FoldConstant,FuseOps"});
  REQUIRE(plain.code == 0);
  auto r =
      opt({"--passes=require(analysis=\"CallGraph\"),require(analysis=\"TypeMap\"),InferType,FoldConstant,"
           "FuseOps",
           "--verify-analyses"});
  CHECK(r.code == 0);
  CHECK(r.out == plain.out);
  CHECK(r.err == "");

  // Lie keeps everything it was given, but rewrote @main: CallGraph (cached by
  // require) no longer describes the IR.
  r = opt({"--passes=require(analysis=\"CallGraph\"),Lie", "--verify-analyses"});
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "tinyir-opt: error: pass 'Lie' failed: passinfra: pass 'Lie' preserved analysis 'CallGraph', but "
        "recomputing it gives a different result\n");
  // Without the flag nobody checks.
  r = opt({"--passes=require(analysis=\"CallGraph\"),Lie"});
  CHECK(r.code == 0);
}

TEST_CASE("opt_main analyses: --help lists --verify-analyses; --list-passes the analyses require takes") {
  auto r = opt({"--help"});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "--verify-analyses"));
  CHECK(contains(r.out,
                 "\nAvailable analyses (require(analysis=\"<name>\"), invalidate(analysis=\"<name>\")):\n"
                 "  CallGraph\n  FunctionTypes (function analysis)\n  Liveness (function analysis)\n"
                 "  TypeMap\n"));
  r = opt({"--list-passes"});
  CHECK(r.code == 0);
  CHECK(contains(r.out,
                 "require(analysis: string) - compute a registered analysis and cache it (runs as "
                 "require<Name>); analyses: CallGraph, FunctionTypes, Liveness, TypeMap\n"));
  CHECK(contains(r.out, "invalidate_all - "));
}
