// tinyir/transforms/multiply_constants.hpp — the tutorial's custom function pass:
// every constant c becomes multiply(factor, c).
//
// multiply_constants(fn, factor)     one function (wrap as a function pass)
// multiply_constants(mod, factor)    every function
//
// As in "How to Use TVM Pass Infra" (ReplaceConstant: visit_constant returns
// relay.multiply(multiplier, c)): the data is not touched; each constant node is
// wrapped once (a shared constant gives one shared multiply) and the factor is one
// float32 scalar constant shared by all of them.
#pragma once

#include "tinyir/ir.hpp"

namespace tinyir {

namespace detail {

class ConstantMultiplier : public ExprMutator {
 public:
  explicit ConstantMultiplier(float factor) : factor_(make_scalar(factor)) {}

 protected:
  Expr visit_constant(const Constant& c) override { return make_call("multiply", {factor_, c}, {}, c->span); }

 private:
  Constant factor_;
};

}  // namespace detail

// multiply_constants(fn, factor)
inline Function multiply_constants(const Function& fn, float factor) {
  return detail::ConstantMultiplier(factor).mutate_function(fn);
}

// multiply_constants(mod, factor)
inline Module multiply_constants(const Module& mod, float factor) {
  return map_functions(mod, [factor](const Function& fn, const Module&) { return multiply_constants(fn, factor); });
}

}  // namespace tinyir
