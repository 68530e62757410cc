// Property test: random scenarios (fixed seed) through the dynamic layer, a
// fixed family of static shapes and the two mixed, compared with the reference
// model of SPEC §2-§5 (tests/reliability/reference_model.hpp): events, the
// escaping exception (type and identity), the instruments each context holds
// afterwards, the §5 log lines, the IR, and current() afterwards.
//
// Reproduce one scenario:  PASSINFRA_PROPERTY_SEED=<seed> PASSINFRA_PROPERTY_ONLY=<index>
//                          build/dev/tests/passinfra_tests -tc='reliability: *'
// More scenarios:          PASSINFRA_PROPERTY_COUNT=<n>
// The default count is PASSINFRA_PROPERTY_SCENARIOS (a macro): 20,000 -- half
// free-form (dynamic layer), half static shapes (static layer, dynamic layer, and
// the static pipeline erased into an AnyPass) -- or 10,000 under a sanitizer.
//
// A scenario (reference_model.hpp): a pipeline tree (passes with names, opt_levels
// and required passes, Sequentials, nested runs from inside bodies -- under the
// same context or inside a scope of another context, maybe caught by the body),
// contexts (opt_level, required_pass, disabled_pass, instruments with any subset of
// the six hooks and should_run vetoes), a mode (scope via enter() or with(), no
// scope, override_instruments on the thread's default context, override inside a
// scope, a scope entered twice) and a fault plan (the k-th call of a hook of an
// instrument, or the k-th run of a pass body, throws -- a std::exception or not).
// The static layer uses a fixed family of pre-instantiated shapes (Shape0..5:
// single pass, Sequentials with required passes, nested Sequentials, bodies running
// static pipelines, a static Sequential holding an AnyPass) under static contexts
// of six instrument families (none, one, three static with different hook sets, a
// DynamicInstruments list between static ones, only a list); the pass types take
// their names, opt_levels and behaviour from the scenario at run time.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "reliability/reference_model.hpp"
#include "support/test_ir.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PASSINFRA_PROPERTY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PASSINFRA_PROPERTY_SANITIZED 1
#endif
#endif

#ifndef PASSINFRA_PROPERTY_SCENARIOS
#ifdef PASSINFRA_PROPERTY_SANITIZED
#define PASSINFRA_PROPERTY_SCENARIOS 10000
#else
#define PASSINFRA_PROPERTY_SCENARIOS 20000
#endif
#endif

namespace {

using pitest::TestIR;
using refmodel::Hook;
using refmodel::Mode;
using refmodel::Node;
using refmodel::Outcome;
using refmodel::Scenario;
using Ctx = passinfra::PassContext<TestIR>;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::PassInfo;
using passinfra::requires_passes;

constexpr std::uint64_t kDefaultSeed = 0x5eed'2024'0007ull;

// ------------------------------------------------------------ the exceptions

struct FaultError : std::runtime_error {
  int id;
  explicit FaultError(int i) : std::runtime_error("fault#" + std::to_string(i)), id(i) {}
};
struct OddFault {  // not derived from std::exception
  int id;
};

// ------------------------------------------------------------ the harness

// What the instruments and pass bodies of one run write to, and where the
// fault plan is looked up. One per run; reached through a thread_local.
struct Harness {
  const Scenario* s = nullptr;
  std::vector<std::string> events;
  std::vector<std::array<int, refmodel::kHookCount>> counts;
  std::vector<std::pair<std::string, int>> body_counts;
  std::vector<bool> fired;
  std::vector<std::exception_ptr> thrown;  // by fault id
  std::vector<Ctx*> contexts;              // dynamic contexts by scenario index (nullptr: static)

  explicit Harness(const Scenario& scenario) : s(&scenario) {
    counts.assign(scenario.instruments.size(), {});
    fired.assign(scenario.faults.size(), false);
    thrown.assign(scenario.faults.size() + 1, nullptr);
    contexts.assign(scenario.contexts.size(), nullptr);
  }

  std::string label() const {
    const Ctx* cur = &Ctx::current();
    if (cur == &Ctx::thread_default()) return "D";
    for (std::size_t k = 0; k < contexts.size(); ++k) {
      if (contexts[k] == cur) return std::to_string(k);
    }
    return "?";
  }

  std::string id_of(const std::exception_ptr& e) const {
    for (std::size_t k = 1; k < thrown.size(); ++k) {
      if (thrown[k] && thrown[k] == e) return std::to_string(k);
    }
    return "?";
  }

  [[noreturn]] void raise(const refmodel::Fault& f) {
    std::exception_ptr e =
        f.std_exception ? std::make_exception_ptr(FaultError(f.id)) : std::make_exception_ptr(OddFault{f.id});
    thrown[static_cast<std::size_t>(f.id)] = e;
    std::rethrow_exception(e);
  }

