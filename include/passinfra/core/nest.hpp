// passinfra/core/nest.hpp — a pipeline run on each unit of a parent IR (SPEC §11).
//
// Nest<Unit, Ps...>                       a pass over any Parent with NestableIR<Parent, Unit>: runs
//                                         Ps... on each of the parent's units (SPEC §11.3)
// nest<Unit>([PassInfo,] [NestOptions,] passes...)   the same from values
// NestOptions{.serial = false}            serial: never run this nest's units in parallel
// n.info()                                {ir_traits<Unit>::name (else "nest"), 0} unless given
// n.options() / n.child<I>() / n.passes() / n.for_each_child(f) / Nest<...>::size
// UnitContext<Parent, Unit, Ctx>          what a unit pass's transform(Unit, ctx&) receives:
//   ctx.parent()                          the nest's input (SPEC §11.2: the parent as the nest began)
//   ctx.unit_name() / unit_index() / unit_count() / pipeline()
//   ctx.outer()                           the context the nest runs under
//   ctx.opt_level(), get_config<T>(...), pass_enabled(info), instrument_set(), ...  the outer context's
//   ctx.analyses()                        the parent's manager seen from the unit (SPEC §11.13):
//                                         UnitAnalysisHandle when the outer context may hold a
//                                         manager for Parent, else NoAnalysisManager
//
// The units of one run are taken out once (unit_traits::units), each runs the
// children by SPEC §4's rules for a Sequential's children at unit level (same
// gate, same instruments, every hook receiving the unit), framed by the
// pipeline hooks; the parent is rebuilt (unit_traits::replace_units) only
// after every unit finished, from the units' results. An instrument sees
// unit-level events only through hooks that accept the unit type.
//
// Serial (SPEC §11.4; always without an executor, as TVM): units in unit
// order on the calling thread; the first failing unit's exception leaves the
// nest unchanged, after run_after_pipeline_failed, and the parent is not
// rebuilt. A Nest with InstrumentSet<> and no executor is the loop a user
// would write: units(), the calls, replace_units() (no thread, lock,
// allocation or buffering); per unit it stores which unit runs, and the
// PipelineInfo's unit name and index are written only when something asks
// for them (current_pipeline(), ctx.pipeline() / unit_name() / unit_index():
// then once per unit, with one atomic exchange; see run_serial).
//
// Parallel, when the context has an executor, the nest is not marked serial,
// it has two units or more and every instrument with a unit-level hook is
// thread-safe (else serial, with one INFO line naming the instrument): the
// units run through detail::fork_join (started in unit order; the calling
// thread takes units too and waits only for units in progress); each unit's
// log() and TextSink output is held back and delivered on the calling thread
// in unit order once all finished (SPEC §11.5); on failure the lowest failing
// unit's exception propagates as the same object, the others are logged at
// DEBUG, and the output of units after it is discarded (SPEC §11.6). On a
// worker, PassContext<P>::current() is the context that was current on the
// calling thread, and entering it or replacing its instruments throws (SPEC §11.9).
//
// Analyses (SPEC §11.13), only when the context holds an analysis manager
// for the parent (else nothing of this is compiled in or run): module
// results are frozen while the units run (computing one is an Error naming
// the nest and the unit), and so, when the units are the parent's
// functions, is every function's result but the running unit's (an Error,
// serial or parallel alike); each unit-level pass invalidates its unit's
// function results with its effective set (core/run.hpp, run_in_unit);
// after the last unit, module results are invalidated once with the
// intersection of those sets; an exception leaving the nest leaves the
// manager empty. The nest itself declares preserves_all. In parallel mode
// (where an instrument with an analysis hook counts for the thread-safety
// test too) each unit's function results live in a store of its own that
// only the unit's thread touches (ParallelAnalyses): before the units
// start, the unit's cached results move there; after they finished, the
// calling thread puts them back in the serial run's storage order and, on
// failure, empties the manager as the serial run does, the hooks' output
// put where the failing unit pass would have sent it. Units run serially
// (one INFO line) when their results cannot be kept apart: the units are
// not the parent's functions, two units share a function, or a cached
// result reads a unit's function result from outside that unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/executor.hpp"
#include "passinfra/core/instrument.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/pass_context.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/core/sequential.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/exception_text.hpp"
#include "passinfra/detail/fork_join.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/detail/type_name.hpp"
#include "passinfra/detail/unit_output.hpp"

