// passinfra/dynamic/pass_registry.hpp — passes by name, for pipelines chosen at run time.
//
// PassOptions                                 ordered key -> ConfigValue: the options a pass is created with
// PassOptionSpec{key, type, default_value}    one option a factory takes; without a default it must be given
// get_option<T>(options, key)                 an option's value inside a factory (Error if unset or of another type)
// is_pipeline_name(name)                      name matches [A-Za-z_][A-Za-z0-9_.]* (what pipeline text can spell)
// RegistryPass<IR>                            a created pass plus the name and options it was created with
// PassRegistry<IR>                            the registry, thread-safe:
//   PassRegistry<IR>::global()                  one per IR type (independent instances are fine too)
//   reg.add<P>(description = {})                a static pass type, by P::info.name, made as P{}
//   reg.add(name, factory, options = {}, description = {})   factory(const PassOptions&) -> a pass or AnyPass<IR>
//   reg.create(name, options = {})              -> AnyPass<IR>; throws Error on bad names and options
//   reg.contains(name) / reg.names() / reg.options(name) / reg.describe()
//   reg.add_analysis<A>(description = {})       a static analysis type, by A::info.name (SPEC §10.9)
//   reg.add_analysis(AnyAnalysis<IR>, description = {})   an erased one
//   reg.analysis(name)                          -> AnyAnalysis<IR>; Error on an unknown name
//   reg.contains_analysis(name) / reg.analysis_names() / reg.describe_analyses()
//   reg.add_nest<Unit>()                        the nest kind ir_traits<Unit>::name (SPEC §11.11): in
//                                               pipeline text, kind(passes...) is a DynamicNest<IR, Unit>
//                                               whose passes come from PassRegistry<Unit>::global()
//   reg.add_nest<Unit>(unit_registry, name = ir_traits<Unit>::name)   another unit registry (it
//                                               must outlive this one) or another kind name
//   reg.contains_nest(name) / reg.nest_names()  the nest kinds (contains(name) is true for them too)
//
// create() checks the options against the registered specs (unknown key,
// wrong type: Error naming pass, key, expected and given type; an integer
// given for a double option is converted), fills in the defaults of options
// not given, and calls the factory with the result. The pass comes back
// wrapped in a RegistryPass, which remembers the name and the options as
// given, so print_pipeline (pipeline_text.hpp) can write it back as text.
//
// Required passes: a pass type with `required` types keeps them (AnyPass runs
// them statically). A pass whose info only *names* its requirements (a
// module_pass given a PassInfo with a `required` list, or a static PassInfo
// listing names) gets those names resolved through the same registry when it
// is created, each made with default options, into AnyPass(pass, {required...});
// a name missing from the registry is an Error. A factory returning an
// AnyPass<IR> is resolved when AnyPass::runs_required() says its names are only names.
//
// Analyses (SPEC §10.9): add_analysis also registers three utility passes
// for pipeline text, in the existing grammar: `require(analysis="Name")`
// (computes the analysis on the IR -- a function analysis for every
// function ir_traits<IR>::for_each_function gives -- and preserves
// everything), `invalidate(analysis="Name")` (preserves everything but that
// analysis) and `invalidate_all` (preserves nothing). Their PassInfo names,
// which hooks and timing show, are require<Name>, invalidate<Name> and
// invalidate<all>, as for RequireAnalysis<A> and friends; they print back as
// the text that made them. An unknown analysis name is an Error naming it,
// with the closest registered names (in pipeline text: at the option). The
// registry only resolves names: the pass computes through the context's
// manager, with the manager's own object for that analysis (SPEC §10.9,
// DESIGN). Under a context without a manager the three passes do nothing.
//
// Nest kinds share the names of passes: a kind and a pass of one name is an
// Error either way round; the same kind again (same unit type and registry) is
// a no-op, another one of that name an Error. names(), describe() and the
// closest names an unknown name gets list passes only.
//
// Re-registering the same pass type, or a factory of the same type (the same
// lambda, the same function pointer) with the same options, is a no-op; any
// other second registration of a name is an Error. Factories run outside the
// registry's lock, so a factory may create other registered passes.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/analysis_passes.hpp"
#include "passinfra/core/config.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/pass.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/suggest.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t
#include "passinfra/dynamic/any_analysis.hpp"
#include "passinfra/dynamic/any_pass.hpp"
#include "passinfra/dynamic/context_ref.hpp"
#include "passinfra/dynamic/dynamic_nest.hpp"

