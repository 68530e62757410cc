// passinfra/instruments/pass_bisect.hpp — run only the first N passes (LLVM's -opt-bisect-limit).
//
// PassBisect(limit = PassBisect::no_limit, out = {})   passes 1..limit run, later ones are skipped
// PassBisect::no_limit                     run everything; still counts and prints
// b.count()                                passes asked about so far (the last k printed)
// b.limit() / b.set_limit(n) / b.reset()   reset(): the count starts again at 0
//
// should_run numbers every pass it is asked about, 1, 2, ..., in the order
// they are asked, and says "run" for numbers up to `limit`, writing
//     BISECT: running pass (k) <name>
//     BISECT: NOT running pass (k) <name>
// to `out` (a TextSink: the log at INFO by default, or a stream); inside a
// nest's unit pipeline the line ends with " on <unit name>" (SPEC §11.8).
// A nest under it runs serially (it is not thread-safe), so the numbers are
// the serial ones: the nest, then unit 0's passes, then unit 1's. Passes
// are numbered as they are asked, so a skipped Sequential's children are
// never asked and get no number; a Sequential is itself a pass (and usually
// number 1). Names in the context's required_pass are never asked (SPEC §3),
// so mandatory passes keep running and do not shift the numbers.
//
// To find the pass that breaks a pipeline: run once with no_limit to learn
// the count N, then binary-search the smallest limit in [0, N] whose output
// is bad; that limit is the number of the culprit, whose name the BISECT
// line with that number gives. The count is not reset by entering or
// leaving a context: reset() starts over. One thread at a time.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

#include "passinfra/core/pass_info.hpp"
#include "passinfra/instruments/output.hpp"

namespace passinfra {

class PassBisect {
 public:
  static constexpr std::size_t no_limit = std::numeric_limits<std::size_t>::max();

  explicit PassBisect(std::size_t limit = no_limit, TextSink out = {}) : limit_(limit), out_(out) {}

  std::string_view name() const noexcept { return "PassBisect"; }

  // should_run: numbers the pass and says whether it is within the limit.
  template <class IR>
  bool should_run(const IR&, const PassInfo& info) {
    const std::size_t k = ++count_;
    const bool run = k <= limit_;
    std::string line = run ? "BISECT: running pass (" : "BISECT: NOT running pass (";
    line += std::to_string(k);
    line += ") ";
    line += info.name;
    detail::append_unit(line);
    out_.write(line);
    return run;
  }

  std::size_t count() const noexcept { return count_; }
  std::size_t limit() const noexcept { return limit_; }
  void set_limit(std::size_t limit) noexcept { limit_ = limit; }
  void reset() noexcept { count_ = 0; }

 private:
  std::size_t limit_;
  TextSink out_;
  std::size_t count_ = 0;
};

}  // namespace passinfra
