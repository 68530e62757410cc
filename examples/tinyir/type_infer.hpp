// tinyir/type_infer.hpp — type inference (Relay's InferType) for every operator.
//
// infer_types(mod)                   the module, every node's checked_type() filled; throws TypeError
// infer_types(fn, mod)               the same for one function (function-pass shape)
// infer_type(expr)                   fills the types under expr and returns expr's type
// infer_op_type(call, arg_types)     the result type of one operator call, arguments given
// has_checked_types(expr)            every node under expr carries a checked type
//
// Types are written into the nodes' checked-type cache (see expr.hpp), so the returned
// module shares its nodes with the input. Every run recomputes all types.
// A TypeError names the expression (describe()), its span when it has one, and
// what was expected against what was found.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tinyir/ir.hpp"

namespace tinyir {

namespace detail {

[[noreturn]] inline void type_fail(const ExprNode& e, std::string detail) {
  throw TypeError(std::move(detail), describe(e), e.span);
}

// The arguments and attributes of one operator call, with checked accessors.
class OpContext {
 public:
  OpContext(const CallNode& call, const OpInfo& info, const std::vector<Type>& args)
      : call_(call), info_(info), args_(args) {}

  [[noreturn]] void fail(std::string detail) const { type_fail(call_, std::move(detail)); }

  const std::string& op() const { return info_.name; }

  std::string arg_name(std::size_t i) const {
    return "argument " + std::to_string(i + 1) + " (" + (i < info_.inputs.size() ? info_.inputs[i] : "?") + ")";
  }

  const TensorType& tensor(std::size_t i) const { return *as_tensor(args_[i]); }

  void check_arity_and_tensors() const {
    if (args_.size() != info_.arity())
      fail("expected " + std::to_string(info_.arity()) + " argument" + (info_.arity() == 1 ? "" : "s") + " (" +
           join(info_.inputs, ", ") + "), found " + std::to_string(args_.size()));
    for (std::size_t i = 0; i < args_.size(); ++i) {
      if (!args_[i]) fail(arg_name(i) + ": expected a tensor, found an expression without a type");
      if (!as_tensor(args_[i])) fail(arg_name(i) + ": expected a tensor, found " + to_string(args_[i]));
    }
  }

  void check_rank(std::size_t i, std::size_t rank) const {
    const auto& t = tensor(i);
    if (t.shape.size() != rank)
      fail(arg_name(i) + ": expected a " + std::to_string(rank) + "-D tensor, found " + to_string(args_[i]));
  }

  void check_same_dtype(std::size_t i, std::size_t j) const {
    if (tensor(i).dtype != tensor(j).dtype)
      fail(arg_name(j) + ": expected dtype " + tensor(i).dtype + " (the dtype of " + arg_name(i) + "), found " +
           tensor(j).dtype);
  }

  // The attribute's value: given, else its default; nullopt for an unset optional
  // attribute; fails for a missing required one or a value of the wrong kind.
  std::optional<AttrValue> attr(std::string_view name, AttrKind kind) const {
    const AttrSpec* spec = info_.find_attr(name);
    const AttrValue* v = call_.attrs.find(name);
    if (!v) {
      if (spec && spec->default_value) return spec->default_value;
      if (spec && spec->required)
        fail("missing required attribute '" + std::string(name) + "' (" + std::string(to_string(kind)) + ")");
      return std::nullopt;
    }
    const bool ok = (kind == AttrKind::Int && v->is_int()) || (kind == AttrKind::Double && v->is_double()) ||
                    (kind == AttrKind::String && v->is_string()) || (kind == AttrKind::Ints && v->is_ints());
    if (!ok)
      fail("attribute '" + std::string(name) + "': expected " + std::string(to_string(kind)) + ", found " +
           std::string(kind_name(*v)) + " " + to_string(*v));
    return *v;
  }
  std::int64_t get_int(std::string_view name) const { return attr(name, AttrKind::Int)->as_int(); }
  double get_double(std::string_view name) const { return attr(name, AttrKind::Double)->as_double(); }
  std::string get_string(std::string_view name) const { return attr(name, AttrKind::String)->as_string(); }
  Ints get_ints(std::string_view name) const { return attr(name, AttrKind::Ints)->as_ints(); }

