// passinfra/dynamic/dynamic_sequential.hpp — a pipeline chosen at run time (SPEC §4).
//
// DynamicSequential<IR>{p1, p2, ...}            from AnyPasses (or anything AnyPass takes)
// DynamicSequential<IR>(passes, PassInfo{...})  a custom name / opt_level (the name is copied)
// seq.info()                                    "sequential", opt_level 0 by default
// seq.passes() / seq.push_back(p)
// seq.run_children_gated(ir, ctx, gate)        its children under a gate state the caller took
//                                               (what DynamicNest runs on every unit)
// seq.nesting_depth()                           1 + the deepest child's (at most max_pipeline_depth:
//                                               a deeper one is a passinfra::Error, see any_pass.hpp)
// seq(ir, ctx) / seq(ir)                        run through run(), under ctx / current()
//
// The same rules as Sequential<...>: children gated by PassEnabled, their
// required passes run first through run() without the gate, one level deep,
// every time. Static and dynamic pipelines nest both ways.
//
// A DynamicSequential preserves every analysis itself (SPEC §10.4): each
// child has applied its own set when it ran.
//
// Under a PassContext<IR> that lists no pass names and whose list holds one
// instrument (or none), the children run in that instrument's own loop
// (detail::SoloLoop, solo_loop.hpp): its hooks are direct calls and each
// child costs one virtual call (and, with an analysis manager, one test),
// with the same events as the walk through the list, which takes over once
// the list changes (tests/dynamic/solo_loop_test.cpp). So do a DynamicNest's
// unit pipelines run directly under a PassContext<Parent> (the unit-level
// hooks of the parent's list, its hook phases; tests/dynamic/nest_solo_loop_test.cpp),
// unless the context holds an analysis manager (SPEC §11.13: each child
// then runs through run(), which invalidates the unit's function results).
#pragma once

#include <cstddef>
#include <exception>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/core/nest.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/core/sequential.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/dynamic/any_pass.hpp"
#include "passinfra/dynamic/dynamic_instruments.hpp"

namespace passinfra {

namespace detail {
// is_dynamic_unit_context<Ctx, Unit>: Ctx is the context of a nest's unit of
// type Unit whose nest runs directly under a PassContext<Parent>, and
// Parent's instruments have hooks for Unit (ir_traits<Parent>::unit_types).
template <class Ctx, class Unit>
inline constexpr bool is_dynamic_unit_context = false;
template <class Parent, class Unit>
  requires is_unit_of<Parent, Unit>
inline constexpr bool is_dynamic_unit_context<UnitContext<Parent, Unit, PassContext<Parent>>, Unit> = true;
}  // namespace detail

template <class IR>
class DynamicSequential : public CallablePass<DynamicSequential<IR>> {
 public:
  using preserves = passinfra::preserves_all;  // SPEC §10.4

  DynamicSequential() = default;
  DynamicSequential(std::initializer_list<AnyPass<IR>> passes) : passes_(passes) {
    depth_ = checked_depth(passes_);
    note_children();
  }
  explicit DynamicSequential(std::vector<AnyPass<IR>> passes, PassInfo info = Sequential<>::default_info)
      : passes_(std::move(passes)), name_(info.name), opt_level_(info.opt_level) {
    depth_ = checked_depth(passes_);
    note_children();
  }

  PassInfo info() const noexcept { return {name_, opt_level_}; }

  const std::vector<AnyPass<IR>>& passes() const noexcept { return passes_; }
  void push_back(AnyPass<IR> pass) {
    const std::size_t depth = std::max(depth_, pass.nesting_depth() + 1);
    detail::check_nesting_depth(depth, "DynamicSequential<IR>::push_back");
    passes_.push_back(std::move(pass));
    depth_ = depth;
    note_child(passes_.back());
  }
  std::size_t nesting_depth() const noexcept { return depth_; }

