// tinyir/analysis.hpp — questions about expressions and modules.
//
// structural_equal(a, b)         same program up to variable names (bound variables are
//                                matched by position; spans and checked types are ignored)
// structural_equal(ma, mb)       same function names in the same order, each structurally equal
// count_calls(expr|module)       operator name → number of distinct Call nodes (calls of
//                                function values are not counted), as the tutorial's
//                                call-node differ counts them
// count_nodes(expr|module)       number of distinct nodes
// free_vars(expr)                variables used but not bound inside expr, in first-use order
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tinyir/functor.hpp"
#include "tinyir/module.hpp"

namespace tinyir {

namespace detail {

// Compares from an explicit stack of node pairs, in the order a recursive
// comparison takes them (so variables are matched in the same order): no recursion
// along chains of operands. A pair is recorded as proven when it is expanded; a
// mismatch anywhere ends the whole comparison (one object compares once).
class StructuralEqual {
 public:
  bool equal(const Expr& a, const Expr& b) {
    std::vector<std::pair<Expr, Expr>> stack{{a, b}};
    while (!stack.empty()) {
      auto [x, y] = std::move(stack.back());
      stack.pop_back();
      if (!step(x, y, stack)) return false;
    }
    return true;
  }

 private:
  using Pairs = std::vector<std::pair<Expr, Expr>>;

  // Checks a against b shallowly; pushes the operand pairs still to compare.
  bool step(const Expr& a, const Expr& b, Pairs& stack) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind) return false;
    if (a->kind == ExprKind::Var) return var_use(a->as<VarNode>(), b->as<VarNode>());
    if (a->kind == ExprKind::Constant) return constant_equal(*a->as<ConstantNode>(), *b->as<ConstantNode>());
    const auto key = std::make_pair(static_cast<const void*>(a.get()), static_cast<const void*>(b.get()));
    if (!proven_.insert(key).second) return true;
    const std::size_t at = stack.size();
    if (!expand(a, b, stack)) return false;
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(at), stack.end());  // popped in order
    return true;
  }

  static void push_all(const std::vector<Expr>& a, const std::vector<Expr>& b, Pairs& stack) {
    for (std::size_t i = 0; i < a.size(); ++i) stack.emplace_back(a[i], b[i]);
  }

  bool expand(const Expr& a, const Expr& b, Pairs& stack) {
    switch (a->kind) {
      case ExprKind::Call: {
        const auto* x = a->as<CallNode>();
        const auto* y = b->as<CallNode>();
        if (x->op != y->op || !(x->attrs == y->attrs) || x->args.size() != y->args.size()) return false;
        stack.emplace_back(x->fn, y->fn);
        push_all(x->args, y->args, stack);
        return true;
      }
      case ExprKind::Let: {
        const auto* x = a->as<LetNode>();
        const auto* y = b->as<LetNode>();
        if (!bind(x->var, y->var)) return false;
        stack.emplace_back(x->value, y->value);
        stack.emplace_back(x->body, y->body);
        return true;
      }
      case ExprKind::Tuple: {
        const auto& x = a->as<TupleNode>()->fields;
        const auto& y = b->as<TupleNode>()->fields;
        if (x.size() != y.size()) return false;
        push_all(x, y, stack);
        return true;
      }
      case ExprKind::TupleGetItem: {
        const auto* x = a->as<TupleGetItemNode>();
        const auto* y = b->as<TupleGetItemNode>();
        if (x->index != y->index) return false;
        stack.emplace_back(x->tuple, y->tuple);
        return true;
      }
      case ExprKind::Function: {
        const auto* x = a->as<FunctionNode>();
        const auto* y = b->as<FunctionNode>();
        if (x->params.size() != y->params.size() || !(x->attrs == y->attrs) || !type_equal(x->ret_type, y->ret_type))
          return false;
        for (std::size_t i = 0; i < x->params.size(); ++i)
          if (!bind(x->params[i], y->params[i])) return false;
        stack.emplace_back(x->body, y->body);
        return true;
      }
      case ExprKind::Var:
      case ExprKind::Constant:
        break;  // handled in step()
    }
    return false;
  }

  bool bind(const Var& a, const Var& b) {
    if (!type_equal(a->type_annotation, b->type_annotation)) return false;
    if (auto it = lhs_.find(a.get()); it != lhs_.end()) return it->second == b.get();
    if (rhs_.count(b.get())) return false;
    lhs_.emplace(a.get(), b.get());
    rhs_.emplace(b.get(), a.get());
    return true;
  }

  bool var_use(const VarNode* a, const VarNode* b) {
    if (auto it = lhs_.find(a); it != lhs_.end()) return it->second == b;
    if (rhs_.count(b)) return false;
    // A free variable: equal when it looks the same; from now on it is matched.
    if (a->name != b->name || !type_equal(a->type_annotation, b->type_annotation)) return false;
    lhs_.emplace(a, b);
    rhs_.emplace(b, a);
    return true;
  }

  static bool constant_equal(const ConstantNode& a, const ConstantNode& b) {
    if (!type_equal(a.type, b.type) || a.data.has_value() != b.data.has_value()) return false;
    if (!a.data) return true;
    return a.data->size() == b.data->size() &&
           std::memcmp(a.data->data(), b.data->data(), a.data->size() * sizeof(float)) == 0;
  }

  std::unordered_map<const VarNode*, const VarNode*> lhs_, rhs_;
  std::set<std::pair<const void*, const void*>> proven_;
};

}  // namespace detail

