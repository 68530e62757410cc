// passinfra/detail/inline.hpp — PASSINFRA_ALWAYS_INLINE, for the hot path.
//
// In a release build, run(), the hook fan-out and Sequential's per-child step
// are forced inline, so a static pipeline compiles to the hand-written calls
// even when it has a hundred children (g++ otherwise stops inlining long
// before that). Under a context with pass hooks, a Sequential bounds that to
// inline_block children per function, for compile time (core/sequential.hpp).
//
// PASSINFRA_FORCE_INLINE chooses: 1 forces inlining, 0 leaves it to the
// compiler. By default it follows NDEBUG, like assert: 1 in release builds
// (-DNDEBUG: CMake's Release, RelWithDebInfo and MinSizeRel), 0 in debug
// builds, where forcing it made the optimizer the largest part of a test
// file's compile time (tests/core/sequential_test.cpp at -O1: 2.2-4x) for
// run time nobody measures there. Define it to 0 or 1 before the first
// passinfra include to override; every translation unit of a program should
// see the same value (as with NDEBUG and assert).
#pragma once

#ifndef PASSINFRA_FORCE_INLINE
#ifdef NDEBUG
#define PASSINFRA_FORCE_INLINE 1
#else
#define PASSINFRA_FORCE_INLINE 0
#endif
#endif

// PASSINFRA_GATE_FAST_PATH (default: PASSINFRA_FORCE_INLINE): 1 gives a
// Sequential and a Nest an inline common case: the children under the
// opt_level-only gate, taken when no pass names are listed and the
// instruments are on; anything else runs the children through a loop over a
// table of them, out of line (core/sequential.hpp), not a second inline
// copy. 0 runs every child inline under the context's full gate. Same
// behaviour either way. tests/core/release_path_test.cpp runs it in the
// debug test build.
#ifndef PASSINFRA_GATE_FAST_PATH
#define PASSINFRA_GATE_FAST_PATH PASSINFRA_FORCE_INLINE
#endif

// PASSINFRA_ALWAYS_INLINE   before a function declaration
// PASSINFRA_LAMBDA_INLINE   after a lambda's parameter list
#if !PASSINFRA_FORCE_INLINE
#define PASSINFRA_ALWAYS_INLINE inline
#define PASSINFRA_LAMBDA_INLINE
#elif defined(__GNUC__) || defined(__clang__)
#define PASSINFRA_ALWAYS_INLINE [[gnu::always_inline]] inline
#define PASSINFRA_LAMBDA_INLINE __attribute__((always_inline))
#else
#define PASSINFRA_ALWAYS_INLINE inline
#define PASSINFRA_LAMBDA_INLINE
#endif

#include <cstddef>
#include <type_traits>
#include <utility>

