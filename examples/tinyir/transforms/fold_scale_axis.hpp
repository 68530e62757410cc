// tinyir/transforms/fold_scale_axis.hpp — FoldScaleAxis: fold a per-channel
// multiply by a constant scale into the weight of an adjacent nn.conv2d (or
// nn.dense), as Relay's ForwardFoldScaleAxis and BackwardFoldScaleAxis
// (src/relay/transforms/fold_scale_axis.cc) do.
//
// forward_fold_scale_axis(mod)         every function
// forward_fold_scale_axis(fn, mod)     one function (function-pass shape)
// backward_fold_scale_axis(mod)        every function
// backward_fold_scale_axis(fn, mod)    one function (function-pass shape)
// fold_scale_axis(mod)                 backward, forward, then fold_constant (Relay's
//                                      Sequential "FoldScaleAxis")
//
// Backward: conv2d(x, w) * s, with s constant along the output channel axis only
// (shape (C, 1, 1) or (C) as broadcasting allows), becomes conv2d(x, w * s'), s'
// expanded to the kernel's O axis. The scale may travel down through nn.relu
// (when s >= 0), add/subtract (the other operand is multiplied by s, or both
// sides carry it: two convolutions), and nn.bias_add on the channel axis (the
// bias is multiplied by s); nn.dense's output axis 1 folds into its weight's
// rows. Every node on the way must have one use. Forward: conv2d(x * s, w) with s
// along the input's channel axis becomes conv2d(x, w * s'), s' expanded to the
// kernel's I axis; the scale may travel up through nn.relu (s >= 0) and
// add/subtract (the other operand is divided by s); nn.dense takes a scale on its
// input's axis 1. Forward folding needs every user of the scaled value to take
// the scale. "Constant" is what Relay checks: s >= 0 is checked on a Constant
// with data (through expand_dims and reshape); the scale itself need not be a
// constant (fold_constant then leaves w * s' in place).
//
// Only conv2d with groups = 1 and layouts without split axes is folded (Relay
// also folds depthwise and blocked layouts); a scalar scale is not folded (Relay
// repeats it along the axis; tinyir has no repeat operator). Where Relay squeezes
// the scale (squeeze), tinyir reshapes it. Types are inferred first. Numerically
// the result equals the input's up to float rounding (the scale is applied to
// the weight instead of the activations).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tinyir/ir.hpp"
#include "tinyir/transforms/fold_constant.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

namespace detail {

// Relay's Message: the axes that may be scaled, and whether the scale must be
// non-negative (it went through a relu).
struct ScaleMessage {
  std::vector<std::int64_t> axes;  // sorted
  bool require_positive = false;
};
using OptMessage = std::optional<ScaleMessage>;

inline OptMessage intersect(const OptMessage& a, const OptMessage& b) {
  if (!a) return a;
  if (!b) return b;
  ScaleMessage out;
  std::set_intersection(a->axes.begin(), a->axes.end(), b->axes.begin(), b->axes.end(), std::back_inserter(out.axes));
  out.require_positive = a->require_positive || b->require_positive;
  return out;
}

inline const TensorType* tensor_of(const Expr& e) { return as_tensor(e->checked_type()); }

// Relay's MatchBroadcastToLeftAxes: rhs broadcasts to lhs with its own extent on
// lhs_axes and 1 elsewhere. With rhs_value, *rhs_value becomes rhs reduced to the
// matched axes (reshape; Relay squeezes). A scalar rhs never matches here.
inline bool match_broadcast_to_left_axes(const TensorType& lhs, const TensorType& rhs,
                                         const std::vector<std::int64_t>& axes, Expr* rhs_value = nullptr) {
  if (lhs.shape.size() < rhs.shape.size() || rhs.shape.empty() || axes.empty()) return false;
  const std::size_t base = lhs.shape.size() - rhs.shape.size();
  std::size_t j = 0;
  std::vector<std::int64_t> kept;
  for (std::size_t i = 0; i < lhs.shape.size(); ++i) {
    if (j < axes.size() && static_cast<std::int64_t>(i) == axes[j]) {
      if (i < base || lhs.shape[i] != rhs.shape[i - base]) return false;
      kept.push_back(lhs.shape[i]);
      ++j;
    } else if (i >= base && rhs.shape[i - base] != 1) {
      return false;
    }
  }
  if (j != axes.size()) return false;
  if (rhs_value && kept.size() != rhs.shape.size())
    *rhs_value = make_call("reshape", {*rhs_value}, {{"newshape", Ints(kept.begin(), kept.end())}});
  return true;
}

// Relay's IsAllPositiveConstant: a Constant with data, every value >= 0, seen
// through expand_dims and reshape.
inline bool is_all_positive_constant(const Expr& e) {
  if (const auto* k = e->as<ConstantNode>())
    return k->data && std::all_of(k->data->begin(), k->data->end(), [](float v) { return v >= 0.0f; });
  if (const auto* c = e->as<CallNode>(); c && c->is_op() && (c->op == "expand_dims" || c->op == "reshape"))
    return is_all_positive_constant(c->args[0]);
  return false;
}

// Relay's ExpandBiasToMatchAxis: bias (one extent per axis in `axes`) expanded so
// that it broadcasts against a tensor of rank target_ndim on those axes.
inline Expr expand_bias_to_match_axis(Expr bias, std::int64_t target_ndim, const std::vector<std::int64_t>& axes) {
  for (std::size_t i = axes.size(); i != 0; --i) {
    const std::int64_t pad = i == axes.size() ? target_ndim - axes[i - 1] - 1 : axes[i] - axes[i - 1];
    if (pad > 0)
      bias = make_call("expand_dims", {bias}, {{"axis", static_cast<std::int64_t>(i)}, {"num_newaxis", pad}});
  }
  return bias;
}

// Relay's ReshapeOrExpandToMatchAxis: one axis expands, several reshape.
inline Expr reshape_or_expand_to_match_axis(const Expr& scale, const std::vector<std::int64_t>& shape,
                                            const std::vector<std::int64_t>& axes) {
  if (axes.size() <= 1) return expand_bias_to_match_axis(scale, static_cast<std::int64_t>(shape.size()), axes);
  Ints newshape;
  for (std::size_t i = 0; i < shape.size(); ++i)
    newshape.push_back(std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) != axes.end() ? shape[i] : 1);
  return make_call("reshape", {scale}, {{"newshape", newshape}});
}

