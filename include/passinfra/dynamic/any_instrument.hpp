// passinfra/dynamic/any_instrument.hpp — an instrument erased into a value.
//
// AnyInstrument<IR>(std::ref(x))          refers to x (x must outlive every copy)
// AnyInstrument<IR>(std::shared_ptr<T>)   shares ownership of *p (null: passinfra::Error)
// make_instrument<IR, T>(args...)         AnyInstrument owning a new T
// i.name()                                `name()`/`name` of the instrument, else its type name (a copy)
// i.enter_pass_ctx() ... run_after_pass_failed(info, error)   forwards to the hook, if T has it
// i.run_before_analysis(ir, info) / run_after_analysis(ir, info) / run_after_analysis_failed(info, error)
//   / run_analysis_invalidated(info)      the analysis hooks (SPEC §10.7), forwarded likewise
// i.has_should_run() ... has_run_analysis_invalidated()   whether T has that hook
// i.hook_mask()                           the hooks T has, one bit each
// i.should_run(unit, info) ... run_before_pipeline(unit, pinfo) / run_after_pipeline(unit, pinfo)
//   / run_after_pipeline_failed(pinfo, error)   the hooks of the unit types IR lists
//                                         (ir_traits<IR>::unit_types), forwarded likewise (SPEC §11.3)
// i.thread_safe() / i.has_unit_hooks()    for a parallel nest's check (SPEC §11.4, §11.8)
// i.run_solo(loop, ir)                    (DynamicSequential's) its children under this instrument alone
// i.run_solo(loop, unit)                  the same for a nest's unit pipeline under a list of IR (DynamicNest)
//
// Copies share the object. Only the hooks T has are called (a hook T lacks
// does nothing; should_run defaults to run).
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/instrument.hpp"
#include "passinfra/core/instrument_set.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/type_name.hpp"
#include "passinfra/dynamic/solo_loop.hpp"

