// tinyir/passes.hpp — tinyir's transformations as passinfra passes, Relay's way.
//
// passinfra::ir_traits<Module>        function_type = Function; map_functions (global functions
//                                     that are not Primitive); function_pass_follow_up = InferType;
//                                     print (tinyir::print) and parse (tinyir::parse); verify
//                                     (tinyir/verify.hpp) and print_with_locations (spans shown);
//                                     function_key (the global name) and for_each_function, for
//                                     the function analyses of tinyir/analyses.hpp
// InferType                           module pass   {"InferType", 0}; preserves_all; uses TypeMap
// FoldConstant                        function pass {"FoldConstant", 2}; statistic `folded`
// EliminateCommonSubexpr              function pass {"EliminateCommonSubexpr", 3}, requires InferType
// DeadCodeElimination                 function pass {"DeadCodeElimination", 1}; uses Liveness
// FuseOps(fuse_opt_level = -1)        function pass {"FuseOps", 0}, requires InferType;
//                                     -1: the level is the context's opt_level(); uses FunctionTypes
// DefuseOps                           function pass {"DefuseOps", 3}, requires InferType; uses CallGraph
// ToANormalForm                       module pass   {"ToANormalForm", 1}; preserves CallGraph
// CanonicalizeOps                     function pass {"CanonicalizeOps", 3}, requires InferType;
//                                     uses CallGraph and FunctionTypes
// ConvertLayout(desired)              function pass {"ConvertLayout", 3}, requires InferType, CanonicalizeOps;
//                                     uses CallGraph and FunctionTypes
// BackwardFoldScaleAxis               function pass {"BackwardFoldScaleAxis", 3}, requires InferType
// ForwardFoldScaleAxis                function pass {"ForwardFoldScaleAxis", 3}, requires InferType
// FoldScaleAxis()                     Sequential {"FoldScaleAxis", 0} of the two, then FoldConstant
// AnnotateSpans                       module pass   {"AnnotateSpans", 0}: print, parse back as
//                                     "GeneratedSource", then a nested, instrumented InferType
// PrintIR                             passinfra::PrintIR (module pass {"PrintIR", 0}, logs at INFO)
// kFuseMaxDepth                       config key relay.FuseOps.max_depth (integer, 256), read by FuseOps
// register_passes(registry)           all of the above by name, and kFuseMaxDepth; FuseOps(fuse_opt_level=<int>),
//                                     ConvertLayout(nn.conv2d=["NHWC","default"]), PrintIR(header="...");
//                                     the nest kind `function` over PassRegistry<Function>::global()
// register_passes(registry, functions)  the same, the function passes in `functions`
// register_function_passes(functions) the function-level passes (unit overloads) by name
//
// The names, opt_levels and requirements are those of Relay (TVM 0.8-0.13). As in
// Relay, a function pass maps every global function and then runs InferType as an
// ordinary nested pass under the same context (so instruments see it, e.g.
// FoldConstant > InferType in a timing profile); here every function-level pass
// does that through passinfra::function_pass, which runs the IR's
// function_pass_follow_up. Module passes (InferType, ToANormalForm, AnnotateSpans)
// have no follow-up; AnnotateSpans runs its InferType itself, as Relay's parser does.
//
// Analyses (SPEC §10, tinyir/analyses.hpp). Under a context with an analysis
// manager the passes ask it for what they need instead of recomputing it --
// InferType is then a lookup of TypeMap, which re-infers only the functions the
// passes before changed -- and say what they keep: `using preserves = ...` where
// that holds for any input (InferType changes no node: preserves_all;
// ToANormalForm keeps every call: CallGraph), nothing where the pass rewrites,
// and for each function a function pass leaves as it was (the same node), a
// preserve_all mark for that function. Without a manager every pass computes
// what it needs itself, as before; the IR they produce is the same.
//
// Every pass is also callable: `FoldConstant{}(mod)` runs it under
// passinfra::PassContext<tinyir::Module>::current(), `FoldConstant{}(mod, ctx)`
// under ctx (both through passinfra::run, so instrumented).
//
// This header is the bridge between tinyir and passinfra; tinyir/tinyir.hpp does
// not include it, so the IR itself stays usable without passinfra.
//
// The `// [tag]` lines mark the regions the tutorials in docs/ quote
// (scripts/check_docs.sh, ctest docs.check, keeps them identical).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/core/statistic.hpp>
#include <passinfra/dynamic.hpp>
#include <passinfra/ir/annotate_spans.hpp>
#include <passinfra/ir/print_ir.hpp>

