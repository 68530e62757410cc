// tinyir/transforms/dead_code_elimination.hpp — DeadCodeElimination: drop let
// bindings whose variable is never used.
//
// dead_code_elimination(mod)         every function
// dead_code_elimination(fn, mod)     one function (function-pass shape)
// dead_code_elimination(expr)        one expression
//
// Every value is pure, so an unused binding can go; removing one may make others
// unused: the uses are counted as if those were gone already (used_vars), so one
// round removes them all. Programs in graph form have no
// dead code and come back unchanged (the same nodes).
#pragma once

#include <unordered_set>
#include <vector>

#include "tinyir/ir.hpp"

namespace tinyir {

namespace detail {

// The variables used (not merely bound) under e, where a let's value counts only
// when its variable is used: the fixed point of removing unused lets, in one walk
// (a dead chain of 100,000 lets goes at once, not one let per round). A let's body
// is walked before its value is decided on: the work list is LIFO, so the body's
// whole walk comes off it before the let's `decide` entry; a node is marked seen
// when it comes off.
inline std::unordered_set<const VarNode*> used_vars(const Expr& root) {
  std::unordered_set<const VarNode*> used;
  std::unordered_set<const ExprNode*> seen;
  struct Task {
    const ExprNode* node;
    bool decide;  // a let whose body has been walked: walk its value if its variable is used
  };
  std::vector<Task> stack{{root.get(), false}};
  while (!stack.empty()) {
    const Task task = stack.back();
    stack.pop_back();
    const ExprNode* e = task.node;
    if (task.decide) {
      const auto* l = e->as<LetNode>();
      if (used.count(l->var.get())) stack.push_back({l->value.get(), false});
      continue;
    }
    if (!seen.insert(e).second) continue;
    switch (e->kind) {
      case ExprKind::Var:
        used.insert(e->as<VarNode>());
        break;
      case ExprKind::Constant:
        break;
      case ExprKind::Let:
        stack.push_back({e, true});
        stack.push_back({e->as<LetNode>()->body.get(), false});
        break;
      case ExprKind::Function:
        stack.push_back({e->as<FunctionNode>()->body.get(), false});
        break;
      case ExprKind::Call: {
        const auto* c = e->as<CallNode>();
        if (c->fn) stack.push_back({c->fn.get(), false});
        for (const auto& a : c->args) stack.push_back({a.get(), false});
        break;
      }
      case ExprKind::Tuple:
        for (const auto& f : e->as<TupleNode>()->fields) stack.push_back({f.get(), false});
        break;
      case ExprKind::TupleGetItem:
        stack.push_back({e->as<TupleGetItemNode>()->tuple.get(), false});
        break;
    }
  }
  return used;
}

class UnusedLetRemover : public ExprMutator {
 public:
  explicit UnusedLetRemover(std::unordered_set<const VarNode*> used) : used_(std::move(used)) {}
  bool removed = false;

 protected:
  Expr visit_let(const Let& l) override {
    if (!used_.count(l->var.get())) {
      removed = true;
      return mutate(l->body);
    }
    return ExprMutator::visit_let(l);
  }

 private:
  std::unordered_set<const VarNode*> used_;
};

}  // namespace detail

// dead_code_elimination(expr)
inline Expr dead_code_elimination(const Expr& e) {
  Expr cur = e;
  while (true) {
    detail::UnusedLetRemover remover(detail::used_vars(cur));
    Expr next = remover.mutate(cur);
    if (!remover.removed) return next;
    cur = next;
  }
}

// dead_code_elimination(fn, mod)
inline Function dead_code_elimination(const Function& fn, const Module& /*mod*/) {
  auto out = downcast<FunctionNode>(dead_code_elimination(Expr(fn)));
  return out;
}

// dead_code_elimination(mod)
inline Module dead_code_elimination(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return dead_code_elimination(fn, m); });
}

}  // namespace tinyir
