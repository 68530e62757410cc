// passinfra/dynamic/hook_phases.hpp — (detail) the hook phases over
// DynamicInstruments<IR> lists running on this thread, and the instruments
// replaced while they run (kept alive until the outermost one ends).
//
// DynamicInstruments (dynamic_instruments.hpp) says the rules; this header
// holds the per-thread state, apart so that AnyInstrument's one-instrument
// loop (solo_loop.hpp) can open phases too.
#pragma once

#include <vector>

#include "passinfra/detail/inline.hpp"

namespace passinfra {

template <class IR>
class AnyInstrument;

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

// HookPhaseScope<IR>: one hook phase, for the lifetime of the object.
template <class IR>
struct [[nodiscard]] HookPhaseScope {
  PASSINFRA_ALWAYS_INLINE HookPhaseScope() noexcept { HookPhases<IR>::begin(); }
  PASSINFRA_ALWAYS_INLINE ~HookPhaseScope() { HookPhases<IR>::end(); }
  HookPhaseScope(const HookPhaseScope&) = delete;
  HookPhaseScope& operator=(const HookPhaseScope&) = delete;
};
}  // namespace detail

}  // namespace passinfra
