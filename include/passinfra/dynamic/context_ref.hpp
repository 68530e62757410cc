// passinfra/dynamic/context_ref.hpp — any context, seen through one type.
//
// ContextRef<IR>(ctx)                 refers to any PassContext<IR, ...> (or another ContextRef)
// ref.pass_enabled(info) / is_required(name) / opt_level() / required_pass() / disabled_pass()
// ref.gate()                          a PassGate snapshot (as PassContext::gate())
// ref.config() / get_config<T>(key, default)
// ref.instrument_set()                the context's instrument fan-out, erased
//
// AnyPass bodies run under a ContextRef, so one compiled body runs inside a
// static context as well as a dynamic one: the gate, the config and the
// instrument hooks are those of the context it wraps. Costs one indirect call
// per gate check (a pipeline reads the gate once, through gate()) and one
// per pass run for all its hooks (the wrapped context's set runs SPEC §3's
// hook sequence around the body: ErasedInstrumentSet::run_pass).
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/core/config.hpp"
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

 private:
  ErasedInstrumentSet<IR> set_;
};

}  // namespace passinfra