  // A list attribute of exactly `n` positive (or non-negative) values.
  Ints get_ints_n(std::string_view name, std::size_t n, bool allow_zero) const {
    Ints v = get_ints(name);
    if (v.size() != n)
      fail("attribute '" + std::string(name) + "': expected " + std::to_string(n) + " values, found " +
           to_string(AttrValue(v)));
    for (auto x : v)
      if (x < 0 || (x == 0 && !allow_zero))
        fail("attribute '" + std::string(name) + "': expected " + (allow_zero ? "non-negative" : "positive") +
             " values, found " + to_string(AttrValue(v)));
    return v;
  }

  // padding as (top, left, bottom, right): 1, 2 or 4 values accepted.
  Ints get_padding() const {
    Ints p = get_ints("padding");
    if (p.size() == 1)
      p = {p[0], p[0], p[0], p[0]};
    else if (p.size() == 2)
      p = {p[0], p[1], p[0], p[1]};
    if (p.size() != 4) fail("attribute 'padding': expected 1, 2 or 4 values, found " + to_string(AttrValue(p)));
    for (auto x : p)
      if (x < 0) fail("attribute 'padding': expected non-negative values, found " + to_string(AttrValue(p)));
    return p;
  }

  // The position of each letter of `letters` in the layout named by attribute
  // `attr_name`; fails unless the layout is a permutation of `letters`.
  std::array<std::size_t, 4> layout_axes(std::string_view attr_name, const std::string& layout,
                                         std::string_view letters) const {
    std::array<std::size_t, 4> pos{};
    bool ok = layout.size() == letters.size();
    for (std::size_t i = 0; ok && i < letters.size(); ++i) {
      const auto p = layout.find(letters[i]);
      ok = p != std::string::npos && layout.find(letters[i], p + 1) == std::string::npos;
      pos[i] = p;
    }
    if (!ok)
      fail("attribute '" + std::string(attr_name) + "': expected a permutation of " + std::string(letters) +
           ", found " + quote(layout));
    return pos;
  }

  // a + b and a * b, failing (TypeError) when the result does not fit int64.
  std::int64_t add(std::int64_t a, std::int64_t b, std::string_view what) const {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) overflow(what);
    return r;
  }
  std::int64_t mul(std::int64_t a, std::int64_t b, std::string_view what) const {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) overflow(what);
    return r;
  }
  [[noreturn]] void overflow(std::string_view what) const {
    fail("expected " + std::string(what) + " that fits 64 bits, found an overflow");
  }

  std::int64_t normalize_axis(std::int64_t axis, std::size_t rank, std::string_view what, bool inclusive) const {
    const auto r = static_cast<std::int64_t>(rank) + (inclusive ? 1 : 0);
    if (axis < -r || axis >= r)
      fail("attribute '" + std::string(what) + "': expected an axis in [" + std::to_string(-r) + ", " +
           std::to_string(r) + "), found " + std::to_string(axis) + " (for a " + std::to_string(rank) + "-D tensor)");
    return axis < 0 ? axis + r : axis;
  }

 private:
  const CallNode& call_;
  const OpInfo& info_;
  const std::vector<Type>& args_;
};

inline std::vector<std::int64_t> broadcast_shapes(const OpContext& cx, const TensorType& a, const TensorType& b) {
  const std::size_t n = std::max(a.shape.size(), b.shape.size());
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t da = i < n - a.shape.size() ? 1 : a.shape[i - (n - a.shape.size())];
    const std::int64_t db = i < n - b.shape.size() ? 1 : b.shape[i - (n - b.shape.size())];
    if (da == db || db == 1)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else
      cx.fail("expected shapes that broadcast, found " + format_shape(a.shape) + " and " + format_shape(b.shape) +
              " (dimension " + std::to_string(static_cast<std::int64_t>(i) - static_cast<std::int64_t>(n)) + ": " +
              std::to_string(da) + " vs " + std::to_string(db) + ")");
  }
  return out;
}

