// passinfra/dynamic/dynamic_instruments.hpp — instruments chosen at run time.
//
// DynamicInstruments<IR>              a list of AnyInstrument<IR>, in order
// PassContext<IR>                     = PassContext<IR, DynamicInstruments<IR>> (core/pass_context.hpp)
// list.items()                        the list (read-only; it changes by replace / take_items)
// list.replace(new_list)              installs new_list (override_instruments, clearing)
// list.take_items()                   empties the list and returns what it held
// list.hook_mask()                     the hooks some item has (a phase skips the list when none has its hook)
// list.begin_phase() -> Phase         marks a hook phase over the list (InstrumentSet does this)
//
// Inside an InstrumentSet (`InstrumentSet<Timing&, DynamicInstruments<IR>>`)
// the items stand where the list stands, one position each, for every rule
// of SPEC §5. As a context's Instruments (PassContext<IR>), clearing the
// instruments (SPEC §5.1/§5.2) empties the list, and override_instruments
// installs a new one.
//
// A hook may replace the list it is called from (override_instruments on its
// own context, say to switch instrumentation off after some pass), even when
// the list owns the hook's own instrument. Then:
//  * the hook phase that was running stops after that hook: the replaced
//    instruments have been exited and get no further hook; the new ones take
//    part from the next hook phase on;
//  * the replaced items stay alive until every hook phase over the list has
//    ended, so no instrument is destroyed while one of its hooks runs.
//
// Threads: several threads may run passes under one context at once (read-only
// use: tests/reliability/threads_test.cpp). A hook phase writes nothing shared:
// it records its list in a thread-local stack of running phases, which replace()
// and the phase's end read (only when the list was replaced). Replacing
// the list is for the thread that owns the context, while no other thread runs
// passes under it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "passinfra/detail/inline.hpp"
#include "passinfra/dynamic/any_instrument.hpp"

namespace passinfra {

namespace detail {
// The lists that hook phases running on this thread are over, outermost
// first: a phase pushes its list for its lifetime (phases are stack objects,
// so they end in reverse order). Past kMaxPhaseDepth nested phases the lists
// are not recorded, and a list is taken to have a phase running at every
// unrecorded depth: its replaced items then live until a phase at a recorded
// depth ends, or the list is destroyed.
struct RunningPhases {
  static constexpr unsigned kMaxPhaseDepth = 64;
  const void* lists[kMaxPhaseDepth];
  unsigned depth;
  // Whether a phase over `list` runs on this thread at a depth below `below`.
  bool any_over(const void* list, unsigned below) const noexcept {
    if (below > kMaxPhaseDepth) return true;
    for (unsigned i = 0; i < below; ++i) {
      if (lists[i] == list) return true;
    }
    return false;
  }
};
inline thread_local RunningPhases running_phases{};
}  // namespace detail

template <class IR>
class DynamicInstruments {
 public:
  using instrument_list_tag = void;
  using instrument_type = AnyInstrument<IR>;
  using list_type = std::vector<AnyInstrument<IR>>;

  // Phase: while one exists, replaced items are kept alive; replaced() says
  // whether the list was replaced since the phase began.
  class [[nodiscard]] Phase {
   public:
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;
    // Items are retired only by a replace() during a phase, which changes the
    // generation: a phase that saw no change has nothing to release.
    PASSINFRA_ALWAYS_INLINE ~Phase() {
      const unsigned outer = --detail::running_phases.depth;
      if (replaced()) [[unlikely]]
        list_.release_retired(outer);
    }
    PASSINFRA_ALWAYS_INLINE bool replaced() const noexcept { return list_.generation_ != generation_; }

   private:
    friend class DynamicInstruments;
    PASSINFRA_ALWAYS_INLINE explicit Phase(DynamicInstruments& list) noexcept
        : list_(list), generation_(list.generation_) {
      auto& running = detail::running_phases;
      if (running.depth < detail::RunningPhases::kMaxPhaseDepth) [[likely]]
        running.lists[running.depth] = &list;
      ++running.depth;
    }
    DynamicInstruments& list_;
    std::uint64_t generation_;
  };

  DynamicInstruments() = default;
  DynamicInstruments(std::initializer_list<AnyInstrument<IR>> instruments) : items_(instruments) { refresh_mask(); }
  explicit DynamicInstruments(list_type instruments) : items_(std::move(instruments)) { refresh_mask(); }

  // items(): the list, read-only: it changes only through replace() and
  // take_items(), which a running hook phase sees (Phase::replaced()).
  const list_type& items() const noexcept { return items_; }

  // replace(list): install `list`; the old items die now, or when the last
  // running hook phase ends (see the header comment).
  void replace(list_type list) noexcept {
    list_type old = std::exchange(items_, std::move(list));
    ++generation_;
    refresh_mask();
    if (detail::running_phases.any_over(this, detail::running_phases.depth)) retire(std::move(old));
  }

  // take_items(): the items, leaving the list empty. The caller keeps them alive.
  list_type take_items() noexcept {
    ++generation_;
    hook_mask_ = 0;
    return std::exchange(items_, list_type{});
  }

  // hook_mask(): the hooks some item has, one bit each (0 for an empty
  // list): a hook phase skips a list none of whose items has its hook.
  unsigned hook_mask() const noexcept { return hook_mask_; }

  PASSINFRA_ALWAYS_INLINE Phase begin_phase() noexcept { return Phase(*this); }

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }

 private:
  // A phase that saw a replace() has ended, `outer` phases still run on this
  // thread. When none of them is over this list (phases over one list on one
  // thread nest), the retired items die now.
  [[gnu::noinline]] void release_retired(unsigned outer) noexcept {
    if (!detail::running_phases.any_over(this, outer)) retired_.clear();
  }

  void refresh_mask() noexcept {
    hook_mask_ = 0;
    for (const auto& item : items_) hook_mask_ |= item.hook_mask();
  }

  void retire(list_type old) noexcept {
    if (old.empty()) return;
    try {
      retired_.push_back(std::move(old));
    } catch (...) {
      // Out of memory: `old` dies here, as it would have without a phase.
    }
  }

  list_type items_;
  unsigned hook_mask_ = 0;
  std::vector<list_type> retired_;
  std::uint64_t generation_ = 0;
};

}  // namespace passinfra
