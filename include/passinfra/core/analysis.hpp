// passinfra/core/analysis.hpp — what an analysis is (SPEC §10.1).
//
// AnalysisInfo{name, function}        an analysis's name; hooks get a copy with `function`
//                                     set to the function key as text (empty: module analysis)
// module_unit / function_unit         the unit an analysis computes from (`using unit = ...;`,
//                                     module_unit when not said)
// depends_on<Ds...>                   the analyses `run` may request through `deps`
// analysis_sets<Ss...>                tags the analysis belongs to (preserving a tag keeps it)
// all_analyses_on<Unit>               the built-in tag of every analysis of a unit
// AnalysisKey / analysis_key<T>       the identity of an analysis or a tag (an address)
// unit_of_t<A> / depends_on_t<A>      A's unit, and its depends_on list as an Mp11 list
// Analysis<A>                         info, result_type, a valid unit / depends_on / sets
// ModuleAnalysisFor<A, IR>            a module analysis with run(const IR&[, deps&]) const
// FunctionAnalysisFor<A, IR>          a function analysis with run(const Fn&, const IR&[, deps&]) const
//                                     over an IR with function_type and function_key (FunctionKeyedIR)
// AnalysisFor<A, IR>                  either of the two
// dependency_closure_t<As...>         As and everything they depend on, dependencies
//                                     first (a topological order), each once
//
// An analysis:
//
//   struct CallGraph {
//     static constexpr passinfra::AnalysisInfo info{"CallGraph"};
//     using result_type = CallGraphInfo;
//     using depends_on = passinfra::depends_on<TypeMap>;              // optional
//     using sets = passinfra::analysis_sets<StructureAnalyses>;       // optional
//     result_type run(const Module& m, auto& deps) const;             // or run(const Module&) const
//     bool is_invalidated(const result_type&, const passinfra::PreservedAnalyses&) const;  // optional
//   };
//
// An AnalysisKey is the address of an object made once per type
// (detail::KeyData<T>), which also says whether T is an analysis, its unit
// and its sets: a PreservedAnalyses holding only keys answers "is A
// preserved" by the set rules of SPEC §10.3 without knowing A's type, which
// is what the run-time table and erased analyses need.
#pragma once

#include <array>
#include <compare>
#include <concepts>
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "passinfra/core/ir_traits.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

// AnalysisInfo: what an analysis declares (`static constexpr AnalysisInfo
// info{"CallGraph"};`) and what analysis hooks receive. `function` is empty
// for module analyses; for function analyses the hooks get the function key
// as text (a view valid for the duration of the hook call).
struct AnalysisInfo {
  std::string_view name;
  std::string_view function = {};

  friend constexpr bool operator==(const AnalysisInfo&, const AnalysisInfo&) noexcept = default;
};

// The units an analysis may compute from (SPEC §10.1).
struct module_unit {};
struct function_unit {};

// depends_on<Ds...>: the analyses an analysis may request while it runs.
template <class... Ds>
struct depends_on {
  using list = boost::mp11::mp_list<Ds...>;
};

// analysis_sets<Ss...>: tags an analysis belongs to. Any type may be a tag.
template <class... Ss>
struct analysis_sets {
  using list = boost::mp11::mp_list<Ss...>;
};

// all_analyses_on<Unit>: the tag every analysis of the unit belongs to.
template <class Unit>
struct all_analyses_on {};

namespace detail {

// The per-type object behind an AnalysisKey. For an analysis: its unit's
// tag key and its sets' keys; for any other type (a tag): no unit, no sets.
struct KeyData {
  std::string_view type;          // the type's name (for messages)
  const KeyData* unit = nullptr;  // all_analyses_on<unit>'s key; null for tags
  std::span<const KeyData* const> sets{};
};

template <class T>
struct key_data_holder;

}  // namespace detail

// AnalysisKey: the identity of an analysis (or a tag). Static analyses'
// keys are analysis_key<A>; an erased analysis made without a type owns
// its KeyData (dynamic/any_analysis.hpp). Compared and hashed as an address.
class AnalysisKey {
 public:
  constexpr AnalysisKey() noexcept = default;
  constexpr explicit AnalysisKey(const detail::KeyData* data) noexcept : data_(data) {}