#include "tinyir/analyses.hpp"
#include "tinyir/ir.hpp"
#include "tinyir/parser.hpp"
#include "tinyir/printer.hpp"
#include "tinyir/transforms.hpp"
#include "tinyir/type_infer.hpp"
#include "tinyir/verify.hpp"

namespace tinyir {

// UnitContextFor<Ctx>: Ctx is a unit context of a nest over tinyir's functions.
template <class Ctx>
concept UnitContextFor = requires(const Ctx& c) {
  { c.parent() } -> std::convertible_to<const Module&>;
};

// [infer-type]
// InferType: every node's checked type filled in (Relay's InferType, a module pass).
// Types are a cache in the nodes, so the module's value does not change: it
// preserves every analysis. With a manager it is TypeMap: a cached lookup when no
// pass changed a function since, else inference of the changed functions only.
struct InferType : passinfra::CallablePass<InferType> {
  static constexpr passinfra::PassInfo info{"InferType", 0};
  using preserves = passinfra::preserves_all;
  template <class Ctx>
  Module transform(Module m, Ctx& ctx) const {
    const TypeMapInfo* types = find_analysis<TypeMap>(ctx, m);
    if (types != nullptr && types->describes(m)) return m;
    return infer_types(std::move(m));  // no manager (or a stale map: see ensure_types)
  }
  // At unit level (a nest's function): that function's types.
  template <UnitContextFor Ctx>
  Function transform(Function fn, Ctx& /*ctx*/) const {
    return infer_types(std::move(fn));
  }
};
// [infer-type]

}  // namespace tinyir

namespace passinfra {

// [ir-traits]
// What passinfra needs to know about tinyir (see passinfra/core/ir_traits.hpp).
template <>
struct ir_traits<tinyir::Module> {
  using function_type = tinyir::Function;

  // Relay's function passes run InferType on the module afterwards; so do tinyir's.
  using function_pass_follow_up = tinyir::InferType;

  // Nests (passinfra/core/nest.hpp) run over its functions: unit_traits below.
  using unit_types = passinfra::unit_list<tinyir::Function>;

  // f(fn, module) for every global function except Primitive ones (a fused group
  // lifted to the module is left alone, as Relay skips functions not to optimize);
  // `module` is the input module, as a Relay function pass sees it.
  template <class F>
  static tinyir::Module map_functions(tinyir::Module m, F&& f) {
    std::vector<tinyir::Module::Entry> out;
    out.reserve(m.size());
    for (const auto& [name, fn] : m) out.emplace_back(name, fn->is_primitive() ? fn : f(fn, std::as_const(m)));
    return tinyir::Module(std::move(out));
  }

  static std::string print(const tinyir::Module& m) { return tinyir::print(m); }

  static tinyir::Module parse(std::string_view text, std::string_view source) { return tinyir::parse(text, source); }

  // Structural checks (tinyir/verify.hpp): what tinyir-opt's --verify-each and its
  // checks of the input and the output run.
  static std::optional<std::string> verify(const tinyir::Module& m) { return tinyir::verify(m); }

  // The text with `/* span=<source>:<line>:<col> */` after each binding (--print-debuginfo).
  static std::string print_with_locations(const tinyir::Module& m) {
    return tinyir::print(m, tinyir::PrintOptions{.show_spans = true});
  }

