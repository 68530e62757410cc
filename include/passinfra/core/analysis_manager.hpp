// passinfra/core/analysis_manager.hpp — the cache of analysis results (SPEC §10).
//
// analyses<As...>                             the analyses a manager keeps in static slots
// AnalysisManager<IR>                         the run-time table (what dynamic contexts and
//                                             ContextRef hold by pointer)
// AnalysisManager<IR, analyses<As...>>        static slots for As and their depends_on closure
//                                             (in topological order), derived from the above
// AnalysisDeps<Manager, A, Sink>              what A::run receives as `deps`
//
// am.add(a) -> bool                 the object that computes a's type (false: already added)
// am.get<A>(ir) / am.get<A>(ir, fn) the cached result, or computed now (module / function analysis)
// am.get_cached<A>() / get_cached<A>(fn)    the result or nullptr; never computes
// am.invalidate(pa)                 what a module pass's set does: module results and every
//                                   function result, with the cascade (SPEC §10.4)
// am.invalidate(fn, pa)             fn's function results, with the cascade
// am.clear() / empty() / size()     drop all / nothing cached / results cached
// am.contains<A>()                  A is listed or was added
// am.for_each_cached(f)             f(const AnalysisInfo&, const AnyResult&) in storage order
// am.recompute(info, ir) -> AnyResult  the cached result's analysis run again with the
//                                   manager's object: not cached, no hook (the checker's)
// am.clear_in_pass()                clear(), firing run_analysis_invalidated on the instruments
//                                   of the context running the innermost pass on this manager
// Erased (AnyResult is passinfra/dynamic/any_analysis.hpp's name for detail::ErasedResult):
// am.add(AnyAnalysis<IR>) / get(name, ir) / get(name, ir, fn) -> const AnyResult& / key_of(name)
//
// Direct use (am.get<A>(ir)) fires no hook; ctx.analyses() (analysis_handle.hpp) fires the
// context's. Everything here is one thread's (SPEC §11.13 aside).
//
// Storage. Every cached result is an entry (detail::AnalysisEntry) on one list in the
// order results were stored, so invalidation is one walk in storage order
// that drops a result when its own test says so or when one of its inputs
// (the entries it read through `deps`, which were stored before it) was
// dropped in the same walk. A listed module analysis's entry is a member of
// the manager (the static slot: `if (slot.value) return *slot.value;`);
// other results (function results, unlisted analyses) are entries allocated
// on first use, found through an open-addressing index keyed by (analysis,
// function key). Slots are in the index too, so lookups by type through the
// base, by name, or through a ContextRef find the same entry. No <memory>:
// nodes are new/delete'd by the manager that owns them (core.hpp stays light).
// Computing an analysis that is not listed needs passinfra/dynamic.hpp
// (DESIGN, Settled questions): a static-only manager asked for one fails to compile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/detail/exception_text.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/detail/suggest.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

// analyses<As...>: the list a manager gives static slots.
template <class... As>
struct analyses {
  using list = boost::mp11::mp_list<As...>;
};

template <class IR, class List = analyses<>>
class AnalysisManager;

namespace detail {

// RunTimeTable<IR>: complete once passinfra/dynamic/any_analysis.hpp is
// included; computing an unlisted analysis requires it.
template <class IR>
struct RunTimeTable;
template <class IR>
concept RunTimeTableIncluded = requires { RunTimeTable<IR>::enabled; };

// ---- erased results ------------------------------------------------------

template <class R>
constexpr bool (*equals_of())(const void*, const void*) {
  if constexpr (std::equality_comparable<R>) {
    return [](const void* a, const void* b) -> bool {
      return static_cast<bool>(*static_cast<const R*>(a) == *static_cast<const R*>(b));
    };
  } else {
    return nullptr;
  }
}

struct ResultOps {
  std::string_view type_name;
  void (*destroy)(const void*);
  bool (*equals)(const void*, const void*);  // null: the type has no ==
};

// The address of result_ops_for<R> is R's identity.
template <class R>
inline constexpr ResultOps result_ops_for{type_name<R>(), [](const void* p) { delete static_cast<const R*>(p); },
                                          equals_of<R>()};

// ErasedResult (AnyResult): a result and its analysis's info, viewed (a
// cached entry) or owned (what recompute returns). (A class template behind
// the alias, so that a translation unit compiles its members only when it
// uses them. Issue 18.)
template <class V = void>
class ErasedResultOf {
  using ErasedResult = ErasedResultOf;

 public:
  ErasedResultOf() noexcept = default;
  ErasedResultOf(const ErasedResultOf&) = delete;
  ErasedResult& operator=(const ErasedResult&) = delete;
  ErasedResultOf(ErasedResultOf&& other) noexcept { take(other); }
  ErasedResult& operator=(ErasedResult&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  ~ErasedResultOf() { reset(); }

  // owning(r, info): a result of its own (info.function is copied).
  template <class R>
  static ErasedResult owning(R* result, AnalysisInfo info) {
    ErasedResult out;
    out.value_ = result;
    out.ops_ = &result_ops_for<R>;
    out.owned_ = true;
    out.name_ = info.name;
    out.function_owned_ = std::string(info.function);
    return out;
  }
  // view(r, info): refers to a result kept elsewhere (info.function must outlive it).
  template <class R>
  void view(const R* result, AnalysisInfo info) noexcept {
    reset();
    value_ = result;
    ops_ = &result_ops_for<R>;
    name_ = info.name;
    function_view_ = info.function;
  }

  bool has_value() const noexcept { return value_ != nullptr; }
  AnalysisInfo info() const noexcept { return {name_, owned_ ? std::string_view(function_owned_) : function_view_}; }
  // The result type's name as the compiler spells it.
  std::string_view type_name() const noexcept { return ops_ ? ops_->type_name : std::string_view("<none>"); }

  // target<T>(): the result if it is a T, else nullptr.
  template <class T>
  const T* target() const noexcept {
    return ops_ == &result_ops_for<T> ? static_cast<const T*>(value_) : nullptr;
  }
  // get<T>(): the result; passinfra::Error if it is not a T.
  template <class T>
  const T& get() const {
    if (const T* p = target<T>()) return *p;
    throw Error("analysis '" + std::string(name_) + "' has result type " + std::string(type_name()) + ", not " +
                std::string(passinfra::detail::type_name<T>()));
  }
  // equals(other): the results compared with ==; nullopt when the type has
  // no == (or either side holds nothing); false for different types.
  // (std::optional<bool>, spelled dependently: see dependent_t.)
  dependent_t<std::optional<bool>, V> equals(const ErasedResult& other) const {
    if (!has_value() || !other.has_value()) return std::nullopt;
    if (ops_ != other.ops_) return false;
    if (ops_->equals == nullptr) return std::nullopt;
    return ops_->equals(value_, other.value_);
  }
  // has_equality(): the result type has ==.
  bool has_equality() const noexcept { return ops_ != nullptr && ops_->equals != nullptr; }

 private:
  void reset() noexcept {
    if (owned_ && value_ != nullptr) ops_->destroy(value_);
    value_ = nullptr;
    ops_ = nullptr;
    owned_ = false;
  }
  void take(ErasedResult& other) noexcept {
    value_ = other.value_;
    ops_ = other.ops_;
    owned_ = other.owned_;
    name_ = other.name_;
    function_view_ = other.function_view_;
    function_owned_ = std::move(other.function_owned_);
    other.value_ = nullptr;
    other.owned_ = false;
  }

  const void* value_ = nullptr;
  const ResultOps* ops_ = nullptr;
  bool owned_ = false;
  std::string_view name_{};
  std::string_view function_view_{};
  std::string function_owned_{};
};

using ErasedResult = ErasedResultOf<>;

// ---- function keys -------------------------------------------------------

struct NoFunctionKey {
  friend constexpr bool operator==(NoFunctionKey, NoFunctionKey) noexcept { return true; }
};
template <class IR, bool = FunctionKeyedIR<IR>>
struct function_key_of {
  using type = NoFunctionKey;
};
template <class IR>
struct function_key_of<IR, true> {
  using type = function_key_t<IR>;
};

// function_param_t<IR>: the IR's function type, or a placeholder for IRs without functions.
struct NoFunction {};
template <class IR>
using function_param_t = std::conditional_t<std::is_void_v<function_type_t<IR>>, NoFunction, function_type_t<IR>>;

// key_text(k): a function key as the text hooks show.
template <class K>
std::string key_text(const K& key) {
  if constexpr (std::is_convertible_v<const K&, std::string_view>) {
    return std::string(std::string_view(key));
  } else if constexpr (std::is_arithmetic_v<K>) {
    return std::to_string(key);
  } else if constexpr (requires { std::string(key); }) {
    return std::string(key);
  } else {
    return std::string(type_name<K>());
  }
}

// fnv1a(text): cheap for the short names function keys and analysis names
// are (std::hash of a std::string costs ~36 Ir for one byte).
inline std::size_t fnv1a(std::string_view text) noexcept {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return static_cast<std::size_t>(h ^ (h >> 32));
}

template <class K>
std::size_t key_hash(const K& key) {
  if constexpr (std::is_same_v<K, NoFunctionKey>) {
    return 0;
  } else if constexpr (std::is_convertible_v<const K&, std::string_view>) {
    return fnv1a(std::string_view(key));
  } else {
    return std::hash<K>{}(key);
  }
}

inline std::size_t mix_address(const void* p) noexcept {
  auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return static_cast<std::size_t>(h);
}

// ---- hook sinks ----------------------------------------------------------
//
// The manager fires analysis hooks through a "sink": an InstrumentSet (or
// any set with the same analysis fan-out: run_before_analysis(ir, info,
// returned&), run_after_analysis(ir, info, started&),
// run_after_analysis_failed(info, eptr, from, to), run_analysis_invalidated(info)
// and the has_* constants), NoAnalysisHooks (direct use), or SinkRef (any
// of them, erased).

struct NoAnalysisHooks {
  template <class>
  static constexpr bool has_run_before_analysis = false;
  template <class>
  static constexpr bool has_run_after_analysis = false;
  static constexpr bool has_run_after_analysis_failed = false;
  static constexpr bool has_run_analysis_invalidated = false;
};

template <class Sink, class IR>
inline constexpr bool sink_has_hooks =
    Sink::template has_run_before_analysis<IR> || Sink::template has_run_after_analysis<IR> ||
    Sink::has_run_after_analysis_failed || Sink::has_run_analysis_invalidated;

template <class IR>
struct SinkTable {
  void (*before)(void*, const IR&, const AnalysisInfo&, std::size_t&);
  void (*after)(void*, const IR&, const AnalysisInfo&, std::size_t&);
  void (*failed)(void*, const AnalysisInfo&, const std::exception_ptr&, std::size_t, std::size_t);
  void (*invalidated)(void*, const AnalysisInfo&);
};

template <class IR, class Set>
inline constexpr SinkTable<IR> sink_table_for{
    +[](void* s, const IR& ir, const AnalysisInfo& info, std::size_t& returned) {
      if constexpr (Set::template has_run_before_analysis<IR>) {
        static_cast<Set*>(s)->run_before_analysis(ir, info, returned);
      }
    },
    +[](void* s, const IR& ir, const AnalysisInfo& info, std::size_t& started) {
      if constexpr (Set::template has_run_after_analysis<IR>) {
        static_cast<Set*>(s)->run_after_analysis(ir, info, started);
      }
    },
    +[](void* s, const AnalysisInfo& info, const std::exception_ptr& e, std::size_t from, std::size_t to) {
      if constexpr (Set::has_run_after_analysis_failed) {
        static_cast<Set*>(s)->run_after_analysis_failed(info, e, from, to);
      }
    },
    +[](void* s, const AnalysisInfo& info) {
      if constexpr (Set::has_run_analysis_invalidated) static_cast<Set*>(s)->run_analysis_invalidated(info);
    },
};

// SinkRef<IR>: a sink seen through one type (null: no hooks).
template <class IR>
class SinkRef {
 public:
  template <class>
  static constexpr bool has_run_before_analysis = true;
  template <class>
  static constexpr bool has_run_after_analysis = true;
  static constexpr bool has_run_after_analysis_failed = true;
  static constexpr bool has_run_analysis_invalidated = true;