  constexpr const detail::KeyData* data() const noexcept { return data_; }
  constexpr explicit operator bool() const noexcept { return data_ != nullptr; }
  // is_analysis(): the key names an analysis (it has a unit), not a tag.
  constexpr bool is_analysis() const noexcept { return data_ != nullptr && data_->unit != nullptr; }
  // The type's name as the compiler spells it ("" for a null key).
  constexpr std::string_view type_name() const noexcept { return data_ ? data_->type : std::string_view{}; }

  friend constexpr bool operator==(AnalysisKey a, AnalysisKey b) noexcept { return a.data_ == b.data_; }
  friend bool operator<(AnalysisKey a, AnalysisKey b) noexcept { return std::less<>{}(a.data_, b.data_); }

 private:
  const detail::KeyData* data_ = nullptr;
};

// ---- what an analysis declares -------------------------------------------

namespace detail {

template <class L>
inline constexpr bool is_depends_on = false;
template <class... Ds>
inline constexpr bool is_depends_on<depends_on<Ds...>> = true;

template <class L>
inline constexpr bool is_analysis_sets = false;
template <class... Ss>
inline constexpr bool is_analysis_sets<analysis_sets<Ss...>> = true;

template <class A>
struct unit_of {
  using type = module_unit;
};
template <class A>
  requires requires { typename A::unit; }
struct unit_of<A> {
  using type = typename A::unit;
};

template <class A>
struct depends_on_of {
  using type = boost::mp11::mp_list<>;
};
template <class A>
  requires is_depends_on<typename A::depends_on>
struct depends_on_of<A> {
  using type = typename A::depends_on::list;
};

template <class A>
struct sets_of {
  using type = boost::mp11::mp_list<>;
};
template <class A>
  requires is_analysis_sets<typename A::sets>
struct sets_of<A> {
  using type = typename A::sets::list;
};

}  // namespace detail

// unit_of_t<A>: module_unit or function_unit.
template <class A>
using unit_of_t = typename detail::unit_of<A>::type;

// depends_on_t<A>: A's dependencies as an Mp11 list (empty if none declared).
template <class A>
using depends_on_t = typename detail::depends_on_of<A>::type;

// analysis_sets_t<A>: A's tags as an Mp11 list (empty if none declared).
template <class A>
using analysis_sets_t = typename detail::sets_of<A>::type;

namespace detail {

template <class A>
concept HasAnalysisInfo = requires {
  { A::info } -> std::convertible_to<AnalysisInfo>;
};
template <class A>
concept HasResultType = requires { typename A::result_type; } && std::is_object_v<typename A::result_type>;
template <class A>
concept HasValidUnit = std::same_as<unit_of_t<A>, module_unit> || std::same_as<unit_of_t<A>, function_unit>;
template <class A>
concept HasValidDependsOn = !requires { typename A::depends_on; } || is_depends_on<typename A::depends_on>;
template <class A>
concept HasValidSets = !requires { typename A::sets; } || is_analysis_sets<typename A::sets>;

}  // namespace detail

// Analysis<A>: the IR-independent half of an analysis.
template <class A>
concept Analysis = std::is_object_v<A> && detail::HasAnalysisInfo<A> && detail::HasResultType<A> &&
                   detail::HasValidUnit<A> && detail::HasValidDependsOn<A> && detail::HasValidSets<A>;

// ---- keys ----------------------------------------------------------------

namespace detail {

template <class T>
struct key_data_holder {
  static constexpr auto make_sets() {
    if constexpr (Analysis<T>) {
      return []<class... Ss>(boost::mp11::mp_list<Ss...>) {
        return std::array<const KeyData*, sizeof...(Ss)>{&key_data_holder<Ss>::value...};
      }(analysis_sets_t<T>{});
    } else {
      return std::array<const KeyData*, 0>{};
    }
  }
  static constexpr auto sets = make_sets();
  static constexpr const KeyData* unit() {
    if constexpr (Analysis<T>) {
      return &key_data_holder<all_analyses_on<unit_of_t<T>>>::value;
    } else {
      return nullptr;
    }
  }
  // Not merged with another type's: each has its own name (and C++ gives
  // distinct objects distinct addresses anyway).
  static constexpr KeyData value{type_name<T>(), unit(), std::span<const KeyData* const>(sets)};
};

}  // namespace detail

// analysis_key<T>: T's identity (any type: an analysis or a tag).
template <class T>
inline constexpr AnalysisKey analysis_key{&detail::key_data_holder<std::remove_cvref_t<T>>::value};