inline std::int64_t pooled_extent(const OpContext& cx, std::string_view what, std::int64_t in, std::int64_t pad,
                                  std::int64_t window, std::int64_t dilation, std::int64_t stride, bool ceil_mode) {
  const std::string extent = "a " + std::string(what) + " extent";
  const std::int64_t span = cx.add(cx.mul(window - 1, dilation, extent), 1, extent);
  const std::int64_t padded = cx.add(in, pad, extent);
  const std::int64_t avail = padded - span;  // both non-negative: no overflow
  if (avail < 0)
    cx.fail("expected the " + std::string(what) + " window (" + std::to_string(span) +
            " after dilation) to fit the padded input extent " + std::to_string(padded) + ", found it larger");
  return (ceil_mode ? avail / stride + (avail % stride != 0 ? 1 : 0) : avail / stride) + 1;
}

inline Type infer_conv2d(const OpContext& cx) {
  cx.check_rank(0, 4);
  cx.check_rank(1, 4);
  cx.check_same_dtype(0, 1);
  const auto& data = cx.tensor(0);
  const auto& weight = cx.tensor(1);
  const std::string data_layout = cx.get_string("data_layout");
  const std::string kernel_layout = cx.get_string("kernel_layout");
  std::string out_layout = cx.get_string("out_layout");
  if (out_layout.empty()) out_layout = data_layout;
  const auto d = cx.layout_axes("data_layout", data_layout, "NCHW");
  const auto k = cx.layout_axes("kernel_layout", kernel_layout, "OIHW");
  const auto o = cx.layout_axes("out_layout", out_layout, "NCHW");
  const Ints strides = cx.get_ints_n("strides", 2, false);
  const Ints dilation = cx.get_ints_n("dilation", 2, false);
  const Ints pad = cx.get_padding();
  const std::int64_t groups = cx.get_int("groups");
  if (groups < 1) cx.fail("attribute 'groups': expected a positive value, found " + std::to_string(groups));

  const std::int64_t n = data.shape[d[0]], c = data.shape[d[1]], h = data.shape[d[2]], w = data.shape[d[3]];
  const std::int64_t ko = weight.shape[k[0]], ki = weight.shape[k[1]], kh = weight.shape[k[2]], kw = weight.shape[k[3]];
  if (c % groups != 0)
    cx.fail("expected data channels divisible by groups " + std::to_string(groups) + ", found " + std::to_string(c) +
            " channels");
  if (cx.mul(ki, groups, "weight input channels times groups") != c)
    cx.fail("argument 2 (weight): expected " + std::to_string(c / groups) + " input channels (data channels " +
            std::to_string(c) + " / groups " + std::to_string(groups) + ") in " + kernel_layout + " layout, found " +
            std::to_string(ki) + " (weight " + to_string(tensor_type(weight.shape, weight.dtype)) + ")");
  if (ko % groups != 0)
    cx.fail("argument 2 (weight): expected output channels divisible by groups " + std::to_string(groups) + ", found " +
            std::to_string(ko));
  if (auto ch = cx.attr("channels", AttrKind::Int); ch && ch->as_int() != ko)
    cx.fail("argument 2 (weight): expected " + std::to_string(ch->as_int()) + " output channels (attribute " +
            "channels), found " + std::to_string(ko));
  if (auto ks = cx.attr("kernel_size", AttrKind::Ints)) {
    const Ints& v = ks->as_ints();
    if (v.size() != 2 || v[0] != kh || v[1] != kw)
      cx.fail("argument 2 (weight): expected kernel size " + to_string(*ks) + " (attribute kernel_size), found [" +
              std::to_string(kh) + ", " + std::to_string(kw) + "]");
  }
  const std::int64_t oh =
      pooled_extent(cx, "kernel height", h, cx.add(pad[0], pad[2], "a padding"), kh, dilation[0], strides[0], false);
  const std::int64_t ow =
      pooled_extent(cx, "kernel width", w, cx.add(pad[1], pad[3], "a padding"), kw, dilation[1], strides[1], false);
  std::string dtype = cx.get_string("out_dtype");
  if (dtype.empty()) dtype = data.dtype;
  std::vector<std::int64_t> shape(4);
  shape[o[0]] = n;
  shape[o[1]] = ko;
  shape[o[2]] = oh;
  shape[o[3]] = ow;
  return tensor_type(std::move(shape), dtype);
}

