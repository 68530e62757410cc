// tinyir/transforms/convert_layout.hpp — ConvertLayout: run nn.conv2d in a desired
// data/kernel layout, inserting layout_transform at the boundaries, as Relay's
// ConvertLayout (src/relay/transforms/convert_layout.cc, transform_layout.h) does.
//
// DesiredLayouts                         op name → {data layout, kernel layout or "default"}
// convert_layout(mod, desired)           every function
// convert_layout(fn, mod, desired)       one function (function-pass shape)
//
// Only "nn.conv2d" may be named (anything else throws Error); "default" picks HWIO
// for NHWC and OIHW for NCHW. Types are inferred first. The rewrite is Relay's
// LayoutRewriter: every value carries the layout its users expect (old) and the one
// it is in now (new), either possibly undefined (a parameter, a constant, the result
// of an operator without layout inference). Each operator call asks its operator's
// layout inference (Relay's FInferCorrectLayout) twice — from the old layouts, then
// from the new ones — and each argument is transformed from what it is to what the
// call wants. The inference rules are Relay's:
//
//   nn.conv2d                  data/kernel layouts from its attributes, out = data layout
//   nn.relu, clip              the first defined input layout (ElemwiseArbitraryLayout)
//   add, subtract, multiply,   BinaryBroadcastLayout: an undefined operand takes the
//   divide                     trailing sub-layout of the defined one; after a rewrite the
//                              smaller operand is transformed like the larger one
//   nn.batch_norm              its axis follows the data's channel; gamma... are "C"
//   nn.max_pool2d,             the `layout` attribute follows the input
//   nn.global_avg_pool2d
//   nn.dense                   "NC" in and out
//
// Any other operator (nn.bias_add, nn.softmax, nn.batch_flatten, reshape, expand_dims,
// layout_transform), a let binding, a tuple and the function's result see their
// operands back in the old layout. A transform from a layout with fewer axes than
// the target first expands the operand (expand_dims at axis 0, the missing axes in
// front: "C" → "NC", "CHW" → "NCHW"), then transforms what is still out of order, so
// add(dense(...), bias) gets expand_dims(bias) and add(conv2d in NHWC, b: (C, 1, 1))
// gets layout_transform(expand_dims(b), "NCHW", "NHWC"); scalars are left alone.
// Transforms of the same value are made once. With FoldConstant afterwards, the
// transforms and expansions of constants with data fold away.
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "tinyir/ir.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

using DesiredLayouts = std::map<std::string, std::vector<std::string>>;

