// passinfra/core/instrument_set.hpp — a compile-time list of instruments.
//
// InstrumentSet<Is...>                    Is: T (held by value) or T& (held by reference)
// make_instrument_set(args...)            std::ref(x) -> T&, anything else by value
// set.get<K>()                            the K-th instrument
// set.size()                              instruments in the set (items of run-time lists counted)
// set.active()                            false once cleared (SPEC §5.1/§5.2)
// set.hook_view()                         the pass hooks through pointers a pipeline keeps in registers
//
// The hook fan-out a context uses (all in list order; the run-time lists of
// DynamicInstruments elements are expanded in place):
// set.enter_pass_ctx()                     SPEC §5.1
// set.exit_pass_ctx(exception_in_flight)   SPEC §5.2, §5.4
// set.should_run(ir, info) -> bool         every instrument asked, results AND-ed
// set.run_before_pass(ir, info, returned)  `returned` counts hooks that returned
// set.run_after_pass(ir, info, started)    `started` counts hooks that were started
// set.run_after_pass_failed(info, error, from, to)   instruments at positions [from, to)
// set.clear()                              disables every hook for the rest of the set's life
// The analysis fan-out (SPEC §10.7; what an AnalysisManager calls through ctx.analyses()):
// set.run_before_analysis(ir, info, returned)          `returned`: positions whose hook returned
// set.run_after_analysis(ir, info, started)            `started`: positions whose hook was started
// set.run_after_analysis_failed(info, error, from, to) positions [from, to); throws logged, dropped
// set.run_analysis_invalidated(info)
// has_run_before_analysis<IR> / has_run_after_analysis<IR> / has_run_after_analysis_failed /
// has_run_analysis_invalidated: false when no instrument has that hook (the manager then
// generates nothing for it)
// The pipeline fan-out (SPEC §11.3; what a nest calls around each unit's pipeline):
// set.run_before_pipeline(unit, pinfo, returned)       `returned` as for run_before_pass
// set.run_after_pipeline(unit, pinfo, started)         `started` as for run_after_pass
// set.run_after_pipeline_failed(pinfo, error, from, to)  positions [from, to); throws logged, dropped
// has_run_before_pipeline<U> / has_run_after_pipeline<U> / has_run_after_pipeline_failed
// has_unit_hooks<U>: some instrument has a pass or pipeline hook for units of type U
// statically_thread_safe<U>: every instrument with such a hook is ThreadSafeInstrument (no list)
// set.first_unsafe_for_units<U>(): the name of the first instrument with such a hook that is not
//                                  thread-safe (SPEC §11.4), or "" when there is none
//
// Design: the set is a detail::FlatTuple (detail/inline.hpp, as a
// Sequential's children are) walked with a fold, so every hook call is a
// direct, inlinable call; a hook an instrument does not have generates
// nothing, and InstrumentSet<> generates nothing at all (the has_* constants
// let `run` skip even the bookkeeping). An empty instrument, final or not,
// takes no room. A DynamicInstruments element is a run-time list: its items
// take the positions where it stands.
#pragma once

#include <array>
#include <cstddef>
#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/mp11/list.hpp>

#include "passinfra/core/instrument.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/exception_text.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

