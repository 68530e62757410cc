// tinyir/expr.hpp — expression nodes, their handles and factories.
//
// Expressions are immutable nodes shared through std::shared_ptr<const ...>, as in
// Relay: a program is a DAG and a shared node is one computation. A transform builds
// new nodes and reuses the unchanged ones.
//
// Checked types. Every node has a `checked_type()` slot that type inference fills
// (`set_checked_type`). It is a mutable cache, not part of the node's value: the type
// of an expression is a function of the (immutable) expression, so writing it once
// leaves every holder of the node — every module sharing it — looking at the same,
// correct answer. The one rule that keeps this true: a transform that changes the
// type of a let-bound value binds it to a new Var (every tinyir transform does).
// The cache is not synchronized: do not run type inference on one node from two
// threads at once.
//
// ExprKind                               Var | Constant | Call | Let | Tuple | TupleGetItem | Function
// Expr, Var, Constant, Call, Let, Tuple, TupleGetItem, Function   shared_ptr<const ...Node>
// as<T>(expr)                            const T* or nullptr
// downcast<T>(expr)                      shared_ptr<const T> or null
// make_var(name, type, span)             a variable (type annotation optional)
// make_constant(type, data, span)        a tensor constant (data optional)
// make_scalar(value, dtype, span)        a rank-0 constant with data
// make_call(op, args, attrs, span)       an operator call; attrs checked and normalized against the op table
// make_call(fn, args, span)              a call of a function value
// make_let(var, value, body, span)
// make_tuple_expr(fields, span)
// make_tuple_get_item(tuple, index, span)
// make_function(params, body, ret_type, attrs, span)
// with_span(expr, span)                  the same node, re-made with another span
// FunctionNode::global_name()            the name a module first gave the node (analysis key)
// normalize_op_attrs(op, attrs)          what make_call stores: schema order, defaults dropped
// scalar_literal(constant)               "2f", "-inff", "3i64"... or nullopt
// describe(expr)                         a one-line rendering for error messages
#pragma once

#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tinyir/attrs.hpp"
#include "tinyir/error.hpp"
#include "tinyir/op_registry.hpp"
#include "tinyir/type.hpp"

namespace tinyir {

enum class ExprKind { Var, Constant, Call, Let, Tuple, TupleGetItem, Function };

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

namespace detail {

// Releasing a node's operands without recursion. Destroying the last handle of a
// chain of 100,000 nodes would otherwise destroy them recursively, several stack
// frames per node. A node's destructor makes an OperandReleaser and hands it its
// operand handles: the outermost releaser on the thread keeps them in a list of its
// own and releases them in a loop when it goes; the releasers of the destructors
// that loop triggers only add to that list. (The per-thread state is a plain
// pointer, so there is nothing to destroy at thread or program exit.) A handle that
// finds no memory in the list is left to the member destructor, recursively as before.
class OperandReleaser {
 public:
  OperandReleaser() noexcept : outer_(current()) {
    if (!outer_) current() = &own_;
  }
  OperandReleaser(const OperandReleaser&) = delete;
  OperandReleaser& operator=(const OperandReleaser&) = delete;
  ~OperandReleaser() {
    if (outer_) return;
    while (!own_.empty()) {
      Expr e = std::move(own_.back());
      own_.pop_back();
      e.reset();  // may hand more to own_
    }
    current() = nullptr;
  }

  // take(operand): the handle, moved to the list (the owner is under destruction,
  // so its const members are not const any more).
  void take(const Expr& operand) noexcept {
    auto& e = const_cast<Expr&>(operand);
    if (!e) return;
    std::vector<Expr>& list = *current();
    try {
      list.emplace_back();
    } catch (...) {
      return;
    }
    list.back().swap(e);
  }
  void take_all(const std::vector<Expr>& operands) noexcept {
    for (const auto& e : operands) take(e);
  }

