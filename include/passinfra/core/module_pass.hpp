// passinfra/core/module_pass.hpp — passes made from callables (SPEC §4).
//
// module_pass(info, f [, requires_passes<Rs...>{}])     f(IR, ctx&) -> IR, or f(IR) -> IR
// function_pass(info, f [, requires_passes<Rs...>{}])   f(Fn, const IR&, ctx&) -> Fn, or f(Fn, const IR&) -> Fn
// ModulePass<F, Required> / FunctionPass<F, Required>   the types they return
//
// `info` is a PassInfo view: its name must outlive the pass (a string
// literal does). A function pass maps the IR's functions through
// ir_traits<IR>::map_functions (the IR decides which functions qualify) and
// then runs ir_traits<IR>::function_pass_follow_up, if the IR names one, as an
// ordinary nested, instrumented pass: Relay's trailing InferType.
#pragma once

#include <concepts>
#include <utility>

#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/run.hpp"

namespace passinfra {

template <class F, class Required = requires_passes<>>
class ModulePass : public CallablePass<ModulePass<F, Required>> {
 public:
  using required = Required;

  constexpr ModulePass(PassInfo info, F f) : info_(info), f_(std::move(f)) {}

  constexpr PassInfo info() const noexcept { return info_; }

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (std::invocable<const F&, IR, Ctx&>) {
      return f_(std::move(ir), ctx);
    } else {
      static_assert(std::invocable<const F&, IR>,
                    "passinfra::module_pass(info, f): f must be callable as f(IR, ctx&) or f(IR), returning the IR");
      return f_(std::move(ir));
    }
  }

 private:
  PassInfo info_;
  F f_;
};

template <class F, class Required = requires_passes<>>
class FunctionPass : public CallablePass<FunctionPass<F, Required>> {
 public:
  using required = Required;

  constexpr FunctionPass(PassInfo info, F f) : info_(info), f_(std::move(f)) {}

  constexpr PassInfo info() const noexcept { return info_; }

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (!FunctionIterableIR<IR>) {
      static_assert(FunctionIterableIR<IR>,
                    "passinfra::function_pass(info, f): the IR has no functions to map: specialize "
                    "passinfra::ir_traits<IR> with `using function_type = ...;` and "
                    "`static IR map_functions(IR, F)` (see passinfra/core/ir_traits.hpp)");
      return ir;
    } else {
      using Fn = typename ir_traits<IR>::function_type;
      IR out = ir_traits<IR>::map_functions(std::move(ir), [&](Fn fn, const IR& module) -> Fn {
        if constexpr (std::invocable<const F&, Fn, const IR&, Ctx&>) {
          return f_(std::move(fn), module, ctx);
        } else {
          static_assert(std::invocable<const F&, Fn, const IR&>,
                        "passinfra::function_pass(info, f): f must be callable as f(Function, const IR&, ctx&) or "
                        "f(Function, const IR&), returning the Function");
          return f_(std::move(fn), module);
        }
      });
      if constexpr (HasFunctionPassFollowUp<IR>) {
        out = run(typename ir_traits<IR>::function_pass_follow_up{}, std::move(out), ctx);
      }
      return out;
    }
  }

 private:
  PassInfo info_;
  F f_;
};

// module_pass(info, f): a module-level pass from a callable.
template <class F>
constexpr ModulePass<F> module_pass(PassInfo info, F f) {
  return ModulePass<F>(info, std::move(f));
}
template <class F, class... Rs>
constexpr ModulePass<F, requires_passes<Rs...>> module_pass(PassInfo info, F f, requires_passes<Rs...>) {
  return ModulePass<F, requires_passes<Rs...>>(info, std::move(f));
}

// function_pass(info, f): a function-level pass from a callable.
template <class F>
constexpr FunctionPass<F> function_pass(PassInfo info, F f) {
  return FunctionPass<F>(info, std::move(f));
}
template <class F, class... Rs>
constexpr FunctionPass<F, requires_passes<Rs...>> function_pass(PassInfo info, F f, requires_passes<Rs...>) {
  return FunctionPass<F, requires_passes<Rs...>>(info, std::move(f));
}

}  // namespace passinfra