inline std::string conv_string_attr(const CallNode& c, const char* name, const char* def) {
  const AttrValue* v = c.attrs.find(name);
  return v && v->is_string() && !v->as_string().empty() ? v->as_string() : def;
}

// The position of `axis` in a conv2d layout, or -1; -1 too when the layout splits
// an axis (lower-case letters) or the conv2d is grouped: what tinyir does not fold.
inline std::int64_t simple_conv_axis(const CallNode& c, const std::string& layout, char axis) {
  const AttrValue* g = c.attrs.find("groups");
  if (g && g->as_int() != 1) return -1;
  if (std::any_of(layout.begin(), layout.end(), [](char ch) { return ch >= 'a' && ch <= 'z'; })) return -1;
  const auto pos = layout.find(axis);
  return pos == std::string::npos ? -1 : static_cast<std::int64_t>(pos);
}

// ---------------------------------------------------------------- forward

class ForwardScaleFolder {
 public:
  Function run(const Function& fn) {
    prepare(fn->body);
    if (std::none_of(message_.begin(), message_.end(), [](const auto& m) { return m.second.has_value(); })) return fn;
    Expr body = realize(visit(fn->body));
    if (body == fn->body) return fn;
    return make_function(fn->params, std::move(body), fn->ret_type, fn->attrs, fn->span);
  }

 private:
  // Relay's ScaledExpr: value * scale (expanded to `axes`) is the original value.
  struct S {
    Expr value;
    std::vector<std::int64_t> axes;
    Expr scale;  // null: not scaled
    std::vector<std::int64_t> shape;
  };

  void update(const Expr& e, const OptMessage& m) {
    auto [it, inserted] = message_.emplace(e.get(), m);
    if (!inserted) it->second = intersect(it->second, m);
  }