inline Type infer_batch_norm(const OpContext& cx) {
  const auto& data = cx.tensor(0);
  if (data.shape.empty()) cx.fail("argument 1 (data): expected a tensor of rank >= 1, found " + data.dtype);
  const auto axis = cx.normalize_axis(cx.get_int("axis"), data.shape.size(), "axis", false);
  const std::int64_t channels = data.shape[static_cast<std::size_t>(axis)];
  const Type vec = tensor_type({channels}, data.dtype);
  for (std::size_t i = 1; i < 5; ++i) {
    const auto& p = cx.tensor(i);
    if (p.shape != std::vector<std::int64_t>{channels} || p.dtype != data.dtype)
      cx.fail(cx.arg_name(i) + ": expected " + to_string(vec) + " (channels of data axis " + std::to_string(axis) +
              "), found " + to_string(tensor_type(p.shape, p.dtype)));
  }
  (void)cx.get_double("epsilon");
  (void)cx.get_int("center");
  (void)cx.get_int("scale");
  return tuple_type({tensor_type(data.shape, data.dtype), vec, vec});
}

inline Type infer_max_pool2d(const OpContext& cx) {
  cx.check_rank(0, 4);
  const auto& data = cx.tensor(0);
  const std::string layout = cx.get_string("layout");
  const auto d = cx.layout_axes("layout", layout, "NCHW");
  const Ints pool = cx.get_ints_n("pool_size", 2, false);
  const Ints strides = cx.get_ints_n("strides", 2, false);
  const Ints dilation = cx.get_ints_n("dilation", 2, false);
  const Ints pad = cx.get_padding();
  const bool ceil_mode = cx.get_int("ceil_mode") != 0;
  std::vector<std::int64_t> shape = data.shape;
  shape[d[2]] = pooled_extent(cx, "pool height", data.shape[d[2]], cx.add(pad[0], pad[2], "a padding"), pool[0],
                              dilation[0], strides[0], ceil_mode);
  shape[d[3]] = pooled_extent(cx, "pool width", data.shape[d[3]], cx.add(pad[1], pad[3], "a padding"), pool[1],
                              dilation[1], strides[1], ceil_mode);
  return tensor_type(std::move(shape), data.dtype);
}

inline Type infer_global_avg_pool2d(const OpContext& cx) {
  cx.check_rank(0, 4);
  const auto& data = cx.tensor(0);
  const auto d = cx.layout_axes("layout", cx.get_string("layout"), "NCHW");
  std::vector<std::int64_t> shape = data.shape;
  shape[d[2]] = 1;
  shape[d[3]] = 1;
  return tensor_type(std::move(shape), data.dtype);
}

inline Type infer_dense(const OpContext& cx) {
  const auto& data = cx.tensor(0);
  if (data.shape.empty()) cx.fail("argument 1 (data): expected a tensor of rank >= 1, found " + data.dtype);
  cx.check_rank(1, 2);
  cx.check_same_dtype(0, 1);
  const auto& weight = cx.tensor(1);
  const std::int64_t k = data.shape.back();
  if (weight.shape[1] != k)
    cx.fail("argument 2 (weight): expected shape (units, " + std::to_string(k) + ") to match the data's last " +
            "dimension, found " + format_shape(weight.shape));
  if (auto units = cx.attr("units", AttrKind::Int); units && units->as_int() != weight.shape[0])
    cx.fail("argument 2 (weight): expected " + std::to_string(units->as_int()) + " rows (attribute units), found " +
            std::to_string(weight.shape[0]));
  std::vector<std::int64_t> shape = data.shape;
  shape.back() = weight.shape[0];
  std::string dtype = cx.get_string("out_dtype");
  if (dtype.empty()) dtype = data.dtype;
  return tensor_type(std::move(shape), dtype);
}

