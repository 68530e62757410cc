// tinyir/type.hpp — the types of tinyir values.
//
// Type                          shared, immutable handle (null = unknown / not annotated)
// TensorType{shape, dtype}      a tensor; rank 0 is a scalar
// TupleType{fields}             a tuple of values
// FuncType{params, ret}         a function
// tensor_type(shape, dtype)     make a TensorType (dtype "float32" by default)
// scalar_type(dtype)            tensor_type({}, dtype)
// tuple_type(fields)            make a TupleType
// func_type(params, ret)        make a FuncType
// as_tensor/as_tuple/as_func(t) the alternative, or nullptr
// type_equal(a, b)              structural equality (null == null)
// to_string(t)                  Relay text: "Tensor[(1, 64), float32]", "float32", "(T1, T2)", "fn (T) -> T"
// num_elements(tensor)          product of the shape (INT64_MAX when it overflows)
// checked_num_elements(shape)   product of the shape, nullopt when it overflows int64
// type_depth(t)                 nesting depth: 1 for a tensor, 1 + the deepest field for a tuple or fn
// kMaxNestingDepth              256: the deepest nesting of expressions and of types the
//                               parser accepts, and of types type inference builds
// is_valid_dtype(name)          float16/32/64, int8/16/32/64, uint8, bool
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tinyir/detail/text.hpp"

namespace tinyir {

struct TypeNode;
// Type: a shared immutable type; null means "unknown".
using Type = std::shared_ptr<const TypeNode>;

struct TensorType {
  std::vector<std::int64_t> shape;
  std::string dtype = "float32";
};

struct TupleType {
  std::vector<Type> fields;
};

struct FuncType {
  std::vector<Type> params;
  Type ret;
};

struct TypeNode {
  std::variant<TensorType, TupleType, FuncType> value;
};

// tensor_type(shape, dtype)
inline Type tensor_type(std::vector<std::int64_t> shape, std::string dtype = "float32") {
  return std::make_shared<const TypeNode>(TypeNode{TensorType{std::move(shape), std::move(dtype)}});
}

// scalar_type(dtype): a rank-0 tensor type.
inline Type scalar_type(std::string dtype = "float32") { return tensor_type({}, std::move(dtype)); }

// tuple_type(fields)
inline Type tuple_type(std::vector<Type> fields) {
  return std::make_shared<const TypeNode>(TypeNode{TupleType{std::move(fields)}});
}

// func_type(params, ret)
inline Type func_type(std::vector<Type> params, Type ret) {
  return std::make_shared<const TypeNode>(TypeNode{FuncType{std::move(params), std::move(ret)}});
}

inline const TensorType* as_tensor(const Type& t) noexcept { return t ? std::get_if<TensorType>(&t->value) : nullptr; }
inline const TupleType* as_tuple(const Type& t) noexcept { return t ? std::get_if<TupleType>(&t->value) : nullptr; }
inline const FuncType* as_func(const Type& t) noexcept { return t ? std::get_if<FuncType>(&t->value) : nullptr; }

// type_equal(a, b): structural equality; two null types are equal.
inline bool type_equal(const Type& a, const Type& b) {
  if (a == b) return true;
  if (!a || !b || a->value.index() != b->value.index()) return false;
  if (const auto* ta = as_tensor(a)) {
    const auto* tb = as_tensor(b);
    return ta->shape == tb->shape && ta->dtype == tb->dtype;
  }
  auto all_equal = [](const std::vector<Type>& x, const std::vector<Type>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!type_equal(x[i], y[i])) return false;
    return true;
  };
  if (const auto* ta = as_tuple(a)) return all_equal(ta->fields, as_tuple(b)->fields);
  const auto* fa = as_func(a);
  const auto* fb = as_func(b);
  return all_equal(fa->params, fb->params) && type_equal(fa->ret, fb->ret);
}

// to_string(type): Relay's text for a type; "?" for an unknown (null) type.
inline std::string to_string(const Type& t) {
  if (!t) return "?";
  if (const auto* tt = as_tensor(t)) {
    if (tt->shape.empty()) return tt->dtype;
    return "Tensor[" + detail::format_shape(tt->shape) + ", " + tt->dtype + "]";
  }
  if (const auto* tu = as_tuple(t)) {
    std::string out = "(";
    for (std::size_t i = 0; i < tu->fields.size(); ++i) {
      if (i) out += ", ";
      out += to_string(tu->fields[i]);
    }
    if (tu->fields.size() == 1) out += ",";
    return out + ")";
  }
  const auto* ft = as_func(t);
  std::string out = "fn (";
  for (std::size_t i = 0; i < ft->params.size(); ++i) {
    if (i) out += ", ";
    out += to_string(ft->params[i]);
  }
  return out + ") -> " + to_string(ft->ret);
}

// [nesting-limit]
// kMaxNestingDepth: how deep expressions and types may nest in text. parse() throws
// ParseError "expected at most 256 nested expressions (kMaxNestingDepth), found
// deeper nesting" (or "... nested types ...") at the token that goes deeper:
// `((((%x))))`, `add(add(...))`, `(((%x,),),)`, `{ { ... } }`, `fn () { fn () ... }`
// and `((Tensor[...],),)` count one level per bracket or call. Flat programs have no
// such limit: `%0 = ...; %1 = ...;` bindings and `let` chains of any length are
// read, typed, printed and transformed without recursion. Type inference throws
// TypeError for a type deeper than kMaxNestingDepth (a chain of `(%k,)` tuples), so
// every type it builds prints as text that parses again.
inline constexpr int kMaxNestingDepth = 256;
// [nesting-limit]

// checked_num_elements(shape): the product of the dimensions, nullopt when it does
// not fit int64 (or a dimension is negative).
inline std::optional<std::int64_t> checked_num_elements(const std::vector<std::int64_t>& shape) noexcept {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

// num_elements(t): product of the shape (1 for a scalar); INT64_MAX when the product
// overflows (the parser and type inference reject such shapes).
inline std::int64_t num_elements(const TensorType& t) noexcept {
  return checked_num_elements(t.shape).value_or(std::numeric_limits<std::int64_t>::max());
}

// type_depth(t): 1 for a tensor (or an unknown type), 1 + the deepest component for
// a tuple or a function type.
inline int type_depth(const Type& t) {
  int deepest = 0;
  if (const auto* tu = as_tuple(t)) {
    for (const auto& f : tu->fields) deepest = std::max(deepest, type_depth(f));
  } else if (const auto* ft = as_func(t)) {
    for (const auto& p : ft->params) deepest = std::max(deepest, type_depth(p));
    deepest = std::max(deepest, type_depth(ft->ret));
  }
  return deepest + 1;
}

// is_valid_dtype(name)
inline bool is_valid_dtype(std::string_view name) noexcept {
  for (std::string_view d : {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"})
    if (name == d) return true;
  return false;
}

// is_integer_dtype(name): int*, uint*, bool.
inline bool is_integer_dtype(std::string_view name) noexcept {
  return name.starts_with("int") || name.starts_with("uint") || name == "bool";
}

}  // namespace tinyir
