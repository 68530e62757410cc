// tinyir/transforms/fuse_ops.hpp — FuseOps and DefuseOps.
//
// fuse_ops(mod, fuse_opt_level)          every function
// fuse_ops(fn, mod, fuse_opt_level)      one function (function-pass shape)
// defuse_ops(mod)                        inline every Primitive function call
// defuse_ops(fn, mod)                    one function
// op_pattern(call)                       the fusion pattern of a call (Opaque for function calls)
//
// FuseOps groups the operator calls of each dataflow region into functions marked
// Primitive=1 and calls them, with Relay's algorithm: a post-dominator tree over the
// region's calls, tuples and projections, then three phases — (0) an
// out-elementwise-fusable op (nn.conv2d, nn.dense, pooling) takes the elementwise
// ops up to its post-dominator, and elementwise/broadcast ops join an injective or
// reduction post-dominator; (1) injective ops (reshape, expand_dims,
// layout_transform, nn.batch_flatten, projections) join injective paths; (2)
// injective ops join a tuple already fused into its consumer. At most 256 nodes per
// group. nn.batch_norm and nn.softmax are opaque: each stays alone.
// fuse_opt_level 0 skips the phases, so every operator call becomes its own
// Primitive function, as in TVM.
//
// A group's inputs become parameters %p0, %p1, ... (numbered per global function,
// one parameter per distinct input, typed with the input's checked type); scalar
// constants stay inside. A group without an operator call (a lone tuple or
// projection) is left as it is. Let values and bodies are regions of their own;
// Primitive functions already present are left alone. Types are inferred first.
//
// No recursion along chains of operands, groups or lets (a chain of 100,000 calls
// fuses whatever the machine's stack): the graph is built and rebuilt from explicit
// stacks; only the copy of one group's (at most ~256) nodes into its function recurses.
#pragma once

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tinyir/ir.hpp"
#include "tinyir/type_infer.hpp"

namespace tinyir {

// op_pattern(call): the call's fusion pattern.
inline OpPattern op_pattern(const CallNode& call) {
  const OpInfo* info = call.op_info();
  return info ? info->pattern : OpPattern::Opaque;
}

namespace detail {

inline OpPattern combine_pattern(OpPattern a, OpPattern b) { return static_cast<int>(a) > static_cast<int>(b) ? a : b; }

class OpFuser {
 public:
  OpFuser(int fuse_opt_level, int max_fuse_depth) : level_(fuse_opt_level), max_depth_(max_fuse_depth) {}

  Function run(const Function& fn) {
    Expr body = fuse_region(fn->body);
    if (body == fn->body) return fn;
    return make_function(fn->params, std::move(body), fn->ret_type, fn->attrs, fn->span);
  }

 private:
  struct Edge {
    std::size_t node;
    OpPattern pattern;
  };
  struct GNode {
    const ExprNode* expr;
    OpPattern pattern;
    std::vector<Edge> outputs;
    bool extern_ref = false;
    bool is_op_call = false;
  };
  struct DomNode {
    long parent = -1;
    int depth = 1;
    OpPattern pattern = OpPattern::Opaque;
  };
  struct Group {
    long parent = -1;
    OpPattern pattern;
    bool anchor = false;
    std::size_t num_nodes = 1;
  };

  // One region: the dataflow graph under `root`, its groups, and the rebuild.
  struct Region {
    std::vector<GNode> nodes;
    std::unordered_map<const ExprNode*, std::size_t> index;
    std::vector<DomNode> dom;
    std::vector<Group> groups;
    std::vector<bool> group_has_op;
  };

  static bool is_graph_node(const Expr& e) {
    return e->kind == ExprKind::Call || e->kind == ExprKind::Tuple || e->kind == ExprKind::TupleGetItem;
  }

  static bool same_shape(const Type& a, const Type& b) {
    const auto* ta = as_tensor(a);
    const auto* tb = as_tensor(b);
    return ta && tb && ta->shape == tb->shape;
  }

  // The graph nodes under e (e included), operands first, iteratively.
  void build_graph(Region& r, const Expr& e) {
    if (!is_graph_node(e) || r.index.count(e.get())) return;
    walk_post_order(
        e, [](const ExprNode& n, std::vector<Expr>& out) { append_operands(n, out); },
        [&](const Expr& n) { return !is_graph_node(n) || r.index.count(n.get()) != 0; },
        [&](const Expr& n) { add_graph_node(r, n); });
    add_graph_node(r, e);
  }

