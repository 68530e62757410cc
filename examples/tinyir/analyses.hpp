// tinyir/analyses.hpp — tinyir's analyses for passinfra's analysis manager (SPEC §10).
//
// FunctionTypes   function analysis {"FunctionTypes"} -> FunctionTypesInfo: type inference
//                 of one global function (every node's checked type filled in)
// TypeMap         module analysis {"TypeMap"} -> TypeMapInfo, depends_on<FunctionTypes>: the
//                 type of every global function; what InferType produces
// CallGraph       module analysis {"CallGraph"} -> CallGraphInfo: what each global function
//                 calls (the operators by name; function values such as fused groups)
// Liveness        function analysis {"Liveness"} -> LivenessInfo: the use-def facts of one
//                 global function: the variables live code uses, the let bindings that are dead
// TypeAnalyses    the tag (analysis_sets) of FunctionTypes and TypeMap
// function analyses are keyed by the global name (ir_traits<Module>::function_key, passes.hpp)
//
// find_analysis<A>(ctx, mod[, fn])   A's result through ctx.analyses(), or nullptr when ctx
//                                    has no analysis manager (passes work without one); in a
//                                    nest's unit, a module result only when it is cached
// ensure_types(ctx, fn, mod)         fn's nodes typed: FunctionTypes through the manager
//                                    (cached), or a fresh infer_type(fn) without one (or
//                                    when the cached result describes another node)
// preserve_all_if_unchanged(ctx, in, out)   when out is in (the pass changed nothing),
//                                    ctx.analyses().preserve_all() (LLVM's "return
//                                    PreservedAnalyses::all()" when nothing changed)
//
// Every result compares with == (the AnalysisPreservationChecker recomputes and
// compares). FunctionTypesInfo, TypeMapInfo and LivenessInfo hold the function nodes
// they describe (shared, so a freed node's address is never mistaken for a new one):
// a result computed for another version of the function differs. CallGraphInfo is
// structural (names only), so a pass that keeps every call, such as
// ToANormalForm, preserves it honestly.
//
// Types live in the nodes (expr.hpp's checked-type cache): FunctionTypes fills that
// cache, as InferType always did, and records that it did; the cache is a function
// of the immutable node, so writing it is not a change of the IR.
//
// Include tinyir/passes.hpp (it includes this header and gives the function keys);
// this header includes passes.hpp at its end for the same effect.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "tinyir/functor.hpp"
#include "tinyir/module.hpp"
#include "tinyir/transforms/dead_code_elimination.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

// TypeAnalyses: a tag for "the types": preserving it keeps FunctionTypes and TypeMap.
struct TypeAnalyses {};

// ---- FunctionTypes ---------------------------------------------------------

// FunctionTypesInfo: `function` (the node described) is typed; `type` is its type.
struct FunctionTypesInfo {
  Function function;
  Type type;

  friend bool operator==(const FunctionTypesInfo& a, const FunctionTypesInfo& b) {
    return a.function == b.function && type_equal(a.type, b.type);
  }
};

// [function-types]
// FunctionTypes: type inference of one function (SPEC §10.1, a function analysis).
struct FunctionTypes {
  static constexpr passinfra::AnalysisInfo info{"FunctionTypes"};
  using unit = passinfra::function_unit;
  using sets = passinfra::analysis_sets<TypeAnalyses>;
  using result_type = FunctionTypesInfo;
  result_type run(const Function& fn, const Module& /*mod*/) const { return {fn, infer_type(fn)}; }
};
// [function-types]

// ---- TypeMap ---------------------------------------------------------------

// TypeMapInfo: every global function's type, in module order.
struct TypeMapInfo {
  struct Entry {
    std::string name;
    Function function;  // the node typed
    Type type;
  };
  std::vector<Entry> functions;

  // type_of(name): the type of the global function, or null when there is none.
  Type type_of(std::string_view name) const {
    for (const auto& e : functions)
      if (e.name == name) return e.type;
    return nullptr;
  }

  // describes(mod): the map was computed for these very functions (same names,
  // same nodes, same order) -- false after a pass changed one of them.
  bool describes(const Module& mod) const {
    if (mod.size() != functions.size()) return false;
    for (std::size_t i = 0; i < functions.size(); ++i) {
      const auto& [name, fn] = mod.functions()[i];
      if (functions[i].name != name || functions[i].function != fn) return false;
    }
    return true;
  }

