// passinfra/core/analysis_handle.hpp — what ctx.analyses() returns (SPEC §10.2, §10.4).
//
// AnalysisHandle<Ctx>                 the context's manager, seen from a pass body: the
//                                     manager's get / get_cached / invalidate / clear, but a
//                                     miss fires the context's analysis hooks; and the marks
// h.get<A>(ir) / get<A>(ir, fn) / get(name, ir) / get(name, ir, fn)
// h.get_cached<A>() / get_cached<A>(fn)
// h.invalidate(pa) / invalidate(fn, pa) / clear()      with run_analysis_invalidated hooks
// h.preserve<As...>() / preserve(name) / preserve(key) / preserve_all()
// h.abandon<As...>() / abandon(name) / abandon(key)    marks for the innermost running pass
// h.manager()                         the manager itself
// NoAnalysisManager                   ctx.analyses() of a static context made without a
//                                     manager: every member is a static_assert (SPEC §10.8)
// HasAnalyses<Ctx>                    ctx.analyses() is a handle (the context may hold a manager)
// analyses_available(ctx)             ... and holds one now (a dynamic context or a
//                                     ContextRef may hold none; a unit's context: the nest's
//                                     context holds one for the parent)
// HasUnitAnalyses<Ctx>                a unit's context whose analyses() may be the parent's
//                                     manager (SPEC §11.13)
// UnitAnalysisHandle<M, Set>          ctx.analyses() inside a nest's unit (SPEC §11.13): the
//                                     parent's manager seen from one unit: function analyses
//                                     of the unit's function computed and cached (another
//                                     function's: Error), module results read-only
//                                     (get<A>(parent) of an uncached one throws Error),
//                                     get_cached_parent<A>(), the marks; no invalidate / clear
//
// A pass that uses analyses when there are some, and runs without:
//
//   if constexpr (passinfra::HasAnalyses<Ctx>)
//     if (passinfra::analyses_available(ctx)) cg = &ctx.analyses().template get<CallGraph>(m);
//
// Ctx must give `analysis_manager()` (a pointer to an AnalysisManager) and
// `instrument_set()` (a set with the analysis fan-out of InstrumentSet): a
// PassContext made with a manager, and ContextRef. Marks go to the level
// run() opens for the innermost pass running on the manager; made outside
// any pass they are a passinfra::Error (SPEC §10.8).
#pragma once

#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/detail/type_name.hpp"
#include "passinfra/detail/unit_output.hpp"

namespace passinfra {

namespace detail {
// What NoAnalysisManager's members return: converts to anything, so the
// static_assert is the only error (never defined: never called).
struct NoAnalysisResult {
  template <class T>
  operator T&() const noexcept;  // NOLINT(google-explicit-constructor)
};
}  // namespace detail

// NoAnalysisManager: the analyses() of a static context without a manager.
// Code that never mentions analyses instantiates none of these members.
struct NoAnalysisManager {
#define PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE                                                             \
  "passinfra: this PassContext has no analysis manager; make it with make_pass_context<IR>(options, am, " \
  "instruments...)"
  template <class... Ts, class... Args>
  detail::NoAnalysisResult get(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
    return {};
  }
  template <class... Ts, class... Args>
  detail::NoAnalysisResult get_cached(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
    return {};
  }
  template <class... Ts, class... Args>
  void invalidate(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
  }
  template <class... Ts, class... Args>
  void clear(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
  }
  template <class... Ts, class... Args>
  void preserve(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
  }
  template <class... Ts, class... Args>
  void preserve_all(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
  }
  template <class... Ts, class... Args>
  void abandon(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
  }
  template <class... Ts, class... Args>
  void manager(Args&&...) const {
    static_assert(detail::always_false<Ts...>, PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE);
  }
#undef PASSINFRA_NO_ANALYSIS_MANAGER_MESSAGE
};

// HasAnalyses<Ctx>: the context may hold an analysis manager.
template <class Ctx>
concept HasAnalyses = requires(Ctx& ctx) {
  { ctx.analysis_manager() };
  requires std::is_pointer_v<decltype(ctx.analysis_manager())>;
};

// HasUnitAnalyses<Ctx>: Ctx is a unit's context in a nest (UnitContext, or
// a ContextRef<Unit>) whose ctx.analyses() may be the parent's manager seen
// from the unit (SPEC §11.13).
template <class Ctx>
concept HasUnitAnalyses = requires(Ctx& ctx) {
  { ctx.nest_analyses() };
  requires std::is_pointer_v<decltype(ctx.nest_analyses())>;
};

// analyses_available(ctx): the context holds a manager now (for a unit's
// context: the parent's, the nest running under a context that holds one).
template <class Ctx>
bool analyses_available(Ctx& ctx) noexcept {
  if constexpr (HasUnitAnalyses<Ctx>) {
    return ctx.nest_analyses() != nullptr;
  } else if constexpr (HasAnalyses<Ctx>) {
    return ctx.analysis_manager() != nullptr;
  } else {
    return false;
  }
}

namespace detail {
// HandleBase<M>: what AnalysisHandle and UnitAnalysisHandle share: the
// manager, its cached results (never computed, no hook) and the marks of
// the innermost running pass (SPEC §10.4).
template <class M>
class HandleBase {
 public:
  using manager_type = M;
  using ir_type = typename manager_type::ir_type;
  using function_type = function_param_t<ir_type>;

