// tinyir/transforms/to_a_normal_form.hpp — ToANormalForm: bind every computation
// to a let variable.
//
// to_a_normal_form(mod)              every function
// to_a_normal_form(fn, mod)          one function (function-pass shape)
//
// Every Call, Tuple, TupleGetItem and nested Function is bound, operands first, to a
// fresh variable %v0, %v1, ... (numbered per global function), so operands are
// variables or constants; a shared node is bound once. The body ends with the last
// variable, as Relay's does. Existing lets keep their variables; a let in value
// position is flattened into the chain. Nested functions are converted on their own
// (their bindings stay inside), Primitive functions are left as they are. The new
// lets carry the spans of the expressions they bind. No recursion along chains of
// operands or lets: 100,000 bindings convert whatever the machine's stack.
#pragma once

#include <unordered_map>
#include <vector>

#include "tinyir/ir.hpp"

namespace tinyir {

namespace detail {

class ANormalizer {
 public:
  Function run(const Function& f) {
    return make_function(f->params, normalize_block(f->body), f->ret_type, f->attrs, f->span);
  }

 private:
  struct Binding {
    Var var;
    Expr value;
    std::optional<Span> span;
  };
  using Block = std::vector<Binding>;

  static bool is_atom(const Expr& e) { return e->kind == ExprKind::Var || e->kind == ExprKind::Constant; }

  Expr normalize_block(const Expr& body) {
    memo_.emplace_back();
    Block b;
    Expr result = atom(body, b);
    memo_.pop_back();
    for (auto it = b.rbegin(); it != b.rend(); ++it) result = make_let(it->var, it->value, result, it->span);
    return result;
  }

  const Expr* lookup(const ExprNode* e) const {
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it)
      if (auto f = it->find(e); f != it->end()) return &f->second;
    return nullptr;
  }

  // The operands atom() binds before a node: a call's callee then arguments, a
  // tuple's fields, a projection's tuple.
  static void operands(const ExprNode& e, std::vector<Expr>& out) {
    if (const auto* c = e.as<CallNode>()) {
      if (c->fn) out.push_back(c->fn);
      out.insert(out.end(), c->args.begin(), c->args.end());
    } else if (const auto* t = e.as<TupleNode>()) {
      out.insert(out.end(), t->fields.begin(), t->fields.end());
    } else if (const auto* g = e.as<TupleGetItemNode>()) {
      out.push_back(g->tuple);
    }
  }

  // An atom (variable or constant) standing for e; e's computation goes to b.
  Expr atom(const Expr& e, Block& b) {
    if (is_atom(e)) return e;
    if (const Expr* known = lookup(e.get())) return *known;
    // The operands first, iteratively, in the order value_of() takes them: its
    // atom() calls then find them bound and go one level deep.
    walk_post_order(
        e, operands, [this](const Expr& n) { return is_atom(n) || lookup(n.get()) != nullptr; },
        [&](const Expr& n) { atom(n, b); });
    Expr value = value_of(e, b);
    if (is_atom(value)) {
      memo_.back().emplace(e.get(), value);
      return value;
    }
    Var v = make_var("v" + std::to_string(counter_++));
    b.push_back({v, std::move(value), e->span});
    memo_.back().emplace(e.get(), v);
    return v;
  }

  // e with atomic operands (its operands' computations go to b).
  Expr value_of(const Expr& e, Block& b) {
    if (is_atom(e)) return e;
    if (const Expr* known = lookup(e.get())) return *known;
    switch (e->kind) {
      case ExprKind::Let: {  // a chain of lets, in a loop
        Expr cur = e;
        while (const auto* l = cur->as<LetNode>()) {
          Expr v = value_of(l->value, b);
          if (!is_atom(v) && !lookup(l->value.get())) memo_.back().emplace(l->value.get(), l->var);
          b.push_back({l->var, std::move(v), l->span});
          cur = l->body;
          if (is_atom(cur)) return cur;
          if (const Expr* known = lookup(cur.get())) return *known;
        }
        return value_of(cur, b);
      }
      case ExprKind::Function: {
        const auto* f = e->as<FunctionNode>();
        if (f->is_primitive()) return e;
        return make_function(f->params, normalize_block(f->body), f->ret_type, f->attrs, f->span);
      }
      case ExprKind::Call: {
        const auto* c = e->as<CallNode>();
        Expr fn = c->fn ? atom(c->fn, b) : nullptr;
        std::vector<Expr> args;
        for (const auto& a : c->args) args.push_back(atom(a, b));
        return detail::rebuild_call(*c, std::move(fn), std::move(args));
      }
      case ExprKind::Tuple: {
        std::vector<Expr> fields;
        for (const auto& f : e->as<TupleNode>()->fields) fields.push_back(atom(f, b));
        return make_tuple_expr(std::move(fields), e->span);
      }
      case ExprKind::TupleGetItem: {
        const auto* g = e->as<TupleGetItemNode>();
        return make_tuple_get_item(atom(g->tuple, b), g->index, e->span);
      }
      case ExprKind::Var:
      case ExprKind::Constant:
        break;
    }
    return e;
  }

  int counter_ = 0;
  std::vector<std::unordered_map<const ExprNode*, Expr>> memo_;
};

}  // namespace detail

// to_a_normal_form(fn, mod)
inline Function to_a_normal_form(const Function& fn, const Module& /*mod*/) { return detail::ANormalizer().run(fn); }

// to_a_normal_form(mod)
inline Module to_a_normal_form(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return to_a_normal_form(fn, m); });
}

}  // namespace tinyir
