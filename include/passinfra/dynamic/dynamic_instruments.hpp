// passinfra/dynamic/dynamic_instruments.hpp — instruments chosen at run time.
//
// DynamicInstruments<IR>              a list of AnyInstrument<IR>, in order
// PassContext<IR>                     = PassContext<IR, DynamicInstruments<IR>> (core/pass_context.hpp)
// list.items() / take_items()         the list; take_items() empties it
//
// Inside an InstrumentSet (`InstrumentSet<Timing&, DynamicInstruments<IR>>`)
// the items stand where the list stands, one position each, for every rule
// of SPEC §5. As a context's Instruments (PassContext<IR>), clearing the
// instruments (SPEC §5.1/§5.2) empties the list, and override_instruments
// installs a new one.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

#include "passinfra/dynamic/any_instrument.hpp"

namespace passinfra {

template <class IR>
class DynamicInstruments {
 public:
  using instrument_list_tag = void;
  using instrument_type = AnyInstrument<IR>;
  using list_type = std::vector<AnyInstrument<IR>>;

  DynamicInstruments() = default;
  DynamicInstruments(std::initializer_list<AnyInstrument<IR>> instruments) : items_(instruments) {}
  explicit DynamicInstruments(list_type instruments) : items_(std::move(instruments)) {}

  list_type& items() noexcept { return items_; }
  const list_type& items() const noexcept { return items_; }
  list_type take_items() noexcept { return std::exchange(items_, list_type{}); }

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }

 private:
  list_type items_;
};

}  // namespace passinfra
