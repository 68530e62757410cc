// passinfra/passinfra.hpp — everything: the static core, the dynamic bridge,
// the instruments and the IR helpers.
#pragma once

#include "passinfra/core.hpp"
#include "passinfra/dynamic.hpp"
#include "passinfra/instruments/analysis_preservation_checker.hpp"
#include "passinfra/instruments/crash_reproducer.hpp"
#include "passinfra/instruments/output.hpp"
#include "passinfra/instruments/pass_bisect.hpp"
#include "passinfra/instruments/pass_statistics.hpp"
#include "passinfra/instruments/pass_timing_instrument.hpp"
#include "passinfra/instruments/print_ir_after.hpp"
#include "passinfra/instruments/print_ir_before.hpp"
#include "passinfra/instruments/print_ir_changed.hpp"
#include "passinfra/instruments/timing_clocks.hpp"
#include "passinfra/instruments/verifier_instrument.hpp"
#include "passinfra/ir/annotate_spans.hpp"
#include "passinfra/ir/print_ir.hpp"
#include "passinfra/ir/span.hpp"
#include "passinfra/parallel/thread_pool.hpp"
