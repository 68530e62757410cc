// passinfra/core/sequential.hpp — a pipeline that is itself a pass (SPEC §4).
//
// Sequential<Ps...>                    children run in order; info "sequential", opt_level 0
// Sequential{p1, p2, ...}              from values (CTAD)
// Sequential(PassInfo{"name", 1}, p1, ...)   a custom name / opt_level per object
// sequential(info, passes...)          the same as a function
// Sequential<Ps...>::size              the number of children
// seq.child<I>()                       the I-th child (a const reference)
// seq.passes()                         the children as a std::tuple of const references
// seq.for_each_child(f)                 f(child) for each child, in order (any length)
// run_required(child, ir, ctx)         SPEC §4 step 2 for one child
//
// For each child, in order: if !ctx.pass_enabled(child) it is skipped
// entirely (no hook fires, its required passes do not run); otherwise each
// pass it requires runs through `run` -- instrumented, without the gate,
// every time, one level deep -- and then the child runs through `run`.
// A nested Sequential is a child like any other. The children's types are
// checked one by one, so a non-pass is named in the error. A Sequential
// preserves every analysis itself (SPEC §10.4): each child has applied its own set.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>

#include "passinfra/core/pass.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/detail/inline.hpp"

namespace passinfra {

// run_required(child, ir, ctx): runs the passes `child` requires, in order.
// Static requirements are requires_passes<...>; a child that only knows its
// requirements at run time (AnyPass) provides `run_required(ir, ctx) const`.
namespace detail {
template <class P, class IR, class Ctx, class Gate, class Hooks>
PASSINFRA_ALWAYS_INLINE IR run_required_gated(const P& child, IR ir, Ctx& ctx, const Gate& gate, Hooks& hooks);
}  // namespace detail

template <class P, class IR, class Ctx>
PASSINFRA_ALWAYS_INLINE IR run_required(const P& child, IR ir, Ctx& ctx) {
  return detail::run_required_gated(child, std::move(ir), ctx, detail::gate_of(ctx), ctx.instrument_set());
}

namespace detail {
// The required passes of one child, as one fold (nothing at all for none).
template <class... Rs, class IR, class Ctx, class Gate, class Hooks>
PASSINFRA_ALWAYS_INLINE IR run_required_list(boost::mp11::mp_list<Rs...>, IR ir, [[maybe_unused]] Ctx& ctx,
                                             [[maybe_unused]] const Gate& gate, [[maybe_unused]] Hooks& hooks) {
  ((ir = run_gated(Rs{}, std::move(ir), ctx, gate, hooks)), ...);
  return ir;
}

template <class P, class IR, class Ctx, class Gate, class Hooks>
PASSINFRA_ALWAYS_INLINE IR run_required_gated(const P& child, IR ir, Ctx& ctx, const Gate& gate,
                                              [[maybe_unused]] Hooks& hooks) {
  if constexpr (requires { child.run_required(std::move(ir), ctx); }) {
    return child.run_required(std::move(ir), ctx);
  } else if constexpr (required_passes_t<P>::valid) {
    return run_required_list(typename required_passes_t<P>::list{}, std::move(ir), ctx, gate, hooks);
  } else {
    return ir;  // requires_passes<...> has said what is wrong
  }
}

// info_ref(info_of<C>, &child): the child's PassInfo: the static one itself
// when its type has one, else what info_of<C>(child) gives. Overloads, so
// that a child with a static PassInfo costs no function of its own (issue
// 18: one function less per child, ~2% of seq_200.cpp on each compiler).
PASSINFRA_ALWAYS_INLINE const PassInfo& info_ref(const PassInfo& info, const void* /*child*/) noexcept { return info; }
template <class C>
PASSINFRA_ALWAYS_INLINE decltype(auto) info_ref(const MemberInfoOf<C>& info, const C* child) {
  return info(*child);
}

// The general path of a Sequential (a context that lists pass names, or
// whose instruments were cleared before the run) as a loop over a table of
// its children instead of a second inline copy of each, and one loop per
// context type, shared by every Sequential run under it. The inline copy
// stays the common case (PassEnabled is the opt_level compare, hooks on);
// this keeps the compile time of the rare one off the children (issue 18).
//
// The table is a constant (child_table, or plain_child_table when every
// child is plain; table_of picks), one row per child type: the address of
// its PassInfo when the type has a static one (info_of<C>, not a copy: issue
// 18, seq_200.cpp g++ -16 M instructions, clang -17 M, and 6.4 KB less
// data), and small functions that run the child given its address. A
// stateless child (an empty type, trivially made and copied) has no address
// in the table: its functions make one where they run it, so a Sequential
// of stateless children passes no addresses at all. A table built at run
// time (N initializers in one function) cost g++ about 6 ms per child, an
// array of N addresses alone about 3 (benchmarks/compile_time.sh's
// seq_200.cpp: 4.3 s, 3.7 s and 3.0 s). The constant table is data, but each
// row points to its child's transform_entry, a function the compiler must
// emit: at N = 200 that is 824 M of g++'s 10028 M instructions and 446 M of
// clang's 8260 M (benchmarks/README.md, seventeenth session), the largest
// per-child cost left besides the inline path itself. Each way tried to
// need fewer functions cost more on g++ or clang or both (the eighteenth
// session there): the general path through the inline blocks (a cold call
// per child), one transform function per Sequential or per block of 16.
// Running both paths through the same blocks with a gate read at run time
// (each child's opt level from a table, or a mask per block:
// benchmarks/experiments/) leaves no function per child: seq_200.cpp g++
// 10013 -> 8572 / 8805 M, clang 8258 -> 8040 / 7833 M. But the constant
// compares it replaces, which g++ threads, are what keeps the fast path at
// its run time: +2.6 to +2.9 instructions a pass (seq_hooks at N = 100), and
// splitting the block on the cleared flag to win them back costs the compile
// time again (the nineteenth session in benchmarks/README.md).
// static_info_child<C>: info_of<C> is a PassInfo (the type's static one,
// a StaticInfoOf), not a function of the object.
template <class C>
inline constexpr bool static_info_child = std::is_same_v<decltype(info_of<C>), const StaticInfoOf>;
template <class C>
inline constexpr bool stateless_child =
    is_empty_type<C> && is_trivially_default_constructible_type<C> && is_trivially_copyable_type<C>;

template <class IR, class Ctx, class Gate>
struct ChildEntry {
  const PassInfo* info;                        // the type's static PassInfo, info_of<C> (object_info null)
  PassInfo (*object_info)(const void* child);  // else the object's: info_of<C>(child)
  IR (*transform)(const void* child, IR ir, Ctx& ctx);
  IR (*run_required)(const void* child, IR ir, Ctx& ctx, const Gate& gate);  // null: it requires nothing
};

// ChildObject<C>(address).object: the child a table function runs, read
// from its address, or, for a stateless child, made here (a const value).
template <class C, bool = stateless_child<C>>
struct ChildObject {
  const C& object;
  explicit ChildObject(const void* child) : object(*static_cast<const C*>(child)) {}
};
template <class C>
struct ChildObject<C, true> {
  const C object{};
  explicit ChildObject(const void* /*no address*/) {}
};

// (Not through ChildObject: its constructor would be one more function per
// child in the inline path.)
template <class C, class IR, class Ctx>
IR transform_entry(const void* child, IR ir, Ctx& ctx) {
  if constexpr (stateless_child<C>) {
    return C{}.transform(std::move(ir), ctx);
  } else {
    return static_cast<const C*>(child)->transform(std::move(ir), ctx);
  }
}
template <class C, class IR, class Ctx, class Gate>
IR run_required_entry(const void* child, IR ir, Ctx& ctx, const Gate& gate) {
  auto&& hooks = hook_view(ctx.instrument_set());
  return run_required_gated(ChildObject<C>(child).object, std::move(ir), ctx, gate, hooks);
}
template <class C>
PassInfo object_info_entry(const void* child) {
  return info_of<C>(ChildObject<C>(child).object);
}

// TableRunnable<C, IR, Ctx>: the child runs through run_child (inline)
// and a ChildEntry (the general path): a pass with a transform for this IR
// and context, under a context without analyses whose hooks are called one
// by one. Otherwise (analyses, a type-erased hook sequence, or no such
// transform) it runs through run_gated, whose check_run says what is wrong.
// RequiresPassesAtRun<C, IR, Ctx>: it has required passes to run first.
// Concepts, not consteval functions: a child costs the compiler a
// satisfaction check, not a function instantiated and evaluated (issue 18;
// with the other per-child changes of the fifteenth session, seq_200.cpp's
// front end -7%). The context's part is asked once per context type.
// (The Sequential has checked that each child is a pass: children_ok.)
template <class IR, class Ctx>
consteval bool context_runs_table() {
  using Hooks = std::remove_reference_t<decltype(hook_view(std::declval<Ctx&>().instrument_set()))>;
  if constexpr (HasAnalyses<Ctx> || requires(Ctx& x) { x.nest_analyses(); }) {
    return false;
  } else {
    return !requires(Hooks& h, IR i, const PassInfo& info, bool ask, IR (*body)(IR)) {
      h.run_pass(std::move(i), info, ask, body);
    };
  }
}
template <class C, class IR, class Ctx>
concept TableRunnable = PassRunContext<Ctx> && HasTransform<C, IR, Ctx> && context_runs_table<IR, Ctx>();
template <class C, class IR, class Ctx>
concept RequiresPassesAtRun = requires(const C& c, IR i, Ctx& x) { c.run_required(std::move(i), x); } ||
                              (DeclaresRequired<C> && !std::is_same_v<required_passes_t<C>, requires_passes<>>);
// PlainChild<C, IR, Ctx>: C runs through run_child with nothing before it but
// its PassEnabled test: table-runnable, a static PassInfo, no required passes
// at run time. What a child of a generated or hand-listed pipeline usually is.
template <class C, class IR, class Ctx>
concept PlainChild = TableRunnable<C, IR, Ctx> && static_info_child<C> && !RequiresPassesAtRun<C, IR, Ctx>;

// child_entry<IR, Ctx, Gate, C>(): C's row of the table.
template <class IR, class Ctx, class Gate, class C>
consteval ChildEntry<IR, Ctx, Gate> child_entry() {
  ChildEntry<IR, Ctx, Gate> entry{nullptr, nullptr, &transform_entry<C, IR, Ctx>, nullptr};
  if constexpr (static_info_child<C>) {
    entry.info = &info_of<C>;
  } else {
    entry.object_info = &object_info_entry<C>;
  }
  if constexpr (RequiresPassesAtRun<C, IR, Ctx>) entry.run_required = &run_required_entry<C, IR, Ctx, Gate>;
  return entry;
}
template <class IR, class Ctx, class Gate, class... Cs>
inline constexpr ChildEntry<IR, Ctx, Gate> child_table[sizeof...(Cs)] = {child_entry<IR, Ctx, Gate, Cs>()...};
// The table of children that are all plain (what a generated or hand-listed
// pipeline usually is), each row written in place: no child_entry instance
// per child (issue 18: seq_200.cpp g++ -42 M instructions, clang -15 M).
template <class IR, class Ctx, class Gate, class... Cs>
inline constexpr ChildEntry<IR, Ctx, Gate> plain_child_table[sizeof...(Cs)] = {
    {&info_of<Cs>, nullptr, &transform_entry<Cs, IR, Ctx>, nullptr}...};
// table_of<IR, Ctx, Gate, Cs...>(): the children's table (the plain one
// when it can be).
template <class IR, class Ctx, class Gate, class... Cs>
consteval const ChildEntry<IR, Ctx, Gate>* table_of() {
  if constexpr (all_true<PlainChild<Cs, IR, Ctx>...>()) {
    return plain_child_table<IR, Ctx, Gate, Cs...>;
  } else {
    return child_table<IR, Ctx, Gate, Cs...>;
  }
}

// child_address(child): what the table's functions get for it (nothing for
// a stateless child).
template <class C>
PASSINFRA_ALWAYS_INLINE const void* child_address(const C& child) {
  if constexpr (stateless_child<C>) {
    return nullptr;
  } else {
    return &child;
  }
}

// run_child(hooks, gate, info, ir, ctx, transform, child): SPEC §3 for one
// child whose PassEnabled test has passed and whose required passes have
// run, through run_hooks (the sequence `run` uses), with the body called
// through `transform` (a constant in the inline path, where the optimizer
// calls the body directly). One function per context type, not per child.
template <class Hooks, class Gate, class IR, class Ctx>
PASSINFRA_ALWAYS_INLINE IR run_child(Hooks& hooks, const Gate& gate, [[maybe_unused]] const PassInfo& info, IR in,
                                     Ctx& ctx, IR (*transform)(const void*, IR, Ctx&), const void* child) {
  if constexpr (Hooks::template hook_free<IR>) {
    return transform(child, std::move(in), ctx);
  } else {
    bool ask_should_run = false;  // a name in required_pass skips should_run
    if constexpr (Hooks::template has_should_run<IR>) ask_should_run = !gate.is_required(info.name);
    return run_hooks(hooks, std::move(in), info, ask_should_run,
                     [&](IR body_in) PASSINFRA_LAMBDA_INLINE { return transform(child, std::move(body_in), ctx); });
  }
}

// SPEC §4 for each child of the table, in order; `children` holds their
// addresses (null: all are stateless).
template <class IR, class Ctx, class Gate>
[[gnu::noinline, gnu::cold]] IR run_entries(IR ir, Ctx& ctx, const Gate& gate, const ChildEntry<IR, Ctx, Gate>* entries,
                                            const void* const* children, std::size_t n) {
  auto&& hooks = hook_view(ctx.instrument_set());
  for (std::size_t i = 0; i < n; ++i) {
    const ChildEntry<IR, Ctx, Gate>& entry = entries[i];
    const void* child = children != nullptr ? children[i] : nullptr;
    const PassInfo info = entry.object_info != nullptr ? entry.object_info(child) : *entry.info;
    if (!gate.pass_enabled(info)) continue;
    if (entry.run_required != nullptr) ir = entry.run_required(child, std::move(ir), ctx, gate);
    ir = run_child(hooks, gate, info, std::move(ir), ctx, entry.transform, child);
  }
  return ir;
}

// gate_arg_t<Gate>: how an out-of-line function takes the gate state: a
// small trivially copyable snapshot by value, anything else by reference.
template <class Gate>
using gate_arg_t =
    std::conditional_t<std::is_trivially_copyable_v<Gate> && sizeof(Gate) <= 2 * sizeof(void*), Gate, const Gate&>;

// ChildBlocks<mp_list<>, Ps...>::type: the children's types cut into
// blocks of inline_block, in order: mp_list<mp_list<P0, ..., P15>,
// mp_list<P16, ...>, ...>, the last one 1 to 16 long. Peeled 16 at a time
// (N / 16 steps), so that a block of a long Sequential (run_block) names its
// children's types without looking each up by its index among all N, as
// get does by deduction from the tuple's N bases (issue 18: at
// N = 1000 that was a quarter of g++'s front end; seq_1000.cpp's front end
// -23%, seq_200.cpp's -2.4%).
template <class Done, class... Ts>
struct ChildBlocks;
template <class... Bs, class... Ts>
struct ChildBlocks<boost::mp11::mp_list<Bs...>, Ts...> {
  using type = boost::mp11::mp_list<Bs..., boost::mp11::mp_list<Ts...>>;
};
template <class... Bs, class T0, class T1, class T2, class T3, class T4, class T5, class T6, class T7, class T8,
          class T9, class T10, class T11, class T12, class T13, class T14, class T15, class T16, class... Rest>
struct ChildBlocks<boost::mp11::mp_list<Bs...>, T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15,
                   T16, Rest...>
    : ChildBlocks<boost::mp11::mp_list<Bs..., boost::mp11::mp_list<T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11,
                                                                   T12, T13, T14, T15>>,
                  T16, Rest...> {};
static_assert(inline_block == 16, "ChildBlocks peels inline_block types at a time");

// slot_value<K, C>(tuple): a FlatTuple's element K, whose type C the caller
// knows (no deduction from the tuple's bases).
template <std::size_t K, class C, class Tuple>
PASSINFRA_ALWAYS_INLINE const C& slot_value(const Tuple& tuple) noexcept {
  return static_cast<const Slot<K, C>&>(tuple).value;
}

// child_addresses<Cs...>(tuple, index_sequence<I...>): child_address of each
// element of `tuple` (whose types are Cs), in order. A function template,
// not a generic lambda in the Sequential's member: g++ 12 substitutes such a
// lambda's pack expansion in two steps and its work grew with N per child
// (issue 18: a hook-free Sequential of 1000 children with state, front end
// 10541 -> 8683 M). Calls that take the tuple are qualified: unqualified,
// argument-dependent lookup visits every one of its N template arguments.
template <class... Cs, class Tuple, std::size_t... I>
PASSINFRA_ALWAYS_INLINE std::array<const void*, sizeof...(Cs)> child_addresses(const Tuple& tuple,
                                                                               std::index_sequence<I...>) {
  return {detail::child_address(detail::slot_value<I, Cs>(tuple))...};
}

// ChildVisit<F&>{f}: f on the children of a block, for
// Sequential::for_each_child (each_child, as in a run, with f for the step).
// Its each is ChildStep::each with f for *this. Not shared: a run through a
// ChildVisit<ChildStep&>, or through one free function for both, made g++ 12
// emit other code for dispatch_callgrind and analysis_callgrind (the first:
// 3 KB less text), whose run paths are to stay as measured.
template <class F>
struct ChildVisit {
  F f;
  template <std::size_t Offset, class Tuple, class... Cs, std::size_t... I>
  void each(const Tuple& tuple, boost::mp11::mp_list<Cs...>, std::index_sequence<I...>) {
    (f(detail::slot_value<Offset + I, Cs>(tuple)), ...);
  }
};

// ChildStep(ir, ctx, gate)(child): SPEC §4 for one child of a Sequential,
// updating `ir`. It calls the hooks through its own hook_view of the
// context's instruments (see InstrumentSet::hook_view), made once for all
// the children it steps through. A class of its own, not a lambda inside
// Sequential<Ps...>: the function made for each child then names the
// child's type, not all of the Sequential's (linear, not quadratic, in
// symbol names).
template <class IR, class Ctx, class Gate>
struct ChildStep {
  // A view (a value), or the set itself (a reference) when it offers none.
  using Hooks = decltype(hook_view(std::declval<Ctx&>().instrument_set()));

