// passinfra/dynamic/context_ref.hpp — any context, seen through one type.
//
// ContextRef<IR>(ctx)                 refers to any PassContext<IR, ...> (or another ContextRef)
// ref.pass_enabled(info) / is_required(name) / opt_level() / required_pass() / disabled_pass()
// ref.gate()                          a PassGate snapshot (as PassContext::gate())
// ref.config() / get_config<T>(key, default)
// ref.instrument_set()                the context's instrument fan-out, erased (pass hooks and
//                                     the analysis hooks of SPEC §10.7)
// ref.analysis_manager()              the wrapped context's AnalysisManager<IR> (null: none)
// ref.analyses()                      AnalysisHandle over that manager (SPEC §10.9): the same
//                                     cache as the wrapped context's, its hooks fire; Error
//                                     (SPEC §10.8) when the context has no manager
//
// AnyPass bodies run under a ContextRef, so one compiled body runs inside a
// static context as well as a dynamic one: the gate, the config and the
// instrument hooks are those of the context it wraps. Costs one indirect call
// per gate check (a pipeline reads the gate once, through gate()) and one
// per pass run for all its hooks (the wrapped context's set runs SPEC §3's
// hook sequence around the body: ErasedInstrumentSet::run_pass).
//
// Analyses: a static context's manager is seen as its base AnalysisManager<IR>
// (the run-time table, in which the static slots are registered), so a pass
// body under a ContextRef reaches the very entries the static context's own
// passes do; run() pushes its pass frames and invalidates through the
// ContextRef exactly as through the context (core/run.hpp).
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/config.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/pass_context.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/detail/inline.hpp"