  // Relay's ForwardPrep: the axes each value's users can take a scale on, from
  // the users back (reverse post-order).
  void prepare(const Expr& body) {
    update(body, std::nullopt);
    std::vector<Expr> order;
    post_order_visit(body, [&](const Expr& n) { order.push_back(n); });
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Expr& n = *it;
      if (const auto* c = n->as<CallNode>()) {
        const auto found = message_.find(c);
        const OptMessage out = found == message_.end() ? std::nullopt : found->second;
        std::vector<OptMessage> in = forward_prep(*c, out);
        for (std::size_t i = 0; i < c->args.size(); ++i) update(c->args[i], i < in.size() ? in[i] : std::nullopt);
        if (c->fn) update(c->fn, std::nullopt);
      } else if (n->kind != ExprKind::Var && n->kind != ExprKind::Constant && n->kind != ExprKind::TupleGetItem) {
        for (const Expr& child : children(n)) update(child, std::nullopt);
      } else if (const auto* g = n->as<TupleGetItemNode>()) {
        update(g->tuple, std::nullopt);
      }
    }
  }

  static std::vector<OptMessage> forward_prep(const CallNode& c, const OptMessage& out) {
    if (!c.is_op()) return {};
    const std::string& op = c.op;
    if (op == "nn.relu") return {out ? OptMessage(ScaleMessage{out->axes, true}) : OptMessage()};
    if ((op == "add" || op == "subtract") && out) {
      const TensorType* l = tensor_of(c.args[0]);
      const TensorType* r = tensor_of(c.args[1]);
      if (l && r && match_broadcast_to_left_axes(*l, *r, out->axes)) return {out, std::nullopt};
      if (l && r && match_broadcast_to_left_axes(*r, *l, out->axes)) return {std::nullopt, out};
      return {};
    }
    if (op == "nn.conv2d") {
      const std::int64_t ax = simple_conv_axis(c, conv_string_attr(c, "data_layout", "NCHW"), 'C');
      if (ax < 0 || simple_conv_axis(c, conv_string_attr(c, "kernel_layout", "OIHW"), 'I') < 0) return {};
      return {ScaleMessage{{ax}, false}, std::nullopt};
    }
    if (op == "nn.dense") return {ScaleMessage{{1}, false}, std::nullopt};
    return {};
  }

  static std::vector<std::int64_t> shape_of(const Expr& e) {
    const TensorType* t = tensor_of(e);
    return t ? t->shape : std::vector<std::int64_t>{};
  }

  // Relay's ScaledExpr::Realize; a scale no user took (Relay stops there: "outstanding
  // scale") is applied again, so the value stays right.
  static Expr realize(const S& s) {
    if (!s.scale) return s.value;
    return make_call("multiply", {s.value, reshape_or_expand_to_match_axis(s.scale, s.shape, s.axes)});
  }

  static void operands(const ExprNode& e, std::vector<Expr>& out) {
    if (const auto* c = e.as<CallNode>()) {
      out.insert(out.end(), c->args.begin(), c->args.end());
      if (c->fn) out.push_back(c->fn);
    } else if (const auto* l = e.as<LetNode>()) {
      out.push_back(l->value);
      out.push_back(l->body);
    } else if (const auto* t = e.as<TupleNode>()) {
      out.insert(out.end(), t->fields.begin(), t->fields.end());
    } else if (const auto* g = e.as<TupleGetItemNode>()) {
      out.push_back(g->tuple);
    }
  }

  S visit(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    walk_post_order(
        e, operands, [this](const Expr& n) { return memo_.count(n.get()) != 0; },
        [this](const Expr& n) { memo_.emplace(n.get(), compute(n)); });
    S s = compute(e);
    memo_.emplace(e.get(), s);
    return s;
  }

  S plain(Expr e) const { return {std::move(e), {}, nullptr, {}}; }

  S compute(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Var:
      case ExprKind::Constant:
        return plain(e);
      case ExprKind::Let: {
        const auto* l = e->as<LetNode>();
        Expr value = realize(visit(l->value));
        Expr body = realize(visit(l->body));
        if (value == l->value && body == l->body) return plain(e);
        return plain(make_let(l->var, value, body, l->span));
      }
      case ExprKind::Function: {
        const auto* f = e->as<FunctionNode>();
        if (f->is_primitive()) return plain(e);
        Expr body = realize(visit(f->body));
        if (body == f->body) return plain(e);
        return plain(make_function(f->params, body, f->ret_type, f->attrs, f->span));
      }
      case ExprKind::Tuple: {
        const auto* t = e->as<TupleNode>();
        std::vector<Expr> fields;
        for (const auto& x : t->fields) fields.push_back(realize(visit(x)));
        if (fields == t->fields) return plain(e);
        return plain(make_tuple_expr(std::move(fields), t->span));
      }
      case ExprKind::TupleGetItem: {
        const auto* g = e->as<TupleGetItemNode>();
        Expr tuple = realize(visit(g->tuple));
        if (tuple == g->tuple) return plain(e);
        return plain(make_tuple_get_item(tuple, g->index, g->span));
      }
      case ExprKind::Call:
        return call(std::static_pointer_cast<const CallNode>(e));
    }
    return plain(e);
  }

  S call(const Call& c) {
    std::vector<S> a;
    for (const auto& x : c->args) a.push_back(visit(x));
    auto normal = [&]() -> S {
      std::vector<Expr> args;
      for (const S& s : a) args.push_back(realize(s));
      Expr fn = c->fn ? realize(visit(c->fn)) : nullptr;
      if (args == c->args && fn == c->fn) return plain(c);
      return plain(c->fn ? detail::rebuild_call(*c, fn, std::move(args))
                         : make_call(c->op, std::move(args), c->attrs, c->span));
    };
    if (!c->is_op()) return normal();
    const std::string& op = c->op;
    const auto found = message_.find(c.get());
    const OptMessage msg = found == message_.end() ? std::nullopt : found->second;
    const bool s0 = !a.empty() && a[0].scale;
    const bool s1 = a.size() > 1 && a[1].scale;
    if (op == "multiply" && msg && !s0 && !s1) {  // the producer of a scale
      const TensorType* l = tensor_of(c->args[0]);
      const TensorType* r = tensor_of(c->args[1]);
      Expr rhs = a[1].value, lhs = a[0].value;
      if (l && r && match_broadcast_to_left_axes(*l, *r, msg->axes, &rhs) &&
          (!msg->require_positive || is_all_positive_constant(rhs)))
        return {a[0].value, msg->axes, rhs, l->shape};
      if (l && r && match_broadcast_to_left_axes(*r, *l, msg->axes, &lhs) &&
          (!msg->require_positive || is_all_positive_constant(lhs)))
        return {a[1].value, msg->axes, lhs, r->shape};
      return normal();
    }
    if (op == "nn.relu" && s0)
      return {make_call(op, {a[0].value}, c->attrs, c->span), a[0].axes, a[0].scale, shape_of(c)};
    if ((op == "add" || op == "subtract") && s0 != s1) {
      const std::size_t k = s0 ? 0 : 1;  // the scaled side
      const TensorType* ts = tensor_of(c->args[k]);
      const TensorType* to = tensor_of(c->args[1 - k]);
      if (!ts || !to || !match_broadcast_to_left_axes(*ts, *to, a[k].axes)) return normal();
      Expr other =
          make_call("divide", {a[1 - k].value, reshape_or_expand_to_match_axis(a[k].scale, ts->shape, a[k].axes)});
      std::vector<Expr> args = k == 0 ? std::vector<Expr>{a[0].value, other} : std::vector<Expr>{other, a[1].value};
      return {make_call(op, std::move(args), c->attrs, c->span), a[k].axes, a[k].scale, shape_of(c)};
    }
    if (op == "nn.conv2d" && s0 && !s1) {  // a consumer: the scale goes into the weight's I axis
      const std::string kl = conv_string_attr(*c, "kernel_layout", "OIHW");
      const std::int64_t ki = simple_conv_axis(*c, kl, 'I');
      if (ki < 0) return normal();
      Expr weight = make_call(
          "multiply", {a[1].value, expand_bias_to_match_axis(a[0].scale, static_cast<std::int64_t>(kl.size()), {ki})});
      return plain(make_call(op, {a[0].value, weight}, c->attrs, c->span));
    }
    if (op == "nn.dense" && s0 && !s1) {
      Expr weight = make_call("multiply", {a[1].value, a[0].scale});
      return plain(make_call(op, {a[0].value, weight}, c->attrs, c->span));
    }
    return normal();
  }

  std::unordered_map<const ExprNode*, OptMessage> message_;
  std::unordered_map<const ExprNode*, S> memo_;
};

