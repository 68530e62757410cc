// opt_main<IR> in process (SPEC §12): every flag of §12.1, every error of
// §12.5, exit codes (§12.2), --config (§12.3), atomic writes (§12.4), the
// reproducer's run line (§12.6) and --report (§12.7), over tinyir with two
// extra passes: Explode (throws) and Unbind (breaks the IR's structure).
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <passinfra/tool/opt_main.hpp>

#include "support/mini_json.hpp"
#include "tinyir/builders.hpp"
#include "tinyir/passes.hpp"

namespace {

using pitest::parse_json;
using tinyir::Module;

struct Explode {
  static constexpr passinfra::PassInfo info{"Explode", 0};
  Module transform(Module, auto& /*ctx*/) const { throw std::runtime_error("boom"); }
};

// Unbind: @main's body becomes add(%ghost, %ghost), %ghost bound nowhere.
struct Unbind {
  static constexpr passinfra::PassInfo info{"Unbind", 0};
  Module transform(const Module& m, auto& /*ctx*/) const {
    const auto& fn = m.functions().front().second;
    auto ghost = tinyir::make_var("ghost");
    std::vector<Module::Entry> entries;
    entries.emplace_back("main", tinyir::make_function(fn->params, tinyir::op::add(ghost, ghost)));
    return Module(std::move(entries));
  }
};

passinfra::PassRegistry<Module>& registry() {
  static passinfra::PassRegistry<Module> r;
  static const bool once = [] {
    tinyir::register_passes(r);
    r.add<Explode>("throws 'boom'");
    r.add<Unbind>("uses a variable bound nowhere");
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

constexpr std::string_view kFolded = R"IR(def @main(%x: Tensor[(2), float32]) {
  add(%x, 6f)
}
)IR";

struct Result {
  int code;
  std::string out;
  std::string err;
  std::streamoff consumed;  // how much of the input stream was read
};

Result opt(std::vector<std::string> args, std::string_view input = kInput) {
  std::istringstream in{std::string(input)};
  std::ostringstream out;
  std::ostringstream err;
  passinfra::OptMainOptions options{.tool_name = "tinyir-opt"};
  const int code = passinfra::opt_main<Module>(args, registry(), options, {in, out, err});
  in.clear();
  return {code, out.str(), err.str(), static_cast<std::streamoff>(in.tellg())};
}

// A fresh scratch directory per test case.
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    static std::atomic<int> n{0};
    dir = std::filesystem::temp_directory_path() /
          ("passinfra_opt_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, std::string_view text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  static std::string read(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace

TEST_CASE("opt_main: runs the pipeline and prints the result, from stdin to stdout") {
  const auto r = opt({"--passes=InferType,FoldConstant", "-"});
  CHECK(r.code == 0);
  CHECK(r.out == kFolded);
  CHECK(r.err.empty());
  // No input argument reads stdin too; an empty --passes list parses and prints.
  CHECK(opt({"--passes=InferType,FoldConstant"}).out == kFolded);
  CHECK(opt({}).out == kInput);
  CHECK(opt({"--pass-pipeline", "sequential(InferType,FoldConstant)"}).out == kFolded);
}

TEST_CASE("opt_main: a file in, -o a file out, written whole") {
  Scratch s;
  const std::string in = s.write("in.tir", kInput);
  const auto r = opt({"--passes=InferType,FoldConstant", in, "-o", s.path("out.tir")});
  CHECK(r.code == 0);
  CHECK(r.out.empty());
  CHECK(Scratch::read(s.path("out.tir")) == kFolded);
  CHECK(s.files() == std::vector<std::string>{"in.tir", "out.tir"});  // no temporary left
  CHECK(opt({in, "-o" + s.path("out2.tir")}).code == 0);              // -o<path>
  CHECK(Scratch::read(s.path("out2.tir")) == kInput);
  CHECK(opt({"--disable-output", "--passes=InferType", in}).out.empty());
}

TEST_CASE("opt_main: --print-pipeline-passes, --list-passes, --help and --version read no input") {
  auto r = opt({"--passes=InferType, FoldConstant", "--print-pipeline-passes", "no-such-file.tir"}, "garbage");
  CHECK(r.code == 0);
  CHECK(r.out == "sequential(InferType,FoldConstant)\n");
  CHECK(r.consumed == 0);
  r = opt({"--list-passes"});
  CHECK(r.code == 0);
  CHECK(r.out == registry().describe());
  r = opt({"--help"});
  CHECK(r.code == 0);
  CHECK(r.out.find("USAGE: tinyir-opt [options] [input]") != std::string::npos);
  CHECK(r.out.find("--passes") != std::string::npos);
  CHECK(r.out.find("--opt-bisect-limit") != std::string::npos);
  CHECK(r.out.find("run everything, write no IR") != std::string::npos);  // descriptions shown
  CHECK(r.out.find("--print-changed [=<value>]") != std::string::npos);
  CHECK(r.out.find("\nAvailable passes:\n  AnnotateSpans - ") != std::string::npos);
  CHECK(r.consumed == 0);
  CHECK(opt({"-h"}).out == r.out);
  r = opt({"--version"});
  CHECK(r.code == 0);
  CHECK(r.out == "tinyir-opt (passinfra " + std::string(passinfra::version_string) + ")\n");
#ifdef PASSINFRA_PROJECT_VERSION
  CHECK(passinfra::version_string == PASSINFRA_PROJECT_VERSION);
#endif
}

TEST_CASE("opt_main: unknown options get a did-you-mean and exit 2 without reading the input") {
  auto r = opt({"--pases=InferType"});
  CHECK(r.code == 2);
  CHECK(r.err == "tinyir-opt: error: unknown option '--pases'; did you mean '--passes'?\n");
  CHECK(r.consumed == 0);
  CHECK(r.out.empty());
  // LLVM's single-dash spelling is not accepted; the suggestion names the -- form.
  r = opt({"-passes=InferType"});
  CHECK(r.err == "tinyir-opt: error: unknown option '-passes'; did you mean '--passes'?\n");
  r = opt({"--zzzzzzzzzzzz"});
  CHECK(r.err == "tinyir-opt: error: unknown option '--zzzzzzzzzzzz'; expected an option that --help lists\n");
  CHECK(opt({"--passes"}).err == "tinyir-opt: error: --passes: expected a value\n");
  CHECK(opt({"--time-passes=yes"}).err == "tinyir-opt: error: --time-passes: takes no value, but was given 'yes'\n");
  CHECK(opt({"a.tir", "b.tir"}).err ==
        "tinyir-opt: error: unexpected argument 'b.tir'; expected one input file (or -)\n");
}

TEST_CASE("opt_main: bad option values name the option, the value and what it accepts") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--opt-level=x"}, "--opt-level: 'x' is not an integer"},
      {{"-Ox"}, "--opt-level: 'x' is not an integer"},
      {{"--print-changed=unified"}, "--print-changed: 'unified' is not one of full, diff, cdiff"},
      {{"--statistics=xml"}, "--statistics: 'xml' is not one of text, json"},
      {{"--time-passes-display=flat"}, "--time-passes-display: 'flat' is not one of tree, list"},
      {{"--log-level=loud"}, "--log-level: 'loud' is not one of warning, info, debug"},
      {{"--opt-bisect-limit=two"}, "--opt-bisect-limit: 'two' is not an integer"},
      {{"--opt-bisect-limit=-2"}, "--opt-bisect-limit: -2 is below -1; expected -1 (no limit) or more"},
  };
  for (const auto& [args, message] : cases) {
    CAPTURE(message);
    const auto r = opt(args);
    CHECK(r.code == 2);
    CHECK(r.err == "tinyir-opt: error: " + message + "\n");
    CHECK(r.consumed == 0);
  }
}

