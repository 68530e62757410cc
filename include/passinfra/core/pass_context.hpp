// passinfra/core/pass_context.hpp — where passes run: options and instruments (SPEC §2, §5).
//
// PassContextOptions{opt_level = 2, required_pass, disabled_pass, config, executor}
// PassContext<IR, Instruments, Analyses = NoAnalysisManager>
//                                     Instruments: InstrumentSet<...> (static) or
//                                     DynamicInstruments<IR> (the default: PassContext<IR>);
//                                     Analyses: an AnalysisManager<IR, ...> held by reference
// make_pass_context<IR>(options, instruments...)   std::ref(x) held by reference
// make_pass_context<IR>(options, am, instruments...)   the same, with an analysis manager
// PassContext<IR>(options, instruments, &am)       (dynamic) with any AnalysisManager<IR> (or null)
// ctx.analyses()                      AnalysisHandle (SPEC §10); NoAnalysisManager without a
//                                     manager (static: compile-time error on use; dynamic with a
//                                     null manager: passinfra::Error)
// ctx.analysis_manager()              the manager (a pointer; may be null in a dynamic context)
// ctx.opt_level() / required_pass() / disabled_pass() / config()
// ctx.pass_enabled(info)              SPEC §2 PassEnabled
// ctx.is_required(name)               name is in required_pass (skips should_run, SPEC §3)
// ctx.get_config<T>(key, default) / ctx.get_config(ConfigKey<T>)
// ctx.executor()                      where parallel nests run (an ExecutorRef; empty: serial)
// ctx.instruments()                   the Instruments object
// ctx.enter() -> Scope                enter hooks, then (dynamic) push; RAII exit
// ctx.with(f) -> f()'s result         the same, around a call
// PassContext<IR>::current()          (dynamic) top of this thread's stack, or its default context
// ctx.override_instruments(list)      (dynamic) old exits, install, new enters (SPEC §2)
//
// One class template, one set of rules. A static context's instrument set is
// a type, so an empty set costs nothing and its scopes compile to nothing.
// Only dynamic contexts (PassContext<IR>) are pushed on the per-thread stack
// that current() reads: one stack per IR type per thread. Options are fixed
// at construction, which keeps PassEnabled to one compare when no names are
// listed, and O(1) per pass when many are (a list longer than
// detail::name_index_threshold, 16, is hashed once, at construction). A
// context is neither copyable nor movable (scopes and the stack point at
// it); make_pass_context returns it by guaranteed copy elision.
//
// Scopes: the Scope's destructor exits the context. If an exit hook throws
// and no other exception is leaving the scope, it propagates (SPEC §5.2);
// if one is, that one wins and the exit's is logged and dropped (SPEC §5.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/mp11/list.hpp>

#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/analysis_manager.hpp"
#include "passinfra/core/config.hpp"
#include "passinfra/core/error.hpp"
#include "passinfra/core/executor.hpp"
#include "passinfra/core/instrument_set.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/detail/compiled.hpp"
#include "passinfra/detail/inline.hpp"