 private:
  static std::vector<Expr>*& current() noexcept {
    thread_local std::vector<Expr>* list = nullptr;
    return list;
  }
  std::vector<Expr>* outer_;
  std::vector<Expr> own_;
};

}  // namespace detail

struct ExprNode {
  const ExprKind kind;
  const std::optional<Span> span;

  virtual ~ExprNode() = default;
  ExprNode(const ExprNode&) = delete;
  ExprNode& operator=(const ExprNode&) = delete;

  // The type inference result, or null before inference (see the file comment).
  const Type& checked_type() const noexcept { return checked_type_; }
  void set_checked_type(Type t) const { checked_type_ = std::move(t); }

  template <class T>
  const T* as() const noexcept {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }

 protected:
  ExprNode(ExprKind k, std::optional<Span> s) : kind(k), span(std::move(s)) {}

 private:
  mutable Type checked_type_;
};

struct VarNode final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Var;
  const std::string name;
  const Type type_annotation;  // may be null (let-bound variables)

  VarNode(std::string n, Type t, std::optional<Span> s)
      : ExprNode(kKind, std::move(s)), name(std::move(n)), type_annotation(std::move(t)) {}
};
using Var = std::shared_ptr<const VarNode>;

struct ConstantNode final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Constant;
  const Type type;                               // always a TensorType
  const std::optional<std::vector<float>> data;  // row-major, num_elements values

  ConstantNode(Type t, std::optional<std::vector<float>> d, std::optional<Span> s)
      : ExprNode(kKind, std::move(s)), type(std::move(t)), data(std::move(d)) {}

  const TensorType& tensor_type() const noexcept { return *as_tensor(type); }
  bool is_scalar() const noexcept { return tensor_type().shape.empty(); }
};
using Constant = std::shared_ptr<const ConstantNode>;

struct CallNode final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Call;
  const std::string op;  // operator name, empty when `fn` is set
  const Expr fn;         // the called function value, null for operator calls
  const std::vector<Expr> args;
  const Attrs attrs;

  CallNode(std::string o, Expr f, std::vector<Expr> a, Attrs at, std::optional<Span> s)
      : ExprNode(kKind, std::move(s)), op(std::move(o)), fn(std::move(f)), args(std::move(a)), attrs(std::move(at)) {}
  CallNode(const CallNode&) = delete;
  CallNode& operator=(const CallNode&) = delete;
  ~CallNode() override {
    detail::OperandReleaser r;
    r.take(fn);
    r.take_all(args);
  }

  bool is_op() const noexcept { return fn == nullptr; }
  const OpInfo* op_info() const { return is_op() ? find_op(op) : nullptr; }
};
using Call = std::shared_ptr<const CallNode>;

struct LetNode final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Let;
  const Var var;
  const Expr value;
  const Expr body;

  LetNode(Var v, Expr val, Expr b, std::optional<Span> s)
      : ExprNode(kKind, std::move(s)), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  LetNode(const LetNode&) = delete;
  LetNode& operator=(const LetNode&) = delete;
  ~LetNode() override {
    detail::OperandReleaser r;
    r.take(value);
    r.take(body);
  }
};
using Let = std::shared_ptr<const LetNode>;

struct TupleNode final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Tuple;
  const std::vector<Expr> fields;

  TupleNode(std::vector<Expr> f, std::optional<Span> s) : ExprNode(kKind, std::move(s)), fields(std::move(f)) {}
  TupleNode(const TupleNode&) = delete;
  TupleNode& operator=(const TupleNode&) = delete;
  ~TupleNode() override {
    detail::OperandReleaser r;
    r.take_all(fields);
  }
};
using Tuple = std::shared_ptr<const TupleNode>;

