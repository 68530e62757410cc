// Property test for the analysis manager (SPEC §10): random pipelines whose pass bodies
// request analyses and mark what they keep, x random static preserve declarations,
// x fault injection (throwing pass bodies, throwing analyses, throwing hooks), compared
// with the reference model of tests/reliability/analysis_model.hpp: every event (pass
// hooks, analysis hooks, analysis computations, what each get returned), the escaping
// exception (the very object), the cached results afterwards (which computation made
// each one, in storage order) and the IR.
//
// Reproduce one scenario:  PASSINFRA_ANALYSIS_PROPERTY_SEED=<seed> PASSINFRA_ANALYSIS_PROPERTY_ONLY=<index>
//                          build/dev/tests/passinfra_tests -tc='reliability: analyses*'
// More scenarios:          PASSINFRA_ANALYSIS_PROPERTY_COUNT=<n> (default 12,000; 6,000 under a sanitizer)
//
// Half the scenarios are free-form trees run through the dynamic layer (PassContext<IR>
// with &am, AnyPass, DynamicSequential, function passes and RequireAnalysis /
// InvalidateAnalysis / InvalidateAllAnalyses erased), with instruments of any hook set.
// The other half are a fixed family of static shapes (Sequential<...> of pass types whose
// static declarations are fixed by the shape, names, opt_levels and bodies from the
// scenario) run three ways: under a static context (make_pass_context<IR>(options, am,
// instruments...), a fixed family of static instrument sets), under a dynamic context as
// the same tree of AnyPass / DynamicSequential, and as the static pipeline erased into
// one AnyPass under a dynamic context. Each run uses one of three managers: every
// analysis in a static slot or the run-time table (analyses<MC, FC> and their closure),
// one slot (analyses<MA>), none (AnalysisManager<IR>): one cache either way (DESIGN).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "reliability/analysis_model.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PASSINFRA_ANALYSIS_PROPERTY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PASSINFRA_ANALYSIS_PROPERTY_SANITIZED 1
#endif
#endif

#ifndef PASSINFRA_ANALYSIS_PROPERTY_SCENARIOS
#ifdef PASSINFRA_ANALYSIS_PROPERTY_SANITIZED
#define PASSINFRA_ANALYSIS_PROPERTY_SCENARIOS 6000
#else
#define PASSINFRA_ANALYSIS_PROPERTY_SCENARIOS 12000
#endif
#endif

// ------------------------------------------------------------ the IR

namespace aprop {

// A module of three functions; f and g are defined, x is external (function passes skip it).
struct PFn {
  std::string name;
  int version = 0;
  bool external = false;
};
struct PIR {
  std::vector<PFn> functions;
  std::vector<std::string> trail;
};

inline PIR make_ir() { return PIR{{{"f", 0, false}, {"g", 0, false}, {"x", 0, true}}, {}}; }

inline int function_index(std::string_view name) {
  for (int f = 0; f < anmodel::kFunctions; ++f) {
    if (name == anmodel::function_name(f)) return f;
  }
  return -1;
}

}  // namespace aprop

template <>
struct passinfra::ir_traits<aprop::PIR> {
  using function_type = aprop::PFn;
  template <class F>
  static aprop::PIR map_functions(aprop::PIR ir, F&& f) {
    for (std::size_t i = 0; i < ir.functions.size(); ++i) {
      if (ir.functions[i].external) continue;
      aprop::PFn out = f(ir.functions[i], std::as_const(ir));
      ir.functions[i] = std::move(out);
    }
    return ir;
  }
  static const std::string& function_key(const aprop::PFn& fn) { return fn.name; }
  template <class F>
  static void for_each_function(const aprop::PIR& ir, F&& f) {
    for (const auto& fn : ir.functions) f(fn);
  }
};

namespace {

using anmodel::Action;
using anmodel::Hook;
using anmodel::Node;
using anmodel::Outcome;
using anmodel::Scenario;
using aprop::PFn;
using aprop::PIR;
using passinfra::AnalysisInfo;
using passinfra::AnyInstrument;
using passinfra::AnyPass;
using passinfra::PassInfo;
using DynCtx = passinfra::PassContext<PIR>;

constexpr std::uint64_t kDefaultSeed = 0x5eed'2026'0019ull;

struct FaultError : std::runtime_error {
  int id;
  explicit FaultError(int i) : std::runtime_error("fault#" + std::to_string(i)), id(i) {}
};

// ------------------------------------------------------------ the harness

struct Harness {
  const Scenario* s = nullptr;
  std::vector<std::string> events;
  std::vector<std::array<int, anmodel::kHookCount>> counts;
  std::array<int, anmodel::kAnalyses> runs{};
  std::vector<bool> fired;
  std::vector<std::exception_ptr> thrown;  // by fault id
  int serial = 0;

  explicit Harness(const Scenario& scenario) : s(&scenario) {
    counts.assign(scenario.instruments.size(), {});
    fired.assign(scenario.faults.size(), false);
    thrown.assign(scenario.faults.size() + 2, nullptr);
  }

  [[noreturn]] void raise(int id) {
    std::exception_ptr e = std::make_exception_ptr(FaultError(id));
    thrown[static_cast<std::size_t>(id)] = e;
    std::rethrow_exception(e);
  }

  std::string id_of(const std::exception_ptr& e) const {
    for (std::size_t k = 1; k < thrown.size(); ++k) {
      if (thrown[k] && thrown[k] == e) return std::to_string(k);
    }
    return "?";
  }

  static std::string subject(const AnalysisInfo& info) {
    std::string s(info.name);
    if (!info.function.empty()) {
      s += "@";
      s += info.function;
    }
    return s;
  }

  bool hook(int instrument, Hook h, std::string_view subject, const std::exception_ptr* failed = nullptr) {
    const auto& spec = s->instruments[static_cast<std::size_t>(instrument)];
    const int n = ++counts[static_cast<std::size_t>(instrument)][static_cast<std::size_t>(h)];
    std::string e = spec.name + " " + anmodel::hook_name(h) + " ";
    e += subject;
    if (h == Hook::after_failed || h == Hook::analysis_failed) e += " ^" + (failed ? id_of(*failed) : "?");
    for (std::size_t f = 0; f < s->faults.size(); ++f) {
      const auto& fault = s->faults[f];
      if (!fired[f] && fault.where == anmodel::Fault::Where::hook && fault.instrument == instrument &&
          fault.hook == h && fault.occurrence == n) {
        fired[f] = true;
        events.push_back(e + " !" + std::to_string(fault.id));
        raise(fault.id);
      }
    }
    events.push_back(std::move(e));
    if (h == Hook::should_run) return std::find(spec.veto.begin(), spec.veto.end(), subject) == spec.veto.end();
    return true;
  }

