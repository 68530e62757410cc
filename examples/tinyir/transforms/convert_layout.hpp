// tinyir/transforms/convert_layout.hpp — ConvertLayout: run nn.conv2d in a desired
// data/kernel layout, inserting layout_transform at the boundaries.
//
// DesiredLayouts                         op name → {data layout, kernel layout or "default"}
// convert_layout(mod, desired)           every function
// convert_layout(fn, mod, desired)       one function (function-pass shape)
//
// Only "nn.conv2d" may be named (anything else throws Error). A conv2d whose layouts
// differ from the desired ones gets layout_transform on its inputs and runs in the
// desired layouts; "default" picks HWIO for NHWC and OIHW for NCHW. The new layout
// then flows through layout-agnostic consumers — nn.relu, clip, add, subtract,
// multiply, divide (the other operand is transformed too when it has the same rank,
// kept when it is a scalar), nn.bias_add, nn.batch_norm and nn.softmax (axis
// remapped), nn.max_pool2d and nn.global_avg_pool2d (layout attribute) — and is
// transformed back before any other consumer, a let binding, a tuple and the
// function's result. Transforms of the same value are made once. Types are inferred
// first. With FoldConstant afterwards, transforms of constants with data fold away.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "tinyir/ir.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

using DesiredLayouts = std::map<std::string, std::vector<std::string>>;