  static void append_operands(const ExprNode& e, std::vector<Expr>& out) {
    if (const auto* c = e.as<CallNode>()) {
      out.insert(out.end(), c->args.begin(), c->args.end());
    } else if (const auto* t = e.as<TupleNode>()) {
      out.insert(out.end(), t->fields.begin(), t->fields.end());
    } else if (const auto* g = e.as<TupleGetItemNode>()) {
      out.push_back(g->tuple);
    }
  }

  void add_graph_node(Region& r, const Expr& e) {
    GNode n{e.get(), OpPattern::Opaque, {}, false, false};
    if (const auto* c = e->as<CallNode>()) {
      n.pattern = op_pattern(*c);
      n.is_op_call = c->is_op();
    } else if (e->kind == ExprKind::Tuple) {
      n.pattern = OpPattern::Tuple;
    } else {
      n.pattern = OpPattern::Injective;
    }
    r.index.emplace(e.get(), r.nodes.size());
    r.nodes.push_back(std::move(n));
  }

  void add_edges(Region& r) {
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
      const ExprNode* e = r.nodes[i].expr;
      OpPattern p = OpPattern::Injective;
      if (const auto* c = e->as<CallNode>()) p = c->is_op() ? op_pattern(*c) : OpPattern::Opaque;
      std::vector<Expr> ops;
      if (const auto* c = e->as<CallNode>())
        ops = c->args;
      else if (const auto* t = e->as<TupleNode>())
        ops = t->fields;
      else
        ops = {e->as<TupleGetItemNode>()->tuple};
      for (const auto& o : ops) {
        auto it = r.index.find(o.get());
        if (it == r.index.end()) continue;
        OpPattern ep = p;
        if (ep == OpPattern::Broadcast && same_shape(o->checked_type(), e->checked_type())) ep = OpPattern::ElemWise;
        r.nodes[it->second].outputs.push_back({i, ep});
      }
    }
  }

  long lca(const Region& r, long a, long b, OpPattern& pat) const {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      const auto& da = r.dom[static_cast<std::size_t>(a)];
      const auto& db = r.dom[static_cast<std::size_t>(b)];
      if (da.depth < db.depth) {
        pat = combine_pattern(pat, db.pattern);
        b = db.parent;
      } else if (db.depth < da.depth) {
        pat = combine_pattern(pat, da.pattern);
        a = da.parent;
      } else {
        pat = combine_pattern(pat, da.pattern);
        pat = combine_pattern(pat, db.pattern);
        a = da.parent;
        b = db.parent;
      }
    }
    return a;
  }

  void build_post_dominators(Region& r) {
    r.dom.assign(r.nodes.size(), DomNode{});
    for (std::size_t k = r.nodes.size(); k-- > 0;) {
      const GNode& n = r.nodes[k];
      DomNode d;
      if (!n.extern_ref && !n.outputs.empty()) {
        OpPattern pat = combine_pattern(OpPattern::ElemWise, n.outputs[0].pattern);
        long parent = static_cast<long>(n.outputs[0].node);
        for (std::size_t j = 1; j < n.outputs.size(); ++j) {
          parent = lca(r, parent, static_cast<long>(n.outputs[j].node), pat);
          pat = combine_pattern(pat, n.outputs[j].pattern);
        }
        d.parent = parent;
        d.depth = parent < 0 ? 1 : r.dom[static_cast<std::size_t>(parent)].depth + 1;
        d.pattern = pat;
      }
      r.dom[k] = d;
    }
  }

  static std::size_t find(Region& r, std::size_t g) {
    std::size_t root = g;
    while (r.groups[root].parent >= 0) root = static_cast<std::size_t>(r.groups[root].parent);
    while (r.groups[g].parent >= 0) {  // path compression
      const auto next = static_cast<std::size_t>(r.groups[g].parent);
      r.groups[g].parent = static_cast<long>(root);
      g = next;
    }
    return root;
  }

  static void merge_from_to(Region& r, std::size_t child, std::size_t parent) {
    child = find(r, child);
    parent = find(r, parent);
    if (child == parent) return;
    r.groups[parent].num_nodes += r.groups[child].num_nodes;
    r.groups[child].parent = static_cast<long>(parent);
    if (r.groups[child].anchor) {
      r.groups[parent].anchor = true;
      r.groups[parent].pattern = combine_pattern(r.groups[child].pattern, r.groups[parent].pattern);
    }
  }

