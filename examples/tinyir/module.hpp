// tinyir/module.hpp — a module: named global functions in insertion order.
//
// Module                         value type; copying shares the (immutable) functions
//   Module{{"main", f}, ...}     from (name, function) pairs
//   functions()                  the (name, function) pairs, in order
//   lookup(name)                 the function or null
//   name_of(fn)                  the name fn (that very node) has here, or "" when absent
//   operator[](name)             the function; throws Error when absent
//   main()                       operator[]("main")
//   update(name, fn)             replace in place, or append (every way of adding a
//                                function records its name on the node: global_name())
//   contains(name), size(), empty(), begin(), end()
// map_functions(mod, f)          a module with every function replaced by f(fn, mod)
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tinyir/error.hpp"
#include "tinyir/expr.hpp"

namespace tinyir {

class Module {
 public:
  using Entry = std::pair<std::string, Function>;

  Module() = default;
  Module(std::initializer_list<Entry> entries) {
    for (const auto& e : entries) update(e.first, e.second);
  }
  explicit Module(std::vector<Entry> entries) {
    for (auto& e : entries) update(std::move(e.first), std::move(e.second));
  }

  const std::vector<Entry>& functions() const noexcept { return functions_; }

  Function lookup(std::string_view name) const noexcept {
    for (const auto& [n, f] : functions_)
      if (n == name) return f;
    return nullptr;
  }

  // name_of(fn): the name of the entry holding this node (the first, if it is there
  // twice), or "" (global names are never empty).
  std::string_view name_of(const Function& fn) const noexcept {
    for (const auto& [n, f] : functions_)
      if (f == fn) return n;
    return {};
  }

  Function operator[](std::string_view name) const {
    if (Function f = lookup(name)) return f;
    throw Error("module has no function '@" + std::string(name) + "'");
  }

  Function main() const { return (*this)["main"]; }

  void update(std::string name, Function fn) {
    if (fn) fn->note_global_name(name);  // the node's first global name: its analysis key
    for (auto& [n, f] : functions_) {
      if (n == name) {
        f = std::move(fn);
        return;
      }
    }
    functions_.emplace_back(std::move(name), std::move(fn));
  }

  bool contains(std::string_view name) const noexcept { return lookup(name) != nullptr; }
  std::size_t size() const noexcept { return functions_.size(); }
  bool empty() const noexcept { return functions_.empty(); }
  auto begin() const noexcept { return functions_.begin(); }
  auto end() const noexcept { return functions_.end(); }

 private:
  std::vector<Entry> functions_;
};

// map_functions(mod, f): every global function replaced by f(fn, mod), where `mod`
// is the input module (as a function pass sees it). f: Function(Function, const Module&).
template <class F>
Module map_functions(const Module& mod, F&& f) {
  std::vector<Module::Entry> out;
  out.reserve(mod.size());
  for (const auto& [name, fn] : mod) out.emplace_back(name, f(fn, mod));
  return Module(std::move(out));
}

}  // namespace tinyir