  bool hook(int instrument, Hook h, std::string_view pass, const std::exception_ptr* failed = nullptr) {
    const auto& spec = s->instruments[static_cast<std::size_t>(instrument)];
    const int n = ++counts[static_cast<std::size_t>(instrument)][static_cast<std::size_t>(h)];
    std::string e = spec.name + " " + refmodel::hook_name(h);
    if (h == Hook::enter || h == Hook::exit) {
      e += " @" + label();
    } else {
      e += " ";
      e += pass;
    }
    if (h == Hook::after_failed) e += " ^" + (failed ? id_of(*failed) : std::string("?"));
    for (std::size_t f = 0; f < s->faults.size(); ++f) {
      const auto& fault = s->faults[f];
      if (!fired[f] && !fault.on_body && fault.instrument == instrument && fault.hook == h && fault.occurrence == n) {
        fired[f] = true;
        events.push_back(e + " !" + std::to_string(fault.id));
        raise(fault);
      }
    }
    events.push_back(std::move(e));
    if (h == Hook::should_run) return std::find(spec.veto.begin(), spec.veto.end(), pass) == spec.veto.end();
    return true;
  }

  void body(std::string_view pass) {
    int n = 0;
    for (auto& [name, count] : body_counts) {
      if (name == pass) n = ++count;
    }
    if (n == 0) {
      body_counts.emplace_back(std::string(pass), 1);
      n = 1;
    }
    std::string e = std::string(pass) + " @" + label();
    for (std::size_t f = 0; f < s->faults.size(); ++f) {
      const auto& fault = s->faults[f];
      if (!fired[f] && fault.on_body && fault.pass == pass && fault.occurrence == n) {
        fired[f] = true;
        events.push_back(e + " !" + std::to_string(fault.id));
        raise(fault);
      }
    }
    events.push_back(std::move(e));
  }
};

thread_local Harness* g_harness = nullptr;

// ------------------------------------------------------------ instruments

// SInstr<M>: has exactly the hooks whose bits are set in M (bit(Hook)).
struct InstrBase {
  Harness* h = nullptr;
  int index = 0;
  std::string_view name() const { return h->s->instruments[static_cast<std::size_t>(index)].name; }
};

template <unsigned M>
struct SInstr : InstrBase {
  void enter_pass_ctx()
    requires((M & 1u) != 0)
  {
    h->hook(index, Hook::enter, {});
  }
  void exit_pass_ctx()
    requires((M & 2u) != 0)
  {
    h->hook(index, Hook::exit, {});
  }
  bool should_run(const TestIR&, const PassInfo& info)
    requires((M & 4u) != 0)
  {
    return h->hook(index, Hook::should_run, info.name);
  }
  void run_before_pass(const TestIR&, const PassInfo& info)
    requires((M & 8u) != 0)
  {
    h->hook(index, Hook::before, info.name);
  }
  void run_after_pass(const TestIR&, const PassInfo& info)
    requires((M & 16u) != 0)
  {
    h->hook(index, Hook::after, info.name);
  }
  void run_after_pass_failed(const PassInfo& info, std::exception_ptr error)
    requires((M & 32u) != 0)
  {
    h->hook(index, Hook::after_failed, info.name, &error);
  }
};

// make_any_instrument(mask, harness, index): an owning AnyInstrument of SInstr<mask>.
using InstrumentFactory = AnyInstrument<TestIR> (*)(Harness*, int);
template <std::size_t... M>
constexpr std::array<InstrumentFactory, 64> instrument_factories(std::index_sequence<M...>) {
  return {nullptr, +[](Harness* h, int i) -> AnyInstrument<TestIR> {
            auto p = std::make_shared<SInstr<M + 1>>();
            p->h = h;
            p->index = i;
            return AnyInstrument<TestIR>(std::move(p));
          }...};
}
constexpr auto kInstrumentFactories = instrument_factories(std::make_index_sequence<63>{});

AnyInstrument<TestIR> make_any_instrument(Harness& h, int index) {
  const unsigned mask = h.s->instruments[static_cast<std::size_t>(index)].hooks;
  REQUIRE((mask > 0 && mask < 64));
  return kInstrumentFactories[mask](&h, index);
}

std::vector<AnyInstrument<TestIR>> make_list(Harness& h, const std::vector<int>& indices) {
  std::vector<AnyInstrument<TestIR>> out;
  for (int i : indices) out.push_back(make_any_instrument(h, i));
  return out;
}

passinfra::PassContextOptions options_of(const refmodel::ContextSpec& c) {
  return {.opt_level = c.opt_level, .required_pass = c.required_pass, .disabled_pass = c.disabled_pass};
}

// ------------------------------------------------------------ dynamic passes

struct LeafPass {
  std::string name;
  PassInfo info() const { return {name, 0}; }
  TestIR transform(TestIR ir, auto&) const {
    g_harness->body(name);
    ir.trail.push_back(name);
    return ir;
  }
};

// A body that records itself, then maybe runs a nested pipeline (under the
// context it was given, or inside a scope of another context, under current()).
template <class RunNested>
TestIR pass_body(const Node& n, TestIR ir, bool has_nested, RunNested&& run_nested) {
  g_harness->body(n.name);
  ir.trail.push_back(n.name);
  if (!has_nested || n.nested.empty()) return ir;
  if (!n.catch_nested) return run_nested(std::move(ir));
  TestIR saved = ir;
  try {
    return run_nested(std::move(ir));
  } catch (...) {
    return saved;
  }
}

AnyPass<TestIR> build_dynamic(const Node& n);

struct DynPass {
  const Node* node;
  std::shared_ptr<const AnyPass<TestIR>> nested;
  PassInfo info() const { return {node->name, node->opt_level}; }
  TestIR transform(TestIR ir, auto& ctx) const {
    return pass_body(*node, std::move(ir), nested != nullptr, [&](TestIR in) {
      if (node->nested_context < 0) return passinfra::run(*nested, std::move(in), ctx);
      Ctx& inner = *g_harness->contexts[static_cast<std::size_t>(node->nested_context)];
      return inner.with([&] { return (*nested)(std::move(in)); });  // under current()
    });
  }
};

AnyPass<TestIR> build_dynamic(const Node& n) {
  if (n.kind == Node::Kind::seq) {
    std::vector<AnyPass<TestIR>> children;
    for (const auto& c : n.children) children.push_back(build_dynamic(c));
    return AnyPass<TestIR>(passinfra::DynamicSequential<TestIR>(std::move(children), PassInfo{n.name, n.opt_level}));
  }
  DynPass p{&n, n.nested.empty() ? nullptr : std::make_shared<const AnyPass<TestIR>>(build_dynamic(n.nested.front()))};
  if (n.required.empty()) return AnyPass<TestIR>(std::move(p));
  std::vector<AnyPass<TestIR>> required;
  for (const auto& r : n.required) required.push_back(AnyPass<TestIR>(LeafPass{r}));
  return AnyPass<TestIR>(std::move(p), std::move(required));
}

// ------------------------------------------------------------ static shapes

// The nodes the static pass types of the current scenario stand for.
struct StaticBinding {
  std::array<const Node*, 8> pass{};
  const Node* dyn_slot = nullptr;
};
thread_local StaticBinding g_binding;

constexpr std::string_view kRNames[] = {"R0", "R1", "R2", "R3"};

template <int I>
struct RPass {
  static constexpr PassInfo info{kRNames[I], 0};
  TestIR transform(TestIR ir, auto&) const {
    g_harness->body(kRNames[I]);
    ir.trail.emplace_back(kRNames[I]);
    return ir;
  }
};
using R0 = RPass<0>;
using R1 = RPass<1>;
using R2 = RPass<2>;
using R3 = RPass<3>;

// SPass<I, Req, Inner>: name and opt_level from the scenario node bound to I;
// the body may run a default-made Inner (when the node has a nested pipeline).
template <int I, class Req = requires_passes<>, class Inner = void>
struct SPass {
  using required = Req;
  PassInfo info() const {
    const Node* n = g_binding.pass[I];
    return n ? PassInfo{n->name, n->opt_level} : PassInfo{"unbound", 0};
  }
  TestIR transform(TestIR ir, auto& ctx) const {
    const Node& n = *g_binding.pass[I];
    return pass_body(n, std::move(ir), !std::is_void_v<Inner>, [&](TestIR in) {
      if constexpr (std::is_void_v<Inner>) {
        return in;
      } else {
        return passinfra::run(Inner{}, std::move(in), ctx);
      }
    });
  }
};

using passinfra::Sequential;
// Shape 0: one pass run directly; its body may run another pass.
using Shape0 = SPass<0, requires_passes<>, SPass<1>>;
// Shape 1: a Sequential of three passes with required passes.
using Shape1 = Sequential<SPass<0>, SPass<1, requires_passes<R0>>, SPass<2, requires_passes<R1, R0>>>;
// Shape 2: a nested Sequential (custom name and opt_level at run time).
using Inner2 = Sequential<SPass<1>, SPass<2, requires_passes<R0>>>;
using Shape2 = Sequential<SPass<0, requires_passes<R2>>, Inner2, SPass<3>>;
// Shape 3: a body that runs a static Sequential (default info).
using Inner3 = Sequential<SPass<1>, SPass<2, requires_passes<R3>>>;
using Shape3 = Sequential<SPass<0, requires_passes<>, Inner3>, SPass<3, requires_passes<R1>>>;
// Shape 4: a chain of nested runs, the root run directly (its required R0 does not run).
using Shape4 = SPass<0, requires_passes<R0>, SPass<1, requires_passes<>, Sequential<SPass<2>>>>;
// Shape 5: a static Sequential holding a dynamic pipeline (AnyPass) between static passes.
using Shape5 = Sequential<SPass<0>, AnyPass<TestIR>, SPass<2, requires_passes<R2>>>;
constexpr int kShapes = 6;

// The tree templates of the shapes: pass nodes carry their static index;
// a sequential named "*" gets a random name and opt_level, one named ""
// keeps the default ("sequential", 0); a pass named "#dyn" is a random subtree.
Node tpass(int index, std::vector<std::string> required = {}, std::vector<Node> nested = {}) {
  Node n;
  n.kind = Node::Kind::pass;
  n.static_index = index;
  n.required = std::move(required);
  n.nested = std::move(nested);
  return n;
}
Node tseq(std::string name, std::vector<Node> children) {
  Node n;
  n.kind = Node::Kind::seq;
  n.name = std::move(name);
  n.children = std::move(children);
  return n;
}

Node shape_template(int shape) {
  switch (shape) {
    case 0:
      return tpass(0, {}, {tpass(1)});
    case 1:
      return tseq("*", {tpass(0), tpass(1, {"R0"}), tpass(2, {"R1", "R0"})});
    case 2:
      return tseq("*", {tpass(0, {"R2"}), tseq("*", {tpass(1), tpass(2, {"R0"})}), tpass(3)});
    case 3:
      return tseq("*", {tpass(0, {}, {tseq("", {tpass(1), tpass(2, {"R3"})})}), tpass(3, {"R1"})});
    case 4:
      return tpass(0, {"R0"}, {tpass(1, {}, {tseq("", {tpass(2)})})});
    default: {
      Node slot;
      slot.name = "#dyn";
      return tseq("*", {tpass(0), slot, tpass(2, {"R2"})});
    }
  }
}

void fill_shape(refmodel::Rng& rng, Node& n) {
  if (n.kind == Node::Kind::seq) {
    if (n.name == "*") {
      n.name = rng.pick(refmodel::sequential_names());
      n.opt_level = rng.chance(75) ? 0 : rng.below(4);
    } else {
      n.name = "sequential";
      n.opt_level = 0;
    }
    for (auto& c : n.children) {
      if (c.kind == Node::Kind::pass && c.name == "#dyn") {
        refmodel::GenerateOptions o;
        o.max_depth = 2;
        std::vector<int> path{0};
        c = refmodel::detail::random_tree(rng, 1, o, 0, path);
        c.static_index = -2;  // the dynamic slot
      } else {
        fill_shape(rng, c);
      }
    }
    return;
  }
  n.name = rng.pick(refmodel::pass_names());
  n.opt_level = rng.below(4);
  if (!n.nested.empty()) {
    if (rng.chance(35)) {
      n.nested.clear();
    } else {
      n.catch_nested = rng.chance(30);
      fill_shape(rng, n.nested.front());
    }
  }
}

// The static instrument families: the hook masks of the static elements, and
// where a DynamicInstruments list stands (kDyn).
constexpr unsigned kDyn = 0;
const std::vector<std::vector<unsigned>>& families() {
  static const std::vector<std::vector<unsigned>> f{
      {},              // InstrumentSet<>
      {31},            // one instrument with the five SPEC hooks
      {63, 3, 28},     // all six; enter/exit; should_run/before/after
      {4, 56},         // should_run; before/after/after_failed
      {31, kDyn, 50},  // a DynamicInstruments list between two static instruments
      {kDyn},          // a static context holding only a DynamicInstruments list
  };
  return f;
}
constexpr int kFamilies = 6;

struct ShapedScenario {
  Scenario s;
  int shape = 0;
  int family = 0;
  std::vector<int> dyn_items;  // scenario indices of the instruments in the family's dynamic list
};

ShapedScenario generate_shaped(refmodel::Rng& rng) {
  ShapedScenario out;
  out.shape = rng.below(kShapes);
  out.family = rng.below(kFamilies);
  Scenario& s = out.s;
  const int mode = rng.below(10);
  s.mode = mode < 5 ? Mode::scope : mode < 7 ? Mode::scope_twice : Mode::unentered;
  s.contexts.push_back(refmodel::random_context_options(rng));
  int index = 0;
  for (unsigned mask : families()[static_cast<std::size_t>(out.family)]) {
    if (mask == kDyn) {
      const int n = rng.below(3);
      for (int k = 0; k < n; ++k) {
        s.instruments.push_back(refmodel::random_instrument(rng, index));
        out.dyn_items.push_back(index);
        s.contexts[0].instruments.push_back(index++);
      }
    } else {
      s.instruments.push_back(refmodel::random_instrument(rng, index, mask));
      s.contexts[0].instruments.push_back(index++);
    }
  }
  s.root = shape_template(out.shape);
  fill_shape(rng, s.root);
  s.faults = refmodel::random_faults(rng, s, 3);
  return out;
}

void bind(const Node& n) {
  if (n.static_index >= 0) g_binding.pass[static_cast<std::size_t>(n.static_index)] = &n;
  if (n.static_index == -2) g_binding.dyn_slot = &n;
  for (const auto& c : n.children) bind(c);
  for (const auto& c : n.nested) bind(c);
}

PassInfo info_of_node(const Node& n) { return {n.name, n.opt_level}; }

// The static pipeline object of a shape, made at run time from the bound tree.
template <class F>
void with_shape(int shape, const Node& root, F&& f) {
  switch (shape) {
    case 0:
      f(Shape0{});
      break;
    case 1:
      f(Shape1(info_of_node(root), {}, {}, {}));
      break;
    case 2:
      f(Shape2(info_of_node(root), {}, Inner2(info_of_node(root.children[1]), {}, {}), {}));
      break;
    case 3:
      f(Shape3(info_of_node(root), {}, {}));
      break;
    case 4:
      f(Shape4{});
      break;
    default:
      f(Shape5(info_of_node(root), {}, build_dynamic(*g_binding.dyn_slot), {}));
      break;
  }
}

// ------------------------------------------------------------ running

struct Actual {
  std::vector<std::string> events;
  std::exception_ptr escaped;
  std::vector<std::vector<std::string>> held;
  std::vector<std::string> trail;
  std::exception_ptr second_escaped;
  std::vector<std::string> held_final;
  std::vector<std::string> trail_second;
  std::vector<std::pair<std::string, std::string>> log;  // level, message
  std::string current_after;
  std::vector<std::exception_ptr> thrown;
};

struct Capture {
  std::vector<std::pair<std::string, std::string>> lines;
  passinfra::ScopedLogSink sink{[this](passinfra::LogLevel level, std::string_view message) {
    if (level >= passinfra::LogLevel::info) lines.emplace_back(std::string(passinfra::to_string(level)), message);
  }};
};

std::vector<std::string> held_names(Ctx& ctx) {
  std::vector<std::string> out;
  for (const auto& i : ctx.instruments().items()) out.emplace_back(i.name());
  return out;
}

template <class Set>
std::vector<std::string> held_names_static(Set& set) {
  std::vector<std::string> out;
  if (!set.active()) return out;
  set.for_each_instrument([&](auto& i, std::size_t) { out.emplace_back(passinfra::instrument_name(i)); });
  return out;
}

// The run of one scenario through one root pass under one context, per mode.
template <class C, class Root>
void run_in_mode(const Scenario& s, C& ctx, const Root& root, Actual& a, bool use_with, bool use_current) {
  TestIR out;
  auto go = [&]() -> TestIR {
    if constexpr (C::is_dynamic) {
      if (use_current) return root(TestIR{});
    }
    return passinfra::run(root, TestIR{}, ctx);
  };
  try {
    switch (s.mode) {
      case Mode::scope:
      case Mode::scope_twice:
        if (use_with) {
          out = ctx.with(go);
        } else {
          auto scope = ctx.enter();
          out = go();
        }
        break;
      case Mode::unentered:
        out = passinfra::run(root, TestIR{}, ctx);
        break;
      case Mode::override_default:
      case Mode::override_in_scope:
        if constexpr (C::is_dynamic) {
          if (s.mode == Mode::override_default) {
            ctx.override_instruments(make_list(*g_harness, s.contexts[0].instruments));
            out = root(TestIR{});
          } else {
            auto scope = ctx.enter();
            ctx.override_instruments(make_list(*g_harness, s.override_list));
            out = go();
          }
        }
        break;
    }
  } catch (...) {
    a.escaped = std::current_exception();
  }
  a.trail = out.trail;
}

// The second step of Mode::scope_twice (the scope and the run again); the
// clean-up of Mode::override_default is done by run_dynamic.
template <class C, class Root>
void run_second_step(const Scenario& s, C& ctx, const Root& root, Actual& a, bool use_with) {
  if (s.mode != Mode::scope_twice) return;
  TestIR out;
  try {
    if (use_with) {
      out = ctx.with([&] { return passinfra::run(root, TestIR{}, ctx); });
    } else {
      auto scope = ctx.enter();
      out = passinfra::run(root, TestIR{}, ctx);
    }
  } catch (...) {
    a.second_escaped = std::current_exception();
  }
  a.trail_second = out.trail;
}

// The dynamic layer: PassContext<IR> + AnyInstrument; `root` is the pipeline.
Actual run_dynamic(const Scenario& s, const std::function<AnyPass<TestIR>()>& make_root, bool use_with,
                   bool use_current) {
  Harness h(s);
  g_harness = &h;
  Actual a;
  {
    Capture capture;
    std::vector<std::unique_ptr<Ctx>> owned;
    std::vector<Ctx*> ctxs;
    for (std::size_t c = 0; c < s.contexts.size(); ++c) {
      if (c == 0 && s.mode == Mode::override_default) {
        ctxs.push_back(&Ctx::thread_default());
      } else {
        owned.push_back(std::make_unique<Ctx>(
            options_of(s.contexts[c]), passinfra::DynamicInstruments<TestIR>(make_list(h, s.contexts[c].instruments))));
        ctxs.push_back(owned.back().get());
      }
      h.contexts[c] = ctxs.back();
    }
    REQUIRE(Ctx::thread_default().instruments().empty());
    const AnyPass<TestIR> root = make_root();
    run_in_mode(s, *ctxs[0], root, a, use_with, use_current);
    for (auto* c : ctxs) a.held.push_back(held_names(*c));
    run_second_step(s, *ctxs[0], root, a, !use_with);
    if (s.mode == Mode::scope_twice) a.held_final = held_names(*ctxs[0]);
    if (s.mode == Mode::override_default) {
      try {
        ctxs[0]->override_instruments({});
      } catch (...) {
        a.second_escaped = std::current_exception();
      }
      a.held_final = held_names(*ctxs[0]);
      // leave the default context clean for the next scenario whatever happened
      if (!Ctx::thread_default().instruments().empty()) Ctx::thread_default().instruments().take_items();
    }
    a.current_after = h.label();
    a.log = std::move(capture.lines);
  }
  a.events = std::move(h.events);
  a.thrown = std::move(h.thrown);
  g_harness = nullptr;
  return a;
}

// The static layer: a static context of the scenario's family, a static shape.
Actual run_static(const ShapedScenario& sh, bool use_with) {
  const Scenario& s = sh.s;
  Harness h(s);
  g_harness = &h;
  Actual a;
  {
    Capture capture;
    const auto& masks = families()[static_cast<std::size_t>(sh.family)];
    auto opts = options_of(s.contexts[0]);
    // Instruments of the static slots are made here; the dynamic slot's as AnyInstruments.
    std::vector<int> static_index;
    int next = 0;
    for (unsigned m : masks) {
      if (m == kDyn) {
        next += static_cast<int>(sh.dyn_items.size());
      } else {
        static_index.push_back(next++);
      }
    }
    auto dyn = [&] { return passinfra::DynamicInstruments<TestIR>(make_list(h, sh.dyn_items)); };
    auto instr = [&](auto& i, std::size_t k) -> auto& {
      i.h = &h;
      i.index = static_index[k];
      return i;
    };
    auto body = [&](auto& ctx) {
      with_shape(sh.shape, s.root, [&](const auto& root) {
        run_in_mode(s, ctx, root, a, use_with, false);
        a.held.push_back(held_names_static(ctx.instrument_set()));
        run_second_step(s, ctx, root, a, !use_with);
        if (s.mode == Mode::scope_twice) a.held_final = held_names_static(ctx.instrument_set());
      });
      a.current_after = h.label();
    };
    switch (sh.family) {
      case 0: {
        auto ctx = passinfra::make_pass_context<TestIR>(opts);
        body(ctx);
        break;
      }
      case 1: {
        SInstr<31> i0;
        auto ctx = passinfra::make_pass_context<TestIR>(opts, std::ref(instr(i0, 0)));
        body(ctx);
        break;
      }
      case 2: {
        SInstr<63> i0;
        SInstr<3> i1;
        SInstr<28> i2;
        auto ctx = passinfra::make_pass_context<TestIR>(opts, std::ref(instr(i0, 0)), std::ref(instr(i1, 1)),
                                                        std::ref(instr(i2, 2)));
        body(ctx);
        break;
      }
      case 3: {
        SInstr<4> i0;
        SInstr<56> i1;
        auto ctx = passinfra::make_pass_context<TestIR>(opts, std::ref(instr(i0, 0)), std::ref(instr(i1, 1)));
        body(ctx);
        break;
      }
      case 4: {
        SInstr<31> i0;
        SInstr<50> i1;
        auto ctx = passinfra::make_pass_context<TestIR>(opts, std::ref(instr(i0, 0)), dyn(), std::ref(instr(i1, 1)));
        body(ctx);
        break;
      }
      default: {
        auto ctx = passinfra::make_pass_context<TestIR>(opts, dyn());
        body(ctx);
        break;
      }
    }
    a.log = std::move(capture.lines);
  }
  a.events = std::move(h.events);
  a.thrown = std::move(h.thrown);
  g_harness = nullptr;
  return a;
}

// ------------------------------------------------------------ comparing

bool word_in(const std::string& text, const std::string& word) {
  std::size_t at = 0;
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while ((at = text.find(word, at)) != std::string::npos) {
    const bool left = at == 0 || !is_word(text[at - 1]);
    const bool right = at + word.size() >= text.size() || !is_word(text[at + word.size()]);
    if (left && right) return true;
    ++at;
  }
  return false;
}

const refmodel::Fault* fault_by_id(const Scenario& s, int id) {
  for (const auto& f : s.faults) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

// "" when the escaping exception is the one the model expects (same object, same type).
std::string check_exception(const Scenario& s, const std::optional<int>& expected, const std::exception_ptr& actual,
                            const std::vector<std::exception_ptr>& thrown) {
  if (!expected) {
    if (!actual) return "";
    return "expected no exception, got " + passinfra::detail::describe(actual);
  }
  if (!actual) return "expected fault " + std::to_string(*expected) + " to escape, nothing escaped";
  const auto& want = thrown[static_cast<std::size_t>(*expected)];
  if (!want) return "expected fault " + std::to_string(*expected) + ", which was never thrown";
  if (actual != want)
    return "expected the very object of fault " + std::to_string(*expected) +
           ", got another one: " + passinfra::detail::describe(actual);
  const refmodel::Fault* f = fault_by_id(s, *expected);
  try {
    std::rethrow_exception(actual);
  } catch (const FaultError& e) {
    if (!f->std_exception || e.id != *expected) return "wrong exception type or id";
  } catch (const OddFault& e) {
    if (f->std_exception || e.id != *expected) return "wrong exception type or id";
  } catch (...) {
    return "an exception of an unexpected type";
  }
  return "";
}

std::string check_log(const Scenario& s, const std::vector<refmodel::LogLine>& expected,
                      const std::vector<std::pair<std::string, std::string>>& actual) {
  std::string diff;
  const std::size_t n = std::max(expected.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string want = i < expected.size() ? refmodel::describe(expected[i]) : "(none)";
    const std::string got = i < actual.size() ? actual[i].first + " " + actual[i].second : "(none)";
    bool ok = i < expected.size() && i < actual.size();
    if (ok) {
      const auto& e = expected[i];
      const auto& [level, message] = actual[i];
      if (e.level != level) {
        ok = false;
      } else if (e.level == "INFO") {
        ok = message == e.text;
      } else {
        ok = word_in(message, e.instrument);
        const refmodel::Fault* f = fault_by_id(s, e.dropped);
        if (ok && f && f->std_exception) ok = message.find("fault#" + std::to_string(e.dropped)) != std::string::npos;
      }
    }
    if (!ok) diff += "  log line " + std::to_string(i) + ": expected " + want + "\n                got " + got + "\n";
  }
  return diff;
}

std::string show(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? " | " : "") + v[i];
  return "[" + out + "]";
}

std::string compare(const Scenario& s, const Outcome& m, const Actual& a) {
  std::string report;
  if (m.events != a.events) {
    std::size_t i = 0;
    while (i < m.events.size() && i < a.events.size() && m.events[i] == a.events[i]) ++i;
    report += "events differ at " + std::to_string(i) + ":\n";
    for (std::size_t k = 0; k < std::max(m.events.size(), a.events.size()); ++k) {
      const std::string e = k < m.events.size() ? m.events[k] : "";
      const std::string g = k < a.events.size() ? a.events[k] : "";
      report += (e == g ? "    " : " >> ") + e + std::string(e.size() < 44 ? 44 - e.size() : 1, ' ') + g + "\n";
    }
  }
  if (auto e = check_exception(s, m.escaped, a.escaped, a.thrown); !e.empty())
    report += "escaping exception: " + e + "\n";
  if (s.mode == Mode::override_default || s.mode == Mode::scope_twice) {
    if (auto e = check_exception(s, m.second_escaped, a.second_escaped, a.thrown); !e.empty()) {
      report += "second step: " + e + "\n";
    }
    if (m.held_final != a.held_final) {
      report +=
          "context 0 holds " + show(a.held_final) + " after the second step, expected " + show(m.held_final) + "\n";
    }
    if (!m.second_escaped && m.trail_second != a.trail_second) {
      report += "IR trail of the second step " + show(a.trail_second) + ", expected " + show(m.trail_second) + "\n";
    }
  }
  for (std::size_t c = 0; c < m.held.size(); ++c) {
    if (c >= a.held.size()) break;
    if (m.held[c] != a.held[c]) {
      report += "context " + std::to_string(c) + " holds " + show(a.held[c]) + ", expected " + show(m.held[c]) + "\n";
    }
  }
  if (!m.escaped && m.trail != a.trail) report += "IR trail " + show(a.trail) + ", expected " + show(m.trail) + "\n";
  if (m.current_after != a.current_after) {
    report += "current() afterwards: " + a.current_after + ", expected " + m.current_after + "\n";
  }
  report += check_log(s, m.log, a.log);
  return report;
}

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 0);
}