  friend bool operator==(const TypeMapInfo& a, const TypeMapInfo& b) {
    if (a.functions.size() != b.functions.size()) return false;
    for (std::size_t i = 0; i < a.functions.size(); ++i) {
      const Entry& x = a.functions[i];
      const Entry& y = b.functions[i];
      if (x.name != y.name || x.function != y.function || !type_equal(x.type, y.type)) return false;
    }
    return true;
  }
};

// [type-map]
// TypeMap: the type of every global function, from each one's FunctionTypes. A
// function the pass before changed has lost its FunctionTypes (and so this map,
// which read it: SPEC §10.4's cascade); recomputing infers that function only.
struct TypeMap {
  static constexpr passinfra::AnalysisInfo info{"TypeMap"};
  using depends_on = passinfra::depends_on<FunctionTypes>;
  using sets = passinfra::analysis_sets<TypeAnalyses>;
  using result_type = TypeMapInfo;
  template <class Deps>
  result_type run(const Module& mod, Deps& deps) const {
    result_type out;
    out.functions.reserve(mod.size());
    for (const auto& [name, fn] : mod) {
      const FunctionTypesInfo& types = deps.template get<FunctionTypes>(fn);
      out.functions.push_back({name, fn, types.type});
    }
    return out;
  }
};
// [type-map]

// ---- CallGraph -------------------------------------------------------------

// CallGraphInfo: the call graph's edges: for each global function (module order),
// the operators it calls and whether it calls function values (fused groups,
// closures), nested functions' bodies included. Edges, not counts: a rewrite that
// keeps every call but duplicates one (ToANormalForm does, for a call shared by a
// closure and its enclosing scope) keeps the graph.
struct CallGraphInfo {
  struct Callees {
    std::string name;                        // the global function
    bool primitive = false;                  // it is itself a Primitive function
    std::set<std::string, std::less<>> ops;  // the operators it calls
    bool calls_functions = false;            // it calls a function value

    bool calls(std::string_view op) const { return ops.find(op) != ops.end(); }
    friend bool operator==(const Callees&, const Callees&) = default;
  };
  std::vector<Callees> functions;

  // find(name): the global function's entry, or null.
  const Callees* find(std::string_view name) const {
    for (const auto& c : functions)
      if (c.name == name) return &c;
    return nullptr;
  }
  // calls(name, op): the global function calls operator op (false when there is no such function).
  bool calls(std::string_view name, std::string_view op) const {
    const Callees* c = find(name);
    return c != nullptr && c->calls(op);
  }

  friend bool operator==(const CallGraphInfo&, const CallGraphInfo&) = default;
};

namespace detail {

inline CallGraphInfo::Callees callees_of(const std::string& name, const Function& fn) {
  CallGraphInfo::Callees out{name, fn->is_primitive(), {}, false};
  post_order_visit(fn, [&](const Expr& n) {
    if (const auto* c = n->as<CallNode>()) {
      if (c->is_op())
        out.ops.insert(c->op);
      else
        out.calls_functions = true;
    }
  });
  return out;
}

}  // namespace detail

// [call-graph]
// CallGraph: who calls what (a module analysis).
struct CallGraph {
  static constexpr passinfra::AnalysisInfo info{"CallGraph"};
  using result_type = CallGraphInfo;
  result_type run(const Module& mod) const {
    result_type out;
    out.functions.reserve(mod.size());
    for (const auto& [name, fn] : mod) out.functions.push_back(detail::callees_of(name, fn));
    return out;
  }
};
// [call-graph]

// ---- Liveness --------------------------------------------------------------

// LivenessInfo: which variables of `function` live code uses (a let's value is
// live only when its variable is: the fixed point DeadCodeElimination needs), and
// the let-bound variables that are dead, in the order their lets are reached.
struct LivenessInfo {
  Function function;
  std::unordered_set<const VarNode*> live;  // the variables of `function` used by live code
  std::vector<Var> dead;                    // let-bound, never used by live code

  bool is_live(const Var& v) const { return live.count(v.get()) != 0; }

  friend bool operator==(const LivenessInfo& a, const LivenessInfo& b) {
    return a.function == b.function && a.live == b.live && a.dead == b.dead;
  }
};