namespace passinfra {

template <class IR>
class PassRegistry;
struct PipelineNode;  // pipeline_text.hpp

namespace detail {

// What the passes of a nest are built inside (pipeline text): the unit
// kind's name and a lookup in the registry of the nest's parent.
struct NestScope {
  std::string_view unit_kind;  // "function"
  const void* parent_registry = nullptr;
  bool (*parent_contains)(const void*, std::string_view) = nullptr;
};

// build_nest<Parent, Unit>(node, text, units, parents): a nest kind's node of
// pipeline text (pipeline_text.hpp).
template <class Parent, class Unit>
AnyPass<Parent> build_nest(const PipelineNode& node, std::string_view text, const PassRegistry<Unit>& units,
                           const PassRegistry<Parent>& parents);

// NestKind<IR>: one nest kind of a PassRegistry<IR>.
template <class IR>
struct NestKind {
  std::string name;            // the kind's name in text ("function")
  std::string_view unit_kind;  // ir_traits<Unit>::name: "is a function pass"
  const std::type_info* unit_type = nullptr;
  const void* unit_registry = nullptr;
  std::function<bool(std::string_view)> unit_contains;  // the unit registry has a pass of that name
  std::function<AnyPass<IR>(const PipelineNode&, std::string_view, const PassRegistry<IR>&)> build;
};

}  // namespace detail

// PassOptions: a pass's options by key, ordered by key.
using PassOptions = std::map<std::string, ConfigValue, std::less<>>;

// PassOptionSpec{key, type, default_value}: an option a registered factory takes.
// The one specialization of a class template (issue 18): a translation unit
// that never names an option compiles none of std::optional<ConfigValue>
// (clang instantiated it for the default member initializer and operator==
// of a plain struct).
namespace detail {
template <class V = void>
struct PassOptionSpecOf {
  std::string key;
  ConfigType type = ConfigType::integer;
  dependent_t<std::optional<ConfigValue>, V> default_value{};

  friend bool operator==(const PassOptionSpecOf&, const PassOptionSpecOf&) = default;
};
}  // namespace detail

using PassOptionSpec = detail::PassOptionSpecOf<>;

namespace detail {

// is_finite(d): std::isfinite without <cmath> (NaN compares false with everything).
constexpr bool is_finite(double d) noexcept {
  return d >= std::numeric_limits<double>::lowest() && d <= std::numeric_limits<double>::max();
}

// The message of a passinfra::Error without its "passinfra: " prefix.
template <class = void>
std::string message_of(const std::exception& error) {
  std::string_view what = error.what();
  if (what.starts_with(error_prefix)) what.remove_prefix(error_prefix.size());
  return std::string(what);
}

// An Error about one option of a pass (pipeline text points at its key).
class PassOptionError : public Error {
 public:
  PassOptionError(std::string key, const std::string& message) : Error(message), key_(std::move(key)) {}
  const std::string& key() const noexcept { return key_; }

 private:
  std::string key_;
};

}  // namespace detail

// is_pipeline_name(name): [A-Za-z_][A-Za-z0-9_.]*
constexpr bool is_pipeline_name(std::string_view name) noexcept {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !alpha(name.front())) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  }
  return true;
}

// get_option<T>(options, key): the option's value; T as in config_type_of<T>.
// An integer option reads as any integer type that holds its value, a double
// one as any floating type (see read_config_value in core/config.hpp).
template <class T>
T get_option(const PassOptions& options, std::string_view key) {
  const detail::dependent_t<PassOptions, T>& given = options;
  const auto it = given.find(key);
  if (it == given.end()) {
    throw Error("get_option: option '" + std::string(key) + "' is not set; expected one of the options given: " + [&] {
      std::string keys;
      for (const auto& [k, v] : given) keys += (keys.empty() ? "'" : ", '") + k + "'";
      return keys.empty() ? std::string("(none)") : keys;
    }());
  }
  return detail::read_config_value<T>(it->second, "get_option: option", key);
}

// RegistryPass<IR>: what PassRegistry::create makes: the factory's pass, and
// the name and options (as given) it was created with. Forwards info(),
// transform() and run_required() to the pass.
template <class IR>
class RegistryPass : public CallablePass<RegistryPass<IR>> {
 public:
  RegistryPass(AnyPass<IR> pass, std::string name, detail::dependent_t<PassOptions, IR> options)
      : pass_(std::move(pass)), name_(std::move(name)), options_(std::move(options)) {}

  PassInfo info() const noexcept { return pass_.info(); }

  template <class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    return pass_.transform(std::move(ir), ctx);
  }

  template <class Ctx>
  IR run_required(IR ir, Ctx& ctx) const {
    return pass_.run_required(std::move(ir), ctx);
  }

  // What the created pass declares it preserves (SPEC §10.4).
  const PreservedAnalyses& preserved_analyses() const noexcept { return pass_.preserved_analyses(); }

  const AnyPass<IR>& pass() const noexcept { return pass_; }
  const std::string& name() const noexcept { return name_; }
  const PassOptions& options() const noexcept { return options_; }
  bool runs_required() const noexcept { return pass_.runs_required(); }
  std::size_t nesting_depth() const noexcept { return pass_.nesting_depth(); }

  // text(): the pipeline text that creates this pass, e.g. "FuseOps(fuse_opt_level=2)".
  // An option pipeline text cannot spell (an infinite or NaN double) is an Error.
  std::string text() const {
    std::string out = name_;
    if (options_.empty()) return out;
    out += '(';
    bool first = true;
    for (const auto& [key, value] : options_) {
      if (const auto* d = std::get_if<double>(&value); d && !detail::is_finite(*d)) {
        throw Error("print_pipeline: option '" + key + "' of '" + name_ + "' is " + format_option_value(value) +
                    ", which pipeline text cannot spell; expected a finite double");
      }
      if (!first) out += ',';
      first = false;
      out += key + "=" + format_option_value(value);
    }
    return out + ')';
  }

 private:
  AnyPass<IR> pass_;
  std::string name_;
  detail::dependent_t<PassOptions, IR> options_;
};