  // An analysis's computation: "run" event, then (the caller requests its
  // dependencies), then maybe the planted throw.
  int begin_run(int a, int f) {
    const int n = ++serial;
    events.push_back("run " + anmodel::result_name(a, f) + " #" + std::to_string(n));
    return n;
  }
  void end_run(int a, int f) {
    const int n = ++runs[static_cast<std::size_t>(a)];
    for (std::size_t k = 0; k < s->faults.size(); ++k) {
      const auto& fault = s->faults[k];
      if (!fired[k] && fault.where == anmodel::Fault::Where::analysis && fault.analysis == a && fault.occurrence == n) {
        fired[k] = true;
        events.push_back("throw " + anmodel::result_name(a, f) + " !" + std::to_string(fault.id));
        raise(fault.id);
      }
    }
  }
  bool requests(int a, int d) const { return (s->requests[a] & anmodel::declared_deps(a) & anmodel::kbit(d)) != 0; }
};

thread_local Harness* g_h = nullptr;

}  // namespace

// ------------------------------------------------------------ the analyses (the model's family)

namespace aprop {

struct Res {
  int serial = 0;
  friend bool operator==(const Res&, const Res&) = default;
};
struct TagT {};
struct SetX {};

struct MA;
struct MB;
struct FA;
struct FB;
struct MC;
struct FC;

struct MA {
  static constexpr passinfra::AnalysisInfo info{"MA"};
  using result_type = Res;
  using sets = passinfra::analysis_sets<SetX>;
  Res run(const PIR&, auto&) const {
    const int n = g_h->begin_run(anmodel::MA, -1);
    g_h->end_run(anmodel::MA, -1);
    return {n};
  }
};
struct FA {
  static constexpr passinfra::AnalysisInfo info{"FA"};
  using unit = passinfra::function_unit;
  using result_type = Res;
  Res run(const PFn& fn, const PIR&, auto&) const {
    const int f = function_index(fn.name);
    const int n = g_h->begin_run(anmodel::FA, f);
    g_h->end_run(anmodel::FA, f);
    return {n};
  }
};
struct MB {
  static constexpr passinfra::AnalysisInfo info{"MB"};
  using result_type = Res;
  using depends_on = passinfra::depends_on<MA, FA>;
  Res run(const PIR& m, auto& deps) const {
    const int n = g_h->begin_run(anmodel::MB, -1);
    if (g_h->requests(anmodel::MB, anmodel::MA)) (void)deps.template get<MA>();
    if (g_h->requests(anmodel::MB, anmodel::FA)) {
      for (const PFn& fn : m.functions) (void)deps.template get<FA>(fn);
    }
    g_h->end_run(anmodel::MB, -1);
    return {n};
  }
};
struct FB {
  static constexpr passinfra::AnalysisInfo info{"FB"};
  using unit = passinfra::function_unit;
  using result_type = Res;
  using depends_on = passinfra::depends_on<FA, MA>;
  using sets = passinfra::analysis_sets<SetX>;
  Res run(const PFn& fn, const PIR&, auto& deps) const {
    const int f = function_index(fn.name);
    const int n = g_h->begin_run(anmodel::FB, f);
    // The model requests in key order: MA before FA.
    if (g_h->requests(anmodel::FB, anmodel::MA)) (void)deps.template get<MA>();
    if (g_h->requests(anmodel::FB, anmodel::FA)) (void)deps.template get<FA>(fn);
    g_h->end_run(anmodel::FB, f);
    return {n};
  }
};
struct MC {
  static constexpr passinfra::AnalysisInfo info{"MC"};
  using result_type = Res;
  using depends_on = passinfra::depends_on<MB>;
  Res run(const PIR&, auto& deps) const {
    const int n = g_h->begin_run(anmodel::MC, -1);
    if (g_h->requests(anmodel::MC, anmodel::MB)) (void)deps.template get<MB>();
    g_h->end_run(anmodel::MC, -1);
    return {n};
  }
  bool is_invalidated(const Res&, const passinfra::PreservedAnalyses& pa) const { return !pa.preserved<TagT>(); }
};
struct FC {
  static constexpr passinfra::AnalysisInfo info{"FC"};
  using unit = passinfra::function_unit;
  using result_type = Res;
  using depends_on = passinfra::depends_on<FB>;
  Res run(const PFn& fn, const PIR&, auto& deps) const {
    const int f = function_index(fn.name);
    const int n = g_h->begin_run(anmodel::FC, f);
    if (g_h->requests(anmodel::FC, anmodel::FB)) (void)deps.template get<FB>(fn);
    g_h->end_run(anmodel::FC, f);
    return {n};
  }
  bool is_invalidated(const Res&, const passinfra::PreservedAnalyses& pa) const {
    return !pa.preserved<TagT>() && !pa.preserved<FC>();
  }
};

// The three managers (DESIGN: static slots + one run-time table, one cache).
using AllListed = passinfra::AnalysisManager<PIR, passinfra::analyses<MC, FC>>;
using OneListed = passinfra::AnalysisManager<PIR, passinfra::analyses<MA>>;
using NoneListed = passinfra::AnalysisManager<PIR>;

}  // namespace aprop