  SinkRef() noexcept = default;
  template <class Set>
    requires(!std::is_same_v<Set, SinkRef>)
  explicit SinkRef(Set& set) noexcept {
    if constexpr (sink_has_hooks<Set, IR>) {
      set_ = static_cast<void*>(&set);
      table_ = &sink_table_for<IR, Set>;
    }
  }
  explicit operator bool() const noexcept { return table_ != nullptr; }

  void run_before_analysis(const IR& ir, const AnalysisInfo& info, std::size_t& returned) {
    if (table_) table_->before(set_, ir, info, returned);
  }
  void run_after_analysis(const IR& ir, const AnalysisInfo& info, std::size_t& started) {
    if (table_) table_->after(set_, ir, info, started);
  }
  void run_after_analysis_failed(const AnalysisInfo& info, const std::exception_ptr& e, std::size_t from,
                                 std::size_t to) noexcept {
    if (table_) table_->failed(set_, info, e, from, to);
  }
  void run_analysis_invalidated(const AnalysisInfo& info) {
    if (table_) table_->invalidated(set_, info);
  }

 private:
  void* set_ = nullptr;
  const SinkTable<IR>* table_ = nullptr;
};

// ---- entries -------------------------------------------------------------

template <class IR>
struct AnalysisEntry;

template <class IR>
struct EntryOps {
  // The analysis's own test: true drops the result (SPEC §10.4).
  bool (*invalidated)(const AnalysisEntry<IR>&, const PreservedAnalyses&);
  // Destroys the result (the entry stays).
  void (*reset)(AnalysisEntry<IR>&) noexcept;
  // Deletes an entry made with new.
  void (*destroy)(AnalysisEntry<IR>*) noexcept;
  // The result computed again (for the checker).
  ErasedResult (*recompute)(AnalysisManager<IR>&, const AnalysisEntry<IR>&, const IR&);
};

template <class IR>
struct AnalysisEntry {
  using function_key_type = typename function_key_of<IR>::type;

  AnalysisEntry* prev = nullptr;  // the storage-order list (while cached)
  AnalysisEntry* next = nullptr;
  const EntryOps<IR>* ops = nullptr;
  AnalysisKey key{};
  std::size_t hash = 0;
  void* object = nullptr;  // the analysis object (std::optional<A>*)
  bool cached = false;
  bool function = false;
  bool heap = false;
  bool computing = false;
  bool dropping = false;
  AnalysisEntry* computing_prev = nullptr;  // the computation that requested this one
  function_key_type fkey{};
  std::string function_text{};
  std::vector<AnalysisEntry*> inputs{};
  dependent_t<ErasedResult, IR> result{};  // a view of the typed result, once cached (ErasedResult)
  // While a parallel nest runs (SPEC §11.13): a result cached before it, held
  // by its unit's store, keeps its place in the manager's list through this
  // entry (a stand-in with no ops).
  AnalysisEntry* placeholder = nullptr;

  AnalysisInfo info() const noexcept { return result.info(); }
};

// EntryIndex: open addressing, linear probing, load <= 1/2, backward-shift erase.
template <class E>
class EntryIndex {
 public:
  template <class Eq>
  PASSINFRA_ALWAYS_INLINE E* find(std::size_t hash, Eq&& eq) const noexcept {
    if (slots_.empty()) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      E* e = slots_[i];
      if (e == nullptr) return nullptr;
      if (e->hash == hash && eq(*e)) return e;
    }
  }
  void insert(E* e) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    place(e);
    ++count_;
  }
  void erase(E* e) noexcept {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = e->hash & mask;
    while (slots_[i] != e) i = (i + 1) & mask;
    slots_[i] = nullptr;
    --count_;
    for (std::size_t j = (i + 1) & mask; slots_[j] != nullptr; j = (j + 1) & mask) {
      const std::size_t home = slots_[j]->hash & mask;
      // slots_[j] may move to i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (!stays) {
        slots_[i] = slots_[j];
        slots_[j] = nullptr;
        i = j;
      }
    }
  }
  std::size_t size() const noexcept { return count_; }

 private:
  void grow() {
    std::vector<E*> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), nullptr);
    for (E* e : old) {
      if (e != nullptr) place(e);
    }
  }
  void place(E* e) noexcept {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = e->hash & mask;
    while (slots_[i] != nullptr) i = (i + 1) & mask;
    slots_[i] = e;
  }
  std::vector<E*> slots_;
  std::size_t count_ = 0;
};

// ---- analysis records (the objects that compute) --------------------------

template <class IR>
struct AnalysisOps {
  AnalysisKey key;
  std::string_view name;
  bool function;
  std::string_view result_type;
  void* (*new_object)(const void* source);                  // new std::optional<A> (a copy of *source, or empty)
  void (*delete_object)(void*) noexcept;                    // delete it
  void (*assign_object)(void* object, const void* source);  // *object = *source
  // get through the typed path; sink null: no hooks
  const ErasedResult& (*get)(AnalysisManager<IR>&, const IR&, const function_param_t<IR>*, SinkRef<IR>*);
  void (*ready_object)(void* object);  // makes A{} in an empty std::optional<A> (before a parallel nest)
};