// ---------------------------------------------------------------- backward

class BackwardScaleFolder : public ExprMutator {
 public:
  Function run(const Function& fn) {
    prepare(fn->body);
    if (message_.empty()) return fn;
    Expr body = mutate(fn->body);
    if (body == fn->body) return fn;
    return make_function(fn->params, std::move(body), fn->ret_type, fn->attrs, fn->span);
  }

 protected:
  Expr visit_call(const Call& c) override { return transform(c, std::nullopt, nullptr); }

 private:
  OptMessage message_of(const Expr& e) const {
    auto it = message_.find(e.get());
    return it == message_.end() ? OptMessage() : OptMessage(it->second);
  }

  // Relay's BackwardPrep: from the inputs forward, the axes a call's result may be
  // scaled on, for calls used once.
  void prepare(const Expr& body) {
    std::unordered_map<const ExprNode*, std::size_t> uses;
    uses[body.get()] = 1;
    std::vector<Expr> order;
    post_order_visit(body, [&](const Expr& n) {
      order.push_back(n);
      for (const Expr& child : children(n)) ++uses[child.get()];
    });
    for (const Expr& n : order) {
      const auto* c = n->as<CallNode>();
      if (!c || !c->is_op() || uses[c] != 1) continue;
      std::vector<OptMessage> in;
      for (const Expr& arg : c->args) in.push_back(message_of(arg));
      if (OptMessage out = backward_prep(*c, in)) message_.emplace(c, std::move(*out));
    }
  }

