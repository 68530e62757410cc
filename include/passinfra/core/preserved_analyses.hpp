// passinfra/core/preserved_analyses.hpp — what a pass keeps (SPEC §10.3).
//
// PreservedAnalyses                   a run-time set of preserved keys, an "all" flag and
//                                     a set of abandoned analyses
//   PreservedAnalyses::none() / all() / all_in<Tag>()
//   pa.preserve<Ts...>() / preserve(key)      keep analyses or tags
//   pa.preserve_all()                          set the "all" flag
//   pa.abandon<As...>() / abandon(key)         drop them whatever else is kept
//   pa.intersect(other)                        kept by both (by meaning, see below)
//   pa.unite(other)                            kept by either (abandons of either win)
//   pa.preserved<T>() / preserved(key)         SPEC §10.3's test
//   pa.is_all() / pa.is_none()
// preserves<Ts...> / preserves_all    what a pass declares (`using preserves = ...;`), or
//                                     what module_pass / function_pass take as a last argument
// preserved_analyses_of<P>            P's declaration as a PreservedAnalyses (none() if P
//                                     declares nothing); constant, no allocation
// declares_preserves_all<P>           P declares preserves_all (the no-walk fast path)
//
// pa.preserved<A>() for an analysis A: A not abandoned, and "all", or A
// itself, or all_analyses_on<unit of A>, or one of A's analysis_sets tags
// is kept (a set implies its members; unlike LLVM). For a tag T: not
// abandoned, and "all" or T itself.
//
// Representation. Named analyses, and tags, are kept apart: the answer for
// an analysis A is "A is named, or every clause of tags meets A's groups
// (its unit's tag and its sets)". A set made by preserve has one clause;
// intersect adds clauses, so it is exact by meaning: a set kept by one side
// and a member named by the other keep that member, and two different sets
// keep the analyses in both. Key lists made from a declaration view a
// constant array (no allocation); keys added at run time are owned.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "passinfra/core/analysis.hpp"

namespace passinfra {

namespace detail {

// KeyList: a constant array of keys (viewed) and keys added at run time.
// (A class template, KeyList below, and PreservedAnalyses's members that
// add keys are templates too: a translation unit compiles the vectors they
// grow only when it builds a PreservedAnalyses that way. Issue 18.)
template <class V = void>
class KeyListOf {
 public:
  constexpr KeyListOf() noexcept = default;
  constexpr explicit KeyListOf(std::span<const AnalysisKey> fixed) noexcept : fixed_(fixed) {}

  constexpr bool empty() const noexcept { return fixed_.empty() && added_.empty(); }
  constexpr bool contains(AnalysisKey key) const noexcept {
    for (const AnalysisKey k : fixed_) {
      if (k == key) return true;
    }
    for (const AnalysisKey k : added_) {
      if (k == key) return true;
    }
    return false;
  }
  constexpr void add(AnalysisKey key) {
    if (!contains(key)) added_.push_back(key);
  }
  void add_all(const KeyListOf& other) {
    other.for_each([&](AnalysisKey k) { add(k); });
  }
  template <class F>
  constexpr void for_each(F&& f) const {
    for (const AnalysisKey k : fixed_) f(k);
    for (const AnalysisKey k : added_) f(k);
  }
  constexpr void clear() noexcept {
    fixed_ = {};
    added_.clear();
  }
  // Any of the groups of `data` (its unit tag, its sets) is in the list.
  constexpr bool meets_groups(const KeyData* data) const noexcept {
    if (contains(AnalysisKey(data->unit))) return true;
    for (const KeyData* set : data->sets) {
      if (contains(AnalysisKey(set))) return true;
    }
    return false;
  }
  bool same_keys(const KeyListOf& other) const {
    bool same = true;
    std::size_t n = 0;
    for_each([&](AnalysisKey k) {
      ++n;
      same = same && other.contains(k);
    });
    std::size_t m = 0;
    other.for_each([&](AnalysisKey) { ++m; });
    return same && n == m;
  }

 private:
  std::span<const AnalysisKey> fixed_{};
  std::vector<dependent_t<AnalysisKey, V>> added_{};  // (spelled dependently: see dependent_t)
};

using KeyList = KeyListOf<>;

}  // namespace detail

// PreservedAnalysesOf<>: PreservedAnalyses below. (A class template behind
// the alias, so that a translation unit instantiates its members and the
// vectors they use only when it uses them. Issue 18.)
template <class V>
class PreservedAnalysesOf {
  using PreservedAnalyses = PreservedAnalysesOf;
  // detail::KeyList, spelled dependently (see detail::dependent_t): its
  // members' types would be instantiated where this template is defined.
  using KeyList = detail::KeyListOf<V>;

 public:
  constexpr PreservedAnalysesOf() noexcept = default;