template <class IR>
struct AnalysisRecord {
  const AnalysisOps<IR>* ops;
  std::size_t name_hash;  // fnv1a(ops->name)
  void* object;           // std::optional<A>*
  bool owned;             // the manager deletes the object (not a static slot's)
  bool added;
  bool listed;
};

// The marks made by the body of the pass running at `depth` (SPEC §10.4).
// (A class template, like PreservedAnalyses: instantiated only when used;
// PreservedAnalysesOf<V> is PreservedAnalyses, spelled so that it is too.)
template <class V = void>
struct MarkEntryOf {
  std::size_t depth;
  PreservedAnalysesOf<V> marks;
};
using MarkEntry = MarkEntryOf<>;

template <class IR, class A>
struct Typed;  // the typed operations of A's entries (defined after AnalysisManager)

template <class IR, class A>
struct TypedEntry : AnalysisEntry<IR> {
  std::optional<typename A::result_type> value;
};

// Call<F>: converts to F's result, so optional::emplace(Call{f}) constructs
// the result in place from f() (no move).
template <class F>
struct Call {
  F& f;
  operator decltype(std::declval<F&>()())() const { return f(); }  // NOLINT(google-explicit-constructor)
};

template <class IR>
inline bool in_list(const std::vector<AnalysisEntry<IR>*>& list, const AnalysisEntry<IR>* e) noexcept {
  for (const AnalysisEntry<IR>* x : list) {
    if (x == e) return true;
  }
  return false;
}

template <class L, class A>
inline constexpr bool listed_in = boost::mp11::mp_contains<L, A>::value;

// not_reached<R>(): what a get returns after its static_assert failed (never defined: never called).
template <class R>
const R& not_reached() noexcept;

// check_dependency<A, D>(): D is in A::depends_on; one static_assert per (A, D).
template <class A, class D>
consteval bool check_dependency() {
  static_assert(listed_in<depends_on_t<A>, D>, "passinfra: analysis A requested D, which is not in A::depends_on<...>");
  return listed_in<depends_on_t<A>, D>;
}
template <class D, bool Function>
consteval bool check_dependency_unit() {
  if constexpr (Function) {
    static_assert(!std::is_same_v<unit_of_t<D>, module_unit>,
                  "passinfra: AnalysisManager::get<A>(ir, fn): A is a module analysis; call get<A>(ir)");
    return !std::is_same_v<unit_of_t<D>, module_unit>;
  } else {
    static_assert(!std::is_same_v<unit_of_t<D>, function_unit>,
                  "passinfra: AnalysisManager::get<A>(ir): A is a function analysis; call get<A>(ir, fn) with one "
                  "of the IR's functions");
    return !std::is_same_v<unit_of_t<D>, function_unit>;
  }
}

template <class M>
inline constexpr bool is_analysis_manager = false;
template <class IR, class L>
inline constexpr bool is_analysis_manager<AnalysisManager<IR, L>> = true;

enum class InvalidationScope { all, module_only, function };

}  // namespace detail

// AnalysisDeps<Manager, A, Sink>: `deps` in A::run. get<D>() / get<D>(fn)
// request a declared dependency (SPEC §10.1) and record it as an input.
template <class Manager, class A, class Sink>
class AnalysisDeps {
 public:
  using ir_type = typename Manager::ir_type;
  using function_type = detail::function_param_t<ir_type>;
  using entry_type = detail::AnalysisEntry<ir_type>;

  AnalysisDeps(Manager& am, const ir_type& ir, Sink& sink, entry_type* requester) noexcept
      : am_(am), ir_(ir), sink_(sink), requester_(requester) {}

  // get<D>(): a module dependency, on the same IR.
  template <class D>
  const typename D::result_type& get() const {
    if constexpr (!(detail::check_dependency<A, D>() && detail::check_dependency_unit<D, false>())) {
      return detail::not_reached<typename D::result_type>();  // a static_assert has said why
    } else {
      return am_.template get_for<D>(ir_, sink_, requester_);
    }
  }
  // get<D>(fn): a function dependency, for one of the IR's functions.
  template <class D, class Fn>
  const typename D::result_type& get(const Fn& fn) const {
    if constexpr (!(detail::check_dependency<A, D>() && detail::check_dependency_unit<D, true>())) {
      return detail::not_reached<typename D::result_type>();
    } else {
      return am_.template get_for<D>(ir_, fn, sink_, requester_);
    }
  }
  // The IR the analysis reads.
  const ir_type& ir() const noexcept { return ir_; }

 private:
  Manager& am_;
  const ir_type& ir_;
  Sink& sink_;
  entry_type* requester_;
};

// ---- the base: the run-time table ----------------------------------------

template <class IR>
class AnalysisManager<IR, analyses<>> {
  // PreservedAnalyses, spelled dependently (see detail::dependent_t): the
  // bodies below that use one compile it only when instantiated. (Issue 18.)
  using PreservedAnalyses = detail::dependent_t<passinfra::PreservedAnalyses, IR>;

 public:
  using ir_type = IR;
  using function_type = detail::function_param_t<IR>;
  using function_key_type = typename detail::function_key_of<IR>::type;
  using entry_type = detail::AnalysisEntry<IR>;
  using listed = boost::mp11::mp_list<>;

  AnalysisManager() = default;
  AnalysisManager(const AnalysisManager&) = delete;
  AnalysisManager& operator=(const AnalysisManager&) = delete;
  ~AnalysisManager() {
    clear();
    for (auto* r : records_) {
      if (r->owned) r->ops->delete_object(r->object);
      delete r;
    }
    for (auto* r : spare_records_) {
      if (r->owned) r->ops->delete_object(r->object);
      delete r;
    }
  }

  // add(a): a's type computes with (a copy of) a. False, and nothing
  // changes, if an object of that type was already added.
  template <class A>
    requires Analysis<std::remove_cvref_t<A>>
  bool add(A&& analysis) {
    using T = std::remove_cvref_t<A>;
    return add_object(&detail::Typed<IR, T>::ops, static_cast<const void*>(&analysis));
  }
  // add(any): an erased analysis (AnyAnalysis<IR>: ops() and object()).
  template <class Any>
    requires requires(const Any& a) {
      { a.ops() } -> std::convertible_to<const detail::AnalysisOps<IR>*>;
      a.object();
    }
  bool add(const Any& any) {
    return add_object(any.ops(), any.object());
  }

  // get<A>(ir): A's result for ir (module analysis), cached or computed now; no hook.
  template <class A>
  const typename A::result_type& get(const IR& ir) {
    if constexpr (!(check_unlisted<A>() && check_module<A>())) {
      return detail::not_reached<typename A::result_type>();  // a static_assert has said why
    } else {
      detail::NoAnalysisHooks none;
      return get_for<A>(ir, none, nullptr);
    }
  }
  // get<A>(ir, fn): A's result for fn, one of ir's functions (function analysis).
  template <class A>
  const typename A::result_type& get(const IR& ir, const function_type& fn) {
    if constexpr (!(check_unlisted<A>() && check_function<A>())) {
      return detail::not_reached<typename A::result_type>();
    } else {
      detail::NoAnalysisHooks none;
      return get_for<A>(ir, fn, none, nullptr);
    }
  }
  // get_cached<A>() / get_cached<A>(fn): the cached result or nullptr.
  template <class A>
  const typename A::result_type* get_cached() const {
    if constexpr (!(check_unlisted<A>() && check_module<A>())) {
      return nullptr;
    } else {
      return table_cached<A>(nullptr);
    }
  }
  template <class A>
  const typename A::result_type* get_cached(const function_type& fn) const {
    if constexpr (!(check_unlisted<A>() && check_function<A>())) {
      return nullptr;
    } else {
      const function_key_type& key = ir_traits<IR>::function_key(fn);  // no copy when it returns a reference
      return table_cached<A>(&key);
    }
  }

  // contains<A>(): A is listed, or was added.
  template <class A>
  bool contains() const noexcept {
    const auto* r = find_record(analysis_key<A>);
    return r != nullptr && (r->listed || r->added);
  }