  template <class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    const auto gate = detail::gate_of(ctx);  // options are fixed: read them once
    if constexpr (requires { gate.opt_level_gate(); }) {
      // No names listed (the common case): the gate is one compare and no
      // name is required; the general version is out of line.
      if (gate.names_listed()) [[unlikely]]
        return run_children_general(std::move(ir), ctx, gate);
      if constexpr (std::is_same_v<Ctx, PassContext<IR>>) {
        if (ctx.analysis_manager() != nullptr) [[unlikely]]
          return run_children_solo<true>(std::move(ir), ctx, gate.opt_level_gate());
        return run_children_solo<false>(std::move(ir), ctx, gate.opt_level_gate());
      } else {
        return run_children(std::move(ir), ctx, gate.opt_level_gate());
      }
    } else {
      return run_children(std::move(ir), ctx, gate);
    }
  }

  // run_children_gated(ir, ctx, gate): the children under a gate state the
  // caller took from the context once (as Sequential's; a DynamicNest runs
  // its children on every unit this way).
  template <class Ctx, class Gate>
  IR run_children_gated(IR ir, Ctx& ctx, const Gate& gate) const {
    if constexpr (detail::is_dynamic_unit_context<Ctx, IR>) {
      // A unit's pipeline directly under a PassContext<Parent>, no names
      // listed, no manager: the solo loop under the parent's list. Both
      // ways out of line (this is inlined into the nest's loop over units).
      if constexpr (std::is_same_v<Gate, detail::OptLevelGate>) {
        if (ctx.nest_analyses() == nullptr) [[likely]]
          return run_units_solo(std::move(ir), ctx, gate);
      } else if constexpr (requires { gate.opt_level_gate(); }) {
        if (!gate.names_listed() && ctx.nest_analyses() == nullptr) [[likely]]
          return run_units_solo(std::move(ir), ctx, gate.opt_level_gate());
      }
      return run_children_general(std::move(ir), ctx, gate);
    } else {
      return run_children(std::move(ir), ctx, gate);
    }
  }

 private:
  // A child whose body runs under `body_ctx` (one ContextRef for all the
  // children) while `run` calls the hooks of the context itself.
  struct BoundChild {
    const AnyPass<IR>& pass;
    ContextRef<IR>& body_ctx;
    PASSINFRA_ALWAYS_INLINE const PassInfo& info() const noexcept { return pass.info(); }
    PASSINFRA_ALWAYS_INLINE const PreservedAnalyses& preserved_analyses() const noexcept {
      return pass.preserved_analyses();
    }
    template <class Ctx>
    PASSINFRA_ALWAYS_INLINE IR transform(IR ir, Ctx&) const {
      return pass.transform(std::move(ir), body_ctx);
    }
  };

