// passinfra/tool/opt_main.hpp — an opt-style driver over any IR (SPEC §12).
//
// OptMainIR<IR>              what the driver needs: movable, ir_traits<IR>::parse and ::print
// VerifiableIR<IR>           optional ir_traits<IR>::verify(const IR&) -> std::optional<std::string>
// LocatablePrintIR<IR>       optional ir_traits<IR>::print_with_locations(const IR&) -> std::string
// OptMainConfigAlias{flag, key}   a tool flag that sets a registered config key (--<flag>=<value>)
// OptMainOptions             tool_name, overview, default_pipeline, default_opt_level, split_marker,
//                            comment_prefix, config_aliases
// OptMainIO{in, out, err}    the streams "-" reads and writes, and diagnostics
// opt_main<IR>(argc, argv, registry, options)     what a compiler's main() returns
// opt_main<IR>(args, registry, options, io)       the same on explicit arguments and streams (tests)
// version_string             "0.1.0", the passinfra version --version prints
//
// A compiler gets an opt-like tool over its own IR in five lines:
//
//   int main(int argc, char** argv) {
//     auto& registry = passinfra::PassRegistry<MyIR>::global();
//     register_my_passes(registry);
//     return passinfra::opt_main<MyIR>(argc, argv, registry, {.tool_name = "my-opt"});
//   }
//
// The driver reads one text (a file or "-"), parses it, runs a pipeline of
// registered passes under one PassContext<IR> with the instruments the flags
// ask for, in SPEC §12.1's order, and prints the result. It returns the exit
// code (0 ok, 1 pipeline failure, 2 usage, 3 input, 4 output); checks happen
// in that order (usage first: a usage error never reads the input). It never
// calls exit(), lets no exception escape, keeps no global state, and restores
// the log sink before returning. Every file it writes (-o, --time-trace,
// --report, --crash-reproducer) is written atomically (tool/atomic_file.hpp).
//
// Analyses (SPEC §10): the context holds an AnalysisManager<IR> (one per
// run, so one per --split-input-file chunk), so passes that ask
// ctx.analyses() get cached results, `require(analysis="X")`,
// `invalidate(analysis="X")` and `invalidate_all` work in --passes for the
// analyses the registry holds (PassRegistry::add_analysis), and
// --time-passes shows the analyses as "(A) <name>" rows under the pass that
// asked. --verify-analyses adds the AnalysisPreservationChecker (SPEC
// §10.10) just before the verifier: a pass whose preserved results differ
// from a recomputation fails the run (exit 1) with the checker's message.
//
// CLI11 (Debian libcli11-dev) binds the options; the driver tokenizes the
// command line itself first, so that unknown options and missing values get
// SPEC §12.5's messages with a did-you-mean, and no CLI11 type appears here.
#pragma once

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <istream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "passinfra/core/config.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pass_context.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/detail/exception_text.hpp"
#include "passinfra/detail/line_diff.hpp"
#include "passinfra/detail/suggest.hpp"
#include "passinfra/dynamic.hpp"
#include "passinfra/dynamic/statistics_report.hpp"
#include "passinfra/instruments/analysis_preservation_checker.hpp"
#include "passinfra/instruments/crash_reproducer.hpp"
#include "passinfra/instruments/output.hpp"
#include "passinfra/instruments/pass_bisect.hpp"
#include "passinfra/instruments/pass_statistics.hpp"
#include "passinfra/instruments/pass_timing_instrument.hpp"
#include "passinfra/instruments/verifier_instrument.hpp"
#include "passinfra/ir/span.hpp"
#include "passinfra/tool/atomic_file.hpp"
#include "passinfra/tool/opt_report.hpp"