  IR& ir;
  Ctx& ctx;
  const Gate& gate;
  Hooks hooks;

  PASSINFRA_ALWAYS_INLINE ChildStep(IR& ir_, Ctx& ctx_, const Gate& gate_)
      : ir(ir_), ctx(ctx_), gate(gate_), hooks(hook_view(ctx_.instrument_set())) {}

  template <class C>
  PASSINFRA_ALWAYS_INLINE void operator()(const C& child) {
    if constexpr (TableRunnable<C, IR, Ctx>) {
      // SPEC §3 written out here, so that a child costs the compiler one
      // function besides its body (issue 18); the rest goes through run_gated.
      const PassInfo& info = info_ref(info_of<C>, &child);
      if (!gate.pass_enabled(info)) return;
      if constexpr (RequiresPassesAtRun<C, IR, Ctx>) ir = run_required_gated(child, std::move(ir), ctx, gate, hooks);
      ir = run_child(hooks, gate, info, std::move(ir), ctx, &transform_entry<C, IR, Ctx>, &child);
    } else {
      if (!gate.pass_enabled(info_of<C>(child))) return;
      ir = run_required_gated(child, std::move(ir), ctx, gate, hooks);
      ir = run_gated(child, std::move(ir), ctx, gate, hooks);
    }
  }

