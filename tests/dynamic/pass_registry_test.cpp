// PassRegistry<IR>: registration, create() with options, required-name resolution, every error path.
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <passinfra/dynamic.hpp>

#include "support/recorder.hpp"
#include "support/test_ir.hpp"

using namespace pitest;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::ConfigType;
using passinfra::PassInfo;
using passinfra::PassOptions;
using passinfra::PassOptionSpec;
using Registry = passinfra::PassRegistry<TestIR>;

namespace {

using InferType = TestPass<"InferType">;
using FoldConstant = TestPass<"FoldConstant", 2>;
using Canonicalize = TestPass<"Canonicalize", 1>;

// A pass whose info is per object: FuseOps(level).
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

// A static pass that only names what it requires (no `required` types).
inline constexpr std::array<std::string_view, 1> kLowerRequires{"InferType"};
struct Lower {
  static constexpr PassInfo info{"Lower", 0, kLowerRequires};
  TestIR transform(TestIR ir, auto&) const {
    if (ir.log) ir.log->add("Lower");
    ir.trail.emplace_back("Lower");
    return ir;
  }
};

// The same requirement as a type: what the names-only passes must behave like.
using LowerStatic = TestPass<"Lower", 0, passinfra::requires_passes<InferType>>;

// A module_pass naming two requirements.
inline constexpr std::array<std::string_view, 2> kPackRequires{"InferType", "FoldConstant"};
auto make_pack() {
  return passinfra::module_pass(PassInfo{"Pack", 0, kPackRequires}, [](TestIR ir, auto&) {
    if (ir.log) ir.log->add("Pack");
    ir.trail.emplace_back("Pack");
    return ir;
  });
}

inline constexpr std::array<std::string_view, 1> kNeedsMissing{"Canonicalise"};
struct NeedsMissing {
  static constexpr PassInfo info{"NeedsMissing", 0, kNeedsMissing};
  TestIR transform(TestIR ir, auto&) const { return ir; }
};

// Two passes naming each other: resolution is one level deep, so no cycle.
inline constexpr std::array<std::string_view, 1> kPingRequires{"Pong"};
inline constexpr std::array<std::string_view, 1> kPongRequires{"Ping"};
struct Ping {
  static constexpr PassInfo info{"Ping", 0, kPingRequires};
  TestIR transform(TestIR ir, auto&) const {
    if (ir.log) ir.log->add("Ping");
    return ir;
  }
};
struct Pong {
  static constexpr PassInfo info{"Pong", 0, kPongRequires};
  TestIR transform(TestIR ir, auto&) const {
    if (ir.log) ir.log->add("Pong");
    return ir;
  }
};

AnyPass<TestIR> fuse_factory(const PassOptions& options) {
  return FuseOps{passinfra::get_option<int>(options, "fuse_opt_level")};
}
AnyPass<TestIR> other_factory(const PassOptions&) { return FuseOps{7}; }

std::vector<PassOptionSpec> fuse_specs() { return {{"fuse_opt_level", ConfigType::integer, std::int64_t{2}}}; }

void add_basics(Registry& reg) {
  reg.add<InferType>("Infer the types.");
  reg.add<FoldConstant>();
  reg.add<Canonicalize>();
  reg.add("FuseOps", fuse_factory, fuse_specs(), "Fuse operators.");
}

// The events of running `pass` under one recording instrument, on the dynamic layer.
template <class P>
std::vector<std::string> dynamic_events(const P& pass, passinfra::PassContextOptions options = {}) {
  EventLog log;
  auto a = recorder("A", log);
  passinfra::PassContext<TestIR> ctx(std::move(options), {AnyInstrument<TestIR>(std::ref(a))});
  (void)passinfra::run(pass, TestIR{&log}, ctx);
  return log.events;
}

// The same, on the static layer.
template <class P>
std::vector<std::string> static_events(const P& pass, passinfra::PassContextOptions options = {}) {
  EventLog log;
  auto a = recorder("A", log);
  auto ctx = passinfra::make_pass_context<TestIR>(std::move(options), std::ref(a));
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

TEST_CASE("PassRegistry: add<P>() registers a static pass by its name; create() makes it") {
  Registry reg;
  add_basics(reg);
  CHECK(reg.contains("InferType"));
  CHECK_FALSE(reg.contains("inferType"));
  CHECK(reg.names() == std::vector<std::string>{"Canonicalize", "FoldConstant", "FuseOps", "InferType"});
  AnyPass<TestIR> p = reg.create("FoldConstant");
  CHECK(p.info().name == "FoldConstant");
  CHECK(p.info().opt_level == 2);
  const auto* rp = p.target<passinfra::RegistryPass<TestIR>>();
  REQUIRE(rp != nullptr);
  CHECK(rp->name() == "FoldConstant");
  CHECK(rp->options().empty());
  CHECK(rp->pass().target<FoldConstant>() != nullptr);
  EventLog log;
  passinfra::PassContext<TestIR> ctx;
  TestIR out = p(TestIR{&log}, ctx);
  CHECK(out.trail == std::vector<std::string>{"FoldConstant"});
}

TEST_CASE("PassRegistry: global() is one registry per IR type; instances are independent") {
  Registry& g = Registry::global();
  CHECK(&g == &Registry::global());
  g.add<TestPass<"RegistryTestGlobalOnly">>();
  CHECK(g.contains("RegistryTestGlobalOnly"));
  Registry local;
  CHECK_FALSE(local.contains("RegistryTestGlobalOnly"));
  CHECK(local.names().empty());
}

TEST_CASE("PassRegistry: a factory gets the given options checked, with the defaults of the others") {
  Registry reg;
  PassOptions seen;
  reg.add("Tune",
          [&seen](const PassOptions& options) {
            seen = options;
            return FuseOps{passinfra::get_option<int>(options, "level")};
          },
          {{"level", ConfigType::integer, std::int64_t{2}},
           {"ratio", ConfigType::floating, 0.5},
           {"mode", ConfigType::string, std::string("fast")},
           {"flag", ConfigType::boolean, false},
           {"targets", ConfigType::string_list, passinfra::StringList{}},
           {"seed", ConfigType::integer, std::nullopt}});
  (void)reg.create("Tune", {{"seed", 1}});
  CHECK(seen == PassOptions{{"level", std::int64_t{2}},
                            {"ratio", 0.5},
                            {"mode", std::string("fast")},
                            {"flag", false},
                            {"targets", passinfra::StringList{}},
                            {"seed", std::int64_t{1}}});
  // An integer given for a double option is converted; the record keeps what was given.
  AnyPass<TestIR> p =
      reg.create("Tune", {{"seed", 3}, {"level", 4}, {"ratio", 1}, {"targets", passinfra::StringList{"cpu", "gpu"}}});
  CHECK(std::get<double>(seen.at("ratio")) == 1.0);
  CHECK(std::get<passinfra::StringList>(seen.at("targets")) == passinfra::StringList{"cpu", "gpu"});
  const auto* rp = p.target<passinfra::RegistryPass<TestIR>>();
  REQUIRE(rp != nullptr);
  CHECK(std::get<std::int64_t>(rp->options().at("ratio")) == 1);
  CHECK(rp->text() == "Tune(level=4,ratio=1,seed=3,targets=[\"cpu\",\"gpu\"])");
  CHECK(rp->pass().target<FuseOps>()->level == 4);
}

TEST_CASE("PassRegistry: FuseOps(fuse_opt_level=N) runs with the level it was created with") {
  Registry reg;
  add_basics(reg);
  EventLog log;
  passinfra::PassContext<TestIR> ctx;
  TestIR out = reg.create("FuseOps", {{"fuse_opt_level", 3}})(TestIR{&log}, ctx);
  CHECK(out.value == 3);
  out = reg.create("FuseOps")(TestIR{&log}, ctx);
  CHECK(out.value == 2);
  CHECK(log.events == std::vector<std::string>{"FuseOps(3)", "FuseOps(2)"});
}

TEST_CASE("PassRegistry: an unknown name names the input, says a registered name was expected, and suggests") {
  Registry reg;
  add_basics(reg);
  const auto msg = error_of([&] { (void)reg.create("FoldConstnat"); });
  CHECK(has(msg, "unknown pass name 'FoldConstnat'"));
  CHECK(has(msg, "expected a registered pass name"));
  CHECK(has(msg, "the closest registered names: 'FoldConstant'"));
  Registry empty;
  const auto msg2 = error_of([&] { (void)empty.create("InferType"); });
  CHECK(has(msg2, "unknown pass name 'InferType'"));
  CHECK(has(msg2, "no names are registered"));
  CHECK_THROWS_AS((void)reg.options("Nope"), passinfra::Error);
}

TEST_CASE("PassRegistry: an unknown option key names the pass and the key, and suggests the pass's options") {
  Registry reg;
  add_basics(reg);
  const auto msg = error_of([&] { (void)reg.create("FuseOps", {{"fuse_opt_lvl", 1}}); });
  CHECK(has(msg, "pass 'FuseOps' has no option 'fuse_opt_lvl'"));
  CHECK(has(msg, "expected an option of 'FuseOps'"));
  CHECK(has(msg, "the closest registered options: 'fuse_opt_level'"));
  const auto msg2 = error_of([&] { (void)reg.create("InferType", {{"level", 1}}); });
  CHECK(has(msg2, "pass 'InferType' takes no options, but was given option 'level'"));
}

TEST_CASE("PassRegistry: a wrong option type names pass, key, the expected and the given type") {
  Registry reg;
  add_basics(reg);
  const auto msg = error_of([&] { (void)reg.create("FuseOps", {{"fuse_opt_level", "two"}}); });
  CHECK(has(msg, "pass 'FuseOps': option 'fuse_opt_level' expects an integer, but was given a string (\"two\")"));
  const auto msg2 = error_of([&] { (void)reg.create("FuseOps", {{"fuse_opt_level", 2.5}}); });
  CHECK(has(msg2, "expects an integer, but was given a double (2.5)"));
}

TEST_CASE("PassRegistry: an option without a default must be given") {
  Registry reg;
  reg.add("Unroll", [](const PassOptions& o) { return FuseOps{passinfra::get_option<int>(o, "factor")}; },
          {{"factor", ConfigType::integer}});
  const auto msg = error_of([&] { (void)reg.create("Unroll"); });
  CHECK(has(msg, "pass 'Unroll' requires option 'factor' (an integer), which was not given"));
  CHECK(has(msg, "expected Unroll(factor=...)"));
  const AnyPass<TestIR> p = reg.create("Unroll", {{"factor", 4}});
  CHECK(p.target<passinfra::RegistryPass<TestIR>>()->pass().target<FuseOps>()->level == 4);
}

TEST_CASE("PassRegistry: registering a name twice is a no-op for the same registration, else an error") {
  Registry reg;
  reg.add<InferType>();
  CHECK_NOTHROW(reg.add<InferType>());
  auto msg = error_of([&] { reg.add<TestPass<"InferType", 3>>(); });
  CHECK(has(msg, "pass 'InferType' is already registered"));
  CHECK(has(msg, "expected each name to be registered once"));
  // The same function pointer, or the same lambda, again: fine; another one: an error.
  reg.add("FuseOps", fuse_factory, fuse_specs());
  CHECK_NOTHROW(reg.add("FuseOps", fuse_factory, fuse_specs()));
  CHECK_NOTHROW(reg.add("FuseOps", Registry::Factory(fuse_factory), fuse_specs()));
  CHECK(has(error_of([&] { reg.add("FuseOps", other_factory, fuse_specs()); }), "'FuseOps' is already registered"));
  CHECK(has(error_of([&] { reg.add("FuseOps", fuse_factory); }), "'FuseOps' is already registered"));
  CHECK(has(error_of([&] { reg.add<TestPass<"FuseOps">>(); }), "'FuseOps' is already registered"));
  for (int i = 0; i < 2; ++i) reg.add("Loop", [](const PassOptions&) { return FuseOps{}; });
  CHECK(has(error_of([&] { reg.add("Loop", [](const PassOptions&) { return FuseOps{}; }); }),
            "'Loop' is already registered"));
}

TEST_CASE("PassRegistry: add() checks the name, the option keys and the defaults") {
  Registry reg;
  auto factory = [](const PassOptions&) { return FuseOps{}; };
  CHECK(has(error_of([&] { reg.add("my pass", factory); }),
            "'my pass' is not a valid pass name; expected a name of the form [A-Za-z_][A-Za-z0-9_.]*"));
  CHECK(has(error_of([&] { reg.add("", factory); }), "'' is not a valid pass name"));
  CHECK(has(error_of([&] { reg.add("sequential", factory); }), "'sequential' is reserved"));
  CHECK(has(error_of([&] {
              reg.add("F", factory, {{"a-b", ConfigType::integer}});
            }),
            "pass 'F': 'a-b' is not a valid option key"));
  CHECK(has(error_of([&] {
              reg.add("F", factory, {{"k", ConfigType::integer}, {"k", ConfigType::string}});
            }),
            "pass 'F': option 'k' is listed twice"));
  CHECK(has(error_of([&] {
              reg.add("F", factory, {{"k", ConfigType::integer, std::string("x")}});
            }),
            "pass 'F': the default of option 'k' is a string, but the option expects an integer"));
  CHECK(has(error_of([&] { reg.add("F", Registry::Factory{}); }), "the factory for 'F' is empty"));
  CHECK(reg.names().empty());
  // An integer default for a double option becomes a double.
  reg.add("G", factory, {{"x", ConfigType::floating, std::int64_t{1}}});
  CHECK(reg.options("G").front().default_value == passinfra::ConfigValue{1.0});
}

TEST_CASE("PassRegistry: names of required passes resolve through the registry, like required types") {
  Registry reg;
  add_basics(reg);
  reg.add<Lower>();
  AnyPass<TestIR> lower = reg.create("Lower");
  CHECK(lower.info().required.size() == 1);
  CHECK(lower.info().required[0] == "InferType");
  passinfra::DynamicSequential<TestIR> dyn{lower};
  passinfra::Sequential<LowerStatic> stat;
  const auto events = dynamic_events(dyn);
  CHECK(events == static_events(stat));
  CHECK(join(events, " / ") ==
        "A should_run sequential / A run_before_pass sequential / "
        "A should_run InferType / A run_before_pass InferType / InferType / A run_after_pass InferType / "
        "A should_run Lower / A run_before_pass Lower / Lower / A run_after_pass Lower / "
        "A run_after_pass sequential");
}

TEST_CASE("PassRegistry: a module_pass that names its requirements gets them from the registry") {
  Registry reg;
  add_basics(reg);
  reg.add("Pack", [](const PassOptions&) { return make_pack(); });
  passinfra::DynamicSequential<TestIR> dyn{reg.create("Pack")};
  using PackStatic = TestPass<"Pack", 0, passinfra::requires_passes<InferType, FoldConstant>>;
  CHECK(dynamic_events(dyn) == static_events(passinfra::Sequential<PackStatic>{}));
  // The required passes run without the PassEnabled gate, every time.
  EventLog log;
  passinfra::PassContext<TestIR> ctx({.opt_level = 0});
  passinfra::DynamicSequential<TestIR> twice{reg.create("Pack"), reg.create("Pack")};
  TestIR out = twice(TestIR{&log}, ctx);
  CHECK(out.trail ==
        std::vector<std::string>{"InferType", "FoldConstant", "Pack", "InferType", "FoldConstant", "Pack"});
}

TEST_CASE("PassRegistry: a factory returning an AnyPass of a names-only pass is resolved too") {
  Registry reg;
  add_basics(reg);
  reg.add("Pack", [](const PassOptions&) { return AnyPass<TestIR>(make_pack()); });
  // An alias: a factory returning another registry pass is not resolved twice.
  reg.add("PackAlias", [&reg](const PassOptions&) { return reg.create("Pack"); });
  EventLog log;
  passinfra::PassContext<TestIR> ctx;
  passinfra::DynamicSequential<TestIR> seq{reg.create("Pack"), reg.create("PackAlias")};
  TestIR out = seq(TestIR{&log}, ctx);
  CHECK(out.trail ==
        std::vector<std::string>{"InferType", "FoldConstant", "Pack", "InferType", "FoldConstant", "Pack"});
}

TEST_CASE("PassRegistry: passes created from static types keep their static requirements") {
  Registry reg;  // InferType is not registered: the requirement is a type, not a name
  reg.add<LowerStatic>();
  reg.add("LowerAgain", [](const PassOptions&) { return LowerStatic{}; });
  for (const char* name : {"Lower", "LowerAgain"}) {
    passinfra::DynamicSequential<TestIR> dyn{reg.create(name)};
    CHECK(dynamic_events(dyn) == static_events(passinfra::Sequential<LowerStatic>{}));
  }
}

TEST_CASE("PassRegistry: a required name that is not registered is an error naming both passes") {
  Registry reg;
  add_basics(reg);
  reg.add<NeedsMissing>();
  const auto msg = error_of([&] { (void)reg.create("NeedsMissing"); });
  CHECK(has(msg, "pass 'NeedsMissing' requires 'Canonicalise', which is not registered"));
  CHECK(has(msg, "expected a registered pass name"));
  CHECK(has(msg, "the closest registered names: 'Canonicalize'"));
  // A required pass that cannot be made with default options.
  Registry reg2;
  reg2.add<Lower>();
  reg2.add("InferType", [](const PassOptions&) { return InferType{}; }, {{"mode", ConfigType::string}});
  const auto msg2 = error_of([&] { (void)reg2.create("Lower"); });
  CHECK(has(msg2,
            "pass 'Lower' requires 'InferType', which cannot be created: "
            "pass 'InferType' requires option 'mode' (a string), which was not given"));
}

TEST_CASE("PassRegistry: requirements resolve one level deep, so passes may name each other") {
  Registry reg;
  reg.add<Ping>();
  reg.add<Pong>();
  EventLog log;
  passinfra::PassContext<TestIR> ctx;
  passinfra::DynamicSequential<TestIR> seq{reg.create("Ping")};
  (void)seq(TestIR{&log}, ctx);
  CHECK(log.events == std::vector<std::string>{"Pong", "Ping"});
}

TEST_CASE("PassRegistry: describe() lists every pass with its options and description") {
  Registry reg;
  add_basics(reg);
  reg.add("Tune", [](const PassOptions&) { return FuseOps{}; },
          {{"ratio", ConfigType::floating, 0.5}, {"targets", ConfigType::string_list}});
  CHECK(reg.describe() ==
        "Canonicalize\n"
        "FoldConstant\n"
        "FuseOps(fuse_opt_level: integer = 2) - Fuse operators.\n"
        "InferType - Infer the types.\n"
        "Tune(ratio: double = 0.5, targets: list of strings)\n");
}

TEST_CASE("PassRegistry: get_option reads an option as its type, and says what is wrong") {
  const PassOptions options{{"n", std::int64_t{3}}, {"s", std::string("x")}};
  CHECK(passinfra::get_option<int>(options, "n") == 3);
  CHECK(passinfra::get_option<double>(options, "n") == 3.0);
  CHECK(passinfra::get_option<std::string>(options, "s") == "x");
  CHECK(has(error_of([&] { (void)passinfra::get_option<int>(options, "m"); }),
            "option 'm' is not set; expected one of the options given: 'n', 's'"));
  CHECK(has(error_of([&] { (void)passinfra::get_option<bool>(options, "s"); }),
            "option 's' holds a string, but was read as a bool"));
}

TEST_CASE("PassRegistry: concurrent add and create from several threads") {
  Registry reg;
  add_basics(reg);
  std::atomic<int> created{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&reg, &created, t] {
      for (int i = 0; i < 50; ++i) {
        reg.add("Pass_" + std::to_string(t) + "_" + std::to_string(i), fuse_factory, fuse_specs());
        reg.add<InferType>();
        (void)reg.create("FuseOps", {{"fuse_opt_level", i}});
        (void)reg.create("Pass_" + std::to_string(t) + "_" + std::to_string(i));
        (void)reg.names();
        created += 2;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(created == 400);
  CHECK(reg.names().size() == 4 + 200);
}

TEST_CASE("PassRegistry: a factory returning an AnyPass of a static pass keeps its static requirements") {
  Registry reg;  // InferType is not registered
  reg.add("Lower", [](const PassOptions&) { return AnyPass<TestIR>(LowerStatic{}); });
  passinfra::DynamicSequential<TestIR> dyn{reg.create("Lower")};
  CHECK(dynamic_events(dyn) == static_events(passinfra::Sequential<LowerStatic>{}));
}