namespace passinfra {

// version_string: passinfra's version (CMake's project version; tests/tool checks they agree).
inline constexpr std::string_view version_string = "0.1.0";

template <class IR>
concept OptMainIR = std::movable<IR> && ParsableIR<IR> && PrintableIR<IR>;

template <class IR>
concept VerifiableIR = requires(const IR& ir) {
  { ir_traits<IR>::verify(ir) } -> std::convertible_to<std::optional<std::string>>;
};

template <class IR>
concept LocatablePrintIR = requires(const IR& ir) {
  { ir_traits<IR>::print_with_locations(ir) } -> std::convertible_to<std::string>;
};

struct OptMainConfigAlias {
  std::string flag;  // without "--", e.g. "desired-layout"
  std::string key;   // a registered config key
  std::string description{};
};

struct OptMainOptions {
  std::string tool_name{};         // "" -> basename(argv[0])
  std::string overview{};          // first line of --help
  std::string default_pipeline{};  // when --passes is absent; "" = parse and print only
  int default_opt_level = 2;       // SPEC §2's default
  std::string split_marker = "// -----";
  std::string comment_prefix = "// ";  // reproducer header lines; the IR's line comment
  std::vector<OptMainConfigAlias> config_aliases{};
};

struct OptMainIO {
  std::istream& in;   // what "-" reads
  std::ostream& out;  // what "-o -" writes
  std::ostream& err;  // diagnostics, dumps, timing, statistics
};

namespace detail::opt {

// ------------------------------------------------------------ option table

enum class Arity { flag, value, optional_value };

struct OptionSpec {
  std::string_view name;  // long name without "--" (or the short letter for -o)
  Arity arity;
  std::string_view help;
  std::string_view implicit{};  // the value of an optional_value option given without one
};

// The options of SPEC §12.1, in --help order. Aliases map to their main name.
inline constexpr OptionSpec option_specs[] = {
    {"o", Arity::value, "output file, or - for standard output (default -)"},
    {"disable-output", Arity::flag, "run everything, write no IR"},
    {"passes", Arity::value, "the pipeline: comma-separated pipeline text items"},
    {"print-pipeline-passes", Arity::flag, "print the canonical pipeline text and exit"},
    {"list-passes", Arity::flag, "list the registered passes and exit"},
    {"help", Arity::flag, "print this help and exit"},
    {"version", Arity::flag, "print the version and exit"},
    {"opt-level", Arity::value, "the context's opt_level (-O<n>; default 2)"},
    {"required-pass", Arity::value, "passes that run whatever the opt level (comma-separated)"},
    {"disable-pass", Arity::value, "passes that never run (comma-separated)"},
    {"config", Arity::value, "one typed config entry key=value (repeatable)"},
    {"print-ir-before", Arity::value, "print the IR before these passes"},
    {"print-ir-after", Arity::value, "print the IR after these passes"},
    {"print-ir-before-all", Arity::flag, "print the IR before every pass"},
    {"print-ir-after-all", Arity::flag, "print the IR after every pass"},
    {"print-changed", Arity::optional_value, "print the IR after passes that change it: full (default), diff, cdiff",
     "full"},
    {"filter-passes", Arity::value, "narrow --print-ir-*-all and --print-changed to these passes"},
    {"print-debuginfo", Arity::flag, "print IR with source locations"},
    {"debug-pass-manager", Arity::flag, "one line per pass that starts or is skipped"},
    {"time-passes", Arity::flag, "time every pass; the table after the run"},
    {"time-passes-display", Arity::value, "tree (default) or list"},
    {"time-trace", Arity::value, "write a Chrome trace (JSON) of the pass timings to this file"},
    {"statistics", Arity::optional_value, "print pass statistics after the run: text (default) or json", "text"},
    {"opt-bisect-limit", Arity::value, "run only passes 1..N (-1: all, numbers still printed)"},
    {"verify-each", Arity::flag, "verify the IR after every pass"},
    {"verify-analyses", Arity::flag, "after every pass, recompute the analyses it kept and compare (slow)"},
    {"no-verify", Arity::flag, "do not verify the parsed input and the final output"},
    {"crash-reproducer", Arity::value, "on a pass failure, write a reproducer to this file"},
    {"split-input-file", Arity::optional_value, "process each chunk between marker lines on its own", ""},
    {"report", Arity::value, "write a JSON report of the run to this file"},
    {"log-level", Arity::value, "warning, info (default) or debug"},
};

struct Alias {
  std::string_view alias;
  std::string_view name;
};
inline constexpr Alias option_aliases[] = {
    {"pass-pipeline", "passes"}, {"disabled-pass", "disable-pass"}, {"pass-config", "config"}};

// One option occurrence after tokenizing: the main name and its value.
struct Occurrence {
  std::string name;
  std::string spelled;  // as the user wrote it, e.g. "--pass-pipeline" or "-O"
  std::optional<std::string> value;
};

struct Tokens {
  std::vector<Occurrence> options;
  std::vector<std::string> positionals;
  std::optional<std::string> error;  // the first usage error
};

inline const OptionSpec* find_spec(std::string_view name) {
  for (const auto& spec : option_specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

// ------------------------------------------------------------- small helpers

inline std::string basename_of(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

inline std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

inline std::string always_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// A shell word: as is when it holds only safe characters, else in single quotes.
inline std::string shell_quote(std::string_view word) {
  const bool safe = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-.,/=:+@%").find(c) != std::string_view::npos;
  });
  if (safe) return std::string(word);
  return always_quote(word);
}

inline std::uint64_t micros_since(std::chrono::steady_clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
}

// The option names a user may spell, for suggestions.
inline std::vector<std::string> spellable_names(const std::vector<OptMainConfigAlias>& aliases) {
  std::vector<std::string> out;
  for (const auto& spec : option_specs)
    out.push_back(spec.name.size() == 1 ? "-" + std::string(spec.name) : "--" + std::string(spec.name));
  out.emplace_back("-O");
  out.emplace_back("-h");
  for (const auto& a : option_aliases) out.push_back("--" + std::string(a.alias));
  for (const auto& a : aliases) out.push_back("--" + a.flag);
  return out;
}

inline std::string unknown_option_message(std::string_view spelled, const std::vector<OptMainConfigAlias>& aliases) {
  const auto names = spellable_names(aliases);
  // Compare without leading dashes, so "-passes" suggests "--passes".
  std::string_view bare = spelled;
  while (!bare.empty() && bare.front() == '-') bare.remove_prefix(1);
  std::string best;
  std::size_t best_distance = 4;
  for (const auto& name : names) {
    std::string_view n = name;
    while (!n.empty() && n.front() == '-') n.remove_prefix(1);
    if (n.size() <= 1) continue;
    const std::size_t d = edit_distance_at_most(bare, n, 3);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  std::string message = "unknown option '" + clipped(spelled) + "'";
  if (!best.empty()) return message + "; did you mean '" + best + "'?";
  return message + "; expected an option that --help lists";
}

// tokenize(args): SPEC §12.1's syntax. Long options --name=value or --name
// value; -o/-O with the value attached or next; -h; "-" and everything that
// does not start with '-' are positionals; after "--" everything is.
inline Tokens tokenize(std::span<const std::string> args, const std::vector<OptMainConfigAlias>& aliases) {
  Tokens out;
  const auto fail = [&](std::string message) {
    if (!out.error) out.error = std::move(message);
  };
  bool only_positionals = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positionals || arg == "-" || arg.empty() || arg.front() != '-') {
      out.positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positionals = true;
      continue;
    }
    const auto take_next = [&](std::string_view spelled) -> std::optional<std::string> {
      if (i + 1 < args.size()) return args[++i];
      fail(std::string(spelled) + ": expected a value");
      return std::nullopt;
    };
    if (arg.size() >= 2 && arg[1] != '-') {  // a short option
      const char letter = arg[1];
      std::string_view rest = std::string_view(arg).substr(2);
      if (letter == 'h' && rest.empty()) {
        out.options.push_back({"help", "-h", std::nullopt});
        continue;
      }
      if ((letter == 'o' || letter == 'O')) {
        const std::string spelled = std::string("-") + letter;
        const std::string name = letter == 'o' ? "o" : "opt-level";
        if (rest.starts_with('=')) rest.remove_prefix(1);
        if (!rest.empty()) {
          out.options.push_back({name, spelled, std::string(rest)});
        } else if (auto v = take_next(spelled)) {
          out.options.push_back({name, spelled, std::move(*v)});
        }
        continue;
      }
      const std::size_t eq = arg.find('=');
      fail(unknown_option_message(arg.substr(0, eq), aliases));
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string spelled = arg.substr(0, eq);
    std::optional<std::string> attached;
    if (eq != std::string::npos) attached = arg.substr(eq + 1);
    std::string name = spelled.substr(2);
    for (const auto& a : option_aliases) {
      if (a.alias == name) name = std::string(a.name);
    }
    const OptionSpec* spec = name.size() > 1 ? find_spec(name) : nullptr;
    const bool is_config_alias =
        std::any_of(aliases.begin(), aliases.end(), [&](const OptMainConfigAlias& a) { return a.flag == name; });
    if (!spec && !is_config_alias) {
      fail(unknown_option_message(spelled, aliases));
      continue;
    }
    const Arity arity = spec ? spec->arity : Arity::value;
    if (arity == Arity::flag) {
      if (attached) {
        fail(spelled + ": takes no value, but was given '" + clipped(*attached) + "'");
        continue;
      }
      out.options.push_back({name, spelled, std::nullopt});
    } else if (arity == Arity::optional_value) {
      out.options.push_back({name, spelled, attached ? *attached : std::string(spec->implicit)});
    } else if (attached) {
      out.options.push_back({name, spelled, std::move(attached)});
    } else if (auto v = take_next(spelled)) {
      out.options.push_back({name, spelled, std::move(*v)});
    }
  }
  if (!out.error && out.positionals.size() > 1) {
    out.error = "unexpected argument '" + clipped(out.positionals[1]) + "'; expected one input file (or -)";
  }
  return out;
}

// ------------------------------------------------------------ parsed flags

enum class Changed { none, full, diff, cdiff };
enum class StatsFormat { none, text, json };

struct Flags {
  std::string input = "-";
  std::string output = "-";
  bool disable_output = false;
  std::optional<std::string> passes;
  bool print_pipeline = false;
  bool list_passes = false;
  bool help = false;
  bool version = false;
  std::string opt_level_text;
  int opt_level = 2;
  std::vector<std::string> required;
  std::vector<std::string> disabled;
  std::vector<std::string> config_args;                             // as given: "key=value"
  std::vector<std::pair<std::string, std::string>> config_sources;  // (flag, "key=value")
  std::vector<std::string> print_before;
  std::vector<std::string> print_after;
  bool print_before_all = false;
  bool print_after_all = false;
  std::string changed_text;
  Changed changed = Changed::none;
  std::vector<std::string> filter;
  bool print_debuginfo = false;
  bool debug_pass_manager = false;
  bool time_passes = false;
  std::string time_display = "tree";
  bool time_list = false;  // --time-passes-display=list
  std::string time_trace;
  std::string statistics_text;
  StatsFormat statistics = StatsFormat::none;
  std::string bisect_text;
  std::optional<long long> bisect;
  bool verify_each = false;
  bool verify_analyses = false;
  bool no_verify = false;
  std::string crash_reproducer;
  std::optional<std::string> split_marker;
  std::string report;
  std::string log_level_text = "info";
  LogLevel log_level = LogLevel::info;
};

// bind(tokens): CLI11 binds the tokenized options into Flags. The tokens are
// handed to CLI11 in its canonical "--name=value" form, so its own parser sees
// only options it knows with the values they take.
inline std::optional<std::string> bind(const Tokens& tokens, Flags& f, const std::vector<OptMainConfigAlias>& aliases) {
  CLI::App app;
  app.set_help_flag();
  app.allow_extras(false);
  // Only the options on the command line are declared: an option object costs
  // CLI11 a few thousand instructions to make, and the tokenizer has already
  // rejected every name that is not one of ours.
  std::vector<std::string_view> given;
  for (const auto& o : tokens.options) given.push_back(o.name);
  const auto wanted = [&](std::string_view name) {
    name.remove_prefix(2);
    return std::find(given.begin(), given.end(), name) != given.end();
  };
  const auto value = [&](const char* name, std::string& into) {
    if (wanted(name)) app.add_option(name, into);
  };
  const auto list = [&](const char* name, std::vector<std::string>& into) {
    if (wanted(name)) {
      app.add_option(name, into)->delimiter(',')->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
  };
  const auto flag = [&](const char* name, bool& into) {
    if (wanted(name)) app.add_flag(name, into);
  };
  std::string output;
  std::string passes;
  value("--o", output);
  flag("--disable-output", f.disable_output);
  value("--passes", passes);
  flag("--print-pipeline-passes", f.print_pipeline);
  flag("--list-passes", f.list_passes);
  flag("--help", f.help);
  flag("--version", f.version);
  value("--opt-level", f.opt_level_text);
  list("--required-pass", f.required);
  list("--disable-pass", f.disabled);
  if (wanted("--config")) {
    app.add_option("--config", f.config_args)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  list("--print-ir-before", f.print_before);
  list("--print-ir-after", f.print_after);
  flag("--print-ir-before-all", f.print_before_all);
  flag("--print-ir-after-all", f.print_after_all);
  value("--print-changed", f.changed_text);
  list("--filter-passes", f.filter);
  flag("--print-debuginfo", f.print_debuginfo);
  flag("--debug-pass-manager", f.debug_pass_manager);
  flag("--time-passes", f.time_passes);
  value("--time-passes-display", f.time_display);
  value("--time-trace", f.time_trace);
  value("--statistics", f.statistics_text);
  value("--opt-bisect-limit", f.bisect_text);
  flag("--verify-each", f.verify_each);
  flag("--verify-analyses", f.verify_analyses);
  flag("--no-verify", f.no_verify);
  value("--crash-reproducer", f.crash_reproducer);
  value("--report", f.report);
  value("--log-level", f.log_level_text);
  std::vector<std::string> alias_values(aliases.size());
  for (std::size_t i = 0; i < aliases.size(); ++i) {
    if (wanted("--" + aliases[i].flag)) {
      app.add_option("--" + aliases[i].flag, alias_values[i])->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }

  std::vector<std::string> argv{"opt"};
  for (const auto& o : tokens.options) {
    // A list option given an empty value (--disable-pass=) lists nothing.
    if (o.value && o.value->empty() &&
        (o.name == "required-pass" || o.name == "disable-pass" || o.name == "print-ir-before" ||
         o.name == "print-ir-after" || o.name == "filter-passes")) {
      continue;
    }
    // --split-input-file's value may be empty (the default marker), which CLI11 would call missing.
    if (o.name == "split-input-file") {
      f.split_marker = o.value.value_or("");
      continue;
    }
    argv.push_back("--" + o.name + (o.value ? "=" + *o.value : std::string()));
  }
  std::vector<const char*> c_argv;
  c_argv.reserve(argv.size());
  for (const auto& a : argv) c_argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(c_argv.size()), c_argv.data());
  } catch (const CLI::ParseError& e) {
    return std::string("invalid command line: ") + e.what();
  }
  if (wanted("--o") && app.count("--o") != 0) f.output = output;
  if (wanted("--passes") && app.count("--passes") != 0) f.passes = passes;
  if (!tokens.positionals.empty()) f.input = tokens.positionals.front();
  // --config entries and config aliases, in command-line order.
  std::size_t next_config = 0;
  for (const auto& o : tokens.options) {
    if (o.name == "config") {
      f.config_sources.emplace_back("--config", f.config_args[next_config++]);
    } else {
      for (const auto& a : aliases) {
        if (a.flag == o.name) f.config_sources.emplace_back("--" + a.flag, a.key + "=" + o.value.value_or(""));
      }
    }
  }
  return std::nullopt;
}

// -------------------------------------------------------- value conversion

// parse_number<T>(text): the whole of `text` as a T (an optional leading '+'
// allowed), nullopt otherwise.
template <class T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  const auto result = std::from_chars(first, last, value);
  if (text.empty() || result.ec != std::errc{} || result.ptr != last) return std::nullopt;
  return value;
}

inline std::optional<long long> parse_integer(std::string_view text) { return parse_number<long long>(text); }

inline std::optional<double> parse_double(std::string_view text) { return parse_number<double>(text); }

// The value of --config key=value, converted by the key's registered type (SPEC §12.3).
inline std::optional<ConfigValue> convert_config(ConfigType type, const std::string& text) {
  switch (type) {
    case ConfigType::boolean:
      if (text == "true" || text == "1") return ConfigValue(true);
      if (text == "false" || text == "0") return ConfigValue(false);
      return std::nullopt;
    case ConfigType::integer:
      if (auto n = parse_integer(text)) return ConfigValue(static_cast<std::int64_t>(*n));
      return std::nullopt;
    case ConfigType::floating:
      if (auto d = parse_double(text)) return ConfigValue(*d);
      return std::nullopt;
    case ConfigType::string:
      return ConfigValue(text);
    case ConfigType::string_list:
      if (text.starts_with('[')) {
        try {
          const PipelineNode node = parse_pipeline_syntax("x(v=" + text + ")");
          if (node.options.size() == 1 && std::holds_alternative<StringList>(node.options.front().value)) {
            return node.options.front().value;
          }
        } catch (const std::exception&) {
        }
        return std::nullopt;
      }
      return ConfigValue(split_commas(text));
  }
  return std::nullopt;
}

// ------------------------------------------------------------- instruments

// The IR text the driver prints (print, or print_with_locations with --print-debuginfo).
template <class IR>
std::string print_ir(const IR& ir, bool locations) {
  if constexpr (LocatablePrintIR<IR>) {
    if (locations) return ir_traits<IR>::print_with_locations(ir);
  }
  return ir_traits<IR>::print(ir);
}

// --debug-pass-manager: "Running pass: <name>" / "Skipping pass: <name>", 2 spaces per depth.
class DebugPassManager {
 public:
  explicit DebugPassManager(std::ostream& out) : out_(&out) {}
  std::string_view name() const noexcept { return "DebugPassManager"; }

  template <class IR>
  bool should_run(const IR&, const PassInfo& info) {
    flush();
    pending_ = std::string(info.name);
    return true;
  }
  template <class IR>
  void run_before_pass(const IR&, const PassInfo& info) {
    if (pending_ && *pending_ != info.name) flush();
    pending_.reset();
    line("Running pass: ", info.name);
    ++depth_;
  }
  template <class IR>
  void run_after_pass(const IR&, const PassInfo&) {
    flush();
    if (depth_ > 0) --depth_;
  }
  void run_after_pass_failed(const PassInfo&, const std::exception_ptr&) {
    flush();
    if (depth_ > 0) --depth_;
  }
  void exit_pass_ctx() { flush(); }

 private:
  void flush() {
    if (pending_) line("Skipping pass: ", *pending_);
    pending_.reset();
  }
  void line(std::string_view what, std::string_view name) {
    *out_ << std::string(2 * depth_, ' ') << what << name << '\n';
  }
  std::ostream* out_;
  std::size_t depth_ = 0;
  std::optional<std::string> pending_;
};

// --print-ir-before / --print-ir-after: "Before/After Running Pass: <name>\n<IR>".
template <class IR>
class PrintIRDriver {
 public:
  PrintIRDriver(bool before, PassFilter filter, bool locations, std::ostream& out)
      : before_(before), filter_(std::move(filter)), locations_(locations), out_(&out) {}
  std::string_view name() const noexcept { return before_ ? "PrintIRBefore" : "PrintIRAfter"; }
  void run_before_pass(const IR& ir, const PassInfo& info) {
    if (before_) print("Before Running Pass: ", ir, info);
  }
  void run_after_pass(const IR& ir, const PassInfo& info) {
    if (!before_) print("After Running Pass: ", ir, info);
  }

 private:
  void print(std::string_view what, const IR& ir, const PassInfo& info) {
    if (!filter_.matches(info.name)) return;
    std::string text = std::string(what) + std::string(info.name) + "\n" + print_ir(ir, locations_);
    if (text.back() != '\n') text += '\n';
    *out_ << text << std::flush;
  }
  bool before_;
  PassFilter filter_;
  bool locations_;
  std::ostream* out_;
};

// --print-changed: PrintIRChanged's output, printed with the driver's printer, cdiff in colour.
template <class IR>
class PrintChangedDriver {
 public:
  PrintChangedDriver(Changed mode, PassFilter filter, bool locations, std::ostream& out)
      : mode_(mode), filter_(std::move(filter)), locations_(locations), out_(&out) {}
  std::string_view name() const noexcept { return "PrintIRChanged"; }
  void exit_pass_ctx() noexcept { saved_.clear(); }
  void run_before_pass(const IR& ir, const PassInfo& info) {
    if (filter_.matches(info.name)) {
      saved_.emplace_back(print_ir(ir, locations_));
    } else {
      saved_.emplace_back(std::nullopt);
    }
  }
  void run_after_pass(const IR& ir, const PassInfo& info) {
    if (saved_.empty()) return;
    std::optional<std::string> before = std::move(saved_.back());
    saved_.pop_back();
    if (!before) return;
    std::string after = print_ir(ir, locations_);
    if (after == *before) return;
    const std::string name(info.name);
    std::string text;
    if (mode_ == Changed::full) {
      text = "After Running Pass: " + name + "\n" + after;
    } else {
      std::string diff = unified_diff(*before, after, "before " + name, "after " + name, 3);
      text = "Diff After Running Pass: " + name + "\n" + (mode_ == Changed::cdiff ? colour(diff) : diff);
    }
    if (text.back() != '\n') text += '\n';
    *out_ << text << std::flush;
  }
  void run_after_pass_failed(const PassInfo&, const std::exception_ptr&) noexcept {
    if (!saved_.empty()) saved_.pop_back();
  }

 private:
  // '-' lines red, '+' lines green; the two header lines as they are.
  static std::string colour(std::string_view diff) {
    std::string out;
    std::size_t line = 0;
    while (!diff.empty()) {
      const std::size_t nl = diff.find('\n');
      const std::string_view text = diff.substr(0, nl);
      diff = nl == std::string_view::npos ? std::string_view{} : diff.substr(nl + 1);
      if (line++ >= 2 && text.starts_with('-')) {
        out += "\033[31m" + std::string(text) + "\033[0m";
      } else if (line > 2 && text.starts_with('+')) {
        out += "\033[32m" + std::string(text) + "\033[0m";
      } else {
        out += text;
      }
      if (nl != std::string_view::npos) out += '\n';
    }
    return out;
  }
  Changed mode_;
  PassFilter filter_;
  bool locations_;
  std::ostream* out_;
  std::vector<std::optional<std::string>> saved_;
};

// What failed, for the error message (always in the list: one hook, only on failure),
// and with --crash-reproducer each pass's printed input.
template <class IR>
class FailureRecorder {
 public:
  FailureRecorder(bool keep_inputs, bool locations) : keep_inputs_(keep_inputs), locations_(locations) {}
  std::string_view name() const noexcept { return "FailureRecorder"; }
  void run_after_pass_failed(const PassInfo& info, const std::exception_ptr& error) {
    std::string input;
    if (!inputs_.empty()) {
      input = std::move(inputs_.back());
      inputs_.pop_back();
    }
    if (error == reported_) return;
    reported_ = error;
    if (!pass) {
      pass = std::string(info.name);
      pass_input = std::move(input);
    }
  }
  void exit_pass_ctx() noexcept { inputs_.clear(); }
  std::optional<std::string> pass;  // the innermost failing pass of the first failure
  std::string pass_input;           // its input, printed (with keep_inputs)

 protected:
  bool keep_inputs_;
  bool locations_;
  std::vector<std::string> inputs_;
  std::exception_ptr reported_;
};

// --verify-analyses: the AnalysisPreservationChecker, noting which pass it
// failed (its throw comes from an after hook, so the failure hooks name the
// enclosing pass; the error message names the one whose claim was false).
template <class IR>
class AnalysisCheckDriver {
 public:
  explicit AnalysisCheckDriver(AnalysisManager<IR>& am) : checker_(am) {}
  std::string_view name() const noexcept { return "AnalysisPreservationChecker"; }
  void run_after_pass(const IR& ir, const PassInfo& info) {
    try {
      checker_.run_after_pass(ir, info);
    } catch (...) {
      failed = std::current_exception();
      failed_pass = std::string(info.name);
      throw;
    }
  }
  std::exception_ptr failed;  // what the checker threw, and after which pass
  std::string failed_pass;

 private:
  AnalysisPreservationChecker<IR> checker_;
};

// The same with the inputs kept (separate type: the hooks cost only when asked for).
template <class IR>
class ReproducerRecorder : public FailureRecorder<IR> {
 public:
  using FailureRecorder<IR>::FailureRecorder;
  void run_before_pass(const IR& ir, const PassInfo&) { this->inputs_.push_back(print_ir(ir, this->locations_)); }
  void run_after_pass(const IR&, const PassInfo&) noexcept {
    if (!this->inputs_.empty()) this->inputs_.pop_back();
  }
};

// -------------------------------------------------------------- the driver

template <class IR>
class Driver {
 public:
  Driver(std::span<const std::string> args, PassRegistry<IR>& registry, const OptMainOptions& options, OptMainIO io,
         std::string tool)
      : args_(args), registry_(registry), options_(options), io_(io), tool_(std::move(tool)) {}

  int run() {
    report_.tool = tool_;
    report_.argv.push_back(tool_);
    report_.argv.insert(report_.argv.end(), args_.begin(), args_.end());
    report_.opt_level = options_.default_opt_level;
    const int code = run_all();
    report_.exit_code = code;
    return finish(code);
  }

 private:
  // ------------------------------------------------------------ messages
  void error(std::string_view message) { io_.err << tool_ << ": error: " << message << '\n'; }
  void warning(std::string_view message) { io_.err << tool_ << ": warning: " << message << '\n'; }

  int usage(const std::string& message) {
    error(message);
    return 2;
  }

  // choose(flag, text, choices, out, message): out = the value named `text`, or
  // false with message "<flag>: '<text>' is not one of <names>" (SPEC §12.5).
  template <class T>
  static bool choose(std::string_view flag, const std::string& text,
                     std::initializer_list<std::pair<std::string_view, T>> choices, T& out, std::string& message) {
    std::string names;
    for (const auto& [name, value] : choices) {
      if (text == name) {
        out = value;
        return true;
      }
      names += names.empty() ? "" : ", ";
      names += name;
    }
    message = std::string(flag) + ": '" + clipped(text) + "' is not one of " + names;
    return false;
  }

  // --------------------------------------------------------------- steps
  int run_all() {
    const Tokens tokens = tokenize(args_, options_.config_aliases);
    // --report is honoured whenever the flag itself was parsed, even if another is wrong.
    for (const auto& o : tokens.options) {
      if (o.name == "report" && o.value) flags_.report = *o.value;
      if (o.name == "report" && o.value && o.value->empty()) return usage("--report: expected a path");
    }
    if (tokens.error) return usage(*tokens.error);
    if (auto message = bind(tokens, flags_, options_.config_aliases)) return usage(*message);
    report_.input = flags_.input;

    if (flags_.help) {
      print_help();
      return 0;
    }
    if (flags_.version) {
      io_.out << tool_ << " (passinfra " << version_string << ")\n";
      return 0;
    }
    if (flags_.list_passes) {
      io_.out << registry_.describe();
      return 0;
    }
    if (int code = check_values(); code != 0) return code;
    // The log sink writes to io.err at --log-level until the driver returns.
    std::ostream* err = &io_.err;
    log_sink_.emplace([err, level = flags_.log_level](LogLevel l, std::string_view message) {
      if (l < level) return;
      *err << message;
      if (message.empty() || message.back() != '\n') *err << '\n';
      err->flush();
    });
    if (int code = build_pipeline(); code != 0) return code;
    if (flags_.print_pipeline) {
      io_.out << (pipeline_ ? print_pipeline(*pipeline_) : std::string("sequential")) << '\n';
      return 0;
    }
    gate_warnings();
    return process_input();
  }

  int check_values() {
    Flags& f = flags_;
    std::string error_text;
    f.opt_level = options_.default_opt_level;
    if (!f.opt_level_text.empty()) {
      const auto n = parse_integer(f.opt_level_text);
      if (!n) return usage("--opt-level: '" + clipped(f.opt_level_text) + "' is not an integer");
      if (*n < 0 || *n > std::numeric_limits<int>::max()) {
        return usage("--opt-level: " + f.opt_level_text + " is out of range; expected a level from 0 to " +
                     std::to_string(std::numeric_limits<int>::max()));
      }
      f.opt_level = static_cast<int>(*n);
    }
    report_.opt_level = f.opt_level;
    if (!f.changed_text.empty() &&
        !choose("--print-changed", f.changed_text,
                {{"full", Changed::full}, {"diff", Changed::diff}, {"cdiff", Changed::cdiff}}, f.changed, error_text))
      return usage(error_text);
    if (!f.statistics_text.empty() &&
        !choose("--statistics", f.statistics_text, {{"text", StatsFormat::text}, {"json", StatsFormat::json}},
                f.statistics, error_text))
      return usage(error_text);
    if (!choose("--time-passes-display", f.time_display, {{"tree", false}, {"list", true}}, f.time_list, error_text))
      return usage(error_text);
    if (!choose("--log-level", f.log_level_text,
                {{"warning", LogLevel::warning}, {"info", LogLevel::info}, {"debug", LogLevel::debug}}, f.log_level,
                error_text))
      return usage(error_text);
    if (!f.bisect_text.empty()) {
      const auto n = parse_integer(f.bisect_text);
      if (!n) return usage("--opt-bisect-limit: '" + clipped(f.bisect_text) + "' is not an integer");
      if (*n < -1)
        return usage("--opt-bisect-limit: " + f.bisect_text + " is below -1; expected -1 (no limit) or more");
      f.bisect = *n;
    }
    if (f.split_marker && f.split_marker->empty()) f.split_marker = options_.split_marker;
    if (f.split_marker && f.split_marker->find('\n') != std::string::npos) {
      return usage("--split-input-file: the marker must be one line");
    }
    if (f.output.empty()) return usage("-o: expected a path or -");
    if constexpr (!LocatablePrintIR<IR>) {
      if (f.print_debuginfo) {
        return usage(
            "--print-debuginfo: this IR cannot print source locations "
            "(ir_traits<IR>::print_with_locations is missing)");
      }
    }
    if constexpr (!VerifiableIR<IR>) {
      if (f.verify_each) {
        return usage("--verify-each: this IR has no verifier (ir_traits<IR>::verify is missing)");
      }
    }
    // Pass names in list options must be registered (SPEC §12.1); a nest
    // kind's name counts (--disable-pass=function skips those nests, SPEC §11.3).
    const std::vector<std::string> names = registry_.names();
    const std::pair<const char*, const std::vector<std::string>*> lists[] = {{"--required-pass", &f.required},
                                                                             {"--disable-pass", &f.disabled},
                                                                             {"--print-ir-before", &f.print_before},
                                                                             {"--print-ir-after", &f.print_after},
                                                                             {"--filter-passes", &f.filter}};
    for (const auto& [flag, list] : lists) {
      for (const auto& name : *list) {
        if (std::find(names.begin(), names.end(), name) == names.end() && !registry_.contains_nest(name)) {
          return usage(std::string(flag) + ": unknown pass name '" + clipped(name) + "'" +
                       suggestion_text(name, names, "names"));
        }
      }
    }
    // --config key=value (SPEC §12.3); the last of a key wins.
    const auto registered = registered_config_options();
    for (const auto& [flag, text] : f.config_sources) {
      const std::size_t eq = text.find('=');
      const std::string where = flag + " '" + clipped(text) + "'";
      if (eq == std::string::npos) return usage(where + ": expected key=value");
      const std::string key = text.substr(0, eq);
      const std::string value = text.substr(eq + 1);
      const auto it = std::find_if(registered.begin(), registered.end(),
                                   [&](const ConfigOption& option) { return option.key == key; });
      if (it == registered.end()) {
        Config probe{{key, ConfigValue(value)}};
        try {
          validate_config(probe);
        } catch (const std::exception& e) {
          return usage(where + ": " + message_of(e));
        }
        return usage(where + ": unknown config key '" + clipped(key) + "'");
      }
      auto converted = convert_config(it->type, value);
      if (!converted) {
        return usage(where + ": key '" + key + "' expects " + type_with_article(it->type) + ", but '" + clipped(value) +
                     "' is not one");
      }
      config_.push_back({key, std::move(*converted)});
    }
    try {
      validate_config(config_);
    } catch (const std::exception& e) {
      return usage("--config: " + message_of(e));
    }
    return 0;
  }

  // --passes T runs sequential(T) unless T is one sequential(...); columns point into T.
  int build_pipeline() {
    std::string text = flags_.passes ? *flags_.passes : options_.default_pipeline;
    if (!flags_.passes && text.empty()) return 0;  // parse and print only
    std::size_t shift = 0;
    std::string parsed = text;
    // One `sequential(...)` runs as is: the text starts with that word and parses alone.
    bool as_is = false;
    const std::size_t first = text.find_first_not_of(" \t\n\r\f\v");
    if (first != std::string::npos && std::string_view(text).substr(first).starts_with("sequential")) {
      try {
        as_is = parse_pipeline_syntax(text).name == "sequential";
      } catch (const std::exception&) {
      }
    }
    if (!as_is) {
      parsed = "sequential(" + text + ")";
      shift = 11;
    }
    try {
      AnyPass<IR> pass = parse_pipeline<IR>(parsed, registry_);
      const auto* seq = pass.template target<DynamicSequential<IR>>();
      if (seq == nullptr) return usage("--passes: the pipeline is not a sequential(...)");
      pipeline_ = std::make_unique<DynamicSequential<IR>>(*seq);
      report_.pipeline = print_pipeline(*pipeline_);
    } catch (const std::exception& e) {
      return usage("--passes: " + shifted_error(message_of(e), text, shift));
    }
    return 0;
  }

  // The library's "pipeline text, column N: message\n  text\n  caret" relative to the user's text.
  static std::string shifted_error(const std::string& message, std::string_view text, std::size_t shift) {
    constexpr std::string_view head = "pipeline text, column ";
    if (!message.starts_with(head)) return message;
    const std::size_t colon = message.find(": ", head.size());
    const std::size_t nl = message.find('\n');
    if (colon == std::string::npos || nl == std::string::npos || colon > nl) return message;
    const auto column = parse_integer(std::string_view(message).substr(head.size(), colon - head.size()));
    if (!column) return message;
    long long user = *column - static_cast<long long>(shift);
    user = std::clamp<long long>(user, 1, static_cast<long long>(text.size()) + 1);
    return pipeline_error_text(text, static_cast<std::size_t>(user), message.substr(colon + 2, nl - colon - 2));
  }

  // SPEC §12.1: a top-level item that will not run at this --opt-level, or is disabled.
  void gate_warnings() {
    if (!pipeline_) return;
    for (const auto& child : pipeline_->passes()) {
      const PassInfo& info = child.info();
      const std::string name(info.name);
      const bool disabled = std::find(flags_.disabled.begin(), flags_.disabled.end(), name) != flags_.disabled.end();
      const bool required = std::find(flags_.required.begin(), flags_.required.end(), name) != flags_.required.end();
      if (disabled) {
        warning("pass '" + name + "' (opt_level " + std::to_string(info.opt_level) +
                ") will not run: it is in --disable-pass");
      } else if (!required && info.opt_level > flags_.opt_level) {
        warning("pass '" + name + "' (opt_level " + std::to_string(info.opt_level) +
                ") will not run at --opt-level=" + std::to_string(flags_.opt_level) +
                "; use --opt-level=" + std::to_string(info.opt_level) + " or --required-pass=" + name);
      }
    }
  }

  // ---------------------------------------------------------------- input
  int read_input(std::string& text) {
    const auto start = std::chrono::steady_clock::now();
    if (flags_.input == "-") {
      std::ostringstream all;
      if (io_.in.rdbuf() != nullptr && io_.in.peek() != std::char_traits<char>::eof()) all << io_.in.rdbuf();
      text = std::move(all).str();
      if (io_.in.bad()) {
        input_error("cannot read '<stdin>': read error");
        return 3;
      }
    } else {
      std::FILE* file = std::fopen(flags_.input.c_str(), "rb");
      if (file == nullptr) {
        input_error("cannot read '" + flags_.input + "': " + std::strerror(errno));
        return 3;
      }
      char buffer[65536];
      while (true) {
        const std::size_t n = std::fread(buffer, 1, sizeof buffer, file);
        text.append(buffer, n);
        if (n < sizeof buffer) break;
      }
      const int failed = std::ferror(file) ? errno : 0;
      std::fclose(file);
      if (failed != 0) {
        input_error("cannot read '" + flags_.input + "': " + std::strerror(failed));
        return 3;
      }
    }
    report_.phases_us.read += micros_since(start);
    return 0;
  }

  void input_error(const std::string& message) {
    error(message);
    report_.chunks.push_back({0, 1, 3, OptReportError{"input", std::nullopt, message}});
  }

  struct Chunk {
    std::string text;  // preceded by the newlines of the lines before it
    int first_line = 1;
  };

  std::vector<Chunk> split(std::string text) const {
    if (!flags_.split_marker) {
      std::vector<Chunk> one;
      one.push_back(Chunk{std::move(text), 1});
      return one;
    }
    std::vector<Chunk> out;
    std::string marker = *flags_.split_marker;
    while (!marker.empty() && marker.back() == ' ') marker.pop_back();
    Chunk current;
    int line = 1;
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const std::size_t nl = text.find('\n', pos);
      const std::size_t end = nl == std::string::npos ? text.size() : nl;
      std::string_view l(text.data() + pos, end - pos);
      std::string_view trimmed = l;
      while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\r')) trimmed.remove_suffix(1);
      if (trimmed == marker) {
        out.push_back(std::move(current));
        current = Chunk{std::string(static_cast<std::size_t>(line), '\n'), line + 1};
      } else {
        current.text.append(l);
        if (nl != std::string::npos) current.text += '\n';
      }
      if (nl == std::string::npos) break;
      pos = nl + 1;
      ++line;
    }
    out.push_back(std::move(current));
    return out;
  }

  std::string source_name() const { return flags_.input == "-" ? "<stdin>" : flags_.input; }

  int process_input() {
    std::string text;
    if (int code = read_input(text); code != 0) return code;
    const std::vector<Chunk> chunks = split(std::move(text));
    std::string output;
    int worst = 0;
    bool any_ok = false;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      if (i > 0) output += *flags_.split_marker + "\n";
      OptReportChunk chunk{static_cast<int>(i), chunks[i].first_line, 0, std::nullopt};
      std::string printed;
      chunk.exit_code = process_chunk(chunks[i].text, printed, chunk);
      if (chunk.exit_code == 0) {
        any_ok = true;
        if (output.empty()) {
          output = std::move(printed);
        } else {
          output += printed;
        }
      }
      worst = std::max(worst, chunk.exit_code);
      report_.chunks.push_back(std::move(chunk));
    }
    print_statistics();
    const bool write = flags_.split_marker ? any_ok : worst == 0;
    if (write && !flags_.disable_output) {
      const auto start = std::chrono::steady_clock::now();
      if (flags_.output == "-") {
        io_.out << output << std::flush;
      } else if (!write_file(flags_.output, output)) {
        worst = 4;
      }
      report_.phases_us.write += micros_since(start);
    }
    return worst;
  }