  template <class F>
  bool check_path(Region& r, std::size_t src, std::size_t sink, F fcond) {
    std::unordered_set<std::size_t> visited;
    bool ok = true;
    std::vector<std::size_t> stack;
    for (const auto& e : r.nodes[src].outputs) stack.push_back(e.node);
    while (!stack.empty() && ok) {
      const std::size_t n = stack.back();
      stack.pop_back();
      if (!visited.insert(n).second) continue;
      if (!fcond(r.groups[find(r, n)].pattern, n == sink)) ok = false;
      if (n == sink) continue;
      for (const auto& e : r.nodes[n].outputs) stack.push_back(e.node);
    }
    return ok;
  }

  void commit_fuse(Region& r, std::size_t src, std::size_t sink) {
    std::unordered_set<std::size_t> visited;
    std::vector<std::size_t> stack{src};
    while (!stack.empty()) {
      const std::size_t n = stack.back();
      stack.pop_back();
      if (n == sink || !visited.insert(n).second) continue;
      merge_from_to(r, n, sink);
      for (const auto& e : r.nodes[n].outputs) stack.push_back(e.node);
    }
  }

  std::size_t count_fused_with_new_child(Region& r, std::size_t child, std::size_t dom_parent) {
    std::size_t sum = r.groups[find(r, dom_parent)].num_nodes;
    std::unordered_set<std::size_t> visited;
    std::vector<std::size_t> stack{child};
    while (!stack.empty()) {
      const std::size_t n = stack.back();
      stack.pop_back();
      if (n == dom_parent || !visited.insert(n).second) continue;
      sum += r.groups[n].num_nodes;
      for (const auto& e : r.nodes[n].outputs) stack.push_back(e.node);
    }
    return sum;
  }

  void run_fuse(Region& r, int phase) {
    using P = OpPattern;
    auto le = [](P a, P b) { return static_cast<int>(a) <= static_cast<int>(b); };
    for (std::size_t nid = 0; nid < r.nodes.size(); ++nid) {
      const DomNode& dom = r.dom[nid];
      const P pattern = r.groups[nid].pattern;
      if (pattern == P::Opaque || dom.parent < 0) continue;
      const auto parent = static_cast<std::size_t>(dom.parent);
      if (count_fused_with_new_child(r, nid, parent) > static_cast<std::size_t>(max_depth_)) continue;
      if (phase == 2) {
        if (!le(pattern, P::Injective)) continue;
        const std::size_t parent_root = find(r, parent);
        if (r.groups[parent_root].pattern == P::Tuple) continue;
        if (r.groups[parent].pattern == P::Tuple && le(r.groups[parent_root].pattern, P::Injective)) {
          if (check_path(r, nid, parent, [&](P k, bool) { return le(k, P::Injective); })) commit_fuse(r, nid, parent);
        }
        continue;
      }
      if (find(r, nid) == find(r, parent)) continue;
      if (r.groups[parent].pattern == P::Tuple) continue;
      if (pattern == P::OutEWiseFusable) {
        if (phase != 0) continue;
        if (dom.pattern == P::ElemWise && check_path(r, nid, parent, [&](P k, bool) { return le(k, P::Broadcast); }))
          commit_fuse(r, nid, parent);
      } else if (le(pattern, P::Broadcast)) {
        if (le(dom.pattern, P::Injective) || dom.pattern == P::CommReduce) {
          auto fcond = [&](P k, bool is_sink) {
            if (!is_sink) return le(k, P::Injective);
            return le(k, P::Broadcast) || k == P::CommReduce || k == P::Injective || k == P::OutEWiseFusable;
          };
          if (check_path(r, nid, parent, fcond)) commit_fuse(r, nid, parent);
        }
      } else if (pattern == P::Injective || pattern == P::Tuple) {
        if (phase != 1) continue;
        if (check_path(r, nid, parent, [&](P k, bool) { return le(k, P::Injective); })) commit_fuse(r, nid, parent);
      }
    }
  }