std::uint64_t scenario_seed(std::uint64_t seed, std::uint64_t index) {
  refmodel::Rng mix(seed ^ (index * 0x9e3779b97f4a7c15ull));
  return mix.next();
}

struct Tally {
  int scenarios = 0;
  int runs = 0;
  int failures = 0;
  int escaped = 0;
  int with_faults = 0;
  // How often the model's outcome took each path of SPEC §5 (all layers' outcomes counted).
  int enter_failed = 0, exit_failed = 0, dropped_warning = 0, after_failed = 0, second_escaped = 0;

  void cover(const Outcome& m) {
    auto logged = [&](std::string_view text) {
      return std::any_of(m.log.begin(), m.log.end(), [&](const auto& l) { return l.text == text; });
    };
    enter_failed += logged("Pass instrumentation entering pass context failed.");
    exit_failed += logged("Pass instrumentation exiting pass context failed.");
    dropped_warning += std::any_of(m.log.begin(), m.log.end(), [](const auto& l) { return l.level == "WARNING"; });
    after_failed += std::any_of(m.events.begin(), m.events.end(), [](const std::string& e) {
      return e.find("run_after_pass_failed") != std::string::npos;
    });
    second_escaped += m.second_escaped.has_value();
  }
};

void report_failure(Tally& t, std::uint64_t seed, std::uint64_t index, const char* layer, const Scenario& s,
                    const std::string& diff) {
  ++t.failures;
  if (t.failures > 5) return;
  const std::string text = std::string("property scenario disagrees with the reference model\n  layer: ") + layer +
                           "\n  reproduce: PASSINFRA_PROPERTY_SEED=" + std::to_string(seed) +
                           " PASSINFRA_PROPERTY_ONLY=" + std::to_string(index) + "\n" + refmodel::describe(s) + diff;
  FAIL_CHECK(text);
}

}  // namespace