TEST_CASE("opt_main: bad pipeline text points into the user's --passes text") {
  auto r = opt({"--passes=InferType,FoldConstnt"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "tinyir-opt: error: --passes: pipeline text, column 11: unknown pass name 'FoldConstnt'; expected a "
        "registered pass name; the closest registered names: 'FoldConstant', 'FoldScaleAxis', 'FuseOps'\n"
        "  InferType,FoldConstnt\n"
        "            ^\n");
  r = opt({"--passes=FuseOps(fuse_opt_levl=1)"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--passes: pipeline text, column 9: pass 'FuseOps' has no option 'fuse_opt_levl'") !=
        std::string::npos);
  r = opt({"--passes=InferType,("});
  CHECK(r.code == 2);
  CHECK(r.err.find("column 11:") != std::string::npos);
  CHECK(r.err.find("  InferType,(\n            ^\n") != std::string::npos);
}

TEST_CASE("opt_main: pass names in list options must be registered") {
  for (const std::string flag : {"--required-pass", "--disable-pass", "--disabled-pass", "--print-ir-before",
                                 "--print-ir-after", "--filter-passes"}) {
    CAPTURE(flag);
    const auto r = opt({flag + "=InferType,FoldConst"});
    CHECK(r.code == 2);
    const std::string shown = flag == "--disabled-pass" ? "--disable-pass" : flag;
    CHECK(r.err.starts_with("tinyir-opt: error: " + shown +
                            ": unknown pass name 'FoldConst'; the closest registered names: 'FoldConstant'"));
  }
}

TEST_CASE("opt_main: --passes takes a function nest; --disable-pass=function skips it") {
  const auto flat = opt({"--passes=InferType,FoldConstant,EliminateCommonSubexpr", "-O", "3"});
  REQUIRE(flat.code == 0);
  const auto nested = opt({"--passes=InferType,function(FoldConstant,EliminateCommonSubexpr)", "-O", "3"});
  CHECK(nested.code == 0);
  CHECK(nested.out == flat.out);
  const auto printed = opt(
      {"--passes=function( FoldConstant ),function(serial=false,EliminateCommonSubexpr)", "--print-pipeline-passes"});
  CHECK(printed.out == "sequential(function(FoldConstant),function(EliminateCommonSubexpr))\n");
  const auto none = opt({"--passes=InferType"});
  const auto skipped = opt({"--passes=InferType,function(FoldConstant)", "--disable-pass=function"});
  CHECK(skipped.code == 0);
  CHECK(skipped.out == none.out);
  const auto wrong = opt({"--passes=function(ToANormalForm)"});
  CHECK(wrong.code == 2);
  CHECK(wrong.err.find("--passes: pipeline text, column 10: 'ToANormalForm' is not a function pass") !=
        std::string::npos);
}

TEST_CASE("opt_main: --config converts by the registered type; errors name the key and the expected type") {
  auto r = opt({"--config", "relay.FuseOps.max_depht=3"});
  CHECK(r.code == 2);
  CHECK(
      r.err.starts_with("tinyir-opt: error: --config 'relay.FuseOps.max_depht=3': unknown config key "
                        "'relay.FuseOps.max_depht'"));
  CHECK(r.err.find("'relay.FuseOps.max_depth'") != std::string::npos);
  r = opt({"--config=relay.FuseOps.max_depth=deep"});
  CHECK(r.err ==
        "tinyir-opt: error: --config 'relay.FuseOps.max_depth=deep': key 'relay.FuseOps.max_depth' "
        "expects an integer, but 'deep' is not one\n");
  r = opt({"--pass-config=relay.FuseOps.max_depth"});
  CHECK(r.err == "tinyir-opt: error: --config 'relay.FuseOps.max_depth': expected key=value\n");
  CHECK(r.consumed == 0);
  // Accepted, and the last one wins.
  CHECK(opt({"--config=relay.FuseOps.max_depth=deep", "--config=relay.FuseOps.max_depth=2"}).code == 2);
  CHECK(opt({"--config=relay.FuseOps.max_depth=1", "--config=relay.FuseOps.max_depth=2"}).code == 0);
}

TEST_CASE("opt_main: --config's conversions (SPEC §12.3)") {
  using passinfra::ConfigType;
  using passinfra::ConfigValue;
  using passinfra::detail::opt::convert_config;
  CHECK(convert_config(ConfigType::boolean, "1") == ConfigValue(true));
  CHECK(convert_config(ConfigType::boolean, "false") == ConfigValue(false));
  CHECK_FALSE(convert_config(ConfigType::boolean, "yes"));
  CHECK(convert_config(ConfigType::integer, "-42") == ConfigValue(std::int64_t{-42}));
  CHECK_FALSE(convert_config(ConfigType::integer, "4x"));
  CHECK_FALSE(convert_config(ConfigType::integer, "99999999999999999999"));
  CHECK(convert_config(ConfigType::floating, "2.5e1") == ConfigValue(25.0));
  CHECK(convert_config(ConfigType::floating, "3") == ConfigValue(3.0));
  CHECK_FALSE(convert_config(ConfigType::floating, "3.0.0"));
  CHECK(convert_config(ConfigType::string, "a=b, c") == ConfigValue(std::string("a=b, c")));
  CHECK(convert_config(ConfigType::string_list, "a, b,c") == ConfigValue(passinfra::StringList{"a", " b", "c"}));
  CHECK(convert_config(ConfigType::string_list, R"(["a,b", "c"])") == ConfigValue(passinfra::StringList{"a,b", "c"}));
  CHECK_FALSE(convert_config(ConfigType::string_list, "[a]"));
}

TEST_CASE("opt_main: OptMainOptions::config_aliases give a tool flag for a config key, checked as --config") {
  std::istringstream in{std::string(kInput)};
  std::ostringstream out;
  std::ostringstream err;
  const passinfra::OptMainOptions options{.tool_name = "tinyir-opt",
                                          .config_aliases = {{"fuse-max-depth", "relay.FuseOps.max_depth"}}};
  const auto run = [&](std::vector<std::string> args) {
    in.clear();
    in.str(std::string(kInput));
    out.str("");
    err.str("");
    return passinfra::opt_main<Module>(args, registry(), options, {in, out, err});
  };
  CHECK(run({"--passes=FuseOps", "--fuse-max-depth=0"}) == 1);
  CHECK(err.str().find("relay.FuseOps.max_depth is 0") != std::string::npos);
  CHECK(run({"--passes=FuseOps", "--fuse-max-depth", "4"}) == 0);
  CHECK(run({"--fuse-max-depth=deep"}) == 2);
  CHECK(err.str() ==
        "tinyir-opt: error: --fuse-max-depth 'relay.FuseOps.max_depth=deep': key 'relay.FuseOps.max_depth' "
        "expects an integer, but 'deep' is not one\n");
  CHECK(run({"--fuse-max-dept=1"}) == 2);
  CHECK(err.str() == "tinyir-opt: error: unknown option '--fuse-max-dept'; did you mean '--fuse-max-depth'?\n");
  CHECK(run({"--help"}) == 0);
  CHECK(out.str().find("--fuse-max-depth") != std::string::npos);
}

TEST_CASE("opt_main: relay.FuseOps.max_depth limits FuseOps' groups") {
  constexpr std::string_view chain = R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = add(%x, 1f);
  %1 = add(%0, 1f);
  %2 = add(%1, 1f);
  add(%2, 1f)
}
)IR";
  const auto whole = opt({"--passes=FuseOps"}, chain);
  const auto split = opt({"--passes=FuseOps", "--config=relay.FuseOps.max_depth=2"}, chain);
  REQUIRE(whole.code == 0);
  REQUIRE(split.code == 0);
  const auto count = [](const std::string& s, std::string_view what) {
    std::size_t n = 0;
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(whole.out, "Primitive=1") == 1);
  CHECK(count(split.out, "Primitive=1") == 2);
}