  // invalidate(pa): module results and every function result (SPEC §10.4).
  void invalidate(const PreservedAnalyses& pa) {
    detail::NoAnalysisHooks none;
    invalidate_with(pa, detail::InvalidationScope::all, nullptr, none);
  }
  // invalidate(fn, pa): fn's function results (others only by the cascade).
  void invalidate(const function_type& fn, const PreservedAnalyses& pa)
    requires FunctionKeyedIR<IR>
  {
    const function_key_type& key = ir_traits<IR>::function_key(fn);  // no copy when it returns a reference
    detail::NoAnalysisHooks none;
    invalidate_with(pa, detail::InvalidationScope::function, &key, none);
  }
  // clear(): drop every result (no hook).
  void clear() {
    detail::NoAnalysisHooks none;
    clear_with(none);
  }
  // clear_in_pass(): clear(), firing run_analysis_invalidated on the
  // instruments of the context running the innermost pass on this manager
  // (none outside a pass). For instruments that hold only the manager (the
  // preservation checker): they run inside that pass's hooks.
  void clear_in_pass() {
    if (depth_ != 0) {
      clear_with(sink_);
    } else {
      clear();
    }
  }
  // in_pass(): a pass is running on this manager (through run()).
  bool in_pass() const noexcept { return depth_ != 0; }
  // invalidations(): how many invalidations have been asked of this manager
  // (each end of a pass with work to do, each function of a function pass,
  // each am.invalidate), whether or not they dropped anything. The
  // preservation checker compares it to know whether a pass ended since it
  // last looked.
  std::uint64_t invalidations() const noexcept { return invalidations_; }

  // Nests (SPEC §11.13): while a nest's units run, module results are
  // read-only. freeze_modules(info) makes computing a module analysis throw
  // passinfra::Error naming the nest and the unit `info` describes (read
  // when the error is made: a serial nest updates it per unit); null thaws.
  // Returns the previous value. Costs nothing on a cache hit.
  const PipelineInfo* freeze_modules(const PipelineInfo* info) noexcept {
    const PipelineInfo* previous = frozen_in_;
    frozen_in_ = info;
    return previous;
  }
  const PipelineInfo* modules_frozen_in() const noexcept { return frozen_in_; }
  // ... and a unit's function analyses are those of its function:
  // only_function(&key) makes computing or reading (get_cached) a function
  // result for a function with another key throw passinfra::Error naming
  // the nest and unit of freeze_modules, the analysis and the function
  // (before any hook fires; nothing is cached). `key` is read at each
  // request (a serial nest updates it per unit); null lifts it. Returns the
  // previous value. A parallel nest's unit stores have it too (attach_unit).
  const function_key_type* only_function(const function_key_type* key) noexcept {
    return std::exchange(only_key_, key);
  }

  // ---- parallel nests (SPEC §11.13; core/nest.hpp's, not for users) -----
  //
  // While a parallel nest runs, each unit's function results live in a store
  // of its own: a manager attached to this one (attach_unit) that only the
  // unit's thread touches. It computes with this manager's analysis objects
  // and reads this manager's module results, never changing either (an
  // uncached module result is the frozen Error, a function other than the
  // unit's an Error). Before the units start (calling thread), split_units
  // moves each unit's cached function results into its store, a stand-in
  // keeping each one's place in the list; after they finished,
  // restore_units puts the results that are still cached back in their
  // places and take_results appends a store's new results: unit by unit,
  // this is the storage order of the serial run.
  static constexpr std::size_t no_unit = static_cast<std::size_t>(-1);