  // Function analyses are cached per global name, spelled as in the text ("@main";
  // tinyir/analyses.hpp): the name the node was given when it was put in a module.
  static std::string function_key(const tinyir::Function& fn) {
    const std::string_view name = fn->global_name();
    if (name.empty())
      throw tinyir::Error(
          "function_key: the function was never put in a module, so it has no global name to key "
          "its analyses by");
    return "@" + std::string(name);
  }
  // f(fn) for every global function (what AnalysisPreservationChecker recomputes).
  template <class F>
  static void for_each_function(const tinyir::Module& m, F&& f) {
    for (const auto& [name, fn] : m) f(fn);
  }
};
// [ir-traits]

// [unit-traits]
// A function as a nest's unit: the nest kind "function", units named "@<name>".
template <>
struct ir_traits<tinyir::Function> {
  static constexpr std::string_view name = "function";
  using parent_type = tinyir::Module;
  static std::string print(const tinyir::Function& fn) { return tinyir::print(tinyir::Expr(fn)); }
};

// The units of a module: its global functions except Primitive ones (left
// alone, as Relay's SkipFunction and map_functions above), in module order.
template <>
struct unit_traits<tinyir::Module, tinyir::Function> {
  static std::vector<UnitSlot<tinyir::Function>> units(const tinyir::Module& m) {
    std::vector<UnitSlot<tinyir::Function>> out;
    out.reserve(m.size());
    for (const auto& [name, fn] : m) {
      if (!fn->is_primitive()) out.push_back({"@" + name, fn});
    }
    return out;
  }
  static tinyir::Module replace_units(const tinyir::Module& m, std::vector<UnitSlot<tinyir::Function>> slots) {
    std::vector<tinyir::Module::Entry> out;
    out.reserve(m.size());
    std::size_t k = 0;
    for (const auto& [name, fn] : m) {
      if (fn->is_primitive()) {
        out.emplace_back(name, fn);
      } else {
        out.emplace_back(name, std::move(slots.at(k++).ir));
      }
    }
    return tinyir::Module(std::move(out));
  }
};
// [unit-traits]

}  // namespace passinfra

namespace tinyir {

namespace detail {

// [run-function-pass]
// run_function_pass(info, m, ctx, f): the body of a function-level pass: f(fn, mod)
// on each function ir_traits lets through, then InferType (nested, instrumented
// under ctx) -- exactly what passinfra::function_pass does. A function f returns
// unchanged is marked preserve_all (SPEC §10.5: the marks for f apply to f).
template <class Ctx, class F>
Module run_function_pass(const passinfra::PassInfo& info, Module m, Ctx& ctx, F f) {
  auto body = [&f](Function fn, const Module& mod, auto& c) {
    Function out = f(fn, mod);
    preserve_all_if_unchanged(c, fn, out);
    return out;
  };
  return passinfra::function_pass(info, std::move(body)).transform(std::move(m), ctx);
}
// [run-function-pass]

// [run-unit-pass]
// run_unit_pass(fn, ctx, f): the same pass at unit level, inside a Nest
// (passinfra/core/nest.hpp): f(fn, parent) on this one function, then InferType
// on it, nested and instrumented under ctx -- Relay's follow-up, per function.
template <class Ctx, class F>
Function run_unit_pass(Function fn, Ctx& ctx, F f) {
  Function out = f(fn, ctx.parent());
  return passinfra::run(InferType{}, std::move(out), ctx);
}
// [run-unit-pass]

// FunctionLevelPass<Derived>: a function-level pass at both levels from one
// body, `Derived::apply(fn, mod, ctx)` for one function of `mod`: the module
// transform runs it over the module's functions (TVM's function pass), the
// unit transform on one function inside a nest.
template <class Derived>
struct FunctionLevelPass : passinfra::CallablePass<Derived> {
  template <class Ctx>
  Module transform(Module m, Ctx& ctx) const {
    return run_function_pass(Derived::info, std::move(m), ctx,
                             [&](const Function& fn, const Module& mod) { return self().apply(fn, mod, ctx); });
  }
  template <UnitContextFor Ctx>
  Function transform(Function fn, Ctx& ctx) const {
    return run_unit_pass(std::move(fn), ctx,
                         [&](const Function& f, const Module& mod) { return self().apply(f, mod, ctx); });
  }