namespace passinfra {

template <class IR>
class DynamicInstruments;  // passinfra/dynamic/dynamic_instruments.hpp

struct PassContextOptions {
  int opt_level = 2;
  std::vector<std::string> required_pass{};
  std::vector<std::string> disabled_pass{};
  Config config{};
  ExecutorRef executor{};  // parallel nests run on it (SPEC §11.4); none: every nest is serial, as TVM
};

namespace detail {

template <class IR, class... Is>
consteval bool check_instruments(boost::mp11::mp_list<Is...>) {
  return (check_instrument<unwrapped_t<Is>, IR>() && ...);
}

template <class Instruments>
struct instrument_set_of {
  using type = InstrumentSet<Instruments>;
};
template <class... Is>
struct instrument_set_of<InstrumentSet<Is...>> {
  using type = InstrumentSet<Is...>;
};

struct NotAnInstrumentList {};
template <class Instruments>
struct list_type_of {
  using type = NotAnInstrumentList;
};
template <InstrumentList Instruments>
struct list_type_of<Instruments> {
  using type = typename Instruments::list_type;
};
template <class Instruments>
using list_type_t = typename list_type_of<Instruments>::type;

template <class Ctx>
std::vector<Ctx*>& context_stack() {
  thread_local std::vector<Ctx*> stack;
  return stack;
}

// Whether a list of pass names holds an empty one (PassContextOptions
// requires names).
template <class = void>
bool has_empty_name(const std::vector<std::string>& names) noexcept {
  for (const auto& name : names) {
    if (name.empty()) return true;
  }
  return false;
}
PASSINFRA_COLD_INSTANCE(bool has_empty_name<void>(const std::vector<std::string>&) noexcept)

// reject_options(opt_level, required): throws the Error for the first bad
// field of PassContextOptions (called only when one is: opt_level, else
// required_pass if it holds an empty name, else disabled_pass). Cold,
// and a template so that a translation unit compiles its messages only when
// it makes a context; one function for every message keeps what a context's
// constructor compiles small (issue 18: the constructor's inlined messages
// were most of the cost of a translation unit that makes one context).
// (The message through throw_error: no std::string member to compile.)
template <class = void>
[[noreturn, gnu::cold, gnu::noinline]] void reject_options(int opt_level, const std::vector<std::string>& required) {
  if (opt_level < 0) {
    throw_error({"PassContextOptions::opt_level is ", DecimalText(opt_level).view(),
                 "; expected a non-negative level (TVM uses 0 to 4)"});
  }
  throw_error({"PassContextOptions::", has_empty_name(required) ? "required_pass" : "disabled_pass",
               " contains an empty name; expected pass names"});
}
PASSINFRA_COLD_INSTANCE(void reject_options<void>(int, const std::vector<std::string>&))

// check_options(options): what a context's constructor checks, out of its
// way: throws the Error for the first bad field (reject_options), then
// validates the config (check_config: validate_config, through the registry's
// pointer, which may convert a value to its option's type).
template <class = void>
[[gnu::noinline]] void check_options(PassContextOptions& options) {
  if (options.opt_level < 0 || has_empty_name(options.required_pass) || has_empty_name(options.disabled_pass))
      [[unlikely]] {
    reject_options(options.opt_level, options.required_pass);
  }
  check_config(options.config);
}
PASSINFRA_COLD_INSTANCE(void check_options<void>(PassContextOptions&))

// Lists of pass names longer than this are looked up through a hash table
// built once with the context (shorter ones by a linear search, which is
// cheaper for a few names): PassEnabled stays O(1) per pass however many
// names required_pass / disabled_pass hold.
inline constexpr std::size_t name_index_threshold = 16;

// NameIndex: an open-addressing hash table of the names of a list (indexes
// into it), empty for a list of at most name_index_threshold names. Written
// here rather than std::unordered_set so that core.hpp stays free of
// <memory> and <unordered_set> (tests/headers/core_is_light.cpp). A class
// template (one instance, NameIndex below): its members, and the vector's,
// compile only in a translation unit that makes a context (the constructor
// and contains() defined below the class: in the compiled mode, not at all).
template <class = void>
class NameIndexOf {
 public:
  NameIndexOf() = default;
  explicit NameIndexOf(const std::vector<std::string>& names);
  NameIndexOf(const NameIndexOf&) = delete;
  NameIndexOf& operator=(const NameIndexOf&) = delete;
  ~NameIndexOf() { delete[] slots_; }
  // Whether `names`, the list the index was built from, holds `name`: a
  // lookup in the table, or a linear search of a short list (no table).
  bool contains(const std::vector<std::string>& names, std::string_view name) const noexcept;

