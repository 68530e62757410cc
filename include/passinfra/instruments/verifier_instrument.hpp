// passinfra/instruments/verifier_instrument.hpp — check the IR after every pass.
//
// VerifierOptions{verify_input = true, thread_safe = false}
// VerificationError                       passinfra::Error; e.pass_name(), e.detail(), e.on_input()
// VerifierInstrument(fn, filter = {}, options = {})   fn(const IR&) -> bool (true: valid), or
//                                         -> std::optional<std::string> (a message: invalid)
// v.verified()                            how many times fn ran
//
// run_after_pass runs fn on each filtered pass's output and throws a
// VerificationError naming the pass when the IR is invalid: "passinfra:
// verifier failed after pass 'P'[: <message>]". With verify_input, the
// input of each outermost pass (one that starts while no other pass is
// running under this instrument) is checked first, so that an IR that was
// invalid to begin with is not blamed on the first pass: "passinfra:
// verifier failed on the input of pass 'P' (invalid before it ran)[:
// <message>]". The filter applies to both checks.
//
// The error is thrown from a hook, so (SPEC §3) the after hooks of the
// instruments listed after this one do not run for that pass, and the error
// propagates out of run(); list the verifier last. Instruments with
// run_after_pass_failed learn of it for the enclosing passes.
//
// Threads (SPEC §11.8: "as its options say"): fn is the user's, so the
// instrument is thread-safe only when `thread_safe` says fn may run on
// several threads at once; then a parallel nest runs under it. The nesting
// depth is kept per thread, and a pass inside a nest's unit pipeline is never
// outermost (its nest is), so the same checks run serially and in parallel.
#pragma once

#include <concepts>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>

#include "passinfra/core/error.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/type_name.hpp"
#include "passinfra/instruments/output.hpp"

namespace passinfra {

struct VerifierOptions {
  bool verify_input = true;
  bool thread_safe = false;  // fn may be called from several threads at once
};

class VerificationError : public Error {
 public:
  VerificationError(std::string pass_name, std::string detail, bool on_input)
      : Error(message(pass_name, detail, on_input)),
        pass_name_(std::move(pass_name)),
        detail_(std::move(detail)),
        on_input_(on_input) {}

  const std::string& pass_name() const noexcept { return pass_name_; }
  const std::string& detail() const noexcept { return detail_; }
  bool on_input() const noexcept { return on_input_; }

 private:
  static std::string message(const std::string& pass, const std::string& detail, bool on_input) {
    std::string m = on_input ? "verifier failed on the input of pass '" + pass + "' (invalid before it ran)"
                             : "verifier failed after pass '" + pass + "'";
    if (!detail.empty()) m += ": " + detail;
    return m;
  }

  std::string pass_name_;
  std::string detail_;
  bool on_input_;
};

template <class F>
class VerifierInstrument {
 public:
  explicit VerifierInstrument(F verify, PassFilter filter = {}, VerifierOptions options = {})
      : verify_(std::move(verify)), filter_(std::move(filter)), options_(options) {}
  VerifierInstrument(const VerifierInstrument& other)
      : verify_(other.verify_),
        filter_(other.filter_),
        options_(other.options_),
        depth_(other.depths()),
        verified_(other.verified_) {}
  VerifierInstrument(VerifierInstrument&& other) noexcept(std::is_nothrow_move_constructible_v<F>)
      : verify_(std::move(other.verify_)),
        filter_(std::move(other.filter_)),
        options_(other.options_),
        depth_(std::move(other.depth_)),
        verified_(other.verified_) {}
  VerifierInstrument& operator=(const VerifierInstrument& other)
    requires std::is_copy_assignable_v<F>
  {
    if (this != &other) {
      auto depths = other.depths();
      verify_ = other.verify_;
      filter_ = other.filter_;
      options_ = other.options_;
      verified_ = other.verified_;
      const std::lock_guard lock(mutex_);
      depth_ = std::move(depths);
    }
    return *this;
  }
  ~VerifierInstrument() = default;

  std::string_view name() const noexcept { return "VerifierInstrument"; }
  // SPEC §11.8: thread-safe when the options say fn is.
  bool thread_safe() const noexcept { return options_.thread_safe; }

  void exit_pass_ctx() noexcept {
    const std::lock_guard lock(mutex_);
    depth_.clear();
  }

  // run_before_pass: counts the nesting; checks the input of an outermost pass.
  template <class IR>
  void run_before_pass(const IR& ir, const PassInfo& info) {
    if (options_.verify_input && filter_.matches(info.name) && current_pipeline() == nullptr) {
      bool outermost = false;
      {
        const std::lock_guard lock(mutex_);
        outermost = depth_.find(std::this_thread::get_id()) == depth_.end();
      }
      if (outermost) check(ir, info, true);  // a throw leaves the depth as it was
    }
    const std::lock_guard lock(mutex_);
    ++depth_[std::this_thread::get_id()];
  }

  // run_after_pass: checks the output.
  template <class IR>
  void run_after_pass(const IR& ir, const PassInfo& info) {
    leave();
    if (filter_.matches(info.name)) check(ir, info, false);
  }

  void run_after_pass_failed(const PassInfo&, const std::exception_ptr&) noexcept { leave(); }

  std::size_t verified() const noexcept { return verified_.get(); }

 private:
  template <class IR>
  void check(const IR& ir, const PassInfo& info, bool on_input) {
    if constexpr (!std::is_invocable_v<F&, const IR&>) {
      // A nest's unit (SPEC §11.8) is verified when fn takes it; a verifier
      // of the parent leaves the units to the nest's own run_after_pass.
      static_assert(HasParentType<IR>, "passinfra::VerifierInstrument(fn): fn must be callable as fn(const IR&)");
    } else {
      using R = std::invoke_result_t<F&, const IR&>;
      ++verified_;
      if constexpr (std::is_same_v<std::remove_cvref_t<R>, bool>) {
        if (!std::invoke(verify_, ir)) throw VerificationError(std::string(info.name), {}, on_input);
      } else if constexpr (requires(R r) {
                             { r.has_value() } -> std::convertible_to<bool>;
                             { *r } -> std::convertible_to<std::string>;
                           }) {
        auto result = std::invoke(verify_, ir);
        if (result.has_value()) throw VerificationError(std::string(info.name), std::string(*result), on_input);
      } else {
        static_assert(detail::always_false<R>,
                      "passinfra::VerifierInstrument(fn): fn(const IR&) must return bool (true: the IR is valid) or "
                      "std::optional<std::string> (a message: the IR is invalid)");
      }
    }
  }

  void leave() noexcept {
    const std::lock_guard lock(mutex_);
    const auto it = depth_.find(std::this_thread::get_id());
    if (it == depth_.end()) return;
    if (--it->second == 0) depth_.erase(it);
  }
  std::map<std::thread::id, std::size_t> depths() const {
    const std::lock_guard lock(mutex_);
    return depth_;
  }

  F verify_;
  PassFilter filter_;
  VerifierOptions options_;
  mutable std::mutex mutex_;
  std::map<std::thread::id, std::size_t> depth_;  // per thread: passes running under this instrument
  detail::SharedCount verified_;
};

}  // namespace passinfra
