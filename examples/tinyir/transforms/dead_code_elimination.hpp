// tinyir/transforms/dead_code_elimination.hpp — DeadCodeElimination: drop let
// bindings whose variable is never used.
//
// dead_code_elimination(mod)         every function
// dead_code_elimination(fn, mod)     one function (function-pass shape)
// dead_code_elimination(expr)        one expression
//
// Every value is pure, so an unused binding can go; removing one may make others
// unused, and the pass repeats until none is left. Programs in graph form have no
// dead code and come back unchanged (the same nodes).
#pragma once

#include <unordered_set>

#include "tinyir/ir.hpp"

namespace tinyir {

namespace detail {

// The variables used (not merely bound) under e.
inline std::unordered_set<const VarNode*> used_vars(const Expr& root) {
  std::unordered_set<const VarNode*> used;
  std::unordered_set<const ExprNode*> seen;
  std::vector<const ExprNode*> stack{root.get()};
  while (!stack.empty()) {
    const ExprNode* e = stack.back();
    stack.pop_back();
    if (!seen.insert(e).second) continue;
    switch (e->kind) {
      case ExprKind::Var:
        used.insert(e->as<VarNode>());
        break;
      case ExprKind::Constant:
        break;
      case ExprKind::Let:
        stack.push_back(e->as<LetNode>()->value.get());
        stack.push_back(e->as<LetNode>()->body.get());
        break;
      case ExprKind::Function:
        stack.push_back(e->as<FunctionNode>()->body.get());
        break;
      case ExprKind::Call: {
        const auto* c = e->as<CallNode>();
        if (c->fn) stack.push_back(c->fn.get());
        for (const auto& a : c->args) stack.push_back(a.get());
        break;
      }
      case ExprKind::Tuple:
        for (const auto& f : e->as<TupleNode>()->fields) stack.push_back(f.get());
        break;
      case ExprKind::TupleGetItem:
        stack.push_back(e->as<TupleGetItemNode>()->tuple.get());
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
