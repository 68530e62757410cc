// tinyir/functor.hpp — walking and rewriting expression DAGs.
//
// children(expr)                 the operands of a node, in evaluation order
// post_order_visit(expr, f)      f(const Expr&) on every distinct node, operands first
//                                (descends into let values/bodies and function bodies)
// ExprMutator                    memoized rewriter: override visit_* and call mutate();
//                                a shared node is rewritten once, so sharing survives,
//                                and an unchanged node is returned as is (type and span kept)
// substitute(expr, map)          expr with variables replaced (map: const VarNode* → Expr)
// detail::walk_post_order(root, operands, done, visit)
//                                the iterative walk the above (and the printer, type
//                                inference and the passes) are built on
//
// Depth. None of these recurses along a chain of operands: a program of 100,000
// bindings (`%1 = add(%0, %0); ...`) or a let chain of that length is walked with an
// explicit stack, whatever the machine's stack. ExprMutator::mutate(e) first rewrites
// the not yet rewritten dataflow operands under e (a call's callee and arguments, a
// tuple's fields, a projection's tuple, a let's variable, value and body) in the order
// the default visit_* take them, operands first, so that the mutate() calls inside
// visit_* find them memoized and go one level deep only (Relay's MixedModeMutator).
// Function bodies are not walked ahead: a visit_function override may skip them (a
// Primitive function), and nested functions nest as deep as the text does (the parser
// bounds that: kMaxNestingDepth). One difference from a purely recursive mutator: an
// override that does not rewrite a let's value (DeadCodeElimination's) finds it
// rewritten anyway; rewrites are pure, so only the time is lost.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tinyir/expr.hpp"

namespace tinyir {

// children(e): the operands of e. A Let gives var, value, body; a Function its
// params then body; a Call its args, then its callee when that is an expression
// (the order the printer binds them in).
inline std::vector<Expr> children(const Expr& e) {
  std::vector<Expr> out;
  switch (e->kind) {
    case ExprKind::Var:
    case ExprKind::Constant:
      break;
    case ExprKind::Call: {
      const auto* c = e->as<CallNode>();
      out = c->args;
      if (c->fn) out.push_back(c->fn);
      break;
    }
    case ExprKind::Let: {
      const auto* l = e->as<LetNode>();
      out = {l->var, l->value, l->body};
      break;
    }
    case ExprKind::Tuple:
      out = e->as<TupleNode>()->fields;
      break;
    case ExprKind::TupleGetItem:
      out.push_back(e->as<TupleGetItemNode>()->tuple);
      break;
    case ExprKind::Function: {
      const auto* f = e->as<FunctionNode>();
      out.assign(f->params.begin(), f->params.end());
      out.push_back(f->body);
      break;
    }
  }
  return out;
}

namespace detail {

// walk_post_order(root, operands, done, visit): the nodes under root (root itself
// excluded) in the order a recursive post-order walk takes them, without recursion.
// operands(node, out) appends the operands of `node` to walk into, in order (none for
// a leaf); done(e) says e needs no visit (called once per arrival at e, so it may mark
// e as seen); visit(e) is called after e's operands were visited, and must make
// done(e) true if e is to be visited once. The stack is a heap vector: the depth of
// the program does not matter.
template <class Operands, class Done, class Visit>
void walk_post_order(const Expr& root, Operands&& operands, Done&& done, Visit&& visit) {
  struct Frame {
    Expr node;
    std::size_t begin, next, end;  // its operands: ops[begin, end)
  };
  std::vector<Expr> ops;  // the operands of the frames, a stack of its own
  operands(*root, ops);
  std::vector<Frame> stack{{root, 0, 0, ops.size()}};
  while (true) {
    Frame& top = stack.back();
    if (top.next < top.end) {
      Expr c = ops[top.next++];
      if (!c || done(c)) continue;
      const std::size_t begin = ops.size();
      operands(*c, ops);
      if (ops.size() == begin) {
        visit(c);
      } else {
        stack.push_back({std::move(c), begin, begin, ops.size()});  // `top` is not used after this
      }
      continue;
    }
    if (stack.size() == 1) break;  // the root: the caller's
    Expr n = std::move(top.node);
    ops.resize(top.begin);
    stack.pop_back();
    visit(n);
  }
}

// children(e) appended to out.
inline void append_children(const ExprNode& e, std::vector<Expr>& out) {
  switch (e.kind) {
    case ExprKind::Var:
    case ExprKind::Constant:
      break;
    case ExprKind::Call: {
      const auto* c = e.as<CallNode>();
      out.insert(out.end(), c->args.begin(), c->args.end());
      if (c->fn) out.push_back(c->fn);
      break;
    }
    case ExprKind::Let: {
      const auto* l = e.as<LetNode>();
      out.push_back(l->var);
      out.push_back(l->value);
      out.push_back(l->body);
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
    case ExprKind::Function: {
      const auto* f = e.as<FunctionNode>();
      out.insert(out.end(), f->params.begin(), f->params.end());
      out.push_back(f->body);
      break;
    }
  }
}

// The operands ExprMutator rewrites ahead, in the default visit_* order: a call's
// callee then arguments, a let's variable, value and body, a tuple's fields, a
// projection's tuple; not a function's body.
inline void mutator_operands(const ExprNode& e, std::vector<Expr>& out) {
  switch (e.kind) {
    case ExprKind::Call: {
      const auto* c = e.as<CallNode>();
      if (c->fn) out.push_back(c->fn);
      out.insert(out.end(), c->args.begin(), c->args.end());
      break;
    }
    case ExprKind::Let:
    case ExprKind::Tuple:
    case ExprKind::TupleGetItem:
      append_children(e, out);
      break;
    case ExprKind::Var:
    case ExprKind::Constant:
    case ExprKind::Function:
      break;
  }
}

}  // namespace detail

// post_order_visit(e, f): f(node) for every distinct node reachable from e,
// operands before users. Iterative (see the file comment).
template <class F>
void post_order_visit(const Expr& e, F&& f) {
  if (!e) return;
  std::unordered_set<const ExprNode*> seen{e.get()};
  detail::walk_post_order(
      e, detail::append_children, [&](const Expr& n) { return !seen.insert(n.get()).second; },
      [&](const Expr& n) { f(n); });
  f(e);
}

// ExprMutator: a memoized post-order rewriter. Each visit_* gets the original node;
// the defaults rewrite the operands through mutate() and rebuild the node only when
// an operand changed.
class ExprMutator {
 public:
  virtual ~ExprMutator() = default;

