// passinfra/dynamic.hpp — the type-erased bridge: AnyPass, AnyInstrument,
// DynamicInstruments, PassContext<IR> (the default), DynamicSequential,
// PassRegistry, pipeline text and the statistics report.
#pragma once

#include "passinfra/core.hpp"
#include "passinfra/dynamic/any_analysis.hpp"
#include "passinfra/dynamic/any_instrument.hpp"
#include "passinfra/dynamic/any_pass.hpp"
#include "passinfra/dynamic/context_ref.hpp"
#include "passinfra/dynamic/dynamic_instruments.hpp"
#include "passinfra/dynamic/dynamic_nest.hpp"
#include "passinfra/dynamic/dynamic_sequential.hpp"
#include "passinfra/dynamic/pass_registry.hpp"
#include "passinfra/dynamic/pipeline_text.hpp"
#include "passinfra/dynamic/statistics_report.hpp"