namespace detail {

// The "cleared" state of a set with static instruments; sets made only of
// run-time lists are cleared by emptying the lists, and InstrumentSet<> has
// no state at all.
template <bool HasState>
struct ClearedFlag {
  bool value = false;
};
template <>
struct ClearedFlag<false> {
  static constexpr bool value = false;
};

template <class I, class IR>
consteval bool check_should_run_result() {
  if constexpr (HasShouldRun<I, IR>) {
    using R = decltype(std::declval<I&>().should_run(std::declval<const IR&>(), std::declval<const PassInfo&>()));
    static_assert(std::is_same_v<R, bool>,
                  "passinfra::InstrumentSet: an instrument's should_run(ir, info) must return bool; the "
                  "instrument type is I in the instantiation below");
    return std::is_same_v<R, bool>;
  } else {
    return true;
  }
}

template <class I, class IR>
consteval bool check_instrument() {
  if constexpr (InstrumentList<I>) {
    return true;
  } else if constexpr (!InstrumentFor<I, IR>) {
    static_assert(InstrumentFor<I, IR>,
                  "passinfra::InstrumentSet: I has none of the hooks enter_pass_ctx(), exit_pass_ctx(), "
                  "should_run(const IR&, const PassInfo&), run_before_pass(const IR&, const PassInfo&), "
                  "run_after_pass(const IR&, const PassInfo&), run_after_pass_failed(const PassInfo&, "
                  "std::exception_ptr), nor an analysis hook (run_before_analysis(const IR&, const AnalysisInfo&), "
                  "...) (check the spelling and the parameter types)");
    return false;
  } else {
    return check_should_run_result<I, IR>();
  }
}

// true_positions_t<Bs...>: the positions of the true flags, as an
// index_sequence. A set of static instruments calls its pass hooks as a fold
// over the positions of the instruments that have the hook: each hook called
// directly, where for_each_instrument's generic lambda made the compiler
// instantiate, emit and inline four functions per instrument and hook
// (issue 18: context.cpp -17 M compiler instructions on g++, -30 M on clang;
// seq_200.cpp +28 / -38 M; dispatch_callgrind: no passinfra row more, the
// N = 0 runs of seq_hooks and seq_three 3 and 5 instructions fewer).
template <bool... Bs>
struct TruePositions {
  static constexpr std::size_t count = (std::size_t{0} + ... + std::size_t{Bs});
  // (One leading flag and one spare slot, so that an empty pack still
  // makes an array.)
  static constexpr auto positions = [] {
    constexpr bool flags[] = {false, Bs...};
    std::array<std::size_t, count + 1> at{};
    std::size_t n = 0;
    for (std::size_t i = 1; i < sizeof flags; ++i) {
      if (flags[i]) at[n++] = i - 1;
    }
    return at;
  }();
  template <std::size_t... J>
  static std::index_sequence<positions[J]...> make(std::index_sequence<J...>);
  using type = decltype(make(std::make_index_sequence<count>{}));
};
template <bool... Bs>
using true_positions_t = typename TruePositions<Bs...>::type;

template <class Refs, class Flag>
class InstrumentSetView;

}  // namespace detail

template <class... Is>
class InstrumentSet {
  template <class E>
  using U = detail::unwrapped_t<E>;

 public:
  using element_types = boost::mp11::mp_list<Is...>;

  // Which hooks exist at all (items of run-time lists may have any hook).
  template <class IR>
  static constexpr bool has_should_run = ((InstrumentList<U<Is>> || HasShouldRun<U<Is>, IR>) || ...);
  template <class IR>
  static constexpr bool has_run_before_pass = ((InstrumentList<U<Is>> || HasRunBeforePass<U<Is>, IR>) || ...);
  template <class IR>
  static constexpr bool has_run_after_pass = ((InstrumentList<U<Is>> || HasRunAfterPass<U<Is>, IR>) || ...);
  static constexpr bool has_run_after_pass_failed = ((InstrumentList<U<Is>> || HasRunAfterPassFailed<U<Is>>) || ...);
  template <class IR>
  static constexpr bool has_run_before_analysis = ((InstrumentList<U<Is>> || HasRunBeforeAnalysis<U<Is>, IR>) || ...);
  template <class IR>
  static constexpr bool has_run_after_analysis = ((InstrumentList<U<Is>> || HasRunAfterAnalysis<U<Is>, IR>) || ...);
  static constexpr bool has_run_after_analysis_failed =
      ((InstrumentList<U<Is>> || HasRunAfterAnalysisFailed<U<Is>>) || ...);
  static constexpr bool has_run_analysis_invalidated =
      ((InstrumentList<U<Is>> || HasRunAnalysisInvalidated<U<Is>>) || ...);
  template <class Unit>
  static constexpr bool has_run_before_pipeline = ((InstrumentList<U<Is>> || HasRunBeforePipeline<U<Is>, Unit>) || ...);
  template <class Unit>
  static constexpr bool has_run_after_pipeline = ((InstrumentList<U<Is>> || HasRunAfterPipeline<U<Is>, Unit>) || ...);
  static constexpr bool has_run_after_pipeline_failed =
      ((InstrumentList<U<Is>> || HasRunAfterPipelineFailed<U<Is>>) || ...);
  template <class Unit>
  static constexpr bool has_unit_hooks = ((InstrumentList<U<Is>> || HasUnitHook<U<Is>, Unit>) || ...);
  template <class Unit, class AnalysedIR = void>
  static constexpr bool statically_thread_safe =
      ((!InstrumentList<U<Is>> && (!(HasUnitHook<U<Is>, Unit> || detail::has_analysis_hook_for<U<Is>, AnalysedIR>) ||
                                   ThreadSafeInstrument<U<Is>>)) &&
       ...);
  // No pass-level hook at all: `run` calls the body and nothing else.
  template <class IR>
  static constexpr bool hook_free =
      !(has_should_run<IR> || has_run_before_pass<IR> || has_run_after_pass<IR> || has_run_after_pass_failed);