namespace {

using namespace aprop;

// f(type_tag<A>) for the analysis with model index a.
template <class T>
struct type_tag {
  using type = T;
};
template <class F>
decltype(auto) with_analysis(int a, F&& f) {
  switch (a) {
    case anmodel::MA:
      return f(type_tag<MA>{});
    case anmodel::MB:
      return f(type_tag<MB>{});
    case anmodel::FA:
      return f(type_tag<FA>{});
    case anmodel::FB:
      return f(type_tag<FB>{});
    case anmodel::MC:
      return f(type_tag<MC>{});
    default:
      return f(type_tag<FC>{});
  }
}
// ... and for any key (analyses and tags).
template <class F>
decltype(auto) with_key(int k, F&& f) {
  switch (k) {
    case anmodel::TagT:
      return f(type_tag<TagT>{});
    case anmodel::SetX:
      return f(type_tag<SetX>{});
    case anmodel::AllModule:
      return f(type_tag<passinfra::all_analyses_on<passinfra::module_unit>>{});
    case anmodel::AllFunction:
      return f(type_tag<passinfra::all_analyses_on<passinfra::function_unit>>{});
    default:
      return with_analysis(k, std::forward<F>(f));
  }
}

// The static declarations, by model index (anmodel::decl_pa).
template <int D>
struct Decl;
template <>
struct Decl<1> {
  using type = passinfra::preserves_all;
};
template <>
struct Decl<2> {
  using type = passinfra::preserves<MA>;
};
template <>
struct Decl<3> {
  using type = passinfra::preserves<FA, FB>;
};
template <>
struct Decl<4> {
  using type = passinfra::preserves<passinfra::all_analyses_on<passinfra::function_unit>>;
};
template <>
struct Decl<5> {
  using type = passinfra::preserves<SetX>;
};
template <>
struct Decl<6> {
  using type = passinfra::preserves<TagT, MB>;
};
template <>
struct Decl<7> {
  using type = passinfra::preserves<passinfra::all_analyses_on<passinfra::module_unit>>;
};

template <class F>
decltype(auto) with_decl(int d, F&& f) {
  switch (d) {
    case 0:
      return f(std::integral_constant<int, 0>{});
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    case 6:
      return f(std::integral_constant<int, 6>{});
    default:
      return f(std::integral_constant<int, 7>{});
  }
}

// ------------------------------------------------------------ instruments

// SInstr<M>: exactly the hooks whose bits (anmodel::hbit) are set in M.
struct InstrBase {
  Harness* h = nullptr;
  int index = 0;
};
template <unsigned M>
struct SInstr : InstrBase {
  bool should_run(const PIR&, const PassInfo& info)
    requires((M & 1u) != 0)
  {
    return h->hook(index, Hook::should_run, info.name);
  }
  void run_before_pass(const PIR&, const PassInfo& info)
    requires((M & 2u) != 0)
  {
    h->hook(index, Hook::before, info.name);
  }
  void run_after_pass(const PIR&, const PassInfo& info)
    requires((M & 4u) != 0)
  {
    h->hook(index, Hook::after, info.name);
  }
  void run_after_pass_failed(const PassInfo& info, std::exception_ptr error)
    requires((M & 8u) != 0)
  {
    h->hook(index, Hook::after_failed, info.name, &error);
  }
  void run_before_analysis(const PIR&, const AnalysisInfo& info)
    requires((M & 16u) != 0)
  {
    h->hook(index, Hook::before_analysis, Harness::subject(info));
  }
  void run_after_analysis(const PIR&, const AnalysisInfo& info)
    requires((M & 32u) != 0)
  {
    h->hook(index, Hook::after_analysis, Harness::subject(info));
  }
  void run_after_analysis_failed(const AnalysisInfo& info, std::exception_ptr error)
    requires((M & 64u) != 0)
  {
    h->hook(index, Hook::analysis_failed, Harness::subject(info), &error);
  }
  void run_analysis_invalidated(const AnalysisInfo& info)
    requires((M & 128u) != 0)
  {
    h->hook(index, Hook::invalidated, Harness::subject(info));
  }
};

// RInstr: every hook, acting only for the bits of a run-time mask (a hook
// that does nothing and says "run" is what a missing hook means).
struct RInstr : InstrBase {
  unsigned mask = 0;
  bool on(Hook k) const { return (mask & anmodel::hbit(k)) != 0; }
  bool should_run(const PIR&, const PassInfo& info) {
    return !on(Hook::should_run) || h->hook(index, Hook::should_run, info.name);
  }
  void run_before_pass(const PIR&, const PassInfo& info) {
    if (on(Hook::before)) h->hook(index, Hook::before, info.name);
  }
  void run_after_pass(const PIR&, const PassInfo& info) {
    if (on(Hook::after)) h->hook(index, Hook::after, info.name);
  }
  void run_after_pass_failed(const PassInfo& info, std::exception_ptr error) {
    if (on(Hook::after_failed)) h->hook(index, Hook::after_failed, info.name, &error);
  }
  void run_before_analysis(const PIR&, const AnalysisInfo& info) {
    if (on(Hook::before_analysis)) h->hook(index, Hook::before_analysis, Harness::subject(info));
  }
  void run_after_analysis(const PIR&, const AnalysisInfo& info) {
    if (on(Hook::after_analysis)) h->hook(index, Hook::after_analysis, Harness::subject(info));
  }
  void run_after_analysis_failed(const AnalysisInfo& info, std::exception_ptr error) {
    if (on(Hook::analysis_failed)) h->hook(index, Hook::analysis_failed, Harness::subject(info), &error);
  }
  void run_analysis_invalidated(const AnalysisInfo& info) {
    if (on(Hook::invalidated)) h->hook(index, Hook::invalidated, Harness::subject(info));
  }
};

template <unsigned M>
AnyInstrument<PIR> make_sinstr(Harness& h, int index) {
  auto p = std::make_shared<SInstr<M>>();
  p->h = &h;
  p->index = index;
  return AnyInstrument<PIR>(std::move(p));
}

AnyInstrument<PIR> make_any_instrument(Harness& h, int index, bool use_static_types) {
  const unsigned mask = h.s->instruments[static_cast<std::size_t>(index)].hooks;
  if (use_static_types) {
    switch (mask) {
      case 0xff:
        return make_sinstr<0xff>(h, index);
      case 0x0f:
        return make_sinstr<0x0f>(h, index);
      case 0xf0:
        return make_sinstr<0xf0>(h, index);
      case 0x90:
        return make_sinstr<0x90>(h, index);
      case 0x80:
        return make_sinstr<0x80>(h, index);
      case 0x66:
        return make_sinstr<0x66>(h, index);
      case 0x35:
        return make_sinstr<0x35>(h, index);
      case 0x5a:
        return make_sinstr<0x5a>(h, index);
      default:
        break;
    }
  }
  auto p = std::make_shared<RInstr>();
  p->h = &h;
  p->index = index;
  p->mask = mask;
  return AnyInstrument<PIR>(std::move(p));
}

passinfra::PassContextOptions options_of(const anmodel::ContextSpec& c) {
  return {.opt_level = c.opt_level, .required_pass = c.required_pass, .disabled_pass = c.disabled_pass};
}

// ------------------------------------------------------------ pass bodies

// One action of a body, through the handle ctx.analyses() gives. `fn` is the
// function a function pass is visiting (null in a module pass).
template <class Ctx>
void act(const Action& a, const PIR& m, const PFn* fn, Ctx& ctx) {
  auto&& am = ctx.analyses();
  const int target =
      anmodel::is_function_analysis(a.key) ? (a.function >= 0 ? a.function : (fn ? function_index(fn->name) : -1)) : -1;
  const PFn* unit = target >= 0 ? &m.functions[static_cast<std::size_t>(target)] : nullptr;
  // A function pass's own function: the copy it was given (same key).
  if (target >= 0 && a.function < 0 && fn) unit = fn;
  const std::string name = anmodel::result_name(a.key, target);
  auto get = [&]() -> int {
    if (a.by_name) {
      const std::string_view n = anmodel::key_name(a.key);
      const auto& r = unit ? am.get(n, m, *unit) : am.get(n, m);
      return r.template get<Res>().serial;
    }
    return with_analysis(a.key, [&](auto t) -> int {
      using A = typename decltype(t)::type;
      if constexpr (std::is_same_v<passinfra::unit_of_t<A>, passinfra::function_unit>) {
        return am.template get<A>(m, *unit).serial;
      } else {
        return am.template get<A>(m).serial;
      }
    });
  };
  switch (a.kind) {
    case Action::Kind::get:
      g_h->events.push_back("get " + name + " = #" + std::to_string(get()));
      break;
    case Action::Kind::get_caught:
      try {
        const int n = get();
        g_h->events.push_back("get " + name + " = #" + std::to_string(n));
      } catch (...) {
        g_h->events.push_back("get " + name + " caught ^" + g_h->id_of(std::current_exception()));
      }
      break;
    case Action::Kind::cached: {
      const Res* r = with_analysis(a.key, [&](auto t) -> const Res* {
        using A = typename decltype(t)::type;
        if constexpr (std::is_same_v<passinfra::unit_of_t<A>, passinfra::function_unit>) {
          return am.template get_cached<A>(*unit);
        } else {
          return am.template get_cached<A>();
        }
      });
      g_h->events.push_back("cached " + name + " = " + (r ? "#" + std::to_string(r->serial) : std::string("-")));
      break;
    }
    case Action::Kind::preserve:
      if (a.by_name) {
        am.preserve(std::string_view(anmodel::key_name(a.key)));
      } else {
        with_key(a.key, [&](auto t) { am.template preserve<typename decltype(t)::type>(); });
      }
      break;
    case Action::Kind::preserve_all:
      am.preserve_all();
      break;
    case Action::Kind::abandon:
      if (a.by_name) {
        am.abandon(std::string_view(anmodel::key_name(a.key)));
      } else {
        with_key(a.key, [&](auto t) { am.template abandon<typename decltype(t)::type>(); });
      }
      break;
    case Action::Kind::nested:
    case Action::Kind::fail:
      break;  // handled by the caller
  }
}

// A module pass body: its actions, nested runs through `run_nested`.
template <class Ctx, class RunNested>
PIR module_body(const Node& n, PIR ir, Ctx& ctx, RunNested&& run_nested) {
  g_h->events.push_back(n.name);
  for (const Action& a : n.actions) {
    if (a.kind == Action::Kind::fail) {
      g_h->events.push_back("fail !" + std::to_string(a.fault));
      g_h->raise(a.fault);
    }
    if (a.kind == Action::Kind::nested) {
      if (!a.caught) {
        ir = run_nested(std::move(ir));
        continue;
      }
      PIR saved = ir;
      try {
        ir = run_nested(std::move(ir));
      } catch (...) {
        ir = std::move(saved);
        g_h->events.push_back("nested caught ^" + g_h->id_of(std::current_exception()));
      }
      continue;
    }
    act(a, ir, nullptr, ctx);
  }
  ir.trail.push_back(n.name);
  return ir;
}

// A function pass body for one function.
template <class Ctx>
PFn function_body(const Node& n, PFn fn, const PIR& m, Ctx& ctx) {
  const int f = function_index(fn.name);
  g_h->events.push_back(n.name + ":" + fn.name);
  for (const Action& a : n.fn_actions[static_cast<std::size_t>(f)]) {
    if (a.kind == Action::Kind::fail) {
      g_h->events.push_back("fail !" + std::to_string(a.fault));
      g_h->raise(a.fault);
    }
    act(a, m, &fn, ctx);
  }
  ++fn.version;
  return fn;
}

// ------------------------------------------------------------ the dynamic layer

AnyPass<PIR> build_dynamic(const Node& n);

// DynModulePass<D>: a module pass type whose declaration is Decl<D> (none for 0).
template <int D>
struct DynModulePassBase {
  const Node* node = nullptr;
  std::shared_ptr<const AnyPass<PIR>> nested;
  PassInfo info() const { return {node->name, node->opt_level}; }
  PIR transform(PIR ir, auto& ctx) const {
    return module_body(*node, std::move(ir), ctx, [&](PIR in) { return passinfra::run(*nested, std::move(in), ctx); });
  }
};
template <int D>
struct DynModulePass : DynModulePassBase<D> {
  using preserves = typename Decl<D>::type;
};
template <>
struct DynModulePass<0> : DynModulePassBase<0> {};

struct FnBody {
  const Node* node = nullptr;
  PFn operator()(PFn fn, const PIR& m, auto& ctx) const { return function_body(*node, std::move(fn), m, ctx); }
};

template <int D>
auto make_function_pass(const Node& n) {
  const PassInfo info{n.name, n.opt_level};
  if constexpr (D == 0) {
    return passinfra::function_pass(info, FnBody{&n});
  } else {
    return passinfra::function_pass(info, FnBody{&n}, typename Decl<D>::type{});
  }
}

AnyPass<PIR> build_dynamic(const Node& n) {
  switch (n.kind) {
    case Node::Kind::seq: {
      std::vector<AnyPass<PIR>> children;
      for (const auto& c : n.children) children.push_back(build_dynamic(c));
      return AnyPass<PIR>(passinfra::DynamicSequential<PIR>(std::move(children), PassInfo{n.name, n.opt_level}));
    }
    case Node::Kind::module_pass:
    case Node::Kind::function_pass: {
      std::vector<AnyPass<PIR>> required;
      for (const auto& r : n.required) required.push_back(build_dynamic(r));
      return with_decl(n.decl, [&](auto d) {
        constexpr int D = decltype(d)::value;
        if (n.kind == Node::Kind::function_pass) {
          return AnyPass<PIR>(make_function_pass<D>(n), std::move(required));
        }
        DynModulePass<D> p;
        p.node = &n;
        if (!n.nested.empty()) p.nested = std::make_shared<const AnyPass<PIR>>(build_dynamic(n.nested.front()));
        return AnyPass<PIR>(std::move(p), std::move(required));
      });
    }
    case Node::Kind::require:
      return with_analysis(n.analysis, [&](auto t) -> AnyPass<PIR> {
        using A = typename decltype(t)::type;
        if constexpr (std::is_same_v<passinfra::unit_of_t<A>, passinfra::module_unit>) {
          return AnyPass<PIR>(passinfra::RequireAnalysis<A>{});
        } else {
          FAIL("require<> of a function analysis is not generated");
          return AnyPass<PIR>(passinfra::InvalidateAllAnalyses{});
        }
      });
    case Node::Kind::invalidate:
      return with_analysis(n.analysis, [&](auto t) {
        return AnyPass<PIR>(passinfra::InvalidateAnalysis<typename decltype(t)::type>{});
      });
    case Node::Kind::invalidate_all:
      return AnyPass<PIR>(passinfra::InvalidateAllAnalyses{});
  }
  return AnyPass<PIR>(passinfra::InvalidateAllAnalyses{});
}

// ------------------------------------------------------------ the static shapes

// The nodes the static pass types of the current scenario stand for.
thread_local std::array<const Node*, 16> g_bound{};  // 0-7: pipeline passes, 8-15: required passes

// SM<I, D>: a module pass bound to node I, declaration Decl<D>; SMn<I, D, Inner>:
// the same, whose `nested` action runs an Inner (held by value).
template <int I, int D, class Inner = void, class Req = passinfra::requires_passes<>>
struct SMBase {
  using required = Req;
  // The nested pipeline (set by with_shape: function passes have no default constructor).
  [[no_unique_address]] std::conditional_t<std::is_void_v<Inner>, std::monostate, std::optional<Inner>> inner{};
  PassInfo info() const {
    const Node* n = g_bound[I];
    return n ? PassInfo{n->name, n->opt_level} : PassInfo{"unbound", 0};
  }
  PIR transform(PIR ir, auto& ctx) const {
    return module_body(*g_bound[I], std::move(ir), ctx, [&](PIR in) {
      if constexpr (std::is_void_v<Inner>) {
        FAIL("a nested action without a nested pipeline");
        return in;
      } else {
        return passinfra::run(*inner, std::move(in), ctx);
      }
    });
  }
};
template <int I, int D, class Inner = void, class Req = passinfra::requires_passes<>>
struct SM : SMBase<I, D, Inner, Req> {
  using preserves = typename Decl<D>::type;
};
template <int I, class Inner, class Req>
struct SM<I, 0, Inner, Req> : SMBase<I, 0, Inner, Req> {};

// RM<J, D>: a required pass (requires_passes needs a compile-time name: R<J>), bound to node 8 + J.
constexpr std::string_view kRequiredNames[] = {"R0", "R1", "R2"};
template <int J>
struct RMBase {
  static constexpr PassInfo info{kRequiredNames[J], 0};
  PIR transform(PIR ir, auto& ctx) const {
    return module_body(*g_bound[8 + J], std::move(ir), ctx, [&](PIR in) {
      FAIL("a nested action in a required pass");
      return in;
    });
  }
};
template <int J, int D>
struct RM : RMBase<J> {
  using preserves = typename Decl<D>::type;
};
template <int J>
struct RM<J, 0> : RMBase<J> {};

template <int I>
struct SFBody {
  PFn operator()(PFn fn, const PIR& m, auto& ctx) const { return function_body(*g_bound[I], std::move(fn), m, ctx); }
};
template <int I, int D>
auto sf(const Node& n) {
  const PassInfo info{n.name, n.opt_level};
  if constexpr (D == 0) {
    return passinfra::function_pass(info, SFBody<I>{});
  } else {
    return passinfra::function_pass(info, SFBody<I>{}, typename Decl<D>::type{});
  }
}
template <int I, int D>
using SF = decltype(sf<I, D>(std::declval<const Node&>()));

using passinfra::InvalidateAllAnalyses;
using passinfra::InvalidateAnalysis;
using passinfra::RequireAnalysis;
using passinfra::Sequential;

constexpr int kShapes = 4;

// Node templates: kind, declaration, static index and the nested structure are
// the shape's; names, opt_levels and actions are filled in at random.
Node t_module(int index, int decl, std::vector<Node> nested = {}) {
  Node n;
  n.kind = Node::Kind::module_pass;
  n.static_index = index;
  n.decl = decl;
  n.nested = std::move(nested);
  return n;
}
Node t_required(Node n, std::vector<Node> required) {
  n.required = std::move(required);
  return n;
}
Node t_function(int index, int decl) {
  Node n;
  n.kind = Node::Kind::function_pass;
  n.static_index = index;
  n.decl = decl;
  return n;
}
Node t_seq(std::vector<Node> children) {
  Node n;
  n.kind = Node::Kind::seq;
  n.children = std::move(children);
  return n;
}
Node t_util(Node::Kind kind, int analysis = 0) {
  Node n;
  n.kind = kind;
  n.analysis = analysis;
  return n;
}

// Shape 0: Sequential<SM<0,0>, SF<1,3>, SM<2,2> (requiring a pass that preserves SetX), RequireAnalysis<MB>,
// SM<3,1>, SF<4,0>, InvalidateAnalysis<FA>, SM<5,5>>
using Req0 = passinfra::requires_passes<RM<0, 5>>;
using Shape0 = Sequential<SM<0, 0>, SF<1, 3>, SM<2, 2, void, Req0>, RequireAnalysis<MB>, SM<3, 1>, SF<4, 0>,
                          InvalidateAnalysis<FA>, SM<5, 5>>;
// Shape 1: a pass whose body runs a static Sequential; InvalidateAllAnalyses.
using Inner1 = Sequential<SM<2, 0>, SF<3, 6>>;
using Shape1 = Sequential<SF<0, 4>, SM<1, 5, Inner1>, InvalidateAllAnalyses, SM<4, 7>, SF<5, 1>>;
// Shape 2: the root is a pass; its nested Sequential holds a pass with its own nested pass.
using Inner2b = SM<4, 4>;
using Inner2 = Sequential<SM<1, 3>, SF<2, 2>, SM<3, 0, Inner2b>>;
using Shape2 = SM<0, 6, Inner2>;
// Shape 3: nested Sequentials, RequireAnalysis<MC>, InvalidateAnalysis<MA>, two required passes.
using Req3 = passinfra::requires_passes<RM<1, 0>, RM<2, 1>>;
using Shape3 = Sequential<SM<0, 0>, Sequential<SF<1, 5>, SM<2, 6>, RequireAnalysis<MC>>, SF<3, 7>,
                          InvalidateAnalysis<MA>, SM<4, 0, void, Req3>>;

Node shape_template(int shape) {
  switch (shape) {
    case 0:
      return t_seq({t_module(0, 0), t_function(1, 3), t_required(t_module(2, 2), {t_module(8, 5)}),
                    t_util(Node::Kind::require, anmodel::MB), t_module(3, 1), t_function(4, 0),
                    t_util(Node::Kind::invalidate, anmodel::FA), t_module(5, 5)});
    case 1:
      return t_seq({t_function(0, 4), t_module(1, 5, {t_seq({t_module(2, 0), t_function(3, 6)})}),
                    t_util(Node::Kind::invalidate_all), t_module(4, 7), t_function(5, 1)});
    case 2:
      return t_module(0, 6, {t_seq({t_module(1, 3), t_function(2, 2), t_module(3, 0, {t_module(4, 4)})})});
    default:
      return t_seq({t_module(0, 0), t_seq({t_function(1, 5), t_module(2, 6), t_util(Node::Kind::require, anmodel::MC)}),
                    t_function(3, 7), t_util(Node::Kind::invalidate, anmodel::MA),
                    t_required(t_module(4, 0), {t_module(9, 0), t_module(10, 1)})});
  }
}

void fill_shape(anmodel::Rng& rng, Node& n, bool top) {
  switch (n.kind) {
    case Node::Kind::seq:
      if (top && rng.chance(40)) {
        n.name = "S1";
        n.opt_level = rng.chance(75) ? 0 : rng.below(4);
      } else {
        n.name = "sequential";
        n.opt_level = 0;
      }
      for (auto& c : n.children) fill_shape(rng, c, false);
      return;
    case Node::Kind::module_pass:
      n.name = rng.pick(anmodel::pass_names());
      n.opt_level = rng.below(4);
      n.actions = anmodel::random_actions(rng, 5, false, false);
      for (auto& r : n.required) {  // RM<J, D>: named R<J>, opt_level 0
        r.name = "R" + std::to_string(r.static_index - 8);
        r.opt_level = 0;
        r.actions = anmodel::random_actions(rng, 3, false, false);
      }
      if (!n.nested.empty()) {
        if (rng.chance(75)) {
          Action a;
          a.kind = Action::Kind::nested;
          a.caught = rng.chance(40);
          n.actions.insert(n.actions.begin() + rng.below(static_cast<int>(n.actions.size()) + 1), a);
        }
        fill_shape(rng, n.nested.front(), false);
      }
      return;
    case Node::Kind::function_pass:
      n.name = rng.pick(anmodel::pass_names());
      n.opt_level = rng.below(4);
      n.fn_actions = {anmodel::random_actions(rng, 3, true, false), anmodel::random_actions(rng, 3, true, false)};
      return;
    default:
      return;
  }
}

// The static instrument families (their masks, in list order).
const std::vector<std::vector<unsigned>>& families() {
  static const std::vector<std::vector<unsigned>> f{
      {}, {0xff}, {0x0f, 0xf0}, {0x90, 0xff, 0x66}, {0x35, 0x5a, 0x80},
  };
  return f;
}
constexpr int kFamilies = 5;

struct Shaped {
  Scenario s;
  int shape = 0;
  int family = 0;
};

Shaped generate_shaped(anmodel::Rng& rng) {
  Shaped out;
  out.shape = rng.below(kShapes);
  out.family = rng.below(kFamilies);
  Scenario& s = out.s;
  int index = 0;
  for (unsigned mask : families()[static_cast<std::size_t>(out.family)]) {
    s.instruments.push_back(anmodel::random_instrument(rng, index++, mask));
  }
  s.context = anmodel::random_context(rng);
  anmodel::random_requests(rng, s);
  s.root = shape_template(out.shape);
  fill_shape(rng, s.root, true);
  anmodel::random_faults(rng, s, 3);
  return out;
}

void bind(const Node& n) {
  if (n.static_index >= 0) g_bound[static_cast<std::size_t>(n.static_index)] = &n;
  for (const auto& c : n.required) bind(c);
  for (const auto& c : n.children) bind(c);
  for (const auto& c : n.nested) bind(c);
}

const Node& child(const Node& n, std::size_t i) { return n.children[i]; }
PassInfo seq_info(const Node& n) { return {n.name, n.opt_level}; }

// The static pipeline object of a shape (function passes carry their node's info).
template <class F>
void with_shape(int shape, const Node& root, F&& f) {
  switch (shape) {
    case 0:
      f(Shape0(seq_info(root), {}, sf<1, 3>(child(root, 1)), {}, {}, {}, sf<4, 0>(child(root, 5)), {}, {}));
      break;
    case 1: {
      const Node& inner = child(root, 1).nested.front();
      SM<1, 5, Inner1> p1;
      p1.inner.emplace(seq_info(inner), SM<2, 0>{}, sf<3, 6>(child(inner, 1)));
      f(Shape1(seq_info(root), sf<0, 4>(child(root, 0)), std::move(p1), {}, {}, sf<5, 1>(child(root, 4))));
      break;
    }
    case 2: {
      const Node& inner = root.nested.front();
      SM<3, 0, Inner2b> p3;
      p3.inner.emplace();
      Shape2 p;
      p.inner.emplace(seq_info(inner), SM<1, 3>{}, sf<2, 2>(child(inner, 1)), std::move(p3));
      f(p);
      break;
    }
    default: {
      const Node& inner = child(root, 1);
      using InnerSeq = Sequential<SF<1, 5>, SM<2, 6>, RequireAnalysis<MC>>;
      f(Shape3(seq_info(root), {}, InnerSeq(seq_info(inner), sf<1, 5>(child(inner, 0)), {}, {}),
               sf<3, 7>(child(root, 2)), {}, {}));
      break;
    }
  }
}

// ------------------------------------------------------------ running

struct Actual {
  std::vector<std::string> events;
  std::exception_ptr escaped;
  std::vector<std::exception_ptr> thrown;
  std::vector<anmodel::Cached> cache;         // by for_each_cached, in storage order
  std::vector<anmodel::Cached> cache_by_get;  // by get_cached, in the model's key order
  std::size_t size = 0;
  std::vector<std::string> trail;
  std::string error;  // an unexpected exception type, etc.
};

// The id of the fault whose exception escaped (for messages).
std::string escaped_id(const Actual& a) {
  for (std::size_t k = 1; k < a.thrown.size(); ++k) {
    if (a.thrown[k] && a.thrown[k] == a.escaped) return std::to_string(k);
  }
  return "?";
}

// The cache afterwards, two ways.
template <class Mgr>
void read_cache(Mgr& am, const PIR& ir, Actual& a) {
  a.size = am.size();
  am.for_each_cached([&](const AnalysisInfo& info, const passinfra::AnyResult& r) {
    int key = -1;
    for (int k = 0; k < anmodel::kAnalyses; ++k) {
      if (info.name == anmodel::key_name(k)) key = k;
    }
    const Res* res = r.template target<Res>();
    a.cache.push_back({key, info.function.empty() ? -1 : function_index(info.function), res ? res->serial : -1});
  });
  for (int k = 0; k < anmodel::kAnalyses; ++k) {
    with_analysis(k, [&](auto t) {
      using A = typename decltype(t)::type;
      if constexpr (std::is_same_v<passinfra::unit_of_t<A>, passinfra::function_unit>) {
        for (int f = 0; f < anmodel::kFunctions; ++f) {
          if (const Res* r = am.template get_cached<A>(ir.functions[static_cast<std::size_t>(f)])) {
            a.cache_by_get.push_back({k, f, r->serial});
          }
        }
      } else {
        if (const Res* r = am.template get_cached<A>()) a.cache_by_get.push_back({k, -1, r->serial});
      }
    });
  }
}

template <class Run>
void run_guarded(Actual& a, Run&& run) {
  try {
    a.trail = run().trail;
  } catch (const FaultError&) {
    a.escaped = std::current_exception();
  } catch (const std::exception& e) {
    a.escaped = std::current_exception();
    a.error = std::string("an unexpected exception escaped: ") + e.what();
  } catch (...) {
    a.escaped = std::current_exception();
    a.error = "an unexpected exception escaped (not a std::exception)";
  }
}

// f(manager&) with the manager kind `mgr` (0: all listed, 1: one, 2: none); with
// `add_all`, every analysis object added first (am.add: names are then known to the
// manager before any use, as by-name actions need).
template <class F>
void with_manager(int mgr, bool add_all, F&& f) {
  auto go = [&](auto& am) {
    if (add_all) {
      for (int k = 0; k < anmodel::kAnalyses; ++k) {
        with_analysis(k, [&](auto t) { CHECK(am.add(typename decltype(t)::type{})); });
      }
    }
    f(am);
  };
  if (mgr == 0) {
    AllListed am;
    go(am);
  } else if (mgr == 1) {
    OneListed am;
    go(am);
  } else {
    NoneListed am;
    go(am);
  }
}

// Some pass of the tree has required passes.
bool has_required(const Node& n) {
  if (!n.required.empty()) return true;
  for (const auto* group : {&n.children, &n.nested}) {
    for (const auto& c : *group) {
      if (has_required(c)) return true;
    }
  }
  return false;
}

// Some action of the tree names an analysis by its name.
bool uses_names(const Node& n) {
  auto named = [](const std::vector<Action>& list) {
    return std::any_of(list.begin(), list.end(), [](const Action& a) { return a.by_name; });
  };
  if (named(n.actions)) return true;
  for (const auto& l : n.fn_actions) {
    if (named(l)) return true;
  }
  for (const auto* group : {&n.children, &n.nested, &n.required}) {
    for (const auto& c : *group) {
      if (uses_names(c)) return true;
    }
  }
  return false;
}

// The dynamic layer: PassContext<IR>(options, instruments, &am) running `pipeline`.
template <class MakePipeline>
Actual run_dynamic(const Scenario& s, int mgr, bool add_all, bool static_instrument_types,
                   MakePipeline&& make_pipeline) {
  Harness h(s);
  g_h = &h;
  Actual a;
  with_manager(mgr, add_all, [&](auto& am) {
    std::vector<AnyInstrument<PIR>> list;
    for (int i = 0; i < static_cast<int>(s.instruments.size()); ++i) {
      list.push_back(make_any_instrument(h, i, static_instrument_types));
    }
    DynCtx ctx(options_of(s.context), passinfra::DynamicInstruments<PIR>(std::move(list)), &am);
    const AnyPass<PIR> pipeline = make_pipeline();
    run_guarded(a, [&] { return passinfra::run(pipeline, aprop::make_ir(), ctx); });
    read_cache(am, aprop::make_ir(), a);
  });
  a.events = std::move(h.events);
  a.thrown = std::move(h.thrown);
  g_h = nullptr;
  return a;
}

// The static layer: make_pass_context<IR>(options, am, instruments...) of the shape's family.
Actual run_static(const Shaped& sh, int mgr, bool add_all) {
  const Scenario& s = sh.s;
  Harness h(s);
  g_h = &h;
  Actual a;
  const auto opts = options_of(s.context);
  with_manager(mgr, add_all, [&](auto& am) {
    auto go = [&](auto& ctx) {
      with_shape(sh.shape, s.root, [&](const auto& root) {
        run_guarded(a, [&] { return passinfra::run(root, aprop::make_ir(), ctx); });
      });
    };
    auto instr = [&](auto& i, int k) -> auto& {
      i.h = &h;
      i.index = k;
      return i;
    };
    switch (sh.family) {
      case 0: {
        auto ctx = passinfra::make_pass_context<PIR>(opts, am);
        go(ctx);
        break;
      }
      case 1: {
        SInstr<0xff> i0;
        auto ctx = passinfra::make_pass_context<PIR>(opts, am, std::ref(instr(i0, 0)));
        go(ctx);
        break;
      }
      case 2: {
        SInstr<0x0f> i0;
        SInstr<0xf0> i1;
        auto ctx = passinfra::make_pass_context<PIR>(opts, am, std::ref(instr(i0, 0)), std::ref(instr(i1, 1)));
        go(ctx);
        break;
      }
      case 3: {
        SInstr<0x90> i0;
        SInstr<0xff> i1;
        SInstr<0x66> i2;
        auto ctx = passinfra::make_pass_context<PIR>(opts, am, std::ref(instr(i0, 0)), std::ref(instr(i1, 1)),
                                                     std::ref(instr(i2, 2)));
        go(ctx);
        break;
      }
      default: {
        SInstr<0x35> i0;
        SInstr<0x5a> i1;
        SInstr<0x80> i2;
        auto ctx = passinfra::make_pass_context<PIR>(opts, am, std::ref(instr(i0, 0)), std::ref(instr(i1, 1)),
                                                     std::ref(instr(i2, 2)));
        go(ctx);
        break;
      }
    }
    read_cache(am, aprop::make_ir(), a);
  });
  a.events = std::move(h.events);
  a.thrown = std::move(h.thrown);
  g_h = nullptr;
  return a;
}

// ------------------------------------------------------------ comparing

std::string show_cache(const std::vector<anmodel::Cached>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + anmodel::describe(v[i]);
  return "[" + out + "]";
}

std::vector<anmodel::Cached> in_key_order(std::vector<anmodel::Cached> v) {
  std::stable_sort(v.begin(), v.end(), [](const anmodel::Cached& x, const anmodel::Cached& y) {
    return x.analysis != y.analysis ? x.analysis < y.analysis : x.function < y.function;
  });
  return v;
}

std::string compare(const Outcome& m, const Actual& a) {
  std::string report;
  if (!a.error.empty()) report += a.error + "\n";
  if (m.events != a.events) {
    std::size_t i = 0;
    while (i < m.events.size() && i < a.events.size() && m.events[i] == a.events[i]) ++i;
    report += "events differ at " + std::to_string(i) + " (model | library):\n";
    for (std::size_t k = 0; k < std::max(m.events.size(), a.events.size()); ++k) {
      const std::string e = k < m.events.size() ? m.events[k] : "";
      const std::string g = k < a.events.size() ? a.events[k] : "";
      report += (e == g ? "    " : " >> ") + e + std::string(e.size() < 44 ? 44 - e.size() : 1, ' ') + g + "\n";
    }
  }
  if (m.escaped) {
    const auto& want = a.thrown[static_cast<std::size_t>(*m.escaped)];
    if (!a.escaped) {
      report += "expected fault " + std::to_string(*m.escaped) + " to escape, nothing escaped\n";
    } else if (!want || want != a.escaped) {
      report += "expected the very exception object of fault " + std::to_string(*m.escaped) + " to escape\n";
    }
  } else if (a.escaped) {
    report += "expected no exception, fault " + escaped_id(a) + " escaped\n";
  }
  if (m.cache != a.cache)
    report += "cache (storage order) " + show_cache(a.cache) + ", expected " + show_cache(m.cache) + "\n";
  if (in_key_order(m.cache) != a.cache_by_get) {
    report +=
        "cache by get_cached " + show_cache(a.cache_by_get) + ", expected " + show_cache(in_key_order(m.cache)) + "\n";
  }
  if (a.size != m.cache.size()) {
    report += "am.size() " + std::to_string(a.size) + ", expected " + std::to_string(m.cache.size()) + "\n";
  }
  if (!m.escaped && m.trail != a.trail) report += "IR trail differs\n";
  return report;
}

}  // namespace