 private:
  static constexpr std::size_t kEmpty = static_cast<std::size_t>(-1);
  static std::size_t hash(std::string_view s) noexcept {  // FNV-1a, 64-bit
    std::uint64_t h = 14695981039346656037ULL;
    for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
  // A plain array, not a vector: a context's constructor builds the index,
  // and every translation unit that makes one compiles it (issue 18).
  std::size_t* slots_ = nullptr;
  std::size_t mask_ = 0;  // the array's size - 1
};

// Not inlined: a context's constructor builds two indexes, and clang inlined
// this into it twice (issue 18: context.cpp -46 M compiler instructions on
// clang, 1.5%; g++ did not inline it).
template <class V>
[[gnu::noinline]] NameIndexOf<V>::NameIndexOf(const std::vector<std::string>& names) {
  if (names.size() <= name_index_threshold) return;
  std::size_t size = 1;
  while (size < 2 * names.size()) size *= 2;  // load factor <= 1/2
  slots_ = new std::size_t[size];
  mask_ = size - 1;
  for (std::size_t at = 0; at < size; ++at) slots_[at] = kEmpty;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::size_t at = hash(names[i]) & mask_;
    while (slots_[at] != kEmpty) at = (at + 1) & mask_;
    slots_[at] = i;
  }
}

template <class V>
bool NameIndexOf<V>::contains(const std::vector<std::string>& names, std::string_view name) const noexcept {
  if (slots_ == nullptr) {
    for (const auto& n : names) {
      if (n == name) return true;
    }
    return false;
  }
  const std::size_t mask = mask_;
  for (std::size_t at = hash(name) & mask; slots_[at] != kEmpty; at = (at + 1) & mask) {
    if (names[slots_[at]] == name) return true;
  }
  return false;
}

PASSINFRA_COLD_INSTANCE(class NameIndexOf<void>)

using NameIndex = NameIndexOf<>;

// OptLevelGate: the gate of a context that lists no names (no required_pass,
// no disabled_pass): PassEnabled is the opt_level compare, and no name is
// required, so should_run is never skipped.
struct OptLevelGate {
  int opt_level;
  PASSINFRA_ALWAYS_INLINE bool pass_enabled(const PassInfo& info) const noexcept { return opt_level >= info.opt_level; }
  PASSINFRA_ALWAYS_INLINE static constexpr bool is_required(std::string_view) noexcept { return false; }
};

}  // namespace detail

// PassGate: a snapshot of a context's PassEnabled / required_pass state.
// Options are fixed at construction, so a pipeline may keep one in
// registers for all its children instead of re-reading the context after
// every hook (which the optimizer must assume could have changed it).
// When no names are listed, opt_level_gate() is the same gate reduced to
// the opt_level compare, which pipelines use for their common case.
template <class Ctx>
class PassGate {
 public:
  PASSINFRA_ALWAYS_INLINE explicit PassGate(const Ctx& ctx) noexcept
      : ctx_(&ctx), opt_level_(ctx.opt_level()), names_listed_(ctx.names_listed()), has_required_(ctx.has_required()) {}

  PASSINFRA_ALWAYS_INLINE bool pass_enabled(const PassInfo& info) const noexcept {
    if (names_listed_) [[unlikely]]
      return ctx_->pass_enabled(info);
    return opt_level_ >= info.opt_level;
  }
  PASSINFRA_ALWAYS_INLINE bool is_required(std::string_view name) const noexcept {
    if (!has_required_) [[likely]]
      return false;
    return ctx_->is_required(name);
  }
  // names_listed(): whether required_pass or disabled_pass names anything;
  // when not, opt_level_gate() answers every question this gate answers.
  PASSINFRA_ALWAYS_INLINE bool names_listed() const noexcept { return names_listed_; }
  PASSINFRA_ALWAYS_INLINE detail::OptLevelGate opt_level_gate() const noexcept { return {opt_level_}; }

 private:
  const Ctx* ctx_;
  int opt_level_;
  bool names_listed_;
  bool has_required_;
};

namespace detail {
struct NoManagerPointer {};
template <class M, class IR>
inline constexpr bool manager_is_for = true;  // NoAnalysisManager
template <class MIR, class L, class IR>
inline constexpr bool manager_is_for<AnalysisManager<MIR, L>, IR> = std::is_same_v<MIR, IR>;
}  // namespace detail

template <class IR, class Instruments = DynamicInstruments<IR>, class Analyses = NoAnalysisManager>
class PassContext {
  static_assert(std::is_move_constructible_v<IR>, "passinfra::PassContext<IR, ...>: IR must be move-constructible");