  // Constrained: a detail::Slot's default member initializer is no SFINAE
  // context, so std::is_default_constructible of a set holding a reference
  // must not reach it (it is false, as it was for the tuple this replaced).
  InstrumentSet()
    requires(detail::all_true<detail::is_default_constructible_type<detail::stored_t<Is>>...>())
  = default;

  template <class... As>
    requires(sizeof...(As) == sizeof...(Is) && sizeof...(As) > 0 &&
             !(sizeof...(As) == 1 && (std::is_same_v<std::remove_cvref_t<As>, InstrumentSet> && ...)))
  explicit InstrumentSet(As&&... instruments) : items_(detail::stored_t<Is>(std::forward<As>(instruments))...) {}

  // get<K>(): the K-th instrument (the referenced object for T& elements).
  template <std::size_t K>
  auto& get() noexcept {
    return detail::unwrap(detail::get<K>(items_));
  }
  template <std::size_t K>
  const auto& get() const noexcept {
    return detail::unwrap(const_cast<InstrumentSet*>(this)->template get<K>());
  }

  bool active() const noexcept { return !cleared_.value; }

  // hook_view(): the pass hooks of this set through a small object that
  // holds a pointer to each instrument and one to this set's cleared state
  // (detail::InstrumentSetView). A pipeline makes one per run, as a local:
  // the optimizer then keeps the pointers in registers for all the children,
  // where through the set it must reload an instrument held by reference
  // after every hook that writes memory.
  PASSINFRA_ALWAYS_INLINE auto hook_view() noexcept {
    using Refs = InstrumentSet<U<Is>&...>;
    return [this]<std::size_t... K>(std::index_sequence<K...>) PASSINFRA_LAMBDA_INLINE {
      return detail::InstrumentSetView<Refs, decltype(cleared_)>(Refs(get<K>()...), cleared_);
    }(std::index_sequence_for<Is...>{});
  }

  std::size_t size() noexcept {
    std::size_t n = 0;
    for_each_instrument([&](auto&, std::size_t) { ++n; });
    return n;
  }

  // SPEC §5.1: enter hooks in order; on a throw, clear, exit the ones entered
  // (each between two INFO lines; their throws are logged and dropped) and
  // rethrow the original exception.
  void enter_pass_ctx() {
    if constexpr (sizeof...(Is) > 0) {
      if (cleared_.value) return;
      std::size_t entered = 0;
      try {
        for_each_instrument([&](auto& instrument, std::size_t) {
          if constexpr (HasEnterPassCtx<U<decltype(instrument)>>) instrument.enter_pass_ctx();
          ++entered;
        });
      } catch (...) {
        log(LogLevel::info, "Pass instrumentation entering pass context failed.");
        log(LogLevel::info, "Disable pass instrumentation.");
        clear_and_exit_first(entered);
        throw;
      }
    }
  }