namespace detail {

// A layout: one upper-case letter per axis ("NCHW"; "" for a scalar), or nullopt
// when undefined (Relay's Layout::Undef()).
using Layout = std::optional<std::string>;

// Relay's InferCorrectLayoutOutput.
struct LayoutInference {
  std::vector<Layout> inputs;
  std::vector<Layout> outputs;
  Attrs attrs;
};

// Relay's TryTransformLike for layouts without split axes: `old` renamed the way
// `ref_old` becomes `ref_new`, aligned on their trailing axes; nullopt when the two
// do not line up.
inline Layout try_transform_like(const std::string& old, const std::string& ref_old, const std::string& ref_new) {
  const std::string& large = ref_old.size() > old.size() ? ref_old : old;
  const std::string& small = ref_old.size() > old.size() ? old : ref_old;
  const std::string large_sub = large.substr(large.size() - small.size());
  const std::string rest = large.substr(0, large.size() - small.size());
  for (char c : rest)
    if (large_sub.find(c) != std::string::npos) return std::nullopt;
  std::map<char, char> to, back;  // Isomorphic(large_sub, small)
  for (std::size_t i = 0; i < small.size(); ++i) {
    if (to.emplace(large_sub[i], small[i]).first->second != small[i]) return std::nullopt;
    if (back.emplace(small[i], large_sub[i]).first->second != large_sub[i]) return std::nullopt;
  }
  if (old.empty()) return old;
  if (old.size() > ref_old.size()) return std::nullopt;
  std::array<int, 26> mapping{};
  std::array<bool, 26> used{};
  mapping.fill(-1);
  auto idx = [](char c) { return static_cast<std::size_t>(c - 'A'); };
  for (std::size_t k = 0; k < old.size(); ++k) {
    const char r = ref_old[ref_old.size() - 1 - k];
    const char o = old[old.size() - 1 - k];
    mapping[idx(r)] = o - 'A';
    used[idx(o)] = true;
  }
  for (std::size_t k = ref_old.size(); k-- > 0;) {
    const char r = ref_old[k];
    if (mapping[idx(r)] != -1) continue;
    int pick = used[idx(r)] ? -1 : static_cast<int>(idx(r));
    for (int i = 0; pick == -1 && i < 26; ++i)
      if (!used[static_cast<std::size_t>(i)]) pick = i;
    if (pick == -1) return std::nullopt;
    mapping[idx(r)] = pick;
    used[static_cast<std::size_t>(pick)] = true;
  }
  std::string out;
  for (char c : ref_new) {
    if (c < 'A' || c > 'Z' || mapping[idx(c)] == -1) return std::nullopt;
    out += static_cast<char>('A' + mapping[idx(c)]);
  }
  return out;
}

class LayoutConverter {
 public:
  explicit LayoutConverter(const DesiredLayouts& desired) {
    for (const auto& [op, layouts] : desired) {
      if (op != "nn.conv2d")
        throw Error("convert_layout: expected desired layouts for nn.conv2d, found an entry for '" + op + "'");
      if (layouts.empty() || layouts.size() > 2)
        throw Error("convert_layout: expected {data_layout[, kernel_layout]} for nn.conv2d, found " +
                    std::to_string(layouts.size()) + " layouts");
      data_layout_ = layouts[0];
      kernel_layout_ = layouts.size() > 1 ? layouts[1] : "default";
      if (!is_permutation_of(data_layout_, "NCHW"))
        throw Error("convert_layout: expected a data layout that permutes NCHW for nn.conv2d, found \"" + data_layout_ +
                    "\"");
      if (kernel_layout_ != "default" && !is_permutation_of(kernel_layout_, "OIHW"))
        throw Error(
            "convert_layout: expected a kernel layout that permutes OIHW (or \"default\") for nn.conv2d, "
            "found \"" +
            kernel_layout_ + "\"");
      enabled_ = true;
    }
  }

  Function run(const Function& fn) {
    Expr body = original(visit(fn->body));
    if (body == fn->body) return fn;
    return make_function(fn->params, std::move(body), fn->ret_type, fn->attrs, fn->span);
  }

 private:
  // A rewritten value (Relay's LayoutAlternatedExpr): `expr` is in layout `cur`,
  // its users expect `orig`. `field0`: the layouts are those of field 0 of a tuple
  // (nn.batch_norm's result; its other fields are in "C").
  struct R {
    Expr expr;
    Layout orig;
    Layout cur;
    bool field0 = false;
  };

  static bool is_permutation_of(std::string a, std::string b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
  }

  static std::size_t rank_of(const Expr& e) {
    const auto* t = as_tensor(e->checked_type());
    return t ? t->shape.size() : 0;
  }

  // Relay's TransformMemorizer::Transform: e (in src) in dst, made once per (e, src, dst).
  Expr transform(const Expr& e, const Layout& src, const Layout& dst) {
    if (src == dst || !src || !dst) return e;
    auto key = std::make_tuple(e.get(), *src, *dst);
    if (auto it = transforms_.find(key); it != transforms_.end()) return it->second;
    Expr t = transform_helper(e, *src, *dst);
    transforms_.emplace(std::move(key), t);
    return t;
  }

  static Expr transform_helper(const Expr& e, std::string src, const std::string& dst) {
    Expr input = e;
    if (src.size() < dst.size()) {
      // A scalar broadcasts as it is (only a typed node can tell).
      if (const auto* t = as_tensor(e->checked_type()); t && t->shape.empty()) return e;
      const auto num_new = static_cast<std::int64_t>(dst.size() - src.size());
      std::string expanded;  // Layout::ExpandPrimal: the missing axes first, in dst's order
      for (char c : dst)
        if (src.find(c) == std::string::npos) expanded += c;
      src = expanded + src;
      input = make_call("expand_dims", {input}, {{"axis", 0}, {"num_newaxis", num_new}}, e->span);
      if (src == dst) return input;
    }
    if (!is_permutation_of(src, dst))
      throw Error("convert_layout: cannot insert a layout transform between the inconvertible layouts \"" + src +
                  "\" and \"" + dst + "\" for " + describe(e));
    return make_call("layout_transform", {input}, {{"src_layout", src}, {"dst_layout", dst}}, e->span);
  }