  // attach_unit(shared, key, info): this (empty) manager is the store of the
  // unit `info` describes, whose function key is `key`, in a nest over `shared`.
  void attach_unit(const AnalysisManager& shared, const function_key_type& key, const PipelineInfo* info) {
    shared_ = &shared;
    unit_key_ = key;
    only_key_ = &unit_key_;
    frozen_in_ = info;
  }
  // splits_by_unit(owner): no cached result reads a unit's function result
  // unless it is one of that unit's (owner(key): the unit of a function key, or no_unit).
  template <class Owner>
  bool splits_by_unit(const Owner& owner) const {
    for (const entry_type* e = head_; e != nullptr; e = e->next) {
      const std::size_t mine = e->function ? owner(e->fkey) : no_unit;
      for (const entry_type* in : e->inputs) {
        if (!in->function) continue;
        const std::size_t theirs = owner(in->fkey);
        if (theirs != no_unit && theirs != mine) return false;
      }
    }
    return true;
  }
  // ready_objects(): every registered analysis object made now (units compute with them at once).
  void ready_objects() {
    for (auto* r : records_) r->ops->ready_object(r->object);
  }
  // split_units(stores, owner): each unit's cached function results moved to stores[unit].
  template <class Owner>
  void split_units(AnalysisManager* stores, const Owner& owner) {
    for (entry_type* e = head_; e != nullptr;) {
      entry_type* next = e->next;
      if (e->function) {
        const std::size_t k = owner(e->fkey);
        if (k != no_unit) move_to_store(*e, stores[k]);
      }
      e = next;
    }
  }
  // restore_units(stores, n, keep_from): the results split_units moved that
  // are still cached, back in their places; the stand-ins of the others go,
  // except those of stores[keep_from..n) (units after a failed one, whose
  // results a serial run would still hold: clear_after_failed_nest drops
  // them as results).
  void restore_units(AnalysisManager* stores, std::size_t n, std::size_t keep_from) {
    for (std::size_t k = 0; k < n; ++k) {
      AnalysisManager& store = stores[k];
      for (entry_type* e = store.head_; e != nullptr;) {
        entry_type* next = e->next;
        if (entry_type* stand_in = std::exchange(e->placeholder, nullptr)) {
          store.release(*e);
          e->prev = stand_in->prev;
          e->next = stand_in->next;
          (e->prev != nullptr ? e->prev->next : head_) = e;
          (e->next != nullptr ? e->next->prev : tail_) = e;
          delete stand_in;
          e->cached = true;
          ++size_;
          ++pending_;
          index_.insert(e);
        }
        e = next;
      }
    }
    remove_stand_ins(stores + keep_from, stores + n);
  }
  // remove_stand_ins(): the stand-ins left in the list go (except those of stores [keep, end)).
  void remove_stand_ins(const AnalysisManager* keep = nullptr, const AnalysisManager* end = nullptr) noexcept {
    for (entry_type* e = head_; e != nullptr;) {
      entry_type* next = e->next;
      const auto* store = static_cast<const AnalysisManager*>(e->object);
      const bool kept = keep != nullptr && !std::less<>{}(store, keep) && std::less<>{}(store, end);
      if (e->ops == nullptr && !kept) unlink_stand_in(*e);
      e = next;
    }
  }
  // clear_after_failed_nest(sink): clear_after_failure, where a stand-in
  // left by restore_units counts as the result it stood for (one
  // run_analysis_invalidated in its place).
  template <class Sink>
  void clear_after_failed_nest(Sink& sink) noexcept {
    std::exception_ptr failure;
    for (entry_type* e = head_; e != nullptr;) {
      entry_type* next = e->next;
      if constexpr (Sink::has_run_analysis_invalidated) {
        if (!failure) {
          try {
            sink.run_analysis_invalidated(e->ops != nullptr ? e->info() : AnalysisInfo{name_of(*e), e->function_text});
          } catch (...) {
            failure = std::current_exception();
          }
        }
      }
      if (e->ops == nullptr) {
        unlink_stand_in(*e);
      } else {
        drop(*e);
      }
      e = next;
    }
    if (failure) {
      log(LogLevel::warning,
          "run_analysis_invalidated threw while the cache of a failed pass was cleared; it is dropped: " +
              detail::describe(failure));
    }
  }
  // take_results(store): the store's results appended in its storage order;
  // the analysis objects it made are kept here.
  void take_results(AnalysisManager& store) {
    while (entry_type* e = store.head_) {
      store.release(*e);
      e->placeholder = nullptr;
      index_.insert(e);
      link(*e);
    }
    for (auto* r : store.records_) (find_record(r->ops->key) != nullptr ? spare_records_ : records_).push_back(r);
    store.records_.clear();
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  // for_each_cached(f): f(const AnalysisInfo&, const AnyResult&) for each
  // cached result, in the order they were stored.
  template <class F>
  void for_each_cached(F&& f) const {
    for (const entry_type* e = head_; e != nullptr; e = e->next) f(e->info(), e->result);
  }

  // recompute(info, ir): the cached result named by info (name, and the
  // function for function results) computed again with the manager's
  // object, without caching it and without hooks. Empty (has_value()
  // false) for a function result whose function is no longer in ir.
  // Recomputing a function result needs ir_traits<IR>::for_each_function.
  // (detail::ErasedResult, spelled dependently.)
  detail::dependent_t<detail::ErasedResult, IR> recompute(const AnalysisInfo& info, const IR& ir) {
    for (entry_type* e = head_; e != nullptr; e = e->next) {
      if (e->info() == info) return e->ops->recompute(*this, *e, ir);
    }
    throw Error("AnalysisManager::recompute: no cached result of analysis '" + detail::clipped(info.name) + "'" +
                (info.function.empty() ? std::string() : " for function '" + detail::clipped(info.function) + "'"));
  }

  // ---- by name (the dynamic layer's; AnyResult is detail::ErasedResult) --

  // key_of(name): the identity of a registered analysis (listed, added, or used by type).
  AnalysisKey key_of(std::string_view name) const { return record_named(name).ops->key; }
  const detail::ErasedResult& get(std::string_view name, const IR& ir) {
    return get_erased(name, ir, nullptr, nullptr);
  }
  const detail::ErasedResult& get(std::string_view name, const IR& ir, const function_type& fn) {
    return get_erased(name, ir, &fn, nullptr);
  }
  // The names of the registered analyses, in registration order
  // (std::vector<std::string_view>, spelled dependently).
  detail::dependent_t<std::vector<std::string_view>, IR> analysis_names() const {
    detail::dependent_t<std::vector<std::string_view>, IR> out;
    for (const auto* r : records_) out.push_back(r->ops->name);
    return out;
  }

  // ---- for run(), the handle and AnalysisDeps (not for users) -----------

  // The typed path: cached or computed, `sink` fires the hooks, the entry is
  // recorded as an input of `requester` (null: none).
  template <class A, class Sink>
  const typename A::result_type& get_for(const IR& ir, Sink& sink, entry_type* requester) {
    return *table_get<A>(*this, ir, nullptr, sink, requester).value;
  }
  template <class A, class Sink>
  const typename A::result_type& get_for(const IR& ir, const function_type& fn, Sink& sink, entry_type* requester) {
    return *table_get<A>(*this, ir, &fn, sink, requester).value;
  }

  // cached_result<A>(key): A's cached result for the function with that key, or nullptr.
  template <class A>
  const typename A::result_type* cached_result(const function_key_type& key) const {
    return table_cached<A>(&key);
  }

  const detail::ErasedResult& get_erased(std::string_view name, const IR& ir, const function_type* fn,
                                         detail::SinkRef<IR>* sink) {
    const auto& r = record_named(name);
    if (r.ops->function && fn == nullptr) {
      throw Error("analysis '" + std::string(r.ops->name) +
                  "' is a function analysis; call get(name, ir, fn) with one of the IR's functions");
    }
    if (!r.ops->function && fn != nullptr) {
      throw Error("analysis '" + std::string(r.ops->name) + "' is a module analysis; call get(name, ir)");
    }
    return r.ops->get(*this, ir, fn, sink);
  }

  template <class Sink>
  void invalidate_with(const PreservedAnalyses& pa, detail::InvalidationScope scope, const function_key_type* fkey,
                       Sink& sink) {
    ++invalidations_;
    if (head_ == nullptr || pa.is_all()) return;  // an "all" set with nothing abandoned costs no walk
    bool any = false;
    try {
      for (entry_type* e = head_; e != nullptr; e = e->next) {
        bool drop = false;
        for (const entry_type* in : e->inputs) {
          if (in->dropping) {
            drop = true;
            break;
          }
        }
        if (!drop && in_scope(*e, scope, fkey)) drop = e->ops->invalidated(*e, pa);
        e->dropping = drop;
        any = any || drop;
      }
    } catch (...) {  // an is_invalidated threw: nothing is dropped
      for (entry_type* e = head_; e != nullptr; e = e->next) e->dropping = false;
      throw;
    }
    if (any) drop_marked(sink);
  }

  template <class Sink>
  void clear_with(Sink& sink) {
    if (head_ == nullptr) return;
    for (entry_type* e = head_; e != nullptr; e = e->next) e->dropping = true;
    drop_marked(sink);
  }

  // After a pass body threw (SPEC §10.6): drop everything, one
  // run_analysis_invalidated each; a hook's throw is logged and dropped
  // (the pass's exception is the one that travels).
  template <class Sink>
  void clear_after_failure(Sink& sink) noexcept {
    try {
      clear_with(sink);
    } catch (...) {
      log(LogLevel::warning,
          "run_analysis_invalidated threw while the cache of a failed pass was cleared; it is dropped: " +
              detail::describe(std::current_exception()));
    }
  }

  // ---- the running passes (run() and function passes; SPEC §10.4) ----
  //
  // depth_ counts the passes running on this manager (run() opens a level
  // per pass, a function pass one per function call); marks_ holds the
  // marks of running passes, innermost last, made only when a body marks.
  // With nothing cached and nothing marked, a pass costs the level's
  // increment and decrement and one test (has_work()).

  // PassLevel: one level for the duration of a pass run; it also makes the
  // set the analysis hooks clear_in_pass() fires, when the set has some.
  template <class Set>
  class PassLevel {
   public:
    PASSINFRA_ALWAYS_INLINE PassLevel(AnalysisManager& am, [[maybe_unused]] Set& set) noexcept : am_(am) {
      ++am_.depth_;
      if constexpr (detail::sink_has_hooks<Set, IR>) {
        saved_ = am_.sink_;
        am_.sink_ = detail::SinkRef<IR>(set);
      }
    }
    PassLevel(const PassLevel&) = delete;
    PassLevel& operator=(const PassLevel&) = delete;
    PASSINFRA_ALWAYS_INLINE ~PassLevel() {
      --am_.depth_;
      if constexpr (detail::sink_has_hooks<Set, IR>) am_.sink_ = saved_;
    }

   private:
    AnalysisManager& am_;
    [[no_unique_address]] std::conditional_t<detail::sink_has_hooks<Set, IR>, detail::SinkRef<IR>,
                                             detail::NoFunctionKey>
        saved_{};
  };

  // has_work(): something is cached or marked (else a pass's end is free).
  PASSINFRA_ALWAYS_INLINE bool has_work() const noexcept { return pending_ != 0; }
  // has_marks(): some running pass has marked.
  PASSINFRA_ALWAYS_INLINE bool has_marks() const noexcept { return mark_entries_ != 0; }

  // end_pass(declared, set): the invalidation at the end of the pass body
  // running at this level: declared ∪ its marks (SPEC §10.4).
  template <class Sink>
  [[gnu::noinline]] void end_pass(const PreservedAnalyses& declared, Sink& sink) {
    if (MarkEntry* m = marks_here()) {
      PreservedAnalyses effective = declared;
      effective.unite(m->marks);
      pop_marks();
      invalidate_with(effective, detail::InvalidationScope::all, nullptr, sink);
    } else {
      invalidate_with(declared, detail::InvalidationScope::all, nullptr, sink);
    }
  }
  // end_pass_preserving_all(set): the same for a pass declaring preserves_all.
  template <class Sink>
  [[gnu::noinline]] void end_pass_preserving_all(Sink& sink) {
    end_pass(PreservedAnalyses::all(), sink);
  }
  // take_marks(): the marks made at this level (nullopt: none), removed.
  std::optional<PreservedAnalyses> take_marks() {
    std::optional<PreservedAnalyses> out;
    if (MarkEntry* m = marks_here()) {
      out = std::move(m->marks);
      pop_marks();
    }
    return out;
  }
  // set_marks(pa): the marks of this level become pa.
  void set_marks(const PreservedAnalyses& pa) { marks(std::string_view("AnalysisManager::set_marks")) = pa; }
  // drop_marks(): forget the marks of this level and deeper (a body threw).
  void drop_marks() noexcept {
    while (!marks_.empty() && marks_.back().depth >= depth_) pop_marks();
  }

  // marks(what): the marks of the innermost running pass; `what` names the
  // call in the Error outside any pass (SPEC §10.8).
  PreservedAnalyses& marks(std::string_view what) {
    if (depth_ == 0) throw Error(std::string(what) + " called outside a pass body");
    if (MarkEntry* m = marks_here()) return m->marks;
    marks_.push_back(MarkEntry{depth_, {}});
    ++pending_;
    ++mark_entries_;
    return marks_.back().marks;
  }

 private:
  using MarkEntry = detail::dependent_t<detail::MarkEntry, IR>;  // spelled dependently (see detail::dependent_t)
  // The entry of this level, if any (entries of deeper levels left by a
  // pass that never reached its end are dropped first).
  MarkEntry* marks_here() noexcept {
    while (!marks_.empty() && marks_.back().depth > depth_) pop_marks();
    if (!marks_.empty() && marks_.back().depth == depth_) return &marks_.back();
    return nullptr;
  }
  void pop_marks() noexcept {
    marks_.pop_back();
    --pending_;
    --mark_entries_;
  }

 public:
  // The compile-time checks of get<A> (SPEC §10.8), also used by AnalysisHandle.
  template <class A>
  static consteval bool check_get() {
    return check_unlisted<A>();
  }
  template <class A>
  static consteval bool check_unlisted() {
    constexpr bool ok = detail::RunTimeTableIncluded<IR>;
    static_assert(ok,
                  "passinfra: AnalysisManager::get<A>(ir): A is not listed in analyses<...>; list it or include "
                  "passinfra/dynamic.hpp");
    return ok && detail::check_acyclic<A>() && detail::check_analysis<A, IR>();
  }
  template <class A>
  static consteval bool check_module() {
    constexpr bool ok = !std::is_same_v<unit_of_t<A>, function_unit>;
    static_assert(ok,
                  "passinfra: AnalysisManager::get<A>(ir): A is a function analysis; call get<A>(ir, fn) with one "
                  "of the IR's functions");
    return ok;
  }
  template <class A>
  static consteval bool check_function() {
    if constexpr (!std::is_same_v<unit_of_t<A>, function_unit>) {
      static_assert(std::is_same_v<unit_of_t<A>, function_unit>,
                    "passinfra: AnalysisManager::get<A>(ir, fn): A is a module analysis; call get<A>(ir)");
      return false;
    } else {
      static_assert(FunctionKeyedIR<IR>,
                    "passinfra: AnalysisManager::get<A>(ir, fn): A is a function analysis, but ir_traits<IR> has no "
                    "function_type / function_key(fn)");
      return FunctionKeyedIR<IR>;
    }
  }

 protected:
  static std::size_t hash_of(AnalysisKey key, const function_key_type* fkey) {
    std::size_t h = detail::mix_address(key.data());
    if (fkey != nullptr) h ^= detail::key_hash(*fkey) * 0x9e3779b97f4a7c15ULL + 0x7f4a7c15ULL;
    return h;
  }
  entry_type* find_entry(AnalysisKey key, const function_key_type* fkey) const {
    const std::size_t h = hash_of(key, fkey);
    return index_.find(h, [&](const entry_type& e) {
      return e.key == key && (fkey == nullptr ? !e.function : (e.function && e.fkey == *fkey));
    });
  }

  template <class A>
  const typename A::result_type* table_cached(const function_key_type* fkey) const {
    if (fkey != nullptr && only_key_ != nullptr) [[unlikely]]
      check_only_function(A::info.name, *fkey);
    const entry_type* e = find_entry(analysis_key<A>, fkey);
    if (e == nullptr || !e->cached) return nullptr;
    return &*static_cast<const detail::TypedEntry<IR, A>*>(e)->value;
  }

  // The entry of A (for fn, if given): cached, or computed now.
  template <class A, class Manager, class Sink>
  detail::TypedEntry<IR, A>& table_get(Manager& self, const IR& ir, const function_type* fn, Sink& sink,
                                       entry_type* requester) {
    using E = detail::TypedEntry<IR, A>;
    E* e = nullptr;
    if constexpr (std::is_same_v<unit_of_t<A>, function_unit>) {
      const function_key_type& key = ir_traits<IR>::function_key(*fn);  // no copy when it returns a reference
      if (only_key_ != nullptr) [[unlikely]]
        check_only_function(A::info.name, key);  // SPEC §11.13: no hook has fired, nothing is cached
      e = static_cast<E*>(find_entry(analysis_key<A>, &key));
      if (e == nullptr) e = missing_entry<A>(&key);
    } else {
      e = static_cast<E*>(find_entry(analysis_key<A>, nullptr));
      if (e == nullptr) e = missing_entry<A>(nullptr);
    }
    if (!e->cached) compute<A>(self, *e, ir, fn, sink);
    if (requester != nullptr) record_input(*requester, *e);
    return *e;
  }

  template <class A>
  detail::TypedEntry<IR, A>* new_entry(const function_key_type* fkey) {
    auto* e = new detail::TypedEntry<IR, A>();
    e->ops = &detail::Typed<IR, A>::entry_ops;
    e->key = analysis_key<A>;
    e->hash = hash_of(e->key, fkey);
    e->heap = true;
    e->object = object_for<A>();
    if (fkey != nullptr) {
      e->function = true;
      e->fkey = *fkey;
      e->function_text = detail::key_text(*fkey);
    }
    index_.insert(e);
    return e;
  }

  static void record_input(entry_type& requester, entry_type& input) {
    if (!detail::in_list(requester.inputs, &input)) requester.inputs.push_back(&input);
  }

  // The object that computes A (std::optional<A>*): registered (listed or
  // added), else made now (A{} is made when first needed).
  template <class A>
  void* object_for() {
    auto* r = find_record(analysis_key<A>);
    if (r == nullptr) r = &new_record(&detail::Typed<IR, A>::ops, nullptr, false);
    return r->object;
  }

  detail::AnalysisRecord<IR>* find_record(AnalysisKey key) const noexcept {
    if (shared_ != nullptr) [[unlikely]] {  // a unit's store: the nest's manager's objects first
      if (auto* r = shared_->find_record(key)) return r;
    }
    for (auto* r : records_) {
      if (r->ops->key == key) return r;
    }
    return nullptr;
  }
  detail::AnalysisRecord<IR>& new_record(const detail::AnalysisOps<IR>* ops, void* object, bool listed) {
    const bool owned = object == nullptr;
    if (owned) object = ops->new_object(nullptr);
    records_.push_back(new detail::AnalysisRecord<IR>{ops, detail::fnv1a(ops->name), object, owned, false, listed});
    return *records_.back();
  }
  const detail::AnalysisRecord<IR>* find_named(std::string_view name, std::size_t h) const noexcept {
    if (shared_ != nullptr) [[unlikely]] {
      if (const auto* r = shared_->find_named(name, h)) return r;
    }
    for (const auto* r : records_) {
      if (r->name_hash == h && r->ops->name == name) return r;
    }
    return nullptr;
  }
  const detail::AnalysisRecord<IR>& record_named(std::string_view name) const {
    if (const auto* r = find_named(name, detail::fnv1a(name))) return *r;
    throw_unknown(name);
  }
  [[noreturn, gnu::noinline]] void throw_unknown(std::string_view name) const {
    std::vector<std::string> names;
    if (shared_ != nullptr) {
      for (const auto* r : shared_->records_) names.emplace_back(r->ops->name);
    }
    for (const auto* r : records_) names.emplace_back(r->ops->name);
    std::string message = "unknown analysis '" + detail::clipped(name) + "'";
    // A guess only when it is close: within max(2, a third of the name) edits, or one contains the other.
    const auto close = detail::closest_names(name, names, 1);
    if (!close.empty()) {
      const std::string_view guess = close.front();
      const std::size_t bound = detail::max_of(2, name.size() / 3);
      const bool contains =
          !name.empty() && (guess.find(name) != std::string_view::npos || name.find(guess) != std::string_view::npos);
      if (contains || detail::edit_distance_at_most(name, guess, bound) <= bound) {
        message += "; did you mean '" + detail::clipped(guess) + "'?";
      }
    }
    message += " registered: ";
    if (names.empty()) message += "(none)";
    for (std::size_t i = 0; i < names.size(); ++i) message += (i ? ", " : "") + detail::clipped(names[i]);
    throw Error(message);
  }
  bool add_object(const detail::AnalysisOps<IR>* ops, const void* source) {
    auto* r = find_record(ops->key);
    if (r == nullptr) {
      auto& made = new_record(ops, nullptr, false);
      ops->assign_object(made.object, source);
      made.added = true;
      return true;
    }
    if (r->added) return false;
    ops->assign_object(r->object, source);
    r->added = true;
    return true;
  }

  // Computes A into e (SPEC §10.2 and §10.6): hooks, run, store, hooks.
  template <class A, class Manager, class Sink>
  [[gnu::noinline]] void compute(Manager& self, detail::TypedEntry<IR, A>& e, const IR& ir, const function_type* fn,
                                 Sink& sink) {
    if (e.computing) throw_cycle(e);
    auto& holder = *static_cast<std::optional<A>*>(e.object);
    if (!holder) holder.emplace();
    const A& analysis = *holder;
    const AnalysisInfo info{A::info.name, e.function_text};
    e.computing = true;
    e.computing_prev = computing_;
    computing_ = &e;
    [[maybe_unused]] std::size_t returned = 0;
    try {
      if constexpr (!std::is_same_v<unit_of_t<A>, function_unit>) {
        if (frozen_in_ != nullptr) [[unlikely]]
          throw_frozen(A::info.name);  // SPEC §11.13: no hook has fired, nothing is cached
      }
      if constexpr (Sink::template has_run_before_analysis<IR>) sink.run_before_analysis(ir, info, returned);
      AnalysisDeps<Manager, A, Sink> deps(self, ir, sink, &e);
      auto run = [&]() -> typename A::result_type {
        if constexpr (std::is_same_v<unit_of_t<A>, function_unit>) {
          if constexpr (requires { analysis.run(*fn, ir, deps); }) {
            return analysis.run(*fn, ir, deps);
          } else {
            return analysis.run(*fn, ir);
          }
        } else {
          if constexpr (requires { analysis.run(ir, deps); }) {
            return analysis.run(ir, deps);
          } else {
            return analysis.run(ir);
          }
        }
      };
      e.value.emplace(detail::Call<decltype(run)>{run});
    } catch (...) {
      e.computing = false;
      computing_ = e.computing_prev;
      e.inputs.clear();
      if constexpr (Sink::has_run_after_analysis_failed) {
        sink.run_after_analysis_failed(info, std::current_exception(), 0, returned);
      }
      if (e.heap) {
        index_.erase(&e);
        delete &e;
      }
      throw;
    }
    e.computing = false;
    computing_ = e.computing_prev;
    link(e);
    e.result.view(&*e.value, AnalysisInfo{A::info.name, e.function_text});
    if constexpr (Sink::template has_run_after_analysis<IR>) {
      std::size_t started = 0;
      try {
        sink.run_after_analysis(ir, info, started);
      } catch (...) {
        if constexpr (Sink::has_run_after_analysis_failed) {
          sink.run_after_analysis_failed(info, std::current_exception(), started, returned);
        }
        throw;
      }
    }
  }

  // The entry of A (for the function with key *fkey, if given) when none is
  // here: a new one; for a module analysis in a unit's store (parallel
  // nest), the nest's manager's cached result (else the frozen Error).
  template <class A>
  detail::TypedEntry<IR, A>* missing_entry(const function_key_type* fkey) {
    if (shared_ != nullptr && fkey == nullptr) [[unlikely]] {
      entry_type* e = shared_->find_entry(analysis_key<A>, nullptr);
      if (e == nullptr || !e->cached) throw_frozen(A::info.name);
      return static_cast<detail::TypedEntry<IR, A>*>(e);  // cached: table_get records it as an input
    }
    return new_entry<A>(fkey);
  }
  // A function result asked for inside a nest's unit (only_function): the unit's function, else an Error.
  void check_only_function(std::string_view name, const function_key_type& key) const {
    if (!(key == *only_key_)) throw_other_unit(name, key);
  }
  [[noreturn, gnu::noinline]] void throw_other_unit(std::string_view name, const function_key_type& key) const {
    throw Error("function analysis '" + std::string(name) + "' for function '" + detail::key_text(key) +
                "' cannot be computed or read inside unit '" + std::string(frozen_in_->unit_name) + "' of nest '" +
                std::string(frozen_in_->nest.name) + "': inside a unit, function analyses are those of the unit's " +
                "function only (get<A>(ctx.parent(), fn) and get_cached<A>(fn) with fn the unit)");
  }
  [[noreturn]] void throw_frozen(std::string_view name) const {
    const std::string a(name);
    throw Error("module analysis '" + a + "' cannot be computed inside nest '" + std::string(frozen_in_->nest.name) +
                "' (unit '" + std::string(frozen_in_->unit_name) + "'); compute it before the nest, e.g. with " +
                "require(analysis=\"" + a + "\")");
  }
  [[noreturn]] void throw_cycle(const entry_type& again) const {
    std::vector<const entry_type*> chain;
    for (const entry_type* c = computing_; c != nullptr; c = c->computing_prev) {
      chain.push_back(c);
      if (c == &again) break;
    }
    std::string text;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) text += std::string(name_of(**it)) + " -> ";
    text += name_of(again);
    throw Error("analysis dependency cycle: " + text);
  }
  std::string_view name_of(const entry_type& e) const {
    const auto* r = find_record(e.key);
    return r != nullptr ? r->ops->name : e.key.type_name();
  }