TEST_CASE("opt_main: input errors exit 3 -- unreadable, parse error with file:line:col and a caret, invalid") {
  Scratch s;
  auto r = opt({s.path("nope.tir")});
  CHECK(r.code == 3);
  CHECK(r.err == "tinyir-opt: error: cannot read '" + s.path("nope.tir") + "': No such file or directory\n");
  const std::string bad = s.write("bad.tir", "def @main(%x: Tensor[(2), float32]) {\n  %0 = add(1f 2f);\n  %0\n}\n");
  r = opt({"--passes=InferType", bad});
  CHECK(r.code == 3);
  CHECK(r.err == bad +
                     ":2:15: error: expected ',' or ')' in the call of add, found '2f'\n  %0 = add(1f 2f);\n"
                     "              ^\n");
  CHECK(opt({"-"}, "def @main() { %y }\n").err.starts_with("<stdin>:1:"));
  // Structurally invalid input (verify) is an input error too, unless --no-verify.
  r = opt({"-"}, "def @main() {\n  add(%x)\n}\n");
  if (r.code == 3 && r.err.find("error: '<stdin>' is not valid input") != std::string::npos) {
    CHECK(r.err.find("call of add with 1 argument; add takes 2") != std::string::npos);
  } else {
    CHECK(r.err.starts_with("<stdin>:"));  // the parser rejects it itself
  }
}

