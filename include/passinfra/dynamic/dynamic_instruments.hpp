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
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "passinfra/detail/inline.hpp"
#include "passinfra/dynamic/any_instrument.hpp"

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
    // Items are retired only by a replace() during a phase, which changes the
    // generation: a phase that saw no change has nothing to release.
    PASSINFRA_ALWAYS_INLINE ~Phase() {
      --list_.phases_;
      if (replaced()) [[unlikely]]
        list_.release_retired();
    }
    PASSINFRA_ALWAYS_INLINE bool replaced() const noexcept { return list_.generation_ != generation_; }

   private:
    friend class DynamicInstruments;
    PASSINFRA_ALWAYS_INLINE explicit Phase(DynamicInstruments& list) noexcept
        : list_(list), generation_(list.generation_) {
      ++list.phases_;
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
    if (phases_ > 0) retire(std::move(old));
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
  // The last running phase has ended: the retired items die now.
  [[gnu::noinline]] void release_retired() noexcept {
    if (phases_ == 0) retired_.clear();
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
  std::size_t phases_ = 0;
};

}  // namespace passinfra
