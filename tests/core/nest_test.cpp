// Nest<Unit, Ps...> on the static layer, serial (docs/spec.md §11.1-§11.3,
// §11.6 serial, §11.9 current_pipeline): event order with the pipeline hooks,
// the snapshot rule, units the IR leaves alone, the gate, failures, names.
#include <doctest/doctest.h>

#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/instruments/crash_reproducer.hpp>

#include "support/unit_ir.hpp"

using namespace pitest;
namespace pi = passinfra;

namespace {

using FnNest = pi::Nest<UFunc, UStep<"P">>;

struct SeesSiblings {
  static constexpr pi::PassInfo info{"SeesSiblings", 0};
  UFunc transform(UFunc f, auto& ctx) const {
    int seen = 0;
    for (const auto& g : ctx.parent().functions) seen += g.value;
    f.trail.push_back("siblings=" + std::to_string(seen));
    f.value += 10;
    return f;
  }
};

struct NeedsR {
  static constexpr pi::PassInfo info{"NeedsR", 0};
  using required = pi::requires_passes<UStep<"R">>;
  UFunc transform(UFunc f, auto& ctx) const {
    ctx.parent().log->add("NeedsR(" + std::string(ctx.unit_name()) + ")");
    return f;
  }
};

struct Looks {
  static constexpr pi::PassInfo info{"Looks", 0};
  UFunc transform(UFunc f, auto& ctx) const {
    const pi::PipelineInfo* p = pi::current_pipeline();
    REQUIRE(p != nullptr);
    CHECK(p == &ctx.pipeline());
    CHECK(p->nest.name == "fn");
    CHECK(p->unit_name == "@" + f.name);
    CHECK(p->unit_index == ctx.unit_index());
    CHECK(p->unit_count == 2);
    CHECK(p->thread == pi::thread_ordinal());
    CHECK(p->parent_thread == pi::thread_ordinal());
    CHECK(p->parent == nullptr);
    CHECK(p->nest_run != 0);
    f.trail.push_back(std::to_string(p->nest_run));
    return f;
  }
};

struct ThrowsBeforePipeline {
  EventLog* log;
  void run_before_pipeline(const UFunc&, const pi::PipelineInfo&) {
    log->add("X.before_pipeline!!!");
    throw_test_error(41, "X failed");
  }
  void run_after_pipeline_failed(const pi::PipelineInfo&, std::exception_ptr) { log->add("X.pipeline_failed"); }
};

struct Declared {
  static constexpr bool thread_safe = true;
  void run_before_pass(const UFunc&, const pi::PassInfo&) {}
};
struct PerObject {
  bool safe = false;
  bool thread_safe() const { return safe; }
  void run_before_pass(const UFunc&, const pi::PassInfo&) {}
};
struct Undeclared {
  void run_before_pass(const UFunc&, const pi::PassInfo&) {}
};
struct ModuleOnly {
  void run_before_pass(const UModule&, const pi::PassInfo&) {}
};

struct Anything {};

std::vector<std::string> run_with_hooks(const auto& pass, UModule m, pi::PassContextOptions options = {},
                                        std::string* result = nullptr) {
  EventLog& log = *m.log;
  UHooks a{"A", &log}, b{"B", &log};
  auto ctx = pi::make_pass_context<UModule>(std::move(options), std::ref(a), std::ref(b));
  UModule out = pi::run(pass, std::move(m), ctx);
  if (result) *result = describe(out);
  return log.events;
}

// A pass over UFunc used outside any nest, which fails.
struct UThrowFlat {
  static constexpr pi::PassInfo info{"Flat", 0};
  UFunc transform(UFunc, auto&) const { throw TestError(7, "flat failed"); }
};

// Reads the unit fields at run time only, as the lazily written PipelineInfo
// of a serial nest without pipeline hooks must give them: first from two
// threads of the pass's own at once (before anything on the nest's thread
// asked), then here.
struct AsksLate {
  static constexpr pi::PassInfo info{"AsksLate", 0};
  UFunc transform(UFunc f, auto& ctx) const {
    std::string names[2];
    std::size_t indices[2] = {98, 99};
    std::thread first([&] {
      names[0] = std::string(ctx.unit_name());
      indices[0] = ctx.unit_index();
    });
    std::thread second([&] {
      indices[1] = ctx.pipeline().unit_index;
      names[1] = std::string(ctx.pipeline().unit_name);
    });
    first.join();
    second.join();
    CHECK(names[0] == names[1]);
    CHECK(indices[0] == indices[1]);
    f.trail.push_back(names[0] + "#" + std::to_string(indices[0]));
    const pi::PipelineInfo* p = pi::current_pipeline();
    REQUIRE(p != nullptr);
    f.trail.push_back(std::string(p->unit_name) + "#" + std::to_string(p->unit_index));
    return f;
  }
};

// run_before_pass on units reading current_pipeline(): no pipeline hook, so the
// info the hook finds is the lazily written one.
struct PassHookAsks {
  std::vector<std::string>* seen;
  void run_before_pass(const UFunc& f, const pi::PassInfo& info) {
    const pi::PipelineInfo* p = pi::current_pipeline();
    seen->push_back(std::string(info.name) + ":" + f.name + "=" + (p ? std::string(p->unit_name) : "null") + "#" +
                    std::to_string(p ? p->unit_index : 99));
  }
};

// Two levels of units: a program of modules of functions.
struct UProgram {
  std::vector<UModule> modules;
};

// A module-level pass of the outer nest: the module unit's name and index.
struct ModuleNames {
  static constexpr pi::PassInfo info{"ModuleNames", 0};
  UModule transform(UModule m, auto& ctx) const {
    m.version = static_cast<int>(ctx.unit_index()) * 100 + static_cast<int>(ctx.unit_name().size());
    return m;
  }
};
// A function pass of the inner nest: its unit and the enclosing one, through PipelineInfo::parent.
struct ChainNames {
  static constexpr pi::PassInfo info{"ChainNames", 0};
  UFunc transform(UFunc f, auto& ctx) const {
    const pi::PipelineInfo* p = pi::current_pipeline();
    REQUIRE(p != nullptr);
    REQUIRE(p->parent != nullptr);
    f.trail.push_back(std::string(p->parent->unit_name) + "#" + std::to_string(p->parent->unit_index) + ">" +
                      std::string(p->unit_name) + "#" + std::to_string(p->unit_index));
    f.trail.push_back(std::string(ctx.outer().unit_name()));
    return f;
  }
};

}  // namespace