TEST_CASE("opt_main: a pass failure exits 1 and leaves -o untouched; absent stays absent") {
  Scratch s;
  const std::string in = s.write("in.tir", kInput);
  const std::string out = s.write("out.tir", "old contents\n");
  auto r = opt({"--passes=InferType,Explode", in, "-o", out});
  CHECK(r.code == 1);
  CHECK(r.err == "tinyir-opt: error: pass 'Explode' failed: boom\n");
  CHECK(Scratch::read(out) == "old contents\n");
  r = opt({"--passes=Explode", in, "-o", s.path("new.tir")});
  CHECK(r.code == 1);
  CHECK(s.files() == std::vector<std::string>{"in.tir", "out.tir"});
  // Nothing on stdout either.
  CHECK(opt({"--passes=Explode"}).out.empty());
}

TEST_CASE("opt_main: output errors exit 4 with the path and strerror") {
  Scratch s;
  const auto r = opt({"-o", s.path("no/such/dir/out.tir")});
  CHECK(r.code == 4);
  CHECK(r.err ==
        "tinyir-opt: error: cannot write '" + s.path("no/such/dir/out.tir") + "': No such file or directory\n");
  CHECK(opt({"--time-passes", "--time-trace", s.path("no/trace.json"), "--passes=InferType"}).code == 4);
  CHECK(opt({"--report", s.path("no/report.json")}).code == 4);
}

TEST_CASE("opt_main: write_file_atomically replaces whole files and leaves nothing behind") {
  Scratch s;
  const std::string p = s.path("f.txt");
  passinfra::write_file_atomically(p, "one");
  passinfra::write_file_atomically(p, "two");
  CHECK(Scratch::read(p) == "two");
  CHECK(s.files() == std::vector<std::string>{"f.txt"});
  CHECK_THROWS_WITH_AS(passinfra::write_file_atomically(s.path("d/f.txt"), "x"),
                       ("passinfra: cannot write '" + s.path("d/f.txt") + "': No such file or directory").c_str(),
                       passinfra::Error);
  std::filesystem::create_directory(s.path("dir"));
  CHECK_THROWS_WITH_AS(passinfra::write_file_atomically(s.path("dir"), "x"),
                       ("passinfra: cannot write '" + s.path("dir") + "': Is a directory").c_str(), passinfra::Error);
  CHECK(std::filesystem::is_directory(s.path("dir")));
  CHECK(s.files() == std::vector<std::string>{"dir", "f.txt"});
}