  // Relay's LayoutAlternatedExpr::Realize: r back in the layout its users expect.
  Expr original(const R& r) {
    if (!r.field0) return transform(r.expr, r.cur, r.orig);
    if (r.cur == r.orig) return r.expr;
    // A batch_norm tuple (field 0 in another layout) used as a whole: rebuild it.
    auto key = std::make_tuple(r.expr.get(), *r.cur + "#tuple", *r.orig);
    if (auto it = transforms_.find(key); it != transforms_.end()) return it->second;
    std::vector<Expr> fields;
    for (int i = 0; i < 3; ++i) {
      Expr f = make_tuple_get_item(r.expr, i, r.expr->span);
      fields.push_back(i == 0 ? transform(f, r.cur, r.orig) : f);
    }
    Expr t = make_tuple_expr(std::move(fields), r.expr->span);
    transforms_.emplace(std::move(key), t);
    return t;
  }

  static std::string attr_string(const Attrs& attrs, const char* name, const char* def) {
    const AttrValue* v = attrs.find(name);
    return v && v->is_string() && !v->as_string().empty() ? v->as_string() : def;
  }

  // The call rebuilt with new args/attrs; the same node when nothing changed.
  static Expr rebuild(const Call& c, std::vector<Expr> args, const Attrs& attrs) {
    if (args == c->args && attrs == c->attrs) return c;
    return make_call(c->op, std::move(args), attrs, c->span);
  }

  // Relay's BinaryBroadcastLayoutHelper (layouts without split axes).
  static std::optional<LayoutInference> broadcast_layout(const Attrs& attrs, const std::vector<Layout>* new_in,
                                                         const std::vector<Layout>& old_in,
                                                         const std::vector<std::size_t>& ranks) {
    const std::size_t old_large = ranks[0] >= ranks[1] ? 0 : 1;
    std::vector<Layout> layouts = old_in;
    LayoutInference out;
    if (!layouts[0] && !layouts[1]) return std::nullopt;
    if (!layouts[0] || !layouts[1]) {
      const std::size_t def = layouts[0] ? 0 : 1;
      const std::size_t undef = 1 - def;
      if (ranks[def] < ranks[undef] || layouts[def]->size() < ranks[undef]) return std::nullopt;
      layouts[undef] = layouts[def]->substr(layouts[def]->size() - ranks[undef]);
      out = {layouts, {layouts[def]}, attrs};
    } else {
      out = {layouts, {layouts[old_large]}, attrs};
    }
    if (!new_in) return out;
    const Layout ret = (*new_in)[old_large];
    const std::size_t large = (*new_in)[0]->size() >= (*new_in)[1]->size() ? 0 : 1;
    const std::size_t small = 1 - large;
    Layout target = try_transform_like(*layouts[small], *layouts[large], *(*new_in)[large]);
    if (!target) return std::nullopt;
    layouts[large] = (*new_in)[large];
    layouts[small] = target;
    return LayoutInference{layouts, {ret}, attrs};
  }

