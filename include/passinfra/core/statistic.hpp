// passinfra/core/statistic.hpp — pass-defined statistics counters (SPEC §13).
//
// Statistic{name, description}        a counter a pass declares as a data member
//   ++s / s += n                      const noexcept: one relaxed atomic add (the pass body is const)
//   s.value() / s.reset()             read (relaxed) / set to 0
//   s.name() / s.description()
// StatisticList                       std::vector<const Statistic*>: what `statistics() const` returns
// StatisticGroup                      counters registered at run time (group.get(name, description),
//                                     under a lock; stable addresses), group.list()
// HasStatistics<P>                    P has `statistics() const` convertible to StatisticList
// StatisticsVisitor                   what detail::visit_statistics reports each pass instance to
//
// Statistics are always compiled in: no macro, no build flag (a layout that
// depends on a build mode is an ODR violation waiting to happen in a
// header-only library). An increment is one relaxed atomic add: no call, no
// branch, no registration, no global list, no hook. A pass counts locally and
// adds once per run. A pass without statistics has no statistics code at all;
// only collect_statistics (dynamic/statistics_report.hpp) walks a pipeline to
// read them, when a tool asks for them.
//
// Copying a Statistic copies its value (a copied pass starts from the
// counts of the original); AnyPass copies share the pass, so its counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/detail/atomic.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra {

class Statistic {
 public:
  Statistic(std::string_view name, std::string_view description) : name_(name), description_(description) {}
  Statistic(const Statistic& other) : name_(other.name_), description_(other.description_), value_(other.value()) {}
  Statistic& operator=(const Statistic& other) {
    if (this != &other) {
      name_ = other.name_;
      description_ = other.description_;
      value_.store(other.value(), detail::MemoryOrder::relaxed);
    }
    return *this;
  }
  ~Statistic() = default;

  // ++s, s += n: relaxed atomic adds; const, so a const pass body can count.
  const Statistic& operator++() const noexcept {
    value_.fetch_add(1, detail::MemoryOrder::relaxed);
    return *this;
  }
  const Statistic& operator+=(std::uint64_t n) const noexcept {
    value_.fetch_add(n, detail::MemoryOrder::relaxed);
    return *this;
  }

  std::uint64_t value() const noexcept { return value_.load(detail::MemoryOrder::relaxed); }
  void reset() const noexcept { value_.store(0, detail::MemoryOrder::relaxed); }
  std::string_view name() const noexcept { return name_; }
  std::string_view description() const noexcept { return description_; }

 private:
  std::string name_;
  std::string description_;
  mutable detail::Atomic<std::uint64_t> value_{0};
};

// StatisticList: a pass's counters, in the order it lists them.
using StatisticList = std::vector<const Statistic*>;

// StatisticGroup: counters registered while a pass runs (names known only
// then). get() takes a lock: call it once per run, then count on the result.
// It is the one specialization of a class template (issue 18): a class
// template's members are compiled only where they are used, so including
// this header (every user of passinfra/dynamic.hpp does) compiles none of
// the counter storage and lock code (its std types are spelled dependently: see
// dependent_t).
namespace detail {
template <class T = void>
class StatisticGroupOf {
 public:
  StatisticGroupOf() = default;
  StatisticGroupOf(const StatisticGroupOf& other) : stats_(other.copy()) {}
  StatisticGroupOf& operator=(const StatisticGroupOf& other) {
    if (this != &other) {
      auto copied = other.copy();
      detail::LightLock lock(mutex_);
      stats_ = std::move(copied);
    }
    return *this;
  }
  ~StatisticGroupOf() = default;