 private:
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
};

}  // namespace detail

// FoldConstant: evaluates operators on constants with data (fold_constant.hpp).
// Statistic `folded`: the calls it replaced by constants (SPEC §13), counted
// locally per function and added once per run.
struct FoldConstant : passinfra::CallablePass<FoldConstant> {
  static constexpr passinfra::PassInfo info{"FoldConstant", 2};
  passinfra::Statistic folded{"folded", "Number of calls folded"};
  passinfra::StatisticList statistics() const { return {&folded}; }
  template <class Ctx>
  Module transform(Module m, Ctx& ctx) const {
    std::uint64_t n = 0;
    Module out = detail::run_function_pass(
        info, std::move(m), ctx, [&n](const Function& fn, const Module& mod) { return fold_constant(fn, mod, &n); });
    folded += n;
    return out;
  }
  template <UnitContextFor Ctx>
  Function transform(Function fn, Ctx& ctx) const {
    std::uint64_t n = 0;
    Function out = detail::run_unit_pass(
        std::move(fn), ctx, [&n](const Function& f, const Module& mod) { return fold_constant(f, mod, &n); });
    folded += n;
    return out;
  }
};

// [eliminate-common-subexpr]
// EliminateCommonSubexpr: merges equal calls (eliminate_common_subexpr.hpp).
struct EliminateCommonSubexpr : passinfra::CallablePass<EliminateCommonSubexpr> {
  static constexpr passinfra::PassInfo info{"EliminateCommonSubexpr", 3};
  using required = passinfra::requires_passes<InferType>;
  template <class Ctx>
  Module transform(Module m, Ctx& ctx) const {
    return detail::run_function_pass(info, std::move(m), ctx, [](const Function& fn, const Module& mod) {
      return eliminate_common_subexpr(fn, mod);
    });
  }
  template <UnitContextFor Ctx>
  Function transform(Function fn, Ctx& ctx) const {
    return detail::run_unit_pass(std::move(fn), ctx,
                                 [](const Function& f, const Module& mod) { return eliminate_common_subexpr(f, mod); });
  }
};
// [eliminate-common-subexpr]

// [dead-code-elimination]
// DeadCodeElimination: drops unused let bindings (dead_code_elimination.hpp). With
// a manager, Liveness says which: a function without dead lets is left as it is.
struct DeadCodeElimination : detail::FunctionLevelPass<DeadCodeElimination> {
  static constexpr passinfra::PassInfo info{"DeadCodeElimination", 1};
  // The body, for one function of `mod` (both levels: detail::FunctionLevelPass).
  template <class Ctx>
  Function apply(const Function& fn, const Module& mod, Ctx& ctx) const {
    const LivenessInfo* liveness = find_analysis<Liveness>(ctx, mod, fn);
    if (liveness == nullptr) return dead_code_elimination(fn, mod);
    if (liveness->dead.empty()) return fn;
    // One round: the live set is already the fixed point (used_vars).
    return downcast<FunctionNode>(tinyir::detail::UnusedLetRemover(liveness->live).mutate(fn));
  }
};
// [dead-code-elimination]

// kFuseMaxDepth: TVM's config key relay.FuseOps.max_depth (integer, default 256):
// the most operators FuseOps puts in one group. register_passes registers it.
inline constexpr passinfra::ConfigKey<int> kFuseMaxDepth{"relay.FuseOps.max_depth", 256};

// FuseOps(fuse_opt_level): groups operators into Primitive functions (fuse_ops.hpp).
// fuse_opt_level -1 (the default) takes the level from the context's opt_level(),
// as Relay's FuseOps() does; the group size limit is the context's
// relay.FuseOps.max_depth (kFuseMaxDepth), as in TVM.
struct FuseOps : passinfra::CallablePass<FuseOps> {
  static constexpr passinfra::PassInfo info{"FuseOps", 0};
  using required = passinfra::requires_passes<InferType>;

  constexpr FuseOps() = default;
  constexpr explicit FuseOps(int fuse_opt_level) : fuse_opt_level(fuse_opt_level) {}

  int fuse_opt_level = -1;

  template <class Ctx>
  Module transform(Module m, Ctx& ctx) const {
    const auto [level, max_depth] = limits(ctx);
    return detail::run_function_pass(info, std::move(m), ctx,
                                     [&, level = level, max_depth = max_depth](const Function& fn, const Module& mod) {
                                       return apply(fn, mod, ctx, level, max_depth);
                                     });
  }
  template <UnitContextFor Ctx>
  Function transform(Function fn, Ctx& ctx) const {
    const auto [level, max_depth] = limits(ctx);
    return detail::run_unit_pass(std::move(fn), ctx,
                                 [&, level = level, max_depth = max_depth](const Function& f, const Module& mod) {
                                   return apply(f, mod, ctx, level, max_depth);
                                 });
  }