  // SPEC §5.2 / §5.4: exit hooks in order; on a throw, log, clear (later
  // instruments are not exited) and rethrow -- unless another exception is
  // already in flight, which then wins: this one is logged and dropped.
  void exit_pass_ctx(bool exception_in_flight) {
    if constexpr (sizeof...(Is) > 0) {
      if (cleared_.value) return;
      std::size_t position = 0;
      try {
        for_each_instrument([&](auto& instrument, std::size_t index) {
          position = index;
          if constexpr (HasExitPassCtx<U<decltype(instrument)>>) instrument.exit_pass_ctx();
        });
      } catch (...) {
        log(LogLevel::info, "Pass instrumentation exiting pass context failed.");
        std::string name(name_at(position));
        clear();
        if (!exception_in_flight) throw;
        log(LogLevel::warning, "exit_pass_ctx of instrument " + name +
                                   " threw while another exception was propagating; it is dropped: " +
                                   detail::describe(std::current_exception()));
      }
    }
  }

  template <class IR>
  PASSINFRA_ALWAYS_INLINE bool should_run(const IR& ir, const PassInfo& info) {
    bool run = true;
    if constexpr (has_should_run<IR>) {
      if (cleared_.value) return true;
      if constexpr (has_static_instruments_only) {
        [&]<std::size_t... K>(std::index_sequence<K...>) PASSINFRA_LAMBDA_INLINE {
          ((run &= detail::unwrap(detail::get<K>(items_)).should_run(ir, info)), ...);  // bool: checked
        }(detail::true_positions_t<(HasShouldRun<U<Is>, IR> && detail::check_should_run_result<U<Is>, IR>())...>{});
      } else {
        for_each_instrument<detail::hook_should_run>([&](auto& instrument, std::size_t) PASSINFRA_LAMBDA_INLINE {
          using I = U<decltype(instrument)>;
          if constexpr (HasShouldRun<I, IR> && detail::check_should_run_result<I, IR>()) {
            run &= instrument.should_run(ir, info);  // every instrument is asked
          }
        });
      }
    }
    return run;
  }

  // run_before_pass / run_after_pass without bookkeeping: for sets in which
  // no instrument can have run_after_pass_failed.
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_before_pass(const IR& ir, const PassInfo& info) {
    if constexpr (has_run_before_pass<IR>) {
      if (cleared_.value) return;
      if constexpr (has_static_instruments_only) {
        [&]<std::size_t... K>(std::index_sequence<K...>) PASSINFRA_LAMBDA_INLINE {
          (detail::unwrap(detail::get<K>(items_)).run_before_pass(ir, info), ...);
        }(detail::true_positions_t<HasRunBeforePass<U<Is>, IR>...>{});
      } else {
        for_each_instrument([&](auto& instrument, std::size_t) PASSINFRA_LAMBDA_INLINE {
          if constexpr (HasRunBeforePass<U<decltype(instrument)>, IR>) instrument.run_before_pass(ir, info);
        });
      }
    }
  }
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_after_pass(const IR& ir, const PassInfo& info) {
    if constexpr (has_run_after_pass<IR>) {
      if (cleared_.value) return;
      if constexpr (has_static_instruments_only) {
        [&]<std::size_t... K>(std::index_sequence<K...>) PASSINFRA_LAMBDA_INLINE {
          (detail::unwrap(detail::get<K>(items_)).run_after_pass(ir, info), ...);
        }(detail::true_positions_t<HasRunAfterPass<U<Is>, IR>...>{});
      } else {
        for_each_instrument([&](auto& instrument, std::size_t) PASSINFRA_LAMBDA_INLINE {
          if constexpr (HasRunAfterPass<U<decltype(instrument)>, IR>) instrument.run_after_pass(ir, info);
        });
      }
    }
  }

