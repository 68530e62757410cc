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
// fail. The walk is tinyir's iterative post_order_visit, so any depth of IR is
// fine.
#pragma once

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "tinyir/functor.hpp"
#include "tinyir/module.hpp"
#include "tinyir/op_registry.hpp"

namespace tinyir {

inline std::optional<std::string> verify(const Module& mod) {
  for (const auto& [name, fn] : mod.functions()) {
    std::unordered_set<const VarNode*> bound;
    std::unordered_set<const VarNode*> seen;
    std::vector<const VarNode*> used;  // in visit order, so the message names the first
    std::optional<std::string> problem;
    const auto bind = [&](const Var& v) {
      if (!bound.insert(v.get()).second && !problem) problem = "variable '%" + v->name + "' is bound twice";
    };
    const auto use = [&](const Expr& e) {
      if (e && e->kind == ExprKind::Var && seen.insert(e->as<VarNode>()).second) used.push_back(e->as<VarNode>());
    };
    post_order_visit(fn, [&](const Expr& e) {
      switch (e->kind) {
        case ExprKind::Var:
        case ExprKind::Constant:
          break;
        case ExprKind::Call: {
          const auto* c = e->as<CallNode>();
          for (const auto& a : c->args) use(a);
          use(c->fn);
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
          break;
        }
        case ExprKind::Let: {
          const auto* l = e->as<LetNode>();
          bind(l->var);
          use(l->value);
          use(l->body);
          break;
        }
        case ExprKind::Tuple:
          for (const auto& f : e->as<TupleNode>()->fields) use(f);
          break;
        case ExprKind::TupleGetItem: {
          const auto* g = e->as<TupleGetItemNode>();
          use(g->tuple);
          if (const auto* t = g->tuple->as<TupleNode>();
              t && (g->index < 0 || static_cast<std::size_t>(g->index) >= t->fields.size()) && !problem) {
            problem = "tuple index " + std::to_string(g->index) + " out of range for a tuple of " +
                      std::to_string(t->fields.size()) + " fields";
          }
          break;
        }
        case ExprKind::Function: {
          const auto* f = e->as<FunctionNode>();
          for (const auto& p : f->params) bind(p);
          use(f->body);
          break;
        }
      }
    });
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