  // One chunk: parse, verify, run, verify, print. Returns its exit code.
  int process_chunk(const std::string& text, std::string& printed, OptReportChunk& chunk) {
    auto start = std::chrono::steady_clock::now();
    std::optional<IR> ir;
    try {
      ir.emplace(ir_traits<IR>::parse(text, source_name()));
    } catch (const std::exception& e) {
      report_.phases_us.parse += micros_since(start);
      io_.err << e.what() << '\n';
      OptReportError err{"parse", std::nullopt, e.what()};
      fill_span(e, err);
      chunk.error = std::move(err);
      return 3;
    } catch (...) {
      io_.err << tool_ << ": error: unknown exception\n";
      chunk.error = OptReportError{"parse", std::nullopt, "unknown exception"};
      return 3;
    }
    report_.phases_us.parse += micros_since(start);
    if constexpr (VerifiableIR<IR>) {
      if (!flags_.no_verify) {
        if (auto problem = verify(*ir)) {
          const std::string message = "'" + source_name() + "' is not valid input: " + *problem;
          error(message);
          chunk.error = OptReportError{"verify", std::nullopt, message};
          return 3;
        }
      }
    }
    if (pipeline_) {
      start = std::chrono::steady_clock::now();
      const int code = run_pipeline(ir, chunk);
      report_.phases_us.passes += micros_since(start);
      if (code != 0) return code;
    }
    if constexpr (VerifiableIR<IR>) {
      if (!flags_.no_verify) {
        if (auto problem = verify(*ir)) {
          const std::string message = "the output is not valid: " + *problem;
          error(message);
          chunk.error = OptReportError{"verify", std::nullopt, message};
          return 1;
        }
      }
    }
    start = std::chrono::steady_clock::now();
    try {
      printed = print_ir(*ir, flags_.print_debuginfo);
    } catch (const std::exception& e) {
      const std::string message = std::string("printing the output failed: ") + e.what();
      error(message);
      chunk.error = OptReportError{"pass", std::nullopt, message};
      return 1;
    }
    report_.phases_us.print += micros_since(start);
    return 0;
  }