  template <class Ctx, class Gate>
  PASSINFRA_ALWAYS_INLINE IR run_children(IR ir, Ctx& ctx, const Gate& gate) const {
    if constexpr (std::is_same_v<Ctx, ContextRef<IR>>) {
      return run_children(std::move(ir), ctx, gate, ctx);
    } else {
      ContextRef<IR> body_ctx(ctx);
      return run_children(std::move(ir), ctx, gate, body_ctx);
    }
  }
  template <class Ctx, class Gate>
  PASSINFRA_ALWAYS_INLINE IR run_children(IR ir, Ctx& ctx, const Gate& gate, ContextRef<IR>& body_ctx) const {
    for (const auto& child : passes_) ir = run_child(child, std::move(ir), ctx, gate, body_ctx);
    return ir;
  }
  // One child: the gate, its required passes, then the child through run().
  template <class Ctx, class Gate>
  PASSINFRA_ALWAYS_INLINE IR run_child(const AnyPass<IR>& child, IR ir, Ctx& ctx, const Gate& gate,
                                       ContextRef<IR>& body_ctx) const {
    if (!gate.pass_enabled(child.info())) return ir;
    if (child.has_required()) ir = child.run_required(std::move(ir), body_ctx);
    return detail::run_gated(BoundChild{child, body_ctx}, std::move(ir), ctx, gate);
  }
  // Under a run-time list (PassContext<IR>) that lists no pass names: while
  // the list holds one instrument, the children run in that instrument's
  // own loop (detail::SoloLoop, its hooks called directly); otherwise, or
  // once the list has changed, one child at a time through the list.
  // `Managed`: the context holds an analysis manager (without one, a child
  // through the list runs run()'s path without analyses, as before them).
  template <bool Managed>
  IR run_children_solo(IR ir, PassContext<IR>& ctx, detail::OptLevelGate gate) const {
    ContextRef<IR> body_ctx(ctx);
    const DynamicInstruments<IR>& list = ctx.instruments();
    const AnyPass<IR>* next = passes_.data();
    const AnyPass<IR>* const end = next + passes_.size();
    while (next != end) {
      if (const std::size_t items = list.size(); items <= 1) {
        detail::SoloLoop<IR> loop{next,
                                  end,
                                  &body_ctx,
                                  &list.generation(),
                                  list.generation(),
                                  &solo_resume<>,
                                  &solo_body_failed<>,
                                  &ctx,
                                  ctx.analysis_manager(),
                                  detail::SinkRef<IR>(ctx.instrument_set()),
                                  gate.opt_level,
                                  plain_under(gate)};
        ir = items == 1 ? list.items().front().run_solo(loop, std::move(ir))
                        : loop.run(detail::no_instrument, std::move(ir));
        next = loop.next;
        continue;
      }
      if constexpr (Managed) {
        ir = run_child(*next++, std::move(ir), ctx, gate, body_ctx);
      } else {
        ir = run_child_unmanaged(*next++, std::move(ir), ctx, gate, body_ctx);
      }
    }
    return ir;
  }
  // A unit's children under the parent's run-time list, as run_children_solo
  // under the unit's own: while the list holds one instrument, its loop with
  // the unit-level hooks (the list's hook phases); else one child at a time
  // through the list (run(): the unit-level hooks of the outer context's set).
  // The common case (the list holds at most one instrument and does not
  // change) here, the rest in run_units_listed: one loop over both (the
  // shape of run_children_solo) measured nest_dyn_one 283.3 Ir per unit
  // against 271.3 (nest_callgrind, g++ -O3).
  template <class UCtx>
  [[gnu::noinline]] IR run_units_solo(IR ir, UCtx& ctx, detail::OptLevelGate gate) const {
    using Parent = typename UCtx::parent_type;
    const DynamicInstruments<Parent>& list = ctx.outer().instruments();
    const std::size_t items = list.size();
    if (items > 1 || passes_.empty()) [[unlikely]]
      return run_units_listed(std::move(ir), ctx, gate, passes_.data());
    ContextRef<IR> body_ctx(ctx);
    const AnyPass<IR>* const end = passes_.data() + passes_.size();
    detail::SoloLoop<IR> loop = unit_loop(passes_.data(), ctx, gate, body_ctx, list);
    ir = items == 1 ? list.items().front().run_solo(loop, std::move(ir))
                    : loop.template run<const detail::NoInstrument, Parent>(detail::no_instrument, std::move(ir));
    if (loop.next != end) [[unlikely]]  // the list was replaced: the rest
      return run_units_listed(std::move(ir), ctx, gate, loop.next);
    return ir;
  }
  // The loop over the children from `next` of a unit with context `ctx`
  // under the parent's `list` (no manager for units).
  template <class UCtx, class List>
  PASSINFRA_ALWAYS_INLINE detail::SoloLoop<IR> unit_loop(const AnyPass<IR>* next, UCtx& ctx, detail::OptLevelGate gate,
                                                         ContextRef<IR>& body_ctx, const List& list) const {
    return {next,
            passes_.data() + passes_.size(),
            &body_ctx,
            &list.generation(),
            list.generation(),
            &solo_resume<UCtx>,
            &solo_body_failed<UCtx>,
            &ctx,
            nullptr,
            detail::SinkRef<IR>(),
            gate.opt_level,
            plain_under(gate)};
  }
  template <class UCtx>
  [[gnu::noinline]] IR run_units_listed(IR ir, UCtx& ctx, detail::OptLevelGate gate, const AnyPass<IR>* next) const {
    using Parent = typename UCtx::parent_type;
    ContextRef<IR> body_ctx(ctx);
    const DynamicInstruments<Parent>& list = ctx.outer().instruments();
    const AnyPass<IR>* const end = passes_.data() + passes_.size();
    while (next != end) {
      if (const std::size_t items = list.size(); items <= 1) {
        detail::SoloLoop<IR> loop = unit_loop(next, ctx, gate, body_ctx, list);
        ir = items == 1 ? list.items().front().run_solo(loop, std::move(ir))
                        : loop.template run<const detail::NoInstrument, Parent>(detail::no_instrument, std::move(ir));
        next = loop.next;
        continue;
      }
      ir = run_child(*next++, std::move(ir), ctx, gate, body_ctx);
    }
    return ir;
  }

