// passinfra/core/pipeline_info.hpp — which unit pipeline is running (SPEC §11.3, §11.9).
//
// PipelineInfo{nest, unit_name, unit_index, unit_count, nest_run, parent_thread, thread, parent}
//                        what the pipeline hooks receive, and what current_pipeline() points at
// current_pipeline()     the innermost unit pipeline running on this thread (null outside nests)
// thread_ordinal()       1, 2, ...: this thread's number, in the order threads first asked
//
// A nest makes one PipelineInfo per unit and run; it lives while that unit's
// pipeline runs (hooks must copy what they keep: unit_name views the nest's
// unit slot). `parent` links to the enclosing unit's info when nests nest
// (MLIR's PipelineParentInfo); `parent_thread` is the thread that ran the
// nest, `thread` the one that runs this unit (equal in serial mode).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "passinfra/core/pass_info.hpp"

namespace passinfra {

struct PipelineInfo {
  PassInfo nest;                         // the nest's PassInfo
  std::string_view unit_name;            // the unit's name ("@main")
  std::size_t unit_index = 0;            // 0, 1, ... in unit order
  std::size_t unit_count = 0;            // units in this nest run
  std::uint64_t nest_run = 0;            // one id per nest run (process-wide, from 1)
  std::uint32_t parent_thread = 0;       // thread_ordinal() of the thread that runs the nest
  std::uint32_t thread = 0;              // thread_ordinal() of the thread that runs this unit
  const PipelineInfo* parent = nullptr;  // the enclosing unit pipeline, for a nest inside a unit
};

namespace detail {
inline std::atomic<std::uint32_t> thread_ordinals{0};
inline std::atomic<std::uint64_t> nest_runs{0};
inline thread_local const PipelineInfo* current_pipeline_info = nullptr;
// The PassContext a parallel nest's unit runs under on this worker thread
// (null elsewhere): it may not be entered or given new instruments here.
inline thread_local const void* parallel_worker_context = nullptr;

// A unit pipeline is current on this thread for the scope's life.
class PipelineScope {
 public:
  explicit PipelineScope(const PipelineInfo& info) noexcept : saved_(current_pipeline_info) {
    current_pipeline_info = &info;
  }
  PipelineScope(const PipelineScope&) = delete;
  PipelineScope& operator=(const PipelineScope&) = delete;
  ~PipelineScope() { current_pipeline_info = saved_; }

 private:
  const PipelineInfo* saved_;
};

inline std::uint64_t next_nest_run() noexcept { return nest_runs.fetch_add(1, std::memory_order_relaxed) + 1; }
}  // namespace detail

// current_pipeline(): the innermost unit pipeline running on this thread, or null.
inline const PipelineInfo* current_pipeline() noexcept { return detail::current_pipeline_info; }

// thread_ordinal(): this thread's number (1 for the first thread that asks).
inline std::uint32_t thread_ordinal() noexcept {
  thread_local const std::uint32_t ordinal = detail::thread_ordinals.fetch_add(1, std::memory_order_relaxed) + 1;
  return ordinal;
}

}  // namespace passinfra