// [liveness]
// Liveness: the use-def facts of one function (a function analysis).
struct Liveness {
  static constexpr passinfra::AnalysisInfo info{"Liveness"};
  using unit = passinfra::function_unit;
  using result_type = LivenessInfo;
  result_type run(const Function& fn, const Module& /*mod*/) const {
    result_type out{fn, detail::used_vars(fn), {}};
    post_order_visit(fn, [&](const Expr& n) {
      if (const auto* l = n->as<LetNode>(); l && !out.live.count(l->var.get())) out.dead.push_back(l->var);
    });
    return out;
  }
};
// [liveness]

// ---- using them from a pass --------------------------------------------------

// AnalysesOverModule<Ctx, A>: Ctx's analyses are tinyir's (a manager over
// Module). A unit's context in a nest (passinfra::HasUnitAnalyses: the static
// unit context or ContextRef<Function>) sees the module's manager from its
// function (SPEC §11.13): function analyses of its function, module results
// only when cached.
template <class Ctx, class A>
concept AnalysesOverModule = requires(Ctx& ctx, const Module& mod) {
  ctx.analyses().template get<A>(mod);
} || requires(Ctx& ctx, const Module& mod, const Function& fn) { ctx.analyses().template get<A>(mod, fn); };

// [find-analysis]
// find_analysis<A>(ctx, mod[, fn]): A's result, computed or cached by the context's
// analysis manager; nullptr when the context has none, so a pass works with and
// without a manager (the pass then computes what it needs itself).
template <class A, class Ctx>
const typename A::result_type* find_analysis(Ctx& ctx, const Module& mod) {
  if constexpr (passinfra::HasUnitAnalyses<Ctx>) {
    // In a nest's unit, module results are read-only: the cached one, or compute it yourself.
    if (passinfra::analyses_available(ctx)) return ctx.analyses().template get_cached_parent<A>();
  } else if constexpr (passinfra::HasAnalyses<Ctx> && AnalysesOverModule<Ctx, A>) {
    if (passinfra::analyses_available(ctx)) return &ctx.analyses().template get<A>(mod);
  }
  return nullptr;
}
template <class A, class Ctx>
const typename A::result_type* find_analysis(Ctx& ctx, const Module& mod, const Function& fn) {
  if constexpr (passinfra::HasUnitAnalyses<Ctx>) {
    // In a nest's unit (fn is the unit): cached per function, invalidated after each unit pass.
    if (passinfra::analyses_available(ctx)) return &ctx.analyses().template get<A>(mod, fn);
  } else if constexpr (passinfra::HasAnalyses<Ctx> && AnalysesOverModule<Ctx, A>) {
    if (passinfra::analyses_available(ctx)) return &ctx.analyses().template get<A>(mod, fn);
  }
  return nullptr;
}
// [find-analysis]

// ensure_types(ctx, fn, mod): fn's nodes carry their checked types. Through the
// manager, FunctionTypes (cached when nothing changed fn since it was computed);
// without one, type inference of fn.
// A cached result that describes another node (a pass claimed to preserve
// FunctionTypes but changed fn: the AnalysisPreservationChecker names it) is not
// trusted either: the types are inferred again.
template <class Ctx>
void ensure_types(Ctx& ctx, const Function& fn, const Module& mod) {
  const FunctionTypesInfo* types = find_analysis<FunctionTypes>(ctx, mod, fn);
  if (types == nullptr || types->function != fn) infer_type(fn);
}

// preserve_all_if_unchanged(ctx, in, out): marks everything preserved for the
// running pass (for a function pass: for this function, SPEC §10.5) when `out` is
// `in` itself -- an unchanged node is an unchanged function.
template <class Ctx, class T>
void preserve_all_if_unchanged(Ctx& ctx, const T& in, const T& out) {
  if constexpr (passinfra::HasAnalyses<Ctx> || passinfra::HasUnitAnalyses<Ctx>) {
    if (in == out && passinfra::analyses_available(ctx)) ctx.analyses().preserve_all();
  }
}

}  // namespace tinyir

// ir_traits<Module> (the function keys) and the passes; passes.hpp includes this header
// first, so either order of inclusion sees both whole.
#include "tinyir/passes.hpp"
