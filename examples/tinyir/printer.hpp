// tinyir/printer.hpp — Relay-like text for modules and expressions.
//
// PrintOptions{show_types, show_spans, show_metadata}
// print(mod, options)       the module's text (parse() reads it back)
// print(expr, options)      one expression's text (a function prints as `fn (...) {...}`)
// format_data(values)       a constant's data as printed in the metadata section
//
// The text, for the tutorial's example():
//
//   def @main(%x: Tensor[(1, 64, 56, 56), float32], %weight: Tensor[(64, 64, 3, 3), float32]) {
//     %0 = nn.conv2d(%x, %weight);
//     %1 = add(meta[Constant][0], meta[Constant][0]);
//     %2 = multiply(%1, 2f);
//     %3 = add(%0, %2);
//     %4 = add(%3, meta[Constant][0]);
//     %5 = add(%3, meta[Constant][0]);
//     add(%4, %5)
//   }
//
//   #[metadata]
//   Constant[0]: Tensor[(1, 64, 54, 54), float32] = [0 x 186624]
//
// Rules. Every Call, Tuple, TupleGetItem and nested Function is printed once, bound
// to `%n` (numbered per global function, operands first, a called function after
// the arguments), except the result of a block, which is printed in place; a shared
// node is therefore visible as one binding used twice. A binding is printed in the
// innermost block (function body or `{ ... }`) that sees all its uses. Let prints as `let %v = value;`. Variables,
// scalar constants with data (`2f`, `-inff`) and references to the metadata section
// (`meta[Constant][i]`, every other constant, numbered module-wide in order of first
// use) print in place. Attributes print after the arguments, in the operator's
// schema order, only when they differ from the default. Types print on parameters
// and annotated let variables; with show_types, also `/* ty=... */` after every
// binding whose node has a checked type. Variable names are made unique within a
// global function by appending a number (`%p0`, `%p01`), as Relay does.
//
// Depth. The printer does not recurse along chains of operands: before a call,
// tuple or projection is printed, the not yet printed nodes under it are printed
// (bound) from an explicit stack, in the order the recursive rules above take them,
// so 100,000 bindings print whatever the machine's stack. Nested functions and `{ }`
// blocks nest in the text as deep as in the program.
#pragma once

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tinyir/ir.hpp"

namespace tinyir {

struct PrintOptions {
  bool show_types = false;    // `/* ty=... */` after each binding with a checked type
  bool show_spans = false;    // `/* span=<source>:<line>:<col> */` after each binding with a span
  bool show_metadata = true;  // print the #[metadata] section (off: like Relay's show_meta_data=False)
};

// format_data(values): "[1, 2, 0 x 6]" — runs of equal values as `v x n`.
inline std::string format_data(const std::vector<float>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i + 1;
    const float v = values[i];
    auto same = [v](float w) { return (v == w && std::signbit(v) == std::signbit(w)) || (v != v && w != w); };
    while (j < values.size() && same(values[j])) ++j;
    if (i) out += ", ";
    out += detail::format_float(v);
    if (j - i > 1) out += " x " + std::to_string(j - i);
    i = j;
  }
  return out + "]";
}

namespace detail {

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : opts_(options) {}

  std::string module_text(const Module& mod) {
    std::string out;
    bool first = true;
    for (const auto& [name, fn] : mod) {
      if (!first) out += "\n";
      first = false;
      reset_function();
      index_users(fn);
      out += "def @" + sanitize(name) + function_text(*fn, "");
    }
    return out + metadata_text(!out.empty());
  }

  std::string expr_text(const Expr& e) {
    reset_function();
    index_users(e);
    std::string out;
    if (const auto* f = e->as<FunctionNode>()) {
      out = "fn " + function_text(*f, "");
    } else {
      Block b{"", ""};
      memo_.emplace_back();
      std::string root = text(e, b, true);
      out = b.lines + root + annotation(*e) + "\n";
    }
    return out + metadata_text(true);
  }

 private:
  struct Block {
    std::string indent;
    std::string lines;
  };

  void reset_function() {
    counter_ = 0;
    var_names_.clear();
    used_names_.clear();
    memo_.clear();
  }

