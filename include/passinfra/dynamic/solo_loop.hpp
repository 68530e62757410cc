// passinfra/dynamic/solo_loop.hpp — (detail) a DynamicSequential's children
// run under a run-time instrument list that holds one instrument, with that
// instrument's hooks called directly; and a DynamicNest's unit pipelines
// under their parent's list (SoloLoop<Unit>::run<T, Parent>).
//
// The common dynamic case is one instrument (timing, say) over a pipeline.
// Through the list, each pass costs three erased hook calls, each in a hook
// phase of its own with the list's replacement checks. Here the loop over
// the children is compiled once per instrument type T (AnyInstrument's table
// holds SoloLoop<IR>::run<T>, and SoloLoop<U>::run<T, IR> for each unit type
// U that IR lists), so one erased call runs many passes, T's hooks are
// direct (inlinable) calls and a pass costs one virtual call for its body.
// For a unit pipeline, T's hooks for the unit type are the ones called and
// the hook phases are the parent list's (HookPhases<Parent>), as through it.
//
// Same behaviour as the list's own walk (SPEC §3, DynamicInstruments' rules):
//  * the gate: the context lists no names (DynamicSequential only comes here
//    then), so PassEnabled is the opt_level compare and should_run is asked;
//  * should_run and run_before_pass run in one hook phase, run_after_pass in
//    another; the body runs outside phases, as through the list;
//  * the list is checked before each call of T's that follows a hook or a
//    body (after should_run, after the body, after run_after_pass): once it
//    has been replaced, T is not called again, the rest of the pass's
//    sequence runs over the list as it is now (`resume`, the list's own walk)
//    and the loop returns; the caller goes on with the list as it is now;
//  * a body that throws: run_after_pass_failed over the list's position 0
//    (`body_failed`, the list's own walk: run_before_pass has returned there);
//  * with an analysis manager (SPEC §10.4, §10.6; `am` not null): each
//    body runs as run()'s analysed path runs it — the invalidation with the
//    child's declaration and marks before run_after_pass; on a throw the
//    cache cleared and the marks dropped before run_after_pass_failed — with
//    the analysis hooks going to the context's set (`analysis_sink`). One
//    level on the manager spans the loop instead of one per child: what a
//    level is for is the same (in_pass() is true in every hook and body of
//    the loop, a body's marks are taken by its own end of pass), and a child
//    then costs the has_work() test. The loop is compiled per T with and
//    without a manager (a unit pipeline comes here only without one) and
//    picks one per call, so a context without a manager runs the loop it
//    ran before;
//  * `plain`: every child passes the gate and requires no pass (the usual
//    case), and the loop compiled for it tests neither per child.
#pragma once

#include <cstdint>
#include <exception>
#include <type_traits>
#include <utility>

#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/instrument.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/dynamic/any_pass.hpp"
#include "passinfra/dynamic/context_ref.hpp"
#include "passinfra/dynamic/hook_phases.hpp"

