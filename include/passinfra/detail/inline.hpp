// passinfra/detail/inline.hpp — PASSINFRA_ALWAYS_INLINE, for the hot path.
//
// run(), the hook fan-out and Sequential's per-child step are forced inline,
// so a static pipeline compiles to the hand-written calls even when it has a
// hundred children (g++ otherwise stops inlining long before that).
#pragma once

// PASSINFRA_ALWAYS_INLINE   before a function declaration
// PASSINFRA_LAMBDA_INLINE   after a lambda's parameter list
#if defined(__GNUC__) || defined(__clang__)
#define PASSINFRA_ALWAYS_INLINE [[gnu::always_inline]] inline
#define PASSINFRA_LAMBDA_INLINE __attribute__((always_inline))
#else
#define PASSINFRA_ALWAYS_INLINE inline
#define PASSINFRA_LAMBDA_INLINE
#endif

#include <cstddef>
#include <utility>

#include <boost/hana/at.hpp>

namespace passinfra::detail {

// for_each_element(tuple, f): f(element) for each element of a Hana tuple,
// in order, as one inlined fold (hana::for_each's own fold is not always
// inlined, which would keep the IR in memory across a whole pipeline).
template <class Tuple, class F, std::size_t... I>
PASSINFRA_ALWAYS_INLINE void for_each_element_impl(Tuple& tuple, F& f, std::index_sequence<I...>) {
  (f(boost::hana::at_c<I>(tuple)), ...);
}

template <std::size_t N, class Tuple, class F>
PASSINFRA_ALWAYS_INLINE void for_each_element(Tuple& tuple, F&& f) {
  for_each_element_impl(tuple, f, std::make_index_sequence<N>{});
}

}  // namespace passinfra::detail
