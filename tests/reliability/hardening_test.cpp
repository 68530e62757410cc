// Hardening (issue 23): each case failed before its fix.
//
// - instrument names returned by value (std::string) were viewed after the
//   temporary died (ASan: heap-use-after-free; plain builds logged garbage);
// - pipelines nested in code had no depth limit (stack overflow running,
//   printing or destroying 100,000 levels);
// - "did you mean" suggestions had unbounded cost and unbounded messages;
// - required_pass / disabled_pass were searched linearly for every pass;
// - the Chrome trace wrote invalid UTF-8 in pass names as raw bytes.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>
#include <passinfra/instruments/pass_timing_instrument.hpp>

namespace hardening_test {

using IR = int;
using passinfra::AnyPass;
using passinfra::DynamicSequential;

// A name longer than any small-string buffer, returned by value.
struct NamedByValue {
  std::string name() const { return "NamedInstrumentWithALongName_returned_by_value"; }
  void exit_pass_ctx() {}
};
struct ThrowsOnEnter {
  void enter_pass_ctx() { throw std::runtime_error("enter failed"); }
};
struct FailureHookThrows {
  std::string name() const { return "FailureHookThrowsInstrumentWithALongName"; }
  void run_before_pass(const IR&, const passinfra::PassInfo&) {}
  void run_after_pass_failed(const passinfra::PassInfo&, const std::exception_ptr&) {
    throw std::runtime_error("failure hook failed");
  }
};
struct ExitThrows {
  std::string name() const { return "ExitThrowsInstrumentWithALongNameByValue"; }
  void exit_pass_ctx() { throw std::runtime_error("exit failed"); }
};

struct Inc {
  static constexpr passinfra::PassInfo info{"Inc", 0};
  template <class Ctx>
  IR transform(IR ir, Ctx&) const {
    return ir + 1;
  }
};
struct Fails {
  static constexpr passinfra::PassInfo info{"Fails", 0};
  template <class Ctx>
  IR transform(IR, Ctx&) const {
    throw std::runtime_error("pass failed");
  }
};

struct LogCapture {
  std::vector<std::string> lines;
  passinfra::ScopedLogSink sink{[this](passinfra::LogLevel, std::string_view line) { lines.emplace_back(line); }};
  bool has(std::string_view text) const {
    for (const auto& l : lines) {
      if (l.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

// Runs f() in a child process (f returns its exit code), so what it
// registers process-wide stays out of this one.
template <class F>
int in_child(F&& f) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) _exit(f());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hardening_test

using namespace hardening_test;

TEST_CASE("hardening: an instrument name returned by value outlives the enter clean-up's log lines") {
  LogCapture log;
  passinfra::PassContext<IR> dynamic(
      {}, {passinfra::make_instrument<IR, NamedByValue>(), passinfra::make_instrument<IR, ThrowsOnEnter>()});
  CHECK_THROWS_AS(dynamic.with([] {}), std::runtime_error);
  CHECK(log.has("NamedInstrumentWithALongName_returned_by_value exiting PassContext ..."));
  CHECK(log.has("NamedInstrumentWithALongName_returned_by_value exited PassContext."));

  LogCapture static_log;
  auto ctx = passinfra::make_pass_context<IR>({}, NamedByValue{}, ThrowsOnEnter{});
  CHECK_THROWS_AS(ctx.with([] {}), std::runtime_error);
  CHECK(static_log.has("NamedInstrumentWithALongName_returned_by_value exiting PassContext ..."));
  CHECK(static_log.has("NamedInstrumentWithALongName_returned_by_value exited PassContext."));
}

TEST_CASE("hardening: an instrument name returned by value in the failure and exit warnings") {
  {
    LogCapture log;
    passinfra::PassContext<IR> ctx({}, {passinfra::make_instrument<IR, FailureHookThrows>()});
    CHECK_THROWS_AS(
        ctx.with([] { return passinfra::run(AnyPass<IR>(Fails{}), 0, passinfra::PassContext<IR>::current()); }),
        std::runtime_error);
    CHECK(log.has("run_after_pass_failed of instrument FailureHookThrowsInstrumentWithALongName threw"));
  }
  {
    LogCapture log;
    auto ctx = passinfra::make_pass_context<IR>({}, FailureHookThrows{});
    CHECK_THROWS_AS((void)passinfra::run(Fails{}, 0, ctx), std::runtime_error);
    CHECK(log.has("run_after_pass_failed of instrument FailureHookThrowsInstrumentWithALongName threw"));
  }
  {
    LogCapture log;
    passinfra::PassContext<IR> ctx({}, {passinfra::make_instrument<IR, ExitThrows>()});
    CHECK_THROWS_WITH_AS(ctx.with([]() -> int { throw std::logic_error("body"); }), "body", std::logic_error);
    CHECK(log.has("exit_pass_ctx of instrument ExitThrowsInstrumentWithALongNameByValue threw"));
  }
  const auto any = passinfra::make_instrument<IR, NamedByValue>();
  const std::string name = any.name();
  CHECK(name == "NamedInstrumentWithALongName_returned_by_value");
  CHECK(passinfra::instrument_name(NamedByValue{}) == "NamedInstrumentWithALongName_returned_by_value");
}

TEST_CASE("hardening: pipelines nested in code stop at max_pipeline_depth with an Error") {
  AnyPass<IR> p(Inc{});
  std::size_t built = 1;
  std::string message;
  try {
    for (int i = 0; i < 100000; ++i) {
      p = AnyPass<IR>(DynamicSequential<IR>{p});
      ++built;
    }
  } catch (const passinfra::Error& e) {
    message = e.what();
  }
  CHECK(built == passinfra::max_pipeline_depth);
  CHECK(p.nesting_depth() == passinfra::max_pipeline_depth);
  CHECK(message.find("passes nested more than 256 levels deep") != std::string::npos);
  CHECK(message.find("max_pipeline_depth") != std::string::npos);
  // The deepest pipeline allowed runs, prints, copies and is destroyed.
  passinfra::PassContext<IR> ctx;
  CHECK(ctx.with([&] { return p(0); }) == 1);
  CHECK(passinfra::print_pipeline(p).size() == 12 * (passinfra::max_pipeline_depth - 1) + 3);
  AnyPass<IR> copy = p;
  CHECK(copy.nesting_depth() == p.nesting_depth());

  // Every other route to a deeper nest is refused too.
  CHECK_THROWS_AS((void)DynamicSequential<IR>(std::vector<AnyPass<IR>>{p}), passinfra::Error);
  DynamicSequential<IR> seq{Inc{}};
  CHECK_THROWS_AS(seq.push_back(p), passinfra::Error);
  CHECK(seq.passes().size() == 1);
  CHECK_THROWS_AS((void)AnyPass<IR>(passinfra::Sequential(p)), passinfra::Error);
  CHECK_THROWS_AS((void)AnyPass<IR>(Inc{}, std::vector<AnyPass<IR>>{p}), passinfra::Error);
  CHECK(AnyPass<IR>(passinfra::Sequential(Inc{}, passinfra::Sequential(Inc{}))).nesting_depth() == 3);
}

TEST_CASE("hardening: a chain of required passes built in code is bounded too") {
  AnyPass<IR> p(Inc{});
  std::size_t built = 1;
  try {
    for (int i = 0; i < 100000; ++i) {
      p = AnyPass<IR>(Inc{}, std::vector<AnyPass<IR>>{p});
      ++built;
    }
  } catch (const passinfra::Error& e) {
    CHECK(std::string(e.what()).find("max_pipeline_depth") != std::string::npos);
  }
  CHECK(built == passinfra::max_pipeline_depth);
}

TEST_CASE("hardening: suggestions for a 10,000-byte config key among 20,000 keys are quick and short") {
  const int code = in_child([] {
    for (int i = 0; i < 20000; ++i) {
      passinfra::register_config_option<int>("hardening.option_" + std::to_string(i), "");
    }
    const std::string key(10000, 'k');
    const auto start = std::chrono::steady_clock::now();
    try {
      passinfra::PassContext<IR> ctx(passinfra::PassContextOptions{.config = {{key, std::int64_t{1}}}});
      return 1;
    } catch (const passinfra::Error& e) {
      const std::string what = e.what();
      if (seconds_since(start) > 5.0) return 2;
      if (what.size() > 1000) return 3;
      if (what.find("unknown config key 'kkkk") == std::string::npos) return 4;
      if (what.find("(10000 bytes)") == std::string::npos) return 5;
    }
    return 0;
  });
  CHECK(code == 0);
}

TEST_CASE("hardening: suggestions among many long pass names are quick and the message is short") {
  passinfra::PassRegistry<IR> registry;
  for (int i = 0; i < 2000; ++i) {
    registry.add(std::string(5000, 'a') + std::to_string(i), [](const passinfra::PassOptions&) { return Inc{}; });
  }
  for (int i = 0; i < 18000; ++i) {
    registry.add("Pass" + std::to_string(i), [](const passinfra::PassOptions&) { return Inc{}; });
  }
  const std::string huge(1 << 20, 'a');
  const auto start = std::chrono::steady_clock::now();
  std::string what;
  try {
    (void)registry.create(huge);
  } catch (const passinfra::Error& e) {
    what = e.what();
  }
  CHECK(seconds_since(start) < 5.0);
  CHECK(what.find("unknown pass name 'aaaa") != std::string::npos);
  CHECK(what.find("(1048576 bytes)") != std::string::npos);
  CHECK(what.size() < 1000);

  // In pipeline text: the text is quoted only around the column.
  const std::string text = "sequential(Pass1," + huge + ",Pass2)";
  try {
    (void)passinfra::parse_pipeline<IR>(text, registry);
    FAIL("expected an Error");
  } catch (const passinfra::Error& e) {
    what = e.what();
  }
  CHECK(what.size() < 1500);
  CHECK(what.find("column 18: unknown pass name 'aaaa") != std::string::npos);
  const auto caret_line = what.substr(what.rfind('\n') + 1);
  const auto text_line = what.substr(0, what.rfind('\n'));
  const auto quoted = text_line.substr(text_line.rfind('\n') + 1);
  CHECK(quoted.starts_with("  sequential(Pass1,aaa"));
  CHECK(quoted.ends_with("aaa..."));
  CHECK(caret_line == std::string(2 + 17, ' ') + "^");
}

TEST_CASE("hardening: suggestions and quoted text keep their short-input behaviour") {
  // The bounded search picks what scoring every candidate fully picked.
  const std::vector<std::string> names = {"FuseOps", "FoldConstant", "InferType", "DefuseOps", "fuse",
                                          "Fuse",    "SimplifyExpr", "FuseOps2",  "A",         "",
                                          "fuseOPS", "InferTypes",   "Fold",      "ops",       "XYZ"};
  const auto reference = [&](std::string_view input) {
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& name : names) {
      std::size_t d = passinfra::detail::edit_distance(input, name);
      if (!input.empty() && (name.find(input) != std::string::npos || input.find(name) != std::string_view::npos)) {
        d = std::min<std::size_t>(d, 1);
      }
      scored.emplace_back(d, name);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < 3 && i < scored.size(); ++i) out.push_back(scored[i].second);
    return out;
  };
  for (const char* input : {"FuseOp", "fuseops", "", "Infer", "SimplifyExpression", "x", "Fold", "FOLDCONSTANT", "ops",
                            "DefuseOpsX", "zzzzzzzzzzzzzzzzzzzzzzzzz"}) {
    CAPTURE(input);
    CHECK(passinfra::detail::closest_names(input, names) == reference(input));
  }
  for (std::size_t bound = 0; bound < 12; ++bound) {
    for (const char* a : {"", "kitten", "sitting", "FuseOps", "abcdefghij"}) {
      for (const char* b : {"", "kitten", "sitting", "fuseop", "jihgfedcba"}) {
        const std::size_t exact = passinfra::detail::edit_distance(a, b);
        CHECK(passinfra::detail::edit_distance_at_most(a, b, bound) == (exact <= bound ? exact : bound + 1));
      }
    }
  }
  CHECK(passinfra::detail::pipeline_error_text("a(b", 2, "m") == "pipeline text, column 2: m\n  a(b\n   ^");
  const std::string long_text = std::string(100, 'x') + "!" + std::string(100, 'y');
  CHECK(passinfra::detail::pipeline_error_text(long_text, 101, "m") ==
        "pipeline text, column 101: m\n  ..." + std::string(60, 'x') + "!" + std::string(59, 'y') + "...\n  " +
            std::string(3 + 60, ' ') + "^");
}

TEST_CASE("hardening: 20,000 required and disabled names cost O(1) per pass") {
  std::vector<std::string> names;
  for (int i = 0; i < 20000; ++i) names.push_back("Named" + std::to_string(i));
  std::vector<AnyPass<IR>> passes;
  for (const auto& name : names) {
    passes.emplace_back(passinfra::module_pass({name, 9}, [](IR ir) { return ir + 1; }));
  }
  std::vector<std::string> required(names.begin(), names.begin() + 10000);
  std::vector<std::string> disabled(names.begin() + 10000, names.end());
  for (auto& r : required) r += "_";  // listed, but no pass has these names
  required.back() = names.front();
  passinfra::PassContext<IR> ctx(
      passinfra::PassContextOptions{.opt_level = 2, .required_pass = required, .disabled_pass = disabled});
  const DynamicSequential<IR> seq(passes);
  const auto start = std::chrono::steady_clock::now();
  const IR out = ctx.with([&] { return seq(0); });
  CHECK(seconds_since(start) < 2.0);
  CHECK(out == 1);  // only Named0 is required; the others need opt_level 9 or are disabled
  CHECK(ctx.is_required("Named0"));
  CHECK_FALSE(ctx.is_required("Named1"));
  CHECK(ctx.pass_enabled(passinfra::PassInfo{"Named0", 9}));
  CHECK_FALSE(ctx.pass_enabled(passinfra::PassInfo{"Named10000", 0}));
  CHECK(ctx.pass_enabled(passinfra::PassInfo{"Other", 0}));
}

namespace hardening_test {
// A strict UTF-8 check (RFC 3629).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = passinfra::detail::utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}
}  // namespace hardening_test

TEST_CASE("hardening: the Chrome trace escapes invalid UTF-8 in pass names") {
  const std::string names[] = {"Bad\xff\xfe",  "Caf\xc3\xa9",      "Trunc\xe2\x82",
                               "Over\xc0\xaf", "Surr\xed\xa0\x80", "Emoji\xf0\x9f\x98\x80"};
  passinfra::PassTimingInstrument timing;
  auto ctx = passinfra::make_pass_context<IR>({}, std::ref(timing));
  for (const auto& name : names)
    (void)passinfra::run(passinfra::module_pass({name, 0}, [](IR ir) { return ir; }), 0, ctx);
  const std::string json = timing.to_chrome_trace_json();
  CHECK(valid_utf8(json));
  CHECK(json.find("\"Bad\\ufffd\\ufffd\"") != std::string::npos);
  CHECK(json.find("\"Caf\xc3\xa9\"") != std::string::npos);
  CHECK(json.find("\"Trunc\\ufffd\\ufffd\"") != std::string::npos);
  CHECK(json.find("\"Over\\ufffd\\ufffd\"") != std::string::npos);
  CHECK(json.find("\"Surr\\ufffd\\ufffd\\ufffd\"") != std::string::npos);
  CHECK(json.find("\"Emoji\xf0\x9f\x98\x80\"") != std::string::npos);
  // Without the check, the raw bytes failed it.
  CHECK_FALSE(valid_utf8(names[0]));
}

TEST_CASE("hardening: erased passes and pipelines own names given as lvalue strings") {
  std::string name = "DynamicName_longer_than_the_small_string_buffer";
  AnyPass<IR> p(passinfra::module_pass({name, 1}, [](IR ir) { return ir; }));
  DynamicSequential<IR> seq(std::vector<AnyPass<IR>>{p}, passinfra::PassInfo{name, 2});
  name.assign(200, '#');
  name.shrink_to_fit();
  CHECK(p.info().name == "DynamicName_longer_than_the_small_string_buffer");
  CHECK(seq.info().name == "DynamicName_longer_than_the_small_string_buffer");
}