TEST_CASE("opt_main: write_file_atomically writes a non-regular file in place and keeps symbolic links") {
  Scratch s;
  // A FIFO (as /dev/null or /dev/stdout would be): written through, still a FIFO afterwards.
  // (Renaming a temporary over it would replace the node: as root, -o /dev/null would
  // turn /dev/null into a regular file.)
  REQUIRE(::mkfifo(s.path("fifo").c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = Scratch::read(s.path("fifo")); });
  passinfra::write_file_atomically(s.path("fifo"), "through the pipe");
  reader.join();
  CHECK(got == "through the pipe");
  CHECK(std::filesystem::is_fifo(s.path("fifo")));
  // A symbolic link to a file: the file is replaced, the link stays a link.
  passinfra::write_file_atomically(s.path("target.txt"), "old");
  std::filesystem::create_symlink(s.path("target.txt"), s.path("link.txt"));
  passinfra::write_file_atomically(s.path("link.txt"), "new");
  CHECK(std::filesystem::is_symlink(s.path("link.txt")));
  CHECK(Scratch::read(s.path("target.txt")) == "new");
  CHECK(s.files() == std::vector<std::string>{"fifo", "link.txt", "target.txt"});
  // The driver's -o goes through it: a pipe sees the whole output.
  std::thread out_reader([&] { got = Scratch::read(s.path("fifo")); });
  const auto r = opt({"--passes=InferType,FoldConstant", "-o", s.path("fifo")});
  out_reader.join();
  CHECK(r.code == 0);
  CHECK(got == kFolded);
  CHECK(std::filesystem::is_fifo(s.path("fifo")));
}

TEST_CASE("opt_main: --crash-reproducer writes the failing pass's input and a run line that reproduces it") {
  Scratch s;
  const std::string in = s.write("in.tir", kInput);
  const std::string repro = s.path("repro.tir");
  auto r = opt({"--passes=InferType,Explode", "-O3", "--disable-pass=FuseOps", "--config=relay.FuseOps.max_depth=7",
                "--crash-reproducer", repro, in});
  CHECK(r.code == 1);
  const std::string command =
      "tinyir-opt --passes='Explode' --opt-level=3 --disable-pass=FuseOps "
      "--config='relay.FuseOps.max_depth=7' " +
      repro;
  CHECK(r.err ==
        "tinyir-opt: error: pass 'Explode' failed: boom\n"
        "tinyir-opt: note: reproducer written to '" +
            repro + "'; re-run with: " + command + "\n");
  const std::string text = Scratch::read(repro);
  CHECK(
      text.starts_with("// passinfra crash reproducer\n// pass: Explode\n// error: boom\n"
                       "// pipeline: sequential(InferType,Explode)\n// run: " +
                       command + "\n"));
  CHECK(text.find("def @main(%x: Tensor[(2), float32]) {") != std::string::npos);
  // Re-running the line: the same error.
  r = opt({"--passes=Explode", "--opt-level=3", "--disable-pass=FuseOps", "--config=relay.FuseOps.max_depth=7", repro});
  CHECK(r.code == 1);
  CHECK(r.err == "tinyir-opt: error: pass 'Explode' failed: boom\n");
  // A reproducer that cannot be written: exit 4, the pass error still reported.
  r = opt({"--passes=Explode", "--crash-reproducer", s.path("no/repro.tir"), in});
  CHECK(r.code == 4);
  CHECK(r.err.starts_with("tinyir-opt: error: pass 'Explode' failed: boom\n"));
}

TEST_CASE("opt_main: --print-ir-before/after, -all, --filter-passes") {
  auto r = opt({"--passes=InferType,FoldConstant", "--print-ir-before=FoldConstant", "--disable-output"});
  CHECK(r.code == 0);
  CHECK(r.err == "Before Running Pass: FoldConstant\n" + std::string(kInput));
  r = opt({"--passes=InferType,FoldConstant", "--print-ir-after=FoldConstant", "--disable-output"});
  CHECK(r.err == "After Running Pass: FoldConstant\n" + std::string(kFolded));
  r = opt({"--passes=InferType,FoldConstant", "--print-ir-after-all", "--disable-output"});
  CHECK(r.err == "After Running Pass: InferType\n" + std::string(kInput) + "After Running Pass: InferType\n" +
                     std::string(kFolded) + "After Running Pass: FoldConstant\n" + std::string(kFolded) +
                     "After Running Pass: sequential\n" + std::string(kFolded));
  r = opt(
      {"--passes=InferType,FoldConstant", "--print-ir-before-all", "--filter-passes=InferType", "--disable-output"});
  CHECK(r.err == "Before Running Pass: InferType\n" + std::string(kInput) + "Before Running Pass: InferType\n" +
                     std::string(kFolded));
}