TEST_CASE("reliability: the reference model reproduces SPEC 4's and 5.5's examples") {
  // SPEC §4: Sequential S with child P (P requires R), instruments [A, B].
  Scenario s;
  s.instruments = {{"A", refmodel::kAllSpecHooks, {}}, {"B", refmodel::kAllSpecHooks, {}}};
  s.contexts = {refmodel::ContextSpec{}};
  s.contexts[0].instruments = {0, 1};
  s.mode = Mode::unentered;
  Node p;
  p.name = "P";
  p.required = {"R"};
  s.root.kind = Node::Kind::seq;
  s.root.name = "S";
  s.root.children = {p};
  auto out = refmodel::run_model(s);
  CHECK(
      show(out.events) ==
      "[A should_run S | B should_run S | A run_before_pass S | B run_before_pass S | A should_run R | B should_run R "
      "| A run_before_pass R | B run_before_pass R | R @D | A run_after_pass R | B run_after_pass R | A should_run P "
      "| B should_run P | A run_before_pass P | B run_before_pass P | P @D | A run_after_pass P | B run_after_pass P "
      "| A run_after_pass S | B run_after_pass S]");

  // SPEC §5.5: [Fine_0, BadRunBefore, Fine_1], one pass in a scope.
  Scenario t;
  t.instruments = {{"Fine_0", refmodel::kAllSpecHooks, {}},
                   {"BadRunBefore", refmodel::kAllSpecHooks, {}},
                   {"Fine_1", refmodel::kAllSpecHooks, {}}};
  t.contexts = {refmodel::ContextSpec{}};
  t.contexts[0].instruments = {0, 1, 2};
  t.root.name = "P";
  t.faults = {refmodel::Fault{false, 1, Hook::before, "", 1, 1, true}};
  auto out2 = refmodel::run_model(t);
  CHECK(show(out2.events) ==
        "[Fine_0 enter_pass_ctx @D | BadRunBefore enter_pass_ctx @D | Fine_1 enter_pass_ctx @D | Fine_0 should_run P | "
        "BadRunBefore should_run P | Fine_1 should_run P | Fine_0 run_before_pass P | BadRunBefore run_before_pass P "
        "!1 | Fine_0 exit_pass_ctx @D | BadRunBefore exit_pass_ctx @D | Fine_1 exit_pass_ctx @D]");
  CHECK(out2.escaped == 1);
}