namespace passinfra {

struct NestOptions {
  bool serial = false;  // never run this nest's units in parallel (its passes share state)
};

namespace detail {

// nest_manager<Ctx, Parent>::type: the analysis manager type a context may
// hold for the parent IR (void: none, and a nest under it has no analyses).
template <class Ctx, class Parent>
struct nest_manager {
  using type = void;
};
template <class Ctx, class Parent>
  requires HasAnalyses<Ctx> &&
           std::is_same_v<typename std::remove_pointer_t<decltype(std::declval<Ctx&>().analysis_manager())>::ir_type,
                          Parent>
struct nest_manager<Ctx, Parent> {
  using type = std::remove_pointer_t<decltype(std::declval<Ctx&>().analysis_manager())>;
};

// What a unit context holds for analyses when its context can have none.
struct NoNestAnalyses {};

template <class M, class Parent>
using nest_analyses_ptr = std::conditional_t<std::is_void_v<M>, NoNestAnalyses, NestAnalyses<Parent>*>;

// ParallelAnalyses<Parent>: the analysis state of a parallel nest run (SPEC
// §11.13): one store and one NestAnalyses per unit. Only the thread running
// unit i touches stores[i] and units[i]; the manager is read only while the
// units run (its analysis objects made beforehand, its module results
// frozen). Before and after the units, everything runs on the calling thread.
template <class Parent>
class ParallelAnalyses {
 public:
  using Key = typename function_key_of<Parent>::type;
  static constexpr std::size_t no_unit = AnalysisManager<Parent>::no_unit;

  template <class Unit>
  ParallelAnalyses(AnalysisManager<Parent>& am, SinkRef<Parent> sink, const std::vector<UnitSlot<Unit>>& slots)
      : am_(am), stores_(slots.size()), units(slots.size()) {
    std::size_t capacity = 2;
    while (capacity < 2 * slots.size()) capacity *= 2;  // load <= 1/2
    by_hash_.assign(capacity, no_unit);
    for (std::size_t i = 0; i < slots.size(); ++i) {
      units[i].am = &am;
      units[i].sink = sink;
      units[i].enter_unit(slots[i].ir);
      std::size_t at = key_hash(units[i].unit_key) & (capacity - 1);
      while (by_hash_[at] != no_unit) at = (at + 1) & (capacity - 1);
      by_hash_[at] = i;
    }
  }
  ParallelAnalyses(const ParallelAnalyses&) = delete;
  ParallelAnalyses& operator=(const ParallelAnalyses&) = delete;
  ~ParallelAnalyses() {
    if (split_ && !merged_) merge(units.size());  // an exception of the nest itself: nothing is lost
    if (split_) am_.remove_stand_ins();
  }

  // owner(key): the unit whose function has that key, or no_unit.
  std::size_t owner(const Key& key) const {
    const std::size_t mask = by_hash_.size() - 1;
    for (std::size_t at = key_hash(key) & mask; by_hash_[at] != no_unit; at = (at + 1) & mask) {
      if (units[by_hash_[at]].unit_key == key) return by_hash_[at];
    }
    return no_unit;
  }
  // why_serial(): "" when the units' results can be kept apart, else why not (for the INFO line).
  std::string why_serial() const {
    for (std::size_t i = 0; i < units.size(); ++i) {
      if (!units[i].keyed) return "the units are not the analysis manager's functions";
      if (owner(units[i].unit_key) != i) return "two units have the same function key";
    }
    if (!am_.splits_by_unit([this](const Key& key) { return owner(key); })) {
      return "a cached analysis result reads a unit's function result from outside that unit";
    }
    return {};
  }

  // start(infos): each unit's cached results moved to its store (infos[i]: unit i's pipeline, once it runs).
  void start(const dependent_t<std::vector<PipelineInfo>, Parent>& infos) {
    am_.ready_objects();
    for (std::size_t i = 0; i < units.size(); ++i) {
      stores_[i].attach_unit(am_, units[i].unit_key, &infos[i]);
      units[i].store = &stores_[i];
    }
    split_ = true;
    am_.split_units(stores_.data(), [this](const Key& key) { return owner(key); });
  }

  // After the units, before their output is delivered. All succeeded: the
  // results back in the serial run's order (the nest then invalidates
  // module results). Unit k failed first: the results of units 0..k back,
  // and the manager emptied as the serial run empties it: where unit k's
  // failing pass did (its hooks' output put there in the unit's), else after
  // the output is delivered (finish_failed).
  template <class Set>
  void finish(std::size_t failed, dependent_t<std::vector<UnitOutput>, Parent>& outputs,
              const dependent_t<std::vector<PipelineInfo>, Parent>& infos, Set& set) {
    if (failed == no_unit) {
      merge(units.size());
      return;
    }
    // The results of units after k that split_units moved count as still
    // there (a serial run never started those units).
    am_.restore_units(stores_.data(), stores_.size(), failed + 1);
    restored_ = true;
    merge(failed + 1);
    const std::size_t at = units[failed].failed_at;
    if (at != NestAnalyses<Parent>::no_output) {
      dependent_t<UnitOutput, Parent> held;  // (dependent spellings in this file: type_name.hpp, issue 18)
      {
        const UnitOutputScope scope(held);
        const PipelineScope current(infos[failed]);
        am_.clear_after_failed_nest(set);
      }
      outputs[failed].insert(at, std::move(held));
    }
  }
  // After unit k's failure was delivered: the rest emptied; the results of
  // units after k (which a serial run never computed) with their output discarded.
  template <class Set>
  void finish_failed(Set& set) {
    am_.clear_after_failed_nest(set);
    merge(units.size());
    dependent_t<UnitOutput, Parent> discarded;
    const UnitOutputScope scope(discarded);
    am_.clear_after_failure(set);
  }