template <>
struct passinfra::unit_traits<UProgram, pitest::UModule> {
  static std::vector<passinfra::UnitSlot<pitest::UModule>> units(const UProgram& p) {
    std::vector<passinfra::UnitSlot<pitest::UModule>> out;
    for (std::size_t i = 0; i < p.modules.size(); ++i) out.push_back({"@m" + std::to_string(i), p.modules[i]});
    return out;
  }
  static UProgram replace_units(UProgram p, std::vector<passinfra::UnitSlot<pitest::UModule>> slots) {
    for (std::size_t i = 0; i < p.modules.size(); ++i) p.modules[i] = std::move(slots.at(i).ir);
    return p;
  }
};

TEST_CASE("nest: event order of SPEC §11.3 (nest N over f0, f1, child P, instruments [A, B])") {
  EventLog log;
  std::string result;
  const auto events = run_with_hooks(FnNest{}, make_umodule(&log, {"f0", "f1"}), {}, &result);
  const std::vector<std::string> expected{"A.should_run(M,function)",
                                          "B.should_run(M,function)",
                                          "A.before(M,function)",
                                          "B.before(M,function)",
                                          "A.before_pipeline(f0,0)",
                                          "B.before_pipeline(f0,0)",
                                          "A.should_run(f0,P)",
                                          "B.should_run(f0,P)",
                                          "A.before(f0,P)",
                                          "B.before(f0,P)",
                                          "P(@f0)",
                                          "A.after(f0,P)",
                                          "B.after(f0,P)",
                                          "A.after_pipeline(f0,0)",
                                          "B.after_pipeline(f0,0)",
                                          "A.before_pipeline(f1,1)",
                                          "B.before_pipeline(f1,1)",
                                          "A.should_run(f1,P)",
                                          "B.should_run(f1,P)",
                                          "A.before(f1,P)",
                                          "B.before(f1,P)",
                                          "P(@f1)",
                                          "A.after(f1,P)",
                                          "B.after(f1,P)",
                                          "A.after_pipeline(f1,1)",
                                          "B.after_pipeline(f1,1)",
                                          "A.after(M,function)",
                                          "B.after(M,function)"};
  CHECK(events == expected);
  CHECK(result == "f0:1:P@v0,;f1:1:P@v0,;");
}