  // Relay's FInferCorrectLayout of tinyir's operators; nullopt for an operator
  // without one or when a layout stays undefined (the rewrite falls back).
  static std::optional<LayoutInference> infer_layouts(const std::string& op, const Attrs& attrs,
                                                      const std::vector<Layout>* new_in,
                                                      const std::vector<Layout>& old_in,
                                                      const std::vector<std::size_t>& ranks) {
    std::optional<LayoutInference> out;
    if (op == "nn.conv2d") {
      const std::string dl = attr_string(attrs, "data_layout", "NCHW");
      out = LayoutInference{
          {dl, attr_string(attrs, "kernel_layout", "OIHW")}, {attr_string(attrs, "out_layout", dl.c_str())}, attrs};
    } else if (op == "nn.relu" || op == "clip") {
      Layout ret;
      if (new_in) {
        ret = (*new_in)[0];
      } else {
        for (const Layout& l : old_in)
          if (l) {
            ret = l;
            break;
          }
      }
      out = LayoutInference{std::vector<Layout>(old_in.size(), ret), {ret}, attrs};
    } else if (op == "add" || op == "subtract" || op == "multiply" || op == "divide") {
      out = broadcast_layout(attrs, new_in, old_in, ranks);
    } else if (op == "nn.batch_norm") {
      Attrs a = attrs;
      Layout ret;
      if (new_in && (*new_in)[0] && old_in[0]) {
        const AttrValue* av = attrs.find("axis");
        std::int64_t axis = av ? av->as_int() : 1;
        if (axis < 0) axis += static_cast<std::int64_t>(ranks[0]);
        if (axis < 0 || static_cast<std::size_t>(axis) >= old_in[0]->size()) return std::nullopt;
        const auto pos = (*new_in)[0]->find((*old_in[0])[static_cast<std::size_t>(axis)]);
        if (pos == std::string::npos) return std::nullopt;
        a.set("axis", static_cast<std::int64_t>(pos));
        ret = (*new_in)[0];
      } else {
        ret = old_in[0];
      }
      out = LayoutInference{{ret, "C", "C", "C", "C"}, {ret, "C", "C"}, a};
    } else if (op == "nn.max_pool2d" || op == "nn.global_avg_pool2d") {
      Attrs a = attrs;
      if (new_in && (*new_in)[0]) a.set("layout", *(*new_in)[0]);
      const std::string layout = attr_string(a, "layout", "NCHW");
      out = LayoutInference{{layout}, {layout}, a};
    } else if (op == "nn.dense") {
      out = LayoutInference{{"NC", "NC"}, {"NC"}, attrs};
    }
    if (!out) return std::nullopt;
    for (const auto* v : {&out->inputs, &out->outputs})
      for (const Layout& l : *v)
        if (!l) return std::nullopt;
    return out;
  }

  // The attributes of nn.conv2d in the desired layouts (Relay's convert_conv2d).
  Attrs converted_conv2d_attrs(const Attrs& attrs) const {
    std::string kernel = kernel_layout_;
    if (kernel == "default")
      kernel = data_layout_ == "NHWC"   ? "HWIO"
               : data_layout_ == "NCHW" ? "OIHW"
                                        : attr_string(attrs, "kernel_layout", "OIHW");
    Attrs a = attrs;
    a.set("data_layout", data_layout_);
    a.set("kernel_layout", kernel);
    a.erase("out_layout");
    return a;
  }

  // The operands compute() visits, in its order: a call's arguments then callee, a
  // let's value then body, a tuple's fields, a projection's tuple; not a function's body.
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

  // visit(e): memoized; the operands under e are visited first from an explicit
  // stack, so compute() recurses one level only whatever the program's length.
  R visit(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    walk_post_order(
        e, operands, [this](const Expr& n) { return memo_.count(n.get()) != 0; },
        [this](const Expr& n) { memo_.emplace(n.get(), compute(n)); });
    R r = compute(e);
    memo_.emplace(e.get(), r);
    return r;
  }

  R compute(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Var:
      case ExprKind::Constant:
        return {e, {}, {}};
      case ExprKind::Let: {
        const auto* l = e->as<LetNode>();
        Expr value = original(visit(l->value));
        Expr body = original(visit(l->body));
        if (value == l->value && body == l->body) return {e, {}, {}};
        return {make_let(l->var, value, body, l->span), {}, {}};
      }
      case ExprKind::Function: {
        const auto* f = e->as<FunctionNode>();
        if (f->is_primitive()) return {e, {}, {}};
        Expr body = original(visit(f->body));
        if (body == f->body) return {e, {}, {}};
        return {make_function(f->params, body, f->ret_type, f->attrs, f->span), {}, {}};
      }
      case ExprKind::Tuple: {
        const auto* t = e->as<TupleNode>();
        std::vector<Expr> fields;
        for (const auto& x : t->fields) fields.push_back(original(visit(x)));
        if (fields == t->fields) return {e, {}, {}};
        return {make_tuple_expr(std::move(fields), t->span), {}, {}};
      }
      case ExprKind::TupleGetItem: {
        const auto* g = e->as<TupleGetItemNode>();
        R t = visit(g->tuple);
        Expr tuple = t.field0 ? t.expr : original(t);
        Expr out = tuple == g->tuple ? e : Expr(make_tuple_get_item(tuple, g->index, g->span));
        if (t.field0 && g->index == 0) return {out, t.orig, t.cur};
        if (t.field0) return {out, "C", "C"};
        return {out, {}, {}};
      }
      case ExprKind::Call:
        return call(std::static_pointer_cast<const CallNode>(e));
    }
    return {e, {}, {}};
  }