// ---- IRs with keyed functions --------------------------------------------

// FunctionKeyedIR<IR>: the IR has functions and gives each a key (SPEC §10.1):
//   using function_type = ...;
//   static Key function_key(const function_type&);   // regular; text-like or integral
// Optional, for the preservation checker's recomputation of function results:
//   template <class F> static void for_each_function(const IR&, F&& f);   // f(const function_type&)
template <class IR>
concept FunctionKeyedIR =
    requires { typename ir_traits<IR>::function_type; } &&
    requires(const typename ir_traits<IR>::function_type& fn) { ir_traits<IR>::function_key(fn); } &&
    std::regular<std::remove_cvref_t<decltype(ir_traits<IR>::function_key(
        std::declval<const typename ir_traits<IR>::function_type&>()))>>;

// function_key_t<IR>: the type of the IR's function keys.
template <FunctionKeyedIR IR>
using function_key_t = std::remove_cvref_t<decltype(ir_traits<IR>::function_key(
    std::declval<const typename ir_traits<IR>::function_type&>()))>;

// FunctionEnumerableIR<IR>: ir_traits<IR>::for_each_function(ir, f) calls
// f(const function_type&) for every function whose results a manager may hold.
template <class IR>
concept FunctionEnumerableIR = FunctionKeyedIR<IR> && requires(const IR& ir) {
  ir_traits<IR>::for_each_function(ir, [](const typename ir_traits<IR>::function_type&) {});
};

// ---- run(...) ------------------------------------------------------------

namespace detail {

// What `deps` looks like to the concepts below: get<D>() and get<D>(fn)
// for any D (the manager's real AnalysisDeps restricts D to depends_on).
// Declared only: concepts never call them.
struct DepsArchetype {
  template <class D>
  const typename D::result_type& get() const;
  template <class D, class Fn>
  const typename D::result_type& get(const Fn&) const;
};

template <class A, class IR>
concept ModuleRunWithDeps = requires(const A& a, const IR& ir, DepsArchetype& deps) {
  { a.run(ir, deps) } -> std::convertible_to<typename A::result_type>;
};
template <class A, class IR>
concept ModuleRunPlain = requires(const A& a, const IR& ir) {
  { a.run(ir) } -> std::convertible_to<typename A::result_type>;
};
template <class A, class IR, class Fn>
concept FunctionRunWithDeps = requires(const A& a, const Fn& fn, const IR& ir, DepsArchetype& deps) {
  { a.run(fn, ir, deps) } -> std::convertible_to<typename A::result_type>;
};
template <class A, class IR, class Fn>
concept FunctionRunPlain = requires(const A& a, const Fn& fn, const IR& ir) {
  { a.run(fn, ir) } -> std::convertible_to<typename A::result_type>;
};

template <class IR>
struct function_type_of {
  using type = void;
};
template <class IR>
  requires requires { typename ir_traits<IR>::function_type; }
struct function_type_of<IR> {
  using type = typename ir_traits<IR>::function_type;
};

}  // namespace detail

// function_type_t<IR>: ir_traits<IR>::function_type, or void.
template <class IR>
using function_type_t = typename detail::function_type_of<IR>::type;

// ModuleAnalysisFor<A, IR>: A computes from a whole IR.
template <class A, class IR>
concept ModuleAnalysisFor = Analysis<A> && std::same_as<unit_of_t<A>, module_unit> &&
                            (detail::ModuleRunWithDeps<A, IR> || detail::ModuleRunPlain<A, IR>);

// FunctionAnalysisFor<A, IR>: A computes from one function of an IR with keyed functions.
template <class A, class IR>
concept FunctionAnalysisFor =
    Analysis<A> && std::same_as<unit_of_t<A>, function_unit> && FunctionKeyedIR<IR> &&
    (detail::FunctionRunWithDeps<A, IR, function_type_t<IR>> || detail::FunctionRunPlain<A, IR, function_type_t<IR>>);

// AnalysisFor<A, IR>: either.
template <class A, class IR>
concept AnalysisFor = ModuleAnalysisFor<A, IR> || FunctionAnalysisFor<A, IR>;

// HasIsInvalidated<A>: A decides its own invalidation (SPEC §10.4).
template <class A, class PA>
concept HasIsInvalidated = requires(const A& a, const typename A::result_type& r, const PA& pa) {
  { a.is_invalidated(r, pa) } -> std::convertible_to<bool>;
};