  std::optional<std::string> verify(const IR& ir) {
    if constexpr (VerifiableIR<IR>) {
      try {
        return ir_traits<IR>::verify(ir);
      } catch (const std::exception& e) {
        return std::string(e.what());
      }
    }
    return std::nullopt;
  }

  // "<file>:<line>:<col>: error: ..." on the first line of what() fills file/line/column.
  static void fill_span(const std::exception& e, OptReportError& err) {
    std::string_view first = e.what();
    first = first.substr(0, first.find('\n'));
    const std::size_t at = first.find(": error: ");
    if (at == std::string_view::npos) return;
    std::string_view head = first.substr(0, at);
    const std::size_t c2 = head.rfind(':');
    if (c2 == std::string_view::npos) return;
    const std::size_t c1 = head.rfind(':', c2 == 0 ? 0 : c2 - 1);
    if (c1 == std::string_view::npos || c1 >= c2) return;
    const auto line = parse_integer(head.substr(c1 + 1, c2 - c1 - 1));
    const auto column = parse_integer(head.substr(c2 + 1));
    if (!line || !column) return;
    err.file = std::string(head.substr(0, c1));
    err.line = static_cast<int>(*line);
    err.column = static_cast<int>(*column);
  }

  // The instruments of SPEC §12.1, in order, around one run of the pipeline.
  int run_pipeline(std::optional<IR>& ir, OptReportChunk& chunk) {
    // The analyses of this run's IR (SPEC §10); it outlives the context.
    AnalysisManager<IR> analyses;
    std::vector<AnyInstrument<IR>> list;
    const bool timing = flags_.time_passes || !flags_.time_trace.empty() || !flags_.report.empty();
    if (timing) {
      if (!timer_) timer_ = std::make_shared<PassTimingInstrument>(PassTimingOptions{.keep_on_exit = true});
      list.emplace_back(timer_);
    }
    if (flags_.debug_pass_manager) list.emplace_back(std::make_shared<DebugPassManager>(io_.err));
    if (flags_.bisect) {
      if (!bisect_) {
        const std::size_t limit = *flags_.bisect < 0 ? PassBisect::no_limit : static_cast<std::size_t>(*flags_.bisect);
        bisect_ = std::make_shared<PassBisect>(limit, TextSink(io_.err));
      }
      list.emplace_back(bisect_);
    }
    const bool locations = flags_.print_debuginfo;
    const auto all_filter = [&] { return flags_.filter.empty() ? PassFilter() : PassFilter::only(flags_.filter); };
    if (flags_.print_before_all || !flags_.print_before.empty()) {
      list.emplace_back(std::make_shared<PrintIRDriver<IR>>(
          true, flags_.print_before_all ? all_filter() : PassFilter::only(flags_.print_before), locations, io_.err));
    }
    if (flags_.print_after_all || !flags_.print_after.empty()) {
      list.emplace_back(std::make_shared<PrintIRDriver<IR>>(
          false, flags_.print_after_all ? all_filter() : PassFilter::only(flags_.print_after), locations, io_.err));
    }
    if (flags_.changed != Changed::none) {
      list.emplace_back(std::make_shared<PrintChangedDriver<IR>>(flags_.changed, all_filter(), locations, io_.err));
    }
    std::shared_ptr<FailureRecorder<IR>> failure;
    if (!flags_.crash_reproducer.empty()) {
      auto recorder = std::make_shared<ReproducerRecorder<IR>>(true, locations);
      failure = recorder;
      list.emplace_back(std::move(recorder));
    }
    if (!flags_.report.empty()) {
      if (!counts_) counts_ = std::make_shared<PassStatistics>();
      list.emplace_back(counts_);
    }
    if (!failure) {
      failure = std::make_shared<FailureRecorder<IR>>(false, locations);
      list.emplace_back(failure);
    }
    std::shared_ptr<AnalysisCheckDriver<IR>> analysis_check;
    if (flags_.verify_analyses) {
      analysis_check = std::make_shared<AnalysisCheckDriver<IR>>(analyses);
      list.emplace_back(analysis_check);
    }
    if constexpr (VerifiableIR<IR>) {
      if (flags_.verify_each) {
        list.emplace_back(std::make_shared<VerifierInstrument<std::function<std::optional<std::string>(const IR&)>>>(
            [](const IR& x) -> std::optional<std::string> { return ir_traits<IR>::verify(x); }, PassFilter(),
            VerifierOptions{.verify_input = false}));
      }
    }
    PassContextOptions context_options{flags_.opt_level, flags_.required, flags_.disabled, config_};
    try {
      PassContext<IR> ctx(std::move(context_options), DynamicInstruments<IR>(std::move(list)), &analyses);
      IR input = std::move(*ir);
      ir.reset();
      ir.emplace(ctx.with([&] { return passinfra::run(*pipeline_, std::move(input), ctx); }));
      return 0;
    } catch (const VerificationError& e) {
      // The verifier throws from the pass's after hook, so the failure hooks
      // name the enclosing pass; the error names the one that broke the IR.
      return pass_failed(e.pass_name(), failure ? failure->pass_input : std::string(), e.what(), chunk);
    } catch (const std::exception& e) {
      if (analysis_check && analysis_check->failed == std::current_exception()) {
        // The checker's message names the pass whose claim was false.
        return pass_failed(analysis_check->failed_pass, failure ? failure->pass_input : std::string(), e.what(), chunk);
      }
      return pass_failed(failure ? failure->pass : std::nullopt, failure ? failure->pass_input : std::string(),
                         e.what(), chunk);
    } catch (...) {
      error("unknown exception");
      chunk.error = OptReportError{"pass", failure ? failure->pass : std::nullopt, "unknown exception"};
      return 1;
    }
  }