namespace detail {

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
    if (!enabled_) return fn;
    Expr body = original(visit(fn->body));
    if (body == fn->body) return fn;
    return make_function(fn->params, std::move(body), fn->ret_type, fn->attrs, fn->span);
  }

 private:
  // A rewritten value: `cur` is its layout when it differs from `orig` (the layout
  // its users expect); empty when it is in the original layout. `field0`: the
  // layout applies to field 0 of a tuple (nn.batch_norm).
  struct R {
    Expr expr;
    std::string cur;
    std::string orig;
    bool field0 = false;
  };

  static bool is_permutation_of(std::string a, std::string b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
  }

  Expr transform(const Expr& e, const std::string& src, const std::string& dst) {
    if (src == dst) return e;
    auto key = std::make_tuple(e.get(), src, dst);
    if (auto it = transforms_.find(key); it != transforms_.end()) return it->second;
    Expr t = make_call("layout_transform", {e}, {{"src_layout", src}, {"dst_layout", dst}}, e->span);
    transforms_.emplace(std::move(key), t);
    return t;
  }

  Expr original(const R& r) {
    if (r.cur.empty()) return r.expr;
    if (!r.field0) return transform(r.expr, r.cur, r.orig);
    // A batch_norm tuple (field 0 in another layout) used as a whole: rebuild it.
    auto key = std::make_tuple(r.expr.get(), r.cur + "#tuple", r.orig);
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

  // r in layout `want`, given that its original layout is `orig_layout`.
  Expr in_layout(const R& r, const std::string& orig_layout, const std::string& want) {
    if (!r.cur.empty() && !r.field0) return transform(r.expr, r.cur, want);
    return transform(r.expr, orig_layout, want);
  }

  static std::size_t rank_of(const Expr& e) {
    const auto* t = as_tensor(e->checked_type());
    return t ? t->shape.size() : 0;
  }

  static std::string attr_string(const CallNode& c, const char* name, const char* def) {
    const AttrValue* v = c.attrs.find(name);
    return v && v->is_string() && !v->as_string().empty() ? v->as_string() : def;
  }

  // The call rebuilt with new args/attrs; the same node when nothing changed.
  static Expr rebuild(const Call& c, std::vector<Expr> args, const Attrs& attrs) {
    if (args == c->args && attrs == c->attrs) return c;
    return make_call(c->op, std::move(args), attrs, c->span);
  }

  static std::int64_t remap_axis(std::int64_t axis, const std::string& orig, const std::string& cur) {
    const auto rank = static_cast<std::int64_t>(orig.size());
    if (axis < 0) axis += rank;
    return static_cast<std::int64_t>(cur.find(orig[static_cast<std::size_t>(axis)]));
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
        return {e, "", ""};
      case ExprKind::Let: {
        const auto* l = e->as<LetNode>();
        Expr value = original(visit(l->value));
        Expr body = original(visit(l->body));
        if (value == l->value && body == l->body) return {e, "", ""};
        return {make_let(l->var, value, body, l->span), "", ""};
      }
      case ExprKind::Function: {
        const auto* f = e->as<FunctionNode>();
        if (f->is_primitive()) return {e, "", ""};
        Expr body = original(visit(f->body));
        if (body == f->body) return {e, "", ""};
        return {make_function(f->params, body, f->ret_type, f->attrs, f->span), "", ""};
      }
      case ExprKind::Tuple: {
        const auto* t = e->as<TupleNode>();
        std::vector<Expr> fields;
        for (const auto& x : t->fields) fields.push_back(original(visit(x)));
        if (fields == t->fields) return {e, "", ""};
        return {make_tuple_expr(std::move(fields), t->span), "", ""};
      }
      case ExprKind::TupleGetItem: {
        const auto* g = e->as<TupleGetItemNode>();
        R t = visit(g->tuple);
        Expr tuple = t.field0 ? t.expr : original(t);
        Expr out = tuple == g->tuple ? e : Expr(make_tuple_get_item(tuple, g->index, g->span));
        if (t.field0 && g->index == 0) return {out, t.cur, t.orig};
        return {out, "", ""};
      }
      case ExprKind::Call:
        return call(std::static_pointer_cast<const CallNode>(e));
    }
    return {e, "", ""};
  }

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
      if (fn == c->fn && args == c->args) return {c, "", ""};
      return {detail::rebuild_call(*c, fn, std::move(args)), "", ""};
    }
    const std::string& op = c->op;
    const bool tracked0 = !a.empty() && !a[0].cur.empty() && !a[0].field0;

    if (op == "nn.conv2d") {
      const std::string dl = attr_string(*c, "data_layout", "NCHW");
      const std::string kl = attr_string(*c, "kernel_layout", "OIHW");
      const std::string out_orig = attr_string(*c, "out_layout", dl.c_str());
      std::string want_k = kernel_layout_;
      if (want_k == "default") want_k = data_layout_ == "NHWC" ? "HWIO" : data_layout_ == "NCHW" ? "OIHW" : kl;
      Attrs attrs = c->attrs;
      attrs.set("data_layout", data_layout_);
      attrs.set("kernel_layout", want_k);
      attrs.erase("out_layout");
      std::vector<Expr> args{in_layout(a[0], dl, data_layout_), in_layout(a[1], kl, want_k)};
      Expr out = rebuild(c, std::move(args), normalize_op_attrs(*c->op_info(), attrs));
      return {out, data_layout_ == out_orig ? "" : data_layout_, out_orig};
    }
    if (tracked0 && (op == "nn.relu" || op == "clip")) return {rebuild(c, {a[0].expr}, c->attrs), a[0].cur, a[0].orig};
    if (op == "add" || op == "subtract" || op == "multiply" || op == "divide") {
      const bool t0 = !a[0].cur.empty() && !a[0].field0;
      const bool t1 = !a[1].cur.empty() && !a[1].field0;
      if (t0 && t1 && a[0].cur == a[1].cur && a[0].orig == a[1].orig)
        return {rebuild(c, {a[0].expr, a[1].expr}, c->attrs), a[0].cur, a[0].orig};
      if (t0 != t1) {
        const R& t = t0 ? a[0] : a[1];
        const R& u = t0 ? a[1] : a[0];
        const Expr& u_node = t0 ? c->args[1] : c->args[0];
        const std::size_t urank = rank_of(u_node);
        if (urank == 0 || urank == t.orig.size()) {
          Expr ux = urank == 0 ? original(u) : transform(original(u), t.orig, t.cur);
          std::vector<Expr> args = t0 ? std::vector<Expr>{t.expr, ux} : std::vector<Expr>{ux, t.expr};
          return {rebuild(c, std::move(args), c->attrs), t.cur, t.orig};
        }
      }
      return {rebuild(c, originals(), c->attrs), "", ""};
    }
    if (tracked0 && (op == "nn.bias_add" || op == "nn.batch_norm" || op == "nn.softmax")) {
      const AttrValue* av = c->attrs.find("axis");
      const std::int64_t def = op == "nn.softmax" ? -1 : 1;
      Attrs attrs = c->attrs;
      attrs.set("axis", remap_axis(av ? av->as_int() : def, a[0].orig, a[0].cur));
      std::vector<Expr> args = originals();
      args[0] = a[0].expr;
      return {rebuild(c, std::move(args), normalize_op_attrs(*c->op_info(), attrs)), a[0].cur, a[0].orig,
              op == "nn.batch_norm"};
    }
    if (tracked0 && (op == "nn.max_pool2d" || op == "nn.global_avg_pool2d") &&
        attr_string(*c, "layout", "NCHW") == a[0].orig) {
      Attrs attrs = c->attrs;
      attrs.set("layout", a[0].cur);
      return {rebuild(c, {a[0].expr}, normalize_op_attrs(*c->op_info(), attrs)), a[0].cur, a[0].orig};
    }
    return {rebuild(c, originals(), c->attrs), "", ""};
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
