// tinyir/transforms/fold_constant.hpp — FoldConstant: evaluate operators whose
// operands are constants with data.
//
// fold_constant(mod)                 every function folded
// fold_constant(fn, mod)             one function (function-pass shape)
// fold_constant(fn, mod, &folded)    the same, adding the number of calls folded to `folded`
// fold_constant(expr)                one expression
// is_foldable_op(name)               the operators fold_constant evaluates
// evaluate_op(call, args, out_type)  the data of one operator call on constant data, or nullopt
//
// Evaluated: add, subtract, multiply, divide (numpy broadcasting), clip, nn.relu,
// expand_dims, reshape, nn.batch_flatten, layout_transform. A call is folded when
// every argument is a Constant carrying data (after folding the arguments); the
// result is a Constant with data and the call's span. Constants without data
// (shape-only parameters) are left alone, as are calls that do not type-check
// (InferType reports those), integer divisions by zero and Primitive functions.
// `(a, b).1` folds to `b`, as in Relay. A call whose result would hold more than
// kMaxFoldedValues (16M) values and more than its arguments together is left
// alone too (a broadcast of two vectors into a huge matrix): memory follows the
// program's size.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tinyir/ir.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

// is_foldable_op(name)
inline bool is_foldable_op(std::string_view op) {
  for (std::string_view f : {"add", "subtract", "multiply", "divide", "clip", "nn.relu", "expand_dims", "reshape",
                             "nn.batch_flatten", "layout_transform"})
    if (op == f) return true;
  return false;
}

namespace detail {

// Row-major strides of `shape` aligned to an output of rank `rank` (0 where the
// input is broadcast).
inline std::vector<std::int64_t> broadcast_strides(const std::vector<std::int64_t>& shape,
                                                   const std::vector<std::int64_t>& out) {
  const std::size_t rank = out.size();
  std::vector<std::int64_t> strides(rank, 0);
  std::int64_t s = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const std::size_t i = shape.size() - 1 - k;
    const std::size_t o = rank - 1 - k;
    strides[o] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  return strides;
}

template <class F>
std::optional<std::vector<float>> broadcast_binary(const ConstantNode& a, const ConstantNode& b, const TensorType& out,
                                                   F f) {
  const auto n = static_cast<std::size_t>(num_elements(out));
  std::vector<float> result(n);
  const auto& da = *a.data;
  const auto& db = *b.data;
  if (a.tensor_type().shape == out.shape && b.tensor_type().shape == out.shape) {
    for (std::size_t i = 0; i < n; ++i) result[i] = f(da[i], db[i]);
    return result;
  }
  const auto sa = broadcast_strides(a.tensor_type().shape, out.shape);
  const auto sb = broadcast_strides(b.tensor_type().shape, out.shape);
  std::vector<std::int64_t> idx(out.shape.size(), 0);
  std::int64_t oa = 0, ob = 0;
  for (std::size_t i = 0; i < n; ++i) {
    result[i] = f(da[static_cast<std::size_t>(oa)], db[static_cast<std::size_t>(ob)]);
    for (std::size_t k = out.shape.size(); k-- > 0;) {  // odometer increment
      ++idx[k];
      oa += sa[k];
      ob += sb[k];
      if (idx[k] < out.shape[k]) break;
      oa -= sa[k] * idx[k];
      ob -= sb[k] * idx[k];
      idx[k] = 0;
    }
  }
  return result;
}

inline std::vector<float> transpose_data(const std::vector<float>& in, const std::vector<std::int64_t>& in_shape,
                                         const std::string& src, const std::string& dst) {
  const std::size_t rank = in_shape.size();
  std::vector<std::int64_t> in_strides(rank, 1);
  for (std::size_t k = rank; k-- > 1;) in_strides[k - 1] = in_strides[k] * in_shape[k];
  std::vector<std::int64_t> out_shape(rank), stride_of_out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::size_t from = src.find(dst[i]);
    out_shape[i] = in_shape[from];
    stride_of_out[i] = in_strides[from];
  }
  std::vector<float> out(in.size());
  std::vector<std::int64_t> idx(rank, 0);
  std::int64_t off = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = in[static_cast<std::size_t>(off)];
    for (std::size_t k = rank; k-- > 0;) {
      ++idx[k];
      off += stride_of_out[k];
      if (idx[k] < out_shape[k]) break;
      off -= stride_of_out[k] * idx[k];
      idx[k] = 0;
    }
  }
  return out;
}

}  // namespace detail