namespace detail {

// add<P>(): one readable error per mistake.
template <class P, class IR>
consteval bool check_registrable() {
  constexpr bool has_name = std::is_object_v<P> && HasStaticPassInfo<P>;
  if constexpr (!has_name) {
    static_assert(has_name,
                  "passinfra::PassRegistry<IR>::add<P>(): P must be a pass with a compile-time name "
                  "(`static constexpr passinfra::PassInfo info`); register a pass named at run time with "
                  "add(name, factory)");
    return false;
  } else if constexpr (!Pass<P>) {
    static_assert(Pass<P>,
                  "passinfra::PassRegistry<IR>::add<P>(): the pass P declares `required`, but it is not "
                  "passinfra::requires_passes<...>");
    return false;
  } else if constexpr (!std::default_initializable<P>) {
    static_assert(std::default_initializable<P>,
                  "passinfra::PassRegistry<IR>::add<P>(): add<P>() makes the pass as P{}, but P is not "
                  "default-constructible; register it with add(name, factory)");
    return false;
  } else if constexpr (!HasTransform<P, IR, ContextRef<IR>>) {
    static_assert(HasTransform<P, IR, ContextRef<IR>>,
                  "passinfra::PassRegistry<IR>::add<P>(): P has no `transform(IR, ctx&) const` that accepts a "
                  "passinfra::ContextRef<IR> (check the IR type; write the context parameter as `auto& ctx`)");
    return false;
  } else {
    return true;
  }
}

// add(name, factory, ...): one readable error per mistake.
template <class F, class IR>
consteval bool check_factory() {
  if constexpr (!std::invocable<const F&, const PassOptions&>) {
    static_assert(std::invocable<const F&, const PassOptions&>,
                  "passinfra::PassRegistry<IR>::add(name, factory, ...): factory must be callable as "
                  "factory(const passinfra::PassOptions&)");
    return false;
  } else {
    using R = std::remove_cvref_t<std::invoke_result_t<const F&, const PassOptions&>>;
    if constexpr (std::is_same_v<R, AnyPass<IR>>) {
      return true;
    } else if constexpr (!(Pass<R> && HasTransform<R, IR, ContextRef<IR>>)) {
      static_assert(Pass<R> && HasTransform<R, IR, ContextRef<IR>>,
                    "passinfra::PassRegistry<IR>::add(name, factory, ...): factory(options) must return a pass "
                    "for IR (with a `transform(IR, auto& ctx) const`) or a passinfra::AnyPass<IR>");
      return false;
    } else {
      return true;
    }
  }
}

// ---- the utility passes add_analysis registers (SPEC §10.4, §10.9) -------

// "<prefix><name>>", the PassInfo name of an erased utility pass.
template <class = void>
std::string utility_pass_name(std::string_view prefix, std::string_view analysis) {
  std::string name(prefix);
  name += analysis;
  name += '>';
  return name;
}

// require<Name>: computes the analysis on the IR (a function analysis: for
// every function the IR enumerates), changes nothing, preserves everything.
template <class IR>
class RequireNamedAnalysis {
 public:
  using preserves = passinfra::preserves_all;

  explicit RequireNamedAnalysis(AnyAnalysis<IR> analysis)
      : analysis_(std::move(analysis)), name_(utility_pass_name("require<", analysis_.name())) {}

  PassInfo info() const noexcept { return {name_, 0}; }
  const AnyAnalysis<IR>& analysis() const noexcept { return analysis_; }

  template <class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (HasAnalyses<Ctx>) {
      if (!analyses_available(ctx)) return ir;
      // Through the erased analysis's typed path, with the hooks of the
      // context: the manager computes with its own object for the analysis
      // (A{} unless one was added), the same entry get<A> and get(name) find.
      AnalysisManager<IR>& am = *ctx.analysis_manager();
      SinkRef<IR> sink(ctx.instrument_set());
      const auto* ops = analysis_.ops();
      if (!ops->function) {
        (void)ops->get(am, ir, nullptr, &sink);
      } else if constexpr (FunctionEnumerableIR<IR>) {
        ir_traits<IR>::for_each_function(
            ir, [&](const typename ir_traits<IR>::function_type& fn) { (void)ops->get(am, ir, &fn, &sink); });
      }
    }
    return ir;
  }

 private:
  AnyAnalysis<IR> analysis_;
  std::string name_;
};

// invalidate<Name>: preserves everything but the analysis (abandoned by a
// mark, so its results and those computed from them are dropped).
template <class IR>
class InvalidateNamedAnalysis {
 public:
  using preserves = passinfra::preserves_all;  // ... but the analysis, abandoned by the body

