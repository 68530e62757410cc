// passinfra/dynamic/any_analysis.hpp — analyses and results erased into values (SPEC §10.9).
//
// AnyAnalysis<IR>(a)               an analysis object of a static analysis type A, shared
//                                  (copies share it); what PassRegistry<IR>::add_analysis and
//                                  am.add(AnyAnalysis<IR>) take
//   any.name() / key() / is_function() / result_type()
// AnyResult                        a cached result seen without its type (what am.get(name, ir),
//                                  for_each_cached and recompute give):
//   r.get<T>() (passinfra::Error on another type) / target<T>() (pointer or null) / info()
//   r.equals(other) -> std::optional<bool> (nullopt: the type has no ==) / has_value() / type_name()
//
// Including this header also enables the run-time table for analyses not
// listed in a manager's analyses<...> (DESIGN, Settled questions): before
// it, asking a static-only manager for one fails to compile.
//
// The erased analysis computes through the same typed code as get<A>: a
// static analysis is the same cache entry whether reached by type, by name
// or through a ContextRef. The manager computes with its own copy of the
// object (am.add copies it).
#pragma once

#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra {

namespace detail {
template <class IR>
struct RunTimeTable {
  static constexpr bool enabled = true;
};
}  // namespace detail

// AnyResult: a result of some analysis, its type erased.
using AnyResult = detail::ErasedResult;

template <class IR>
class AnyAnalysis {
 public:
  using ir_type = IR;

  template <class A>
    requires(!std::is_same_v<A, AnyAnalysis> && Analysis<A>)
  explicit AnyAnalysis(A analysis)
      : object_(std::make_shared<const A>(std::move(analysis))), ops_(&detail::Typed<IR, A>::ops) {
    static_assert(detail::check_analysis<A, IR>() && detail::check_acyclic<A>());
  }

  std::string_view name() const noexcept { return ops_->name; }
  AnalysisKey key() const noexcept { return ops_->key; }
  bool is_function() const noexcept { return ops_->function; }
  std::string_view result_type() const noexcept { return ops_->result_type; }

  // For AnalysisManager::add.
  const detail::AnalysisOps<IR>* ops() const noexcept { return ops_; }
  const void* object() const noexcept { return object_.get(); }

 private:
  detail::dependent_t<std::shared_ptr<const void>, IR> object_;
  const detail::AnalysisOps<IR>* ops_;
};

}  // namespace passinfra
