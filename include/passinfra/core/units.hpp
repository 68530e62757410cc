// passinfra/core/units.hpp — the units of an IR that a nest runs a pipeline on (SPEC §11.1).
//
// UnitSlot<U>{name, ir}               one unit: its name (logs, timing, crash reports) and its IR
// unit_traits<Parent, Unit>           the customization point (specialize it):
//     static std::vector<UnitSlot<Unit>> units(const Parent&);
//         the units a nest visits, in unit order (units the IR leaves alone are not listed)
//     static Parent replace_units(Parent, std::vector<UnitSlot<Unit>>);
//         the parent with each listed unit replaced by its slot's `ir`, same order, same names
// NestableIR<Parent, Unit>            both functions exist
// unit_list<Us...>                    ir_traits<Parent>::unit_types: the unit types of a parent
//                                     (only the dynamic layer needs it)
// unit_kind_name<Unit>()              ir_traits<Unit>::name, else "nest": a nest's default name
//
//   template <> struct passinfra::unit_traits<tinyir::Module, tinyir::Function> {
//     static std::vector<passinfra::UnitSlot<tinyir::Function>> units(const tinyir::Module&);
//     static tinyir::Module replace_units(tinyir::Module, std::vector<passinfra::UnitSlot<tinyir::Function>>);
//   };
//   template <> struct passinfra::ir_traits<tinyir::Function> {
//     static constexpr std::string_view name = "function";  // the nest's default name, the text's kind
//     using parent_type = tinyir::Module;                    // what an erased unit context's parent() is
//   };
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/core/ir_traits.hpp"

namespace passinfra {

// UnitSlot<U>: one unit of a parent, named.
template <class U>
struct UnitSlot {
  std::string name;
  U ir;
};

// unit_traits<Parent, Unit>: empty unless the IR specializes it.
template <class Parent, class Unit>
struct unit_traits {};

// NestableIR<Parent, Unit>: a nest over Parent can run a pipeline on its Units.
template <class Parent, class Unit>
concept NestableIR = requires(const Parent& p, Parent moved, std::vector<UnitSlot<Unit>> slots) {
  { unit_traits<Parent, Unit>::units(p) } -> std::same_as<std::vector<UnitSlot<Unit>>>;
  { unit_traits<Parent, Unit>::replace_units(std::move(moved), std::move(slots)) } -> std::convertible_to<Parent>;
};

// unit_list<Us...>: the unit types a parent IR has (ir_traits<Parent>::unit_types).
template <class... Us>
struct unit_list {};

namespace detail {
// is_unit_of<IR, U>: U is one of the unit types IR lists.
template <class L, class U>
inline constexpr bool in_unit_list = false;
template <class... Us, class U>
inline constexpr bool in_unit_list<unit_list<Us...>, U> = (std::is_same_v<Us, U> || ...);

// direct_unit_types<IR>: ir_traits<IR>::unit_types, or unit_list<> when IR lists none.
template <class IR>
struct direct_unit_types {
  using type = unit_list<>;
};
template <class IR>
  requires requires { typename ir_traits<IR>::unit_types; }
struct direct_unit_types<IR> {
  using type = typename ir_traits<IR>::unit_types;
};

// unit_types_closure<IR>: IR's unit types, their unit types, and so on (SPEC
// §11.1: nests nest), each once, nearest first. What an instrument held for
// IR (AnyInstrument<IR>, ContextRef<IR>) forwards hooks for: a nest of nests
// runs its innermost units' hooks through the outermost context.
template <class Done, class Todo>
struct unit_closure_step;
template <class... Ds>
struct unit_closure_step<unit_list<Ds...>, unit_list<>> {
  using type = unit_list<Ds...>;
};
template <class... Ds, class T, class... Ts>
struct unit_closure_step<unit_list<Ds...>, unit_list<T, Ts...>> {
  template <class L>
  struct then;
  template <class... Ns>
  struct then<unit_list<Ns...>> {
    using type = typename unit_closure_step<unit_list<Ds..., T>, unit_list<Ts..., Ns...>>::type;
  };
  using type =
      typename std::conditional_t<(std::is_same_v<T, Ds> || ...), unit_closure_step<unit_list<Ds...>, unit_list<Ts...>>,
                                  then<typename direct_unit_types<T>::type>>::type;
};
template <class IR>
using unit_types_closure = typename unit_closure_step<unit_list<>, typename direct_unit_types<IR>::type>::type;

// is_unit_of<IR, U>: U is a unit type of IR, directly or through units of units.
template <class IR, class U>
inline constexpr bool is_unit_of = in_unit_list<unit_types_closure<IR>, U>;

}  // namespace detail

// unit_kind_name<Unit>(): the unit kind's name (ir_traits<Unit>::name), else "nest".
template <class Unit>
constexpr std::string_view unit_kind_name() noexcept {
  if constexpr (requires { std::string_view(ir_traits<Unit>::name); }) {
    return std::string_view(ir_traits<Unit>::name);
  } else {
    return "nest";
  }
}

// HasParentType<Unit>: ir_traits<Unit>::parent_type names the IR whose unit it is.
template <class Unit>
concept HasParentType = requires { typename ir_traits<Unit>::parent_type; };

}  // namespace passinfra