namespace passinfra::detail {

// Type traits asked once per child of a Sequential, through the compilers'
// built-ins where they have them (g++, clang and MSVC do): libstdc++'s
// std::is_*_v instantiate class templates (a completeness check of __or_
// chains) for every type asked, which cost g++ ~1 ms per child and trait
// (issue 18: benchmarks/compile_time.sh's seq_200.cpp 3.3 -> 3.1 s for the
// three of stateless_child). Same answers as the std traits.
#if defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)
template <class T>
inline constexpr bool is_empty_type = __is_empty(T);
template <class T>
inline constexpr bool is_default_constructible_type = __is_constructible(T);
template <class T>
inline constexpr bool is_trivially_default_constructible_type = __is_trivially_constructible(T);
template <class T>
inline constexpr bool is_trivially_copyable_type = __is_trivially_copyable(T);
#else
template <class T>
inline constexpr bool is_empty_type = std::is_empty_v<T>;
template <class T>
inline constexpr bool is_default_constructible_type = std::is_default_constructible_v<T>;
template <class T>
inline constexpr bool is_trivially_default_constructible_type = std::is_trivially_default_constructible_v<T>;
template <class T>
inline constexpr bool is_trivially_copyable_type = std::is_trivially_copyable_v<T>;
#endif

// The pass concepts' traits (core/pass.hpp), asked for every pass of a
// Sequential: the same answers as std::is_object_v and std::convertible_to
// without their class templates (libstdc++'s is_object is a chain of three
// __or_ / __not_ instantiations per type, is_convertible two more), which
// cost ~1% of benchmarks/compile_time.sh's seq_200.cpp on each compiler
// (issue 18). An object type is any type but a function, a reference or
// void: `const T` is T itself for the first two.
template <class T>
inline constexpr bool is_const_type = false;
template <class T>
inline constexpr bool is_const_type<const T> = true;
template <class T>
inline constexpr bool is_void_type = false;
template <>
inline constexpr bool is_void_type<void> = true;
template <>
inline constexpr bool is_void_type<const void> = true;
template <>
inline constexpr bool is_void_type<volatile void> = true;
template <>
inline constexpr bool is_void_type<const volatile void> = true;
template <class T>
inline constexpr bool is_object_type = is_const_type<const T> && !is_void_type<T>;
// From converts to To implicitly and explicitly (std::convertible_to: `make`
// is std::declval<From>).
template <class From, class To>
concept convertible_to_type = requires(void (*take)(To), From && (*make)()) {
  take(make());
  static_cast<To>(make());
};

// FlatTuple<Ts...>: the children of a Sequential and the instruments of an
// InstrumentSet, one base Slot<I, T> per element (empty elements take no
// room, final ones included: the element is a [[no_unique_address]] member,
// not a base); get<I>(tuple) is the I-th element. get deduces T from the
// base, so the function made per element names only I and T (deducing looks
// at every base: a Sequential names its blocks' types instead, see
// ChildBlocks in core/sequential.hpp). A tuple read through at_c<I, Ts...>
// makes one function per element whose template arguments are the whole
// pack: a Sequential of N children cost the compiler O(N^2) in template
// arguments and symbol names (benchmarks/README.md, Compile time).
// FlatTuple needs no tuple library, so passinfra/core.hpp includes none
// (issue 18).
template <std::size_t I, class T>
struct Slot {
  [[no_unique_address]] T value{};
};
// An empty element is default-initialized (for it the same as value-
// initialized), so that the slot's default constructor is trivial: not a
// function per child for the compiler to make (issue 18: seq_200.cpp -1%
// on each compiler).
template <std::size_t I, class T>
  requires is_empty_type<T>
struct Slot<I, T> {
  [[no_unique_address]] T value;
};

template <class Indices, class... Ts>
struct IndexedSlots;
template <std::size_t... Is, class... Ts>
struct IndexedSlots<std::index_sequence<Is...>, Ts...> : Slot<Is, Ts>... {
  constexpr IndexedSlots() = default;
  constexpr explicit IndexedSlots(Ts... elements)
    requires(sizeof...(Ts) > 0)
      : Slot<Is, Ts>{std::move(elements)}... {}
};

template <class... Ts>
using FlatTuple = IndexedSlots<std::index_sequence_for<Ts...>, Ts...>;

template <std::size_t I, class T>
PASSINFRA_ALWAYS_INLINE constexpr const T& get(const Slot<I, T>& slot) noexcept {
  return slot.value;
}
// The mutable get (an InstrumentSet's instruments) is not forced inline, as
// the tuple access it replaced was not. Forced, its address arithmetic is
// folded right away, and g++ 12's early scalar replacement takes a pipeline's
// hook view (InstrumentSet::hook_view) apart before the hooks are inlined;
// the jump threaders then copy the blocks of a Sequential's children
// (dispatch_callgrind's seq_hooks at N = 100: 705 -> 899 instructions per
// run). Plain inline, the view is taken apart by the late pass, as before.
// Any optimizing build inlines it.
template <std::size_t I, class T>
constexpr T& get(Slot<I, T>& slot) noexcept {
  return slot.value;
}

// for_each_element(tuple, f): f(element) for each element of a FlatTuple, in
// order, as inlined folds (a for_each that is not always inlined would keep
// the IR in memory across a whole pipeline). The folds take at most
// fold_chunk elements each: clang limits the nesting of one expression
// (-fbracket-depth, 256), and a fold is one expression.
inline constexpr std::size_t fold_chunk = 128;

// inline_block: under a context with pass hooks, the most children a
// Sequential runs inline in one function (core/sequential.hpp).
inline constexpr std::size_t inline_block = 16;

// n elements cut into chunks of at most k: how many chunks, and the length
// of chunk c (all k long but the last).
consteval std::size_t chunk_count(std::size_t n, std::size_t k) { return (n + k - 1) / k; }
consteval std::size_t chunk_length(std::size_t n, std::size_t k, std::size_t c) {
  return n - c * k < k ? n - c * k : k;
}

// for_each_element_chunk<Offset>(tuple, f, index_sequence<I...>): f on the
// elements Offset + I, in order, as one fold; the elements are reached
// through their bases (const when the tuple is).
template <std::size_t Offset, class Tuple, class F, std::size_t... I>
PASSINFRA_ALWAYS_INLINE void for_each_element_chunk(Tuple& tuple, F& f, std::index_sequence<I...>) {
  (f(detail::get<Offset + I>(tuple)), ...);
}

template <std::size_t N, class Tuple, class F, std::size_t... C>
PASSINFRA_ALWAYS_INLINE void for_each_element_chunks(Tuple& tuple, F& f, std::index_sequence<C...>) {
  (for_each_element_chunk<C * fold_chunk>(tuple, f, std::make_index_sequence<chunk_length(N, fold_chunk, C)>{}), ...);
}

template <std::size_t N, class Tuple, class F>
PASSINFRA_ALWAYS_INLINE void for_each_element(Tuple& tuple, F&& f) {
  if constexpr (N <= fold_chunk) {
    for_each_element_chunk<0>(tuple, f, std::make_index_sequence<N>{});
  } else {
    for_each_element_chunks<N>(tuple, f, std::make_index_sequence<chunk_count(N, fold_chunk)>{});
  }
}

// all_true<Bs...>(): every B is true, without a fold (no nesting limit).
template <bool... Bs>
consteval bool all_true() {
  constexpr bool values[] = {true, Bs...};
  for (bool b : values) {
    if (!b) return false;
  }
  return true;
}

}  // namespace passinfra::detail
