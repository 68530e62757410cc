// passinfra/dynamic/dynamic_nest.hpp — a nest whose unit pipeline is chosen at run time (SPEC §11).
//
// DynamicNest<Parent, Unit>(passes[, PassInfo][, NestOptions])   AnyPass<Unit>s run on each unit
//                                     of a Parent; the PassInfo and NestOptions may be left out
// DynamicNest<Parent, Unit>{p1, p2, ...}                         the same from a list
// dn.info()                           {ir_traits<Unit>::name (else "nest"), 0} unless given
// dn.options()                        NestOptions{serial}
// dn.passes() / dn.push_back(p)       the unit pipeline
// dn.nesting_depth()                  1 + the deepest child's (see any_pass.hpp)
// dn(parent, ctx) / dn(parent)        run through run(), under ctx / current()
// AnyPass<Parent>(dn)                 nests in DynamicSequential and in static Sequential
//
// It runs exactly as the static Nest<Unit, Ps...> (core/nest.hpp): the same
// code (detail::NestRun) over its children, which are gated, run with their
// required passes and instrumented as a DynamicSequential<Unit>'s, at unit
// level: the same events in the same order, the same gate, serial and
// parallel modes on the context's executor, failures and ordered output.
// Each child's body runs under a ContextRef<Unit> of the unit's context:
// ctx.parent() is the nest's parent snapshot (SPEC §11.2), ctx.unit_name()
// and the rest as UnitContext's. Under a ContextRef<Parent> (inside a
// DynamicSequential) the unit-level hooks reach the wrapped context's
// instruments through it (ir_traits<Parent>::unit_types lists Unit).
// Directly under a PassContext<Parent> that lists no pass names and holds
// no analysis manager, a unit's children run as a DynamicSequential's under
// a list of one instrument (dynamic_sequential.hpp, solo_loop.hpp): that
// instrument's unit-level hooks called directly, the same events.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "passinfra/core/nest.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/dynamic/any_pass.hpp"
#include "passinfra/dynamic/dynamic_sequential.hpp"

namespace passinfra {

template <class Parent, class Unit>
class DynamicNest : public CallablePass<DynamicNest<Parent, Unit>> {
  static_assert(NestableIR<Parent, Unit>,
                "passinfra::DynamicNest<Parent, Unit>: the parent IR cannot be split into these units; specialize "
                "passinfra::unit_traits<Parent, Unit> with static std::vector<UnitSlot<Unit>> units(const Parent&) "
                "and static Parent replace_units(Parent, std::vector<UnitSlot<Unit>>)");

 public:
  using parent_type = Parent;
  using unit_type = Unit;
  // The nest invalidates for its units itself (SPEC §11.13); as a pass it preserves everything.
  using preserves = passinfra::preserves_all;
  static constexpr PassInfo default_info{unit_kind_name<Unit>(), 0};

  DynamicNest() = default;
  DynamicNest(std::initializer_list<AnyPass<Unit>> passes) : children_(std::vector<AnyPass<Unit>>(passes)) {}
  explicit DynamicNest(std::vector<AnyPass<Unit>> passes, PassInfo info = default_info, NestOptions options = {})
      : children_(std::move(passes)), name_(info.name), opt_level_(info.opt_level), options_(options) {}
  DynamicNest(std::vector<AnyPass<Unit>> passes, NestOptions options)
      : DynamicNest(std::move(passes), default_info, options) {}

  PassInfo info() const noexcept { return {name_, opt_level_}; }
  NestOptions options() const noexcept { return options_; }
  const std::vector<AnyPass<Unit>>& passes() const noexcept { return children_.passes(); }
  void push_back(AnyPass<Unit> pass) { children_.push_back(std::move(pass)); }
  std::size_t nesting_depth() const noexcept { return children_.nesting_depth(); }

  template <class Ctx>
  Parent transform(Parent parent, Ctx& ctx) const {
    return detail::NestRun<Unit>::transform(info(), options_, children_, std::move(parent), ctx);
  }

 private:
  DynamicSequential<Unit> children_;
  std::string name_{default_info.name};
  int opt_level_ = default_info.opt_level;
  NestOptions options_{};
};

}  // namespace passinfra