struct TupleGetItemNode final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::TupleGetItem;
  const Expr tuple;
  const int index;

  TupleGetItemNode(Expr t, int i, std::optional<Span> s)
      : ExprNode(kKind, std::move(s)), tuple(std::move(t)), index(i) {}
  TupleGetItemNode(const TupleGetItemNode&) = delete;
  TupleGetItemNode& operator=(const TupleGetItemNode&) = delete;
  ~TupleGetItemNode() override {
    detail::OperandReleaser r;
    r.take(tuple);
  }
};
using TupleGetItem = std::shared_ptr<const TupleGetItemNode>;

struct FunctionNode final : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Function;
  const std::vector<Var> params;
  const Expr body;
  const Type ret_type;  // annotation, may be null
  const Attrs attrs;    // e.g. Primitive=1

  FunctionNode(std::vector<Var> p, Expr b, Type r, Attrs a, std::optional<Span> s)
      : ExprNode(kKind, std::move(s)),
        params(std::move(p)),
        body(std::move(b)),
        ret_type(std::move(r)),
        attrs(std::move(a)) {}
  FunctionNode(const FunctionNode&) = delete;
  FunctionNode& operator=(const FunctionNode&) = delete;
  ~FunctionNode() override {
    detail::OperandReleaser r;
    r.take(body);
  }

  // is_primitive(): the function carries Primitive=<nonzero> (a FuseOps group).
  bool is_primitive() const noexcept {
    const AttrValue* v = attrs.find("Primitive");
    return v && v->is_int() && v->as_int() != 0;
  }

  // global_name(): the name under which this node was first put in a module
  // (Module records it), "" if it never was. Like the checked type, a note on the
  // node, not part of its value (printing, structural equality and transforms
  // ignore it): a rewritten function is a new node that gets the name of the
  // entry it is put in. passinfra's analysis manager keys the results of
  // function analyses by it (tinyir/passes.hpp, ir_traits::function_key).
  std::string_view global_name() const noexcept {
    return has_global_name_.load(std::memory_order_acquire) ? std::string_view(global_name_) : std::string_view();
  }
  // note_global_name(name): records name unless the node has one already (the
  // first wins; safe from several threads).
  void note_global_name(std::string_view name) const {
    if (has_global_name_.load(std::memory_order_acquire)) return;
    std::call_once(global_name_once_, [&] {
      global_name_ = std::string(name);
      has_global_name_.store(true, std::memory_order_release);
    });
  }

 private:
  mutable std::once_flag global_name_once_;
  mutable std::string global_name_;
  mutable std::atomic<bool> has_global_name_{false};
};
using Function = std::shared_ptr<const FunctionNode>;

// as<T>(e): the node as T, or nullptr (also for a null e).
template <class T>
const T* as(const Expr& e) noexcept {
  return e ? e->as<T>() : nullptr;
}

// downcast<T>(e): a shared handle to the node as T, or null.
template <class T>
std::shared_ptr<const T> downcast(const Expr& e) noexcept {
  return (e && e->kind == T::kKind) ? std::static_pointer_cast<const T>(e) : nullptr;
}