namespace passinfra {

namespace detail {

// The hooks of T for one unit type U of IR (SPEC §11.3): null for a hook T
// lacks (then should_run says "run" and the others do nothing); and a unit
// pipeline's children under a list of IR holding only T (solo_loop.hpp).
template <class U>
struct InstrumentUnitHooks {
  bool (*should_run)(void*, const U&, const PassInfo&);
  void (*before)(void*, const U&, const PassInfo&);
  void (*after)(void*, const U&, const PassInfo&);
  void (*before_pipeline)(void*, const U&, const PipelineInfo&);
  void (*after_pipeline)(void*, const U&, const PipelineInfo&);
  U (*run_solo)(void*, SoloLoop<U>&, U);
};

template <class T, class U, class IR>
inline constexpr InstrumentUnitHooks<U> instrument_unit_hooks_for{
    HasShouldRun<T, U> ? +[](void* o, const U& u, const PassInfo& info) -> bool {
      if constexpr (HasShouldRun<T, U>) {
        return static_cast<T*>(o)->should_run(u, info);
      } else {
        return true;
      }
    } : nullptr,
    HasRunBeforePass<T, U> ? +[](void* o, const U& u, const PassInfo& info) {
      if constexpr (HasRunBeforePass<T, U>) static_cast<T*>(o)->run_before_pass(u, info);
    } : nullptr,
    HasRunAfterPass<T, U> ? +[](void* o, const U& u, const PassInfo& info) {
      if constexpr (HasRunAfterPass<T, U>) static_cast<T*>(o)->run_after_pass(u, info);
    } : nullptr,
    HasRunBeforePipeline<T, U> ? +[](void* o, const U& u, const PipelineInfo& info) {
      if constexpr (HasRunBeforePipeline<T, U>) static_cast<T*>(o)->run_before_pipeline(u, info);
    } : nullptr,
    HasRunAfterPipeline<T, U> ? +[](void* o, const U& u, const PipelineInfo& info) {
      if constexpr (HasRunAfterPipeline<T, U>) static_cast<T*>(o)->run_after_pipeline(u, info);
    } : nullptr,
    // The hook phases are the list's: DynamicInstruments<IR>.
    +[](void* o, SoloLoop<U>& loop, U u) -> U { return loop.template run<T, IR>(*static_cast<T*>(o), std::move(u)); },
};

// InstrumentUnitTables<IR>::type: T's hook table for each unit type IR lists;
// unit_mask<T>(): the hook bits T has for some unit type, pass and pipeline
// hooks (so that a list's hook phase is not skipped for T's unit hooks).
template <class L>
struct InstrumentUnitTablesOf {
  using type = std::tuple<>;
  template <class T, class IR>
  static constexpr type make() {
    return {};
  }
  template <class T>
  static constexpr unsigned unit_mask() {
    return 0;
  }
  template <class T>
  static constexpr bool any_unit_hook() {
    return false;
  }
};
template <class... Us>
struct InstrumentUnitTablesOf<unit_list<Us...>> {
  using type = std::tuple<const InstrumentUnitHooks<Us>*...>;
  template <class T, class IR>
  static constexpr type make() {
    return type{&instrument_unit_hooks_for<T, Us, IR>...};
  }
  template <class T>
  static constexpr unsigned unit_mask() {
    return ((hook_mask_of<T, Us>() & (hook_should_run | hook_run_before_pass | hook_run_after_pass)) | ... | 0u) |
           ((HasRunBeforePipeline<T, Us> ? hook_run_before_pipeline : 0u) | ... | 0u) |
           ((HasRunAfterPipeline<T, Us> ? hook_run_after_pipeline : 0u) | ... | 0u) |
           (HasRunAfterPipelineFailed<T> ? hook_run_after_pipeline_failed : 0u);
  }
  template <class T>
  static constexpr bool any_unit_hook() {
    return (HasUnitHook<T, Us> || ...);
  }
};
template <class IR>
struct InstrumentUnitTables : InstrumentUnitTablesOf<void> {};
template <class IR>
  requires requires { typename ir_traits<IR>::unit_types; }
struct InstrumentUnitTables<IR> : InstrumentUnitTablesOf<unit_types_closure<IR>> {};

// The Concept half of the erasure: one table of hook entries per type T.
template <class IR>
struct InstrumentVTable {
  unsigned hooks;  // hook_mask_of<T, IR>()
  void (*enter)(void*);
  void (*exit)(void*);
  bool (*should_run)(void*, const IR&, const PassInfo&);
  void (*before)(void*, const IR&, const PassInfo&);
  void (*after)(void*, const IR&, const PassInfo&);
  void (*after_failed)(void*, const PassInfo&, std::exception_ptr);
  // The analysis hooks (SPEC §10.7): null for a hook T lacks. A list none
  // of whose items has one is passed over by its mask, so only a list
  // with some analysis hook ever reads these.
  void (*before_analysis)(void*, const IR&, const AnalysisInfo&);
  void (*after_analysis)(void*, const IR&, const AnalysisInfo&);
  void (*after_analysis_failed)(void*, const AnalysisInfo&, std::exception_ptr);
  void (*analysis_invalidated)(void*, const AnalysisInfo&);
  std::string (*name)(const void*);  // a copy: T::name() may return a temporary
  bool (*thread_safe)(const void*);  // instrument_thread_safe(t) (SPEC §11.8)
  // A DynamicSequential's children under a list holding only this
  // instrument, with its hooks called directly (solo_loop.hpp).
  IR (*run_solo)(void*, SoloLoop<IR>&, IR);
  // Nests (SPEC §11.3): the pipeline hook without a unit, the unit types' tables, whether T has any unit hook.
  void (*after_pipeline_failed)(void*, const PipelineInfo&, std::exception_ptr);
  typename InstrumentUnitTables<IR>::type units;
  bool unit_hooks;
};

// The Model half: the table for T. The three per-pass hooks are never null
// (a hook T lacks does nothing; should_run says "run"), so a call needs no
// test; the others are null for a hook T lacks. `hooks` says which T has.
template <class IR, class T>
inline constexpr InstrumentVTable<IR> instrument_vtable_for{
    hook_mask_of<T, IR>() | InstrumentUnitTables<IR>::template unit_mask<T>(),
    HasEnterPassCtx<T> ? +[](void* o) {
      if constexpr (HasEnterPassCtx<T>) static_cast<T*>(o)->enter_pass_ctx();
    } : nullptr,
    HasExitPassCtx<T> ? +[](void* o) {
      if constexpr (HasExitPassCtx<T>) static_cast<T*>(o)->exit_pass_ctx();
    } : nullptr,
    +[]([[maybe_unused]] void* o, [[maybe_unused]] const IR& ir, [[maybe_unused]] const PassInfo& info) -> bool {
      if constexpr (HasShouldRun<T, IR>) {
        return static_cast<T*>(o)->should_run(ir, info);
      } else {
        return true;
      }
    },
    +[]([[maybe_unused]] void* o, [[maybe_unused]] const IR& ir, [[maybe_unused]] const PassInfo& info) {
      if constexpr (HasRunBeforePass<T, IR>) static_cast<T*>(o)->run_before_pass(ir, info);
    },
    +[]([[maybe_unused]] void* o, [[maybe_unused]] const IR& ir, [[maybe_unused]] const PassInfo& info) {
      if constexpr (HasRunAfterPass<T, IR>) static_cast<T*>(o)->run_after_pass(ir, info);
    },
    HasRunAfterPassFailed<T> ? +[](void* o, const PassInfo& info, std::exception_ptr error) {
      if constexpr (HasRunAfterPassFailed<T>) static_cast<T*>(o)->run_after_pass_failed(info, std::move(error));
    } : nullptr,
    HasRunBeforeAnalysis<T, IR> ? +[](void* o, const IR& ir, const AnalysisInfo& info) {
      if constexpr (HasRunBeforeAnalysis<T, IR>) static_cast<T*>(o)->run_before_analysis(ir, info);
    } : nullptr,
    HasRunAfterAnalysis<T, IR> ? +[](void* o, const IR& ir, const AnalysisInfo& info) {
      if constexpr (HasRunAfterAnalysis<T, IR>) static_cast<T*>(o)->run_after_analysis(ir, info);
    } : nullptr,
    HasRunAfterAnalysisFailed<T> ? +[](void* o, const AnalysisInfo& info, std::exception_ptr error) {
      if constexpr (HasRunAfterAnalysisFailed<T>) static_cast<T*>(o)->run_after_analysis_failed(info, std::move(error));
    } : nullptr,
    HasRunAnalysisInvalidated<T> ? +[](void* o, const AnalysisInfo& info) {
      if constexpr (HasRunAnalysisInvalidated<T>) static_cast<T*>(o)->run_analysis_invalidated(info);
    } : nullptr,
    +[](const void* o) -> std::string { return instrument_name(*static_cast<const T*>(o)); },
    +[](const void* o) -> bool { return instrument_thread_safe(*static_cast<const T*>(o)); },
    +[](void* o, SoloLoop<IR>& loop, IR ir) -> IR { return loop.run(*static_cast<T*>(o), std::move(ir)); },
    HasRunAfterPipelineFailed<T> ? +[](void* o, const PipelineInfo& info, std::exception_ptr error) {
      if constexpr (HasRunAfterPipelineFailed<T>) static_cast<T*>(o)->run_after_pipeline_failed(info, std::move(error));
    } : nullptr,
    InstrumentUnitTables<IR>::template make<T, IR>(),
    InstrumentUnitTables<IR>::template any_unit_hook<T>() || HasRunAfterPassFailed<T>,
};

}  // namespace detail

template <class IR>
class AnyInstrument {
 public:
  template <class T>
  AnyInstrument(std::reference_wrapper<T> instrument)  // NOLINT(google-explicit-constructor): list-friendly
      : object_(std::addressof(instrument.get())), vtable_(vtable<T>()) {}

