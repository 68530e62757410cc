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
//
// A serial nest whose instruments have no pipeline hook (and that has no
// analysis manager) keeps one PipelineInfo for the run and, per unit, stores
// only which unit runs (detail::LazyUnitFields): unit_name and unit_index are
// written when asked for, by current_pipeline() and the unit context's
// pipeline() / unit_name() / unit_index(), the only ways a pass or an
// instrument reaches that info (a nest inside the unit asks
// current_pipeline() for its `parent` first).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/atomic.hpp"

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
inline Atomic<std::uint32_t> thread_ordinals{0};
inline Atomic<std::uint64_t> nest_runs{0};
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

inline std::uint64_t next_nest_run() noexcept { return nest_runs.fetch_add(1, MemoryOrder::relaxed) + 1; }

// LazyUnitFields: the unit fields of a serial nest's PipelineInfo, written
// when read rather than per unit. The nest stores the running unit's slot in
// `unit` before each unit (one store of a pointer: when the compiler sees a
// unit's passes whole and they read no pointer, the store leaves the loop);
// sync() brings info->unit_name / unit_index up to date when they describe
// another slot. Everything that reads the fields syncs first: on the nest's
// thread current_pipeline() does (a nest inside the unit asks it for its
// `parent` before its units start), on any thread the unit context's
// pipeline() does; the first sync of a unit writes them, under `filling`
// (a pass may ask from threads of its own), and publishes `filled`.
struct LazyUnitFields {
  PipelineInfo* info = nullptr;
  const void* first = nullptr;                       // the run's first slot (unit_index counts from it)
  const void* unit = nullptr;                        // the running unit's slot (null: none yet)
  void (*fill)(LazyUnitFields&) noexcept = nullptr;  // writes the fields from `unit`
  Atomic<const void*> filled{nullptr};               // the slot the fields describe
  Atomic<bool> filling{false};

  void sync() noexcept {
    if (filled.load(MemoryOrder::acquire) != unit) [[unlikely]] {
      fill_now();
    }
  }
  [[gnu::noinline]] void fill_now() noexcept {
    while (filling.exchange(true, MemoryOrder::acquire)) {
    }
    if (filled.load(MemoryOrder::relaxed) != unit) {
      fill(*this);
      filled.store(unit, MemoryOrder::release);
    }
    filling.store(false, MemoryOrder::release);
  }
};
// The innermost serial nest on this thread with lazy unit fields (null: none).
inline thread_local LazyUnitFields* lazy_unit_fields = nullptr;

// sync_pipeline(): the innermost lazy PipelineInfo on this thread describes its running unit.
inline void sync_pipeline() noexcept {
  if (LazyUnitFields* lazy = lazy_unit_fields) lazy->sync();
}

// The fields' nest is the innermost lazy one on this thread for the scope's life.
class LazyUnitScope {
 public:
  explicit LazyUnitScope(LazyUnitFields& fields) noexcept : saved_(lazy_unit_fields) { lazy_unit_fields = &fields; }
  LazyUnitScope(const LazyUnitScope&) = delete;
  LazyUnitScope& operator=(const LazyUnitScope&) = delete;
  ~LazyUnitScope() { lazy_unit_fields = saved_; }

 private:
  LazyUnitFields* saved_;
};
}  // namespace detail

// current_pipeline(): the innermost unit pipeline running on this thread, or null.
inline const PipelineInfo* current_pipeline() noexcept {
  detail::sync_pipeline();
  return detail::current_pipeline_info;
}

// thread_ordinal(): this thread's number (1 for the first thread that asks).
inline std::uint32_t thread_ordinal() noexcept {
  thread_local const std::uint32_t ordinal = detail::thread_ordinals.fetch_add(1, detail::MemoryOrder::relaxed) + 1;
  return ordinal;
}

}  // namespace passinfra