  // Relay's LayoutRewriter for one call.
  R call(const Call& c) {
    std::vector<R> a;
    for (const auto& x : c->args) a.push_back(visit(x));
    auto originals = [&] {
      std::vector<Expr> out;
      for (const auto& r : a) out.push_back(original(r));
      return out;
    };
    if (!c->is_op()) {
      Expr fn = original(visit(c->fn));
      std::vector<Expr> args = originals();
      if (fn == c->fn && args == c->args) return {c, {}, {}};
      return {detail::rebuild_call(*c, fn, std::move(args)), {}, {}};
    }
    const std::string& op = c->op;
    // old_prd/new_prd: the arguments' layouts as their producers left them (a whole
    // batch_norm tuple as an argument is realized first).
    std::vector<Expr> values;
    std::vector<Layout> old_prd, new_prd;
    std::vector<std::size_t> ranks;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].field0) {
        values.push_back(original(a[i]));
        old_prd.emplace_back();
        new_prd.emplace_back();
      } else {
        values.push_back(a[i].expr);
        old_prd.push_back(a[i].orig);
        new_prd.push_back(a[i].cur);
      }
      ranks.push_back(rank_of(c->args[i]));
    }
    auto fall_back = [&]() -> R { return {rebuild(c, originals(), c->attrs), {}, {}}; };
    // old_cur: what the call wants of its arguments before the rewrite.
    const std::optional<LayoutInference> before = infer_layouts(op, c->attrs, nullptr, old_prd, ranks);
    if (!before || before->inputs.size() != a.size()) return fall_back();
    std::vector<Layout> new_prd_inferred = new_prd, old_prd_inferred = old_prd;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!new_prd_inferred[i]) new_prd_inferred[i] = before->inputs[i];
      if (!old_prd_inferred[i]) old_prd_inferred[i] = before->inputs[i];
    }
    // The call in its new layouts (ConvertLayout's CallWithNewLayouts), then new_cur:
    // what it wants of its arguments now.
    const Attrs new_attrs = op == "nn.conv2d" && enabled_ ? converted_conv2d_attrs(before->attrs) : before->attrs;
    const std::optional<LayoutInference> after =
        infer_layouts(op, new_attrs, &new_prd_inferred, old_prd_inferred, ranks);
    if (!after || after->inputs.size() != a.size() || after->outputs.size() != before->outputs.size())
      return fall_back();
    std::vector<Expr> args;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const Layout& old_cur = before->inputs[i];
      const Layout& new_cur = after->inputs[i];
      Expr arg = values[i];
      if (old_cur == old_prd[i]) {  // the two transforms fuse into one
        arg = transform(arg, new_prd[i], new_cur);
      } else {
        if (old_prd[i]) arg = transform(arg, new_prd[i], old_prd[i]);
        arg = transform(arg, old_cur, new_cur);
      }
      args.push_back(std::move(arg));
    }
    Attrs attrs = after->attrs == c->attrs ? c->attrs : normalize_op_attrs(*c->op_info(), after->attrs);
    return {rebuild(c, std::move(args), attrs), before->outputs[0], after->outputs[0], op == "nn.batch_norm"};
  }

  bool enabled_ = false;
  std::string data_layout_, kernel_layout_;
  std::unordered_map<const ExprNode*, R> memo_;
  std::map<std::tuple<const ExprNode*, std::string, std::string>, Expr> transforms_;
};

}  // namespace detail

// convert_layout(fn, mod, desired)
inline Function convert_layout(const Function& fn, const Module& /*mod*/, const DesiredLayouts& desired) {
  infer_type(fn);
  return detail::LayoutConverter(desired).run(fn);
}

// convert_layout(mod, desired)
inline Module convert_layout(const Module& mod, const DesiredLayouts& desired) {
  return map_functions(mod, [&](const Function& fn, const Module& m) { return convert_layout(fn, m, desired); });
}

}  // namespace tinyir