  template <class T>
  AnyInstrument(std::shared_ptr<T> instrument)  // NOLINT(google-explicit-constructor)
      : object_(instrument.get()), vtable_(vtable<T>()), owner_(std::move(instrument)) {
    if (!object_) {
      throw Error("AnyInstrument<IR>: the shared_ptr<" + std::string(detail::type_name<T>()) +
                  "> is null; expected an instrument object");
    }
  }

  std::string name() const { return vtable_->name(object_); }

  void enter_pass_ctx() const {
    if (vtable_->enter) vtable_->enter(object_);
  }
  void exit_pass_ctx() const {
    if (vtable_->exit) vtable_->exit(object_);
  }
  bool should_run(const IR& ir, const PassInfo& info) const { return vtable_->should_run(object_, ir, info); }
  void run_before_pass(const IR& ir, const PassInfo& info) const { vtable_->before(object_, ir, info); }
  void run_after_pass(const IR& ir, const PassInfo& info) const { vtable_->after(object_, ir, info); }
  void run_after_pass_failed(const PassInfo& info, std::exception_ptr error) const {
    if (vtable_->after_failed) vtable_->after_failed(object_, info, std::move(error));
  }
  // The analysis hooks (SPEC §10.7): a hook T lacks does nothing.
  void run_before_analysis(const IR& ir, const AnalysisInfo& info) const {
    if (vtable_->before_analysis) vtable_->before_analysis(object_, ir, info);
  }
  void run_after_analysis(const IR& ir, const AnalysisInfo& info) const {
    if (vtable_->after_analysis) vtable_->after_analysis(object_, ir, info);
  }
  void run_after_analysis_failed(const AnalysisInfo& info, std::exception_ptr error) const {
    if (vtable_->after_analysis_failed) vtable_->after_analysis_failed(object_, info, std::move(error));
  }
  void run_analysis_invalidated(const AnalysisInfo& info) const {
    if (vtable_->analysis_invalidated) vtable_->analysis_invalidated(object_, info);
  }
  // The unit types' hooks (SPEC §11.3), for the unit types IR lists: a
  // nest's unit pipelines under a PassContext<IR> call them.
  template <class Unit>
    requires detail::is_unit_of<IR, Unit>
  bool should_run(const Unit& unit, const PassInfo& info) const {
    const auto* hooks = std::get<const detail::InstrumentUnitHooks<Unit>*>(vtable_->units);
    return hooks->should_run == nullptr || hooks->should_run(object_, unit, info);
  }
  template <class Unit>
    requires detail::is_unit_of<IR, Unit>
  void run_before_pass(const Unit& unit, const PassInfo& info) const {
    const auto* hooks = std::get<const detail::InstrumentUnitHooks<Unit>*>(vtable_->units);
    if (hooks->before) hooks->before(object_, unit, info);
  }
  template <class Unit>
    requires detail::is_unit_of<IR, Unit>
  void run_after_pass(const Unit& unit, const PassInfo& info) const {
    const auto* hooks = std::get<const detail::InstrumentUnitHooks<Unit>*>(vtable_->units);
    if (hooks->after) hooks->after(object_, unit, info);
  }
  template <class Unit>
    requires detail::is_unit_of<IR, Unit>
  void run_before_pipeline(const Unit& unit, const PipelineInfo& info) const {
    const auto* hooks = std::get<const detail::InstrumentUnitHooks<Unit>*>(vtable_->units);
    if (hooks->before_pipeline) hooks->before_pipeline(object_, unit, info);
  }
  template <class Unit>
    requires detail::is_unit_of<IR, Unit>
  void run_after_pipeline(const Unit& unit, const PipelineInfo& info) const {
    const auto* hooks = std::get<const detail::InstrumentUnitHooks<Unit>*>(vtable_->units);
    if (hooks->after_pipeline) hooks->after_pipeline(object_, unit, info);
  }
  void run_after_pipeline_failed(const PipelineInfo& info, std::exception_ptr error) const {
    if (vtable_->after_pipeline_failed) vtable_->after_pipeline_failed(object_, info, std::move(error));
  }

