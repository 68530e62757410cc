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
// num_elements(tensor)          product of the shape
// is_valid_dtype(name)          float16/32/64, int8/16/32/64, uint8, bool
#pragma once

#include <cstdint>
#include <memory>
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

// num_elements(t): product of the shape (1 for a scalar).
inline std::int64_t num_elements(const TensorType& t) noexcept {
  std::int64_t n = 1;
  for (auto d : t.shape) n *= d;
  return n;
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