  // With bookkeeping: `returned` counts the positions whose run_before_pass
  // returned, `started` those whose run_after_pass was started.
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_before_pass(const IR& ir, const PassInfo& info, std::size_t& returned) {
    if (cleared_.value) return;
    if constexpr (has_static_instruments_only) {
      // (Before instrument K's hook, the K before it have returned.)
      const std::size_t base = returned;
      [&]<std::size_t... K>(std::index_sequence<K...>) PASSINFRA_LAMBDA_INLINE {
        ((returned = base + K, detail::unwrap(detail::get<K>(items_)).run_before_pass(ir, info)), ...);
      }(detail::true_positions_t<HasRunBeforePass<U<Is>, IR>...>{});
      returned = base + sizeof...(Is);
    } else {
      for_each_instrument([&](auto& instrument, std::size_t) PASSINFRA_LAMBDA_INLINE {
        if constexpr (HasRunBeforePass<U<decltype(instrument)>, IR>) instrument.run_before_pass(ir, info);
        ++returned;
      });
    }
  }

  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_after_pass(const IR& ir, const PassInfo& info, std::size_t& started) {
    if (cleared_.value) return;
    if constexpr (has_static_instruments_only) {
      // (When instrument K's hook starts, K + 1 have been started.)
      const std::size_t base = started;
      [&]<std::size_t... K>(std::index_sequence<K...>) PASSINFRA_LAMBDA_INLINE {
        ((started = base + K + 1, detail::unwrap(detail::get<K>(items_)).run_after_pass(ir, info)), ...);
      }(detail::true_positions_t<HasRunAfterPass<U<Is>, IR>...>{});
      started = base + sizeof...(Is);
    } else {
      for_each_instrument([&](auto& instrument, std::size_t) PASSINFRA_LAMBDA_INLINE {
        ++started;
        if constexpr (HasRunAfterPass<U<decltype(instrument)>, IR>) instrument.run_after_pass(ir, info);
      });
    }
  }

  // Instruments at positions [from, to) learn that the pass failed. Their own
  // throws are logged and dropped: the pass's exception keeps going.
  void run_after_pass_failed(const PassInfo& info, const std::exception_ptr& error, std::size_t from,
                             std::size_t to) noexcept {
    if constexpr (has_run_after_pass_failed) {
      if (cleared_.value) return;
      for_each_instrument<detail::hook_run_after_pass_failed>([&](auto& instrument, std::size_t index) {
        if constexpr (HasRunAfterPassFailed<U<decltype(instrument)>>) {
          if (index < from || index >= to) return;
          try {
            instrument.run_after_pass_failed(info, error);
          } catch (...) {
            log(LogLevel::warning, "run_after_pass_failed of instrument " + instrument_name(instrument) +
                                       " threw; it is dropped: " + detail::describe(std::current_exception()));
          }
        }
      });
    }
  }

  // ---- analysis hooks (SPEC §10.7) ----
  // Positions count as for the pass hooks: `returned` ends one past the last
  // position whose run_before_analysis returned (or that has none), so
  // run_after_analysis_failed(info, e, 0, returned) reaches exactly them.
  template <class IR>
  void run_before_analysis(const IR& ir, const AnalysisInfo& info, std::size_t& returned) {
    if constexpr (has_run_before_analysis<IR> || has_run_after_analysis_failed) {
      if (cleared_.value) return;
      for_each_instrument<detail::analysis_hooks>([&](auto& instrument, std::size_t index) {
        if constexpr (HasRunBeforeAnalysis<U<decltype(instrument)>, IR>) instrument.run_before_analysis(ir, info);
        returned = index + 1;
      });
    }
  }
  template <class IR>
  void run_after_analysis(const IR& ir, const AnalysisInfo& info, std::size_t& started) {
    if constexpr (has_run_after_analysis<IR>) {
      if (cleared_.value) return;
      for_each_instrument<detail::analysis_hooks>([&](auto& instrument, std::size_t index) {
        started = index + 1;
        if constexpr (HasRunAfterAnalysis<U<decltype(instrument)>, IR>) instrument.run_after_analysis(ir, info);
      });
    }
  }
  void run_after_analysis_failed(const AnalysisInfo& info, const std::exception_ptr& error, std::size_t from,
                                 std::size_t to) noexcept {
    if constexpr (has_run_after_analysis_failed) {
      if (cleared_.value) return;
      for_each_instrument<detail::hook_run_after_analysis_failed>([&](auto& instrument, std::size_t index) {
        if constexpr (HasRunAfterAnalysisFailed<U<decltype(instrument)>>) {
          if (index < from || index >= to) return;
          try {
            instrument.run_after_analysis_failed(info, error);
          } catch (...) {
            log(LogLevel::warning, "run_after_analysis_failed of instrument " + instrument_name(instrument) +
                                       " threw; it is dropped: " + detail::describe(std::current_exception()));
          }
        }
      });
    }
  }
  void run_analysis_invalidated(const AnalysisInfo& info) {
    if constexpr (has_run_analysis_invalidated) {
      if (cleared_.value) return;
      for_each_instrument<detail::hook_run_analysis_invalidated>([&](auto& instrument, std::size_t) {
        if constexpr (HasRunAnalysisInvalidated<U<decltype(instrument)>>) instrument.run_analysis_invalidated(info);
      });
    }
  }