  // run_solo(loop, ir): the children of `loop` under this instrument alone
  // (DynamicSequential, when its context's list holds only this one).
  IR run_solo(detail::SoloLoop<IR>& loop, IR ir) const { return vtable_->run_solo(object_, loop, std::move(ir)); }
  // run_solo(loop, unit): the same for the children of a nest's unit
  // pipeline (DynamicNest, when its context's list holds only this one).
  template <class Unit>
    requires detail::is_unit_of<IR, Unit>
  Unit run_solo(detail::SoloLoop<Unit>& loop, Unit unit) const {
    return std::get<const detail::InstrumentUnitHooks<Unit>*>(vtable_->units)->run_solo(object_, loop, std::move(unit));
  }

  bool has_enter_pass_ctx() const noexcept { return (vtable_->hooks & detail::hook_enter_pass_ctx) != 0; }
  bool has_exit_pass_ctx() const noexcept { return (vtable_->hooks & detail::hook_exit_pass_ctx) != 0; }
  bool has_should_run() const noexcept { return (vtable_->hooks & detail::hook_should_run) != 0; }
  bool has_run_before_pass() const noexcept { return (vtable_->hooks & detail::hook_run_before_pass) != 0; }
  bool has_run_after_pass() const noexcept { return (vtable_->hooks & detail::hook_run_after_pass) != 0; }
  bool has_run_after_pass_failed() const noexcept { return (vtable_->hooks & detail::hook_run_after_pass_failed) != 0; }
  bool has_run_before_analysis() const noexcept { return (vtable_->hooks & detail::hook_run_before_analysis) != 0; }
  bool has_run_after_analysis() const noexcept { return (vtable_->hooks & detail::hook_run_after_analysis) != 0; }
  bool has_run_after_analysis_failed() const noexcept {
    return (vtable_->hooks & detail::hook_run_after_analysis_failed) != 0;
  }
  bool has_run_analysis_invalidated() const noexcept {
    return (vtable_->hooks & detail::hook_run_analysis_invalidated) != 0;
  }
  // thread_safe(): T declares that its hooks may run on several threads at
  // once (SPEC §11.8: a constant, a trait, or T's thread_safe() asked now).
  bool thread_safe() const { return vtable_->thread_safe(object_); }
  // has_unit_hooks(): a nest's unit pipelines call one of its hooks: T has
  // a hook for one of the unit types IR lists, or run_after_pass_failed.
  bool has_unit_hooks() const noexcept { return vtable_->unit_hooks; }
  // hook_mask(): the hooks T has, one bit each (detail::hook_should_run, ...).
  unsigned hook_mask() const noexcept { return vtable_->hooks; }

  // The object, if it is a T (else nullptr).
  template <class T>
  T* target() const noexcept {
    return vtable_ == vtable<T>() ? static_cast<T*>(object_) : nullptr;
  }

 private:
  template <class T>
  static const detail::InstrumentVTable<IR>* vtable() {
    static_assert(detail::check_instrument<T, IR>());
    return &detail::instrument_vtable_for<IR, T>;
  }

  void* object_;
  const detail::InstrumentVTable<IR>* vtable_;
  detail::dependent_t<std::shared_ptr<void>, IR> owner_;
};

// make_instrument<IR, T>(args...): an AnyInstrument that owns a new T.
template <class IR, class T, class... Args>
AnyInstrument<IR> make_instrument(Args&&... args) {
  return AnyInstrument<IR>(std::make_shared<T>(std::forward<Args>(args)...));
}

}  // namespace passinfra