  void link(entry_type& e) noexcept {
    e.cached = true;
    ++pending_;
    e.prev = tail_;
    e.next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = &e;
    } else {
      head_ = &e;
    }
    tail_ = &e;
    ++size_;
  }
  void unlink(entry_type& e) noexcept {
    if (e.prev != nullptr) {
      e.prev->next = e.next;
    } else {
      head_ = e.next;
    }
    if (e.next != nullptr) {
      e.next->prev = e.prev;
    } else {
      tail_ = e.prev;
    }
    e.prev = e.next = nullptr;
    e.cached = false;
    --size_;
    --pending_;
  }

  static bool in_scope(const entry_type& e, detail::InvalidationScope scope, const function_key_type* fkey) {
    switch (scope) {
      case detail::InvalidationScope::all:
        return true;
      case detail::InvalidationScope::module_only:
        return !e.function;
      case detail::InvalidationScope::function:
        return e.function && e.fkey == *fkey;
    }
    return true;
  }

  // Drops the entries marked `dropping`, in storage order, each with its
  // run_analysis_invalidated. A hook's throw stops the hooks (not the
  // drops) and is rethrown when every marked entry is gone.
  template <class Sink>
  void drop_marked(Sink& sink) {
    std::exception_ptr failure;
    for (entry_type* e = head_; e != nullptr;) {
      entry_type* next = e->next;
      if (e->dropping) {
        if constexpr (Sink::has_run_analysis_invalidated) {
          if (!failure) {
            try {
              sink.run_analysis_invalidated(e->info());
            } catch (...) {
              failure = std::current_exception();
            }
          }
        }
        drop(*e);
      }
      e = next;
    }
    if (failure) std::rethrow_exception(failure);
  }
  // Takes e out of this manager's list and index (it stays cached, for another manager).
  void release(entry_type& e) noexcept {
    unlink(e);
    index_.erase(&e);
  }
  // Moves e to `store`, a stand-in taking its place in this list (split_units):
  // no ops, e's analysis and function, `object` the store.
  void move_to_store(entry_type& e, AnalysisManager& store) {
    auto* stand_in = new entry_type();
    stand_in->key = e.key;
    stand_in->function = true;
    stand_in->function_text = e.function_text;
    stand_in->object = static_cast<void*>(&store);
    stand_in->prev = e.prev;
    stand_in->next = e.next;
    (e.prev != nullptr ? e.prev->next : head_) = stand_in;
    (e.next != nullptr ? e.next->prev : tail_) = stand_in;
    e.prev = e.next = nullptr;
    e.placeholder = stand_in;
    index_.erase(&e);
    --size_;
    --pending_;
    store.index_.insert(&e);
    store.link(e);
  }
  void unlink_stand_in(entry_type& e) noexcept {
    (e.prev != nullptr ? e.prev->next : head_) = e.next;
    (e.next != nullptr ? e.next->prev : tail_) = e.prev;
    delete &e;
  }
  void drop(entry_type& e) noexcept {
    unlink(e);
    e.dropping = false;
    e.inputs.clear();
    e.result = {};  // (not ErasedResult(): that would instantiate it here)
    e.ops->reset(e);
    if (e.heap) {
      index_.erase(&e);
      e.ops->destroy(&e);
    }
  }

  std::size_t depth_ = 0;            // passes running on this manager
  std::size_t pending_ = 0;          // cached results + mark entries
  std::uint64_t invalidations_ = 0;  // see invalidations()
  std::vector<MarkEntry> marks_;
  std::size_t mark_entries_ = 0;  // marks_.size(), as one load for has_marks()
  detail::SinkRef<IR> sink_{};    // the hooks of the innermost pass's context (when it has analysis hooks)
  entry_type* head_ = nullptr;
  entry_type* tail_ = nullptr;
  std::size_t size_ = 0;
  entry_type* computing_ = nullptr;
  const PipelineInfo* frozen_in_ = nullptr;  // see freeze_modules
  detail::EntryIndex<entry_type> index_;
  std::vector<detail::AnalysisRecord<IR>*> records_;
  std::vector<detail::AnalysisRecord<IR>*> spare_records_;  // objects units made for analyses already here
  const AnalysisManager* shared_ = nullptr;                 // a unit's store: the nest's manager (see attach_unit)
  function_key_type unit_key_{};                            // ... and its unit's function key
  const function_key_type* only_key_ = nullptr;             // see only_function

  template <class, class>
  friend struct detail::Typed;
};