  // ---- pipeline hooks (SPEC §11.3) ----
  // Positions count as for the pass hooks; run_after_pipeline_failed(info,
  // e, started, returned) reaches the instruments whose run_before_pipeline
  // returned (or that have none) and whose run_after_pipeline was not started.
  template <class Unit>
  void run_before_pipeline(const Unit& unit, const PipelineInfo& info, std::size_t& returned) {
    if constexpr (has_run_before_pipeline<Unit> || has_run_after_pipeline_failed) {
      if (cleared_.value) return;
      for_each_instrument<detail::pipeline_hooks>([&](auto& instrument, std::size_t index) {
        if constexpr (HasRunBeforePipeline<U<decltype(instrument)>, Unit>) instrument.run_before_pipeline(unit, info);
        returned = index + 1;
      });
    }
  }
  template <class Unit>
  void run_after_pipeline(const Unit& unit, const PipelineInfo& info, std::size_t& started) {
    if constexpr (has_run_after_pipeline<Unit> || has_run_after_pipeline_failed) {
      if (cleared_.value) return;
      for_each_instrument<detail::pipeline_hooks>([&](auto& instrument, std::size_t index) {
        started = index + 1;
        if constexpr (HasRunAfterPipeline<U<decltype(instrument)>, Unit>) instrument.run_after_pipeline(unit, info);
      });
    }
  }
  void run_after_pipeline_failed(const PipelineInfo& info, const std::exception_ptr& error, std::size_t from,
                                 std::size_t to) noexcept {
    if constexpr (has_run_after_pipeline_failed) {
      if (cleared_.value) return;
      for_each_instrument<detail::hook_run_after_pipeline_failed>([&](auto& instrument, std::size_t index) {
        if constexpr (HasRunAfterPipelineFailed<U<decltype(instrument)>>) {
          if (index < from || index >= to) return;
          try {
            instrument.run_after_pipeline_failed(info, error);
          } catch (...) {
            log(LogLevel::warning, "run_after_pipeline_failed of instrument " + instrument_name(instrument) +
                                       " threw; it is dropped: " + detail::describe(std::current_exception()));
          }
        }
      });
    }
  }