  Expr fuse_region(const Expr& root) {
    if (!is_graph_node(root)) return rebuild_leaf(root);
    Region r;
    build_graph(r, root);
    add_edges(r);
    r.nodes[r.index.at(root.get())].extern_ref = true;
    r.groups.resize(r.nodes.size());
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
      r.groups[i].pattern = r.nodes[i].pattern;
      r.groups[i].anchor = r.nodes[i].pattern == OpPattern::OutEWiseFusable;
    }
    if (level_ > 0) {
      build_post_dominators(r);
      for (int phase = 0; phase < 3; ++phase) run_fuse(r, phase);
    }
    r.group_has_op.assign(r.nodes.size(), false);
    for (std::size_t i = 0; i < r.nodes.size(); ++i)
      if (r.nodes[i].is_op_call) r.group_has_op[find(r, i)] = true;
    return rebuild(r, root);
  }

  // A node outside any dataflow graph: atoms stay, lets and functions recurse (a
  // chain of lets in a loop: each value, then the last body).
  Expr rebuild_leaf(const Expr& e) {
    if (auto it = done_.find(e.get()); it != done_.end()) return it->second;
    Expr out = e;
    if (e->kind == ExprKind::Let) {
      std::vector<std::pair<Expr, Expr>> chain;  // a let, its new value
      Expr cur = e;
      while (cur->kind == ExprKind::Let && !done_.count(cur.get())) {
        chain.emplace_back(cur, fuse_region(cur->as<LetNode>()->value));
        cur = cur->as<LetNode>()->body;
      }
      Expr body = fuse_region(cur);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const auto* l = it->first->as<LetNode>();
        Expr let =
            it->second != l->value || body != l->body ? Expr(make_let(l->var, it->second, body, l->span)) : it->first;
        done_.emplace(l, let);
        body = std::move(let);
      }
      return body;
    }
    if (const auto* f = e->as<FunctionNode>()) {
      if (!f->is_primitive()) {
        Expr body = fuse_region(f->body);
        if (body != f->body) out = make_function(f->params, std::move(body), f->ret_type, f->attrs, f->span);
      }
    }
    done_.emplace(e.get(), out);
    return out;
  }

  // The nodes rebuild_one(e) rebuilds first, in its order: for a group without an
  // operator call, e's operands (callee, then arguments); for a group with one, the
  // group's inputs (what its members use from outside it, but scalar constants), in
  // the order of a depth-first walk over the members from e.
  void rebuild_deps(Region& r, const ExprNode& e, std::vector<Expr>& out) {
    auto idx = r.index.find(&e);
    if (idx == r.index.end()) return;
    const std::size_t group = find(r, idx->second);
    if (!r.group_has_op[group]) {
      if (const auto* c = e.as<CallNode>(); c && c->fn) out.push_back(c->fn);
      append_operands(e, out);
      return;
    }
    std::unordered_set<const ExprNode*> seen;
    std::vector<Expr> stack;
    append_operands(e, stack);
    std::reverse(stack.begin(), stack.end());
    seen.insert(&e);
    while (!stack.empty()) {
      Expr x = std::move(stack.back());
      stack.pop_back();
      if (!seen.insert(x.get()).second) continue;
      auto xi = r.index.find(x.get());
      if (xi != r.index.end() && find(r, xi->second) == group) {
        const std::size_t at = stack.size();
        append_operands(*x, stack);
        std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(at), stack.end());
      } else if (const auto* k = x->as<ConstantNode>(); !(k && k->is_scalar())) {
        out.push_back(std::move(x));
      }
    }
  }

  // rebuild(r, e): e rebuilt (memoized in done_), its dependencies first from an
  // explicit stack, so that rebuild_one() finds them done.
  Expr rebuild(Region& r, const Expr& e) {
    if (auto it = done_.find(e.get()); it != done_.end()) return it->second;
    if (!r.index.count(e.get())) return rebuild_leaf(e);
    walk_post_order(
        e, [&](const ExprNode& n, std::vector<Expr>& out) { rebuild_deps(r, n, out); },
        [&](const Expr& n) { return done_.count(n.get()) != 0; }, [&](const Expr& n) { rebuild_one(r, n); });
    return rebuild_one(r, e);
  }

  Expr rebuild_one(Region& r, const Expr& e) {
    auto idx = r.index.find(e.get());
    if (idx == r.index.end()) return rebuild_leaf(e);
    if (auto it = done_.find(e.get()); it != done_.end()) return it->second;
    const std::size_t group = find(r, idx->second);
    Expr out;
    if (!r.group_has_op[group]) {
      out = rebuild_children(e, [&](const Expr& x) { return rebuild(r, x); });
    } else {
      // First the group's inputs (so producers are fused, and numbered, first:
      // rebuild() did, in rebuild_deps' order)...
      std::vector<Expr> inputs;
      rebuild_deps(r, *e, inputs);
      for (const auto& x : inputs) rebuild(r, x);
      // ...then the function over them.
      std::vector<Var> params;
      std::vector<Expr> args;
      std::unordered_map<const ExprNode*, Var> param_of;
      std::unordered_map<const ExprNode*, Expr> inner;
      std::function<Expr(const Expr&)> copy = [&](const Expr& x) -> Expr {
        if (auto it = inner.find(x.get()); it != inner.end()) return it->second;
        Expr y;
        auto xi = r.index.find(x.get());
        if (xi != r.index.end() && find(r, xi->second) == group) {
          y = rebuild_children(x, copy, /*force=*/true);
        } else if (const auto* k = x->as<ConstantNode>(); k && k->is_scalar()) {
          y = x;
        } else {
          Expr outer = rebuild(r, x);
          auto p = param_of.find(outer.get());
          if (p == param_of.end()) {
            Var v = make_var("p" + std::to_string(param_counter_++), x->checked_type());
            params.push_back(v);
            args.push_back(outer);
            p = param_of.emplace(outer.get(), std::move(v)).first;
          }
          y = p->second;
        }
        inner.emplace(x.get(), y);
        return y;
      };
      Expr body = copy(e);
      Function fn = make_function(std::move(params), std::move(body), nullptr, Attrs{{"Primitive", 1}});
      out = make_call(Expr(std::move(fn)), std::move(args), e->span);
    }
    done_.emplace(e.get(), out);
    return out;
  }

  template <class F>
  static Expr rebuild_children(const Expr& e, F&& f, bool force = false) {
    if (const auto* c = e->as<CallNode>()) {
      Expr fn = c->fn ? f(c->fn) : nullptr;
      bool changed = force || fn != c->fn;
      std::vector<Expr> args;
      for (const auto& a : c->args) {
        args.push_back(f(a));
        changed = changed || args.back() != a;
      }
      return changed ? Expr(detail::rebuild_call(*c, std::move(fn), std::move(args))) : e;
    }
    if (const auto* t = e->as<TupleNode>()) {
      bool changed = force;
      std::vector<Expr> fields;
      for (const auto& x : t->fields) {
        fields.push_back(f(x));
        changed = changed || fields.back() != x;
      }
      return changed ? Expr(make_tuple_expr(std::move(fields), t->span)) : e;
    }
    const auto* g = e->as<TupleGetItemNode>();
    Expr tuple = f(g->tuple);
    return (force || tuple != g->tuple) ? Expr(make_tuple_get_item(std::move(tuple), g->index, g->span)) : e;
  }

  int level_;
  int max_depth_;
  int param_counter_ = 0;
  std::unordered_map<const ExprNode*, Expr> done_;
};

