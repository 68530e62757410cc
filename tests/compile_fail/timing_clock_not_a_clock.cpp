// PassTimingInstrument's clock policy must be a TimingClock; the error says what one has.
// expect-error: passinfra::BasicPassTimingInstrument<Clock>: Clock must be a TimingClock
// expect-max-errors: 1
#include <cstdint>

#include <passinfra/instruments/pass_timing_instrument.hpp>

struct NotAClock {
  std::uint64_t now() const { return 0; }  // not noexcept, and no to_ns
};

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  passinfra::BasicPassTimingInstrument<NotAClock> timing;  // the mistake
#else
  passinfra::BasicPassTimingInstrument<passinfra::ManualClock> timing;  // the passing twin
#endif
  (void)timing;
}