TEST_CASE("nest: every unit sees the parent as the nest began; units are replaced after all ran (SPEC §11.2)") {
  // A parent-level pass before the nest bumps the version; the nest's units all see that
  // version, and a unit pass cannot see a sibling's result.
  EventLog log;
  auto ctx = pi::make_pass_context<UModule>({});
  const pi::Sequential<UModuleStep<"Bump">, pi::Nest<UFunc, UStep<"P">, SeesSiblings>> seq;
  const UModule out = pi::run(seq, make_umodule(&log, {"f", "g", "h"}), ctx);
  CHECK(describe(out) == "f:11:P@v1,siblings=0,;g:11:P@v1,siblings=0,;h:11:P@v1,siblings=0,;");
  CHECK(out.version == 1);
}

TEST_CASE("nest: functions the IR does not list are never seen (SPEC §11.1)") {
  EventLog log;
  std::string result;
  const auto events = run_with_hooks(FnNest{}, make_umodule(&log, {"f", "!prim", "g"}), {}, &result);
  CHECK(result == "f:1:P@v0,;prim:0:;g:1:P@v0,;");
  for (const auto& e : events) CHECK(e.find("prim") == std::string::npos);
  CHECK(std::count(events.begin(), events.end(), "A.before_pipeline(g,1)") == 1);  // indexes count listed units
}

TEST_CASE("nest: no units -> only the nest's own events; no children -> the pipeline hooks still run") {
  {
    EventLog log;
    const auto events = run_with_hooks(FnNest{}, make_umodule(&log, {"!only_primitive"}));
    CHECK(events == std::vector<std::string>{"A.should_run(M,function)", "B.should_run(M,function)",
                                             "A.before(M,function)", "B.before(M,function)", "A.after(M,function)",
                                             "B.after(M,function)"});
  }
  {
    EventLog log;
    std::string result;
    const auto events = run_with_hooks(pi::Nest<UFunc>{}, make_umodule(&log, {"f"}), {}, &result);
    CHECK(events == std::vector<std::string>{"A.should_run(M,function)", "B.should_run(M,function)",
                                             "A.before(M,function)", "B.before(M,function)", "A.before_pipeline(f,0)",
                                             "B.before_pipeline(f,0)", "A.after_pipeline(f,0)", "B.after_pipeline(f,0)",
                                             "A.after(M,function)", "B.after(M,function)"});
    CHECK(result == "f:0:;");
  }
}

TEST_CASE("nest: the gate of SPEC §2/§4 at unit level; disabled_pass names the nest itself") {
  using N = pi::Nest<UFunc, UStep<"High", 3>, NeedsR, UStep<"Off">>;
  {
    EventLog log;
    auto ctx = pi::make_pass_context<UModule>({.opt_level = 2, .disabled_pass = {"Off"}});
    const pi::Sequential<N> seq;
    (void)pi::run(seq, make_umodule(&log, {"f"}), ctx);
    // High is above opt_level 2, Off is disabled; R runs before NeedsR, ungated.
    CHECK(log.events == std::vector<std::string>{"R(@f)", "NeedsR(@f)"});
  }
  {
    EventLog log;
    UHooks a{"A", &log};
    auto ctx = pi::make_pass_context<UModule>({.disabled_pass = {"function"}}, std::ref(a));
    const pi::Sequential<N, UModuleStep<"After">> seq;
    (void)pi::run(seq, make_umodule(&log, {"f"}), ctx);
    // The nest is skipped entirely: no hook of any kind for it or inside it.
    CHECK(log.events == std::vector<std::string>{"A.should_run(M,sequential)", "A.before(M,sequential)",
                                                 "A.should_run(M,After)", "A.before(M,After)", "After",
                                                 "A.after(M,After)", "A.after(M,sequential)"});
  }
}