// normalize_op_attrs(op, attrs): checks every attribute against the schema and
// returns them in schema order without the ones equal to their default. An integer
// is accepted for a double attribute; `padding` of 1 or 2 values becomes 4
// (top, left, bottom, right). Throws Error for an unknown attribute or a value of
// the wrong kind.
inline Attrs normalize_op_attrs(const OpInfo& op, const Attrs& attrs) {
  for (const auto& [name, value] : attrs) {
    if (!op.find_attr(name)) {
      std::string known = op.attrs.empty() ? "none" : detail::join(attr_names(op), ", ");
      throw Error("operator '" + op.name + "' has no attribute '" + name + "'" +
                  detail::did_you_mean(name, attr_names(op)) + "; its attributes are: " + known);
    }
  }
  Attrs out;
  for (const auto& spec : op.attrs) {
    const AttrValue* given = attrs.find(spec.name);
    if (!given) continue;
    AttrValue v = *given;
    if (spec.kind == AttrKind::Double && v.is_int()) v = AttrValue(static_cast<double>(v.as_int()));
    if (spec.kind == AttrKind::Ints && v.is_int()) v = AttrValue(Ints{v.as_int()});
    const bool ok = (spec.kind == AttrKind::Int && v.is_int()) || (spec.kind == AttrKind::Double && v.is_double()) ||
                    (spec.kind == AttrKind::String && v.is_string()) || (spec.kind == AttrKind::Ints && v.is_ints());
    if (!ok)
      throw Error("attribute '" + spec.name + "' of operator '" + op.name + "' expects " +
                  std::string(to_string(spec.kind)) + ", found " + std::string(kind_name(v)) + " " + to_string(v));
    if (spec.name == "padding") {
      const Ints& p = v.as_ints();
      if (p.size() == 1)
        v = AttrValue(Ints{p[0], p[0], p[0], p[0]});
      else if (p.size() == 2)
        v = AttrValue(Ints{p[0], p[1], p[0], p[1]});
    }
    if (spec.default_value && *spec.default_value == v) continue;
    out.set(spec.name, std::move(v));
  }
  return out;
}

// make_var(name, type_annotation, span)
inline Var make_var(std::string name, Type type_annotation = nullptr, std::optional<Span> span = std::nullopt) {
  return std::make_shared<const VarNode>(std::move(name), std::move(type_annotation), std::move(span));
}

// make_constant(type, data, span): `type` must be a TensorType; `data`, when given,
// holds num_elements(type) values. Throws Error otherwise.
inline Constant make_constant(Type type, std::optional<std::vector<float>> data = std::nullopt,
                              std::optional<Span> span = std::nullopt) {
  const TensorType* tt = as_tensor(type);
  if (!tt) throw Error("a constant must have a tensor type, found " + to_string(type));
  if (data && static_cast<std::int64_t>(data->size()) != num_elements(*tt))
    throw Error("a constant of type " + to_string(type) + " needs " + std::to_string(num_elements(*tt)) +
                " values, found " + std::to_string(data->size()));
  return std::make_shared<const ConstantNode>(std::move(type), std::move(data), std::move(span));
}

// make_scalar(value, dtype, span): a rank-0 constant with data.
inline Constant make_scalar(float value, std::string dtype = "float32", std::optional<Span> span = std::nullopt) {
  return make_constant(scalar_type(std::move(dtype)), std::vector<float>{value}, std::move(span));
}

// make_call(op, args, attrs, span): an operator call. Throws Error for an unknown
// operator or a bad attribute (see normalize_op_attrs). The argument count is
// checked by type inference.
inline Call make_call(std::string op, std::vector<Expr> args, const Attrs& attrs = {},
                      std::optional<Span> span = std::nullopt) {
  const OpInfo* info = find_op(op);
  if (!info) throw Error("unknown operator '" + op + "'" + detail::did_you_mean(op, op_names()));
  return std::make_shared<const CallNode>(std::move(op), nullptr, std::move(args), normalize_op_attrs(*info, attrs),
                                          std::move(span));
}

// make_call(fn, args, span): a call of a function value (e.g. a Primitive function).
inline Call make_call(Expr fn, std::vector<Expr> args, std::optional<Span> span = std::nullopt) {
  return std::make_shared<const CallNode>(std::string(), std::move(fn), std::move(args), Attrs{}, std::move(span));
}

// make_let(var, value, body, span)
inline Let make_let(Var var, Expr value, Expr body, std::optional<Span> span = std::nullopt) {
  return std::make_shared<const LetNode>(std::move(var), std::move(value), std::move(body), std::move(span));
}

// make_tuple_expr(fields, span)
inline Tuple make_tuple_expr(std::vector<Expr> fields, std::optional<Span> span = std::nullopt) {
  return std::make_shared<const TupleNode>(std::move(fields), std::move(span));
}