  // common(): the intersection of the effective sets of the unit passes that ran (none: nullopt).
  // (PreservedAnalyses, spelled dependently: g++ would instantiate it where this is defined. Issue 18.)
  std::optional<detail::dependent_t<PreservedAnalyses, Parent>> common() const {
    std::optional<detail::dependent_t<PreservedAnalyses, Parent>> out;
    for (const auto& u : units) {
      if (!u.common) continue;
      if (!out) {
        out = *u.common;
      } else {
        out->intersect(*u.common);
      }
    }
    return out;
  }

 private:
  // The stores' results back: the earlier ones in their places, then the
  // new ones of units [merged units, to) in unit order.
  void merge(std::size_t to) {
    if (!restored_) {
      am_.restore_units(stores_.data(), stores_.size(), stores_.size());
      restored_ = true;
    }
    for (; taken_ < to; ++taken_) am_.take_results(stores_[taken_]);
    merged_ = taken_ == units.size();
  }

  AnalysisManager<Parent>& am_;
  std::vector<AnalysisManager<Parent>> stores_;

 public:
  std::vector<NestAnalyses<Parent>> units;

 private:
  dependent_t<std::vector<std::size_t>, Parent> by_hash_;  // open addressing by key hash: a unit, or no_unit
  std::size_t taken_ = 0;
  bool split_ = false;
  bool restored_ = false;
  bool merged_ = false;
};

// What run_parallel takes when the context cannot hold a manager for the
// parent. One type per context (null when it holds none now), so a nest has
// one parallel run whether or not a manager is there.
struct NoParallelAnalyses {};
template <class Ctx, class Parent>
using parallel_analyses_for = std::conditional_t<std::is_void_v<typename nest_manager<Ctx, Parent>::type>,
                                                 NoParallelAnalyses, ParallelAnalyses<Parent>>;

}  // namespace detail

// UnitContext<Parent, Unit, Ctx>: the context of one unit's pipeline. It
// answers as the outer context does (gate, config, instruments) and adds
// the unit's place in the nest, and the parent's analysis manager seen
// from the unit (SPEC §11.13).
template <class Parent, class Unit, class Ctx>
class UnitContext {
 public:
  using parent_type = Parent;
  using unit_type = Unit;
  using outer_context_type = Ctx;
  // The manager the outer context may hold for Parent (void: none).
  using analysis_manager_type = typename detail::nest_manager<Ctx, Parent>::type;
  using nest_analyses_type = detail::nest_analyses_ptr<analysis_manager_type, Parent>;

  // `lazy`: the serial nest's lazily written unit fields of `info` (null: `info` is always whole).
  UnitContext(Ctx& outer, const Parent& parent, const PipelineInfo& info, nest_analyses_type analyses = {},
              detail::LazyUnitFields* lazy = nullptr) noexcept
      : outer_(&outer), parent_(&parent), info_(&info), lazy_(lazy), analyses_(analyses) {}

  const Parent& parent() const noexcept { return *parent_; }
  std::string_view unit_name() const noexcept { return pipeline().unit_name; }
  std::size_t unit_index() const noexcept { return pipeline().unit_index; }
  std::size_t unit_count() const noexcept { return info_->unit_count; }
  // (A serial nest may write the unit fields only when asked: detail::LazyUnitFields.)
  const PipelineInfo& pipeline() const noexcept {
    if (lazy_ != nullptr) lazy_->sync();
    return *info_;
  }
  Ctx& outer() const noexcept { return *outer_; }

  int opt_level() const noexcept { return outer_->opt_level(); }
  PASSINFRA_ALWAYS_INLINE bool pass_enabled(const PassInfo& info) const noexcept { return outer_->pass_enabled(info); }
  PASSINFRA_ALWAYS_INLINE bool is_required(std::string_view name) const noexcept { return outer_->is_required(name); }
  bool names_listed() const noexcept
    requires requires(const Ctx& c) { c.names_listed(); }
  {
    return outer_->names_listed();
  }
  bool has_required() const noexcept
    requires requires(const Ctx& c) { c.has_required(); }
  {
    return outer_->has_required();
  }
  PASSINFRA_ALWAYS_INLINE auto gate() const noexcept
    requires requires(const Ctx& c) { c.gate(); }
  {
    return outer_->gate();
  }
  decltype(auto) required_pass() const noexcept { return outer_->required_pass(); }
  decltype(auto) disabled_pass() const noexcept { return outer_->disabled_pass(); }
  decltype(auto) config() const noexcept { return outer_->config(); }
  template <class T>
  T get_config(std::string_view key, T default_value) const {
    return outer_->template get_config<T>(key, std::move(default_value));
  }
  template <class K>
  auto get_config(const K& key) const -> decltype(std::declval<const Ctx&>().get_config(key)) {
    return outer_->get_config(key);
  }
  decltype(auto) instrument_set() noexcept { return outer_->instrument_set(); }
  decltype(auto) instruments() noexcept { return outer_->instruments(); }
  ExecutorRef executor() const noexcept
    requires requires(const Ctx& c) { c.executor(); }
  {
    return outer_->executor();
  }