// structural_equal(a, b)
inline bool structural_equal(const Expr& a, const Expr& b) { return detail::StructuralEqual().equal(a, b); }

// structural_equal(ma, mb)
inline bool structural_equal(const Module& a, const Module& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto& [na, fa] = a.functions()[i];
    const auto& [nb, fb] = b.functions()[i];
    if (na != nb || !structural_equal(fa, fb)) return false;
  }
  return true;
}

// count_calls(e): operator name → number of distinct calls of it.
inline std::map<std::string, std::size_t> count_calls(const Expr& e) {
  std::map<std::string, std::size_t> out;
  post_order_visit(e, [&](const Expr& n) {
    if (const auto* c = n->as<CallNode>(); c && c->is_op()) ++out[c->op];
  });
  return out;
}

// count_calls(m): summed over the module's functions (each counted on its own).
inline std::map<std::string, std::size_t> count_calls(const Module& m) {
  std::map<std::string, std::size_t> out;
  for (const auto& [name, fn] : m)
    for (const auto& [op, n] : count_calls(fn)) out[op] += n;
  return out;
}

// count_nodes(e): number of distinct nodes reachable from e.
inline std::size_t count_nodes(const Expr& e) {
  std::size_t n = 0;
  post_order_visit(e, [&](const Expr&) { ++n; });
  return n;
}

// count_nodes(m): summed over the module's functions.
inline std::size_t count_nodes(const Module& m) {
  std::size_t n = 0;
  for (const auto& [name, fn] : m) n += count_nodes(fn);
  return n;
}

// free_vars(e): the variables e uses without binding them, in first-use order.
inline std::vector<Var> free_vars(const Expr& e) {
  std::unordered_set<const VarNode*> bound, seen;
  std::vector<Var> out;
  post_order_visit(e, [&](const Expr& n) {
    if (const auto* l = n->as<LetNode>()) bound.insert(l->var.get());
    if (const auto* f = n->as<FunctionNode>())
      for (const auto& p : f->params) bound.insert(p.get());
  });
  post_order_visit(e, [&](const Expr& n) {
    if (n->kind == ExprKind::Var && !bound.count(n->as<VarNode>()) && seen.insert(n->as<VarNode>()).second)
      out.push_back(std::static_pointer_cast<const VarNode>(n));
  });
  return out;
}

}  // namespace tinyir
