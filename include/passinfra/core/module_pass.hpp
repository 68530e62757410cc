// passinfra/core/module_pass.hpp — passes made from callables (SPEC §4).
//
// module_pass(info, f [, requires_passes<Rs...>{}] [, preserves<As...>{} | preserves_all{}])
//                                  f(IR, ctx&) -> IR, or f(IR) -> IR
// function_pass(info, f [, requires_passes<Rs...>{}] [, preserves<As...>{} | preserves_all{}])
//                                  f(Fn, const IR&, ctx&) -> Fn, or f(Fn, const IR&) -> Fn
// ModulePass<F, Required, Preserves> / FunctionPass<F, Required, Preserves>   the types they return
//
// `info` is a PassInfo view: its name must outlive the pass (a string
// literal does). A function pass maps the IR's functions through
// ir_traits<IR>::map_functions (the IR decides which functions qualify) and
// then runs ir_traits<IR>::function_pass_follow_up, if the IR names one, as an
// ordinary nested, instrumented pass: Relay's trailing InferType.
//
// Analyses (SPEC §10.5), only under a context holding an analysis manager:
// each call of f gets its own level for marks (the marks made for function
// `fn` apply to fn); after each call fn's function results are invalidated
// with (declaration ∪ fn's marks), at once; after the last function, module
// results (and what read a dropped one) are invalidated with (declaration ∪
// the intersection of the per-function marks) -- nothing when no function
// was visited -- and only then does the IR's follow-up pass run.
#pragma once

#include <concepts>
#include <optional>
#include <utility>

#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

template <class F, class Required = requires_passes<>, class Preserves = passinfra::preserves<>>
class ModulePass : public CallablePass<ModulePass<F, Required, Preserves>> {
 public:
  using required = Required;
  using preserves = Preserves;

  constexpr ModulePass(PassInfo info, F f) : info_(info), f_(std::move(f)) {}

  constexpr PassInfo info() const noexcept { return info_; }

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (std::invocable<const F&, IR, Ctx&>) {
      return f_(std::move(ir), ctx);
    } else {
      static_assert(std::invocable<const F&, IR>,
                    "passinfra::module_pass(info, f): f must be callable as f(IR, ctx&) or f(IR), returning the IR");
      return f_(std::move(ir));
    }
  }

 private:
  PassInfo info_;
  F f_;
};

template <class F, class Required = requires_passes<>, class Preserves = passinfra::preserves<>>
class FunctionPass : public CallablePass<FunctionPass<F, Required, Preserves>> {
 public:
  using required = Required;
  using preserves = Preserves;

  constexpr FunctionPass(PassInfo info, F f) : info_(info), f_(std::move(f)) {}

