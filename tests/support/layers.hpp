// tests/support/layers.hpp — one SPEC suite, instantiated on every layer.
//
// A Layer says how a test builds its context, passes and pipelines:
//   L::context(options, instruments&...)   a context holding the instruments by reference
//   L::pass(p)                             the pass as this layer holds it
//   L::seq(passes...)                      a Sequential of them
// StaticLayer: make_pass_context + Sequential<...>; DynamicLayer: PassContext<IR>
// + AnyInstrument + AnyPass + DynamicSequential; MixedLayer: both in one program.
// PITEST_LAYERS lists the layers the SPEC tests run on (TestIR).
//
// The static and dynamic layers for any IR: StaticLayerOf<IR>, DynamicLayerOf<IR>
// and DynamicLayerOf<IR, true>, whose lists get an idle instrument added at the
// end. PITEST_INSTRUMENT_LAYERS(IR) lists these three for an instrument's tests:
// with the instrument alone in the list (and no pass names listed), a
// DynamicSequential runs its children in the instrument's own loop; with the
// idle one added, it always walks the list.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "support/generic_instruments.hpp"
#include "support/test_ir.hpp"

namespace pitest {

template <class IR>
struct StaticLayerOf {
  template <class... Is>
  static auto context(passinfra::PassContextOptions options, Is&... instruments) {
    return passinfra::make_pass_context<IR>(std::move(options), std::ref(instruments)...);
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

// The dynamic layer: PassContext<IR> with AnyInstruments, AnyPass, DynamicSequential;
// WithIdle adds an instrument that vetoes nothing at the end of the list.
template <class IR, bool WithIdle = false>
struct DynamicLayerOf {
  template <class... Is>
  static passinfra::PassContext<IR> context(passinfra::PassContextOptions options, Is&... instruments) {
    std::vector<passinfra::AnyInstrument<IR>> list{passinfra::AnyInstrument<IR>(std::ref(instruments))...};
    if constexpr (WithIdle) list.emplace_back(std::make_shared<VetoNames>());
    return passinfra::PassContext<IR>(std::move(options), passinfra::DynamicInstruments<IR>(std::move(list)));
  }
  template <class P>
  static passinfra::AnyPass<IR> pass(P p) {
    return passinfra::AnyPass<IR>(std::move(p));
  }
  template <class... Ps>
  static passinfra::DynamicSequential<IR> seq(Ps... passes) {
    return passinfra::DynamicSequential<IR>{passinfra::AnyPass<IR>(std::move(passes))...};
  }
};

// The SPEC tests' layers (their names are the ctest names' suffixes).
struct StaticLayer : StaticLayerOf<TestIR> {};
struct DynamicLayer : DynamicLayerOf<TestIR> {};

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

#define PITEST_INSTRUMENT_LAYERS(IR) \
  pitest::StaticLayerOf<IR>, pitest::DynamicLayerOf<IR>, pitest::DynamicLayerOf<IR, true>