 private:
  // The fusion level and the group size limit under ctx (checked).
  template <class Ctx>
  std::pair<int, int> limits(Ctx& ctx) const {
    const int level = fuse_opt_level == -1 ? ctx.opt_level() : fuse_opt_level;
    const int max_depth = ctx.get_config(kFuseMaxDepth);
    if (max_depth < 1) {
      throw Error("FuseOps: config relay.FuseOps.max_depth is " + std::to_string(max_depth) +
                  "; expected at least 1 (operators per group)");
    }
    return {level, max_depth};
  }
  // The body, for one function of `mod` (both levels).
  template <class Ctx>
  Function apply(const Function& fn, const Module& mod, [[maybe_unused]] Ctx& ctx, int level, int max_depth) const {
    // what fuse_ops(fn, mod, level) does, with TVM's limit of
    // 256 replaced by max_depth
    ensure_types(ctx, fn, mod);
    return tinyir::detail::OpFuser(level, max_depth).run(fn);
  }
};

// DefuseOps: inlines the Primitive functions FuseOps made (fuse_ops.hpp). With a
// manager, a function that CallGraph says calls no function value is left alone.
struct DefuseOps : detail::FunctionLevelPass<DefuseOps> {
  static constexpr passinfra::PassInfo info{"DefuseOps", 3};
  using required = passinfra::requires_passes<InferType>;
  // The body, for one function of `mod` (both levels: detail::FunctionLevelPass).
  template <class Ctx>
  Function apply(const Function& fn, const Module& mod, Ctx& ctx) const {
    if (const CallGraphInfo* calls = find_analysis<CallGraph>(ctx, mod)) {
      const CallGraphInfo::Callees* callees = calls->find(mod.name_of(fn));
      if (callees != nullptr && !callees->calls_functions) return fn;
    }
    return defuse_ops(fn, mod);
  }
};

// [to-a-normal-form]
// ToANormalForm: binds every computation to a let variable (to_a_normal_form.hpp).
// A module pass, as in Relay. Every call stays (bound to a variable), so what
// each function calls does not change: CallGraph is preserved.
struct ToANormalForm : passinfra::CallablePass<ToANormalForm> {
  static constexpr passinfra::PassInfo info{"ToANormalForm", 1};
  using preserves = passinfra::preserves<CallGraph>;
  template <class Ctx>
  Module transform(const Module& m, Ctx& /*ctx*/) const {
    return to_a_normal_form(m);
  }
};
// [to-a-normal-form]

// CanonicalizeOps: nn.bias_add into add of expand_dims (canonicalize_ops.hpp).
struct CanonicalizeOps : detail::FunctionLevelPass<CanonicalizeOps> {
  static constexpr passinfra::PassInfo info{"CanonicalizeOps", 3};
  using required = passinfra::requires_passes<InferType>;
  // The body, for one function of `mod` (both levels: detail::FunctionLevelPass).
  template <class Ctx>
  Function apply(const Function& fn, const Module& mod, Ctx& ctx) const {
    // With a manager: only functions that call nn.bias_add, typed through FunctionTypes.
    const CallGraphInfo* calls = find_analysis<CallGraph>(ctx, mod);
    if (calls == nullptr) return canonicalize_ops(fn, mod);
    if (!calls->calls(mod.name_of(fn), "nn.bias_add")) return fn;
    ensure_types(ctx, fn, mod);
    return tinyir::detail::OpCanonicalizer().mutate_function(fn);
  }
};

// ConvertLayout(desired): nn.conv2d in the desired layouts, e.g.
// ConvertLayout({{"nn.conv2d", {"NHWC", "default"}}}) (convert_layout.hpp).
struct ConvertLayout : detail::FunctionLevelPass<ConvertLayout> {
  static constexpr passinfra::PassInfo info{"ConvertLayout", 3};
  using required = passinfra::requires_passes<InferType, CanonicalizeOps>;