  int pass_failed(const std::optional<std::string>& pass, const std::string& input, const std::string& what,
                  OptReportChunk& chunk) {
    if (pass) {
      error("pass '" + *pass + "' failed: " + what);
    } else {
      error(what);
    }
    chunk.error = OptReportError{"pass", pass, what};
    if (!flags_.crash_reproducer.empty() && pass) write_reproducer(*pass, input, what);
    return 1;
  }

  // SPEC §12.6: CrashReproducer's report with a "// run:" line after "// pipeline:".
  void write_reproducer(const std::string& pass, const std::string& input, const std::string& what) {
    std::string item = pass;
    if (pipeline_) {
      for (const auto& child : pipeline_->passes()) {
        if (child.info().name != pass) continue;
        if (const auto* r = child.template target<RegistryPass<IR>>()) {
          try {
            item = r->text();
          } catch (const std::exception&) {
          }
        }
        break;
      }
    }
    const std::string& path = flags_.crash_reproducer;
    std::string command =
        tool_ + " --passes=" + always_quote(item) + " --opt-level=" + std::to_string(flags_.opt_level);
    if (!flags_.required.empty()) command += " --required-pass=" + shell_quote(join(flags_.required));
    if (!flags_.disabled.empty()) command += " --disable-pass=" + shell_quote(join(flags_.disabled));
    for (const auto& [flag, text] : flags_.config_sources) command += " --config=" + always_quote(text);
    command += " " + shell_quote(path);
    CrashReport report{pass, what, report_.pipeline.value_or(""), input};
    std::string text = format_crash_report(report, options_.comment_prefix);
    // After the pipeline line (or the last error line): "// run: <command>".
    const std::string run_line = options_.comment_prefix + "run: " + command + "\n";
    std::size_t at = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) break;
      const std::string_view line(text.data() + pos, nl - pos);
      if (!line.starts_with(options_.comment_prefix)) break;
      at = nl + 1;
      pos = nl + 1;
    }
    text.insert(at, run_line);
    if (write_file(path, text)) {
      io_.err << tool_ << ": note: reproducer written to '" << path << "'; re-run with: " << command << '\n';
      report_.reproducer = OptReportReproducer{path, command};
    } else {
      reproducer_failed_ = true;
    }
  }

  static std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
  }

  bool write_file(const std::string& path, std::string_view text) {
    try {
      write_file_atomically(path, text);
      return true;
    } catch (const std::exception& e) {
      const std::string message = message_of(e);
      error(message);
      write_errors_.push_back(message);
      return false;
    }
  }

  void print_statistics() {
    if (!pipeline_) {
      if (flags_.statistics == StatsFormat::text) io_.err << format_statistics({});
      if (flags_.statistics == StatsFormat::json) io_.err << statistics_to_json({});
      return;
    }
    const auto entries = collect_statistics(*pipeline_);
    if (flags_.statistics == StatsFormat::text) io_.err << format_statistics(entries);
    if (flags_.statistics == StatsFormat::json) io_.err << statistics_to_json(entries);
    std::map<std::string, std::uint64_t> flat;
    for (const auto& e : entries) {
      for (const auto& s : e.statistics) flat[e.pass + "." + s.name] += s.value;
    }
    report_.statistics.assign(flat.begin(), flat.end());
  }

  // After everything: timing output, trace, report; write failures make it 4.
  int finish(int code) {
    if (timer_) {
      if (flags_.time_passes) io_.err << (flags_.time_list ? timer_->render_list() : timer_->render());
      if (!flags_.time_trace.empty() && !write_file(flags_.time_trace, timer_->to_chrome_trace_json())) code = 4;
    }
    if (reproducer_failed_) code = std::max(code, 4);
    if (!write_errors_.empty() && code != 2) code = std::max(code, 4);
    if (!flags_.report.empty()) {
      fill_report_passes();
      report_.exit_code = code;
      for (const auto& message : write_errors_) {
        report_.chunks.push_back(
            {static_cast<int>(report_.chunks.size()), 1, 4, OptReportError{"output", std::nullopt, message}});
      }
      std::string json = to_json(report_);
      if (!write_file(flags_.report, json)) code = 4;
    }
    return code;
  }

  void fill_report_passes() {
    std::vector<std::string> order;
    std::map<std::string, OptReportPass> rows;
    if (counts_) {
      for (const auto& [name, c] : counts_->rows()) {
        order.push_back(name);
        rows[name] = OptReportPass{name, c.runs, c.skips, c.failures, 0};
      }
    }
    if (timer_) {
      const std::function<void(const std::vector<PassProfile>&)> add = [&](const std::vector<PassProfile>& list) {
        for (const auto& p : list) {
          // Analyses (SPEC §10.7) are not passes: the report's rows are the passes'.
          if (p.analysis) continue;
          auto [it, inserted] = rows.try_emplace(p.name, OptReportPass{p.name});
          if (inserted) order.push_back(p.name);
          it->second.total_us +=
              static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(p.duration).count());
          add(p.children);
        }
      };
      add(timer_->profile());
    }
    report_.passes.clear();
    for (const auto& name : order) report_.passes.push_back(rows[name]);
  }

  void print_help() {
    std::string out;
    if (!options_.overview.empty()) out += options_.overview + "\n\n";
    out += "USAGE: " + tool_ + " [options] [input]\n\n";
    out += "  input   the IR text to read; - (the default) reads standard input\n\n";
    // CLI11 formats the option list.
    CLI::App app;
    app.set_help_flag();
    for (const auto& spec : option_specs) {
      std::string names;
      if (spec.name == "o") {
        names = "-o";
      } else if (spec.name == "opt-level") {
        names = "-O,--opt-level";
      } else if (spec.name == "help") {
        names = "-h,--help";
      } else {
        names = "--" + std::string(spec.name);
        for (const auto& a : option_aliases) {
          if (a.name == spec.name) names += ",--" + std::string(a.alias);
        }
      }
      std::string help(spec.help);
      if (spec.arity == Arity::flag) {
        app.add_flag(names)->description(help);
      } else {
        app.add_option(names)->description(help)->type_name(spec.arity == Arity::optional_value ? "[=<value>]"
                                                                                                : "<value>");
      }
    }
    for (const auto& a : options_.config_aliases) {
      std::string help = a.description.empty() ? "sets --config " + a.key + "=<value>" : a.description;
      app.add_option("--" + a.flag)->description(help)->type_name("<value>");
    }
    struct Formatter : CLI::Formatter {
      using CLI::Formatter::make_groups;
    };
    out += Formatter().make_groups(&app, CLI::AppFormatMode::Normal);
    out += "\nAvailable passes:\n";
    indent_lines(registry_.describe(), out);
    // Only when there are some: an IR without analyses gets SPEC §12.1's help as it was.
    if (const std::string analyses = registry_.describe_analyses(); !analyses.empty()) {
      out += "\nAvailable analyses (require(analysis=\"<name>\"), invalidate(analysis=\"<name>\")):\n";
      indent_lines(analyses, out);
    }
    io_.out << out;
  }

  // Each line of `text` indented by 2, into `out` (a last line gets its newline).
  static void indent_lines(const std::string& text, std::string& out) {
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t nl = text.find('\n', pos);
      out += "  " + text.substr(pos, nl == std::string::npos ? std::string::npos : nl + 1 - pos);
      if (nl == std::string::npos) {
        out += '\n';
        break;
      }
      pos = nl + 1;
    }
  }

  std::span<const std::string> args_;
  PassRegistry<IR>& registry_;
  const OptMainOptions& options_;
  OptMainIO io_;
  std::string tool_;
  Flags flags_;
  Config config_;
  std::unique_ptr<DynamicSequential<IR>> pipeline_;
  std::shared_ptr<PassTimingInstrument> timer_;
  std::shared_ptr<PassBisect> bisect_;
  std::shared_ptr<PassStatistics> counts_;
  std::vector<std::string> write_errors_;
  bool reproducer_failed_ = false;
  OptReport report_;
  std::optional<ScopedLogSink> log_sink_;  // last: restored after everything else is done
};

}  // namespace detail::opt