TEST_CASE("reliability: random scenarios agree with the reference model on every layer") {
  const std::uint64_t seed = env_u64("PASSINFRA_PROPERTY_SEED", kDefaultSeed);
  const std::uint64_t count = env_u64("PASSINFRA_PROPERTY_COUNT", PASSINFRA_PROPERTY_SCENARIOS);
  const char* only_env = std::getenv("PASSINFRA_PROPERTY_ONLY");
  const bool only = only_env && *only_env;
  const std::uint64_t first = only ? std::strtoull(only_env, nullptr, 0) : 0;
  const std::uint64_t last = only ? first + 1 : count;
  MESSAGE("property test: seed " << seed << ", scenarios " << first << ".." << last);

  Tally t;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t index = first; index < last; ++index) {
    refmodel::Rng rng(scenario_seed(seed, index));
    const bool rnd = rng.next() & 1;
    if (rnd) {
      // A free-form scenario through the dynamic layer.
      const Scenario s = refmodel::generate(rng);
      const Outcome m = refmodel::run_model(s);
      const bool use_with = rng.chance(50);
      const bool use_current = s.mode != Mode::unentered && rng.chance(50);
      const Actual a = run_dynamic(
          s, [&] { return build_dynamic(s.root); }, use_with, use_current);
      ++t.runs;
      t.cover(m);
      t.escaped += m.escaped.has_value();
      t.with_faults += !s.faults.empty();
      if (auto diff = compare(s, m, a); !diff.empty()) report_failure(t, seed, index, "dynamic", s, diff);
    } else {
      // A static shape, through the static layer (static context of its family),
      // the dynamic layer (the same tree as AnyPass/DynamicSequential) and the
      // static pipeline erased into an AnyPass under a dynamic context.
      ShapedScenario sh = generate_shaped(rng);
      g_binding = {};
      bind(sh.s.root);
      const bool use_with = rng.chance(50);
      Scenario st = sh.s;
      st.contexts[0].dynamic = false;
      const Outcome ms = refmodel::run_model(st);
      const Actual as = run_static(sh, use_with);
      if (auto diff = compare(st, ms, as); !diff.empty()) {
        report_failure(t, seed, index,
                       ("static shape " + std::to_string(sh.shape) + ", family " + std::to_string(sh.family)).c_str(),
                       st, diff);
      }
      const Outcome md = refmodel::run_model(sh.s);
      const bool use_current = sh.s.mode != Mode::unentered && rng.chance(50);
      const Actual ad = run_dynamic(
          sh.s, [&] { return build_dynamic(sh.s.root); }, use_with, use_current);
      if (auto diff = compare(sh.s, md, ad); !diff.empty())
        report_failure(t, seed, index, "dynamic (shaped)", sh.s, diff);
      std::optional<AnyPass<TestIR>> erased;
      with_shape(sh.shape, sh.s.root, [&](const auto& root) { erased.emplace(root); });
      const Actual ax = run_dynamic(
          sh.s, [&] { return *erased; }, use_with, use_current);
      if (auto diff = compare(sh.s, md, ax); !diff.empty()) {
        report_failure(t, seed, index, ("static shape " + std::to_string(sh.shape) + " as AnyPass").c_str(), sh.s,
                       diff);
      }
      t.runs += 3;
      t.cover(ms);
      t.escaped += ms.escaped.has_value();
      t.with_faults += !sh.s.faults.empty();
    }
    ++t.scenarios;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("property test: " << t.scenarios << " scenarios, " << t.runs << " runs, " << t.with_faults << " with faults, "
                            << t.escaped << " with an escaping exception, " << t.failures << " disagreements, "
                            << seconds << " s; paths: " << t.enter_failed << " enter failures, " << t.exit_failed
                            << " exit failures, " << t.dropped_warning << " with a dropped exception (WARNING), "
                            << t.after_failed << " with run_after_pass_failed, " << t.second_escaped
                            << " failed second steps");
  CHECK(t.failures == 0);
#ifndef PASSINFRA_PROPERTY_SANITIZED
  if (!only && !std::getenv("PASSINFRA_PROPERTY_COUNT")) CHECK(t.scenarios >= 10000);
#endif
}