  // analyses(): the parent's manager seen from this unit (SPEC §11.13): a
  // UnitAnalysisHandle; NoAnalysisManager (every use a static_assert) when
  // the outer context cannot hold a manager for Parent; passinfra::Error
  // when it can but holds none.
  auto analyses() {
    if constexpr (std::is_void_v<analysis_manager_type>) {
      return NoAnalysisManager{};
    } else {
      if (analyses_ == nullptr) [[unlikely]] {
        throw Error(
            "ctx.analyses(): this PassContext<IR> has no analysis manager; construct it with "
            "PassContext<IR>(options, instruments, &am)");
      }
      using Set = std::remove_reference_t<decltype(outer_->instrument_set())>;
      return UnitAnalysisHandle<analysis_manager_type, Set>(static_cast<analysis_manager_type&>(*analyses_->am),
                                                            outer_->instrument_set(), analyses_->store);
    }
  }
  // nest_analyses(): the nest run's analysis state (null: no manager);
  // what run() uses for unit-level passes (core/run.hpp, run_in_unit).
  nest_analyses_type nest_analyses() const noexcept
    requires(!std::is_void_v<analysis_manager_type>)
  {
    return analyses_;
  }

 private:
  Ctx* outer_;
  const Parent* parent_;
  const PipelineInfo* info_;
  detail::LazyUnitFields* lazy_;
  [[no_unique_address]] nest_analyses_type analyses_;
};

namespace detail {

// The checks of Nest::transform, one static_assert each, at the entry point.
template <class Unit, class Parent>
consteval bool check_nestable() {
  static_assert(NestableIR<Parent, Unit>,
                "passinfra::Nest<Unit, Ps...>: the parent IR cannot be split into these units; specialize "
                "passinfra::unit_traits<Parent, Unit> with static std::vector<UnitSlot<Unit>> units(const Parent&) "
                "and static Parent replace_units(Parent, std::vector<UnitSlot<Unit>>)");
  return NestableIR<Parent, Unit>;
}
template <class P, class Unit, class UCtx>
consteval bool check_unit_pass() {
  static_assert(HasTransform<P, Unit, UCtx>,
                "passinfra::Nest<Unit, Ps...>: the pass P has no transform(Unit, ctx&); is it a pass over the "
                "parent? run it outside the nest");
  return HasTransform<P, Unit, UCtx>;
}

// nest_run_id(): an id for one nest run, unique in the process without an
// atomic per run: the thread's ordinal in the high bits, a per-thread count below.
inline std::uint64_t nest_run_id(std::uint32_t thread) noexcept {
  thread_local std::uint64_t runs = 0;
  return (static_cast<std::uint64_t>(thread) << 40) | ++runs;
}

// WorkerBinding: what a worker thread of a parallel nest takes over from the
// calling thread for one unit (SPEC §11.9): the context the nest runs under
// (which may not be entered or given new instruments there) and, for a
// dynamic context, the calling thread's current PassContext<P>, pushed on the
// worker's stack while the unit runs. A type-erased context (ContextRef)
// gives its own (ctx.worker_binding()).
struct WorkerBinding {
  const void* root = nullptr;             // the PassContext the nest runs under
  void* caller_current = nullptr;         // PassContext<P>::current() on the calling thread
  void (*push)(void* current) = nullptr;  // pushes it on this thread's stack (null: static)
  void (*pop)() = nullptr;                // pops it
};

// worker_binding(ctx): the binding of the (possibly nested, possibly erased) context ctx.
template <class Ctx>
WorkerBinding worker_binding(Ctx& ctx) noexcept {
  if constexpr (requires { ctx.outer(); }) {
    return worker_binding(ctx.outer());
  } else if constexpr (requires { ctx.worker_binding(); }) {
    return ctx.worker_binding();
  } else {
    WorkerBinding b;
    b.root = static_cast<const void*>(&ctx);
    if constexpr (requires { Ctx::current(); }) {
      b.caller_current = static_cast<void*>(&Ctx::current());
      b.push = +[](void* current) { context_stack<Ctx>().push_back(static_cast<Ctx*>(current)); };
      b.pop = +[] { context_stack<Ctx>().pop_back(); };
    }
    return b;
  }
}

// WorkerContextScope: on a worker thread, for one unit: the calling thread's
// current PassContext<P> (dynamic contexts) is current here too, and the
// context the nest runs under may not be entered or given new instruments.
class WorkerContextScope {
 public:
  // On the calling thread (`on_worker` false) it does nothing.
  WorkerContextScope(bool on_worker, const WorkerBinding& binding) noexcept
      : binding_(on_worker ? &binding : nullptr), saved_guard_(parallel_worker_context) {
    if (binding_ == nullptr) return;
    parallel_worker_context = binding.root;
    if (binding.push != nullptr) binding.push(binding.caller_current);
  }
  WorkerContextScope(const WorkerContextScope&) = delete;
  WorkerContextScope& operator=(const WorkerContextScope&) = delete;
  ~WorkerContextScope() {
    if (binding_ == nullptr) return;
    if (binding_->pop != nullptr) binding_->pop();
    parallel_worker_context = saved_guard_;
  }