// opt_main<IR>(args, registry, options, io): the driver on explicit arguments
// (argv[0] excluded) and streams. Returns the exit code; never throws.
template <OptMainIR IR>
int opt_main(std::span<const std::string> args, PassRegistry<IR>& registry, const OptMainOptions& options,
             OptMainIO io) {
  const std::string tool = options.tool_name.empty() ? std::string("opt") : options.tool_name;
  try {
    return detail::opt::Driver<IR>(args, registry, options, io, tool).run();
  } catch (const std::exception& e) {
    io.err << tool << ": error: " << e.what() << '\n';
    return 1;
  } catch (...) {
    io.err << tool << ": error: unknown exception\n";
    return 1;
  }
}

// opt_main<IR>(argc, argv, registry, options): what a compiler's main() returns.
template <OptMainIR IR>
int opt_main(int argc, const char* const* argv, PassRegistry<IR>& registry = PassRegistry<IR>::global(),
             const OptMainOptions& options = {}) {
  try {
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    OptMainOptions named = options;
    if (named.tool_name.empty()) named.tool_name = argc > 0 ? detail::opt::basename_of(argv[0]) : std::string("opt");
    return opt_main<IR>(std::span<const std::string>(args), registry, named, OptMainIO{std::cin, std::cout, std::cerr});
  } catch (...) {
    std::fputs("error: out of memory\n", stderr);
    return 1;
  }
}

}  // namespace passinfra
