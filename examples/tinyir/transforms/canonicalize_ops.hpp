// tinyir/transforms/canonicalize_ops.hpp — CanonicalizeOps: rewrite operators into
// simpler ones.
//
// canonicalize_ops(mod)              every function
// canonicalize_ops(fn, mod)          one function (function-pass shape)
//
// nn.bias_add(x, b, axis) becomes add(x, expand_dims(b, axis=1, num_newaxis=k)) with
// k = rank(x) - axis - 1 (for NCHW data and axis 1: k = 2, so b of shape (C) becomes
// (C, 1, 1) and broadcasts); with k = 0 it is add(x, b). Types are inferred first.
#pragma once

#include "tinyir/ir.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

namespace detail {

class OpCanonicalizer : public ExprMutator {
 protected:
  Expr visit_call(const Call& c) override {
    Expr e = ExprMutator::visit_call(c);
    const auto* call = e->as<CallNode>();
    if (!call || !call->is_op() || call->op != "nn.bias_add" || call->args.size() != 2) return e;
    const TensorType* data = as_tensor(c->args[0]->checked_type());
    if (!data) return e;
    const auto rank = static_cast<std::int64_t>(data->shape.size());
    const AttrValue* a = call->attrs.find("axis");
    std::int64_t axis = a ? a->as_int() : 1;
    if (axis < 0) axis += rank;
    const std::int64_t num_newaxis = rank - axis - 1;
    Expr bias = call->args[1];
    if (num_newaxis > 0)
      bias = make_call("expand_dims", {bias}, {{"axis", 1}, {"num_newaxis", num_newaxis}}, call->span);
    return make_call("add", {call->args[0], bias}, {}, call->span);
  }
};

}  // namespace detail

// canonicalize_ops(fn, mod)
inline Function canonicalize_ops(const Function& fn, const Module& /*mod*/) {
  infer_type(fn);
  return detail::OpCanonicalizer().mutate_function(fn);
}

// canonicalize_ops(mod)
inline Module canonicalize_ops(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return canonicalize_ops(fn, m); });
}

}  // namespace tinyir