  explicit InvalidateNamedAnalysis(AnyAnalysis<IR> analysis)
      : analysis_(std::move(analysis)), name_(utility_pass_name("invalidate<", analysis_.name())) {}

  PassInfo info() const noexcept { return {name_, 0}; }
  const AnyAnalysis<IR>& analysis() const noexcept { return analysis_; }

  template <class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (HasAnalyses<Ctx>) {
      if (analyses_available(ctx)) ctx.analyses().abandon(analysis_.key());
    }
    return ir;
  }

 private:
  AnyAnalysis<IR> analysis_;
  std::string name_;
};

// Whether an AnyPass runs the passes its info().required names by itself.
template <class IR>
bool runs_own_required(const AnyPass<IR>& pass) {
  return pass.runs_required();
}

}  // namespace detail

template <class IR>
class PassRegistry {
  // The std types of the cold paths, spelled dependently (see
  // detail::dependent_t): neither compiler instantiates their members where
  // the template is defined.
  template <class X>
  using Dep = detail::dependent_t<X, IR>;

 public:
  using Factory = std::function<AnyPass<IR>(const PassOptions&)>;

  PassRegistry() = default;
  PassRegistry(const PassRegistry&) = delete;
  PassRegistry& operator=(const PassRegistry&) = delete;

  // global(): the process-wide registry of this IR type.
  static PassRegistry& global() {
    static PassRegistry registry;
    return registry;
  }

  // add<P>(description): registers P by P::info.name; create() makes P{}.
  // (NOLINT: clang-tidy 16 does not see the moves inside `if constexpr`.)
  template <class P>
  void add(std::string description = {}) {  // NOLINT(performance-unnecessary-value-param)
    if constexpr (detail::check_registrable<P, IR>()) {
      Entry entry;
      entry.name = std::string(PassInfo(P::info).name);
      entry.make = [](const PassOptions&) {
        P pass{};
        const bool names_only = needs_names(pass);
        return Made{AnyPass<IR>(std::move(pass)), names_only};
      };
      entry.description = std::move(description);
      entry.origin = &typeid(P);
      insert(std::move(entry));
    }
  }

  // add(name, factory, options, description): factory(options) makes the pass;
  // it receives the given options checked against `options`, defaults filled in.
  template <class F>
  // NOLINTNEXTLINE(performance-unnecessary-value-param): moved inside `if constexpr`, which clang-tidy 16 misses
  void add(std::string name, F factory, Dep<std::vector<PassOptionSpec>> options = {}, std::string description = {}) {
    if constexpr (detail::check_factory<F, IR>()) {
      Entry entry;
      entry.name = std::move(name);
      if constexpr (std::is_same_v<F, Factory>) {
        if (!factory) throw Error("PassRegistry::add: the factory for '" + entry.name + "' is empty");
        entry.origin = &factory.target_type();
        if (auto* fn = factory.template target<AnyPass<IR> (*)(const PassOptions&)>()) {
          entry.origin_function = reinterpret_cast<void (*)()>(*fn);
        }
      } else if constexpr (std::is_pointer_v<F> && std::is_function_v<std::remove_pointer_t<F>>) {
        if (factory == nullptr) throw Error("PassRegistry::add: the factory for '" + entry.name + "' is null");
        entry.origin = &typeid(F);
        entry.origin_function = reinterpret_cast<void (*)()>(factory);
      } else {
        entry.origin = &typeid(F);
      }
      entry.make = [f = std::move(factory)](const PassOptions& opts) { return make_with(f, opts); };
      entry.options = std::move(options);
      entry.description = std::move(description);
      insert(std::move(entry));
    }
  }

  // add_analysis<A>(description): registers the static analysis A by
  // A::info.name (SPEC §10.9), and the utility passes require, invalidate
  // and invalidate_all (see the header comment).
  template <class A>
  void add_analysis(std::string description = {}) {  // NOLINT(performance-unnecessary-value-param)
    static_assert(Analysis<A>,
                  "passinfra::PassRegistry<IR>::add_analysis<A>(): A is not an analysis: it needs static constexpr "
                  "AnalysisInfo info, using result_type = ..., and run(const IR&, deps&) const or run(const Fn&, "
                  "const IR&, deps&) const");
    static_assert(std::default_initializable<A>,
                  "passinfra::PassRegistry<IR>::add_analysis<A>(): add_analysis<A>() makes the analysis as A{}, but "
                  "A is not default-constructible; register add_analysis(AnyAnalysis<IR>(A{...}))");
    if constexpr (Analysis<A> && std::default_initializable<A>) {
      add_analysis(AnyAnalysis<IR>(A{}), std::move(description));
    }
  }

