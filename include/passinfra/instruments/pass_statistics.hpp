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
// exit_pass_ctx; reset() clears them. Thread-safe (SPEC §11.8): the hooks
// take a lock and each thread's last question is kept apart, so a parallel
// nest's units count exactly as a serial run's (the counts are sums; the
// first-seen order of names may follow the threads' interleaving).
#pragma once

#include <cstddef>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "passinfra/core/pass_info.hpp"

namespace passinfra {

struct PassCounts {
  std::size_t runs = 0;
  std::size_t skips = 0;
  std::size_t failures = 0;

  friend bool operator==(const PassCounts&, const PassCounts&) = default;
};

class PassStatistics {
 public:
  PassStatistics() = default;
  PassStatistics(const PassStatistics& other) {
    const std::lock_guard lock(other.mutex_);
    rows_ = other.rows_;
    index_ = other.index_;
    asked_ = other.asked_;
  }
  PassStatistics& operator=(const PassStatistics& other) {
    if (this != &other) {
      PassStatistics copy(other);
      const std::lock_guard lock(mutex_);
      rows_ = std::move(copy.rows_);
      index_ = std::move(copy.index_);
      asked_ = std::move(copy.asked_);
    }
    return *this;
  }
  ~PassStatistics() = default;

  std::string_view name() const noexcept { return "PassStatistics"; }
  // Its hooks may run on several threads at once (SPEC §11.8).
  static constexpr bool thread_safe = true;

  // should_run: counts the question; always says run.
  template <class IR>
  bool should_run(const IR&, const PassInfo& info) {
    const std::lock_guard lock(mutex_);
    const std::size_t i = row(info.name);
    ++rows_[i].asked;
    asked_[std::this_thread::get_id()] = i;
    return true;
  }

  // run_before_pass: the pass runs.
  template <class IR>
  void run_before_pass(const IR&, const PassInfo& info) {
    const std::lock_guard lock(mutex_);
    const std::size_t i = row(info.name);
    ++rows_[i].counts.runs;
    if (const auto it = asked_.find(std::this_thread::get_id()); it != asked_.end()) {
      if (it->second == i) ++rows_[i].asked_and_ran;
      asked_.erase(it);
    }
  }

  // run_after_pass_failed: the pass ended with an exception.
  void run_after_pass_failed(const PassInfo& info, const std::exception_ptr&) {
    const std::lock_guard lock(mutex_);
    ++rows_[row(info.name)].counts.failures;
  }

  PassCounts counts(std::string_view name) const {
    const std::lock_guard lock(mutex_);
    auto it = index_.find(name);
    return it == index_.end() ? PassCounts{} : counts_of(rows_[it->second]);
  }

  std::vector<std::pair<std::string, PassCounts>> rows() const {
    const std::lock_guard lock(mutex_);
    std::vector<std::pair<std::string, PassCounts>> out;
    out.reserve(rows_.size());
    for (const auto& r : rows_) out.emplace_back(r.name, counts_of(r));
    return out;
  }

  std::string table() const {
    const std::lock_guard lock(mutex_);
    std::string out = "Pass statistics:\n      Runs     Skips  Failures  Name\n";
    for (const auto& r : rows_) {
      const PassCounts c = counts_of(r);
      char buffer[96];
      const int n = std::snprintf(buffer, sizeof buffer, "%10zu%10zu%10zu  ", c.runs, c.skips, c.failures);
      out.append(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
      out += r.name;
      out += '\n';
    }
    return out;
  }

  void reset() {
    const std::lock_guard lock(mutex_);
    rows_.clear();
    index_.clear();
    asked_.clear();
  }

 private:
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

  static PassCounts counts_of(const Row& r) noexcept {
    PassCounts c = r.counts;
    c.skips = r.asked - r.asked_and_ran;
    return c;
  }

  std::size_t row(std::string_view name) {
    if (auto it = index_.find(name); it != index_.end()) return it->second;
    rows_.push_back(Row{std::string(name), PassCounts{}, 0, 0});
    index_.emplace(rows_.back().name, rows_.size() - 1);
    return rows_.size() - 1;
  }

  std::vector<Row> rows_;
  std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> index_;
  std::map<std::thread::id, std::size_t> asked_;  // per thread: the row of its last should_run
  mutable std::mutex mutex_;
};

}  // namespace passinfra