  manager_type& manager() const noexcept { return *am_; }

  template <class A>
  const typename A::result_type* get_cached() const {
    return std::as_const(*am_).template get_cached<A>();
  }
  template <class A>
  const typename A::result_type* get_cached(const function_type& fn) const {
    return std::as_const(*am_).template get_cached<A>(fn);
  }

  // Marks: united with the innermost running pass's declaration.
  template <class... As>
  void preserve() const {
    am_->marks("ctx.analyses().preserve<...>()").template preserve<As...>();
  }
  void preserve(std::string_view name) const { preserve(am_->key_of(name)); }
  void preserve(AnalysisKey key) const { am_->marks("ctx.analyses().preserve(key)").preserve(key); }
  void preserve_all() const { am_->marks("ctx.analyses().preserve_all()").preserve_all(); }
  template <class... As>
  void abandon() const {
    am_->marks("ctx.analyses().abandon<...>()").template abandon<As...>();
  }
  void abandon(std::string_view name) const { abandon(am_->key_of(name)); }
  void abandon(AnalysisKey key) const { am_->marks("ctx.analyses().abandon(key)").abandon(key); }

 protected:
  explicit HandleBase(manager_type& am) noexcept : am_(&am) {}
  manager_type* am_;
};
}  // namespace detail

template <class Ctx>
class AnalysisHandle
    : public detail::HandleBase<std::remove_pointer_t<decltype(std::declval<Ctx&>().analysis_manager())>> {
  using Base = detail::HandleBase<std::remove_pointer_t<decltype(std::declval<Ctx&>().analysis_manager())>>;
  using Base::am_;

 public:
  using typename Base::function_type;
  using typename Base::ir_type;
  using typename Base::manager_type;

  AnalysisHandle(manager_type& am, Ctx& ctx) noexcept : Base(am), ctx_(&ctx) {}

  template <class A>
  const typename A::result_type& get(const ir_type& ir) const {
    if constexpr (!(manager_type::template check_get<A>() && manager_type::template check_module<A>())) {
      return detail::not_reached<typename A::result_type>();  // a static_assert has said why
    } else {
      return am_->template get_for<A>(ir, ctx_->instrument_set(), nullptr);
    }
  }
  template <class A>
  const typename A::result_type& get(const ir_type& ir, const function_type& fn) const {
    if constexpr (!(manager_type::template check_get<A>() && manager_type::template check_function<A>())) {
      return detail::not_reached<typename A::result_type>();
    } else {
      return am_->template get_for<A>(ir, fn, ctx_->instrument_set(), nullptr);
    }
  }
  const detail::ErasedResult& get(std::string_view name, const ir_type& ir) const {
    detail::SinkRef<ir_type> sink(ctx_->instrument_set());
    return am_->get_erased(name, ir, nullptr, &sink);
  }
  const detail::ErasedResult& get(std::string_view name, const ir_type& ir, const function_type& fn) const {
    detail::SinkRef<ir_type> sink(ctx_->instrument_set());
    return am_->get_erased(name, ir, &fn, &sink);
  }

  void invalidate(const PreservedAnalyses& pa) const {
    am_->invalidate_with(pa, detail::InvalidationScope::all, nullptr, ctx_->instrument_set());
  }
  void invalidate(const function_type& fn, const PreservedAnalyses& pa) const
    requires FunctionKeyedIR<ir_type>
  {
    const auto& key = ir_traits<ir_type>::function_key(fn);
    am_->invalidate_with(pa, detail::InvalidationScope::function, &key, ctx_->instrument_set());
  }
  void clear() const { am_->clear_with(ctx_->instrument_set()); }

 private:
  Ctx* ctx_;
};

namespace detail {

// NestAnalyses<Parent>: the analysis state of one nest run under a context
// with a manager for the nest's parent (SPEC §11.13): the manager (as the
// run-time table every manager derives from), the analysis hooks of the
// context the nest runs under (for unit passes reached through a
// ContextRef<Unit>), and the intersection of the effective preserved sets
// of the unit-level passes that ran (empty: none ran). Unit-level run()
// (core/run.hpp) adds to it; the nest invalidates module results with it
// when every unit finished.
template <class Parent>
struct NestAnalyses {
  AnalysisManager<Parent>* am = nullptr;
  SinkRef<Parent> sink{};
  // (PreservedAnalyses, spelled dependently: g++ would instantiate it where this is defined. Issue 18.)
  std::optional<detail::dependent_t<PreservedAnalyses, Parent>> common{};
  // The running unit's function key, taken from the unit as the nest listed
  // it (a unit pass's input may be a function not yet in any parent).
  typename function_key_of<Parent>::type unit_key{};
  bool keyed = false;  // the unit is one of Parent's functions (it has a key)
  // Parallel nests: one NestAnalyses per unit, whose function results are
  // in `store` (core/nest.hpp; null: serial, they are in the manager), and
  // where in the unit's held-back output a failing unit pass would have
  // emptied the manager (no_output: it did not fail so).
  AnalysisManager<Parent>* store = nullptr;
  static constexpr std::size_t no_output = static_cast<std::size_t>(-1);
  std::size_t failed_at = no_output;