  // add_analysis(analysis, description): registers an erased analysis by its
  // name. The same analysis again is a no-op; another one of that name is an Error.
  void add_analysis(AnyAnalysis<IR> analysis, std::string description = {}) {
    const std::string name(analysis.name());
    if (name.empty()) {
      throw Error("PassRegistry::add_analysis: the analysis of type " + std::string(analysis.key().type_name()) +
                  " has an empty name; expected a name in its AnalysisInfo");
    }
    try {
      add_utility_passes();
    } catch (const Error& error) {
      throw Error("PassRegistry::add_analysis: analysis '" + name + "': " + detail::message_of(error) +
                  " (add_analysis registers the passes 'require', 'invalidate' and 'invalidate_all' for "
                  "pipeline text)");
    }
    detail::LightLock lock(mutex_);
    auto it = analyses_.find(name);
    if (it != analyses_.end()) {
      if (it->second.analysis.key() == analysis.key()) return;  // the same analysis again
      throw Error("PassRegistry::add_analysis: analysis '" + name + "' is already registered by another analysis (" +
                  std::string(it->second.analysis.key().type_name()) + ", not " +
                  std::string(analysis.key().type_name()) + "); expected each analysis name to be registered once");
    }
    analyses_.emplace(name, AnalysisEntry{std::move(analysis), std::move(description)});
  }

  // analysis(name): the registered analysis; Error (SPEC §10.8) if unknown.
  AnyAnalysis<IR> analysis(std::string_view name) const {
    detail::LightLock lock(mutex_);
    auto it = analyses_.find(name);
    if (it == analyses_.end()) throw Error(unknown_analysis_message(name));
    return it->second.analysis;
  }

  bool contains_analysis(std::string_view name) const {
    detail::LightLock lock(mutex_);
    return analyses_.find(name) != analyses_.end();
  }

  // describe_analyses(): one line per analysis, sorted: name (function analysis) - description
  std::string describe_analyses() const {
    detail::LightLock lock(mutex_);
    std::string out;
    for (const auto& [name, entry] : analyses_) {
      out += name;
      if (entry.analysis.is_function()) out += " (function analysis)";
      if (!entry.description.empty()) out += " - " + entry.description;
      out += '\n';
    }
    return out;
  }

  // analysis_names(): the registered analyses' names, sorted.
  std::vector<std::string> analysis_names() const {
    detail::LightLock lock(mutex_);
    Dep<std::vector<std::string>> out;
    out.reserve(analyses_.size());
    for (const auto& [name, entry] : analyses_) out.push_back(name);
    return out;
  }

  // add_nest<Unit>(): the nest kind ir_traits<Unit>::name, whose passes are
  // resolved in PassRegistry<Unit>::global() (SPEC §11.11).
  template <class Unit>
  void add_nest() {
    add_nest<Unit>(PassRegistry<Unit>::global());
  }
  // add_nest<Unit>(unit_registry, name): the same over another registry of
  // unit passes (it must outlive this registry), or under another kind name.
  template <class Unit>
  // (NOLINT: clang-tidy 16 does not see the move inside `if constexpr`.)
  void add_nest(
      const PassRegistry<Unit>& unit_registry,
      std::string name = std::string(unit_kind_name<Unit>())) {  // NOLINT(performance-unnecessary-value-param)
    static_assert(NestableIR<IR, Unit>,
                  "passinfra::PassRegistry<IR>::add_nest<Unit>(): IR cannot be split into these units; specialize "
                  "passinfra::unit_traits<IR, Unit> (units and replace_units)");
    if constexpr (NestableIR<IR, Unit>) {
      auto kind = std::make_shared<detail::NestKind<IR>>();
      kind->name = std::move(name);
      kind->unit_kind = unit_kind_name<Unit>();
      kind->unit_type = &typeid(Unit);
      kind->unit_registry = &unit_registry;
      kind->unit_contains = [units = &unit_registry](std::string_view n) { return units->contains(n); };
      kind->build = [units = &unit_registry](const PipelineNode& node, std::string_view text,
                                             const PassRegistry<IR>& parents) {
        return detail::build_nest<IR, Unit>(node, text, *units, parents);
      };
      insert_nest(std::move(kind));
    }
  }

  // contains_nest(name): a nest kind of that name is registered.
  bool contains_nest(std::string_view name) const {
    detail::LightLock lock(mutex_);
    return nests_.find(name) != nests_.end();
  }
  // nest_names(): the nest kinds' names, sorted.
  std::vector<std::string> nest_names() const {
    detail::LightLock lock(mutex_);
    Dep<std::vector<std::string>> out;
    for (const auto& [name, kind] : nests_) out.push_back(name);
    return out;
  }
  // nest_kind(name): the nest kind (null if none); what pipeline text builds with.
  std::shared_ptr<const detail::NestKind<IR>> nest_kind(std::string_view name) const {
    detail::LightLock lock(mutex_);
    auto it = nests_.find(name);
    return it == nests_.end() ? nullptr : it->second;
  }
  // unit_level_kind(name): a nest kind whose unit registry has a pass called
  // `name` (null if none), for "nest it" errors: one named as its unit kind
  // first, else the first by name.
  std::shared_ptr<const detail::NestKind<IR>> unit_level_kind(std::string_view name) const {
    std::vector<std::shared_ptr<const detail::NestKind<IR>>> kinds;
    {
      detail::LightLock lock(mutex_);
      for (const auto& [k, kind] : nests_) kinds.push_back(kind);
    }
    std::shared_ptr<const detail::NestKind<IR>> found;
    for (const auto& kind : kinds) {
      if (!kind->unit_contains(name)) continue;
      if (kind->name == kind->unit_kind) return kind;
      if (!found) found = kind;
    }
    return found;
  }