// evaluate_op(call, args, out): the result data of `call` applied to constant `args`
// (all with data) given the call's result type `out`; nullopt if the operator is
// not evaluated here or the result is undefined (integer division by zero).
inline std::optional<std::vector<float>> evaluate_op(const CallNode& call, const std::vector<const ConstantNode*>& args,
                                                     const TensorType& out) {
  const std::string& op = call.op;
  const bool integer = is_integer_dtype(out.dtype);
  auto fix = [integer](float v) { return integer ? std::trunc(v) : v; };
  if (op == "add")
    return detail::broadcast_binary(*args[0], *args[1], out, [&](float a, float b) { return fix(a + b); });
  if (op == "subtract")
    return detail::broadcast_binary(*args[0], *args[1], out, [&](float a, float b) { return fix(a - b); });
  if (op == "multiply")
    return detail::broadcast_binary(*args[0], *args[1], out, [&](float a, float b) { return fix(a * b); });
  if (op == "divide") {
    if (integer && std::any_of(args[1]->data->begin(), args[1]->data->end(), [](float v) { return v == 0.0f; }))
      return std::nullopt;
    return detail::broadcast_binary(*args[0], *args[1], out, [&](float a, float b) { return fix(a / b); });
  }
  if (op == "clip") {
    const float lo = static_cast<float>(call.attrs.find("a_min")->as_double());
    const float hi = static_cast<float>(call.attrs.find("a_max")->as_double());
    std::vector<float> r = *args[0]->data;
    for (float& v : r) v = std::min(std::max(v, lo), hi);
    return r;
  }
  if (op == "nn.relu") {
    std::vector<float> r = *args[0]->data;
    for (float& v : r) v = std::max(v, 0.0f);
    return r;
  }
  if (op == "expand_dims" || op == "reshape" || op == "nn.batch_flatten") return *args[0]->data;
  if (op == "layout_transform")
    return detail::transpose_data(*args[0]->data, args[0]->tensor_type().shape,
                                  call.attrs.find("src_layout")->as_string(),
                                  call.attrs.find("dst_layout")->as_string());
  return std::nullopt;
}

// The largest result (in values) a fold may build beyond the size of its arguments.
inline constexpr std::int64_t kMaxFoldedValues = std::int64_t{1} << 24;

namespace detail {

class ConstantFolder : public ExprMutator {
 public:
  std::uint64_t folded = 0;  // calls replaced by a constant

 protected:
  Expr visit_call(const Call& c) override {
    Expr e = ExprMutator::visit_call(c);
    const auto* call = e->as<CallNode>();
    if (!call || !call->is_op() || !is_foldable_op(call->op)) return e;
    std::vector<const ConstantNode*> args;
    std::vector<Type> types;
    std::int64_t inputs = 0;
    for (const auto& a : call->args) {
      const auto* k = a->as<ConstantNode>();
      if (!k || !k->data) return e;
      args.push_back(k);
      types.push_back(k->type);
      inputs += static_cast<std::int64_t>(k->data->size());
    }
    Type out;
    try {
      out = infer_op_type(*call, types);
    } catch (const TypeError&) {
      return e;  // left for InferType to report
    }
    if (num_elements(*as_tensor(out)) > std::max(kMaxFoldedValues, inputs)) return e;
    auto data = evaluate_op(*call, args, *as_tensor(out));
    if (!data) return e;
    ++folded;
    return make_constant(out, std::move(data), call->span);
  }

  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    Expr e = ExprMutator::visit_tuple_get_item(t);
    const auto* g = e->as<TupleGetItemNode>();
    if (const auto* tuple = g ? g->tuple->as<TupleNode>() : nullptr;
        tuple && g->index >= 0 && static_cast<std::size_t>(g->index) < tuple->fields.size())
      return tuple->fields[static_cast<std::size_t>(g->index)];
    return e;
  }

  Expr visit_function(const Function& f) override {
    if (f->is_primitive()) return f;
    return ExprMutator::visit_function(f);
  }
};

}  // namespace detail

// fold_constant(expr)
inline Expr fold_constant(const Expr& e) { return detail::ConstantFolder().mutate(e); }

// fold_constant(fn, mod, folded): adds the number of calls folded to *folded (FoldConstant's statistic).
inline Function fold_constant(const Function& fn, const Module& /*mod*/, std::uint64_t* folded = nullptr) {
  detail::ConstantFolder folder;
  Function out = folder.mutate_function(fn);
  if (folded != nullptr) *folded += folder.folded;
  return out;
}

// fold_constant(mod)
inline Module fold_constant(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return fold_constant(fn, m); });
}

}  // namespace tinyir
