// passinfra/core/instrument.hpp — the hooks an instrument may have: six pass hooks, four analysis hooks.
//
// HasEnterPassCtx<I>           i.enter_pass_ctx()        when a context is entered, before it becomes current
// HasExitPassCtx<I>            i.exit_pass_ctx()         when a context is left, after it stopped being current
// HasShouldRun<I, IR>          i.should_run(ir, info)    before a pass; false vetoes it (AND-ed over all)
// HasRunBeforePass<I, IR>      i.run_before_pass(ir, info)  before the body, with the pass's input
// HasRunAfterPass<I, IR>       i.run_after_pass(ir, info)   after the body, with the pass's output
// HasRunAfterPassFailed<I>     i.run_after_pass_failed(info, eptr)  (passinfra's addition) the body or a
//                              later hook threw after this instrument's run_before_pass returned
// HasRunBeforeAnalysis<I, IR>  i.run_before_analysis(ir, info)   an analysis is about to run (a cache miss)
// HasRunAfterAnalysis<I, IR>   i.run_after_analysis(ir, info)    it returned and its result was stored
// HasRunAfterAnalysisFailed<I> i.run_after_analysis_failed(info, eptr)  it threw, after this
//                              instrument's run_before_analysis returned
// HasRunAnalysisInvalidated<I> i.run_analysis_invalidated(info)  a cached result was dropped
//                              (SPEC §10.7; `info` is an AnalysisInfo, `ir` the module)
// HasRunBeforePipeline<I, U>   i.run_before_pipeline(unit, pipeline_info)   a nest is about to run its
//                              pipeline on a unit (SPEC §11.3; U the unit type)
// HasRunAfterPipeline<I, U>    i.run_after_pipeline(unit, pipeline_info)    it did; `unit` is the result
// HasRunAfterPipelineFailed<I> i.run_after_pipeline_failed(pipeline_info, eptr)  it threw, after this
//                              instrument's run_before_pipeline returned
// HasAnalysisHook<I, IR>       I has at least one of the four
// InstrumentFor<I, IR>         I has at least one hook for IR (or for a unit type in
//                              ir_traits<IR>::unit_types, or a pipeline hook)
// HasUnitHook<I, U>            I has a pass or pipeline hook that a unit pipeline over U calls
// ThreadSafeInstrument<I>      I declares `static constexpr bool thread_safe = true`, or
//                              is_thread_safe_instrument<I> is specialized true (SPEC §11.8)
// instrument_thread_safe(i)    the same, or `i.thread_safe()` when I has that member (asked when a
//                              nest starts); false when I declares nothing
// InstrumentList<L>            a run-time list of instruments (DynamicInstruments) inside a set
// instrument_name(i)           `i.name()` or `i.name` if present, else I's type name, as a
//                              std::string it owns (name() may return a temporary std::string)
//
// Hooks are found with requires-expressions; a hook an instrument lacks costs
// nothing. Every hook runs in the order of the instrument list (SPEC §5).
#pragma once

#include <concepts>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

template <class I>
concept HasEnterPassCtx = requires(I& i) { i.enter_pass_ctx(); };

template <class I>
concept HasExitPassCtx = requires(I& i) { i.exit_pass_ctx(); };

template <class I, class IR>
concept HasShouldRun = requires(I& i, const IR& ir, const PassInfo& info) { i.should_run(ir, info); };

template <class I, class IR>
concept HasRunBeforePass = requires(I& i, const IR& ir, const PassInfo& info) { i.run_before_pass(ir, info); };

template <class I, class IR>
concept HasRunAfterPass = requires(I& i, const IR& ir, const PassInfo& info) { i.run_after_pass(ir, info); };

template <class I>
concept HasRunAfterPassFailed =
    requires(I& i, const PassInfo& info, std::exception_ptr error) { i.run_after_pass_failed(info, error); };

// The analysis hooks (SPEC §10.7).
template <class I, class IR>
concept HasRunBeforeAnalysis =
    requires(I& i, const IR& ir, const AnalysisInfo& info) { i.run_before_analysis(ir, info); };

template <class I, class IR>
concept HasRunAfterAnalysis =
    requires(I& i, const IR& ir, const AnalysisInfo& info) { i.run_after_analysis(ir, info); };