  // create(name, options): the registered pass, as an AnyPass<IR> holding a RegistryPass<IR>.
  AnyPass<IR> create(std::string_view name, const Dep<PassOptions>& options = {}) const {
    return create_impl(name, options, true);
  }

  // contains(name): a pass or a nest kind of that name is registered.
  bool contains(std::string_view name) const {
    detail::LightLock lock(mutex_);
    return entries_.find(name) != entries_.end() || nests_.find(name) != nests_.end();
  }

  // names(): the registered names, sorted.
  std::vector<std::string> names() const {
    detail::LightLock lock(mutex_);
    Dep<std::vector<std::string>> out;
    out.reserve(entries_.size());
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }

  // options(name): the option specs of a registered pass (Error if unknown).
  Dep<std::vector<PassOptionSpec>> options(std::string_view name) const { return entry_or_throw(name)->options; }

  // describe(): one line per pass: name(key: type = default, ...) - description
  // (the lines of require and invalidate end with the registered analyses' names)
  std::string describe() const {
    std::vector<std::shared_ptr<const Entry>> entries;
    std::string analyses;
    {
      detail::LightLock lock(mutex_);
      for (const auto& [name, entry] : entries_) entries.push_back(entry);
      for (const auto& [name, entry] : analyses_) analyses += (analyses.empty() ? "" : ", ") + name;
    }
    std::string out;
    for (const auto& entry : entries) {
      out += entry->name;
      if (!entry->options.empty()) {
        out += '(';
        for (std::size_t i = 0; i < entry->options.size(); ++i) {
          const auto& spec = entry->options[i];
          if (i) out += ", ";
          out += spec.key + ": " + std::string(to_string(spec.type));
          if (spec.default_value) out += " = " + format_option_value(*spec.default_value);
        }
        out += ')';
      }
      if (!entry->description.empty()) out += " - " + entry->description;
      // add_analysis made sure these two names are its utility passes.
      if (!analyses.empty() && (entry->name == "require" || entry->name == "invalidate")) {
        out += "; analyses: " + analyses;
      }
      out += '\n';
    }
    return out;
  }

 private:
  struct Made {
    AnyPass<IR> pass;
    bool names_only;  // info().required names passes that the pass itself does not run
  };

  struct Entry {
    std::string name;
    std::function<Made(const PassOptions&)> make;
    Dep<std::vector<PassOptionSpec>> options;
    std::string description;
    const std::type_info* origin = nullptr;
    void (*origin_function)() = nullptr;
  };

  template <class P>
  static bool needs_names(const P& pass) {
    if constexpr (required_passes_t<P>::size > 0) {
      return false;
    } else {
      return !info_of<P>(pass).required.empty();
    }
  }

  template <class F>
  static Made make_with(const F& factory, const PassOptions& options) {
    using R = std::remove_cvref_t<std::invoke_result_t<const F&, const PassOptions&>>;
    if constexpr (std::is_same_v<R, AnyPass<IR>>) {
      AnyPass<IR> pass = factory(options);
      const bool names_only = !pass.info().required.empty() && !detail::runs_own_required(pass);
      return Made{std::move(pass), names_only};
    } else {
      R pass = factory(options);
      const bool names_only = needs_names(pass);
      return Made{AnyPass<IR>(std::move(pass)), names_only};
    }
  }

  void insert(Entry entry) {
    const std::string& name = entry.name;
    if (!is_pipeline_name(name)) {
      throw Error("PassRegistry::add: '" + name +
                  "' is not a valid pass name; expected a name of the form [A-Za-z_][A-Za-z0-9_.]*");
    }
    if (name == "sequential") {
      throw Error("PassRegistry::add: 'sequential' is reserved for pipelines; expected another pass name");
    }
    for (std::size_t i = 0; i < entry.options.size(); ++i) {
      auto& spec = entry.options[i];
      if (!is_pipeline_name(spec.key)) {
        throw Error("PassRegistry::add: pass '" + name + "': '" + spec.key +
                    "' is not a valid option key; expected a name of the form [A-Za-z_][A-Za-z0-9_.]*");
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (entry.options[j].key == spec.key) {
          throw Error("PassRegistry::add: pass '" + name + "': option '" + spec.key +
                      "' is listed twice; expected each option once");
        }
      }
      if (spec.default_value) {
        const ConfigType given = config_type_of(*spec.default_value);
        if (spec.type == ConfigType::floating && given == ConfigType::integer) {
          spec.default_value = static_cast<double>(std::get<std::int64_t>(*spec.default_value));
        } else if (given != spec.type) {
          throw Error("PassRegistry::add: pass '" + name + "': the default of option '" + spec.key + "' is " +
                      detail::type_with_article(given) + ", but the option expects " +
                      detail::type_with_article(spec.type));
        }
      }
    }
    detail::LightLock lock(mutex_);
    if (nests_.find(name) != nests_.end()) {
      throw Error("PassRegistry::add: '" + name +
                  "' is already registered as a nest kind; expected each name to be registered once");
    }
    auto it = entries_.find(name);
    if (it != entries_.end()) {
      const Entry& old = *it->second;
      if (*old.origin == *entry.origin && old.origin_function == entry.origin_function &&
          old.options == entry.options) {
        return;  // the same registration again
      }
      throw Error("PassRegistry::add: pass '" + name +
                  "' is already registered by a different pass type, factory or option list; expected each "
                  "name to be registered once");
    }
    auto key = entry.name;
    entries_.emplace(std::move(key), std::make_shared<const Entry>(std::move(entry)));
  }