TEST_CASE("opt_main: --print-changed full, diff and cdiff") {
  auto r =
      opt({"--passes=InferType,FoldConstant", "--print-changed", "--filter-passes=FoldConstant", "--disable-output"});
  CHECK(r.code == 0);
  CHECK(r.err == "After Running Pass: FoldConstant\n" + std::string(kFolded));
  r = opt(
      {"--passes=InferType,FoldConstant", "--print-changed=diff", "--filter-passes=FoldConstant", "--disable-output"});
  const std::string diff =
      "Diff After Running Pass: FoldConstant\n--- before FoldConstant\n+++ after FoldConstant\n"
      "@@ -1,5 +1,3 @@\n def @main(%x: Tensor[(2), float32]) {\n-  %0 = add(1f, 2f);\n"
      "-  %1 = multiply(%0, 2f);\n-  add(%x, %1)\n+  add(%x, 6f)\n }\n";
  CHECK(r.err == diff);
  r = opt(
      {"--passes=InferType,FoldConstant", "--print-changed=cdiff", "--filter-passes=FoldConstant", "--disable-output"});
  CHECK(r.err ==
        "Diff After Running Pass: FoldConstant\n--- before FoldConstant\n+++ after FoldConstant\n"
        "@@ -1,5 +1,3 @@\n def @main(%x: Tensor[(2), float32]) {\n\033[31m-  %0 = add(1f, 2f);\033[0m\n"
        "\033[31m-  %1 = multiply(%0, 2f);\033[0m\n\033[31m-  add(%x, %1)\033[0m\n"
        "\033[32m+  add(%x, 6f)\033[0m\n }\n");
  // A pass that changes nothing prints nothing.
  CHECK(opt({"--passes=InferType", "--print-changed", "--disable-output"}).err.empty());
}

TEST_CASE("opt_main: --print-debuginfo prints locations everywhere") {
  const auto r = opt({"--print-debuginfo", "--passes=InferType", "--print-ir-after=InferType"});
  CHECK(r.code == 0);
  CHECK(r.out.find("/* span=<stdin>:2:") != std::string::npos);
  CHECK(r.err.find("/* span=<stdin>:2:") != std::string::npos);
  CHECK(opt({"--passes=InferType"}).out.find("/* span=") == std::string::npos);
}

TEST_CASE("opt_main: --debug-pass-manager, with --opt-bisect-limit's skips") {
  auto r = opt({"--passes=InferType,FoldConstant", "--debug-pass-manager", "--disable-output"});
  CHECK(r.code == 0);
  CHECK(r.err ==
        "Running pass: sequential\n  Running pass: InferType\n  Running pass: FoldConstant\n"
        "    Running pass: InferType\n");
  r = opt({"--passes=InferType,FoldConstant", "--debug-pass-manager", "--opt-bisect-limit=2", "--disable-output"});
  CHECK(r.err ==
        "BISECT: running pass (1) sequential\nRunning pass: sequential\n"
        "BISECT: running pass (2) InferType\n  Running pass: InferType\n"
        "BISECT: NOT running pass (3) FoldConstant\n  Skipping pass: FoldConstant\n");
}

TEST_CASE("opt_main: --opt-bisect-limit numbers the passes; -1 runs all and still prints") {
  auto r = opt({"--passes=InferType,FoldConstant", "--opt-bisect-limit=2"});
  CHECK(r.code == 0);
  CHECK(r.out == kInput);  // FoldConstant did not run
  CHECK(r.err ==
        "BISECT: running pass (1) sequential\nBISECT: running pass (2) InferType\n"
        "BISECT: NOT running pass (3) FoldConstant\n");
  r = opt({"--passes=InferType,FoldConstant", "--opt-bisect-limit=-1"});
  CHECK(r.out == kFolded);
  CHECK(r.err ==
        "BISECT: running pass (1) sequential\nBISECT: running pass (2) InferType\n"
        "BISECT: running pass (3) FoldConstant\nBISECT: running pass (4) InferType\n");
  CHECK(opt({"--passes=InferType,FoldConstant", "--opt-bisect-limit=0"}).out == kInput);
}