  // chunk<Offset>(tuple, mp_list<Cs...>, index_sequence<I...>): the
  // children Offset + I of `tuple`, whose types are Cs, in order: a block of
  // a long Sequential (run_block). When all are plain children, as one fold
  // of plain_step calls: a child then costs the compiler no function of its
  // own but its table entry (transform_entry; issue 18: seq_200.cpp -8% on
  // each compiler). Else one operator() per child. A short Sequential
  // (run_children's inline case) keeps operator(): there the fold made g++ 12
  // thread jumps differently (dispatch_callgrind's seq_hooks at N = 10: 82 ->
  // 92 instructions per run). The types come with the block (ChildBlocks):
  // finding a child's type from its index (get) looks at every
  // base of the tuple, which made the compiler's work per child grow with
  // the length of the Sequential.
  template <std::size_t Offset, class Tuple, class... Cs, std::size_t... I>
  PASSINFRA_ALWAYS_INLINE void chunk(const Tuple& tuple, boost::mp11::mp_list<Cs...>, std::index_sequence<I...>) {
    if constexpr (all_true<PlainChild<Cs, IR, Ctx>...>()) {
      if constexpr (all_true<stateless_child<Cs>...>()) {
        // no addresses: transform_entry makes a stateless child where it runs it
        (plain_step(info_of<Cs>, &transform_entry<Cs, IR, Ctx>, nullptr), ...);
      } else {
        (plain_step(info_of<Cs>, &transform_entry<Cs, IR, Ctx>,
                    child_address(detail::slot_value<Offset + I, Cs>(tuple))),
         ...);
      }
    } else {
      each<Offset>(tuple, boost::mp11::mp_list<Cs...>{}, std::index_sequence<I...>{});
    }
  }
  // each<Offset>(tuple, mp_list<Cs...>, index_sequence<I...>): operator() on
  // the children Offset + I of `tuple`, whose types are Cs, in order.
  template <std::size_t Offset, class Tuple, class... Cs, std::size_t... I>
  PASSINFRA_ALWAYS_INLINE void each(const Tuple& tuple, boost::mp11::mp_list<Cs...>, std::index_sequence<I...>) {
    ((*this)(detail::slot_value<Offset + I, Cs>(tuple)), ...);
  }
  PASSINFRA_ALWAYS_INLINE void plain_step(const PassInfo& info, IR (*transform)(const void*, IR, Ctx&),
                                          const void* child) {
    if (!gate.pass_enabled(info)) return;
    ir = run_child(hooks, gate, info, std::move(ir), ctx, transform, child);
  }
};

// CheckChildren<Ps...>::value: check_pass for each of Ps, one
// static_assert per bad one. Only instantiated when some P is not a Pass.
template <class... Ps>
struct CheckChildren {
  static constexpr bool value = all_true<check_pass<Ps, Entry::sequential>()...>();
};

}  // namespace detail

template <class... Ps>
class Sequential : public CallablePass<Sequential<Ps...>> {
  // Checked when the type is instantiated (a declaration is enough): when
  // some element is not a Pass, one element at a time, so a non-pass is
  // named in its own static_assert (a check_pass instance per element only
  // then: issue 18).
  static constexpr bool children_ok =
      std::conditional_t<detail::all_true<Pass<Ps>...>(), std::true_type, detail::CheckChildren<Ps...>>::value;
  static_assert(detail::reported(children_ok));