  // none(): nothing is preserved.
  static constexpr PreservedAnalyses none() noexcept { return PreservedAnalyses(); }
  // all(): everything is preserved.
  static constexpr PreservedAnalyses all() noexcept {
    PreservedAnalyses pa;
    pa.all_ = true;
    return pa;
  }
  // all_in<Tag>(): every analysis the tag covers (all_analyses_on<Unit>, a set).
  template <class Tag>
  static PreservedAnalyses all_in() {
    PreservedAnalyses pa;
    pa.preserve<Tag>();
    return pa;
  }

  // preserve<Ts...>(): keep these analyses or tags.
  template <class... Ts>
  PreservedAnalyses& preserve() {
    (preserve(analysis_key<Ts>), ...);
    return *this;
  }
  template <class = void>
  PreservedAnalyses& preserve(AnalysisKey key) {
    if (key.is_analysis()) {
      named_.add(key);
    } else {
      add_group(key);
    }
    return *this;
  }
  // preserve_all(): set the "all" flag (abandoned analyses stay abandoned).
  PreservedAnalyses& preserve_all() noexcept {
    all_ = true;
    return *this;
  }
  // abandon<As...>(): drop them, whatever else is kept.
  template <class... As>
  PreservedAnalyses& abandon() {
    (abandon(analysis_key<As>), ...);
    return *this;
  }
  template <class = void>
  PreservedAnalyses& abandon(AnalysisKey key) {
    abandoned_.add(key);
    return *this;
  }

  // preserved<T>(): SPEC §10.3.
  template <class T>
  bool preserved() const noexcept {
    return preserved(analysis_key<T>);
  }
  bool preserved(AnalysisKey key) const noexcept {
    if (!abandoned_.empty() && abandoned_.contains(key)) return false;
    return all_ || matches(key);
  }

  // is_all(): the flag is set and nothing is abandoned. is_none(): no key, no flag.
  constexpr bool is_all() const noexcept { return all_ && abandoned_.empty(); }
  constexpr bool is_none() const noexcept { return !all_ && named_.empty() && groups_.empty(); }
  // has_abandoned(): some analysis is abandoned.
  constexpr bool has_abandoned() const noexcept { return !abandoned_.empty(); }

  // intersect(b): afterwards preserved<A>() is true iff it was true for both.
  template <class = void>
  PreservedAnalyses& intersect(const PreservedAnalyses& b) {
    abandoned_.add_all(b.abandoned_);
    if (b.all_) return *this;
    if (all_) {
      all_ = false;
      named_ = b.named_;
      groups_ = b.groups_;
      more_groups_ = b.more_groups_;
      return *this;
    }
    KeyList named;
    named_.for_each([&](AnalysisKey k) {
      if (b.matches(k)) named.add(k);
    });
    b.named_.for_each([&](AnalysisKey k) {
      if (matches(k)) named.add(k);
    });
    named_ = std::move(named);
    if (groups_.empty() || b.groups_.empty()) {
      groups_.clear();
      more_groups_.clear();
    } else {
      add_clause(b.groups_);
      for (const auto& clause : b.more_groups_) add_clause(clause);
    }
    return *this;
  }

  // unite(b): afterwards preserved<A>() is true iff A is abandoned by
  // neither and preserved (abandons aside) by either. What run() does with
  // a pass's declaration and the marks its body made.
  template <class = void>
  PreservedAnalyses& unite(const PreservedAnalyses& b) {
    abandoned_.add_all(b.abandoned_);
    all_ = all_ || b.all_;
    named_.add_all(b.named_);
    if (b.groups_.empty()) return *this;
    if (groups_.empty()) {
      groups_ = b.groups_;
      more_groups_ = b.more_groups_;
      return *this;
    }
    if (b.more_groups_.empty()) {
      b.groups_.for_each([&](AnalysisKey k) { add_group(k); });  // (C1 & C2 ...) | T == (C1 | T) & (C2 | T) ...
      return *this;
    }
    // Both sides are conjunctions of clauses: (a1 & a2) | (b1 & b2) is the
    // conjunction of every (ai | bj).
    std::vector<KeyList> mine = clauses(), theirs = b.clauses(), out;
    for (const auto& x : mine) {
      for (const auto& y : theirs) {
        KeyList c = x;
        c.add_all(y);
        out.push_back(std::move(c));
      }
    }
    groups_ = std::move(out.front());
    more_groups_.clear();
    for (std::size_t i = 1; i < out.size(); ++i) add_clause(out[i]);
    return *this;
  }

  // For a declaration's constant: the named analyses and the tags as
  // constant arrays (no allocation).
  constexpr PreservedAnalysesOf(bool all, std::span<const AnalysisKey> named,
                                std::span<const AnalysisKey> groups) noexcept
      : all_(all), named_(named), groups_(groups) {}