TEST_CASE("nest: a failing unit ends the nest serially; failed hooks in order; the same exception object") {
  EventLog log;
  UHooks a{"A", &log}, b{"B", &log};
  auto ctx = pi::make_pass_context<UModule>({}, std::ref(a), std::ref(b));
  const pi::Nest<UFunc, UStep<"P">, UThrow<"T", "@g">> n;
  const TestError* thrown = nullptr;
  try {
    (void)pi::run(n, make_umodule(&log, {"f", "g", "h"}), ctx);
  } catch (const TestError& e) {
    thrown = &e;
    CHECK(e.id == 40);
    CHECK(std::string(e.what()) == "T failed on g");
  }
  REQUIRE(thrown != nullptr);
  const std::vector<std::string> tail{"A.should_run(g,T)",
                                      "B.should_run(g,T)",
                                      "A.before(g,T)",
                                      "B.before(g,T)",
                                      "T(@g)",
                                      "A.failed(T)",
                                      "B.failed(T)",
                                      "A.pipeline_failed(@g,1)",
                                      "B.pipeline_failed(@g,1)",
                                      "A.failed(function)",
                                      "B.failed(function)"};
  REQUIRE(log.events.size() >= tail.size());
  CHECK(std::vector<std::string>(log.events.end() - static_cast<std::ptrdiff_t>(tail.size()), log.events.end()) ==
        tail);
  for (const auto& e : log.events) CHECK(e.find("(h") == std::string::npos);  // h never started
}

TEST_CASE("nest: run_before_pipeline that throws: failed only for the instruments whose hook returned") {
  EventLog log;
  UHooks a{"A", &log}, c{"C", &log};
  ThrowsBeforePipeline x{&log};
  auto ctx = pi::make_pass_context<UModule>({}, std::ref(a), std::ref(x), std::ref(c));
  CHECK_THROWS_AS((void)pi::run(FnNest{}, make_umodule(&log, {"f"}), ctx), TestError);
  const std::vector<std::string> expected{
      "A.should_run(M,function)", "C.should_run(M,function)", "A.before(M,function)",
      "C.before(M,function)",     "A.before_pipeline(f,0)",   "X.before_pipeline!!!",
      "A.pipeline_failed(@f,0)",  "A.failed(function)",       "C.failed(function)"};
  CHECK(log.events == expected);
}

TEST_CASE("nest: a hook written for the parent type only is not called for units") {
  EventLog log;
  ModuleOnlyHooks only{&log};
  auto ctx = pi::make_pass_context<UModule>({}, std::ref(only));
  (void)pi::run(FnNest{}, make_umodule(&log, {"f"}), ctx);
  CHECK(log.events == std::vector<std::string>{"M-only.before(function)", "P(@f)"});
}

TEST_CASE("nest: names, options and children; nest<Unit>(...) from values") {
  const FnNest plain;
  CHECK(plain.info().name == "function");
  CHECK(plain.info().opt_level == 0);
  CHECK_FALSE(plain.options().serial);
  CHECK(FnNest::size == 1);
  const auto n =
      pi::nest<UFunc>(pi::PassInfo{"FunctionOpts", 1}, pi::NestOptions{.serial = true}, UStep<"A">{}, UStep<"B">{});
  static_assert(std::is_same_v<std::remove_const_t<decltype(n)>, pi::Nest<UFunc, UStep<"A">, UStep<"B">>>);
  CHECK(n.info().name == "FunctionOpts");
  CHECK(n.info().opt_level == 1);
  CHECK(n.options().serial);
  CHECK(std::get<1>(n.passes()).info.name == "B");
  CHECK(n.child<0>().info.name == "A");
  CHECK(pi::nest<UFunc>(pi::NestOptions{.serial = true}).options().serial);
  CHECK(pi::nest<UFunc>(pi::PassInfo{"fn", 0}, UStep<"A">{}).info().name == "fn");

  CHECK(pi::unit_kind_name<UFunc>() == "function");
  CHECK(pi::unit_kind_name<Anything>() == "nest");
  static_assert(pi::NestableIR<UModule, UFunc>);
  static_assert(!pi::NestableIR<UModule, Anything>);

  // A custom opt_level gates the nest as a child.
  EventLog log;
  auto ctx = pi::make_pass_context<UModule>({.opt_level = 0});
  const pi::Sequential<decltype(n)> seq(n);
  CHECK(describe(pi::run(seq, make_umodule(&log, {"f"}), ctx)) == "f:0:;");
}