  // get(name, description): the counter registered under `name` (the first
  // description is kept), registering it if it is new.
  const Statistic& get(std::string_view name, std::string_view description) const {
    detail::LightLock lock(mutex_);
    for (const auto& chunk : stats_) {
      for (const auto& s : chunk) {
        if (s.name() == name) return s;
      }
    }
    if (stats_.empty() || stats_.back().size() == stats_.back().capacity()) {
      // A new chunk, twice the last one's size (an empty one left by a
      // failed registration is reused).
      dependent_t<std::vector<Statistic>, T> chunk;
      chunk.reserve(stats_.empty() ? 4 : 2 * stats_.back().capacity());
      stats_.push_back(std::move(chunk));
    }
    return stats_.back().emplace_back(name, description);
  }

  // list(): the counters in registration order.
  dependent_t<StatisticList, T> list() const {
    detail::LightLock lock(mutex_);
    std::size_t count = 0;
    for (const auto& chunk : stats_) count += chunk.size();
    dependent_t<StatisticList, T> out;
    out.reserve(count);
    for (const auto& chunk : stats_) {
      for (const auto& s : chunk) out.push_back(&s);
    }
    return out;
  }

 private:
  // Chunks appended to only while they have room (never reallocated), so the
  // counters never move: get()'s results stay valid. (Not a std::deque:
  // <deque> was issue 18's cost for this one cold member.)
  using Stats = dependent_t<std::vector<std::vector<Statistic>>, T>;

  Stats copy() const {
    detail::LightLock lock(mutex_);
    return stats_;
  }

  mutable detail::LightMutex mutex_;
  mutable Stats stats_;
};
}  // namespace detail

using StatisticGroup = detail::StatisticGroupOf<>;

// HasStatistics<P>: P lists counters with `statistics() const`.
template <class P>
concept HasStatistics = requires(const P& p) {
  { p.statistics() } -> std::convertible_to<StatisticList>;
};

// StatisticsVisitor: receives each pass instance that lists counters.
struct StatisticsVisitor {
  virtual void visit(std::string_view pass, const StatisticList& statistics) = 0;

 protected:
  StatisticsVisitor() = default;
  StatisticsVisitor(const StatisticsVisitor&) = default;
  StatisticsVisitor& operator=(const StatisticsVisitor&) = default;
  ~StatisticsVisitor() = default;
};

namespace detail {

// The pass's name, from its info (static or not).
template <class P>
std::string_view statistics_pass_name(const P& pass) {
  if constexpr (requires { pass.info().name; }) {
    return std::string_view(pass.info().name);
  } else if constexpr (requires { P::info.name; }) {
    return std::string_view(P::info.name);
  } else {
    return "(unnamed pass)";
  }
}

// visit_statistics(pass, visitor): the pass's own counters (if it lists
// any), then what it holds, in pipeline order: an erased pass through its
// own visit_statistics (AnyPass), a wrapped pass (`pass()`, RegistryPass),
// children (`for_each_child` for Sequential and Nest, else `passes()`: a
// tuple, or a range for DynamicSequential).
template <class P>
void visit_statistics(const P& pass, StatisticsVisitor& visitor) {
  if constexpr (requires { pass.visit_statistics(visitor); }) {
    pass.visit_statistics(visitor);
  } else {
    if constexpr (HasStatistics<P>) {
      const dependent_t<StatisticList, P> list = pass.statistics();
      if (!list.empty()) visitor.visit(statistics_pass_name(pass), list);
    }
    if constexpr (requires { pass.pass(); }) {
      visit_statistics(pass.pass(), visitor);
    }
    if constexpr (requires { pass.for_each_child([](const auto&) {}); }) {
      pass.for_each_child([&](const auto& child) { visit_statistics(child, visitor); });
    } else if constexpr (requires { std::tuple_size<std::remove_cvref_t<decltype(pass.passes())>>::value; }) {
      std::apply([&](const auto&... child) { (visit_statistics(child, visitor), ...); }, pass.passes());
    } else if constexpr (requires { pass.passes().begin(); }) {
      for (const auto& child : pass.passes()) visit_statistics(child, visitor);
    }
  }
}

}  // namespace detail

}  // namespace passinfra
