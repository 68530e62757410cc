// tinyir/builders.hpp — one function per operator, Relay's Python API in C++.
//
// op::add(a, b), op::subtract, op::multiply, op::divide
// op::clip(x, a_min, a_max)
// op::conv2d(data, weight, attrs)                   strides, padding, dilation, groups, channels,
//                                                   kernel_size, data_layout, kernel_layout, out_layout, out_dtype
// op::batch_norm(data, gamma, beta, mean, var, attrs)  a 3-tuple; axis, epsilon, center, scale
// op::relu(x)
// op::max_pool2d(x, attrs)                          pool_size, strides, dilation, padding, layout, ceil_mode
// op::global_avg_pool2d(x, attrs)                   layout
// op::batch_flatten(x)
// op::dense(x, weight, attrs)                       units, out_dtype
// op::bias_add(x, bias, axis)
// op::softmax(x, axis)
// op::expand_dims(x, axis, num_newaxis)
// op::layout_transform(x, src_layout, dst_layout)
// op::reshape(x, newshape)
#pragma once

#include <string>

#include "tinyir/expr.hpp"

namespace tinyir::op {

inline Call add(Expr a, Expr b) { return make_call("add", {std::move(a), std::move(b)}); }
inline Call subtract(Expr a, Expr b) { return make_call("subtract", {std::move(a), std::move(b)}); }
inline Call multiply(Expr a, Expr b) { return make_call("multiply", {std::move(a), std::move(b)}); }
inline Call divide(Expr a, Expr b) { return make_call("divide", {std::move(a), std::move(b)}); }

inline Call clip(Expr x, double a_min, double a_max) {
  return make_call("clip", {std::move(x)}, {{"a_min", a_min}, {"a_max", a_max}});
}

inline Call conv2d(Expr data, Expr weight, const Attrs& attrs = {}) {
  return make_call("nn.conv2d", {std::move(data), std::move(weight)}, attrs);
}

inline Call batch_norm(Expr data, Expr gamma, Expr beta, Expr moving_mean, Expr moving_var, const Attrs& attrs = {}) {
  return make_call("nn.batch_norm",
                   {std::move(data), std::move(gamma), std::move(beta), std::move(moving_mean), std::move(moving_var)},
                   attrs);
}

inline Call relu(Expr x) { return make_call("nn.relu", {std::move(x)}); }

inline Call max_pool2d(Expr x, const Attrs& attrs = {}) { return make_call("nn.max_pool2d", {std::move(x)}, attrs); }

inline Call global_avg_pool2d(Expr x, const Attrs& attrs = {}) {
  return make_call("nn.global_avg_pool2d", {std::move(x)}, attrs);
}

inline Call batch_flatten(Expr x) { return make_call("nn.batch_flatten", {std::move(x)}); }

inline Call dense(Expr x, Expr weight, const Attrs& attrs = {}) {
  return make_call("nn.dense", {std::move(x), std::move(weight)}, attrs);
}

inline Call bias_add(Expr x, Expr bias, int axis = 1) {
  return make_call("nn.bias_add", {std::move(x), std::move(bias)}, {{"axis", axis}});
}

inline Call softmax(Expr x, int axis = -1) { return make_call("nn.softmax", {std::move(x)}, {{"axis", axis}}); }

inline Call expand_dims(Expr x, int axis, int num_newaxis = 1) {
  return make_call("expand_dims", {std::move(x)}, {{"axis", axis}, {"num_newaxis", num_newaxis}});
}

inline Call layout_transform(Expr x, std::string src_layout, std::string dst_layout) {
  return make_call("layout_transform", {std::move(x)},
                   {{"src_layout", std::move(src_layout)}, {"dst_layout", std::move(dst_layout)}});
}

inline Call reshape(Expr x, Ints newshape) {
  return make_call("reshape", {std::move(x)}, {{"newshape", std::move(newshape)}});
}

}  // namespace tinyir::op