 public:
  using ir_type = IR;
  using instruments_type = Instruments;
  using instrument_set_type = typename detail::instrument_set_of<Instruments>::type;
  static constexpr bool is_dynamic = std::is_same_v<Instruments, DynamicInstruments<IR>>;
  // A context holds a manager pointer when it is dynamic (maybe null) or made with a manager.
  static constexpr bool has_analysis_manager = is_dynamic || !std::is_same_v<Analyses, NoAnalysisManager>;
  using analysis_manager_type =
      std::conditional_t<std::is_same_v<Analyses, NoAnalysisManager>, AnalysisManager<IR>, Analyses>;
  // A static context's manager is a reference (never null); a dynamic one's may be null.
  static constexpr bool analysis_manager_may_be_null = is_dynamic;
  static_assert(std::is_same_v<Analyses, NoAnalysisManager> || detail::is_analysis_manager<Analyses>,
                "passinfra::PassContext<IR, Instruments, Analyses>: Analyses must be an AnalysisManager<IR, ...>");
  static_assert(detail::manager_is_for<Analyses, IR>,
                "passinfra::PassContext<IR, Instruments, Analyses>: the analysis manager is for another IR type");

  static_assert(detail::reported(detail::check_instruments<IR>(typename instrument_set_type::element_types{})));

  class [[nodiscard]] Scope {
   public:
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() noexcept(false) {
      if constexpr (has_scope_work) {
        if (context_ != nullptr) context_->leave(std::uncaught_exceptions() > uncaught_at_entry_);
      }
    }

   private:
    friend class PassContext;
    // Leaves now rather than at the end of the scope (with()).
    void leave() {
      if constexpr (has_scope_work) {
        PassContext* context = context_;
        context_ = nullptr;
        context->leave(std::uncaught_exceptions() > uncaught_at_entry_);
      }
    }
    explicit Scope([[maybe_unused]] PassContext& context) {
      if constexpr (has_scope_work) {
        context_ = &context;
        uncaught_at_entry_ = std::uncaught_exceptions();
      }
    }
    PassContext* context_ = nullptr;
    int uncaught_at_entry_ = 0;
  };

  PassContext() : PassContext(detail::dependent_t<PassContextOptions, IR>{}) {}

  // (The options moved through a dependent type: clang would define their move
  // constructor where this template is defined, in every TU. Issue 18.)
  explicit PassContext(PassContextOptions options, Instruments instruments = Instruments{})
      : options_(static_cast<detail::dependent_t<PassContextOptions, IR>&&>(options)),
        required_index_(options_.required_pass),  // (indexes into the lists, which never change)
        disabled_index_(options_.disabled_pass),
        instruments_(std::move(instruments)) {
    detail::check_options(options_);
    has_required_ = !options_.required_pass.empty();
    names_listed_ = has_required_ || !options_.disabled_pass.empty();
  }

  // With an analysis manager (held by pointer; it outlives the context). A
  // dynamic context accepts null (analyses() then throws).
  PassContext(PassContextOptions options, Instruments instruments, analysis_manager_type* am)
    requires has_analysis_manager
      : PassContext(std::move(options), std::move(instruments)) {
    if (!is_dynamic && am == nullptr) {
      throw Error(
          "PassContext(options, instruments, am): a static context's analysis manager is null; pass one "
          "(or use make_pass_context<IR>(options, instruments...) for none)");
    }
    analysis_manager_ = am;
  }

  PassContext(const PassContext&) = delete;
  PassContext& operator=(const PassContext&) = delete;

  // analysis_manager(): the manager this context's passes use (null: none).
  analysis_manager_type* analysis_manager() const noexcept
    requires has_analysis_manager
  {
    return analysis_manager_;
  }

  // analyses(): SPEC §10. A static context made without a manager returns
  // NoAnalysisManager, whose every member is a compile-time error.
  auto analyses() {
    if constexpr (!has_analysis_manager) {
      return NoAnalysisManager{};
    } else {
      // A static context's manager was given by reference: never null.
      if (is_dynamic && analysis_manager_ == nullptr) [[unlikely]] {
        throw Error(
            "ctx.analyses(): this PassContext<IR> has no analysis manager; construct it with "
            "PassContext<IR>(options, instruments, &am)");
      }
      return AnalysisHandle<PassContext>(*analysis_manager_, *this);
    }
  }