namespace passinfra::detail {

// Where the rest of a pass's sequence starts, after the list was replaced.
enum class SoloResume { should_run, before, after };

// The instrument of an empty list: no hooks.
struct NoInstrument {};
inline constexpr NoInstrument no_instrument{};

// The loop's level on the manager (AnalysisManager::PassLevel, with the
// context's analysis hooks) when `Open`, else nothing.
template <class IR, bool Open>
struct SoloLevel {
  PASSINFRA_ALWAYS_INLINE SoloLevel(AnalysisManager<IR>*, SinkRef<IR>&) noexcept {}
};
template <class IR>
struct SoloLevel<IR, true> {
  typename AnalysisManager<IR>::template PassLevel<SinkRef<IR>> level;
  PASSINFRA_ALWAYS_INLINE SoloLevel(AnalysisManager<IR>* am, SinkRef<IR>& sink) noexcept : level(*am, sink) {}
};

template <class IR>
struct SoloLoop {
  const AnyPass<IR>* next;  // the next child; advanced as the children run
  const AnyPass<IR>* end;
  ContextRef<IR>* body_ctx;           // the children's bodies run under it
  const std::uint64_t* generation;    // the list's replacement count ...
  std::uint64_t generation_at_start;  // ... when the loop began
  // The slow paths, which need the context's list (DynamicSequential's; this
  // header cannot see DynamicInstruments, which includes it): the rest of
  // `child`'s sequence over the list as it is now, from `from`; and the
  // run_after_pass_failed hooks of the list's first position for a body that
  // threw (the instrument's run_before_pass has returned).
  IR (*resume)(const SoloLoop&, const AnyPass<IR>& child, IR ir, SoloResume from);
  void (*body_failed)(const SoloLoop&, const AnyPass<IR>& child, const std::exception_ptr& error) noexcept;
  void* context;
  AnalysisManager<IR>* am;    // the context's manager; null: none
  SinkRef<IR> analysis_sink;  // the context's set, for the analysis hooks
  int opt_level;              // the context's (it lists no names)
  // Every child from `next` on passes the gate (opt_level) and requires no
  // pass: the loop then tests neither (DynamicSequential knows it from its
  // children's largest opt_level and whether one requires anything).
  bool plain;

  // run<T[, PhaseIR]>(instrument, ir): the children from `next` on, under
  // the list's one instrument (a T), until they are done or the list has
  // been replaced. PhaseIR: the IR type of the list (DynamicInstruments<
  // PhaseIR>) whose hook phases the loop's hooks run in: IR itself, or the
  // parent of a nest's units (a unit pipeline under the parent's list,
  // DynamicNest; no manager for units there, `am` is null).
  template <class T, class PhaseIR = IR>
  IR run(T& instrument, IR ir) {
    if constexpr (std::is_same_v<PhaseIR, IR>) {
      if (am != nullptr) [[unlikely]] {
        if (plain) return run_loop<T, true, true, PhaseIR>(instrument, std::move(ir));
        return run_loop<T, true, false, PhaseIR>(instrument, std::move(ir));
      }
    }
    if (plain) [[likely]]
      return run_loop<T, false, true, PhaseIR>(instrument, std::move(ir));
    return run_loop<T, false, false, PhaseIR>(instrument, std::move(ir));
  }

  // managed_body(mgr, child, ir, ctx, end_pass_threw, failed): the child's body under the manager,
  // inside a level: on a throw the cache is cleared and the level's marks
  // dropped (SPEC §10.6); on return the invalidation with the child's
  // declaration and its marks (SPEC §10.4).
  // `failed()` runs last on any throw (the loop's failure hooks). The body
  // and the end-of-pass test share one try block: g++ keeps two apart with
  // one more register move per child. `end_pass_threw` (false on entry) is
  // the caller's, so that a loop sets it once, not once per child.
  template <class Failed>
  PASSINFRA_ALWAYS_INLINE IR managed_body(AnalysisManager<IR>& mgr, const AnyPass<IR>& child, IR ir,
                                          ContextRef<IR>& ctx, bool& end_pass_threw, Failed&& failed) const {
    try {
      ir = child.transform(std::move(ir), ctx);
      if (mgr.has_work()) [[unlikely]]
        ir = end_pass(mgr, child, std::move(ir), analysis_sink, end_pass_threw);
    } catch (...) {
      if (!end_pass_threw) {  // only a throw of the body clears the cache
        SinkRef<IR> sink = analysis_sink;
        mgr.clear_after_failure(sink);
        mgr.drop_marks();
      }
      failed();
      throw;
    }
    return ir;
  }

 private:
  // The invalidation at a child's end when the manager has work; the IR
  // passes through (so the loop keeps it in the return register). A throw
  // sets `threw` (it is not the body's: the cache is not cleared for it).
  [[gnu::noinline]] static IR end_pass(AnalysisManager<IR>& mgr, const AnyPass<IR>& child, IR ir, SinkRef<IR> sink,
                                       bool& threw) {
    try {
      mgr.end_pass(child.preserved_analyses(), sink);
    } catch (...) {
      threw = true;
      throw;
    }
    return ir;
  }