// ---- static slots --------------------------------------------------------

namespace detail {

template <class IR, class A, bool Module = std::is_same_v<unit_of_t<A>, module_unit>>
struct AnalysisSlot {
  std::optional<A> object;
  TypedEntry<IR, A> entry;
};
template <class IR, class A>
struct AnalysisSlot<IR, A, false> {  // function results live in the table
  std::optional<A> object;
};

template <class IR, class L>
struct Slots;
template <class IR, class... As>
struct Slots<IR, boost::mp11::mp_list<As...>> : AnalysisSlot<IR, As>... {};

template <class IR, class... As>
consteval bool check_listed() {
  return (check_analysis<As, IR>() && ...) && (check_acyclic<As>() && ...);
}

}  // namespace detail

template <class IR, class... As>
class AnalysisManager<IR, analyses<As...>> : public AnalysisManager<IR> {
  using Base = AnalysisManager<IR>;
  static constexpr bool valid = detail::check_listed<IR, As...>();
  static_assert(detail::reported(valid));

 public:
  using ir_type = IR;
  using function_type = detail::function_param_t<IR>;
  using entry_type = detail::AnalysisEntry<IR>;
  // The listed analyses and their depends_on closure, dependencies first.
  using listed = dependency_closure_t<As...>;

  AnalysisManager() {
    if constexpr (valid) register_slots();
  }
  AnalysisManager(const AnalysisManager&) = delete;
  AnalysisManager& operator=(const AnalysisManager&) = delete;
  ~AnalysisManager() { this->clear(); }  // the slots go before the base's destructor runs