TEST_CASE("opt_main: --opt-level gates the pipeline, with a warning; --required-pass and --disable-pass") {
  auto r = opt({"--passes=InferType,FoldConstant", "-O1"});
  CHECK(r.code == 0);
  CHECK(r.out == kInput);
  CHECK(r.err ==
        "tinyir-opt: warning: pass 'FoldConstant' (opt_level 2) will not run at --opt-level=1; use "
        "--opt-level=2 or --required-pass=FoldConstant\n");
  r = opt({"--passes=InferType,FoldConstant", "-O", "1", "--required-pass=FoldConstant"});
  CHECK(r.out == kFolded);
  CHECK(r.err.empty());
  r = opt({"--passes=InferType,FoldConstant", "--disabled-pass=FoldConstant"});
  CHECK(r.out == kInput);
  CHECK(r.err == "tinyir-opt: warning: pass 'FoldConstant' (opt_level 2) will not run: it is in --disable-pass\n");
  CHECK(opt({"--passes=InferType,FoldConstant", "--opt-level", "3"}).out == kFolded);
}

TEST_CASE("opt_main: --time-passes tree and list, --time-trace JSON") {
  Scratch s;
  auto r = opt(
      {"--passes=InferType,FoldConstant", "--time-passes", "--disable-output", "--time-trace", s.path("trace.json")});
  CHECK(r.code == 0);
  CHECK(r.err.starts_with("sequential: "));
  CHECK(r.err.find("\n\tInferType: ") != std::string::npos);
  CHECK(r.err.find("\n\tFoldConstant: ") != std::string::npos);
  CHECK(r.err.find("\n\t\tInferType: ") != std::string::npos);
  const auto trace = parse_json(Scratch::read(s.path("trace.json")));
  CHECK(trace.is_object());
  r = opt({"--passes=InferType,FoldConstant", "--time-passes", "--time-passes-display=list", "--disable-output"});
  CHECK(r.code == 0);
  CHECK(r.err.find("InferType") != std::string::npos);
  CHECK(r.err != opt({"--passes=InferType,FoldConstant", "--time-passes", "--disable-output"}).err);
  // The trace is written after a failure too, the failed entry marked.
  r = opt({"--passes=InferType,Explode", "--time-trace", s.path("failed.json")});
  CHECK(r.code == 1);
  CHECK(Scratch::read(s.path("failed.json")).find("Explode") != std::string::npos);
  CHECK_NOTHROW(parse_json(Scratch::read(s.path("failed.json"))));
}

TEST_CASE("opt_main: --statistics text and json") {
  auto r = opt({"--passes=InferType,FoldConstant", "--statistics", "--disable-output"});
  CHECK(r.code == 0);
  const std::string rule = "===" + std::string(73, '-') + "===\n";
  CHECK(r.err == rule + std::string(25, ' ') + "... Pass statistics report ...\n" + rule +
                     "  FoldConstant\n    (S) 2 folded - Number of calls folded\n\n");
  r = opt({"--passes=InferType,FoldConstant,FoldConstant", "--statistics=json", "--disable-output"});
  CHECK(r.err == "{\n\t\"FoldConstant.folded\": 2\n}\n");
  r = opt({"--passes=InferType", "--statistics=json", "--disable-output"});
  CHECK(r.err == "{\n}\n");
}

TEST_CASE("opt_main: --verify-each and --no-verify") {
  auto r = opt({"--passes=InferType,Unbind,FoldConstant", "--verify-each"});
  CHECK(r.code == 1);
  CHECK(r.err ==
        "tinyir-opt: error: pass 'Unbind' failed: passinfra: verifier failed after pass 'Unbind': @main: "
        "variable '%ghost' is used but not bound in the function\n");
  // Without --verify-each the output check catches it.
  r = opt({"--passes=Unbind"});
  CHECK(r.code == 1);
  CHECK(r.err ==
        "tinyir-opt: error: the output is not valid: @main: variable '%ghost' is used but not bound in the "
        "function\n");
  CHECK(r.out.empty());
  r = opt({"--passes=Unbind", "--no-verify"});
  CHECK(r.code == 0);
  CHECK(r.out.find("add(%ghost, %ghost)") != std::string::npos);
}

TEST_CASE("opt_main: --split-input-file processes chunks on their own; errors point at the real line") {
  const std::string input = std::string(kInput) + "// -----\n" +
                            "def @main(%x: Tensor[(2), float32]) {\n  %0 = add(1f 2f);\n  %0\n}\n" + "// -----   \n" +
                            std::string(kInput);
  auto r = opt({"--split-input-file", "--passes=InferType,FoldConstant"}, input);
  CHECK(r.code == 3);
  CHECK(r.out == std::string(kFolded) + "// -----\n// -----\n" + std::string(kFolded));
  CHECK(r.err.starts_with("<stdin>:8:15: error: expected ',' or ')' in the call of add, found '2f'\n"));
  r = opt({"--split-input-file=;;", "--passes=InferType"}, std::string(kInput) + ";;\n" + std::string(kInput));
  CHECK(r.code == 0);
  CHECK(r.out == std::string(kInput) + ";;\n" + std::string(kInput));
}