// ---- checks with one readable static_assert each (SPEC §10.8) -------------

namespace detail {

// check_analysis<A, IR>(): A is an analysis over IR; else one static_assert.
template <class A, class IR>
consteval bool check_analysis() {
  if constexpr (AnalysisFor<A, IR>) {
    return true;
  } else if constexpr (Analysis<A> && std::same_as<unit_of_t<A>, function_unit> && !FunctionKeyedIR<IR>) {
    static_assert(FunctionKeyedIR<IR>,
                  "passinfra: A is a function analysis, but ir_traits<IR> has no function_type / function_key(fn)");
    return false;
  } else {
    static_assert(AnalysisFor<A, IR>,
                  "passinfra: A is not an analysis: it needs static constexpr AnalysisInfo info, using "
                  "result_type = ..., and run(const IR&, deps&) const or run(const Fn&, const IR&, deps&) const");
    return false;
  }
}

// ---- the dependency closure, in topological order, with the cycle check --

// topo_visit<Path, Done, A>::type: Done with A's dependencies (depth first)
// and then A appended, each once. A type that is its own ancestor (in
// Path) stops the walk with the cycle static_assert.
template <class A, class Path>
consteval bool check_no_cycle() {
  constexpr bool cycle = boost::mp11::mp_contains<Path, A>::value;
  static_assert(!cycle, "passinfra: analysis dependency cycle: A depends on itself through depends_on<...>");
  return !cycle;
}

template <class Path, class Done, class A>
struct topo_visit;

// topo_visit_all<Path, Done, L>: topo_visit over each element of L in turn.
template <class Path, class Done, class L>
struct topo_visit_all;
template <class Path, class Done>
struct topo_visit_all<Path, Done, boost::mp11::mp_list<>> {
  using type = Done;
  static constexpr bool cyclic = false;
};
template <class Path, class Done, class D, class... Ds>
struct topo_visit_all<Path, Done, boost::mp11::mp_list<D, Ds...>> {
  using first = topo_visit<Path, Done, D>;
  using rest = topo_visit_all<Path, typename first::type, boost::mp11::mp_list<Ds...>>;
  using type = typename rest::type;
  static constexpr bool cyclic = first::cyclic || rest::cyclic;
};

template <class Path, class Done, class A, bool InPath = boost::mp11::mp_contains<Path, A>::value,
          bool IsDone = boost::mp11::mp_contains<Done, A>::value>
struct topo_visit_impl {  // new: dependencies first, then A
  using deps = topo_visit_all<boost::mp11::mp_push_back<Path, A>, Done, depends_on_t<A>>;
  using type = boost::mp11::mp_push_back<typename deps::type, A>;
  static constexpr bool cyclic = deps::cyclic;
};
template <class Path, class Done, class A, bool IsDone>
struct topo_visit_impl<Path, Done, A, true, IsDone> {  // A is its own ancestor
  static constexpr bool cyclic = !check_no_cycle<A, Path>();
  using type = Done;
};
template <class Path, class Done, class A>
struct topo_visit_impl<Path, Done, A, false, true> {  // already placed
  static constexpr bool cyclic = false;
  using type = Done;
};

template <class Path, class Done, class A>
struct topo_visit : topo_visit_impl<Path, Done, A> {};

template <class L>
struct closure_of;
template <class... As>
struct closure_of<boost::mp11::mp_list<As...>> {
  using walk = topo_visit_all<boost::mp11::mp_list<>, boost::mp11::mp_list<>, boost::mp11::mp_list<As...>>;
  using type = typename walk::type;
  static constexpr bool cyclic = walk::cyclic;
};

}  // namespace detail

// dependency_closure_t<As...>: As and their depends_on closure, each
// dependency before the analyses that use it, each type once.
template <class... As>
using dependency_closure_t = typename detail::closure_of<boost::mp11::mp_list<As...>>::type;

// check_acyclic<A>(): A's depends_on graph has no cycle; else the cycle
// static_assert fires (once, naming A in its instantiation notes).
namespace detail {
template <class A>
consteval bool check_acyclic() {
  return !topo_visit<boost::mp11::mp_list<>, boost::mp11::mp_list<>, A>::cyclic;
}
}  // namespace detail

}  // namespace passinfra