  template <class T, bool Managed, bool Plain, class PhaseIR>
  IR run_loop(T& instrument, IR ir);
};

template <class IR>
template <class T, bool Managed, bool Plain, class PhaseIR>
IR SoloLoop<IR>::run_loop(T& instrument, IR ir) {
  constexpr bool has_early_hooks = HasShouldRun<T, IR> || HasRunBeforePass<T, IR>;
  // An empty list: no run_before_pass has returned, so a failing body tells
  // no one (nor can a list installed by the body have entered the sequence).
  constexpr bool is_empty_list = std::is_same_v<std::remove_cv_t<T>, NoInstrument>;
  // The loop's state in locals: the calls below may write any memory, so
  // members would be reloaded after each; `next` is written back on exit.
  // `body_ctx` stays a member (one load per child, where a local would be
  // spilled and reloaded): with a manager and no gate the locals fit the
  // callee-saved registers, and a child costs the has_work() test.
  const AnyPass<IR>* child = next;
  const AnyPass<IR>* const stop = end;
  [[maybe_unused]] const int level = opt_level;
  [[maybe_unused]] bool end_pass_threw = false;  // set only as an exception leaves the loop
  const std::uint64_t* const count = generation;
  const std::uint64_t start = generation_at_start;
  AnalysisManager<IR>* const mgr = am;
  [[maybe_unused]] const SoloLevel<IR, Managed> analysis_level(mgr, analysis_sink);
  const auto changed = [&]() PASSINFRA_LAMBDA_INLINE { return *count != start; };
  const auto leave = [&](IR out) PASSINFRA_LAMBDA_INLINE {
    next = child + 1;
    return out;
  };
  for (; child != stop; ++child) {
    const PassInfo& info = child->info();
    if constexpr (!Plain) {
      if (level < info.opt_level) continue;
      if (child->has_required()) [[unlikely]] {
        ir = child->run_required(std::move(ir), *body_ctx);
        if (changed()) return leave(resume(*this, *child, std::move(ir), SoloResume::should_run));
      }
    }
    if constexpr (has_early_hooks) {
      bool run = true;
      bool replaced_now = false;
      {
        const HookPhaseScope<PhaseIR> phase;
        if constexpr (HasShouldRun<T, IR>) {
          run = instrument.should_run(std::as_const(ir), info);
          replaced_now = changed();
        }
        // A list that run_before_pass replaces is seen after the body: the
        // body runs the same either way, the after hooks are the new list's.
        if constexpr (HasRunBeforePass<T, IR>) {
          if (run && !replaced_now) instrument.run_before_pass(std::as_const(ir), info);
        }
      }
      if (!run || replaced_now) [[unlikely]] {
        if (!replaced_now) continue;  // vetoed
        return leave(run ? resume(*this, *child, std::move(ir), SoloResume::before) : std::move(ir));
      }
    }
    if constexpr (Managed) {
      ir = managed_body(*mgr, *child, std::move(ir), *body_ctx, end_pass_threw, [&]() noexcept {
        if constexpr (!is_empty_list) body_failed(*this, *child, std::current_exception());
      });
    } else if constexpr (is_empty_list) {
      ir = child->transform(std::move(ir), *body_ctx);
    } else {
      try {
        ir = child->transform(std::move(ir), *body_ctx);
      } catch (...) {
        body_failed(*this, *child, std::current_exception());
        throw;
      }
    }
    if (changed()) [[unlikely]]
      return leave(resume(*this, *child, std::move(ir), SoloResume::after));
    if constexpr (HasRunAfterPass<T, IR>) {
      {
        const HookPhaseScope<PhaseIR> phase;
        instrument.run_after_pass(std::as_const(ir), info);
      }
      if (changed()) [[unlikely]]
        return leave(std::move(ir));
    }
  }
  next = stop;
  return ir;
}

}  // namespace passinfra::detail
