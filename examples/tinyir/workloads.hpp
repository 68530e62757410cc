// tinyir/workloads.hpp — the programs of the TVM tutorials, built in C++.
//
// example()                  "How to Use TVM Pass Infra"'s example(): conv2d plus constant
//                            adds and multiplies with a repeated subexpression
// clip_example()             clip(%x, a_min=-inf, a_max=inf), the AnnotateSpans notebook's module
// resnet18(bind_params)      ResNet-18 as relay.testing.resnet builds it (batch 1, 3×224×224,
//                            NCHW); with bind_params the weights are shape-only constants
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "tinyir/ir.hpp"

namespace tinyir {

// example(): the pass-infra tutorial's program; the constant c has data (zeros), so
// FoldConstant folds add(c, c) and the multiply by 2.
//
//   def example():
//       shape = (1, 64, 54, 54)
//       c_data = np.empty(shape).astype("float32")
//       c = relay.const(c_data)
//       weight = relay.var("weight", shape=(64, 64, 3, 3))
//       x = relay.var("x", relay.TensorType((1, 64, 56, 56), "float32"))
//       conv = relay.nn.conv2d(x, weight)
//       y = relay.add(c, c)
//       y = relay.multiply(y, relay.const(2, "float32"))
//       y = relay.add(conv, y)
//       z = relay.add(y, c)
//       z1 = relay.add(y, c)
//       z2 = relay.add(z, z1)
//       return relay.Function([x, weight], z2)
inline Module example() {
  const std::vector<std::int64_t> shape{1, 64, 54, 54};
  Constant c = make_constant(tensor_type(shape), std::vector<float>(std::size_t{1} * 64 * 54 * 54, 0.0f));
  Var weight = make_var("weight", tensor_type({64, 64, 3, 3}));
  Var x = make_var("x", tensor_type({1, 64, 56, 56}));
  Expr conv = op::conv2d(x, weight);
  Expr y = op::add(c, c);
  y = op::multiply(y, make_scalar(2.0f));
  y = op::add(conv, y);
  Expr z = op::add(y, c);
  Expr z1 = op::add(y, c);
  Expr z2 = op::add(z, z1);
  return Module{{"main", make_function({x, weight}, z2)}};
}

// clip_example(): def @main(%x: Tensor[(1, 64, 56, 56), float32]) { clip(%x, a_min=-inff, a_max=inff) }
inline Module clip_example() {
  Var x = make_var("x", tensor_type({1, 64, 56, 56}));
  const double inf = std::numeric_limits<double>::infinity();
  return Module{{"main", make_function({x}, op::clip(x, -inf, inf))}};
}

namespace detail {

// Builds ResNet-18 the way relay.testing.resnet does; parameters are created in
// first-use order, as relay.analysis.free_vars lists them.
class ResNetBuilder {
 public:
  explicit ResNetBuilder(bool bind) : bind_(bind) {}

  Module build() {
    const std::vector<int> filters{64, 64, 128, 256, 512};
    const std::vector<int> units{2, 2, 2, 2};
    Var data = make_var("data", tensor_type({1, 3, 224, 224}));
    params_.push_back(data);
    Expr body = batch_norm(data, 3, "bn_data", /*scale=*/false);
    body = conv(body, filters[0], 3, 7, 2, 3, "conv0");
    body = batch_norm(body, filters[0], "bn0");
    body = op::relu(body);
    body = op::max_pool2d(body, {{"pool_size", {3, 3}}, {"strides", {2, 2}}, {"padding", {1, 1}}});
    int in_channels = filters[0];
    for (std::size_t i = 0; i < units.size(); ++i) {
      const int stride = i == 0 ? 1 : 2;
      const std::string stage = "stage" + std::to_string(i + 1);
      body = residual_unit(body, in_channels, filters[i + 1], stride, false, stage + "_unit1");
      in_channels = filters[i + 1];
      for (int j = 1; j < units[i]; ++j)
        body = residual_unit(body, in_channels, filters[i + 1], 1, true, stage + "_unit" + std::to_string(j + 1));
    }
    body = batch_norm(body, in_channels, "bn1");
    body = op::relu(body);
    body = op::global_avg_pool2d(body);
    body = op::batch_flatten(body);
    Expr w = param("fc1_weight", {1000, in_channels});
    body = op::dense(body, w, {{"units", 1000}});
    Expr b = param("fc1_bias", {1000});
    body = op::bias_add(body, b, -1);
    body = op::softmax(body);
    return Module{{"main", make_function(params_, body)}};
  }

 private:
  Expr param(const std::string& name, std::vector<std::int64_t> shape) {
    if (bind_) return make_constant(tensor_type(std::move(shape)));
    Var v = make_var(name, tensor_type(std::move(shape)));
    params_.push_back(v);
    return v;
  }

  // layers.batch_norm_infer(...)[0]
  Expr batch_norm(const Expr& x, std::int64_t channels, const std::string& name, bool scale = true) {
    Expr gamma = param(name + "_gamma", {channels});
    Expr beta = param(name + "_beta", {channels});
    Expr mean = param(name + "_moving_mean", {channels});
    Expr var = param(name + "_moving_var", {channels});
    Attrs attrs{{"epsilon", 2e-5}};
    if (!scale) attrs.set("scale", 0);
    return make_tuple_get_item(op::batch_norm(x, gamma, beta, mean, var, attrs), 0);
  }

  Expr conv(const Expr& x, int channels, int in_channels, int kernel, int stride, int pad, const std::string& name) {
    Expr w = param(name + "_weight", {channels, in_channels, kernel, kernel});
    Attrs attrs{{"strides", {stride, stride}},
                {"padding", {pad, pad}},
                {"channels", channels},
                {"kernel_size", {kernel, kernel}}};
    return op::conv2d(x, w, attrs);
  }

  Expr residual_unit(const Expr& data, int in_channels, int filters, int stride, bool dim_match,
                     const std::string& name) {
    Expr bn1 = batch_norm(data, in_channels, name + "_bn1");
    Expr act1 = op::relu(bn1);
    Expr conv1 = conv(act1, filters, in_channels, 3, stride, 1, name + "_conv1");
    Expr bn2 = batch_norm(conv1, filters, name + "_bn2");
    Expr act2 = op::relu(bn2);
    Expr conv2 = conv(act2, filters, filters, 3, 1, 1, name + "_conv2");
    Expr shortcut = dim_match ? data : conv(act1, filters, in_channels, 1, stride, 0, name + "_sc");
    return op::add(conv2, shortcut);
  }

  bool bind_;
  std::vector<Var> params_;
};

}  // namespace detail

// resnet18(bind_params): ResNet-18 (relay.testing.resnet, num_layers=18, batch 1,
// image 3×224×224, 1000 classes). Without bind_params the weights are parameters of
// @main after %data (data, bn_data_gamma, ..., fc1_weight, fc1_bias); with it they
// are constants without data (shape only), so the module stays small.
inline Module resnet18(bool bind_params = false) { return detail::ResNetBuilder(bind_params).build(); }

}  // namespace tinyir