 private:
  const WorkerBinding* binding_;
  const void* saved_guard_;
};

// NestRun<Unit>: the run of a nest over Units (SPEC §11.3-§11.6, §11.9),
// shared by the static Nest and DynamicNest (dynamic/dynamic_nest.hpp):
// `children` is anything with run_children_gated(unit, unit_ctx, gate)
// (Sequential<Ps...>, DynamicSequential<Unit>), `info` the nest's PassInfo.
template <class Unit>
struct NestRun {
  template <class Parent, class Ctx, class Children>
  PASSINFRA_ALWAYS_INLINE static Parent transform(const PassInfo& nest_info, NestOptions options,
                                                  const Children& children, Parent parent, Ctx& ctx) {
    std::vector<UnitSlot<Unit>> slots = unit_traits<Parent, Unit>::units(std::as_const(parent));
    if (slots.empty()) return parent;
    using M = typename nest_manager<Ctx, Parent>::type;
    if constexpr (!std::is_void_v<M>) {
      if (M* am = ctx.analysis_manager()) {
        run_analysed(nest_info, options, children, std::as_const(parent), slots, ctx, *am);
        return unit_traits<Parent, Unit>::replace_units(std::move(parent), std::move(slots));
      }
    }
    if constexpr (requires { ctx.executor(); }) {
      if (ctx.executor() && !options.serial && slots.size() >= 2) [[unlikely]] {
        run_maybe_parallel(nest_info, children, std::as_const(parent), slots, ctx);
        return unit_traits<Parent, Unit>::replace_units(std::move(parent), std::move(slots));
      }
    }
    run_serial(nest_info, children, std::as_const(parent), slots, ctx);
    return unit_traits<Parent, Unit>::replace_units(std::move(parent), std::move(slots));
  }

  // Units in unit order on this thread; the first failure leaves. One
  // PipelineInfo, unit context and gate state for the run: per unit, the
  // info's name and index change (the hooks and passes of one unit see it
  // whole; nothing keeps it past its unit). Written per unit when a pipeline
  // hook receives the info or an analysis manager names it in its errors;
  // else only the running unit's slot is stored per unit, and the fields
  // are written when read (LazyUnitFields: current_pipeline(), the unit
  // context's pipeline()).
  template <class Parent, class Ctx, class Children, class NA = NoNestAnalyses>
  static void run_serial(const PassInfo& nest_info, const Children& children, const Parent& parent,
                         std::vector<UnitSlot<Unit>>& slots, Ctx& ctx, NA analyses = {}) {
    const std::uint32_t thread = thread_ordinal();
    PipelineInfo info{nest_info, {}, 0, slots.size(), nest_run_id(thread), thread, thread, current_pipeline()};
    const PipelineScope current(info);
    const FreezeModules<NA> frozen(analyses, info);
    using UCtx = UnitContext<Parent, Unit, Ctx>;
    using Set = std::remove_cvref_t<decltype(ctx.instrument_set())>;
    if constexpr (std::is_same_v<NA, NoNestAnalyses> && !has_pipeline_hooks<Set>) {
      LazyUnitFields lazy{&info, slots.data(), nullptr, &fill_unit_fields};
      const LazyUnitScope lazy_scope(lazy);
      UCtx unit_ctx(ctx, parent, info, {}, &lazy);
      with_gate(ctx, [&](const auto& gate) PASSINFRA_LAMBDA_INLINE {
        for (UnitSlot<Unit>& slot : slots) {
          lazy.unit = &slot;
          slot.ir = run_unit(children, std::move(slot.ir), info, unit_ctx, gate);
        }
      });
    } else {
      typename UCtx::nest_analyses_type unit_analyses{};
      if constexpr (!std::is_same_v<NA, NoNestAnalyses>) unit_analyses = analyses;
      UCtx unit_ctx(ctx, parent, info, unit_analyses);
      with_gate(ctx, [&](const auto& gate) PASSINFRA_LAMBDA_INLINE {
        for (std::size_t i = 0; i < slots.size(); ++i) {
          info.unit_name = slots[i].name;
          info.unit_index = i;
          if constexpr (!std::is_same_v<NA, NoNestAnalyses>) analyses->enter_unit(std::as_const(slots[i].ir));
          slots[i].ir = run_unit(children, std::move(slots[i].ir), info, unit_ctx, gate);
        }
      });
    }
  }

