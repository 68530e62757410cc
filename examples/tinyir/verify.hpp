// tinyir/verify.hpp — the structural checks a pass can break (SPEC §12.8).
//
// verify(mod) -> std::optional<std::string>   nullopt when the module is well formed,
//                                              else the first problem, e.g.
//   @main: variable '%x' is used but not bound in the function
//   @main: variable '%y' is bound twice
//   @main: call of unknown operator 'nn.conv3d'
//   @main: call of add with 1 argument; add takes 2
//   @main: tuple index 3 out of range for a tuple of 2 fields
//
// Checked, per global function (nested functions included): every variable is
// bound once (a function parameter or a let) and every variable used is bound
// in the same global function (a function of the module sees no other's
// variables); every operator call names a registered operator with its number
// of inputs; a projection of a tuple literal stays within its fields. Types are
// not checked: that is InferType's job, and an ill-typed module makes InferType
// fail. The walk is iterative (an explicit stack), so any depth of IR is fine.
#pragma once

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "tinyir/expr.hpp"
#include "tinyir/module.hpp"
#include "tinyir/op_registry.hpp"

namespace tinyir {

inline std::optional<std::string> verify(const Module& mod) {
  // One walk per function over an explicit stack of raw pointers (no vector of
  // operands per node, as post_order_visit makes): each distinct node once.
  std::vector<const ExprNode*> stack;
  std::unordered_set<const ExprNode*> visited;
  std::unordered_set<const VarNode*> bound;
  std::unordered_set<const VarNode*> seen;
  std::vector<const VarNode*> used;  // in visit order, so the message names the first
  for (const auto& [name, fn] : mod.functions()) {
    stack.assign(1, fn.get());
    visited.clear();
    bound.clear();
    seen.clear();
    used.clear();
    std::optional<std::string> problem;
    const auto bind = [&](const Var& v) {
      if (!bound.insert(v.get()).second && !problem) problem = "variable '%" + v->name + "' is bound twice";
    };
    const auto push = [&](const Expr& e) {
      if (!e) return;
      if (e->kind == ExprKind::Var) {
        if (seen.insert(e->as<VarNode>()).second) used.push_back(e->as<VarNode>());
        return;
      }
      if (e->kind != ExprKind::Constant) stack.push_back(e.get());
    };
    while (!stack.empty()) {
      const ExprNode* e = stack.back();
      stack.pop_back();
      if (!visited.insert(e).second) continue;
      switch (e->kind) {
        case ExprKind::Var:
        case ExprKind::Constant:
          break;
        case ExprKind::Call: {
          const auto* c = e->as<CallNode>();
          if (c->is_op() && !problem) {
            const OpInfo* op = find_op(c->op);
            if (op == nullptr) {
              problem = "call of unknown operator '" + c->op + "'";
            } else if (op->arity() != c->args.size()) {
              problem = "call of " + c->op + " with " + std::to_string(c->args.size()) +
                        (c->args.size() == 1 ? " argument" : " arguments") + "; " + c->op + " takes " +
                        std::to_string(op->arity());
            }
          }
          push(c->fn);
          for (auto it = c->args.rbegin(); it != c->args.rend(); ++it) push(*it);
          break;
        }
        case ExprKind::Let: {
          const auto* l = e->as<LetNode>();
          bind(l->var);
          push(l->body);
          push(l->value);
          break;
        }
        case ExprKind::Tuple: {
          const auto& fields = e->as<TupleNode>()->fields;
          for (auto it = fields.rbegin(); it != fields.rend(); ++it) push(*it);
          break;
        }
        case ExprKind::TupleGetItem: {
          const auto* g = e->as<TupleGetItemNode>();
          if (const auto* t = g->tuple->as<TupleNode>();
              t && (g->index < 0 || static_cast<std::size_t>(g->index) >= t->fields.size()) && !problem) {
            problem = "tuple index " + std::to_string(g->index) + " out of range for a tuple of " +
                      std::to_string(t->fields.size()) + " fields";
          }
          push(g->tuple);
          break;
        }
        case ExprKind::Function: {
          const auto* f = e->as<FunctionNode>();
          for (const auto& p : f->params) bind(p);
          push(f->body);
          break;
        }
      }
    }
    if (!problem) {
      for (const VarNode* v : used) {
        if (!bound.contains(v)) {
          problem = "variable '%" + v->name + "' is used but not bound in the function";
          break;
        }
      }
    }
    if (problem) return "@" + name + ": " + *problem;
  }
  return std::nullopt;
}

}  // namespace tinyir