namespace {

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 0);
}

std::uint64_t scenario_seed(std::uint64_t seed, std::uint64_t index) {
  anmodel::Rng mix(seed ^ (index * 0x9e3779b97f4a7c15ull));
  return mix.next();
}

struct Tally {
  int scenarios = 0;
  int runs = 0;
  int failures = 0;
  // How often the model's outcomes took the paths SPEC §10 describes.
  int escaped = 0, computed = 0, dropped = 0, analysis_failed = 0, caught = 0, cached_hits = 0;
  int named = 0, required = 0;  // scenarios with by-name actions, with required passes

  void cover(const Outcome& m) {
    escaped += m.escaped.has_value();
    auto any = [&](std::string_view what) {
      return std::any_of(m.events.begin(), m.events.end(),
                         [&](const std::string& e) { return e.find(what) != std::string::npos; });
    };
    computed += any("run ");
    dropped += any(" invalidated ");
    analysis_failed += any(" analysis_failed ");
    caught += any(" caught ^");
    cached_hits += any("cached ") && !any("= -");
  }
};

void report_failure(Tally& t, std::uint64_t seed, std::uint64_t index, const std::string& layer, const Scenario& s,
                    const std::string& diff) {
  ++t.failures;
  if (t.failures > 5) return;
  const std::string text = "analysis property scenario disagrees with the reference model\n  layer: " + layer +
                           "\n  reproduce: PASSINFRA_ANALYSIS_PROPERTY_SEED=" + std::to_string(seed) +
                           " PASSINFRA_ANALYSIS_PROPERTY_ONLY=" + std::to_string(index) + "\n" + anmodel::describe(s) +
                           diff;
  FAIL_CHECK(text);
}