// make_tuple_get_item(tuple, index, span)
inline TupleGetItem make_tuple_get_item(Expr tuple, int index, std::optional<Span> span = std::nullopt) {
  return std::make_shared<const TupleGetItemNode>(std::move(tuple), index, std::move(span));
}

// make_function(params, body, ret_type, attrs, span)
inline Function make_function(std::vector<Var> params, Expr body, Type ret_type = nullptr, Attrs attrs = {},
                              std::optional<Span> span = std::nullopt) {
  return std::make_shared<const FunctionNode>(std::move(params), std::move(body), std::move(ret_type), std::move(attrs),
                                              std::move(span));
}

// Re-making nodes with new children; span kept, checked type not (it may change).
namespace detail {
inline Call rebuild_call(const CallNode& c, Expr fn, std::vector<Expr> args) {
  return std::make_shared<const CallNode>(c.op, std::move(fn), std::move(args), c.attrs, c.span);
}
inline Call rebuild_call(const CallNode& c, std::vector<Expr> args, Attrs attrs) {
  return std::make_shared<const CallNode>(c.op, c.fn, std::move(args), std::move(attrs), c.span);
}
}  // namespace detail

// with_span(e, span): a copy of the node (same children) carrying `span`.
inline Expr with_span(const Expr& e, std::optional<Span> span) {
  switch (e->kind) {
    case ExprKind::Var: {
      const auto* v = e->as<VarNode>();
      return make_var(v->name, v->type_annotation, std::move(span));
    }
    case ExprKind::Constant: {
      const auto* c = e->as<ConstantNode>();
      return std::make_shared<const ConstantNode>(c->type, c->data, std::move(span));
    }
    case ExprKind::Call: {
      const auto* c = e->as<CallNode>();
      return std::make_shared<const CallNode>(c->op, c->fn, c->args, c->attrs, std::move(span));
    }
    case ExprKind::Let: {
      const auto* l = e->as<LetNode>();
      return make_let(l->var, l->value, l->body, std::move(span));
    }
    case ExprKind::Tuple:
      return make_tuple_expr(e->as<TupleNode>()->fields, std::move(span));
    case ExprKind::TupleGetItem: {
      const auto* t = e->as<TupleGetItemNode>();
      return make_tuple_get_item(t->tuple, t->index, std::move(span));
    }
    case ExprKind::Function: {
      const auto* f = e->as<FunctionNode>();
      return make_function(f->params, f->body, f->ret_type, f->attrs, std::move(span));
    }
  }
  return e;
}

// scalar_literal(c): the literal Relay prints for a rank-0 constant with data —
// "2f" (float32), "2f64", "2f16", "2" (int32), "2i64"; "-inff", "nanf" for the
// specials — or nullopt when the constant has no literal form.
inline std::optional<std::string> scalar_literal(const ConstantNode& c) {
  if (!c.is_scalar() || !c.data || c.data->size() != 1) return std::nullopt;
  const float v = (*c.data)[0];
  const std::string& dt = c.tensor_type().dtype;
  if (dt == "float32") return detail::format_float(v) + "f";
  if (dt == "float64") return detail::format_float(v) + "f64";
  if (dt == "float16") return detail::format_float(v) + "f16";
  if (dt == "int32" || dt == "int64") {
    if (!std::isfinite(v) || std::trunc(v) != v || std::fabs(v) > 9.0e15f) return std::nullopt;
    std::string s = std::to_string(static_cast<long long>(v));
    return dt == "int64" ? s + "i64" : s;
  }
  return std::nullopt;
}