  // first_unsafe_for_units<Unit[, AnalysedIR]>(): SPEC §11.4's test, over
  // the instruments held now: the first one with a unit-level hook that is
  // not thread-safe. With AnalysedIR (a nest whose context holds a manager
  // for it, SPEC §11.13), an analysis hook for AnalysedIR counts too.
  template <class Unit, class AnalysedIR = void>
  std::string first_unsafe_for_units() {
    std::string name;
    if constexpr (!statically_thread_safe<Unit, AnalysedIR>) {
      if (cleared_.value) return name;
      for_each_instrument([&](auto& instrument, std::size_t) {
        using I = U<decltype(instrument)>;
        if (!name.empty()) return;
        bool unit_hooks = HasUnitHook<I, Unit> || detail::has_analysis_hook_for<I, AnalysedIR>;
        if constexpr (requires { instrument.has_unit_hooks(); }) {
          unit_hooks = instrument.has_unit_hooks();
          if constexpr (!std::is_void_v<AnalysedIR>) {
            unit_hooks = unit_hooks || (instrument.hook_mask() & detail::analysis_hooks) != 0;
          }
        }
        if (unit_hooks && !instrument_thread_safe(instrument)) name = instrument_name(instrument);
      });
    }
    return name;
  }

  // clear(): no hook of this set runs again; run-time lists are emptied.
  void clear() noexcept {
    if constexpr (sizeof...(Is) > 0) {
      if constexpr (has_static_instruments) cleared_.value = true;
      detail::for_each_element<sizeof...(Is)>(items_, [](auto& stored) {
        auto& element = detail::unwrap(stored);
        if constexpr (InstrumentList<U<decltype(element)>>) element.replace({});
      });
    }
  }

  // for_each_instrument(f): f(instrument, position) for every instrument, in
  // order, items of run-time lists in place. A run-time list replaced by one
  // of its own hooks ends its part of the walk there (its old items stay
  // alive until the walk is over; see DynamicInstruments).
  //
  // for_each_instrument<Hooks>(f): the same for a hook phase of the hooks in
  // the mask Hooks (detail::hook_should_run, ...): a run-time list none of
  // whose items has one of them is passed over (its positions still count).
  template <unsigned Hooks = detail::all_hooks, class F>
  PASSINFRA_ALWAYS_INLINE void for_each_instrument(F&& f) {
    [[maybe_unused]] std::size_t position = 0;
    detail::for_each_element<sizeof...(Is)>(items_, [&](auto& stored) PASSINFRA_LAMBDA_INLINE {
      auto& element = detail::unwrap(stored);
      if constexpr (InstrumentList<U<decltype(element)>>) {
        const auto& list = std::as_const(element).items();
        if constexpr (Hooks != detail::all_hooks && requires { element.hook_mask(); }) {
          if ((element.hook_mask() & Hooks) == 0) {  // an empty list too
            position += list.size();
            return;
          }
        } else {
          if (list.empty()) return;  // no hook to call: nothing can change the list
        }
        const auto phase = element.begin_phase();
        // The list cannot change without the phase seeing it (replaced()),
        // so its bounds are read once.
        const auto* item = list.data();
        const auto* const end = item + list.size();
        while (true) {
          f(*item, position++);
          if (++item == end || phase.replaced()) break;
        }
      } else {
        f(element, position++);
      }
    });
  }

 private:
  static constexpr bool has_static_instruments = (!InstrumentList<U<Is>> || ...);
  static constexpr bool has_static_instruments_only = (!InstrumentList<U<Is>> && ...);

  std::string name_at(std::size_t position) {
    std::string name;
    for_each_instrument([&](auto& instrument, std::size_t index) {
      if (index == position) name = instrument_name(instrument);
    });
    return name;
  }

  // The clean-up of SPEC §5.1: clear, then exit the first `entered`
  // instruments in order. The items of run-time lists are taken out of the
  // list (cleared) and kept alive until they have exited.
  void clear_and_exit_first(std::size_t entered) {
    if constexpr (has_static_instruments) cleared_.value = true;
    std::size_t position = 0;
    detail::for_each_element<sizeof...(Is)>(items_, [&](auto& stored) {
      auto& element = detail::unwrap(stored);
      if constexpr (InstrumentList<U<decltype(element)>>) {
        auto taken = element.take_items();
        for (auto& instrument : taken) {
          if (position++ < entered) exit_during_enter_cleanup(instrument);
        }
      } else {
        if (position++ < entered) exit_during_enter_cleanup(element);
      }
    });
  }