  // has_pipeline_hooks<Set>: an instrument of Set receives a unit's PipelineInfo.
  template <class Set>
  static constexpr bool has_pipeline_hooks =
      Set::template has_run_before_pipeline<Unit> || Set::template has_run_after_pipeline<Unit> ||
      Set::has_run_after_pipeline_failed;

  // fill_unit_fields(lazy): the lazy info's unit name and index, from its running unit's slot.
  static void fill_unit_fields(LazyUnitFields& lazy) noexcept {
    const auto* slot = static_cast<const UnitSlot<Unit>*>(lazy.unit);
    lazy.info->unit_name = slot->name;
    lazy.info->unit_index = static_cast<std::size_t>(slot - static_cast<const UnitSlot<Unit>*>(lazy.first));
  }

  // FreezeModules<NA>: while the units run, the manager computes no module
  // result, and no function result but the running unit's function's (when
  // the units are the parent's functions) (SPEC §11.13); the errors name
  // the nest and the unit `info` describes (as a parallel unit's store does).
  template <class NA>
  struct FreezeModules {
    FreezeModules(NA, const PipelineInfo&) noexcept {}
  };
  template <class P>
  struct FreezeModules<NestAnalyses<P>*> {
    using Key = typename AnalysisManager<P>::function_key_type;
    FreezeModules(NestAnalyses<P>* na, const PipelineInfo& info) noexcept
        : am(na->am),
          previous(na->am->freeze_modules(&info)),
          previous_only(na->am->only_function(NestAnalyses<P>::template keys_units<Unit> ? &na->unit_key : nullptr)) {}
    FreezeModules(const FreezeModules&) = delete;
    FreezeModules& operator=(const FreezeModules&) = delete;
    ~FreezeModules() {
      am->only_function(previous_only);
      am->freeze_modules(previous);
    }
    AnalysisManager<P>* am;
    const PipelineInfo* previous;
    const Key* previous_only;
  };

  // With an analysis manager for the parent (SPEC §11.13): the units run,
  // each unit-level pass invalidating its unit's function results; then
  // module results are invalidated once with the intersection of those
  // passes' effective sets (none ran: nothing). An exception leaving the
  // nest leaves the manager empty.
  template <class Parent, class Ctx, class Children, class M>
  [[gnu::noinline]] static void run_analysed(const PassInfo& nest_info, NestOptions options, const Children& children,
                                             const Parent& parent, std::vector<UnitSlot<Unit>>& slots, Ctx& ctx,
                                             M& am) {
    NestAnalyses<Parent> analyses{&am, SinkRef<Parent>(ctx.instrument_set()), {}};
    auto& set = ctx.instrument_set();
    try {
      if constexpr (requires { ctx.executor(); }) {
        if (ctx.executor() && !options.serial && slots.size() >= 2) {
          if (run_analysed_parallel(nest_info, children, parent, slots, ctx, am, analyses.sink)) return;
        }
      }
      run_serial(nest_info, children, parent, slots, ctx, &analyses);
      if (analyses.common) am.invalidate_with(*analyses.common, InvalidationScope::module_only, nullptr, set);
    } catch (...) {
      am.clear_after_failure(set);  // SPEC §11.13, §10.6: the parent is not rebuilt
      throw;
    }
  }

  // Parallel with a manager, unless an instrument with a unit-level or an
  // analysis hook is not thread-safe or the units' results cannot be kept
  // apart (false: run them serially; the INFO line is logged).
  template <class Parent, class Ctx, class Children>
  static bool run_analysed_parallel(const PassInfo& nest_info, const Children& children, const Parent& parent,
                                    std::vector<UnitSlot<Unit>>& slots, Ctx& ctx, AnalysisManager<Parent>& am,
                                    SinkRef<Parent> sink) {
    const std::string unsafe = ctx.instrument_set().template first_unsafe_for_units<Unit, Parent>();
    if (!unsafe.empty()) {
      log(LogLevel::info,
          std::string(nest_info.name) + ": running units serially: instrument '" + unsafe + "' is not thread-safe.");
      return false;
    }
    ParallelAnalyses<Parent> analyses(am, sink, slots);
    const std::string why = analyses.why_serial();
    if (!why.empty()) {
      log(LogLevel::info, std::string(nest_info.name) + ": running units serially: " + why + ".");
      return false;
    }
    run_parallel<Parent, Ctx, Children, ParallelAnalyses<Parent>>(nest_info, children, parent, slots, ctx, &analyses);
    if (const auto common = analyses.common()) {
      am.invalidate_with(*common, InvalidationScope::module_only, nullptr, ctx.instrument_set());
    }
    return true;
  }