template <class I>
concept HasRunAfterAnalysisFailed =
    requires(I& i, const AnalysisInfo& info, std::exception_ptr error) { i.run_after_analysis_failed(info, error); };

template <class I>
concept HasRunAnalysisInvalidated = requires(I& i, const AnalysisInfo& info) { i.run_analysis_invalidated(info); };

// The pipeline hooks (SPEC §11.3).
template <class I, class U>
concept HasRunBeforePipeline =
    requires(I& i, const U& unit, const PipelineInfo& info) { i.run_before_pipeline(unit, info); };

template <class I, class U>
concept HasRunAfterPipeline =
    requires(I& i, const U& unit, const PipelineInfo& info) { i.run_after_pipeline(unit, info); };

template <class I>
concept HasRunAfterPipelineFailed =
    requires(I& i, const PipelineInfo& info, std::exception_ptr error) { i.run_after_pipeline_failed(info, error); };

template <class I, class U>
concept HasUnitHook =
    HasShouldRun<I, U> || HasRunBeforePass<I, U> || HasRunAfterPass<I, U> || HasRunAfterPassFailed<I> ||
    HasRunBeforePipeline<I, U> || HasRunAfterPipeline<I, U> || HasRunAfterPipelineFailed<I>;

// Thread-safety (SPEC §11.8): not declared means not thread-safe.
template <class I>
inline constexpr bool is_thread_safe_instrument = requires { requires static_cast<bool>(I::thread_safe); };

template <class I>
concept ThreadSafeInstrument = is_thread_safe_instrument<I>;

// instrument_thread_safe(i): ThreadSafeInstrument<I>, else i.thread_safe() when I has it, else false.
template <class I>
bool instrument_thread_safe(const I& i) {
  if constexpr (ThreadSafeInstrument<I>) {
    return true;
  } else if constexpr (requires {
                         { i.thread_safe() } -> std::convertible_to<bool>;
                       }) {
    return static_cast<bool>(i.thread_safe());
  } else {
    return false;
  }
}

template <class I, class IR>
concept HasAnalysisHook = HasRunBeforeAnalysis<I, IR> || HasRunAfterAnalysis<I, IR> || HasRunAfterAnalysisFailed<I> ||
                          HasRunAnalysisInvalidated<I>;

namespace detail {
// has_analysis_hook_for<I, IR>: HasAnalysisHook<I, IR> (false for IR void).
template <class I, class IR>
inline constexpr bool has_analysis_hook_for = HasAnalysisHook<I, IR>;
template <class I>
inline constexpr bool has_analysis_hook_for<I, void> = false;
}  // namespace detail

// HasPipelineHookMember<I>: I has a pipeline hook for some unit type (a
// non-overloaded, non-template member of that name, or the failed hook).
template <class I>
concept HasPipelineHookMember =
    requires { &I::run_before_pipeline; } || requires { &I::run_after_pipeline; } || HasRunAfterPipelineFailed<I>;

namespace detail {
// I has a pass or pipeline hook for one of the unit types IR lists in
// ir_traits<IR>::unit_types (a unit_list<Us...>).
template <class I, class List>
inline constexpr bool has_unit_hook_in = false;
template <class I, template <class...> class L, class... Us>
inline constexpr bool has_unit_hook_in<I, L<Us...>> = (HasUnitHook<I, Us> || ...);
template <class I, class IR>
consteval bool has_hook_for_units_of() {
  if constexpr (requires { typename ir_traits<IR>::unit_types; }) {
    return has_unit_hook_in<I, unit_types_closure<IR>>;
  } else {
    return false;
  }
}
}  // namespace detail

// InstrumentFor<I, IR>: I has at least one hook usable with IR (or with the
// units IR lists in ir_traits<IR>::unit_types, or a pipeline hook).
template <class I, class IR>
concept InstrumentFor = HasEnterPassCtx<I> || HasExitPassCtx<I> || HasShouldRun<I, IR> || HasRunBeforePass<I, IR> ||
                        HasRunAfterPass<I, IR> || HasRunAfterPassFailed<I> || HasAnalysisHook<I, IR> ||
                        HasPipelineHookMember<I> || detail::has_hook_for_units_of<I, IR>();

// InstrumentList<L>: a list of instruments whose contents change at run time.
// An InstrumentSet treats each item as one instrument at that position.
template <class L>
concept InstrumentList = requires(L& list, typename L::list_type items) {
  typename L::instrument_list_tag;
  list.items();
  list.take_items();
  list.replace(std::move(items));
  list.begin_phase().replaced();
};

