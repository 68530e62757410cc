// passinfra/core/run.hpp — the one choke point every pass runs through (SPEC §3).
//
// run(pass, ir, ctx) -> IR        should_run on every instrument (unless the pass is
//                                 in required_pass), before hooks, body, after hooks
// PassRunContext<Ctx>             what `run` needs of a context
// CallablePass<Derived>           gives library passes p(ir, ctx) and p(ir) (current context)
//
// There is no catch in SPEC §3's sequence: whatever a hook or the body
// throws leaves `run` unchanged, in type and object. When an instrument has
// the optional run_after_pass_failed hook (or a run-time list might), `run`
// catches, tells the instruments whose run_before_pass returned and whose
// run_after_pass was not started, and rethrows the same object with `throw;`.
// With InstrumentSet<> the whole function is the body call.
//
// The opt_level / disabled gate (PassEnabled) is not applied here: a pass run
// directly runs whatever its opt_level; Sequential applies it to its children.
//
// Analyses (SPEC §10.4, §10.6). Only under a context that may hold an
// analysis manager (HasAnalyses<Ctx>; a static context made without one
// compiles to exactly the code above): a level for the pass's marks is
// opened on the manager for the whole run (hooks included, so an
// after-pass instrument's clear_in_pass() reaches this context's hooks);
// when the body returns, the manager invalidates with the pass's
// declaration united with its marks, and only then run_after_pass runs; a
// body that throws clears the cache (one run_analysis_invalidated each)
// before run_after_pass_failed. A vetoed pass never reaches its body:
// nothing is invalidated. A unit-level pass of a nest whose context holds a
// manager for the parent (a context with nest_analyses(): SPEC §11.13)
// invalidates its unit's function results instead (run_in_unit).
#pragma once

#include <cstddef>
#include <exception>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/detail/inline.hpp"