  static OptMessage backward_prep(const CallNode& c, const std::vector<OptMessage>& in) {
    const std::string& op = c.op;
    if (op == "nn.relu") return in[0] ? OptMessage(ScaleMessage{in[0]->axes, true}) : OptMessage();
    if (op == "add" || op == "subtract") {
      const TensorType* l = tensor_of(c.args[0]);
      const TensorType* r = tensor_of(c.args[1]);
      if (!l || !r) return std::nullopt;
      if (in[0] && match_broadcast_to_left_axes(*l, *r, in[0]->axes)) return in[0];
      if (in[1] && match_broadcast_to_left_axes(*r, *l, in[1]->axes)) return in[1];
      if (in[0] && in[1] && in[0]->axes == in[1]->axes && l->shape == r->shape) return in[0];
      return std::nullopt;
    }
    if (op == "nn.conv2d") {
      const std::string dl = conv_string_attr(c, "data_layout", "NCHW");
      const std::int64_t ax = simple_conv_axis(c, conv_string_attr(c, "out_layout", dl.c_str()), 'C');
      if (ax < 0 || simple_conv_axis(c, conv_string_attr(c, "kernel_layout", "OIHW"), 'O') < 0) return std::nullopt;
      return ScaleMessage{{ax}, false};
    }
    if (op == "nn.bias_add") {
      const AttrValue* av = c.attrs.find("axis");
      const std::int64_t axis = av ? av->as_int() : 1;  // as given: Relay compares it unnormalized
      if (in[0] && in[0]->axes.size() == 1 && in[0]->axes[0] == axis) return in[0];
      return std::nullopt;
    }
    if (op == "nn.dense") return ScaleMessage{{1}, false};
    return std::nullopt;
  }

  Expr normal_call(const Call& c) { return ExprMutator::visit_call(c); }

  // Relay's BackwardTransformer::Transform: e rewritten so that its result comes out
  // multiplied by `scale` on message->axes (no message: rewritten as it is).
  Expr transform(const Expr& e, const OptMessage& message, const Expr& scale) {
    const auto c = downcast<CallNode>(e);
    if (!c) return mutate(e);  // a message only ever reaches a call
    if (!message) {
      if (auto it = call_memo_.find(c.get()); it != call_memo_.end()) return it->second;
    }
    if (message) return transform_scaled(c, *message, scale);
    Expr out = transform_plain(c);
    call_memo_[c.get()] = out;
    return out;
  }

  Expr transform_plain(const Call& c) {
    if (!c->is_op() || c->op != "multiply") return normal_call(c);
    // multiply: where a scale starts, when the other side can be it.
    const TensorType* l = tensor_of(c->args[0]);
    const TensorType* r = tensor_of(c->args[1]);
    if (!l || !r) return normal_call(c);
    if (OptMessage lm = message_of(c->args[0])) {
      Expr rhs = c->args[1];
      if (match_broadcast_to_left_axes(*l, *r, lm->axes, &rhs) &&
          (!lm->require_positive || is_all_positive_constant(rhs)))
        return transform(c->args[0], lm, rhs);
    } else if (OptMessage rm = message_of(c->args[1])) {
      Expr lhs = c->args[0];
      if (match_broadcast_to_left_axes(*r, *l, rm->axes, &lhs) &&
          (!rm->require_positive || is_all_positive_constant(lhs)))
        return transform(c->args[1], rm, lhs);
    }
    return normal_call(c);
  }