  int opt_level() const noexcept { return options_.opt_level; }
  const std::vector<std::string>& required_pass() const noexcept { return options_.required_pass; }
  const std::vector<std::string>& disabled_pass() const noexcept { return options_.disabled_pass; }
  const Config& config() const noexcept { return options_.config; }
  // executor(): where parallel nests run (SPEC §11.4); empty: nests are serial.
  ExecutorRef executor() const noexcept { return options_.executor; }

  // SPEC §2 PassEnabled: disabled wins, then required, then the opt_level.
  // The fast path is one flag test and one compare, small enough to inline
  // at every child of a Sequential; name matching is out of line.
  PASSINFRA_ALWAYS_INLINE bool pass_enabled(const PassInfo& info) const noexcept {
    if (names_listed_) [[unlikely]]
      return pass_enabled_by_name(info);
    return options_.opt_level >= info.opt_level;
  }

  PASSINFRA_ALWAYS_INLINE bool is_required(std::string_view name) const noexcept {
    if (!has_required_) [[likely]]
      return false;
    return contains(options_.required_pass, required_index_, name);
  }

  // The state behind pass_enabled / is_required, for PassGate.
  bool names_listed() const noexcept { return names_listed_; }
  bool has_required() const noexcept { return has_required_; }
  PASSINFRA_ALWAYS_INLINE PassGate<PassContext> gate() const noexcept { return PassGate<PassContext>(*this); }

  template <class T>
  T get_config(std::string_view key, T default_value) const {
    return config_get<T>(options_.config, key, std::move(default_value));
  }
  template <class T>
  T get_config(const ConfigKey<T>& key) const {
    return config_get<T>(options_.config, key.key, key.default_value);
  }

  Instruments& instruments() noexcept {
    if constexpr (detail::is_instrument_set<Instruments>) {
      return instruments_;
    } else {
      return instruments_.template get<0>();
    }
  }
  instrument_set_type& instrument_set() noexcept { return instruments_; }

  // enter(): SPEC §2 -- enter hooks first; only if they succeed is the
  // context pushed (dynamic contexts). The Scope exits it.
  Scope enter() {
    check_not_parallel_worker();
    instruments_.enter_pass_ctx();
    if constexpr (is_dynamic) detail::context_stack<PassContext>().push_back(this);
    return Scope(*this);
  }

  // with(f): enter, return f(), exit (the exit runs whether f returns or throws).
  template <class F>
  decltype(auto) with(F&& f) {
    using R = std::invoke_result_t<F>;
    auto scope = enter();
    if constexpr (std::is_void_v<R> || std::is_reference_v<R>) {
      return std::invoke(std::forward<F>(f));
    } else {
      // Not `return f();` with the scope's exit still to come: when an exit
      // hook throws from the scope's destructor after the return value was
      // made, clang 16 does not destroy that value (LLVM issue 12658; GCC
      // before 13 has the same defect in other shapes, PR 33799). Made into
      // a local and exited before the return, the value is destroyed by the
      // unwinding like any local; NRVO still builds it in place.
      R result = std::invoke(std::forward<F>(f));
      scope.leave();
      return result;
    }
  }

  // current(): this thread's innermost entered PassContext<IR>, else its default context.
  static PassContext& current()
    requires is_dynamic
  {
    auto& stack = detail::context_stack<PassContext>();
    return stack.empty() ? thread_default() : *stack.back();
  }

  // thread_default(): this thread's default context (opt_level 2, no instruments).
  static PassContext& thread_default()
    requires is_dynamic
  {
    thread_local PassContext context;
    return context;
  }

  // override_instruments(list): SPEC §2. Exits the instruments held now,
  // installs `list`, enters it. A failed exit clears and never installs
  // `list`; a failed enter clears `list`. Works entered or not.
  void override_instruments(detail::list_type_t<Instruments> list)
    requires InstrumentList<Instruments>
  {
    check_not_parallel_worker();
    instruments_.exit_pass_ctx(false);
    instruments().replace(std::move(list));
    instruments_.enter_pass_ctx();
  }

