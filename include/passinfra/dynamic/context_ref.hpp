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
//                                     (SPEC §10.8) when the context has no manager. For a unit
//                                     type (ir_traits<IR>::parent_type): the UnitAnalysisHandle
//                                     of SPEC §11.13 inside a nest, Error elsewhere
// ref.executor()                      the wrapped context's executor (empty: nests are serial)
// Inside a nest (the ContextRef<Unit> of a unit pass, SPEC §11.2):
// ref.parent()                        const ir_traits<IR>::parent_type&: the nest's parent snapshot
// ref.parent_as<P>()                  const P&: the same, Error if the nest's parent is not a P
// ref.unit_name() / unit_index() / unit_count() / pipeline()   as UnitContext's
//                                     (each an Error outside a nest)
//
// Unit-level hooks: a ContextRef<IR> also forwards the pass and pipeline hooks
// for the unit types IR lists (ir_traits<IR>::unit_types) to the wrapped
// context's set, so a nest run under a ContextRef (DynamicNest inside a
// DynamicSequential, an AnyPass of a Nest) gives its instruments the same
// events as under the context itself.
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
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/config.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/executor.hpp"
#include "passinfra/core/nest.hpp"
#include "passinfra/core/pass_context.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/core/units.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

namespace detail {

// The hooks of one unit type U of a wrapped context's set (SPEC §11.3).
template <class U>
struct UnitHookTable {
  bool (*should_run)(void*, const U&, const PassInfo&);
  void (*before)(void*, const U&, const PassInfo&, std::size_t&);
  void (*after)(void*, const U&, const PassInfo&, std::size_t&);
  void (*before_pipeline)(void*, const U&, const PipelineInfo&, std::size_t&);
  void (*after_pipeline)(void*, const U&, const PipelineInfo&, std::size_t&);
  std::string (*first_unsafe)(void*, bool analyses);  // analyses: analysis hooks for U's parent count too
};

// UnitTables<IR>::type: one UnitHookTable pointer per unit type IR lists.
template <class L>
struct UnitTablesOf {
  using type = std::tuple<>;
};
template <class... Us>
struct UnitTablesOf<unit_list<Us...>> {
  using type = std::tuple<const UnitHookTable<Us>*...>;
};
template <class IR>
struct UnitTables : UnitTablesOf<void> {};
template <class IR>
  requires requires { typename ir_traits<IR>::unit_types; }
struct UnitTables<IR> : UnitTablesOf<unit_types_closure<IR>> {};

// HasNestAnalysesFor<Ctx, Parent>: Ctx is a unit's context that may hold a
// nest's analysis state for Parent (UnitContext under a context with a
// manager for Parent, or a ContextRef of one).
template <class Ctx, class Parent>
concept HasNestAnalysesFor = requires(const Ctx& ctx) {
  { ctx.nest_analyses() } -> std::same_as<NestAnalyses<Parent>*>;
};

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
  // Nests (SPEC §11): the executor, what a worker takes over, the unit
  // context's parent and pipeline (null outside a nest), the pipeline
  // hooks that take no IR, and the unit-level hooks of IR's unit types.
  ExecutorRef (*executor)(const void*);
  WorkerBinding (*worker_binding)(void*);
  const void* (*parent)(const void*);
  const std::type_info* (*parent_type)();
  std::string_view (*parent_type_name)();
  const PipelineInfo* (*pipeline)(const void*);
  void (*after_pipeline_failed)(void*, const PipelineInfo&, const std::exception_ptr&, std::size_t, std::size_t);
  typename UnitTables<IR>::type units;
  // Analyses inside a nest (SPEC §11.13): the unit context's nest run state,
  // a NestAnalyses<ir_traits<IR>::parent_type>* (null: not a unit's context
  // under a manager for that parent).
  void* (*nest_analyses)(const void*);
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

// The unit hooks of Ctx's set for units of type U (a hook the set cannot
// have for U does nothing; should_run says "run").
template <class U, class Ctx>
inline constexpr UnitHookTable<U> unit_hook_table_for{
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const U& u, [[maybe_unused]] const PassInfo& info) -> bool {
      if constexpr (context_set_t<Ctx>::template has_should_run<U>) {
        return static_cast<Ctx*>(c)->instrument_set().should_run(u, info);
      } else {
        return true;
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const U& u, [[maybe_unused]] const PassInfo& info,
        std::size_t& returned) {
      if constexpr (context_set_t<Ctx>::template has_run_before_pass<U> ||
                    context_set_t<Ctx>::has_run_after_pass_failed) {
        static_cast<Ctx*>(c)->instrument_set().run_before_pass(u, info, returned);
      } else {
        ++returned;
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const U& u, [[maybe_unused]] const PassInfo& info,
        std::size_t& started) {
      if constexpr (context_set_t<Ctx>::template has_run_after_pass<U> ||
                    context_set_t<Ctx>::has_run_after_pass_failed) {
        static_cast<Ctx*>(c)->instrument_set().run_after_pass(u, info, started);
      } else {
        ++started;
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const U& u, [[maybe_unused]] const PipelineInfo& info,
        [[maybe_unused]] std::size_t& returned) {
      if constexpr (requires(context_set_t<Ctx>& set) { set.run_before_pipeline(u, info, returned); }) {
        static_cast<Ctx*>(c)->instrument_set().run_before_pipeline(u, info, returned);
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const U& u, [[maybe_unused]] const PipelineInfo& info,
        [[maybe_unused]] std::size_t& started) {
      if constexpr (requires(context_set_t<Ctx>& set) { set.run_after_pipeline(u, info, started); }) {
        static_cast<Ctx*>(c)->instrument_set().run_after_pipeline(u, info, started);
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] bool analyses) -> std::string {
      if constexpr (requires(context_set_t<Ctx>& set) { set.template first_unsafe_for_units<U>(); }) {
        if constexpr (HasParentType<U>) {
          using Parent = typename ir_traits<U>::parent_type;
          if (analyses) return static_cast<Ctx*>(c)->instrument_set().template first_unsafe_for_units<U, Parent>();
        }
        return static_cast<Ctx*>(c)->instrument_set().template first_unsafe_for_units<U>();
      } else {
        return {};
      }
    },
};

template <class Ctx, class... Us>
constexpr std::tuple<const UnitHookTable<Us>*...> unit_tables_for(unit_list<Us...>*) {
  return {&unit_hook_table_for<Us, Ctx>...};
}
template <class IR, class Ctx>
constexpr typename UnitTables<IR>::type unit_tables_of() {
  if constexpr (requires { typename ir_traits<IR>::unit_types; }) {
    return unit_tables_for<Ctx>(static_cast<unit_types_closure<IR>*>(nullptr));
  } else {
    return {};
  }
}

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
    +[]([[maybe_unused]] const void* c) -> ExecutorRef {
      if constexpr (requires(const Ctx& ctx) { ctx.executor(); }) {
        return static_cast<const Ctx*>(c)->executor();
      } else {
        return ExecutorRef();
      }
    },
    +[](void* c) -> WorkerBinding { return worker_binding(*static_cast<Ctx*>(c)); },
    +[]([[maybe_unused]] const void* c) -> const void* {
      if constexpr (requires(const Ctx& ctx) { ctx.parent(); }) {
        return static_cast<const void*>(&static_cast<const Ctx*>(c)->parent());
      } else {
        return nullptr;
      }
    },
    +[]() -> const std::type_info* {
      if constexpr (requires(const Ctx& ctx) { ctx.parent(); }) {
        return &typeid(std::remove_cvref_t<decltype(std::declval<const Ctx&>().parent())>);
      } else {
        return nullptr;
      }
    },
    +[]() -> std::string_view {
      if constexpr (requires(const Ctx& ctx) { ctx.parent(); }) {
        return type_name<std::remove_cvref_t<decltype(std::declval<const Ctx&>().parent())>>();
      } else {
        return {};
      }
    },
    +[]([[maybe_unused]] const void* c) -> const PipelineInfo* {
      if constexpr (requires(const Ctx& ctx) { ctx.pipeline(); }) {
        return &static_cast<const Ctx*>(c)->pipeline();
      } else {
        return nullptr;
      }
    },
    +[]([[maybe_unused]] void* c, [[maybe_unused]] const PipelineInfo& info,
        [[maybe_unused]] const std::exception_ptr& error, [[maybe_unused]] std::size_t from,
        [[maybe_unused]] std::size_t to) {
      if constexpr (context_set_t<Ctx>::has_run_after_pipeline_failed) {
        static_cast<Ctx*>(c)->instrument_set().run_after_pipeline_failed(info, error, from, to);
      }
    },
    unit_tables_of<IR, Ctx>(),
    +[]([[maybe_unused]] const void* c) -> void* {
      if constexpr (HasParentType<IR>) {
        if constexpr (HasNestAnalysesFor<Ctx, typename ir_traits<IR>::parent_type>) {
          return static_cast<void*>(static_cast<const Ctx*>(c)->nest_analyses());
        }
      }
      return nullptr;
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
  // Hooks for IR and for the unit types IR lists (ir_traits<IR>::unit_types).
  template <class X>
  static constexpr bool forwards = std::is_same_v<X, IR> || detail::is_unit_of<IR, X>;
  template <class X>
  static constexpr bool has_should_run = forwards<X>;
  template <class X>
  static constexpr bool has_run_before_pass = forwards<X>;
  template <class X>
  static constexpr bool has_run_after_pass = forwards<X>;
  static constexpr bool has_run_after_pass_failed = true;
  template <class X>
  static constexpr bool hook_free = !forwards<X>;
  template <class U>
  static constexpr bool has_run_before_pipeline = detail::is_unit_of<IR, U>;
  template <class U>
  static constexpr bool has_run_after_pipeline = detail::is_unit_of<IR, U>;
  static constexpr bool has_run_after_pipeline_failed = true;

  // The unit-level hooks (SPEC §11.3), for a unit type U that IR lists.
  template <class U>
    requires detail::is_unit_of<IR, U>
  bool should_run(const U& unit, const PassInfo& info) {
    return unit_table<U>().should_run(context_, unit, info);
  }
  template <class U>
    requires detail::is_unit_of<IR, U>
  void run_before_pass(const U& unit, const PassInfo& info, std::size_t& returned) {
    unit_table<U>().before(context_, unit, info, returned);
  }
  template <class U>
    requires detail::is_unit_of<IR, U>
  void run_after_pass(const U& unit, const PassInfo& info, std::size_t& started) {
    unit_table<U>().after(context_, unit, info, started);
  }
  template <class U>
    requires detail::is_unit_of<IR, U>
  void run_before_pipeline(const U& unit, const PipelineInfo& info, std::size_t& returned) {
    unit_table<U>().before_pipeline(context_, unit, info, returned);
  }
  template <class U>
    requires detail::is_unit_of<IR, U>
  void run_after_pipeline(const U& unit, const PipelineInfo& info, std::size_t& started) {
    unit_table<U>().after_pipeline(context_, unit, info, started);
  }
  void run_after_pipeline_failed(const PipelineInfo& info, const std::exception_ptr& error, std::size_t from,
                                 std::size_t to) noexcept {
    vtable_->after_pipeline_failed(context_, info, error, from, to);
  }
  template <class U, class AnalysedIR = void>
    requires detail::is_unit_of<IR, U>
  std::string first_unsafe_for_units() {
    return unit_table<U>().first_unsafe(context_, !std::is_void_v<AnalysedIR>);
  }

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
  template <class X>
  static constexpr bool has_run_before_analysis = std::is_same_v<X, IR>;
  template <class X>
  static constexpr bool has_run_after_analysis = std::is_same_v<X, IR>;
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
  template <class U>
  const detail::UnitHookTable<U>& unit_table() const noexcept {
    return *std::get<const detail::UnitHookTable<U>*>(vtable_->units);
  }
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

  // executor(): the wrapped context's executor (SPEC §11.4; empty: serial).
  ExecutorRef executor() const { return set_.vtable_->executor(set_.context_); }
  // worker_binding(): what a parallel nest's worker takes over (nest.hpp).
  detail::WorkerBinding worker_binding() const { return set_.vtable_->worker_binding(set_.context_); }

  // parent(): inside a nest, the nest's parent as it was when the nest
  // started (SPEC §11.2); Error outside a nest or for a parent of another type.
  decltype(auto) parent() const
    requires HasParentType<IR>
  {
    return parent_as<typename ir_traits<IR>::parent_type>();
  }
  // parent_as<P>(): the same, as a P (Error if the nest's parent is not a P).
  template <class P>
  const P& parent_as() const {
    const void* p = set_.vtable_->parent(set_.context_);
    if (p == nullptr) [[unlikely]] {
      throw Error("ctx.parent_as<" + std::string(detail::type_name<P>()) +
                  ">(): this context is not a unit's context; expected a pass running inside a nest");
    }
    if (*set_.vtable_->parent_type() != typeid(P)) [[unlikely]] {
      throw Error("ctx.parent_as<" + std::string(detail::type_name<P>()) + ">(): the nest's parent is a " +
                  std::string(set_.vtable_->parent_type_name()) + ", not a " + std::string(detail::type_name<P>()));
    }
    return *static_cast<const P*>(p);
  }
  // pipeline() / unit_name() / unit_index() / unit_count(): the unit's place
  // in its nest, as UnitContext's (Error outside a nest).
  const PipelineInfo& pipeline() const {
    const PipelineInfo* info = set_.vtable_->pipeline(set_.context_);
    if (info == nullptr) [[unlikely]] {
      throw Error("ctx.pipeline(): this context is not a unit's context; expected a pass running inside a nest");
    }
    return *info;
  }
  std::string_view unit_name() const { return pipeline().unit_name; }
  std::size_t unit_index() const { return pipeline().unit_index; }
  std::size_t unit_count() const { return pipeline().unit_count; }

  // analysis_manager(): the wrapped context's manager, as the run-time
  // table every AnalysisManager<IR, ...> derives from (null: none).
  AnalysisManager<IR>* analysis_manager() const noexcept { return set_.vtable_->analysis_manager(set_.context_); }

  // analyses(): the wrapped context's manager seen from a pass body (SPEC
  // §10.9): the same cache, misses fire the wrapped context's analysis
  // hooks, marks go to the innermost running pass.
  //
  // For a unit type (ir_traits<IR>::parent_type), the parent's manager seen
  // from the unit a nest runs this pass on (SPEC §11.13): a
  // UnitAnalysisHandle with the members of UnitContext's; Error outside a
  // nest whose context has a manager for the parent.
  auto analyses() {
    if constexpr (HasParentType<IR>) {
      using Parent = typename ir_traits<IR>::parent_type;
      detail::NestAnalyses<Parent>* na = nest_analyses();
      if (na == nullptr) [[unlikely]] {
        throw Error(
            "ctx.analyses(): this PassContext<IR> has no analysis manager; construct it with "
            "PassContext<IR>(options, instruments, &am)");
      }
      return UnitAnalysisHandle<AnalysisManager<Parent>, detail::SinkRef<Parent>>(*na->am, na->sink, na->store);
    } else {
      AnalysisManager<IR>* am = analysis_manager();
      if (am == nullptr) [[unlikely]] {
        throw Error(
            "ctx.analyses(): this PassContext<IR> has no analysis manager; construct it with "
            "PassContext<IR>(options, instruments, &am)");
      }
      return AnalysisHandle<ContextRef>(*am, *this);
    }
  }
  // nest_analyses(): inside a nest whose context has a manager for the
  // parent, the nest run's analysis state (what run() uses, core/run.hpp); else null.
  auto nest_analyses() const noexcept
    requires HasParentType<IR>
  {
    return static_cast<detail::NestAnalyses<typename ir_traits<IR>::parent_type>*>(
        set_.vtable_->nest_analyses(set_.context_));
  }

 private:
  ErasedInstrumentSet<IR> set_;
};

}  // namespace passinfra
