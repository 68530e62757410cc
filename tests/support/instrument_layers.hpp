// tests/support/instrument_layers.hpp — an instrument's test, run on every layer.
//
// Each instrument of passinfra/instruments/ must behave the same in a static
// InstrumentSet and in a dynamic instrument list; its main tests are
// TEST_CASE_TEMPLATEs over PITEST_INSTRUMENT_LAYERS(IR) and build their
// context and pipelines through the layer:
//   L::context(options, instruments&...)   a context holding the instruments by reference
//   L::seq(passes...)                      a Sequential of the passes
// OnStatic<IR>         make_pass_context + Sequential<...>
// OnDynamic<IR, false> PassContext<IR> whose list holds the instruments alone, over a
//                      DynamicSequential (one instrument and no pass names listed:
//                      the instrument's own loop)
// OnDynamic<IR, true>  the same with an idle instrument added at the end of the list
//                      (always the walk through the list)
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>

#include "support/generic_instruments.hpp"

namespace pitest {

template <class IR>
struct OnStatic {
  template <class... Is>
  static auto context(passinfra::PassContextOptions options, Is&... instruments) {
    return passinfra::make_pass_context<IR>(std::move(options), std::ref(instruments)...);
  }
  template <class... Ps>
  static auto seq(Ps... passes) {
    return passinfra::Sequential<Ps...>(std::move(passes)...);
  }
};

template <class IR, bool Shared>
struct OnDynamic {
  template <class... Is>
  static passinfra::PassContext<IR> context(passinfra::PassContextOptions options, Is&... instruments) {
    std::vector<passinfra::AnyInstrument<IR>> list{passinfra::AnyInstrument<IR>(std::ref(instruments))...};
    if constexpr (Shared) list.emplace_back(std::make_shared<VetoNames>());  // vetoes nothing
    return passinfra::PassContext<IR>(std::move(options), passinfra::DynamicInstruments<IR>(std::move(list)));
  }
  template <class... Ps>
  static passinfra::DynamicSequential<IR> seq(Ps... passes) {
    return passinfra::DynamicSequential<IR>{passinfra::AnyPass<IR>(std::move(passes))...};
  }
};

}  // namespace pitest

#define PITEST_INSTRUMENT_LAYERS(IR) pitest::OnStatic<IR>, pitest::OnDynamic<IR, false>, pitest::OnDynamic<IR, true>
