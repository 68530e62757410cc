// passinfra/instruments/pass_statistics.hpp — how often each pass ran, was skipped, failed.
//
// PassCounts{runs, skips, failures}
// PassStatistics                      counts per pass name, in the order names were first seen
// s.counts(name) -> PassCounts        zeros for a name never seen
// s.rows() -> [(name, PassCounts)]    every name seen
// s.table() -> std::string            the printable table (below)
// s.reset()                           forgets everything
//
// runs:     run_before_pass calls: the pass was let through (or was in
//           required_pass) and started, whether it then succeeded or not.
// skips:    should_run calls not followed by that pass's run_before_pass: an
//           instrument vetoed it. (PassStatistics itself always says run; it
//           sees every should_run, since every instrument is asked, SPEC §3.
//           A should_run that throws, or a run_before_pass of an instrument
//           listed before this one that throws, also counts as a skip, for
//           the pass did not run.) Passes skipped by the PassEnabled gate of a Sequential
//           are never asked, so they are not counted: they did not take part.
// failures: run_after_pass_failed calls: the pass started and ended with an
//           exception -- its own body's, a nested pass's (the enclosing
//           passes of a failure fail too) or a hook's.
//
// table():
//     Pass statistics:
//           Runs     Skips  Failures  Name
//              2         1         0  InferType
// ("%10zu%10zu%10zu  %s" per row, in first-seen order.) The counts survive
// exit_pass_ctx; reset() clears them.
//
// Thread-safe (SPEC §11.8): a parallel nest's units call its hooks on
// several threads at once. Each hook takes the instrument's lock for its
// count; a should_run is paired with the run_before_pass that follows it on
// the same thread. The counts are sums, so they are the serial run's; the
// rows are in the order any thread first saw a name, which is the serial
// order whenever the units ask the same passes in the same order (a unit
// pipeline's passes: each thread sees them in pipeline order). Copies copy
// the counts; reading (counts, rows, table) while passes run on another
// thread is safe too.
#pragma once

#include <cstddef>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t
#include "passinfra/instruments/output.hpp"

namespace passinfra {

struct PassCounts {
  std::size_t runs = 0;
  std::size_t skips = 0;
  std::size_t failures = 0;

  friend bool operator==(const PassCounts&, const PassCounts&) = default;
};

namespace detail {
// PassStatistics is this template's one specialization: a class template's members are
// compiled only when used, so including the header compiles none of them
// (its std types spelled dependently: see dependent_t).
template <class T = void>
class PassStatisticsOf {
 public:
  PassStatisticsOf() : state_(std::make_unique<State>()) {}
  PassStatisticsOf(const PassStatisticsOf& other) : state_(std::make_unique<State>()) {
    const detail::LightLock lock(other.state_->mutex);
    state_->rows = other.state_->rows;
    state_->index = other.state_->index;
  }
  PassStatisticsOf& operator=(const PassStatisticsOf& other) {
    if (this != &other) {
      PassStatisticsOf copy(other);
      state_.swap(copy.state_);
    }
    return *this;
  }
  // No move constructor or assignment: a move is a copy (the moved-from object stays usable).
  ~PassStatisticsOf() = default;

  std::string_view name() const noexcept { return "PassStatistics"; }
  static constexpr bool thread_safe = true;  // SPEC §11.8

  // should_run: counts the question; always says run.
  template <class IR>
  bool should_run(const IR&, const PassInfo& info) {
    const detail::LightLock lock(state_->mutex);
    const std::size_t i = row(info.name);
    ++state_->rows[i].asked;
    asked() = i;
    return true;
  }

  // run_before_pass: the pass runs.
  template <class IR>
  void run_before_pass(const IR&, const PassInfo& info) {
    const detail::LightLock lock(state_->mutex);
    const std::size_t i = row(info.name);
    ++state_->rows[i].counts.runs;
    std::size_t& last = asked();
    if (last == i) ++state_->rows[i].asked_and_ran;
    last = none;
  }

  // run_after_pass_failed: the pass ended with an exception.
  void run_after_pass_failed(const PassInfo& info, const std::exception_ptr&) {
    const detail::LightLock lock(state_->mutex);
    ++state_->rows[row(info.name)].counts.failures;
  }

  PassCounts counts(std::string_view name) const {
    const detail::LightLock lock(state_->mutex);
    auto it = state_->index.find(name);
    return it == state_->index.end() ? PassCounts{} : counts_of(state_->rows[it->second]);
  }

  dependent_t<std::vector<std::pair<std::string, PassCounts>>, T> rows() const {
    const detail::LightLock lock(state_->mutex);
    dependent_t<std::vector<std::pair<std::string, PassCounts>>, T> out;
    out.reserve(state_->rows.size());
    for (const auto& r : state_->rows) out.emplace_back(r.name, counts_of(r));
    return out;
  }

  std::string table() const {
    std::string out = "Pass statistics:\n      Runs     Skips  Failures  Name\n";
    for (const auto& [name, c] : rows()) {
      char buffer[96];
      const int n = std::snprintf(buffer, sizeof buffer, "%10zu%10zu%10zu  ", c.runs, c.skips, c.failures);
      out.append(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
      out += name;
      out += '\n';
    }
    return out;
  }

  void reset() {
    const detail::LightLock lock(state_->mutex);
    state_->rows.clear();
    state_->index.clear();
    state_->asked.clear();
  }

 private:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  struct Row {
    std::string name;
    PassCounts counts;
    std::size_t asked = 0;
    std::size_t asked_and_ran = 0;
  };

  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  struct State {
    detail::LightMutex mutex;  // guards everything below
    std::vector<Row> rows;
    std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> index;
    detail::PerThread<dependent_t<std::size_t, T>> asked;  // per thread: the row its last should_run asked
  };

  static PassCounts counts_of(const Row& r) noexcept {
    PassCounts c = r.counts;
    c.skips = r.asked - r.asked_and_ran;
    return c;
  }

  // The calling thread's last asked row (under the lock).
  std::size_t& asked() { return state_->asked.mine(none); }

  // The row of `name`, made at its first sight (under the lock).
  std::size_t row(std::string_view name) {
    if (auto it = state_->index.find(name); it != state_->index.end()) return it->second;
    state_->rows.push_back(Row{std::string(name), PassCounts{}, 0, 0});
    state_->index.emplace(state_->rows.back().name, state_->rows.size() - 1);
    return state_->rows.size() - 1;
  }

  std::unique_ptr<State> state_;
};
}  // namespace detail

using PassStatistics = detail::PassStatisticsOf<>;

}  // namespace passinfra