  // The manager the unit's passes open their levels on and invalidate.
  AnalysisManager<Parent>& table() const noexcept { return store != nullptr ? *store : *am; }
  // A unit pass's body threw in a parallel unit: the manager is emptied
  // after the units finished, its hooks' output put here in the unit's.
  void failed_here() noexcept {
    if (failed_at == no_output) failed_at = current_unit_output != nullptr ? current_unit_output->size() : 0;
  }

  // keys_units<Unit>: a Unit is one of Parent's functions (it has a key; the
  // unit's passes get the function analyses of that function only).
  template <class Unit>
  static constexpr bool keys_units = FunctionKeyedIR<Parent> && std::is_same_v<function_param_t<Parent>, Unit>;

  template <class Unit>
  void enter_unit(const Unit& unit) {
    if constexpr (keys_units<Unit>) {
      unit_key = ir_traits<Parent>::function_key(unit);
      keyed = true;
    }
  }

  void ran(const PreservedAnalyses& effective) {
    if (!common) {
      common = effective;
    } else {
      common->intersect(effective);
    }
  }
};

}  // namespace detail

// UnitAnalysisHandle<M, Set>: ctx.analyses() inside a unit of a nest (SPEC
// §11.13). `Set` is the instrument set whose analysis hooks fire (the
// outer context's); the IR of every request is the nest's parent.
template <class M, class Set>
class UnitAnalysisHandle : public detail::HandleBase<M> {
  using Base = detail::HandleBase<M>;
  using Base::am_;