  // with_gate(ctx, f): f(gate) with the gate state the children use, taken
  // once per run as Sequential::transform takes it once per call: the
  // opt_level compare when no names are listed and the instruments are on,
  // else the context's full gate.
  template <class Ctx, class F>
  PASSINFRA_ALWAYS_INLINE static void with_gate(Ctx& ctx, F&& f) {
    const auto gate = gate_of(ctx);
    if constexpr (PASSINFRA_GATE_FAST_PATH != 0 && requires { gate.opt_level_gate(); }) {
      if (gate.names_listed() || !instruments_active(ctx)) [[unlikely]] {
        f(gate);
      } else {
        f(gate.opt_level_gate());
      }
    } else {
      f(gate);
    }
  }

  // With an executor: parallel unless an instrument with a unit-level hook is
  // not thread-safe (SPEC §11.4), checked now over the instruments held now.
  template <class Parent, class Ctx, class Children>
  [[gnu::noinline]] static void run_maybe_parallel(const PassInfo& nest_info, const Children& children,
                                                   const Parent& parent, std::vector<UnitSlot<Unit>>& slots, Ctx& ctx) {
    const std::string unsafe = ctx.instrument_set().template first_unsafe_for_units<Unit>();
    if (!unsafe.empty()) {
      log(LogLevel::info,
          std::string(nest_info.name) + ": running units serially: instrument '" + unsafe + "' is not thread-safe.");
      run_serial(nest_info, children, parent, slots, ctx);
      return;
    }
    run_parallel<Parent, Ctx, Children, parallel_analyses_for<Ctx, Parent>>(nest_info, children, parent, slots, ctx,
                                                                            nullptr);
  }

  // SPEC §11.4-§11.6 and §11.9 over detail::fork_join; with a manager
  // (`analyses` not null), SPEC §11.13.
  template <class Parent, class Ctx, class Children, class PA>
  static void run_parallel(const PassInfo& nest_info, const Children& children, const Parent& parent,
                           std::vector<UnitSlot<Unit>>& slots, Ctx& ctx, [[maybe_unused]] PA* analyses) {
    constexpr bool analysed = !std::is_same_v<PA, NoParallelAnalyses>;
    const std::size_t n = slots.size();
    const std::uint32_t caller = thread_ordinal();
    const PipelineInfo* const enclosing = current_pipeline();
    const std::uint64_t run_id = nest_run_id(caller);
    const WorkerBinding binding = worker_binding(ctx);
    dependent_t<std::vector<PipelineInfo>, Parent> infos(n);
    dependent_t<std::vector<UnitOutput>, Parent> outputs(n);
    if constexpr (analysed) {
      if (analyses != nullptr) analyses->start(infos);
    }
    ForkJoinResultOf<dependent_t<void, Parent>> result;
    with_gate(ctx, [&](const auto& gate) {
      auto run_one = [&](std::size_t i) {
        PipelineInfo& info = infos[i];
        info = PipelineInfo{nest_info, slots[i].name, i, n, run_id, caller, thread_ordinal(), enclosing};
        const PipelineScope current(info);
        const UnitOutputScope held(outputs[i]);
        using UCtx = UnitContext<Parent, Unit, Ctx>;
        typename UCtx::nest_analyses_type unit_analyses{};
        if constexpr (analysed) unit_analyses = analyses != nullptr ? &analyses->units[i] : nullptr;
        UCtx unit_ctx(ctx, parent, info, unit_analyses);
        const WorkerContextScope worker(info.thread != caller, binding);
        slots[i].ir = run_unit(children, std::move(slots[i].ir), info, unit_ctx, gate);
      };
      result = fork_join(ctx.executor(), n, run_one);
    });
    // Output in unit order, up to and including the unit whose exception propagates.
    const std::size_t delivered = result.ok() ? n : result.failures.front().index + 1;
    if constexpr (analysed) {
      if (analyses != nullptr) {
        analyses->finish(result.ok() ? ParallelAnalyses<Parent>::no_unit : delivered - 1, outputs, infos,
                         ctx.instrument_set());
      }
    }
    for (std::size_t i = 0; i < delivered; ++i) outputs[i].deliver();
    if constexpr (analysed) {
      if (analyses != nullptr && !result.ok()) analyses->finish_failed(ctx.instrument_set());
    }
    const std::string name(nest_info.name);
    if (result.executor_error) {
      log(LogLevel::debug, name + ": the executor's execute threw (" + describe(result.executor_error) +
                               "); the units it did not take ran on the calling thread.");
    }
    if (!result.ok()) {
      const std::string& first = slots[result.failures.front().index].name;
      for (std::size_t k = 1; k < result.failures.size(); ++k) {
        log(LogLevel::debug, name + ": dropped the exception of unit '" + slots[result.failures[k].index].name +
                                 "': " + describe(result.failures[k].error) + "; unit '" + first + "' failed first.");
      }
      std::rethrow_exception(result.failures.front().error);
    }
  }