const char* manager_name(int mgr) {
  return mgr == 0 ? "analyses<MC, FC>" : mgr == 1 ? "analyses<MA>" : "AnalysisManager<IR>";
}

}  // namespace

TEST_CASE("reliability: the analysis reference model reproduces SPEC 10's rules on a written-out scenario") {
  // One module pass P (declares nothing) requests FB@f (which requests MA and FA@f),
  // marks MA preserved; then P2 (preserves<FA, FB>) requests FB@f again (cached).
  Scenario s;
  s.instruments = {{"A", 0xff, {}}};
  s.context.opt_level = 3;
  s.requests[anmodel::FB] = anmodel::kbit(anmodel::FA) | anmodel::kbit(anmodel::MA);
  Node p;
  p.kind = Node::Kind::module_pass;
  p.name = "P";
  Action get_fb;
  get_fb.kind = Action::Kind::get;
  get_fb.key = anmodel::FB;
  get_fb.function = 0;
  Action keep_ma;
  keep_ma.kind = Action::Kind::preserve;
  keep_ma.key = anmodel::MA;
  p.actions = {get_fb, keep_ma};
  Node p2 = p;
  p2.name = "P2";
  p2.decl = 3;
  p2.actions = {get_fb};
  s.root.kind = Node::Kind::seq;
  s.root.name = "sequential";
  s.root.children = {p, p2};
  const Outcome out = anmodel::run_model(s);
  std::string all;
  for (const auto& e : out.events) all += (all.empty() ? "" : " | ") + e;
  // FB@f computed (MA and FA@f nested inside it), then P's set {MA}: FA@f and FB@f
  // dropped (storage order: FA@f before FB@f), MA kept; P2 recomputes.
  CHECK(all ==
        "A should_run sequential | A before sequential | A should_run P | A before P | P | "
        "A before_analysis FB@f | run FB@f #1 | A before_analysis MA | run MA #2 | A after_analysis MA | "
        "A before_analysis FA@f | run FA@f #3 | A after_analysis FA@f | A after_analysis FB@f | get FB@f = #1 | "
        "A invalidated FA@f | A invalidated FB@f | A after P | A should_run P2 | A before P2 | P2 | "
        "A before_analysis FB@f | run FB@f #4 | A before_analysis FA@f | run FA@f #5 | A after_analysis FA@f | "
        "A after_analysis FB@f | get FB@f = #4 | A invalidated MA | A invalidated FB@f | A after P2 | "
        "A after sequential");
  // P2 preserves FA and FB, not MA: MA is dropped, and FB@f#4 with it, since it read MA
  // (a cached hit is an input too); FA@f#5 stays.
  REQUIRE(out.cache.size() == 1);
  CHECK(anmodel::describe(out.cache[0]) == "FA@f #5");
}