inline Type infer_bias_add(const OpContext& cx) {
  const auto& data = cx.tensor(0);
  if (data.shape.empty()) cx.fail("argument 1 (data): expected a tensor of rank >= 1, found " + data.dtype);
  const auto axis = cx.normalize_axis(cx.get_int("axis"), data.shape.size(), "axis", false);
  cx.check_same_dtype(0, 1);
  const auto& bias = cx.tensor(1);
  const std::int64_t c = data.shape[static_cast<std::size_t>(axis)];
  if (bias.shape != std::vector<std::int64_t>{c})
    cx.fail("argument 2 (bias): expected shape (" + std::to_string(c) + ") (data axis " + std::to_string(axis) +
            "), found " + format_shape(bias.shape));
  return tensor_type(data.shape, data.dtype);
}

// expand_dims adds at most this many axes (the result's rank follows the input's size).
inline constexpr std::int64_t kMaxNewAxes = 1024;

inline Type infer_expand_dims(const OpContext& cx) {
  const auto& data = cx.tensor(0);
  const auto axis = cx.normalize_axis(cx.get_int("axis"), data.shape.size(), "axis", true);
  const std::int64_t num = cx.get_int("num_newaxis");
  if (num < 0) cx.fail("attribute 'num_newaxis': expected a non-negative value, found " + std::to_string(num));
  if (num > kMaxNewAxes)
    cx.fail("attribute 'num_newaxis': expected at most " + std::to_string(kMaxNewAxes) + " new axes, found " +
            std::to_string(num));
  std::vector<std::int64_t> shape = data.shape;
  shape.insert(shape.begin() + axis, static_cast<std::size_t>(num), 1);
  return tensor_type(std::move(shape), data.dtype);
}

inline Type infer_layout_transform(const OpContext& cx) {
  const auto& data = cx.tensor(0);
  const std::string src = cx.get_string("src_layout");
  const std::string dst = cx.get_string("dst_layout");
  if (src.size() != data.shape.size())
    cx.fail("attribute 'src_layout': expected a layout of " + std::to_string(data.shape.size()) +
            " axes for the data " + to_string(tensor_type(data.shape, data.dtype)) + ", found " + quote(src));
  std::string sorted_src = src, sorted_dst = dst;
  std::sort(sorted_src.begin(), sorted_src.end());
  std::sort(sorted_dst.begin(), sorted_dst.end());
  if (std::adjacent_find(sorted_src.begin(), sorted_src.end()) != sorted_src.end())
    cx.fail("attribute 'src_layout': expected distinct axis letters, found " + quote(src));
  if (sorted_src != sorted_dst)
    cx.fail("attribute 'dst_layout': expected a permutation of " + quote(src) + ", found " + quote(dst));
  std::vector<std::int64_t> shape(dst.size());
  for (std::size_t i = 0; i < dst.size(); ++i) shape[i] = data.shape[src.find(dst[i])];
  return tensor_type(std::move(shape), data.dtype);
}