  // One unit: SPEC §11.3 steps 1-3 (its pipeline is current on this thread).
  template <class Children, class UCtx, class Gate>
  PASSINFRA_ALWAYS_INLINE static Unit run_unit(const Children& children, Unit unit, const PipelineInfo& info,
                                               UCtx& unit_ctx, const Gate& gate) {
    auto& set = unit_ctx.instrument_set();
    using Set = std::remove_cvref_t<decltype(set)>;
    if constexpr (!has_pipeline_hooks<Set>) {
      return children.run_children_gated(std::move(unit), unit_ctx, gate);
    } else {
      std::size_t returned = 0;  // run_before_pipeline hooks that returned
      std::size_t started = 0;   // run_after_pipeline hooks that were started
      try {
        set.run_before_pipeline(std::as_const(unit), info, returned);
        Unit out = children.run_children_gated(std::move(unit), unit_ctx, gate);
        set.run_after_pipeline(std::as_const(out), info, started);
        return out;
      } catch (...) {
        set.run_after_pipeline_failed(info, std::current_exception(), started, returned);
        throw;
      }
    }
  }
};

}  // namespace detail

template <class Unit, class... Ps>
class Nest : public CallablePass<Nest<Unit, Ps...>> {
  using Children = Sequential<Ps...>;

 public:
  using unit_type = Unit;
  // The nest invalidates for its units itself (SPEC §11.13); as a pass it preserves everything.
  using preserves = passinfra::preserves_all;
  static constexpr PassInfo default_info{unit_kind_name<Unit>(), 0};

  constexpr Nest()
    requires(detail::all_true<std::is_default_constructible_v<Ps>...>())
  = default;
  constexpr explicit Nest(Ps... passes)
    requires(sizeof...(Ps) > 0)
      : children_(std::move(passes)...) {}
  constexpr explicit Nest(PassInfo info, Ps... passes)
      : name_(info.name), opt_level_(info.opt_level), children_(make_children(std::move(passes)...)) {}
  constexpr explicit Nest(NestOptions options, Ps... passes)
      : options_(options), children_(make_children(std::move(passes)...)) {}
  constexpr Nest(PassInfo info, NestOptions options, Ps... passes)
      : name_(info.name),
        opt_level_(info.opt_level),
        options_(options),
        children_(make_children(std::move(passes)...)) {}

  constexpr PassInfo info() const noexcept { return {name_, opt_level_}; }
  constexpr NestOptions options() const noexcept { return options_; }

  static constexpr std::size_t size = sizeof...(Ps);
  template <std::size_t I>
    requires(I < sizeof...(Ps))
  constexpr const auto& child() const noexcept {
    return children_.template child<I>();
  }
  constexpr std::tuple<const Ps&...> passes() const noexcept { return children_.passes(); }
  template <class F>
  void for_each_child(F&& f) const {
    children_.for_each_child(f);
  }

  template <class Parent, class Ctx>
  Parent transform(Parent parent, Ctx& ctx) const {
    if constexpr (!detail::check_nestable<Unit, Parent>()) {
      return parent;  // the static_assert above has said what is wrong
    } else if constexpr (!detail::all_true<detail::check_unit_pass<Ps, Unit, UnitContext<Parent, Unit, Ctx>>()...>()) {
      return parent;
    } else {
      return detail::NestRun<Unit>::transform(info(), options_, children_, std::move(parent), ctx);
    }
  }

 private:
  static constexpr Children make_children(Ps... passes) {
    if constexpr (sizeof...(Ps) == 0) {
      return Children();
    } else {
      return Children(std::move(passes)...);
    }
  }

  std::string_view name_ = default_info.name;
  int opt_level_ = default_info.opt_level;
  NestOptions options_{};
  Children children_;
};

// nest<Unit>([PassInfo,] [NestOptions,] passes...): a Nest from values.
template <class Unit, class... Ps>
constexpr Nest<Unit, Ps...> nest(Ps... passes) {
  if constexpr (sizeof...(Ps) == 0) {
    return Nest<Unit>();
  } else {
    return Nest<Unit, Ps...>(std::move(passes)...);
  }
}
template <class Unit, class... Ps>
constexpr Nest<Unit, Ps...> nest(PassInfo info, Ps... passes) {
  return Nest<Unit, Ps...>(info, std::move(passes)...);
}
template <class Unit, class... Ps>
constexpr Nest<Unit, Ps...> nest(NestOptions options, Ps... passes) {
  return Nest<Unit, Ps...>(options, std::move(passes)...);
}
template <class Unit, class... Ps>
constexpr Nest<Unit, Ps...> nest(PassInfo info, NestOptions options, Ps... passes) {
  return Nest<Unit, Ps...>(info, options, std::move(passes)...);
}

}  // namespace passinfra