TEST_CASE(
    "reliability: analyses -- random pipelines, preserve declarations and faults agree with the reference "
    "model on both layers") {
  const std::uint64_t seed = env_u64("PASSINFRA_ANALYSIS_PROPERTY_SEED", kDefaultSeed);
  const std::uint64_t count = env_u64("PASSINFRA_ANALYSIS_PROPERTY_COUNT", PASSINFRA_ANALYSIS_PROPERTY_SCENARIOS);
  const char* only_env = std::getenv("PASSINFRA_ANALYSIS_PROPERTY_ONLY");
  const bool only = only_env && *only_env;
  const std::uint64_t first = only ? std::strtoull(only_env, nullptr, 0) : 0;
  const std::uint64_t last = only ? first + 1 : count;
  MESSAGE("analysis property test: seed " << seed << ", scenarios " << first << ".." << last);

  Tally t;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t index = first; index < last; ++index) {
    anmodel::Rng rng(scenario_seed(seed, index));
    const int mgr = rng.below(3);
    if (rng.next() & 1) {
      const Scenario s = anmodel::generate(rng, true);
      const Outcome m = anmodel::run_model(s);
      const bool static_types = rng.chance(50);
      const bool add_all = uses_names(s.root) || rng.chance(50);
      const Actual a = run_dynamic(s, mgr, add_all, static_types, [&] { return build_dynamic(s.root); });
      if (auto diff = compare(m, a); !diff.empty()) {
        report_failure(t, seed, index, std::string("dynamic, ") + manager_name(mgr), s, diff);
      }
      ++t.runs;
      t.cover(m);
      t.named += uses_names(s.root);
      t.required += has_required(s.root);
    } else {
      const Shaped sh = generate_shaped(rng);
      g_bound = {};
      bind(sh.s.root);
      const Outcome m = anmodel::run_model(sh.s);
      const bool add_all = uses_names(sh.s.root) || rng.chance(50);
      const std::string shape = "static shape " + std::to_string(sh.shape) + ", family " + std::to_string(sh.family) +
                                ", " + manager_name(mgr);
      if (auto diff = compare(m, run_static(sh, mgr, add_all)); !diff.empty())
        report_failure(t, seed, index, shape, sh.s, diff);
      if (auto diff = compare(m, run_dynamic(sh.s, mgr, add_all, true, [&] { return build_dynamic(sh.s.root); }));
          !diff.empty()) {
        report_failure(t, seed, index, "dynamic (shaped), " + std::string(manager_name(mgr)), sh.s, diff);
      }
      if (auto diff = compare(m, run_dynamic(sh.s, mgr, add_all, true,
                                             [&] {
                                               std::optional<AnyPass<PIR>> erased;
                                               with_shape(sh.shape, sh.s.root,
                                                          [&](const auto& root) { erased.emplace(root); });
                                               return *erased;
                                             }));
          !diff.empty()) {
        report_failure(t, seed, index, shape + " as AnyPass", sh.s, diff);
      }
      t.runs += 3;
      t.cover(m);
      t.named += uses_names(sh.s.root);
      t.required += has_required(sh.s.root);
    }
    ++t.scenarios;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("analysis property test: " << t.scenarios << " scenarios, " << t.runs << " runs, " << t.failures
                                     << " disagreements, " << seconds << " s; paths: " << t.computed
                                     << " computing an analysis, " << t.dropped << " dropping results, "
                                     << t.analysis_failed << " with run_after_analysis_failed, " << t.caught
                                     << " catching in a body, " << t.cached_hits << " with a get_cached hit, "
                                     << t.escaped << " with an escaping exception, " << t.named
                                     << " with by-name actions, " << t.required << " with required passes");
  CHECK(t.failures == 0);
  if (!only && !std::getenv("PASSINFRA_ANALYSIS_PROPERTY_COUNT")) {
    CHECK(t.scenarios >= PASSINFRA_ANALYSIS_PROPERTY_SCENARIOS);
  }
#ifndef PASSINFRA_ANALYSIS_PROPERTY_SANITIZED
  if (!only && !std::getenv("PASSINFRA_ANALYSIS_PROPERTY_COUNT")) CHECK(t.scenarios >= 10000);
#endif
}
