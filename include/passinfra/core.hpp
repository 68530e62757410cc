// passinfra/core.hpp — the static layer: everything needed to define passes,
// compose them with Sequential<...> and run them under a static PassContext
// with an InstrumentSet<...>. The cheap include: no dynamic layer, no <memory>.
#pragma once

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/analysis_passes.hpp"
#include "passinfra/core/config.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/executor.hpp"
#include "passinfra/core/instrument.hpp"
#include "passinfra/core/instrument_set.hpp"
#include "passinfra/core/ir_traits.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/module_pass.hpp"
#include "passinfra/core/nest.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/pass_context.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/core/sequential.hpp"
#include "passinfra/core/units.hpp"