inline Type infer_reshape(const OpContext& cx) {
  const auto& data = cx.tensor(0);
  const Ints newshape = cx.get_ints("newshape");
  std::vector<std::int64_t> shape;
  std::optional<std::size_t> infer_at;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < newshape.size(); ++i) {
    const std::int64_t v = newshape[i];
    if (v > 0) {
      shape.push_back(v);
    } else if (v == 0) {
      if (i >= data.shape.size())
        cx.fail("attribute 'newshape': 0 copies input dimension " + std::to_string(i) + ", but the data " +
                to_string(tensor_type(data.shape, data.dtype)) + " has only " + std::to_string(data.shape.size()));
      shape.push_back(data.shape[i]);
    } else if (v == -1) {
      if (infer_at) cx.fail("attribute 'newshape': expected at most one -1, found " + to_string(AttrValue(newshape)));
      infer_at = shape.size();
      shape.push_back(1);
      continue;
    } else {
      cx.fail("attribute 'newshape': expected positive sizes, 0 or -1, found " + std::to_string(v));
    }
    known = cx.mul(known, shape.back(), "a product of 'newshape'");
  }
  const std::int64_t total = num_elements(data);
  if (infer_at) {
    if (known == 0 || total % known != 0)
      cx.fail("attribute 'newshape': expected a shape of " + std::to_string(total) + " elements, found " +
              to_string(AttrValue(newshape)) + " which cannot be completed");
    shape[*infer_at] = total / known;
  } else if (known != total) {
    cx.fail("attribute 'newshape': expected " + std::to_string(total) + " elements (data " +
            to_string(tensor_type(data.shape, data.dtype)) + "), found " + std::to_string(known) + " in " +
            to_string(AttrValue(newshape)));
  }
  return tensor_type(std::move(shape), data.dtype);
}

}  // namespace detail

namespace detail {
inline Type op_type_rule(const CallNode& call, const std::vector<Type>& arg_types) {
  const OpInfo* info = call.op_info();
  if (!info) detail::type_fail(call, "unknown operator '" + call.op + "'");
  detail::OpContext cx(call, *info, arg_types);
  cx.check_arity_and_tensors();
  const std::string& op = info->name;
  if (op == "add" || op == "subtract" || op == "multiply" || op == "divide") {
    cx.check_same_dtype(0, 1);
    return tensor_type(detail::broadcast_shapes(cx, cx.tensor(0), cx.tensor(1)), cx.tensor(0).dtype);
  }
  if (op == "clip") {
    (void)cx.get_double("a_min");
    (void)cx.get_double("a_max");
    return arg_types[0];
  }
  if (op == "nn.relu") return arg_types[0];
  if (op == "nn.softmax") {
    (void)cx.normalize_axis(cx.get_int("axis"), cx.tensor(0).shape.size(), "axis", false);
    return arg_types[0];
  }
  if (op == "nn.conv2d") return detail::infer_conv2d(cx);
  if (op == "nn.batch_norm") return detail::infer_batch_norm(cx);
  if (op == "nn.max_pool2d") return detail::infer_max_pool2d(cx);
  if (op == "nn.global_avg_pool2d") return detail::infer_global_avg_pool2d(cx);
  if (op == "nn.batch_flatten") {
    const auto& t = cx.tensor(0);
    if (t.shape.empty()) cx.fail("argument 1 (data): expected a tensor of rank >= 1, found " + t.dtype);
    std::int64_t rest = 1;
    for (std::size_t i = 1; i < t.shape.size(); ++i) rest = cx.mul(rest, t.shape[i], "a flattened extent");
    return tensor_type({t.shape[0], rest}, t.dtype);
  }
  if (op == "nn.dense") return detail::infer_dense(cx);
  if (op == "nn.bias_add") return detail::infer_bias_add(cx);
  if (op == "expand_dims") return detail::infer_expand_dims(cx);
  if (op == "layout_transform") return detail::infer_layout_transform(cx);
  if (op == "reshape") return detail::infer_reshape(cx);
  detail::type_fail(call, "operator '" + op + "' has no type rule");
}
}  // namespace detail

// infer_op_type(call, arg_types): the type of an operator call whose arguments have
// `arg_types`. Throws TypeError naming `call`, also when the result's element count
// does not fit int64 (e.g. a broadcast of (2^40, 1) and (1, 2^40)).
inline Type infer_op_type(const CallNode& call, const std::vector<Type>& arg_types) {
  Type t = detail::op_type_rule(call, arg_types);
  auto fits = [](const Type& x) { return !as_tensor(x) || checked_num_elements(as_tensor(x)->shape).has_value(); };
  bool ok = fits(t);
  if (const auto* tu = as_tuple(t))
    for (const auto& f : tu->fields) ok = ok && fits(f);
  if (!ok)
    detail::type_fail(
        call, "expected a result of at most 2^63-1 elements, found " + to_string(t) + " whose element count overflows");
  return t;
}