 private:
  void register_slots() {
    boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, listed>>([this](auto t) {
      using A = typename decltype(t)::type;
      auto& slot = this->template slot<A>();
      this->new_record(&detail::Typed<IR, A>::ops, static_cast<void*>(&slot.object), true);
      if constexpr (std::is_same_v<unit_of_t<A>, module_unit>) {
        slot.entry.ops = &detail::Typed<IR, A>::entry_ops;
        slot.entry.key = analysis_key<A>;
        slot.entry.hash = Base::hash_of(slot.entry.key, nullptr);
        slot.entry.object = static_cast<void*>(&slot.object);
        this->index_.insert(&slot.entry);
      }
    });
  }

 public:
  using Base::add;
  using Base::get;
  using Base::get_cached;

  template <class A>
  const typename A::result_type& get(const IR& ir) {
    if constexpr (!(check<A>() && Base::template check_module<A>())) {
      return detail::not_reached<typename A::result_type>();  // a static_assert has said why
    } else {
      detail::NoAnalysisHooks none;
      return get_for<A>(ir, none, nullptr);
    }
  }
  template <class A>
  const typename A::result_type& get(const IR& ir, const function_type& fn) {
    if constexpr (!(check<A>() && Base::template check_function<A>())) {
      return detail::not_reached<typename A::result_type>();
    } else {
      detail::NoAnalysisHooks none;
      return get_for<A>(ir, fn, none, nullptr);
    }
  }
  template <class A>
  const typename A::result_type* get_cached() const {
    if constexpr (!(check<A>() && Base::template check_module<A>())) {
      return nullptr;
    } else if constexpr (detail::listed_in<listed, A>) {
      const auto& v = slot<A>().entry.value;
      return v ? &*v : nullptr;
    } else {
      return this->template table_cached<A>(nullptr);
    }
  }
  template <class A>
  const typename A::result_type* get_cached(const function_type& fn) const {
    if constexpr (!(check<A>() && Base::template check_function<A>())) {
      return nullptr;
    } else {
      const typename Base::function_key_type& key = ir_traits<IR>::function_key(fn);
      return this->template table_cached<A>(&key);
    }
  }
  template <class A>
  bool contains() const noexcept {
    if constexpr (detail::listed_in<listed, A>) {
      return true;
    } else {
      return Base::template contains<A>();
    }
  }

  template <class A>
  static consteval bool check_get() {
    return check<A>();
  }

  // The typed path (see the base): a listed module analysis is its slot.
  template <class A, class Sink>
  PASSINFRA_ALWAYS_INLINE const typename A::result_type& get_for(const IR& ir, Sink& sink, entry_type* requester) {
    if constexpr (detail::listed_in<listed, A> && std::is_same_v<unit_of_t<A>, module_unit>) {
      auto& e = slot<A>().entry;
      if (!e.value) [[unlikely]]
        this->template compute<A>(*this, e, ir, nullptr, sink);
      if (requester != nullptr) Base::record_input(*requester, e);
      return *e.value;
    } else {
      return *this->template table_get<A>(*this, ir, nullptr, sink, requester).value;
    }
  }
  template <class A, class Sink>
  const typename A::result_type& get_for(const IR& ir, const function_type& fn, Sink& sink, entry_type* requester) {
    return *this->template table_get<A>(*this, ir, &fn, sink, requester).value;
  }

 private:
  template <class A>
  static consteval bool check() {
    if constexpr (detail::listed_in<listed, A>) {
      return true;
    } else {
      return Base::template check_unlisted<A>();
    }
  }
  template <class A>
  detail::AnalysisSlot<IR, A>& slot() noexcept {
    return static_cast<detail::AnalysisSlot<IR, A>&>(slots_);
  }
  template <class A>
  const detail::AnalysisSlot<IR, A>& slot() const noexcept {
    return static_cast<const detail::AnalysisSlot<IR, A>&>(slots_);
  }

  detail::Slots<IR, listed> slots_;
};

// ---- the typed operations ------------------------------------------------

namespace detail {

template <class IR, class A>
struct Typed {
  using R = typename A::result_type;
  using E = TypedEntry<IR, A>;
  using Fn = function_param_t<IR>;
  using Result = dependent_t<ErasedResult, A>;  // (spelled dependently: see dependent_t)
  static constexpr bool is_function = std::is_same_v<unit_of_t<A>, function_unit>;

  static bool invalidated(const AnalysisEntry<IR>& e, const dependent_t<PreservedAnalyses, A>& pa) {
    if constexpr (HasIsInvalidated<A, PreservedAnalyses>) {
      const A& analysis = **static_cast<const std::optional<A>*>(e.object);
      return analysis.is_invalidated(*static_cast<const E&>(e).value, pa);
    } else {
      return !pa.preserved(analysis_key<A>);
    }
  }
  static void reset(AnalysisEntry<IR>& e) noexcept { static_cast<E&>(e).value.reset(); }
  static void destroy(AnalysisEntry<IR>* e) noexcept { delete static_cast<E*>(e); }

  static Result recompute(AnalysisManager<IR>& am, const AnalysisEntry<IR>& e, const IR& ir) {
    const A& analysis = **static_cast<const std::optional<A>*>(e.object);
    NoAnalysisHooks none;
    AnalysisDeps<AnalysisManager<IR>, A, NoAnalysisHooks> deps(am, ir, none, nullptr);
    const AnalysisInfo info = e.info();
    if constexpr (is_function) {
      if constexpr (FunctionEnumerableIR<IR>) {
        Result out;
        ir_traits<IR>::for_each_function(ir, [&](const Fn& fn) {
          if (out.has_value() || !(ir_traits<IR>::function_key(fn) == e.fkey)) return;
          if constexpr (requires { analysis.run(fn, ir, deps); }) {
            out = Result::owning(new R(analysis.run(fn, ir, deps)), info);
          } else {
            out = Result::owning(new R(analysis.run(fn, ir)), info);
          }
        });
        return out;
      } else {
        throw Error("AnalysisManager::recompute: analysis '" + std::string(A::info.name) +
                    "' is a function analysis, and recomputing its results needs "
                    "ir_traits<IR>::for_each_function(const IR&, f)");
      }
    } else {
      if constexpr (requires { analysis.run(ir, deps); }) {
        return Result::owning(new R(analysis.run(ir, deps)), info);
      } else {
        return Result::owning(new R(analysis.run(ir)), info);
      }
    }
  }

  static constexpr EntryOps<IR> entry_ops{&invalidated, &reset, &destroy, &recompute};

  static const ErasedResult& get(AnalysisManager<IR>& am, const IR& ir, const Fn* fn, SinkRef<IR>* sink) {
    NoAnalysisHooks none;
    if (sink != nullptr) return am.template table_get<A>(am, ir, fn, *sink, nullptr).result;
    return am.template table_get<A>(am, ir, fn, none, nullptr).result;
  }

  static constexpr AnalysisOps<IR> ops{
      analysis_key<A>,
      AnalysisInfo(A::info).name,
      is_function,
      type_name<R>(),
      +[](const void* source) -> void* {
        auto* o = new std::optional<A>();
        if (source != nullptr) o->emplace(*static_cast<const A*>(source));
        return o;
      },
      +[](void* object) noexcept { delete static_cast<std::optional<A>*>(object); },
      +[](void* object, const void* source) {
        static_cast<std::optional<A>*>(object)->emplace(*static_cast<const A*>(source));
      },
      &get,
      +[](void* object) {
        if constexpr (std::is_default_constructible_v<A>) {
          auto& o = *static_cast<std::optional<A>*>(object);
          if (!o) o.emplace();
        }
      },
  };
};

}  // namespace detail

}  // namespace passinfra