 private:
  // Kept, abandons aside.
  bool matches(AnalysisKey key) const noexcept {
    if (!key.is_analysis()) {  // a tag: itself, in every clause
      if (groups_.empty() || !groups_.contains(key)) return named_.contains(key);
      for (const auto& clause : more_groups_) {
        if (!clause.contains(key)) return false;
      }
      return true;
    }
    if (named_.contains(key)) return true;
    if (groups_.empty() || !groups_.meets_groups(key.data())) return false;
    for (const auto& clause : more_groups_) {
      if (!clause.meets_groups(key.data())) return false;
    }
    return true;
  }
  // A tag joins every clause: (C1 & C2) | T == (C1 | T) & (C2 | T).
  template <class = void>
  void add_group(AnalysisKey key) {
    groups_.add(key);
    for (auto& clause : more_groups_) clause.add(key);
  }
  template <class = void>
  void add_clause(const KeyList& clause) {
    if (groups_.same_keys(clause)) return;
    for (const auto& c : more_groups_) {
      if (c.same_keys(clause)) return;
    }
    more_groups_.push_back(clause);
  }
  template <class = void>
  std::vector<KeyList> clauses() const {
    std::vector<KeyList> out;
    if (groups_.empty()) return out;
    out.push_back(groups_);
    out.insert(out.end(), more_groups_.begin(), more_groups_.end());
    return out;
  }

  bool all_ = false;
  KeyList named_;                     // analyses kept by name
  KeyList groups_;                    // tags: the first clause
  std::vector<KeyList> more_groups_;  // further clauses (after intersect): all must meet
  KeyList abandoned_;
};

using PreservedAnalyses = PreservedAnalysesOf<void>;

// preserves<Ts...>: a pass keeps these analyses and tags.
template <class... Ts>
struct preserves {
  using list = boost::mp11::mp_list<Ts...>;
};

// preserves_all: a pass keeps every analysis.
struct preserves_all {};

namespace detail {

template <class L>
inline constexpr bool is_preserves = false;
template <class... Ts>
inline constexpr bool is_preserves<preserves<Ts...>> = true;
template <>
inline constexpr bool is_preserves<preserves_all> = true;

template <class P>
struct preserves_of {
  using type = preserves<>;
};
template <class P>
  requires requires { typename P::preserves; }
struct preserves_of<P> {
  using type = typename P::preserves;
};

template <class T>
using is_named_analysis = std::bool_constant<Analysis<T>>;

template <class L>
struct preserves_constant;
template <class... Ts>
struct preserves_constant<preserves<Ts...>> {
  using named_list = boost::mp11::mp_copy_if<boost::mp11::mp_list<Ts...>, is_named_analysis>;
  using group_list = boost::mp11::mp_remove_if<boost::mp11::mp_list<Ts...>, is_named_analysis>;
  template <class... Us>
  static constexpr std::array<AnalysisKey, sizeof...(Us)> keys(boost::mp11::mp_list<Us...>) {
    return {analysis_key<Us>...};
  }
  static constexpr auto named = keys(named_list{});
  static constexpr auto groups = keys(group_list{});
  // (PreservedAnalyses spelled dependently, so that the constructor is
  // compiled only with the constant; not std::void_t<Ts...>, which clang
  // reads as void: type_name.hpp.)
  static constexpr PreservedAnalysesOf<dependent_t<void, preserves<Ts...>>> value{
      false, std::span<const AnalysisKey>(named), std::span<const AnalysisKey>(groups)};
};
template <class L>
  requires std::is_same_v<L, preserves_all>  // (a partial specialization: instantiated only when used)
struct preserves_constant<L> {
  static constexpr PreservedAnalysesOf<dependent_t<void, L>> value{true, {}, {}};
};

}  // namespace detail

// preserves_t<P>: what P declares (preserves<> when it declares nothing).
template <class P>
using preserves_t = typename detail::preserves_of<std::remove_cvref_t<P>>::type;

// DeclaresValidPreserves<P>: no `preserves`, or preserves<...> / preserves_all.
template <class P>
concept HasValidPreserves = detail::is_preserves<preserves_t<P>>;

// declares_preserves_all<P>: P keeps every analysis (nothing to invalidate).
template <class P>
inline constexpr bool declares_preserves_all = std::is_same_v<preserves_t<P>, preserves_all>;

// declares_preserves_nothing<P>: P declares nothing (or preserves<>).
template <class P>
inline constexpr bool declares_preserves_nothing = std::is_same_v<preserves_t<P>, preserves<>>;

// preserved_analyses_of<P>: P's declaration, a constant.
template <class P>
inline constexpr const PreservedAnalyses& preserved_analyses_of = detail::preserves_constant<preserves_t<P>>::value;

}  // namespace passinfra