  template <class I>
  static void exit_during_enter_cleanup(I& instrument) {
    const std::string name = instrument_name(instrument);
    log(LogLevel::info, name + " exiting PassContext ...");
    if constexpr (HasExitPassCtx<I>) {
      try {
        instrument.exit_pass_ctx();
      } catch (...) {
        log(LogLevel::warning, "exit_pass_ctx of instrument " + name +
                                   " threw while the context's enter_pass_ctx failure was handled; the enter "
                                   "exception is rethrown and this one is dropped: " +
                                   detail::describe(std::current_exception()));
        return;
      }
    }
    log(LogLevel::info, name + " exited PassContext.");
  }

  [[no_unique_address]] detail::FlatTuple<detail::stored_t<Is>...> items_;
  [[no_unique_address]] detail::ClearedFlag<(sizeof...(Is) > 0 && has_static_instruments)> cleared_;
};

namespace detail {
// InstrumentSetView<Refs, Flag>: a set's pass hooks, as InstrumentSet::hook_view()
// makes them: the same instruments in the same order (Refs holds them all by
// reference), and the set's own cleared state, read at every hook phase as
// the set reads it, so a set cleared during a run (a pass body entering a
// context whose enter hook throws, say) calls no further hook through its view.
template <class Refs, class Flag>
class InstrumentSetView {
 public:
  template <class IR>
  static constexpr bool has_should_run = Refs::template has_should_run<IR>;
  template <class IR>
  static constexpr bool has_run_before_pass = Refs::template has_run_before_pass<IR>;
  template <class IR>
  static constexpr bool has_run_after_pass = Refs::template has_run_after_pass<IR>;
  static constexpr bool has_run_after_pass_failed = Refs::has_run_after_pass_failed;
  template <class IR>
  static constexpr bool hook_free = Refs::template hook_free<IR>;

  PASSINFRA_ALWAYS_INLINE InstrumentSetView(Refs refs, const Flag& cleared) noexcept
      : refs_(std::move(refs)), cleared_(&cleared) {}

  PASSINFRA_ALWAYS_INLINE bool active() const noexcept { return !cleared_->value; }

  template <class IR>
  PASSINFRA_ALWAYS_INLINE bool should_run(const IR& ir, const PassInfo& info) {
    return cleared_->value || refs_.should_run(ir, info);
  }
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_before_pass(const IR& ir, const PassInfo& info) {
    if (!cleared_->value) refs_.run_before_pass(ir, info);
  }
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_after_pass(const IR& ir, const PassInfo& info) {
    if (!cleared_->value) refs_.run_after_pass(ir, info);
  }
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_before_pass(const IR& ir, const PassInfo& info, std::size_t& returned) {
    if (!cleared_->value) refs_.run_before_pass(ir, info, returned);
  }
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_after_pass(const IR& ir, const PassInfo& info, std::size_t& started) {
    if (!cleared_->value) refs_.run_after_pass(ir, info, started);
  }
  // Inline, calling the set's (out-of-line) fan-out on a copy: the view's
  // own address never escapes, so its pointers stay in registers.
  PASSINFRA_ALWAYS_INLINE void run_after_pass_failed(const PassInfo& info, const std::exception_ptr& error,
                                                     std::size_t from, std::size_t to) noexcept {
    if (!cleared_->value) Refs(refs_).run_after_pass_failed(info, error, from, to);
  }

 private:
  Refs refs_;  // never cleared itself: the set's state is *cleared_
  const Flag* cleared_;
};

}  // namespace detail

// make_instrument_set(args...): std::ref(x) is held by reference, the rest by value.
template <class... As>
InstrumentSet<detail::element_of_t<As>...> make_instrument_set(As&&... instruments) {
  return InstrumentSet<detail::element_of_t<As>...>(std::forward<As>(instruments)...);
}

namespace detail {
template <class S>
inline constexpr bool is_instrument_set = false;
template <class... Is>
inline constexpr bool is_instrument_set<InstrumentSet<Is...>> = true;
}  // namespace detail

}  // namespace passinfra
