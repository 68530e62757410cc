// tinyir/op_registry.hpp — the operators tinyir knows: inputs, attribute schema,
// fusion pattern.
//
// AttrKind                   Int | Double | String | Ints
// AttrSpec                   one attribute: name, kind, default (none = optional or required)
// OpPattern                  Relay's fusion patterns (ElemWise … Opaque)
// OpInfo                     name, input names, attributes, pattern
//   arity()                  number of inputs
//   find_attr(name)          the AttrSpec or nullptr
// op_table()                 every operator, in a fixed order
// find_op(name)              the OpInfo or nullptr
// op_names()                 the names of op_table(), for "did you mean" hints
// to_string(AttrKind)        "int", "double", "string", "list of ints"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tinyir/attrs.hpp"

namespace tinyir {

enum class AttrKind { Int, Double, String, Ints };

inline std::string_view to_string(AttrKind k) noexcept {
  switch (k) {
    case AttrKind::Int:
      return "int";
    case AttrKind::Double:
      return "double";
    case AttrKind::String:
      return "string";
    case AttrKind::Ints:
      return "list of ints";
  }
  return "?";
}

// AttrSpec: `default_value` is what an absent attribute means; without one the
// attribute is either optional ("not set") or, when `required`, mandatory.
struct AttrSpec {
  std::string name;
  AttrKind kind;
  std::optional<AttrValue> default_value;
  bool required = false;
};

// OpPattern: Relay's TOpPattern, which drives FuseOps.
enum class OpPattern : int {
  ElemWise = 0,
  Broadcast = 1,
  Injective = 2,
  CommReduce = 3,
  OutEWiseFusable = 4,
  Tuple = 7,
  Opaque = 8,
};

struct OpInfo {
  std::string name;
  std::vector<std::string> inputs;  // names of the inputs, for error messages
  std::vector<AttrSpec> attrs;      // in printing order
  OpPattern pattern;

  std::size_t arity() const noexcept { return inputs.size(); }
  const AttrSpec* find_attr(std::string_view attr) const noexcept {
    for (const auto& a : attrs)
      if (a.name == attr) return &a;
    return nullptr;
  }
};

// op_table(): every operator tinyir knows.
inline const std::vector<OpInfo>& op_table() {
  static const std::vector<OpInfo> table = [] {
    using K = AttrKind;
    auto opt = [](std::string name, K kind, std::optional<AttrValue> def = std::nullopt) {
      return AttrSpec{std::move(name), kind, std::move(def), false};
    };
    auto req = [](std::string name, K kind) { return AttrSpec{std::move(name), kind, std::nullopt, true}; };
    const std::vector<std::string> binary{"lhs", "rhs"};
    std::vector<OpInfo> t;
    t.push_back({"add", binary, {}, OpPattern::Broadcast});
    t.push_back({"subtract", binary, {}, OpPattern::Broadcast});
    t.push_back({"multiply", binary, {}, OpPattern::Broadcast});
    t.push_back({"divide", binary, {}, OpPattern::Broadcast});
    t.push_back({"clip", {"data"}, {req("a_min", K::Double), req("a_max", K::Double)}, OpPattern::ElemWise});
    t.push_back(
        {"nn.conv2d",
         {"data", "weight"},
         {opt("strides", K::Ints, Ints{1, 1}), opt("padding", K::Ints, Ints{0, 0, 0, 0}),
          opt("dilation", K::Ints, Ints{1, 1}), opt("groups", K::Int, 1), opt("channels", K::Int),
          opt("kernel_size", K::Ints), opt("data_layout", K::String, "NCHW"), opt("kernel_layout", K::String, "OIHW"),
          opt("out_layout", K::String, ""), opt("out_dtype", K::String, "")},
         OpPattern::OutEWiseFusable});
    t.push_back(
        {"nn.batch_norm",
         {"data", "gamma", "beta", "moving_mean", "moving_var"},
         {opt("axis", K::Int, 1), opt("epsilon", K::Double, 1e-5), opt("center", K::Int, 1), opt("scale", K::Int, 1)},
         OpPattern::Opaque});
    t.push_back({"nn.relu", {"data"}, {}, OpPattern::ElemWise});
    t.push_back({"nn.max_pool2d",
                 {"data"},
                 {opt("pool_size", K::Ints, Ints{1, 1}), opt("strides", K::Ints, Ints{1, 1}),
                  opt("dilation", K::Ints, Ints{1, 1}), opt("padding", K::Ints, Ints{0, 0, 0, 0}),
                  opt("layout", K::String, "NCHW"), opt("ceil_mode", K::Int, 0)},
                 OpPattern::OutEWiseFusable});
    t.push_back({"nn.global_avg_pool2d", {"data"}, {opt("layout", K::String, "NCHW")}, OpPattern::OutEWiseFusable});
    t.push_back({"nn.batch_flatten", {"data"}, {}, OpPattern::Injective});
    t.push_back({"nn.dense",
                 {"data", "weight"},
                 {opt("units", K::Int), opt("out_dtype", K::String, "")},
                 OpPattern::OutEWiseFusable});
    t.push_back({"nn.bias_add", {"data", "bias"}, {opt("axis", K::Int, 1)}, OpPattern::Broadcast});
    t.push_back({"nn.softmax", {"data"}, {opt("axis", K::Int, -1)}, OpPattern::Opaque});
    t.push_back({"expand_dims", {"data"}, {req("axis", K::Int), opt("num_newaxis", K::Int, 1)}, OpPattern::Injective});
    t.push_back({"layout_transform",
                 {"data"},
                 {req("src_layout", K::String), req("dst_layout", K::String)},
                 OpPattern::Injective});
    t.push_back({"reshape", {"data"}, {req("newshape", K::Ints)}, OpPattern::Injective});
    return t;
  }();
  return table;
}

// find_op(name): the operator or nullptr.
inline const OpInfo* find_op(std::string_view name) {
  for (const auto& op : op_table())
    if (op.name == name) return &op;
  return nullptr;
}

// op_names(): every operator name.
inline const std::vector<std::string>& op_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& op : op_table()) out.push_back(op.name);
    return out;
  }();
  return names;
}

// attr_names(op): the attribute names of one operator.
inline std::vector<std::string> attr_names(const OpInfo& op) {
  std::vector<std::string> out;
  for (const auto& a : op.attrs) out.push_back(a.name);
  return out;
}

}  // namespace tinyir