namespace detail {

// One bit per hook: run-time lists that know which hooks their items have
// (hook_mask()) let a hook phase skip them when none has the hook.
inline constexpr unsigned hook_enter_pass_ctx = 1u << 0;
inline constexpr unsigned hook_exit_pass_ctx = 1u << 1;
inline constexpr unsigned hook_should_run = 1u << 2;
inline constexpr unsigned hook_run_before_pass = 1u << 3;
inline constexpr unsigned hook_run_after_pass = 1u << 4;
inline constexpr unsigned hook_run_after_pass_failed = 1u << 5;
inline constexpr unsigned hook_run_before_analysis = 1u << 6;
inline constexpr unsigned hook_run_after_analysis = 1u << 7;
inline constexpr unsigned hook_run_after_analysis_failed = 1u << 8;
inline constexpr unsigned hook_run_analysis_invalidated = 1u << 9;
inline constexpr unsigned analysis_hooks =
    hook_run_before_analysis | hook_run_after_analysis | hook_run_after_analysis_failed | hook_run_analysis_invalidated;
inline constexpr unsigned hook_run_before_pipeline = 1u << 10;
inline constexpr unsigned hook_run_after_pipeline = 1u << 11;
inline constexpr unsigned hook_run_after_pipeline_failed = 1u << 12;
inline constexpr unsigned pipeline_hooks =
    hook_run_before_pipeline | hook_run_after_pipeline | hook_run_after_pipeline_failed;
inline constexpr unsigned all_hooks = (1u << 13) - 1;

template <class I, class IR>
constexpr unsigned hook_mask_of() {
  return (HasEnterPassCtx<I> ? hook_enter_pass_ctx : 0u) | (HasExitPassCtx<I> ? hook_exit_pass_ctx : 0u) |
         (HasShouldRun<I, IR> ? hook_should_run : 0u) | (HasRunBeforePass<I, IR> ? hook_run_before_pass : 0u) |
         (HasRunAfterPass<I, IR> ? hook_run_after_pass : 0u) |
         (HasRunAfterPassFailed<I> ? hook_run_after_pass_failed : 0u) |
         (HasRunBeforeAnalysis<I, IR> ? hook_run_before_analysis : 0u) |
         (HasRunAfterAnalysis<I, IR> ? hook_run_after_analysis : 0u) |
         (HasRunAfterAnalysisFailed<I> ? hook_run_after_analysis_failed : 0u) |
         (HasRunAnalysisInvalidated<I> ? hook_run_analysis_invalidated : 0u);
}

template <class I>
concept HasNameFunction = requires(const I& i) {
  { i.name() } -> std::convertible_to<std::string_view>;
};
template <class I>
concept HasNameMember = requires(const I& i) {
  { i.name } -> std::convertible_to<std::string_view>;
};

// Instruments are stored by value, or by reference when given as std::ref.
template <class T>
struct stored {
  using type = T;
};
template <class T>
struct stored<T&> {
  using type = std::reference_wrapper<T>;
};
template <class T>
using stored_t = typename stored<T>::type;

// The element type an argument of make_pass_context / InstrumentSet{} stands for.
template <class A>
struct element_of {
  using type = std::decay_t<A>;
};
template <class T>
struct element_of<std::reference_wrapper<T>> {
  using type = T&;
};
template <class A>
using element_of_t = typename element_of<std::decay_t<A>>::type;

template <class T>
constexpr T& unwrap(T& x) noexcept {
  return x;
}
template <class T>
constexpr T& unwrap(std::reference_wrapper<T> x) noexcept {
  return x.get();
}

template <class E>
using unwrapped_t = std::remove_cvref_t<E>;

}  // namespace detail

// instrument_name(i): the name used in log lines. It is a copy: `i.name()`
// may return a std::string by value, which a view would outlive. Only the
// cold paths (log lines) ask for it.
template <class I>
std::string instrument_name(const I& instrument) {
  if constexpr (detail::HasNameFunction<I>) {
    return std::string(std::string_view(instrument.name()));
  } else if constexpr (detail::HasNameMember<I>) {
    return std::string(std::string_view(instrument.name));
  } else {
    return std::string(detail::type_name<I>());
  }
}

}  // namespace passinfra