  // The calls that pass the scale on (nn.relu, nn.bias_add, add/subtract with one
  // scaled side) are followed down iteratively to the conv2d/dense that takes it,
  // then rebuilt on the way back: a chain of 100,000 relus costs no stack.
  Expr transform_scaled(Call c, const ScaleMessage& message, const Expr& scale) {
    struct Frame {
      Call call;
      Expr other;        // the operand that is not scaled (null for nn.relu)
      std::size_t side;  // the position of the scaled operand
    };
    auto plain = [&](const Expr& x) { return transform(x, std::nullopt, nullptr); };
    std::vector<Frame> path;
    Expr out;
    for (;;) {
      const std::string& op = c->op;
      Expr next;
      if (op == "nn.relu") {
        path.push_back({c, nullptr, 0});
        next = c->args[0];
      } else if (op == "nn.bias_add") {
        path.push_back({c, make_call("multiply", {plain(c->args[1]), scale}), 0});
        next = c->args[0];
      } else if (op == "add" || op == "subtract") {
        const OptMessage lm = message_of(c->args[0]);
        const OptMessage rm = message_of(c->args[1]);
        if (lm && rm) {  // both sides take the scale (two convolutions)
          out = make_call(op, {scaled_operand(c->args[0], message, scale), scaled_operand(c->args[1], message, scale)},
                          c->attrs, c->span);
          call_memo_[c.get()] = out;
          break;
        }
        const std::size_t k = lm ? 0 : 1;
        const TensorType* t = tensor_of(c->args[k]);
        path.push_back({c,
                        make_call("multiply", {plain(c->args[1 - k]),
                                               reshape_or_expand_to_match_axis(scale, t->shape, message.axes)}),
                        k});
        next = c->args[k];
      } else if (op == "nn.conv2d") {
        const std::string kl = conv_string_attr(*c, "kernel_layout", "OIHW");
        const std::int64_t ko = simple_conv_axis(*c, kl, 'O');
        Expr weight = make_call(
            "multiply",
            {plain(c->args[1]), expand_bias_to_match_axis(scale, static_cast<std::int64_t>(kl.size()), {ko})});
        out = make_call(op, {plain(c->args[0]), weight}, c->attrs, c->span);
        call_memo_[c.get()] = out;
        break;
      } else {  // nn.dense: the scale on the output's axis 1 scales the weight's rows
        Expr weight = make_call("multiply", {plain(c->args[1]), expand_bias_to_match_axis(scale, 2, {0})});
        out = make_call(op, {plain(c->args[0]), weight}, c->attrs, c->span);
        call_memo_[c.get()] = out;
        break;
      }
      c = scaled_call(next);
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const Call& p = it->call;
      std::vector<Expr> args;
      if (!it->other)
        args = {out};
      else
        args = it->side == 0 ? std::vector<Expr>{out, it->other} : std::vector<Expr>{it->other, out};
      out = make_call(p->op, std::move(args), p->attrs, p->span);
      call_memo_[p.get()] = out;
    }
    return out;
  }

  // An operand the prepare phase gave a message: always a call.
  Call scaled_call(const Expr& e) const {
    auto c = downcast<CallNode>(e);
    if (!c || !message_.count(c.get())) throw Error("fold_scale_axis: outstanding scale at " + describe(e));
    return c;
  }

  Expr scaled_operand(const Expr& e, const ScaleMessage& message, const Expr& scale) {
    return transform_scaled(scaled_call(e), message, scale);
  }

  std::unordered_map<const ExprNode*, ScaleMessage> message_;
  std::unordered_map<const ExprNode*, Expr> call_memo_;
};

}  // namespace detail

// forward_fold_scale_axis(fn, mod)
inline Function forward_fold_scale_axis(const Function& fn, const Module& /*mod*/) {
  infer_type(fn);
  return detail::ForwardScaleFolder().run(fn);
}

// forward_fold_scale_axis(mod)
inline Module forward_fold_scale_axis(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return forward_fold_scale_axis(fn, m); });
}

// backward_fold_scale_axis(fn, mod)
inline Function backward_fold_scale_axis(const Function& fn, const Module& /*mod*/) {
  infer_type(fn);
  return detail::BackwardScaleFolder().run(fn);
}

// backward_fold_scale_axis(mod)
inline Module backward_fold_scale_axis(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return backward_fold_scale_axis(fn, m); });
}

// fold_scale_axis(mod): Relay's FoldScaleAxis sequence, without a context.
inline Module fold_scale_axis(const Module& mod) {
  return fold_constant(forward_fold_scale_axis(backward_fold_scale_axis(mod)));
}

}  // namespace tinyir