  // run_child without the analysis manager's null test: the caller knows.
  PASSINFRA_ALWAYS_INLINE IR run_child_unmanaged(const AnyPass<IR>& child, IR ir, PassContext<IR>& ctx,
                                                 detail::OptLevelGate gate, ContextRef<IR>& body_ctx) const {
    if (!gate.pass_enabled(child.info())) return ir;
    if (child.has_required()) ir = child.run_required(std::move(ir), body_ctx);
    return detail::run_plain(BoundChild{child, body_ctx}, std::move(ir), ctx, gate, ctx.instrument_set());
  }

  // The rest of `child`'s SPEC §3 sequence, from `from`, over the context's
  // list as it is now (a SoloLoop's list was replaced during the child).
  // Ctx: PassContext<IR>, or a unit's context (run_units_solo; no manager).
  template <class Ctx = PassContext<IR>>
  static IR solo_resume(const detail::SoloLoop<IR>& loop, const AnyPass<IR>& child, IR ir, detail::SoloResume from) {
    auto& set = static_cast<Ctx*>(loop.context)->instrument_set();
    const PassInfo& info = child.info();
    if (from != detail::SoloResume::after) {
      // The loop's level on the manager is open (SoloLoop::run_loop).
      return detail::run_hooks(set, std::move(ir), info, from == detail::SoloResume::should_run, [&](IR in) {
        if constexpr (std::is_same_v<Ctx, PassContext<IR>>) {
          bool end_pass_threw = false;
          if (loop.am != nullptr)
            return loop.managed_body(*loop.am, child, std::move(in), *loop.body_ctx, end_pass_threw, [] {});
        }
        return child.transform(std::move(in), *loop.body_ctx);
      });
    }
    // From the after hooks. No run_after_pass_failed can follow: SPEC §3
    // tells the positions whose run_before_pass returned (at most the first)
    // and whose run_after_pass was not started (a throw there has started the first).
    std::size_t started = 0;
    set.run_after_pass(std::as_const(ir), info, started);
    return ir;
  }
  // A SoloLoop child's body threw: the failure hooks of the list's first
  // position (whose run_before_pass returned), through the list as it is now.
  template <class Ctx = PassContext<IR>>
  static void solo_body_failed(const detail::SoloLoop<IR>& loop, const AnyPass<IR>& child,
                               const std::exception_ptr& error) noexcept {
    static_cast<Ctx*>(loop.context)->instrument_set().run_after_pass_failed(child.info(), error, 0, 1);
  }

  template <class Ctx, class Gate>
  [[gnu::noinline]] IR run_children_general(IR ir, Ctx& ctx, const Gate& gate) const {
    return run_children(std::move(ir), ctx, gate);
  }

  // plain_under(gate): every child passes `gate` and requires no pass (a
  // SoloLoop then tests neither per child).
  bool plain_under(detail::OptLevelGate gate) const noexcept {
    return !any_required_ && gate.opt_level >= max_child_level_;
  }
  void note_child(const AnyPass<IR>& pass) noexcept {
    max_child_level_ = std::max(max_child_level_, pass.info().opt_level);
    any_required_ = any_required_ || pass.has_required();
  }
  void note_children() noexcept {
    for (const auto& p : passes_) note_child(p);
  }

  static std::size_t checked_depth(const std::vector<AnyPass<IR>>& passes) {
    std::size_t depth = 1;
    for (const auto& p : passes) depth = std::max(depth, p.nesting_depth() + 1);
    detail::check_nesting_depth(depth, "DynamicSequential<IR>");
    return depth;
  }

  std::vector<AnyPass<IR>> passes_;
  std::string name_{Sequential<>::default_info.name};
  int opt_level_ = Sequential<>::default_info.opt_level;
  std::size_t depth_ = 1;
  // The children's largest opt_level and whether one requires a pass (an
  // AnyPass's info and requirements are fixed when it is made).
  int max_child_level_ = std::numeric_limits<int>::min();
  bool any_required_ = false;
};

}  // namespace passinfra
