// tests/support/layers.hpp — one SPEC suite, instantiated on every layer.
//
// A Layer says how a test builds its context, passes and pipelines:
//   L::context(options, instruments&...)   a context holding the instruments by reference
//   L::pass(p)                             the pass as this layer holds it
//   L::seq(passes...)                      a Sequential of them
// StaticLayer: make_pass_context + Sequential<...>; DynamicLayer: PassContext<IR>
// + AnyInstrument + AnyPass + DynamicSequential; MixedLayer: both in one program.
// PITEST_LAYERS lists the layers the SPEC tests run on.
#pragma once

#include <functional>
#include <utility>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

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

// The dynamic layer: PassContext<IR> with AnyInstruments, AnyPass, DynamicSequential.
struct DynamicLayer {
  template <class... Is>
  static passinfra::PassContext<TestIR> context(passinfra::PassContextOptions options, Is&... instruments) {
    return passinfra::PassContext<TestIR>(std::move(options),
                                          {passinfra::AnyInstrument<TestIR>(std::ref(instruments))...});
  }
  template <class P>
  static passinfra::AnyPass<TestIR> pass(P p) {
    return passinfra::AnyPass<TestIR>(std::move(p));
  }
  template <class... Ps>
  static passinfra::DynamicSequential<TestIR> seq(Ps... passes) {
    return passinfra::DynamicSequential<TestIR>{passinfra::AnyPass<TestIR>(std::move(passes))...};
  }
};

// The layers mixed: a static context whose set holds a DynamicInstruments
// list, static Sequentials of AnyPasses.
struct MixedLayer {
  template <class... Is>
  static auto context(passinfra::PassContextOptions options, Is&... instruments) {
    return passinfra::make_pass_context<TestIR>(
        std::move(options),
        passinfra::DynamicInstruments<TestIR>{passinfra::AnyInstrument<TestIR>(std::ref(instruments))...});
  }
  template <class P>
  static passinfra::AnyPass<TestIR> pass(P p) {
    return passinfra::AnyPass<TestIR>(std::move(p));
  }
  template <class... Ps>
  static auto seq(Ps... passes) {
    if constexpr (sizeof...(Ps) == 0) {
      return passinfra::Sequential<>{};
    } else {
      return passinfra::Sequential<std::conditional_t<true, passinfra::AnyPass<TestIR>, Ps>...>(
          passinfra::AnyPass<TestIR>(std::move(passes))...);
    }
  }
};

}  // namespace pitest

#ifndef PITEST_LAYERS
#define PITEST_LAYERS pitest::StaticLayer, pitest::DynamicLayer, pitest::MixedLayer
#endif