  static std::string sanitize(const std::string& name) {
    std::string out;
    for (char c : name) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      out += ok ? c : '_';
    }
    if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "v" + out;
    return out;
  }

  const std::string& var_name(const VarNode* v) {
    if (auto it = var_names_.find(v); it != var_names_.end()) return it->second;
    const std::string base = sanitize(v->name);
    std::string name = base;
    for (int k = 1; used_names_.count(name); ++k) name = base + std::to_string(k);
    used_names_.insert(name);
    return var_names_.emplace(v, name).first->second;
  }

  std::string var_decl(const VarNode* v) {
    std::string out = "%" + var_name(v);
    if (v->type_annotation) out += ": " + to_string(v->type_annotation);
    return out;
  }

  std::string annotation(const ExprNode& e) const {
    std::string out;
    if (opts_.show_types && e.checked_type()) out += " /* ty=" + to_string(e.checked_type()) + " */";
    if (opts_.show_spans && e.span) out += " /* span=" + to_string(*e.span) + " */";
    return out;
  }

  // "(%x: T, %y: T, Primitive=1) -> T {\n ... \n}" (after `def @name` or `fn `).
  std::string function_text(const FunctionNode& f, const std::string& indent) {
    std::vector<std::string> parts;
    for (const auto& p : f.params) parts.push_back(var_decl(p.get()));
    for (const auto& [name, value] : f.attrs) parts.push_back(name + "=" + to_string(value));
    std::string out = "(" + join(parts, ", ") + ")";
    if (f.ret_type) out += " -> " + to_string(f.ret_type);
    out += " {\n";
    Block inner{indent + "  ", ""};
    memo_.emplace_back();
    std::string root = text(f.body, inner, true);
    memo_.pop_back();
    out += inner.lines + inner.indent + root + annotation(*f.body) + "\n" + indent + "}";
    if (indent.empty()) out += "\n";
    return out;
  }

  std::string constant_text(const ConstantNode& c) {
    if (auto lit = scalar_literal(c)) return *lit;
    auto [it, inserted] = meta_index_.emplace(&c, metas_.size());
    if (inserted) metas_.push_back(&c);
    return "meta[Constant][" + std::to_string(it->second) + "]";
  }

  std::string metadata_text(bool separate) const {
    if (metas_.empty() || !opts_.show_metadata) return "";
    std::string out = separate ? "\n#[metadata]\n" : "#[metadata]\n";
    for (std::size_t i = 0; i < metas_.size(); ++i) {
      out += "Constant[" + std::to_string(i) + "]: " + to_string(metas_[i]->type);
      if (metas_[i]->data) out += " = " + format_data(*metas_[i]->data);
      out += "\n";
    }
    return out;
  }

  const std::string* lookup(const ExprNode* e) const {
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it)
      if (auto f = it->find(e); f != it->end()) return &f->second;
    return nullptr;
  }

  // A let chain as the contents of a block: the `let` lines go to `b`, the text of
  // the final body is returned.
  std::string let_chain(const Expr& start, Block& b) {
    Expr e = start;
    while (const auto* l = e->as<LetNode>()) {
      std::string value;
      if (l->value->kind == ExprKind::Let) {
        value = braced(l->value, b);
      } else {
        value = text(l->value, b, true);
      }
      b.lines += b.indent + "let " + var_decl(l->var.get()) + " = " + value + annotation(*l->value) + ";\n";
      const bool atomic = l->value->kind == ExprKind::Var || l->value->kind == ExprKind::Constant;
      if (!atomic && !lookup(l->value.get())) memo_.back().emplace(l->value.get(), "%" + var_name(l->var.get()));
      e = l->body;
    }
    return text(e, b, true);
  }

  // users_: node → the nodes that use it, over a whole global function.
  void index_users(const Expr& root) {
    users_.clear();
    post_order_visit(root, [&](const Expr& n) {
      for (const auto& c : children(n)) users_[c.get()].push_back(n.get());
    });
  }

  // Before a nested scope (a function, or a let block in operand position) is
  // printed into block b: bind in b the computations under `inner` that are also
  // used outside it (and do not depend on a variable bound inside it), so that
  // every binding is printed in the innermost block that sees all its uses.
  void hoist(const Expr& inner, Block& b) {
    std::unordered_set<const VarNode*> bound;
    std::unordered_set<const ExprNode*> inside;
    std::vector<Expr> order;
    post_order_visit(inner, [&](const Expr& n) {
      inside.insert(n.get());
      order.push_back(n);
      if (const auto* l = n->as<LetNode>()) bound.insert(l->var.get());
      if (const auto* f = n->as<FunctionNode>())
        for (const auto& p : f->params) bound.insert(p.get());
    });
    // The variables bound inside `inner` that each node uses freely.
    std::unordered_map<const ExprNode*, std::vector<const VarNode*>> uses;
    for (const auto& n : order) {
      std::vector<const VarNode*> u;
      if (const auto* v = n->as<VarNode>()) {
        if (bound.count(v)) u.push_back(v);
      } else {
        for (const auto& c : children(n)) {
          const auto& cu = uses[c.get()];
          u.insert(u.end(), cu.begin(), cu.end());
        }
        std::vector<const VarNode*> own;  // what the node binds itself
        if (const auto* l = n->as<LetNode>()) own.push_back(l->var.get());
        if (const auto* f = n->as<FunctionNode>())
          for (const auto& p : f->params) own.push_back(p.get());
        std::sort(u.begin(), u.end());
        u.erase(std::unique(u.begin(), u.end()), u.end());
        for (const VarNode* o : own) u.erase(std::remove(u.begin(), u.end(), o), u.end());
      }
      const bool bindable =
          n != inner && n->kind != ExprKind::Var && n->kind != ExprKind::Constant && n->kind != ExprKind::Let;
      if (bindable && u.empty() && !lookup(n.get())) {
        bool used_outside = false;
        if (auto it = users_.find(n.get()); it != users_.end())
          for (const ExprNode* user : it->second) used_outside = used_outside || !inside.count(user);
        if (used_outside) text(n, b, false);
      }
      uses.emplace(n.get(), std::move(u));
    }
  }

  // `{ lines; result }` for a Let in operand position.
  std::string braced(const Expr& e, Block& outer) {
    hoist(e, outer);
    Block inner{outer.indent + "  ", ""};
    memo_.emplace_back();
    std::string root = let_chain(e, inner);
    memo_.pop_back();
    return "{\n" + inner.lines + inner.indent + root + "\n" + outer.indent + "}";
  }

  // The operands text() prints before a node, in its order: a call's arguments then
  // its callee, a tuple's fields, a projection's tuple.
  static void operands(const ExprNode& e, std::vector<Expr>& out) {
    if (const auto* c = e.as<CallNode>()) {
      out.insert(out.end(), c->args.begin(), c->args.end());
      if (c->fn) out.push_back(c->fn);
    } else if (const auto* t = e.as<TupleNode>()) {
      out.insert(out.end(), t->fields.begin(), t->fields.end());
    } else if (const auto* g = e.as<TupleGetItemNode>()) {
      out.push_back(g->tuple);
    }
  }

  // The text of e in block b: in place for a root or an atom, else a `%n` binding.
  std::string text(const Expr& e, Block& b, bool root) {
    switch (e->kind) {
      case ExprKind::Var:
        return "%" + var_name(e->as<VarNode>());
      case ExprKind::Constant:
        return constant_text(*e->as<ConstantNode>());
      default:
        break;
    }
    if (const std::string* name = lookup(e.get())) return *name;
    // The operands' bindings first, iteratively (atoms too: they name variables and
    // number metadata constants in order of first use), so that the text() calls
    // below find them bound and recurse one level only.
    walk_post_order(
        e, operands,
        [&](const Expr& n) {
          return n->kind != ExprKind::Var && n->kind != ExprKind::Constant && lookup(n.get()) != nullptr;
        },
        [&](const Expr& n) { text(n, b, false); });
    std::string t;
    switch (e->kind) {
      case ExprKind::Call: {
        const auto* c = e->as<CallNode>();
        // Arguments first, then a function-valued callee, as Relay prints them.
        std::vector<std::string> parts;
        for (const auto& a : c->args) parts.push_back(text(a, b, false));
        std::string callee = c->is_op() ? c->op : text(c->fn, b, false);
        for (const auto& [name, value] : c->attrs) parts.push_back(name + "=" + to_string(value));
        t = callee + "(" + join(parts, ", ") + ")";
        break;
      }
      case ExprKind::Tuple: {
        std::vector<std::string> parts;
        for (const auto& f : e->as<TupleNode>()->fields) parts.push_back(text(f, b, false));
        t = "(" + join(parts, ", ") + (parts.size() == 1 ? ",)" : ")");
        break;
      }
      case ExprKind::TupleGetItem: {
        const auto* g = e->as<TupleGetItemNode>();
        t = text(g->tuple, b, false) + "." + std::to_string(g->index);
        break;
      }
      case ExprKind::Function:
        hoist(e, b);
        t = "fn " + function_text(*e->as<FunctionNode>(), b.indent);
        break;
      case ExprKind::Let:
        if (root) return let_chain(e, b);
        t = braced(e, b);
        break;
      case ExprKind::Var:
      case ExprKind::Constant:
        break;
    }
    if (root) return t;
    std::string name = "%" + std::to_string(counter_++);
    b.lines += b.indent + name + " = " + t + annotation(*e) + ";\n";
    memo_.back().emplace(e.get(), name);
    return name;
  }

  const PrintOptions& opts_;
  std::vector<const ConstantNode*> metas_;
  std::unordered_map<const ConstantNode*, std::size_t> meta_index_;
  int counter_ = 0;
  std::unordered_map<const VarNode*, std::string> var_names_;
  std::unordered_set<std::string> used_names_;
  std::vector<std::unordered_map<const ExprNode*, std::string>> memo_;
  std::unordered_map<const ExprNode*, std::vector<const ExprNode*>> users_;
};

}  // namespace detail

// print(mod, options): the module as text.
inline std::string print(const Module& mod, const PrintOptions& options = {}) {
  return detail::Printer(options).module_text(mod);
}

// print(expr, options): one expression as text.
inline std::string print(const Expr& expr, const PrintOptions& options = {}) {
  return detail::Printer(options).expr_text(expr);
}

}  // namespace tinyir