namespace passinfra {

namespace detail {

template <class IR>
struct ContextVTable {
  bool (*pass_enabled)(const void*, const PassInfo&);
  bool (*is_required)(const void*, std::string_view);
  int (*opt_level)(const void*);
  bool (*names_listed)(const void*);
  bool (*has_required)(const void*);
  const std::vector<std::string>& (*required_pass)(const void*);
  const std::vector<std::string>& (*disabled_pass)(const void*);
  const Config& (*config)(const void*);
  bool (*should_run)(void*, const IR&, const PassInfo&);
  void (*before)(void*, const IR&, const PassInfo&, std::size_t&);
  void (*after)(void*, const IR&, const PassInfo&, std::size_t&);
  void (*after_failed)(void*, const PassInfo&, const std::exception_ptr&, std::size_t, std::size_t);
  // SPEC §3's hooks around body(state, ir), in one call (detail::run_hooks).
  IR (*run_pass)(void*, IR, const PassInfo&, bool, IR (*)(void*, IR), void*);
  // The wrapped context's analysis manager (null: none) and the analysis
  // fan-out of its set (the manager's own erased sink table, SinkRef's).
  AnalysisManager<IR>* (*analysis_manager)(const void*);
  const SinkTable<IR>* analysis_hooks;
};

// The manager of a context, as the run-time table every manager derives from.
template <class IR, class Ctx>
AnalysisManager<IR>* analysis_manager_of(const Ctx& ctx) noexcept {
  if constexpr (HasAnalyses<const Ctx>) {
    using M = std::remove_pointer_t<decltype(ctx.analysis_manager())>;
    if constexpr (std::is_convertible_v<M*, AnalysisManager<IR>*>) {
      return ctx.analysis_manager();
    } else {
      return nullptr;  // a manager for another IR type: not this IR's
    }
  } else {
    return nullptr;
  }
}

// The set a context's hooks go through (its instrument_set()).
template <class Ctx>
using context_set_t = std::remove_cvref_t<decltype(std::declval<Ctx&>().instrument_set())>;

// The analysis fan-out of a context's set, reached from the context (a
// hook the set cannot have does nothing).
template <class IR, class Ctx>
inline constexpr SinkTable<IR> context_sink_table_for{
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const IR& ir, [[maybe_unused]] const AnalysisInfo& info,
        [[maybe_unused]] std::size_t& returned) {
      if constexpr (context_set_t<Ctx>::template has_run_before_analysis<IR>) {
        static_cast<Ctx*>(c)->instrument_set().run_before_analysis(ir, info, returned);
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const IR& ir, [[maybe_unused]] const AnalysisInfo& info,
        [[maybe_unused]] std::size_t& started) {
      if constexpr (context_set_t<Ctx>::template has_run_after_analysis<IR>) {
        static_cast<Ctx*>(c)->instrument_set().run_after_analysis(ir, info, started);
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const AnalysisInfo& info,
        [[maybe_unused]] const std::exception_ptr& error, [[maybe_unused]] std::size_t from,
        [[maybe_unused]] std::size_t to) {
      if constexpr (context_set_t<Ctx>::has_run_after_analysis_failed) {
        static_cast<Ctx*>(c)->instrument_set().run_after_analysis_failed(info, error, from, to);
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const AnalysisInfo& info) {
      if constexpr (context_set_t<Ctx>::has_run_analysis_invalidated) {
        static_cast<Ctx*>(c)->instrument_set().run_analysis_invalidated(info);
      }
    },
};

template <class IR, class Ctx>
inline constexpr ContextVTable<IR> context_vtable_for{
    +[](const void* c, const PassInfo& info) { return static_cast<const Ctx*>(c)->pass_enabled(info); },
    +[](const void* c, std::string_view name) { return static_cast<const Ctx*>(c)->is_required(name); },
    +[](const void* c) { return static_cast<const Ctx*>(c)->opt_level(); },
    +[](const void* c) {
      const Ctx& ctx = *static_cast<const Ctx*>(c);
      if constexpr (requires { ctx.names_listed(); }) {
        return ctx.names_listed();
      } else {
        return !ctx.required_pass().empty() || !ctx.disabled_pass().empty();
      }
    },
    +[](const void* c) {
      const Ctx& ctx = *static_cast<const Ctx*>(c);
      if constexpr (requires { ctx.has_required(); }) {
        return ctx.has_required();
      } else {
        return !ctx.required_pass().empty();
      }
    },
    +[](const void* c) -> const std::vector<std::string>& { return static_cast<const Ctx*>(c)->required_pass(); },
    +[](const void* c) -> const std::vector<std::string>& { return static_cast<const Ctx*>(c)->disabled_pass(); },
    +[](const void* c) -> const Config& { return static_cast<const Ctx*>(c)->config(); },
    +[](void* c, const IR& ir, const PassInfo& info) {
      return static_cast<Ctx*>(c)->instrument_set().should_run(ir, info);
    },
    +[](void* c, const IR& ir, const PassInfo& info, std::size_t& returned) {
      static_cast<Ctx*>(c)->instrument_set().run_before_pass(ir, info, returned);
    },
    +[](void* c, const IR& ir, const PassInfo& info, std::size_t& started) {
      static_cast<Ctx*>(c)->instrument_set().run_after_pass(ir, info, started);
    },
    +[](void* c, const PassInfo& info, const std::exception_ptr& error, std::size_t from, std::size_t to) {
      static_cast<Ctx*>(c)->instrument_set().run_after_pass_failed(info, error, from, to);
    },
    +[](void* c, IR ir, const PassInfo& info, bool ask_should_run, IR (*body)(void*, IR), void* state) -> IR {
      auto& set = static_cast<Ctx*>(c)->instrument_set();
      if constexpr (std::remove_cvref_t<decltype(set)>::template hook_free<IR>) {
        return body(state, std::move(ir));
      } else {
        return run_hooks(set, std::move(ir), info, ask_should_run,
                         [&](IR in) PASSINFRA_LAMBDA_INLINE { return body(state, std::move(in)); });
      }
    },
    +[](const void* c) { return analysis_manager_of<IR>(*static_cast<const Ctx*>(c)); },
    &context_sink_table_for<IR, Ctx>,
};

}  // namespace detail

template <class IR>
class ContextRef;

// The instrument fan-out of a ContextRef: the set protocol of InstrumentSet,
// forwarded to the wrapped context's set.
template <class IR>
class ErasedInstrumentSet {
 public:
  template <class>
  static constexpr bool has_should_run = true;
  template <class>
  static constexpr bool has_run_before_pass = true;
  template <class>
  static constexpr bool has_run_after_pass = true;
  static constexpr bool has_run_after_pass_failed = true;
  template <class>
  static constexpr bool hook_free = false;

  bool should_run(const IR& ir, const PassInfo& info) { return vtable_->should_run(context_, ir, info); }
  void run_before_pass(const IR& ir, const PassInfo& info, std::size_t& returned) {
    vtable_->before(context_, ir, info, returned);
  }
  void run_after_pass(const IR& ir, const PassInfo& info, std::size_t& started) {
    vtable_->after(context_, ir, info, started);
  }
  void run_after_pass_failed(const PassInfo& info, const std::exception_ptr& error, std::size_t from,
                             std::size_t to) noexcept {
    vtable_->after_failed(context_, info, error, from, to);
  }
  // The analysis hooks (SPEC §10.7), with InstrumentSet's bookkeeping:
  // forwarded to the wrapped context's set (a set without them does nothing).
  template <class>
  static constexpr bool has_run_before_analysis = true;
  template <class>
  static constexpr bool has_run_after_analysis = true;
  static constexpr bool has_run_after_analysis_failed = true;
  static constexpr bool has_run_analysis_invalidated = true;

  void run_before_analysis(const IR& ir, const AnalysisInfo& info, std::size_t& returned) {
    vtable_->analysis_hooks->before(context_, ir, info, returned);
  }
  void run_after_analysis(const IR& ir, const AnalysisInfo& info, std::size_t& started) {
    vtable_->analysis_hooks->after(context_, ir, info, started);
  }
  void run_after_analysis_failed(const AnalysisInfo& info, const std::exception_ptr& error, std::size_t from,
                                 std::size_t to) noexcept {
    vtable_->analysis_hooks->failed(context_, info, error, from, to);
  }
  void run_analysis_invalidated(const AnalysisInfo& info) { vtable_->analysis_hooks->invalidated(context_, info); }

  // run_pass(ir, info, ask_should_run, body): the whole hook sequence of
  // SPEC §3 around body(ir), run by the wrapped context's own set in one
  // call (what detail::run_hooks does for a ContextRef's passes).
  template <class Body>
  IR run_pass(IR ir, const PassInfo& info, bool ask_should_run, Body& body) {
    return vtable_->run_pass(
        context_, std::move(ir), info, ask_should_run,
        [](void* state, IR in) -> IR { return (*static_cast<Body*>(state))(std::move(in)); },
        static_cast<void*>(std::addressof(body)));
  }

 private:
  template <class>
  friend class ContextRef;
  ErasedInstrumentSet(void* context, const detail::ContextVTable<IR>* vtable) : context_(context), vtable_(vtable) {}
  void* context_;
  const detail::ContextVTable<IR>* vtable_;
};

template <class IR>
class ContextRef {
 public:
  template <class Ctx>
    requires(!std::is_same_v<Ctx, ContextRef>)
  explicit ContextRef(Ctx& context) : set_(&context, &detail::context_vtable_for<IR, Ctx>) {}

  ContextRef(const ContextRef&) = default;

  bool pass_enabled(const PassInfo& info) const { return set_.vtable_->pass_enabled(set_.context_, info); }
  bool is_required(std::string_view name) const { return set_.vtable_->is_required(set_.context_, name); }
  int opt_level() const { return set_.vtable_->opt_level(set_.context_); }
  // The state behind pass_enabled / is_required, for a gate snapshot:
  // gate() reads it once, so a pipeline run under a ContextRef checks its
  // children with one compare each when no names are listed.
  bool names_listed() const { return set_.vtable_->names_listed(set_.context_); }
  bool has_required() const { return set_.vtable_->has_required(set_.context_); }
  PassGate<ContextRef> gate() const { return PassGate<ContextRef>(*this); }
  const std::vector<std::string>& required_pass() const { return set_.vtable_->required_pass(set_.context_); }
  const std::vector<std::string>& disabled_pass() const { return set_.vtable_->disabled_pass(set_.context_); }
  const Config& config() const { return set_.vtable_->config(set_.context_); }

  template <class T>
  T get_config(std::string_view key, T default_value) const {
    return config_get<T>(config(), key, std::move(default_value));
  }
  template <class T>
  T get_config(const ConfigKey<T>& key) const {
    return config_get<T>(config(), key.key, key.default_value);
  }

  ErasedInstrumentSet<IR>& instrument_set() noexcept { return set_; }

  // analysis_manager(): the wrapped context's manager, as the run-time
  // table every AnalysisManager<IR, ...> derives from (null: none).
  AnalysisManager<IR>* analysis_manager() const noexcept { return set_.vtable_->analysis_manager(set_.context_); }

  // analyses(): the wrapped context's manager seen from a pass body (SPEC
  // §10.9): the same cache, misses fire the wrapped context's analysis
  // hooks, marks go to the innermost running pass.
  AnalysisHandle<ContextRef> analyses() {
    AnalysisManager<IR>* am = analysis_manager();
    if (am == nullptr) [[unlikely]] {
      throw Error(
          "ctx.analyses(): this PassContext<IR> has no analysis manager; construct it with "
          "PassContext<IR>(options, instruments, &am)");
    }
    return AnalysisHandle<ContextRef>(*am, *this);
  }

 private:
  ErasedInstrumentSet<IR> set_;
};

}  // namespace passinfra