 public:
  static constexpr PassInfo default_info{"sequential", 0};
  using preserves = passinfra::preserves_all;  // SPEC §10.4

  constexpr Sequential()
    requires(detail::all_true<detail::is_default_constructible_type<Ps>...>())
  = default;

  constexpr explicit Sequential(Ps... passes)
    requires(sizeof...(Ps) > 0)
      : passes_(std::move(passes)...) {}

  constexpr explicit Sequential(PassInfo info, Ps... passes)
      : name_(info.name), opt_level_(info.opt_level), passes_(std::move(passes)...) {}

  constexpr PassInfo info() const noexcept { return {name_, opt_level_}; }

  static constexpr std::size_t size = sizeof...(Ps);

  template <std::size_t I>
    requires(I < sizeof...(Ps))
  constexpr const auto& child() const noexcept {
    return detail::get<I>(passes_);
  }
  constexpr std::tuple<const Ps&...> passes() const noexcept {
    return [this]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<const Ps&...>(detail::get<I>(passes_)...);
    }(std::index_sequence_for<Ps...>{});
  }
  // for_each_child(f): f(child) for each child, in order. What passinfra's
  // own walks over a pipeline use (statistics, nesting depth): passes()'s
  // std::tuple of a thousand children is past g++'s template depth (900).
  template <class F>
  void for_each_child(F&& f) const {
    if constexpr (sizeof...(Ps) > 0) {
      detail::ChildVisit<F&> visit{f};
      using Blocks = typename detail::ChildBlocks<boost::mp11::mp_list<>, Ps...>::type;
      each_child(visit, Blocks{}, std::make_index_sequence<boost::mp11::mp_size<Blocks>::value>{});
    }
  }