  Expr mutate(const Expr& e) {
    if (!e) return e;
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    // The operands first, iteratively (see the file comment), then e.
    detail::walk_post_order(
        e, detail::mutator_operands, [this](const Expr& n) { return memo_.count(n.get()) != 0; },
        [this](const Expr& n) { memo_.emplace(n.get(), dispatch(n)); });
    Expr out = dispatch(e);
    memo_.emplace(e.get(), out);
    return out;
  }

  // mutate_function(f): mutate() for a function, keeping the Function handle type.
  Function mutate_function(const Function& f) {
    Expr out = mutate(f);
    auto fn = downcast<FunctionNode>(out);
    if (!fn) throw Error("a rewrite turned a function into " + describe(out));
    return fn;
  }

 protected:
  virtual Expr visit_var(const Var& v) { return v; }
  virtual Expr visit_constant(const Constant& c) { return c; }

  virtual Expr visit_call(const Call& c) {
    Expr fn = c->fn ? mutate(c->fn) : nullptr;
    bool changed = fn != c->fn;
    std::vector<Expr> args = mutate_all(c->args, changed);
    if (!changed) return c;
    return detail::rebuild_call(*c, std::move(fn), std::move(args));
  }

  virtual Expr visit_let(const Let& l) {
    Expr var = mutate(l->var);
    Expr value = mutate(l->value);
    Expr body = mutate(l->body);
    if (var == l->var && value == l->value && body == l->body) return l;
    auto v = downcast<VarNode>(var);
    if (!v) throw Error("a rewrite turned the let variable %" + l->var->name + " into " + describe(var));
    return make_let(std::move(v), std::move(value), std::move(body), l->span);
  }

  virtual Expr visit_tuple(const Tuple& t) {
    bool changed = false;
    std::vector<Expr> fields = mutate_all(t->fields, changed);
    if (!changed) return t;
    return make_tuple_expr(std::move(fields), t->span);
  }

  virtual Expr visit_tuple_get_item(const TupleGetItem& t) {
    Expr tuple = mutate(t->tuple);
    if (tuple == t->tuple) return t;
    return make_tuple_get_item(std::move(tuple), t->index, t->span);
  }

  virtual Expr visit_function(const Function& f) {
    Expr body = mutate(f->body);
    if (body == f->body) return f;
    return make_function(f->params, std::move(body), f->ret_type, f->attrs, f->span);
  }

  std::vector<Expr> mutate_all(const std::vector<Expr>& in, bool& changed) {
    std::vector<Expr> out;
    out.reserve(in.size());
    for (const auto& e : in) {
      out.push_back(mutate(e));
      changed = changed || out.back() != e;
    }
    return out;
  }

  std::unordered_map<const ExprNode*, Expr> memo_;

 private:
  Expr dispatch(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Var:
        return visit_var(std::static_pointer_cast<const VarNode>(e));
      case ExprKind::Constant:
        return visit_constant(std::static_pointer_cast<const ConstantNode>(e));
      case ExprKind::Call:
        return visit_call(std::static_pointer_cast<const CallNode>(e));
      case ExprKind::Let:
        return visit_let(std::static_pointer_cast<const LetNode>(e));
      case ExprKind::Tuple:
        return visit_tuple(std::static_pointer_cast<const TupleNode>(e));
      case ExprKind::TupleGetItem:
        return visit_tuple_get_item(std::static_pointer_cast<const TupleGetItemNode>(e));
      case ExprKind::Function:
        return visit_function(std::static_pointer_cast<const FunctionNode>(e));
    }
    return e;
  }
};

// substitute(e, map): e with every variable in `map` replaced by its expression.
inline Expr substitute(const Expr& e, const std::unordered_map<const VarNode*, Expr>& map) {
  struct Substituter : ExprMutator {
    const std::unordered_map<const VarNode*, Expr>& map;
    explicit Substituter(const std::unordered_map<const VarNode*, Expr>& m) : map(m) {}
    Expr visit_var(const Var& v) override {
      auto it = map.find(v.get());
      return it == map.end() ? Expr(v) : it->second;
    }
  } s(map);
  return s.mutate(e);
}

}  // namespace tinyir