namespace passinfra {

struct NoAnalysisManager;
template <class IR, class Instruments, class Analyses>
class PassContext;
template <class IR>
class DynamicInstruments;

// PassRunContext<Ctx>: a context `run` can run passes under.
template <class Ctx>
concept PassRunContext = requires(Ctx& ctx, const PassInfo& info, std::string_view name) {
  { ctx.pass_enabled(info) } -> std::convertible_to<bool>;
  { ctx.is_required(name) } -> std::convertible_to<bool>;
  ctx.instrument_set();
};

namespace detail {

template <class P, class IR, class Ctx>
consteval bool check_run() {
  if constexpr (!check_pass<P, Entry::run>()) {
    return false;
  } else if constexpr (!PassRunContext<Ctx>) {
    static_assert(PassRunContext<Ctx>,
                  "passinfra::run(pass, ir, ctx): `ctx` must be a passinfra::PassContext (or a context reference "
                  "given to a pass body); Ctx is not");
    return false;
  } else if constexpr (!HasTransform<P, IR, Ctx>) {
    static_assert(HasTransform<P, IR, Ctx>,
                  "passinfra::run(pass, ir, ctx): the pass P has no member `transform(IR, Ctx&) const` returning "
                  "the IR (check the IR type and that transform is const)");
    return false;
  } else {
    return true;
  }
}

}  // namespace detail

namespace detail {

// The gate state `run` consults: a context's own snapshot when it offers
// one (PassContext::gate()), else the context itself.
template <class Ctx>
PASSINFRA_ALWAYS_INLINE decltype(auto) gate_of(Ctx& ctx) {
  if constexpr (requires { ctx.gate(); }) {
    return ctx.gate();
  } else {
    return (ctx);
  }
}

// instruments_active(ctx): false when the context's instrument set has been
// cleared (SPEC §5.1/§5.2); true when the set cannot tell.
template <class Ctx>
PASSINFRA_ALWAYS_INLINE bool instruments_active(Ctx& ctx) noexcept {
  if constexpr (requires { ctx.instrument_set().active(); }) {
    return ctx.instrument_set().active();
  } else {
    return true;
  }
}

// hook_view(set): set.hook_view() when the set offers one (InstrumentSet:
// the same hooks through a local object a pipeline keeps in registers),
// else the set itself.
template <class Set>
PASSINFRA_ALWAYS_INLINE decltype(auto) hook_view(Set& set) noexcept {
  if constexpr (requires { set.hook_view(); }) {
    return set.hook_view();
  } else {
    return (set);
  }
}

// run_hooks(set, ir, info, ask_should_run, body): SPEC §3's hook sequence
// around body(ir) -- should_run (when ask_should_run), run_before_pass, the
// body, run_after_pass, and run_after_pass_failed when the set may have it --
// for a set that has some pass hook. A set that runs the whole sequence
// itself (ErasedInstrumentSet: one call through the type-erased context
// instead of one per hook) is handed all of it.
template <class Set, class IR, class Body>
PASSINFRA_ALWAYS_INLINE IR run_hooks(Set& set, IR ir, const PassInfo& info, [[maybe_unused]] bool ask_should_run,
                                     Body&& body) {
  if constexpr (requires { set.run_pass(std::move(ir), info, ask_should_run, body); }) {
    return set.run_pass(std::move(ir), info, ask_should_run, body);
  } else {
    if constexpr (Set::template has_should_run<IR>) {
      if (ask_should_run && !set.should_run(std::as_const(ir), info)) return ir;
    }
    if constexpr (!Set::has_run_after_pass_failed) {
      set.run_before_pass(std::as_const(ir), info);
      IR out = body(std::move(ir));
      set.run_after_pass(std::as_const(out), info);
      return out;
    } else {
      std::size_t returned = 0;  // run_before_pass hooks that returned
      std::size_t started = 0;   // run_after_pass hooks that were started
      try {
        set.run_before_pass(std::as_const(ir), info, returned);
        IR out = body(std::move(ir));
        set.run_after_pass(std::as_const(out), info, started);
        return out;
      } catch (...) {
        set.run_after_pass_failed(info, std::current_exception(), started, returned);
        throw;
      }
    }
  }
}

// ---- analyses ----

// The pass's own declaration: p.preserved_analyses() when the object knows
// it (AnyPass), else its type's (preserves<...> / preserves_all / nothing).
template <class P>
consteval bool check_preserves() {
  static_assert(HasValidPreserves<P>,
                "passinfra::run(pass, ir, ctx): the pass P declares `preserves`, but it is not "
                "passinfra::preserves<...> or passinfra::preserves_all");
  return HasValidPreserves<P>;
}

// finish_pass(pass, am, set): SPEC §10.4 when the body has returned: the
// manager invalidates with the pass's declaration united with its marks.
// With nothing cached and nothing marked it is one test.
template <class P, class M, class Set>
PASSINFRA_ALWAYS_INLINE void finish_pass(const P& pass, M& am, Set& set) {
  if constexpr (requires { pass.preserved_analyses(); }) {
    if (am.has_work()) [[unlikely]]
      am.end_pass(pass.preserved_analyses(), set);
  } else if constexpr (!check_preserves<P>()) {
    return;
  } else if constexpr (declares_preserves_all<P>) {
    // Nothing to do unless the body marked (an abandon): one test.
    if (am.has_marks()) [[unlikely]]
      am.end_pass_preserving_all(set);
  } else {
    if (am.has_work()) [[unlikely]]
      am.end_pass(preserved_analyses_of<P>, set);
  }
}

// finish_has_work(pass, am): whether finish_pass has anything to do: for a
// pass declaring preserves_all, only its marks (an abandon) can drop a
// result, so what is cached does not count (DESIGN: invalidation after a
// preserves_all pass costs the same whatever is cached).
template <class P, class M>
PASSINFRA_ALWAYS_INLINE bool finish_has_work(const P& pass, const M& am) {
  if constexpr (requires { pass.preserved_analyses(); }) {
    return am.has_work();
  } else if constexpr (HasValidPreserves<P> && declares_preserves_all<P>) {
    return am.has_marks();
  } else {
    return am.has_work();
  }
}

// run_plain(pass, ir, ctx, gate, hooks): SPEC §3 without analyses.
template <class P, class IR, class Ctx, class Gate, class Hooks>
PASSINFRA_ALWAYS_INLINE IR run_plain(const P& pass, IR ir, Ctx& ctx, [[maybe_unused]] const Gate& gate,
                                     [[maybe_unused]] Hooks& hooks) {
  if constexpr (Hooks::template hook_free<IR>) {
    return pass.transform(std::move(ir), ctx);
  } else {
    const PassInfo& info = info_of<P>(pass);
    bool ask_should_run = false;  // a name in required_pass skips should_run
    if constexpr (Hooks::template has_should_run<IR>) ask_should_run = !gate.is_required(info.name);
    return run_hooks(hooks, std::move(ir), info, ask_should_run,
                     [&](IR in) PASSINFRA_LAMBDA_INLINE { return pass.transform(std::move(in), ctx); });
  }
}

// run_with_analyses: run_plain, with the level and the invalidation of
// SPEC §10.4 / §10.6 when the context holds a manager for this IR.
template <class P, class IR, class Ctx, class Gate, class Hooks>
PASSINFRA_ALWAYS_INLINE IR run_with_analyses(const P& pass, IR ir, Ctx& ctx, const Gate& gate, Hooks& hooks) {
  using M = std::remove_pointer_t<decltype(ctx.analysis_manager())>;
  if constexpr (!std::is_same_v<typename M::ir_type, IR>) {
    return run_plain(pass, std::move(ir), ctx, gate, hooks);
  } else {
    M* am = ctx.analysis_manager();
    if constexpr (requires { requires !Ctx::analysis_manager_may_be_null; }) {
      // a static context made with a manager: never null
    } else if (am == nullptr) [[unlikely]] {
      return run_plain(pass, std::move(ir), ctx, gate, hooks);
    }
    auto& set = ctx.instrument_set();
    using Level = typename M::template PassLevel<std::remove_reference_t<decltype(set)>>;
    // The body; when it throws, the cache and the level's marks go first.
    auto transform = [&](IR in) PASSINFRA_LAMBDA_INLINE -> IR {
      try {
        return pass.transform(std::move(in), ctx);
      } catch (...) {
        am->clear_after_failure(set);  // SPEC §10.6: the IR the results described went into the pass
        am->drop_marks();
        throw;
      }
    };
    if constexpr (Hooks::template hook_free<IR>) {
      // No pass hooks: the level covers the body only and is closed before
      // the end-of-pass test, so that with nothing cached or marked the
      // compiler sees the level's increment and decrement side by side and
      // keeps neither (no hook can look at the level in between). With work
      // to do, the level is opened again around the invalidation: the marks
      // the body made at that level are still there (nothing ran since).
      IR out = [&]() -> IR {
        const Level level(*am, set);
        return transform(std::move(ir));
      }();
      if (finish_has_work(pass, *am)) [[unlikely]] {
        const Level level(*am, set);
        finish_pass(pass, *am, set);
      }
      return out;
    }
    const Level level(*am, set);
    auto body = [&](IR in) PASSINFRA_LAMBDA_INLINE -> IR {
      IR out = transform(std::move(in));
      finish_pass(pass, *am, set);
      return out;
    };
    const PassInfo& info = info_of<P>(pass);
    bool ask_should_run = false;  // a name in required_pass skips should_run
    if constexpr (Hooks::template has_should_run<IR>) ask_should_run = !gate.is_required(info.name);
    return run_hooks(hooks, std::move(ir), info, ask_should_run, body);
  }
}

// declared_set(pass): what the pass declares it preserves (SPEC §10.4).
template <class P>
const PreservedAnalyses& declared_set(const P& pass) {
  if constexpr (requires { pass.preserved_analyses(); }) {
    return pass.preserved_analyses();
  } else if constexpr (!check_preserves<P>()) {
    return not_reached<PreservedAnalyses>();  // the static_assert above has said what is wrong
  } else {
    return preserved_analyses_of<P>;
  }
}

// run_in_unit: a unit-level pass of a nest whose context has an analysis
// manager for the nest's parent (SPEC §11.13; `ctx` is the unit's context,
// whose nest_analyses() is the nest run's state, null when the context
// holds no manager now). A level for the pass's marks; when the body
// returns, the unit's function results are invalidated with the pass's
// effective set (declaration ∪ marks), which the nest's intersection takes
// in, before run_after_pass; a body that throws clears the cache first (in a
// parallel nest the unit's results are in its store, and the nest empties
// the manager when the units finished, as if here: NestAnalyses::failed_here).
template <class P, class Unit, class Ctx, class Gate, class Hooks>
PASSINFRA_ALWAYS_INLINE Unit run_in_unit(const P& pass, Unit unit, Ctx& ctx, const Gate& gate, Hooks& hooks) {
  auto* na = ctx.nest_analyses();
  if (na == nullptr) [[unlikely]] {
    if constexpr (HasAnalyses<Ctx>) {
      return run_with_analyses(pass, std::move(unit), ctx, gate, hooks);  // a ContextRef outside a nest
    } else {
      return run_plain(pass, std::move(unit), ctx, gate, hooks);
    }
  }
  auto& am = na->table();
  using M = std::remove_reference_t<decltype(am)>;
  // The analysis hooks: the outer context's set (UnitContext), else those
  // the nest took from it (a ContextRef<Unit>, whose set has hooks for Unit only).
  auto& set = [&]() -> auto& {
    if constexpr (requires { ctx.outer(); }) {
      return ctx.instrument_set();
    } else {
      return na->sink;
    }
  }();
  using Level = typename M::template PassLevel<std::remove_reference_t<decltype(set)>>;
  const Level level(am, set);
  auto body = [&](Unit in) -> Unit {
    Unit out = [&]() -> Unit {
      try {
        return pass.transform(std::move(in), ctx);
      } catch (...) {
        if (na->store != nullptr) {
          na->failed_here();  // SPEC §11.13: the nest empties the manager once the units finished
        } else {
          am.clear_after_failure(set);  // SPEC §10.6
        }
        am.drop_marks();
        throw;
      }
    }();
    // (auto: g++ would instantiate a PreservedAnalyses named here where this is defined. Issue 18.)
    auto effective = declared_set(pass);
    if (auto marks = am.take_marks()) effective.unite(*marks);
    if (na->keyed) am.invalidate_with(effective, InvalidationScope::function, &na->unit_key, set);
    na->ran(effective);
    return out;
  };
  if constexpr (Hooks::template hook_free<Unit>) {
    return body(std::move(unit));
  } else {
    const PassInfo& info = info_of<P>(pass);
    bool ask_should_run = false;  // a name in required_pass skips should_run
    if constexpr (Hooks::template has_should_run<Unit>) ask_should_run = !gate.is_required(info.name);
    return run_hooks(hooks, std::move(unit), info, ask_should_run, body);
  }
}

// run_gated(pass, ir, ctx, gate, hooks): SPEC §3, with the required_pass
// test answered by `gate` and the hooks called through `hooks` (the
// context's instrument set, or a pipeline's hook_view of it); run() and
// Sequential share it.
template <class P, class IR, class Ctx, class Gate, class Hooks>
PASSINFRA_ALWAYS_INLINE IR run_gated(const P& pass, IR ir, Ctx& ctx, const Gate& gate, Hooks& hooks) {
  if constexpr (!check_run<P, IR, Ctx>()) {
    return ir;  // the static_assert above has said what is wrong
  } else if constexpr (requires { ctx.nest_analyses(); }) {
    return run_in_unit(pass, std::move(ir), ctx, gate, hooks);  // a unit's context (SPEC §11.13)
  } else if constexpr (HasAnalyses<Ctx>) {
    return run_with_analyses(pass, std::move(ir), ctx, gate, hooks);
  } else {
    return run_plain(pass, std::move(ir), ctx, gate, hooks);
  }
}
template <class P, class IR, class Ctx, class Gate>
PASSINFRA_ALWAYS_INLINE IR run_gated(const P& pass, IR ir, Ctx& ctx, const Gate& gate) {
  if constexpr (!check_run<P, IR, Ctx>()) {
    return ir;  // the static_assert above has said what is wrong
  } else {
    return run_gated(pass, std::move(ir), ctx, gate, ctx.instrument_set());
  }
}

}  // namespace detail

// run(pass, ir, ctx): SPEC §3. Returns the pass's output, or the input
// unchanged when an instrument vetoed the pass.
template <class P, class IR, class Ctx>
PASSINFRA_ALWAYS_INLINE IR run(const P& pass, IR ir, Ctx& ctx) {
  if constexpr (!detail::check_run<P, IR, Ctx>()) {
    return ir;  // the static_assert above has said what is wrong
  } else {
    return detail::run_gated(pass, std::move(ir), ctx, ctx);  // one pass: the context answers is_required
  }
}

// CallablePass<Derived>: p(ir, ctx) is run(p, ir, ctx); p(ir) runs under
// PassContext<IR>::current() (include passinfra/dynamic.hpp for that).
template <class Derived>
struct CallablePass {
  template <class IR, class Ctx>
  IR operator()(IR ir, Ctx& ctx) const {
    return run(static_cast<const Derived&>(*this), std::move(ir), ctx);
  }
  template <class IR>
  IR operator()(IR ir) const {
    return run(static_cast<const Derived&>(*this), std::move(ir),
               PassContext<IR, DynamicInstruments<IR>, NoAnalysisManager>::current());
  }
};

}  // namespace passinfra
