// passinfra/core/ir_traits.hpp — what an IR may provide, and how it says so.
//
// ir_traits<IR>                       the customization point (specialize it)
// FunctionIterableIR<IR>              ir_traits<IR>::map_functions exists
// HasFunctionPassFollowUp<IR>         ir_traits<IR>::function_pass_follow_up names a pass
// PrintableIR<IR>                     ir_traits<IR>::print(const IR&) -> std::string
// ParsableIR<IR>                      ir_traits<IR>::parse(text, source_name) -> IR
//
// Every IR must be move-constructible; everything else is optional and only
// needed by the feature that uses it:
//
//   template <> struct passinfra::ir_traits<tinyir::Module> {
//     using function_type = tinyir::Function;
//     // Calls f(function, module) for each function the IR wants a function
//     // pass to see and returns the module with the results put back.
//     template <class F> static tinyir::Module map_functions(tinyir::Module m, F&& f);
//     // Optional: a pass run (instrumented) after every function pass, as
//     // Relay runs InferType.
//     using function_pass_follow_up = tinyir::InferType;
//     static std::string print(const tinyir::Module&);                              // PrintIR
//     static tinyir::Module parse(std::string_view text, std::string_view source);  // AnnotateSpans
//   };
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <utility>

namespace passinfra {

// ir_traits<IR>: empty unless the IR specializes it.
template <class IR>
struct ir_traits {};

namespace detail {
// A stand-in for the function a function pass maps over an IR's functions.
template <class Fn, class IR>
struct FunctionMapperArchetype {
  Fn operator()(Fn fn, const IR&) const { return fn; }
};
}  // namespace detail

// FunctionIterableIR<IR>: function passes can run on IR.
template <class IR>
concept FunctionIterableIR = requires(IR ir) {
  typename ir_traits<IR>::function_type;
  {
    ir_traits<IR>::map_functions(std::move(ir),
                                 detail::FunctionMapperArchetype<typename ir_traits<IR>::function_type, IR>{})
  } -> std::convertible_to<IR>;
};

// HasFunctionPassFollowUp<IR>: the IR attaches a pass to every function pass.
template <class IR>
concept HasFunctionPassFollowUp = requires { typename ir_traits<IR>::function_pass_follow_up; };

// PrintableIR<IR>: the IR prints itself as text.
template <class IR>
concept PrintableIR = requires(const IR& ir) {
  { ir_traits<IR>::print(ir) } -> std::convertible_to<std::string>;
};

// ParsableIR<IR>: the IR parses its own text, naming the source for spans.
template <class IR>
concept ParsableIR = requires(std::string_view text) {
  { ir_traits<IR>::parse(text, text) } -> std::convertible_to<IR>;
};

}  // namespace passinfra
