// passinfra/instruments/analysis_preservation_checker.hpp — catch a pass that
// claims to preserve an analysis it changed (SPEC §10.10; LLVM's
// -verify-analysis-invalidation, there only in expensive-checks builds).
//
// AnalysisPreservationChecker<IR> chk(am)   holds the manager by reference (any
//                                           AnalysisManager<IR, ...>; it must outlive chk's use)
// chk.manager()                             that manager
// chk.checked()                             results compared so far (every pass)
//
// run_after_pass(ir, info) comes after the pass's invalidation (SPEC §10.4),
// so every result still cached was preserved by the pass or untouched by
// it. It recomputes each cached result, in the order they were stored,
// with the manager's object for that analysis (am.recompute: not cached, no
// analysis hook), on the pass's output `ir`, and compares it with the
// cached one with the result type's ==:
//
// * a result type without == is skipped, and named once per analysis (per
//   checker) at INFO: `AnalysisPreservationChecker: analysis 'X' has no
//   operator==; not checked`;
// * a function result whose function is no longer in `ir` is skipped (stale
//   keys are the pass's responsibility, SPEC §10.5);
// * on the first mismatch it clears the manager's cache -- one
//   run_analysis_invalidated per result, in storage order, on the
//   instruments of the context running the pass (am.clear_in_pass()) --
//   and throws passinfra::Error: `pass 'FoldConstant' preserved analysis
//   'CallGraph' (function '@main'), but recomputing it gives a different
//   result` (the parenthesis only for function results). It travels as any
//   run_after_pass throw (SPEC §3, §5.3): instruments listed after the
//   checker get no run_after_pass for that pass, so list it last.
// * an analysis that throws while recomputed: the cache is cleared the same
//   way (its results could not be confirmed) and the exception continues
//   unchanged.
//
// A pass that has had its invalidation and then starts another pass inside
// itself (a function pass's follow-up pass, SPEC §10.5) is checked when the
// inner pass starts (run_before_pass, on its input), if an invalidation was
// asked of the manager since the last comparison, so a false claim names
// the pass that made it; the throw then travels as a run_before_pass throw.
//
// It checks the passes run under the context it is in (only that context
// calls its hooks), and only while that pass runs with this checker's
// manager: a pass whose context has no manager, or another one, is not
// checked (WARNING once per checker: the cache does not describe its IR).
// Dependencies a recomputation requests through `deps` are the cached ones
// (each checked on its own, earlier in storage order). Off unless added: it
// doubles the analysis cost of every pass. One thread at a time (not
// thread-safe: a nest under its context runs serially, SPEC §11.8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t

namespace passinfra {

template <class IR>
class AnalysisPreservationChecker {
 public:
  explicit AnalysisPreservationChecker(AnalysisManager<IR>& am) noexcept : am_(&am) {}

  std::string_view name() const noexcept { return "AnalysisPreservationChecker"; }

  // A pass that starts inside another (a nested pass, the IR's follow-up
  // pass of a function pass) after the enclosing pass has had its
  // invalidation: the enclosing pass's claims are checked now, on the nested
  // pass's input, so a false one is blamed on the pass that made it.
  void run_before_pass(const IR& ir, const PassInfo& info) {
    if (!running_.empty() && am_->in_pass() && am_->invalidations() != seen_) check(ir, running_.back());
    running_.emplace_back(info.name);
  }

  void run_after_pass(const IR& ir, const PassInfo& info) {
    if (!running_.empty()) running_.pop_back();
    if (!am_->in_pass()) {  // no pass is running with this manager: its cache is not this IR's
      if (!warned_) {
        warned_ = true;
        log(LogLevel::warning, "AnalysisPreservationChecker: pass '" + std::string(info.name) +
                                   "' ran under a context without this checker's analysis manager; passes "
                                   "there are not checked");
      }
      return;
    }
    check(ir, info.name);
  }

  void run_after_pass_failed(const PassInfo&, const std::exception_ptr&) noexcept {
    if (!running_.empty()) running_.pop_back();
  }

  AnalysisManager<IR>& manager() const noexcept { return *am_; }
  std::size_t checked() const noexcept { return checked_; }

 private:
  // Recomputes every cached result on `ir` and compares; `pass` is blamed.
  void check(const IR& ir, std::string_view pass) {
    // The results to check, before any recomputation: recompute may cache
    // a dependency it had not read before (appended, never moving these).
    struct Item {
      AnalysisInfo info;
      const detail::ErasedResult* cached;
    };
    std::vector<Item> items;
    items.reserve(am_->size());
    am_->for_each_cached([&](const AnalysisInfo& i, const detail::ErasedResult& r) { items.push_back(Item{i, &r}); });
    for (const Item& item : items) {
      if (!item.cached->has_equality()) {
        note_unchecked(item.info.name);
        continue;
      }
      detail::dependent_t<detail::ErasedResult, IR> fresh;
      try {
        fresh = am_->recompute(item.info, ir);
      } catch (...) {
        am_->clear_in_pass();
        throw;
      }
      if (!fresh.has_value()) continue;  // its function is gone
      ++checked_;
      if (item.cached->equals(fresh).value_or(true)) continue;
      // Copy the names: clearing destroys the entries they point into.
      std::string message = "pass '" + std::string(pass) + "' preserved analysis '" + std::string(item.info.name) + "'";
      if (!item.info.function.empty()) message += " (function '" + std::string(item.info.function) + "')";
      message += ", but recomputing it gives a different result";
      am_->clear_in_pass();
      throw Error(message);
    }
    seen_ = am_->invalidations();
  }

  void note_unchecked(std::string_view analysis) {
    for (const auto& n : unchecked_) {
      if (n == analysis) return;
    }
    unchecked_.emplace_back(analysis);
    log(LogLevel::info,
        "AnalysisPreservationChecker: analysis '" + std::string(analysis) + "' has no operator==; not checked");
  }

  AnalysisManager<IR>* am_;
  // (The std types spelled dependently: see detail::dependent_t.)
  detail::dependent_t<std::vector<std::string>, IR> unchecked_;  // analyses already named in the INFO line
  detail::dependent_t<std::vector<std::string>, IR>
      running_;             // the names of the passes whose run_before_pass returned, innermost last
  std::uint64_t seen_ = 0;  // am_->invalidations() when the last check ended
  std::size_t checked_ = 0;
  bool warned_ = false;
};

}  // namespace passinfra