  constexpr PassInfo info() const noexcept { return info_; }

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (!FunctionIterableIR<IR>) {
      static_assert(FunctionIterableIR<IR>,
                    "passinfra::function_pass(info, f): the IR has no functions to map: specialize "
                    "passinfra::ir_traits<IR> with `using function_type = ...;` and "
                    "`static IR map_functions(IR, F)` (see passinfra/core/ir_traits.hpp)");
      return ir;
    } else {
      if constexpr (HasAnalyses<Ctx>) {
        using M = std::remove_pointer_t<decltype(ctx.analysis_manager())>;
        if constexpr (std::is_same_v<typename M::ir_type, IR>) {
          if (M* am = ctx.analysis_manager()) return transform_with_analyses(std::move(ir), ctx, *am);
        }
      }
      using Fn = typename ir_traits<IR>::function_type;
      IR out = ir_traits<IR>::map_functions(
          std::move(ir), [&](Fn fn, const IR& module) -> Fn { return call(std::move(fn), module, ctx); });
      return follow_up(std::move(out), ctx);
    }
  }

 private:
  template <class Fn, class IR, class Ctx>
  Fn call(Fn fn, const IR& module, Ctx& ctx) const {
    if constexpr (std::invocable<const F&, Fn, const IR&, Ctx&>) {
      return f_(std::move(fn), module, ctx);
    } else {
      static_assert(std::invocable<const F&, Fn, const IR&>,
                    "passinfra::function_pass(info, f): f must be callable as f(Function, const IR&, ctx&) or "
                    "f(Function, const IR&), returning the Function");
      return f_(std::move(fn), module);
    }
  }

  template <class IR, class Ctx>
  IR follow_up(IR out, Ctx& ctx) const {
    if constexpr (HasFunctionPassFollowUp<IR>) {
      out = run(typename ir_traits<IR>::function_pass_follow_up{}, std::move(out), ctx);
    }
    return out;
  }

  // SPEC §10.5.
  template <class IR, class Ctx, class M>
  IR transform_with_analyses(IR ir, Ctx& ctx, M& am) const {
    using Fn = typename ir_traits<IR>::function_type;
    auto& set = ctx.instrument_set();
    using Set = std::remove_reference_t<decltype(set)>;
    // (PreservedAnalyses, spelled dependently: g++ would instantiate it where this is defined. Issue 18.)
    using PreservedAnalyses = detail::dependent_t<PreservedAnalyses, IR>;
    const PreservedAnalyses& declared = preserved_analyses_of<FunctionPass>;
    std::optional<PreservedAnalyses> common;  // the intersection of the per-function marks
    IR out = ir_traits<IR>::map_functions(std::move(ir), [&](Fn fn, const IR& module) -> Fn {
      [[maybe_unused]] typename detail::function_key_of<IR>::type key{};
      if constexpr (FunctionKeyedIR<IR>) key = ir_traits<IR>::function_key(fn);
      // A level of its own: marks made during the call are fn's.
      typename M::template PassLevel<Set> level(am, set);
      Fn result = call(std::move(fn), module, ctx);
      std::optional<PreservedAnalyses> marks = am.take_marks();
      if constexpr (FunctionKeyedIR<IR>) {
        if (!marks) {
          am.invalidate_with(declared, detail::InvalidationScope::function, &key, set);
        } else {
          PreservedAnalyses effective = declared;
          effective.unite(*marks);
          am.invalidate_with(effective, detail::InvalidationScope::function, &key, set);
        }
      }
      if (!common) {
        common = marks ? std::move(*marks) : PreservedAnalyses::none();
      } else {
        common->intersect(marks ? *marks : PreservedAnalyses::none());
      }
      return result;
    });
    // The module-level invalidation, at once after the last function and
    // before the follow-up pass: that nested run's instruments (a
    // preservation checker) must not see module results this pass made stale.
    if (common) {
      PreservedAnalyses effective = declared;
      effective.unite(*common);
      am.invalidate_with(effective, detail::InvalidationScope::module_only, nullptr, set);
    }  // else no function was visited: everything is preserved
    // Done: the run of this pass invalidates nothing more.
    if (am.in_pass()) am.set_marks(PreservedAnalyses::all());
    return follow_up(std::move(out), ctx);
  }

  PassInfo info_;
  F f_;
};

namespace detail {
template <class T>
concept PreservesDeclaration = is_preserves<T>;
}  // namespace detail

// module_pass(info, f): a module-level pass from a callable.
template <class F>
constexpr ModulePass<F> module_pass(PassInfo info, F f) {
  return ModulePass<F>(info, std::move(f));
}
template <class F, class... Rs>
constexpr ModulePass<F, requires_passes<Rs...>> module_pass(PassInfo info, F f, requires_passes<Rs...>) {
  return ModulePass<F, requires_passes<Rs...>>(info, std::move(f));
}
template <class F, detail::PreservesDeclaration Pr>
constexpr ModulePass<F, requires_passes<>, Pr> module_pass(PassInfo info, F f, Pr) {
  return ModulePass<F, requires_passes<>, Pr>(info, std::move(f));
}
template <class F, class... Rs, detail::PreservesDeclaration Pr>
constexpr ModulePass<F, requires_passes<Rs...>, Pr> module_pass(PassInfo info, F f, requires_passes<Rs...>, Pr) {
  return ModulePass<F, requires_passes<Rs...>, Pr>(info, std::move(f));
}

// function_pass(info, f): a function-level pass from a callable.
template <class F>
constexpr FunctionPass<F> function_pass(PassInfo info, F f) {
  return FunctionPass<F>(info, std::move(f));
}
template <class F, class... Rs>
constexpr FunctionPass<F, requires_passes<Rs...>> function_pass(PassInfo info, F f, requires_passes<Rs...>) {
  return FunctionPass<F, requires_passes<Rs...>>(info, std::move(f));
}
template <class F, detail::PreservesDeclaration Pr>
constexpr FunctionPass<F, requires_passes<>, Pr> function_pass(PassInfo info, F f, Pr) {
  return FunctionPass<F, requires_passes<>, Pr>(info, std::move(f));
}
template <class F, class... Rs, detail::PreservesDeclaration Pr>
constexpr FunctionPass<F, requires_passes<Rs...>, Pr> function_pass(PassInfo info, F f, requires_passes<Rs...>, Pr) {
  return FunctionPass<F, requires_passes<Rs...>, Pr>(info, std::move(f));
}

}  // namespace passinfra
