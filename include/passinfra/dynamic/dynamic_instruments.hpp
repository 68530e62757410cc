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
//  * the replaced items stay alive until the thread's outermost running hook
//    phase over lists of this IR type has ended (a hook may run passes, whose
//    hooks replace lists), so no instrument is destroyed while one of its
//    hooks runs. A list replaced while no such phase runs drops its items at once.
// (DynamicSequential's loop for a list of one instrument, solo_loop.hpp, keeps
// these rules with one phase for should_run and run_before_pass and one for
// run_after_pass; the phases are in hook_phases.hpp.)
//
// Threads: several threads may run passes under one context at once (read-only
// use: tests/reliability/threads_test.cpp). A hook phase writes nothing shared:
// it counts itself in a thread-local count of running phases, which replace()
// reads; items replaced while it is non-zero wait in a thread-local list until
// it returns to zero. Replacing the list is for the thread that owns the
// context, while no other thread runs passes under it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "passinfra/detail/inline.hpp"
#include "passinfra/dynamic/any_instrument.hpp"
#include "passinfra/dynamic/hook_phases.hpp"

namespace passinfra {

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
    PASSINFRA_ALWAYS_INLINE ~Phase() { detail::HookPhases<IR>::end(); }
    PASSINFRA_ALWAYS_INLINE bool replaced() const noexcept { return list_.generation_ != generation_; }

   private:
    friend class DynamicInstruments;
    PASSINFRA_ALWAYS_INLINE explicit Phase(const DynamicInstruments& list) noexcept
        : list_(list), generation_(list.generation_) {
      detail::HookPhases<IR>::begin();
    }
    const DynamicInstruments& list_;
    std::uint64_t generation_;
  };

  DynamicInstruments() = default;
  DynamicInstruments(std::initializer_list<AnyInstrument<IR>> instruments) : items_(instruments) { refresh_mask(); }
  explicit DynamicInstruments(list_type instruments) : items_(std::move(instruments)) { refresh_mask(); }

  // items(): the list, read-only: it changes only through replace() and
  // take_items(), which a running hook phase sees (Phase::replaced()).
  const list_type& items() const noexcept { return items_; }

  // replace(list): install `list`; the old items die now, or when the
  // thread's outermost running hook phase ends (see the header comment).
  void replace(list_type list) noexcept {
    list_type old = std::exchange(items_, std::move(list));
    ++generation_;
    refresh_mask();
    detail::HookPhases<IR>::keep(std::move(old));
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

  // generation(): counts the replacements of the list.
  const std::uint64_t& generation() const noexcept { return generation_; }

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }

 private:
  void refresh_mask() noexcept {
    hook_mask_ = 0;
    for (const auto& item : items_) hook_mask_ |= item.hook_mask();
  }

  list_type items_;
  unsigned hook_mask_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace passinfra