namespace detail {

class TypeInferencer {
 public:
  // visit(e): e's type; first the types of the not yet typed operands under e,
  // iteratively, operands first (a call's arguments then callee, a tuple's fields, a
  // projection's tuple, a let's value), so that compute() finds them memoized: no
  // recursion along a chain of bindings. A let chain is a loop in compute().
  Type visit(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    walk_post_order(
        e, operands, [this](const Expr& n) { return memo_.count(n.get()) != 0; },
        [this](const Expr& n) { finish(n, compute(n)); });
    Type t = compute(e);
    finish(e, t);
    return t;
  }

 private:
  static void operands(const ExprNode& e, std::vector<Expr>& out) {
    switch (e.kind) {
      case ExprKind::Call: {
        const auto* c = e.as<CallNode>();
        out.insert(out.end(), c->args.begin(), c->args.end());
        if (c->fn) out.push_back(c->fn);
        break;
      }
      case ExprKind::Tuple: {
        const auto& f = e.as<TupleNode>()->fields;
        out.insert(out.end(), f.begin(), f.end());
        break;
      }
      case ExprKind::TupleGetItem:
        out.push_back(e.as<TupleGetItemNode>()->tuple);
        break;
      case ExprKind::Let:
        out.push_back(e.as<LetNode>()->value);
        break;
      case ExprKind::Var:
      case ExprKind::Constant:
      case ExprKind::Function:
        break;
    }
  }

  void finish(const Expr& e, const Type& t) {
    e->set_checked_type(t);
    memo_.emplace(e.get(), t);
  }

  // The nesting depth of t (type_depth), memoized for the types built here.
  int depth(const Type& t) {
    if (!t || as_tensor(t)) return 1;
    if (auto it = depths_.find(t.get()); it != depths_.end()) return it->second;
    int deepest = 0;
    if (const auto* tu = as_tuple(t)) {
      for (const auto& f : tu->fields) deepest = std::max(deepest, depth(f));
    } else if (const auto* ft = as_func(t)) {
      for (const auto& p : ft->params) deepest = std::max(deepest, depth(p));
      deepest = std::max(deepest, depth(ft->ret));
    }
    depths_.emplace(t.get(), deepest + 1);
    return deepest + 1;
  }

  // t, unless it nests deeper than kMaxNestingDepth (its text would not parse: the
  // printer writes tuple types on parameters, e.g. those FuseOps makes). Function
  // types nest only as deep as functions do in the text.
  Type bounded(const ExprNode& e, Type t) {
    if (depth(t) > kMaxNestingDepth)
      type_fail(e, "expected a type nested at most " + std::to_string(kMaxNestingDepth) +
                       " deep (kMaxNestingDepth), found a deeper one");
    return t;
  }