  void insert_nest(std::shared_ptr<detail::NestKind<IR>> kind) {
    const std::string& name = kind->name;
    if (!is_pipeline_name(name)) {
      throw Error("PassRegistry::add_nest: '" + name +
                  "' is not a valid nest kind name; expected a name of the form [A-Za-z_][A-Za-z0-9_.]*");
    }
    if (name == "sequential") {
      throw Error("PassRegistry::add_nest: 'sequential' is reserved for pipelines; expected another nest kind name");
    }
    detail::LightLock lock(mutex_);
    if (entries_.find(name) != entries_.end()) {
      throw Error("PassRegistry::add_nest: '" + name +
                  "' is already registered as a pass; expected each name to be registered once");
    }
    auto it = nests_.find(name);
    if (it != nests_.end()) {
      if (*it->second->unit_type == *kind->unit_type && it->second->unit_registry == kind->unit_registry) {
        return;  // the same nest kind again
      }
      throw Error("PassRegistry::add_nest: nest kind '" + name +
                  "' is already registered over another unit type or unit registry; expected each name to be "
                  "registered once");
    }
    auto key = name;
    nests_.emplace(std::move(key), std::move(kind));
  }

  std::shared_ptr<const Entry> find(std::string_view name) const {
    detail::LightLock lock(mutex_);
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : it->second;
  }

  // Under the lock, over views of the names (not a copy of them all).
  std::string suggestions(std::string_view name) const {
    detail::LightLock lock(mutex_);
    Dep<std::vector<std::string_view>> keys;
    keys.reserve(entries_.size());
    for (const auto& [key, entry] : entries_) keys.push_back(key);
    return detail::suggestion_text(name, keys, "names");
  }

  std::shared_ptr<const Entry> entry_or_throw(std::string_view name) const {
    auto entry = find(name);
    if (!entry) {
      throw Error("unknown pass name '" + detail::clipped(name) + "'; expected a registered pass name" +
                  suggestions(name));
    }
    return entry;
  }

  // The options the factory receives: given ones checked (and integers made
  // doubles where a double is expected), then the defaults of the others.
  static Dep<PassOptions> checked_options(const Entry& entry, const Dep<PassOptions>& given) {
    const std::string& name = entry.name;
    Dep<PassOptions> out;
    for (const auto& [key, value] : given) {
      const Dep<PassOptionSpec>* spec = nullptr;
      for (const auto& s : entry.options) {
        if (s.key == key) spec = &s;
      }
      if (!spec) {
        if (entry.options.empty()) {
          throw detail::PassOptionError(
              key, "pass '" + name + "' takes no options, but was given option '" + detail::clipped(key) + "'");
        }
        Dep<std::vector<std::string_view>> keys;
        for (const auto& s : entry.options) keys.push_back(s.key);
        throw detail::PassOptionError(key, "pass '" + name + "' has no option '" + detail::clipped(key) +
                                               "'; expected an option of '" + name + "'" +
                                               detail::suggestion_text(key, keys, "options"));
      }
      const ConfigType have = config_type_of(value);
      if (spec->type == ConfigType::floating && have == ConfigType::integer) {
        out.emplace(key, static_cast<double>(std::get<std::int64_t>(value)));
      } else if (have != spec->type) {
        throw detail::PassOptionError(
            key, "pass '" + name + "': option '" + key + "' expects " + detail::type_with_article(spec->type) +
                     ", but was given " + detail::type_with_article(have) + " (" + format_option_value(value) + ")");
      } else {
        out.emplace(key, value);
      }
    }
    for (const auto& spec : entry.options) {
      if (out.contains(spec.key)) continue;
      if (!spec.default_value) {
        throw detail::PassOptionError(spec.key, "pass '" + name + "' requires option '" + spec.key + "' (" +
                                                    detail::type_with_article(spec.type) +
                                                    "), which was not given; expected " + name + "(" + spec.key +
                                                    "=...)");
      }
      out.emplace(spec.key, *spec.default_value);
    }
    return out;
  }