namespace detail {
inline std::string describe_shallow(const Expr& e) {
  if (!e) return "<null>";
  switch (e->kind) {
    case ExprKind::Var:
      return "%" + e->as<VarNode>()->name;
    case ExprKind::Constant: {
      const auto* c = e->as<ConstantNode>();
      if (auto lit = scalar_literal(*c)) return *lit;
      return "const(" + to_string(c->type) + ")";
    }
    case ExprKind::Call: {  // a chain of calls of calls, without recursion
      std::size_t calls = 0;
      const ExprNode* cur = e.get();
      while (cur && cur->kind == ExprKind::Call && !cur->as<CallNode>()->is_op()) {
        ++calls;
        cur = cur->as<CallNode>()->fn.get();
      }
      std::string out = !cur                          ? "<null>"
                        : cur->kind == ExprKind::Call ? cur->as<CallNode>()->op + "(...)"
                                                      : describe_shallow(Expr(e, cur));
      for (std::size_t i = 0; i < calls; ++i) out += "(...)";
      return out;
    }
    case ExprKind::Let:
      return "let %" + e->as<LetNode>()->var->name + " = ...";
    case ExprKind::Tuple:
      return "(...)";
    case ExprKind::TupleGetItem: {  // a chain of projections, without recursion
      std::vector<int> indices;
      const ExprNode* cur = e.get();
      while (cur && cur->kind == ExprKind::TupleGetItem) {
        indices.push_back(cur->as<TupleGetItemNode>()->index);
        cur = cur->as<TupleGetItemNode>()->tuple.get();
      }
      std::string out = cur ? describe_shallow(Expr(e, cur)) : "<null>";
      for (auto it = indices.rbegin(); it != indices.rend(); ++it) out += "." + std::to_string(*it);
      return out;
    }
    case ExprKind::Function:
      return "fn (...) {...}";
  }
  return "?";
}
}  // namespace detail

// describe(node): one line naming the expression and its immediate operands, e.g.
// `nn.conv2d(%x, nn.relu(...), channels=64, kernel_size=[3, 3])`.
inline std::string describe(const ExprNode& e) {
  switch (e.kind) {
    case ExprKind::Call: {
      const auto* c = e.as<CallNode>();
      std::vector<std::string> parts;
      for (const auto& a : c->args) parts.push_back(detail::describe_shallow(a));
      for (const auto& [name, value] : c->attrs) parts.push_back(name + "=" + to_string(value));
      return (c->is_op() ? c->op : detail::describe_shallow(c->fn)) + "(" + detail::join(parts, ", ") + ")";
    }
    case ExprKind::Tuple: {
      std::vector<std::string> parts;
      for (const auto& f : e.as<TupleNode>()->fields) parts.push_back(detail::describe_shallow(f));
      return "(" + detail::join(parts, ", ") + (parts.size() == 1 ? ",)" : ")");
    }
    case ExprKind::Function: {
      const auto* f = e.as<FunctionNode>();
      std::vector<std::string> parts;
      for (const auto& p : f->params) parts.push_back("%" + p->name);
      return "fn (" + detail::join(parts, ", ") + ") {...}";
    }
    case ExprKind::Let: {
      const auto* l = e.as<LetNode>();
      return "let %" + l->var->name + " = " + detail::describe_shallow(l->value) + "; ...";
    }
    case ExprKind::Var:
      return "%" + e.as<VarNode>()->name;
    case ExprKind::Constant: {
      const auto* c = e.as<ConstantNode>();
      if (auto lit = scalar_literal(*c)) return *lit;
      return "const(" + to_string(c->type) + ")";
    }
    case ExprKind::TupleGetItem: {  // a chain of projections, without recursion
      std::vector<int> indices;
      const ExprNode* cur = &e;
      while (cur && cur->kind == ExprKind::TupleGetItem) {
        indices.push_back(cur->as<TupleGetItemNode>()->index);
        cur = cur->as<TupleGetItemNode>()->tuple.get();
      }
      std::string out = cur ? describe(*cur) : "<null>";
      for (auto it = indices.rbegin(); it != indices.rend(); ++it) out += "." + std::to_string(*it);
      return out;
    }
  }
  return "?";
}

// describe(e): describe(*e), "<null>" for a null handle.
inline std::string describe(const Expr& e) { return e ? describe(*e) : "<null>"; }

}  // namespace tinyir