  Type compute(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Var: {
        const auto* v = e->as<VarNode>();
        if (v->type_annotation) return v->type_annotation;
        if (auto it = let_types_.find(v); it != let_types_.end()) return it->second;
        type_fail(*e, "expected a type annotation or a let binding for %" + v->name + ", found neither");
      }
      case ExprKind::Constant:
        return e->as<ConstantNode>()->type;
      case ExprKind::Call:
        return call_type(*e->as<CallNode>());
      case ExprKind::Let: {
        // The chain of lets starting at e, in a loop: each value, then the body.
        std::vector<const LetNode*> chain;
        Expr cur = e;
        while (cur->kind == ExprKind::Let && (cur == e || !memo_.count(cur.get()))) {
          const auto* l = cur->as<LetNode>();
          Type value = visit(l->value);
          if (l->var->type_annotation && !type_equal(l->var->type_annotation, value))
            type_fail(*cur, "expected the value of %" + l->var->name + " to have its annotated type " +
                                to_string(l->var->type_annotation) + ", found " + to_string(value));
          let_types_[l->var.get()] = value;
          memo_.erase(l->var.get());
          visit(l->var);
          chain.push_back(l);
          cur = l->body;
        }
        Type body = visit(cur);
        for (std::size_t i = chain.size(); i-- > 1;) {  // the inner lets; e's own is the caller's
          chain[i]->set_checked_type(body);
          memo_.emplace(chain[i], body);
        }
        return body;
      }
      case ExprKind::Tuple: {
        std::vector<Type> fields;
        for (const auto& f : e->as<TupleNode>()->fields) fields.push_back(visit(f));
        return bounded(*e, tuple_type(std::move(fields)));
      }
      case ExprKind::TupleGetItem: {
        const auto* g = e->as<TupleGetItemNode>();
        Type t = visit(g->tuple);
        const TupleType* tt = as_tuple(t);
        if (!tt) type_fail(*e, "expected a tuple to index, found " + to_string(t));
        if (g->index < 0 || static_cast<std::size_t>(g->index) >= tt->fields.size())
          type_fail(*e, "expected an index in [0, " + std::to_string(tt->fields.size()) + "), found " +
                            std::to_string(g->index) + " for " + to_string(t));
        return tt->fields[static_cast<std::size_t>(g->index)];
      }
      case ExprKind::Function: {
        const auto* f = e->as<FunctionNode>();
        std::vector<Type> params;
        for (const auto& p : f->params) {
          if (!p->type_annotation)
            type_fail(*e, "expected a type annotation on parameter %" + p->name + ", found none");
          params.push_back(visit(p));
        }
        Type body = visit(f->body);
        if (f->ret_type && !type_equal(f->ret_type, body))
          type_fail(*e, "expected the body to have the annotated return type " + to_string(f->ret_type) + ", found " +
                            to_string(body));
        return func_type(std::move(params), std::move(body));
      }
    }
    type_fail(*e, "unknown expression kind");
  }

  Type call_type(const CallNode& c) {
    std::vector<Type> args;
    for (const auto& a : c.args) args.push_back(visit(a));
    if (c.is_op()) return infer_op_type(c, args);
    Type callee = visit(c.fn);
    const FuncType* ft = as_func(callee);
    if (!ft) type_fail(c, "expected a function to call, found " + to_string(callee));
    if (ft->params.size() != args.size())
      type_fail(c,
                "expected " + std::to_string(ft->params.size()) + " arguments, found " + std::to_string(args.size()));
    for (std::size_t i = 0; i < args.size(); ++i)
      if (!type_equal(ft->params[i], args[i]))
        type_fail(c, "argument " + std::to_string(i + 1) + ": expected " + to_string(ft->params[i]) + ", found " +
                         to_string(args[i]));
    return ft->ret;
  }

  std::unordered_map<const ExprNode*, Type> memo_;
  std::unordered_map<const VarNode*, Type> let_types_;
  std::unordered_map<const TypeNode*, int> depths_;
};

}  // namespace detail

// infer_type(e): annotate every node under e; e's type.
inline Type infer_type(const Expr& e) { return detail::TypeInferencer().visit(e); }

// infer_types(fn, mod): fn with every node's type filled in (the same nodes).
inline Function infer_types(Function fn, const Module& /*mod*/ = {}) {
  infer_type(fn);
  return fn;
}

// infer_types(mod): every function of mod typed.
inline Module infer_types(Module mod) {
  for (const auto& [name, fn] : mod) infer_type(fn);
  return mod;
}

// has_checked_types(e): true when every node under e carries a checked type.
inline bool has_checked_types(const Expr& e) {
  bool all = true;
  post_order_visit(e, [&](const Expr& n) { all = all && n->checked_type() != nullptr; });
  return all;
}

}  // namespace tinyir
