// tests/support/layers.hpp — one SPEC suite, instantiated on every layer.
//
// A Layer says how a test builds its context, passes and pipelines:
//   L::context(options, instruments&...)   a context holding the instruments by reference
//   L::pass(p)                             the pass as this layer holds it
//   L::seq(passes...)                      a Sequential of them
// PITEST_LAYERS lists the layers the SPEC tests run on.
#pragma once

#include <functional>
#include <utility>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

namespace pitest {

struct StaticLayer {
  template <class... Is>
  static auto context(passinfra::PassContextOptions options, Is&... instruments) {
    return passinfra::make_pass_context<TestIR>(std::move(options), std::ref(instruments)...);
  }
  template <class P>
  static P pass(P p) {
    return p;
  }
  template <class... Ps>
  static auto seq(Ps... passes) {
    if constexpr (sizeof...(Ps) == 0) {
      return passinfra::Sequential<>{};
    } else {
      return passinfra::Sequential<Ps...>(std::move(passes)...);
    }
  }
};

}  // namespace pitest

#ifndef PITEST_LAYERS
#define PITEST_LAYERS pitest::StaticLayer
#endif