TEST_CASE("nest: current_pipeline() inside a unit pipeline names the unit; null outside (SPEC §11.9)") {
  CHECK(pi::current_pipeline() == nullptr);
  EventLog log;
  auto ctx = pi::make_pass_context<UModule>({});
  const auto n = pi::nest<UFunc>(pi::PassInfo{"fn", 0}, Looks{});
  const UModule first = pi::run(n, make_umodule(&log, {"f", "g"}), ctx);
  const UModule second = pi::run(n, make_umodule(&log, {"f", "g"}), ctx);
  CHECK(pi::current_pipeline() == nullptr);
  // One id per nest run: both units of a run share it, two runs differ.
  CHECK(first.functions[0].trail == first.functions[1].trail);
  CHECK(first.functions[0].trail != second.functions[0].trail);
}

TEST_CASE("nest: with InstrumentSet<> the result is the hand-written loop's") {
  EventLog log;
  auto ctx = pi::make_pass_context<UModule>({});
  const pi::Nest<UFunc, UStep<"A">, UStep<"B">> n;
  const UModule by_nest = n(make_umodule(&log, {"f", "!p", "g"}), ctx);
  // By hand: units(), the calls, replace_units().
  UModule m = make_umodule(&log, {"f", "!p", "g"});
  auto slots = pi::unit_traits<UModule, UFunc>::units(m);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    pi::PipelineInfo info{n.info(), slots[i].name, i, slots.size()};
    pi::UnitContext<UModule, UFunc, decltype(ctx)> uctx(ctx, m, info);
    slots[i].ir = UStep<"B">{}.transform(UStep<"A">{}.transform(std::move(slots[i].ir), uctx), uctx);
  }
  const UModule by_hand = pi::unit_traits<UModule, UFunc>::replace_units(std::move(m), std::move(slots));
  CHECK(describe(by_nest) == describe(by_hand));
  CHECK(describe(by_nest) == "f:2:A@v0,B@v0,;p:0:;g:2:A@v0,B@v0,;");
}

TEST_CASE("nest: thread-safety declarations (SPEC §11.8)") {
  static_assert(pi::ThreadSafeInstrument<Declared>);
  static_assert(!pi::ThreadSafeInstrument<PerObject>);
  static_assert(!pi::ThreadSafeInstrument<Undeclared>);
  CHECK(pi::instrument_thread_safe(PerObject{true}));
  CHECK_FALSE(pi::instrument_thread_safe(PerObject{false}));
  CHECK_FALSE(pi::instrument_thread_safe(Undeclared{}));

  using Safe = pi::InstrumentSet<Declared, ModuleOnly>;
  static_assert(Safe::statically_thread_safe<UFunc>);
  static_assert(!pi::InstrumentSet<Declared, Undeclared>::statically_thread_safe<UFunc>);
  pi::InstrumentSet<Declared, ModuleOnly, PerObject, Undeclared> set(Declared{}, ModuleOnly{}, PerObject{true},
                                                                     Undeclared{});
  CHECK(set.first_unsafe_for_units<UFunc>().find("Undeclared") != std::string::npos);
  pi::InstrumentSet<PerObject, Undeclared> set2(PerObject{false}, Undeclared{});
  CHECK(set2.first_unsafe_for_units<UFunc>().find("PerObject") != std::string::npos);
  Safe safe;
  CHECK(safe.first_unsafe_for_units<UFunc>().empty());
}