 public:
  using typename Base::function_type;
  using typename Base::ir_type;
  using typename Base::manager_type;

  // `store`: in a parallel nest, the unit's store of function results (SPEC §11.13; null: serial).
  UnitAnalysisHandle(manager_type& am, Set& set, AnalysisManager<ir_type>* store = nullptr) noexcept
      : Base(am), set_(&set), store_(store) {}

  // get<A>(parent): a module result: the cached one, else passinfra::Error
  // (module results are read-only inside a nest; the manager says which
  // nest and unit).
  template <class A>
  const typename A::result_type& get(const ir_type& ir) const {
    if constexpr (!(manager_type::template check_get<A>() && manager_type::template check_module<A>())) {
      return detail::not_reached<typename A::result_type>();  // a static_assert has said why
    } else if (store_ != nullptr) {
      return store_->template get_for<A>(ir, *set_, nullptr);
    } else {
      return am_->template get_for<A>(ir, *set_, nullptr);
    }
  }
  // get<A>(parent, fn): a function result for the unit's function, cached or computed now.
  template <class A>
  const typename A::result_type& get(const ir_type& ir, const function_type& fn) const {
    if constexpr (!(manager_type::template check_get<A>() && manager_type::template check_function<A>())) {
      return detail::not_reached<typename A::result_type>();
    } else if (store_ != nullptr) {
      return store_->template get_for<A>(ir, fn, *set_, nullptr);
    } else {
      return am_->template get_for<A>(ir, fn, *set_, nullptr);
    }
  }
  const detail::ErasedResult& get(std::string_view name, const ir_type& ir) const {
    detail::SinkRef<ir_type> sink(*set_);
    return (store_ != nullptr ? *store_ : *am_).get_erased(name, ir, nullptr, &sink);
  }
  const detail::ErasedResult& get(std::string_view name, const ir_type& ir, const function_type& fn) const {
    detail::SinkRef<ir_type> sink(*set_);
    return (store_ != nullptr ? *store_ : *am_).get_erased(name, ir, &fn, &sink);
  }
  // get_cached<A>(fn): the unit's cached function result or nullptr (get_cached<A>() as the manager's).
  using Base::get_cached;
  template <class A>
  const typename A::result_type* get_cached(const function_type& fn) const {
    if (store_ != nullptr) {
      if constexpr (manager_type::template check_function<A>()) {
        return std::as_const(*store_).template cached_result<A>(ir_traits<ir_type>::function_key(fn));
      }
      return nullptr;
    }
    return Base::template get_cached<A>(fn);
  }

  // Marks (a parallel unit's go to its store, where its passes' levels are).
  template <class... As>
  void preserve() const {
    table().marks("ctx.analyses().preserve<...>()").template preserve<As...>();
  }
  void preserve(std::string_view name) const { preserve(table().key_of(name)); }
  void preserve(AnalysisKey key) const { table().marks("ctx.analyses().preserve(key)").preserve(key); }
  void preserve_all() const { table().marks("ctx.analyses().preserve_all()").preserve_all(); }
  template <class... As>
  void abandon() const {
    table().marks("ctx.analyses().abandon<...>()").template abandon<As...>();
  }
  void abandon(std::string_view name) const { abandon(table().key_of(name)); }
  void abandon(AnalysisKey key) const { table().marks("ctx.analyses().abandon(key)").abandon(key); }
  // get_cached_parent<A>(): the cached module result or null; never
  // computes (MLIR's getCachedParentAnalysis).
  template <class A>
  const typename A::result_type* get_cached_parent() const {
    if constexpr (!manager_type::template check_module<A>()) {
      return nullptr;
    } else {
      return std::as_const(*am_).template get_cached<A>();
    }
  }

 private:
  AnalysisManager<ir_type>& table() const noexcept {
    if (store_ != nullptr) return *store_;
    return *am_;
  }

  Set* set_;
  AnalysisManager<ir_type>* store_;
};

}  // namespace passinfra
