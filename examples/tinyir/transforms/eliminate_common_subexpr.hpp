// tinyir/transforms/eliminate_common_subexpr.hpp — EliminateCommonSubexpr: merge
// calls (and tuple projections) that compute the same thing.
//
// eliminate_common_subexpr(mod)      every function
// eliminate_common_subexpr(fn, mod)  one function (function-pass shape)
//
// Two calls are merged when they call the same operator (or the same function
// value) on the same argument nodes, with equal attributes and equal checked types
// (types are inferred first; an ill-typed function throws TypeError). Operands are
// rewritten first, so chains of duplicates collapse. A call inside a nested
// function is merged with an earlier one of the same or an enclosing scope, never
// the reverse; Primitive functions are left alone. The rewritten nodes keep the
// checked types of the nodes they replace.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "tinyir/ir.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

namespace detail {

class CommonSubexprEliminator : public ExprMutator {
 protected:
  Expr visit_call(const Call& c) override {
    Expr e = ExprMutator::visit_call(c);
    if (e != c) e->set_checked_type(c->checked_type());
    auto call = downcast<CallNode>(e);
    if (!call) return e;
    std::size_t key = std::hash<std::string>()(call->op) ^ std::hash<const void*>()(call->fn.get());
    for (const auto& a : call->args) key = key * 31 + std::hash<const void*>()(a.get());
    for (auto level = tables_.rbegin(); level != tables_.rend(); ++level) {
      auto it = level->find(key);
      if (it == level->end()) continue;
      for (const Expr& cand : it->second) {
        const auto* other = cand->as<CallNode>();
        if (other && other->op == call->op && other->fn == call->fn && other->args == call->args &&
            other->attrs == call->attrs && type_equal(other->checked_type(), call->checked_type()))
          return cand;
      }
    }
    tables_.back()[key].push_back(e);
    return e;
  }

  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    Expr e = ExprMutator::visit_tuple_get_item(t);
    if (e != t) e->set_checked_type(t->checked_type());
    const auto* g = e->as<TupleGetItemNode>();
    if (!g) return e;
    const std::size_t key = std::hash<const void*>()(g->tuple.get()) * 131 + static_cast<std::size_t>(g->index) + 7;
    for (auto level = tables_.rbegin(); level != tables_.rend(); ++level) {
      auto it = level->find(key);
      if (it == level->end()) continue;
      for (const Expr& cand : it->second) {
        const auto* other = cand->as<TupleGetItemNode>();
        if (other && other->tuple == g->tuple && other->index == g->index) return cand;
      }
    }
    tables_.back()[key].push_back(e);
    return e;
  }

  Expr visit_function(const Function& f) override {
    if (f->is_primitive()) return f;
    tables_.emplace_back();
    Expr out = ExprMutator::visit_function(f);
    tables_.pop_back();
    if (out != f) out->set_checked_type(f->checked_type());
    return out;
  }

  Expr visit_let(const Let& l) override {
    Expr out = ExprMutator::visit_let(l);
    if (out != l) out->set_checked_type(l->checked_type());
    return out;
  }

  Expr visit_tuple(const Tuple& t) override {
    Expr out = ExprMutator::visit_tuple(t);
    if (out != t) out->set_checked_type(t->checked_type());
    return out;
  }

 private:
  std::vector<std::unordered_map<std::size_t, std::vector<Expr>>> tables_{1};
};

}  // namespace detail

// eliminate_common_subexpr(fn, mod)
inline Function eliminate_common_subexpr(const Function& fn, const Module& /*mod*/) {
  infer_type(fn);
  return detail::CommonSubexprEliminator().mutate_function(fn);
}

// eliminate_common_subexpr(mod)
inline Module eliminate_common_subexpr(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return eliminate_common_subexpr(fn, m); });
}

}  // namespace tinyir