 private:
  // SPEC §11.9: a parallel nest's worker may not change the context its unit runs under.
  void check_not_parallel_worker() const {
    if (detail::parallel_worker_context == static_cast<const void*>(this)) [[unlikely]]
      throw Error("cannot change the instruments of a PassContext from a parallel nest's worker thread");
  }

  // A scope of a static context with no instruments has nothing to do.
  static constexpr bool has_scope_work = is_dynamic || !std::is_same_v<instrument_set_type, InstrumentSet<>>;

  [[gnu::noinline, gnu::pure]] bool pass_enabled_by_name(const PassInfo& info) const noexcept {
    if (contains(options_.disabled_pass, disabled_index_, info.name)) return false;
    if (contains(options_.required_pass, required_index_, info.name)) return true;
    return options_.opt_level >= info.opt_level;
  }

  // Out of line: is_required is inlined at every child. (The search is the
  // index's, which a list longer than detail::name_index_threshold has.)
  [[gnu::noinline, gnu::pure]] static bool contains(const std::vector<std::string>& names,
                                                    const detail::NameIndex& index, std::string_view name) noexcept {
    return index.contains(names, name);
  }

  // SPEC §2 exit: pop first, then the exit hooks.
  void leave(bool exception_in_flight) {
    if constexpr (is_dynamic) {
      auto& stack = detail::context_stack<PassContext>();
      for (auto i = stack.size(); i-- > 0;) {  // the innermost entry of this context
        if (stack[i] == this) {
          stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      }
    }
    instruments_.exit_pass_ctx(exception_in_flight);
  }

  // Read by PassEnabled at every pass: whether a name list is set, whether
  // required_pass is (the lists' emptiness, kept as two flags).
  bool names_listed_ = false;
  bool has_required_ = false;
  // The options as given (opt_level too), in one member: the context's
  // destructor calls the destructor that a translation unit making a context
  // compiles for its argument anyway (member by member, it compiled its own
  // copy; issue 18).
  PassContextOptions options_;
  detail::NameIndex required_index_;  // empty for a short list
  detail::NameIndex disabled_index_;
  instrument_set_type instruments_;
  [[no_unique_address]] std::conditional_t<has_analysis_manager, analysis_manager_type*, detail::NoManagerPointer>
      analysis_manager_{};
};

namespace detail {
template <class... As>
inline constexpr bool first_is_analysis_manager = false;
template <class A, class... As>
inline constexpr bool first_is_analysis_manager<A, As...> = is_analysis_manager<std::remove_cvref_t<A>>;
}  // namespace detail

// make_pass_context<IR>(options, instruments...): a static context whose
// instrument set is InstrumentSet<...> of the arguments (std::ref -> T&).
template <class IR, class... As>
  requires(!detail::first_is_analysis_manager<As...>)
PassContext<IR, InstrumentSet<detail::element_of_t<As>...>> make_pass_context(PassContextOptions options,
                                                                              As&&... instruments) {
  using Set = InstrumentSet<detail::element_of_t<As>...>;
  if constexpr (sizeof...(As) == 0) {
    return PassContext<IR, Set>(std::move(options));
  } else {
    return PassContext<IR, Set>(std::move(options), Set(std::forward<As>(instruments)...));
  }
}

// make_pass_context<IR>(options, am, instruments...): the same, with an
// analysis manager held by reference (SPEC §10).
template <class IR, class M, class... As>
  requires detail::is_analysis_manager<M>
PassContext<IR, InstrumentSet<detail::element_of_t<As>...>, M> make_pass_context(PassContextOptions options, M& am,
                                                                                 As&&... instruments) {
  using Set = InstrumentSet<detail::element_of_t<As>...>;
  if constexpr (sizeof...(As) == 0) {
    return PassContext<IR, Set, M>(std::move(options), Set(), &am);
  } else {
    return PassContext<IR, Set, M>(std::move(options), Set(std::forward<As>(instruments)...), &am);
  }
}

}  // namespace passinfra