  AnyPass<IR> create_impl(std::string_view name, const PassOptions& given, bool resolve) const {
    const auto entry = entry_or_throw(name);
    Made made = entry->make(checked_options(*entry, given));
    RegistryPass<IR> pass(std::move(made.pass), entry->name, given);
    if (!resolve || !made.names_only) return AnyPass<IR>(std::move(pass));

    const PassInfo info = pass.info();
    const Dep<std::vector<std::string>> required(info.required.begin(), info.required.end());
    std::vector<AnyPass<IR>> passes;
    passes.reserve(required.size());
    for (const auto& r : required) {
      if (!find(r)) {
        throw Error("pass '" + entry->name + "' requires '" + r +
                    "', which is not registered; expected a registered pass name" + suggestions(r));
      }
      try {
        // One level deep (SPEC §4): a required pass's own requirements never run.
        passes.push_back(create_impl(r, {}, false));
      } catch (const Error& error) {
        throw Error("pass '" + entry->name + "' requires '" + r +
                    "', which cannot be created: " + detail::message_of(error));
      }
    }
    return AnyPass<IR>(std::move(pass), std::move(passes));
  }

  struct AnalysisEntry {
    AnyAnalysis<IR> analysis;
    std::string description;
  };

  // SPEC §10.8: "unknown analysis 'CalGraph'; did you mean 'CallGraph'? registered: ...".
  // Called with the lock held.
  std::string unknown_analysis_message(std::string_view name) const {
    Dep<std::vector<std::string_view>> names;
    names.reserve(analyses_.size());
    for (const auto& [key, entry] : analyses_) names.push_back(key);
    std::string message = "unknown analysis '" + detail::clipped(name) + "'";
    // A guess only when it is close: a third of the name's letters wrong at
    // most (two for short names), or one name containing the other.
    const auto close = detail::closest_names(name, names, 1);
    if (!close.empty()) {
      const std::string_view input = name.substr(0, detail::max_quoted_length);
      const std::string_view guess = std::string_view(close.front()).substr(0, detail::max_quoted_length);
      const bool contains = guess.find(input) != std::string_view::npos || input.find(guess) != std::string_view::npos;
      if (contains || detail::edit_distance(input, guess) <= std::max<std::size_t>(2, input.size() / 3)) {
        message += "; did you mean '" + detail::clipped(close.front()) + "'?";
      }
    }
    message += " registered: ";
    if (names.empty()) message += "(none)";
    for (std::size_t i = 0; i < names.size(); ++i) message += (i ? ", " : "") + detail::clipped(names[i]);
    return message;
  }

  // The analysis an `analysis="Name"` option names, for the utility passes'
  // factories (an unknown one: an Error at the option, in pipeline text).
  AnyAnalysis<IR> analysis_option(const PassOptions& options) const {
    const auto name = get_option<Dep<std::string>>(options, "analysis");
    detail::LightLock lock(mutex_);
    auto it = analyses_.find(name);
    if (it == analyses_.end()) {
      throw detail::PassOptionError("analysis", unknown_analysis_message(name));
    }
    return it->second.analysis;
  }

  // require, invalidate, invalidate_all: registered once (the same
  // factories again are a no-op, see insert).
  void add_utility_passes() {
    const Dep<std::vector<PassOptionSpec>> analysis_spec{Dep<PassOptionSpec>{"analysis", ConfigType::string}};
    add(
        "require",
        [this](const PassOptions& options) {
          AnyAnalysis<IR> analysis = analysis_option(options);
          if constexpr (!FunctionEnumerableIR<IR>) {
            if (analysis.is_function()) {
              throw detail::PassOptionError("analysis",
                                            "pass 'require': analysis '" + std::string(analysis.name()) +
                                                "' is a function analysis; computing it for every function needs "
                                                "ir_traits<IR>::for_each_function(const IR&, f)");
            }
          }
          return AnyPass<IR>(detail::RequireNamedAnalysis<IR>(std::move(analysis)));
        },
        analysis_spec, "compute a registered analysis and cache it (runs as require<Name>)");
    add(
        "invalidate",
        [this](const PassOptions& options) {
          return AnyPass<IR>(detail::InvalidateNamedAnalysis<IR>(analysis_option(options)));
        },
        analysis_spec, "drop a registered analysis's cached results (runs as invalidate<Name>)");
    add(
        "invalidate_all", [](const PassOptions&) { return AnyPass<IR>(InvalidateAllAnalyses{}); }, {},
        "drop every cached analysis result (runs as invalidate<all>)");
  }

  mutable detail::LightMutex mutex_;
  std::map<std::string, std::shared_ptr<const Entry>, std::less<>> entries_;
  std::map<std::string, AnalysisEntry, std::less<>> analyses_;
  std::map<std::string, std::shared_ptr<const detail::NestKind<IR>>, std::less<>> nests_;
};

}  // namespace passinfra

// Nest kinds build their nodes with pipeline_text.hpp's detail::build_nest.
#include "passinfra/dynamic/pipeline_text.hpp"
