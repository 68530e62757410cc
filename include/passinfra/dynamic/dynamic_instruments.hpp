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

namespace passinfra {

namespace detail {
// HookPhases<IR>: the hook phases over DynamicInstruments<IR> lists running on
// this thread, and the items replaced while they run. A phase is a stack
// object, so phases end in reverse order. All of the encoding is here:
//
// `state` is the count of running phases plus the bit no_items_kept while
// no replaced items wait, so it is 0 exactly when the last phase has ended
// and items wait: a phase costs one increment and one decrement-and-branch.
// It is a trivial, constant-initialized thread-local (one instruction to
// reach); `kept` is touched only when a list is replaced during a phase.
template <class IR>
struct HookPhases {
  using items_type = std::vector<AnyInstrument<IR>>;
  static constexpr unsigned no_items_kept = 1u << 31;
  static inline thread_local unsigned state = no_items_kept;
  static inline thread_local std::vector<items_type> kept;

  PASSINFRA_ALWAYS_INLINE static void begin() noexcept { ++state; }
  PASSINFRA_ALWAYS_INLINE static void end() noexcept {
    if (--state == 0) [[unlikely]]
      release();
  }

  // keep(items): replaced items die now when no phase runs on this thread,
  // else when the outermost one ends.
  static void keep(items_type items) noexcept {
    if ((state & ~no_items_kept) == 0 || items.empty()) return;  // `items` dies here
    try {
      kept.push_back(std::move(items));
      state &= ~no_items_kept;
    } catch (...) {
      // Out of memory: `items` dies here, as it would have without a phase.
    }
  }

  // The outermost phase has ended: the kept items die (their destructors
  // may run passes and replace lists again: those are kept anew).
  [[gnu::noinline]] static void release() noexcept {
    state |= no_items_kept;
    auto dying = std::move(kept);
    kept.clear();
  }
};
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
