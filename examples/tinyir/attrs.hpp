// tinyir/attrs.hpp — call and function attributes.
//
// Ints                      std::vector<std::int64_t>
// AttrValue                 one of: integer, double, string, list of integers
// to_string(AttrValue)      Relay text: 64, 1e-05f, -inff, "NCHW", [1, 1]
// Attrs                     small ordered map name → AttrValue (insertion order)
//   find(name)              pointer to the value or nullptr
//   set(name, value)        replace in place or append
//   erase(name)             remove; true if it was there
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tinyir/detail/text.hpp"

namespace tinyir {

using Ints = std::vector<std::int64_t>;

// AttrValue: an attribute value. Integers also serve as booleans (0/1).
struct AttrValue {
  std::variant<std::int64_t, double, std::string, Ints> value;

  AttrValue() : value(std::int64_t{0}) {}
  // Implicit on purpose: attributes are written as {{"channels", 64}, {"padding", {1, 1}}}.
  // NOLINTBEGIN(google-explicit-constructor)
  AttrValue(int v) : value(std::int64_t{v}) {}
  AttrValue(long v) : value(static_cast<std::int64_t>(v)) {}
  AttrValue(long long v) : value(static_cast<std::int64_t>(v)) {}
  AttrValue(double v) : value(v) {}
  AttrValue(const char* v) : value(std::string(v)) {}
  AttrValue(std::string v) : value(std::move(v)) {}
  AttrValue(std::string_view v) : value(std::string(v)) {}
  AttrValue(Ints v) : value(std::move(v)) {}
  AttrValue(std::initializer_list<std::int64_t> v) : value(Ints(v)) {}
  // NOLINTEND(google-explicit-constructor)

  bool is_int() const noexcept { return std::holds_alternative<std::int64_t>(value); }
  bool is_double() const noexcept { return std::holds_alternative<double>(value); }
  bool is_string() const noexcept { return std::holds_alternative<std::string>(value); }
  bool is_ints() const noexcept { return std::holds_alternative<Ints>(value); }

  std::int64_t as_int() const { return std::get<std::int64_t>(value); }
  double as_double() const { return std::get<double>(value); }
  const std::string& as_string() const { return std::get<std::string>(value); }
  const Ints& as_ints() const { return std::get<Ints>(value); }

  // Doubles compare bit for bit in spirit: NaN equals NaN, so printing and
  // parsing a NaN attribute gives an equal value back.
  friend bool operator==(const AttrValue& a, const AttrValue& b) {
    if (a.is_double() && b.is_double()) {
      const double x = a.as_double(), y = b.as_double();
      return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y));
    }
    return a.value == b.value;
  }
};

// kind_name(v): "int", "double", "string" or "list of ints".
inline std::string_view kind_name(const AttrValue& v) noexcept {
  if (v.is_int()) return "int";
  if (v.is_double()) return "double";
  if (v.is_string()) return "string";
  return "list of ints";
}

// to_string(v): the attribute in Relay text (doubles carry the suffix f).
inline std::string to_string(const AttrValue& v) {
  if (v.is_int()) return std::to_string(v.as_int());
  if (v.is_double()) return detail::format_double(v.as_double()) + "f";
  if (v.is_string()) return detail::quote(v.as_string());
  std::string out = "[";
  const auto& ints = v.as_ints();
  for (std::size_t i = 0; i < ints.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(ints[i]);
  }
  return out + "]";
}

// Attrs: an ordered list of named attribute values.
class Attrs {
 public:
  using Item = std::pair<std::string, AttrValue>;

  Attrs() = default;
  Attrs(std::initializer_list<Item> items) {
    for (const auto& item : items) set(item.first, item.second);
  }

  const AttrValue* find(std::string_view name) const noexcept {
    for (const auto& item : items_)
      if (item.first == name) return &item.second;
    return nullptr;
  }

  void set(std::string name, AttrValue value) {
    for (auto& item : items_) {
      if (item.first == name) {
        item.second = std::move(value);
        return;
      }
    }
    items_.emplace_back(std::move(name), std::move(value));
  }

  bool erase(std::string_view name) {
    for (auto it = items_.begin(); it != items_.end(); ++it) {
      if (it->first == name) {
        items_.erase(it);
        return true;
      }
    }
    return false;
  }

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  auto begin() const noexcept { return items_.begin(); }
  auto end() const noexcept { return items_.end(); }

  friend bool operator==(const Attrs&, const Attrs&) = default;

 private:
  std::vector<Item> items_;
};

}  // namespace tinyir