  explicit ConvertLayout(DesiredLayouts desired) : desired_layouts(std::move(desired)) {}
  // ConvertLayout({{"nn.conv2d", {"NHWC"}}}): one entry reads unambiguously too.
  ConvertLayout(std::initializer_list<DesiredLayouts::value_type> desired) : desired_layouts(desired) {}

  DesiredLayouts desired_layouts;

  // The body, for one function of `mod` (both levels: detail::FunctionLevelPass).
  template <class Ctx>
  Function apply(const Function& fn, const Module& mod, Ctx& ctx) const {
    // With a manager: only functions that call an operator whose result has a
    // layout of its own (the others come out unchanged), typed through FunctionTypes.
    const CallGraphInfo* calls = find_analysis<CallGraph>(ctx, mod);
    if (calls == nullptr) return convert_layout(fn, mod, desired_layouts);
    const std::string_view name = mod.name_of(fn);
    bool has_layout = false;
    for (const char* op : {"nn.conv2d", "nn.dense", "nn.max_pool2d", "nn.global_avg_pool2d"})
      has_layout = has_layout || calls->calls(name, op);
    if (!has_layout) return fn;
    ensure_types(ctx, fn, mod);
    return tinyir::detail::LayoutConverter(desired_layouts).run(fn);
  }
};

// BackwardFoldScaleAxis / ForwardFoldScaleAxis: a per-channel multiply by a scale
// folded into the weight of the nn.conv2d (or nn.dense) before / after it
// (fold_scale_axis.hpp).
struct BackwardFoldScaleAxis : detail::FunctionLevelPass<BackwardFoldScaleAxis> {
  static constexpr passinfra::PassInfo info{"BackwardFoldScaleAxis", 3};
  using required = passinfra::requires_passes<InferType>;
  template <class Ctx>
  Function apply(const Function& fn, const Module& mod, Ctx& /*ctx*/) const {
    return backward_fold_scale_axis(fn, mod);
  }
};

struct ForwardFoldScaleAxis : detail::FunctionLevelPass<ForwardFoldScaleAxis> {
  static constexpr passinfra::PassInfo info{"ForwardFoldScaleAxis", 3};
  using required = passinfra::requires_passes<InferType>;
  template <class Ctx>
  Function apply(const Function& fn, const Module& mod, Ctx& /*ctx*/) const {
    return forward_fold_scale_axis(fn, mod);
  }
};

// FoldScaleAxis(): Relay's FoldScaleAxis, Sequential({BackwardFoldScaleAxis(),
// ForwardFoldScaleAxis(), FoldConstant()}, "FoldScaleAxis") -- a Sequential of
// opt_level 0 whose two folding passes (opt_level 3) run from opt_level 3, and
// whose FoldConstant (opt_level 2) folds the scaled weights.
using FoldScaleAxisSequential = passinfra::Sequential<BackwardFoldScaleAxis, ForwardFoldScaleAxis, FoldConstant>;
inline FoldScaleAxisSequential FoldScaleAxis() {  // Relay's spelling: relay.transform.FoldScaleAxis()
  return FoldScaleAxisSequential({"FoldScaleAxis", 0}, BackwardFoldScaleAxis{}, ForwardFoldScaleAxis{}, FoldConstant{});
}

// [annotate-spans]
// AnnotateSpans: passinfra's AnnotateSpans pass (passinfra/ir/annotate_spans.hpp)
// through ir_traits<Module>::print/parse: the module printed and parsed back with
// source "GeneratedSource", so every node carries a span into that text; then
// InferType, run as a nested pass under the same context (Relay's parser
// type-checks what it parsed).
using AnnotateSpans = passinfra::AnnotateSpans<InferType>;
// [annotate-spans]

// PrintIR(header): passinfra's PrintIR pass ("PrintIR(<header>):" and the module, at INFO).
using PrintIR = passinfra::PrintIR;

// register_function_passes(functions): the passes that also run on one
// function (their unit-level overloads), into a registry of function passes:
// InferType, FoldConstant, EliminateCommonSubexpr, DeadCodeElimination,
// DefuseOps, CanonicalizeOps, FuseOps and ConvertLayout (options as below).
inline void register_function_passes(passinfra::PassRegistry<Function>& functions) {
  using passinfra::ConfigType;
  using passinfra::PassOptions;
  functions.add<InferType>("infer the types of the function");
  functions.add<FoldConstant>("evaluate operators whose operands are constants with data");
  functions.add<EliminateCommonSubexpr>("merge calls that compute the same value");
  functions.add<DeadCodeElimination>("remove let bindings whose variable is never used");
  functions.add<DefuseOps>("inline the Primitive functions made by FuseOps");
  functions.add<CanonicalizeOps>("rewrite nn.bias_add as add of expand_dims");
  functions.add(
      "FuseOps",
      [](const PassOptions& options) { return FuseOps(passinfra::get_option<int>(options, "fuse_opt_level")); },
      {{"fuse_opt_level", ConfigType::integer, std::int64_t{-1}}},
      "fuse operators into Primitive functions (-1: the context's opt_level)");
  functions.add(
      "ConvertLayout",
      [](const PassOptions& options) {
        return ConvertLayout({{"nn.conv2d", passinfra::get_option<passinfra::StringList>(options, "nn.conv2d")}});
      },
      {{"nn.conv2d", ConfigType::string_list}}, "run nn.conv2d in the desired data (and kernel) layout");
}

// register_passes(registry[, functions]): every pass above, by its info name,
// and the nest kind `function` (SPEC §11.11), whose passes are the function
// passes registered into `functions` (default PassRegistry<Function>::global(),
// which must outlive `registry`): pipeline text can then say
// sequential(InferType,function(FoldConstant,EliminateCommonSubexpr),FuseOps).
// FuseOps takes fuse_opt_level (integer, default -1), ConvertLayout nn.conv2d
// (list of strings: data layout[, kernel layout]; required), PrintIR header
// (string, default ""). Registering twice into the same registries is a no-op.
inline void register_passes(passinfra::PassRegistry<Module>& registry, passinfra::PassRegistry<Function>& functions) {
  using passinfra::ConfigType;
  using passinfra::PassOptions;
  passinfra::register_config_option(kFuseMaxDepth, "the most operators FuseOps puts in one group");
  register_function_passes(functions);
  registry.add_nest<Function>(functions);
  registry.add<InferType>("infer the type of every expression");
  registry.add<FoldConstant>("evaluate operators whose operands are constants with data");
  registry.add<EliminateCommonSubexpr>("merge calls that compute the same value");
  registry.add<DeadCodeElimination>("remove let bindings whose variable is never used");
  registry.add<DefuseOps>("inline the Primitive functions made by FuseOps");
  registry.add<ToANormalForm>("bind every computation to a let variable");
  registry.add<CanonicalizeOps>("rewrite nn.bias_add as add of expand_dims");
  registry.add<AnnotateSpans>("print and parse back, so every node has a span into GeneratedSource");
  registry.add<BackwardFoldScaleAxis>("fold a per-channel multiply after nn.conv2d into its weight");
  registry.add<ForwardFoldScaleAxis>("fold a per-channel multiply before nn.conv2d into its weight");
  registry.add(
      "FoldScaleAxis", [](const PassOptions&) { return FoldScaleAxis(); }, {},
      "BackwardFoldScaleAxis, ForwardFoldScaleAxis, then FoldConstant");
  registry.add(
      "FuseOps",
      [](const PassOptions& options) { return FuseOps(passinfra::get_option<int>(options, "fuse_opt_level")); },
      {{"fuse_opt_level", ConfigType::integer, std::int64_t{-1}}},
      "fuse operators into Primitive functions (-1: the context's opt_level)");
  registry.add(
      "ConvertLayout",
      [](const PassOptions& options) {
        return ConvertLayout({{"nn.conv2d", passinfra::get_option<passinfra::StringList>(options, "nn.conv2d")}});
      },
      {{"nn.conv2d", ConfigType::string_list}}, "run nn.conv2d in the desired data (and kernel) layout");
  registry.add(
      "PrintIR",
      [](const PassOptions& options) { return PrintIR(passinfra::get_option<std::string>(options, "header")); },
      {{"header", ConfigType::string, std::string{}}}, "log the module at INFO");
}
inline void register_passes(passinfra::PassRegistry<Module>& registry) {
  register_passes(registry, passinfra::PassRegistry<Function>::global());
}

}  // namespace tinyir