TEST_CASE("nest: CrashReproducer names the failing unit and writes the unit's input (SPEC 11.10)") {
  std::ostringstream out;
  passinfra::CrashReproducer repro(out, {.pipeline = "function(A,Boom)"});
  auto ctx = pi::make_pass_context<UModule>({}, std::ref(repro));
  using Failing = pi::Nest<UFunc, UStep<"A">, UThrow<"Boom", "@g">>;
  CHECK_THROWS_AS(pi::run(Failing{}, make_umodule(nullptr, {"f", "g", "h"}), ctx), TestError);
  REQUIRE(repro.reports() == 1);  // for the unit pass, not again for the nest around it
  const std::string text = out.str();
  CHECK(text.rfind("// passinfra crash reproducer\n// pass: Boom\n// unit: @g\n// error: ", 0) == 0);
  const passinfra::CrashReport report = passinfra::parse_crash_report(text);
  CHECK(report.pass == "Boom");
  CHECK(report.unit == "@g");
  CHECK(report.pipeline == "function(A,Boom)");
  CHECK(report.ir == "g 1");  // the unit as Boom got it: after A, printed by ir_traits<UFunc>
  CHECK(repro.last_report() == report);
  // A failure of the parent's own pass outside any nest has no unit line.
  std::ostringstream flat;
  passinfra::CrashReproducer flat_repro(flat);
  auto flat_ctx = pi::make_pass_context<UFunc>({}, std::ref(flat_repro));
  CHECK_THROWS_AS(pi::run(UThrowFlat{}, UFunc{"g", 0, {}, false}, flat_ctx), TestError);
  CHECK(flat.str().find("unit:") == std::string::npos);
  CHECK(passinfra::parse_crash_report(flat.str()).unit.empty());
}

TEST_CASE("nest: serially without pipeline hooks the unit fields are exact whenever read, from any thread") {
  EventLog log;
  std::vector<std::string> seen;
  PassHookAsks hook{&seen};
  auto ctx = pi::make_pass_context<UModule>({}, std::ref(hook));
  using Set = std::remove_cvref_t<decltype(ctx.instrument_set())>;
  static_assert(!Set::has_run_before_pipeline<UFunc> && !Set::has_run_after_pipeline<UFunc> &&
                !Set::has_run_after_pipeline_failed);
  const pi::Nest<UFunc, UStep<"A">, AsksLate> n;
  const UModule out = pi::run(n, make_umodule(&log, {"f", "!p", "g", "h"}), ctx);
  CHECK(describe(out) == "f:1:A@v0,@f#0,@f#0,;p:0:;g:1:A@v0,@g#1,@g#1,;h:1:A@v0,@h#2,@h#2,;");
  CHECK(seen == std::vector<std::string>{"A:f=@f#0", "AsksLate:f=@f#0", "A:g=@g#1", "AsksLate:g=@g#1", "A:h=@h#2",
                                         "AsksLate:h=@h#2"});
  CHECK(pi::current_pipeline() == nullptr);

  // Without instruments, a unit whose passes never ask, then one that asks late.
  auto bare = pi::make_pass_context<UModule>({});
  const pi::Nest<UFunc, UStep<"A">, UStep<"B">, AsksLate> three;
  CHECK(describe(pi::run(three, make_umodule(&log, {"f", "g"}), bare)) ==
        "f:2:A@v0,B@v0,@f#0,@f#0,;g:2:A@v0,B@v0,@g#1,@g#1,;");

  // Nests within nests: the enclosing unit's fields, through `parent` and ctx.outer().
  const auto nested = pi::nest<UModule>(ModuleNames{}, pi::nest<UFunc>(ChainNames{}));
  auto program_ctx = pi::make_pass_context<UProgram>({});
  UProgram program{{make_umodule(&log, {"f", "g"}), make_umodule(&log, {"h"}), make_umodule(&log, {"k"})}};
  const UProgram result = pi::run(nested, std::move(program), program_ctx);
  REQUIRE(result.modules.size() == 3);
  CHECK(result.modules[0].version == 3);
  CHECK(result.modules[2].version == 203);
  CHECK(describe(result.modules[0]) == "f:0:@m0#0>@f#0,@m0,;g:0:@m0#0>@g#1,@m0,;");
  CHECK(describe(result.modules[1]) == "h:0:@m1#1>@h#0,@m1,;");
  CHECK(describe(result.modules[2]) == "k:0:@m2#2>@k#0,@m2,;");
}