TEST_CASE("opt_main: --log-level and the log sink, which is restored on return") {
  auto r = opt({"--passes=InferType,PrintIR(header=\"here\")", "--disable-output"});
  CHECK(r.code == 0);
  CHECK(r.err.find("here") != std::string::npos);
  r = opt({"--passes=InferType,PrintIR(header=\"here\")", "--disable-output", "--log-level=warning"});
  CHECK(r.err.empty());
  std::vector<std::string> seen;
  const passinfra::ScopedLogSink mine([&](passinfra::LogLevel, std::string_view m) { seen.emplace_back(m); });
  CHECK(opt({"--passes=PrintIR", "--disable-output"}).code == 0);
  passinfra::log(passinfra::LogLevel::warning, "after");
  CHECK(seen == std::vector<std::string>{"after"});
}

TEST_CASE("opt_main: --report JSON, for success, failure and usage errors") {
  Scratch s;
  const std::string in = s.write("in.tir", kInput);
  auto r = opt({"--passes=InferType,FoldConstant", in, "--report", s.path("ok.json"), "--disable-output"});
  CHECK(r.code == 0);
  auto j = parse_json(Scratch::read(s.path("ok.json")));
  CHECK(j["schema"].as_string() == "passinfra-opt-report/1");
  CHECK(j["tool"].as_string() == "tinyir-opt");
  CHECK(j["input"].as_string() == in);
  CHECK(j["exit_code"].as_number() == 0);
  CHECK(j["status"].as_string() == "ok");
  CHECK(j["pipeline"].as_string() == "sequential(InferType,FoldConstant)");
  CHECK(j["opt_level"].as_number() == 2);
  CHECK(j["chunks"].as_array().size() == 1);
  CHECK(j["chunks"][0]["error"].is_null());
  CHECK(j["phases_us"].has("parse"));
  REQUIRE(j["passes"].as_array().size() == 3);
  CHECK(j["passes"][0]["name"].as_string() == "sequential");
  CHECK(j["passes"][1]["name"].as_string() == "InferType");
  CHECK(j["passes"][1]["runs"].as_number() == 2);
  CHECK(j["statistics"]["FoldConstant.folded"].as_number() == 2);
  CHECK(j["reproducer"].is_null());
  std::vector<std::string> keys;
  for (const auto& m : j.as_object()) keys.push_back(m.first);
  CHECK(keys == std::vector<std::string>{"schema", "tool", "argv", "input", "exit_code", "status", "pipeline",
                                         "opt_level", "chunks", "phases_us", "passes", "statistics", "reproducer"});

  r = opt({"--passes=InferType,Explode", in, "--report", s.path("fail.json"), "--crash-reproducer", s.path("r.tir")});
  CHECK(r.code == 1);
  j = parse_json(Scratch::read(s.path("fail.json")));
  CHECK(j["status"].as_string() == "pass_failure");
  CHECK(j["chunks"][0]["error"]["kind"].as_string() == "pass");
  CHECK(j["chunks"][0]["error"]["pass"].as_string() == "Explode");
  CHECK(j["chunks"][0]["error"]["message"].as_string() == "boom");
  CHECK(j["reproducer"]["path"].as_string() == s.path("r.tir"));

  const std::string bad = s.write("bad.tir", "def @main() {\n  add(1f 2f)\n}\n");
  r = opt({bad, "--report=" + s.path("parse.json")});
  CHECK(r.code == 3);
  j = parse_json(Scratch::read(s.path("parse.json")));
  CHECK(j["status"].as_string() == "input_error");
  CHECK(j["chunks"][0]["error"]["kind"].as_string() == "parse");
  CHECK(j["chunks"][0]["error"]["file"].as_string() == bad);
  CHECK(j["chunks"][0]["error"]["line"].as_number() == 2);
  CHECK(j["chunks"][0]["error"]["column"].as_number() == 10);

  r = opt({"--report", s.path("usage.json"), "--pases=x"});
  CHECK(r.code == 2);
  j = parse_json(Scratch::read(s.path("usage.json")));
  CHECK(j["status"].as_string() == "usage_error");
  CHECK(j["pipeline"].is_null());
  CHECK(j["chunks"].as_array().empty());
  CHECK(j["passes"].as_array().empty());
}

TEST_CASE("opt_main: without a tool name it is 'opt'; `--` ends the options") {
  Scratch s;
  const std::string in = s.write("-dash.tir", kInput);
  std::istringstream input;
  std::ostringstream out;
  std::ostringstream err;
  const std::vector<std::string> args{"--passes=InferType,FoldConstant", "--", in};
  CHECK(passinfra::opt_main<Module>(args, registry(), {.tool_name = "x-opt"}, {input, out, err}) == 0);
  CHECK(out.str() == kFolded);
  std::ostringstream err2;
  CHECK(passinfra::opt_main<Module>(std::vector<std::string>{"--nope"}, registry(), {}, {input, out, err2}) == 2);
  CHECK(err2.str().starts_with("opt: error: unknown option '--nope'"));
}