  // run_children_gated(ir, ctx, gate): the children under a gate state the
  // caller took from the context once (what transform does per call); a Nest
  // runs its children on every unit this way, under the opt_level-only gate
  // in the common case (inline), else under the context's full gate, which
  // runs them through the general path (run_children_general).
  template <class IR, class Ctx, class Gate>
  PASSINFRA_ALWAYS_INLINE IR run_children_gated(IR ir, Ctx& ctx, const Gate& gate) const {
    if constexpr (!children_ok) {
      return ir;
    } else if constexpr (PASSINFRA_GATE_FAST_PATH != 0 && requires { gate.opt_level_gate(); }) {
      return run_children_general(std::move(ir), ctx);
    } else {
      return run_children(std::move(ir), ctx, gate);
    }
  }

  // The common case runs inline: no names listed (the gate is one compare,
  // no name is required) and the instruments on when the run starts.
  // Everything else goes to the general path, out of line: a loop over a
  // table of the children, not a second inline copy of them.
  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (children_ok) {
      const auto gate = detail::gate_of(ctx);  // options are fixed: read them once
      if constexpr (PASSINFRA_GATE_FAST_PATH != 0 && requires { gate.opt_level_gate(); }) {
        if (gate.names_listed() || !detail::instruments_active(ctx)) [[unlikely]] {
          return run_children_general(std::move(ir), ctx);
        }
        return run_children(std::move(ir), ctx, gate.opt_level_gate());
      } else {
        return run_children(std::move(ir), ctx, gate);
      }
    }
    return ir;
  }

 private:
  // SPEC §4 for each child, with the gate state `gate`. Under a context with
  // pass hooks, up to detail::inline_block children run inline; more run as
  // blocks of that many, one out-of-line function each, so that the compiler
  // optimizes functions of bounded size: its time grows linearly with the
  // number of children, for one call per block at run time (benchmarks/
  // README.md has both). Without hooks a child is a compare and a call: all
  // of them run inline.
  template <class IR, class Ctx, class Gate>
  PASSINFRA_ALWAYS_INLINE IR run_children(IR ir, Ctx& ctx, const Gate& gate) const {
    constexpr std::size_t n = sizeof...(Ps);
    using Set = std::remove_cvref_t<decltype(ctx.instrument_set())>;
    if constexpr (n <= detail::inline_block || Set::template hook_free<IR>) {
      detail::ChildStep<IR, Ctx, Gate> step(ir, ctx, gate);
      if constexpr (n > 0) {
        using Blocks = typename detail::ChildBlocks<boost::mp11::mp_list<>, Ps...>::type;
        each_child(step, Blocks{}, std::make_index_sequence<boost::mp11::mp_size<Blocks>::value>{});
      }
      return ir;
    } else {
      return run_blocks(std::move(ir), ctx, gate,
                        std::make_index_sequence<detail::chunk_count(n, detail::inline_block)>{});
    }
  }
  // each_child(step, blocks, index_sequence<B...>): step on every child in
  // order, inline, a block of inline_block at a time (ChildBlocks: the
  // types come with the block, so no child's type is deduced from the
  // tuple's N bases, which made a hook-free Sequential quadratic to compile;
  // the object code is the same as through get).
  template <class Step, class... Blocks, std::size_t... B>
  PASSINFRA_ALWAYS_INLINE void each_child(Step& step, boost::mp11::mp_list<Blocks...>,
                                          std::index_sequence<B...>) const {
    constexpr std::size_t n = sizeof...(Ps), k = detail::inline_block;
    (step.template each<B * k>(passes_, Blocks{}, std::make_index_sequence<detail::chunk_length(n, k, B)>{}), ...);
  }
  template <class IR, class Ctx, class Gate, std::size_t... B>
  PASSINFRA_ALWAYS_INLINE IR run_blocks(IR ir, Ctx& ctx, const Gate& gate, std::index_sequence<B...>) const {
    constexpr std::size_t n = sizeof...(Ps), k = detail::inline_block;
    ((ir = run_block<B * k, detail::chunk_length(n, k, B), IR, Ctx, Gate>(std::move(ir), ctx, gate)), ...);
    return ir;
  }
  // The gate by value when it is a small snapshot (OptLevelGate, PassGate):
  // a parameter whose address never escapes, which the optimizer keeps in a
  // register across hook calls it cannot see into, where through a
  // reference to the caller's copy it must load it again after each one.
  template <std::size_t Offset, std::size_t Count, class IR, class Ctx, class Gate>
  [[gnu::noinline]] IR run_block(IR ir, Ctx& ctx, detail::gate_arg_t<Gate> gate) const {
    static_assert(Count <= detail::fold_chunk);  // one fold
    detail::ChildStep<IR, Ctx, Gate> step(ir, ctx, gate);
    using Block = boost::mp11::mp_at_c<typename detail::ChildBlocks<boost::mp11::mp_list<>, Ps...>::type,
                                       Offset / detail::inline_block>;
    step.template chunk<Offset>(passes_, Block{}, std::make_index_sequence<Count>{});
    return ir;
  }
  // Out of line, reading the gate again (the options are fixed): the inline
  // caller then need not keep its gate in memory for this call.
  template <class IR, class Ctx>
  [[gnu::noinline]] IR run_children_general(IR ir, Ctx& ctx) const {
    const auto gate = detail::gate_of(ctx);
    using Gate = std::remove_cvref_t<decltype(gate)>;
    if constexpr (sizeof...(Ps) > 0 && detail::all_true<detail::TableRunnable<Ps, IR, Ctx>...>()) {
      const auto* table = detail::table_of<IR, Ctx, Gate, Ps...>();
      if constexpr (detail::all_true<detail::stateless_child<Ps>...>()) {
        return detail::run_entries(std::move(ir), ctx, gate, table, nullptr, sizeof...(Ps));
      } else {
        const auto children = detail::child_addresses<Ps...>(passes_, std::index_sequence_for<Ps...>{});
        return detail::run_entries(std::move(ir), ctx, gate, table, children.data(), sizeof...(Ps));
      }
    } else {
      return run_children(std::move(ir), ctx, gate);
    }
  }

  std::string_view name_ = default_info.name;
  int opt_level_ = default_info.opt_level;
  detail::FlatTuple<Ps...> passes_;  // see detail/inline.hpp
};

template <class... Ps>
Sequential(Ps...) -> Sequential<Ps...>;
template <class... Ps>
Sequential(PassInfo, Ps...) -> Sequential<Ps...>;

// sequential(info, passes...): a Sequential with a custom name and opt_level.
template <class... Ps>
constexpr Sequential<std::decay_t<Ps>...> sequential(PassInfo info, Ps&&... passes) {
  return Sequential<std::decay_t<Ps>...>(info, std::forward<Ps>(passes)...);
}

}  // namespace passinfra