class Defuser : public ExprMutator {
 protected:
  Expr visit_call(const Call& c) override {
    Expr e = ExprMutator::visit_call(c);
    const auto* call = e->as<CallNode>();
    const auto* fn = call ? call->fn.get() : nullptr;
    const auto* f = fn ? fn->as<FunctionNode>() : nullptr;
    if (!f || !f->is_primitive() || f->params.size() != call->args.size()) return e;
    std::unordered_map<const VarNode*, Expr> map;
    for (std::size_t i = 0; i < f->params.size(); ++i) map.emplace(f->params[i].get(), call->args[i]);
    return substitute(f->body, map);
  }
};

}  // namespace detail

// fuse_ops(fn, mod, fuse_opt_level)
inline Function fuse_ops(const Function& fn, const Module& /*mod*/, int fuse_opt_level = 1) {
  infer_type(fn);
  return detail::OpFuser(fuse_opt_level, 256).run(fn);
}

// fuse_ops(mod, fuse_opt_level)
inline Module fuse_ops(const Module& mod, int fuse_opt_level = 1) {
  return map_functions(mod, [&](const Function& fn, const Module& m) { return fuse_ops(fn, m, fuse_opt_level); });
}

// defuse_ops(fn, mod)
inline Function defuse_ops(const Function& fn, const Module& /*mod*/) { return detail::Defuser().mutate_function(fn); }

// defuse_ops(mod)
inline Module defuse_ops(const Module& mod) {
  return map_functions(mod, [](const Function& fn, const Module& m) { return defuse_ops(fn, m); });
}

}  // namespace tinyir
