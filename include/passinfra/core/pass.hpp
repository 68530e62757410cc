// passinfra/core/pass.hpp — what a pass is, and what it needs.
//
// requires_passes<Ps...>            a pass's static dependencies (`using required = ...`)
// HasStaticPassInfo<P>              `P::info` converts to PassInfo
// HasPassInfoMember<P>              `p.info()` returns a PassInfo
// HasValidRequired<P>               no `required`, or `required` is requires_passes<...>
// Pass<P>                           the IR-independent half of a pass
// HasTransform<P, IR, Ctx>          `p.transform(IR, Ctx&)` returns IR
// PassFor<P, IR, Ctx>               Pass<P> && HasTransform<P, IR, Ctx>
// RequirablePass<P>                 may be listed in requires_passes<...>
// info_of<P>                        P's PassInfo with `required` filled in:
//                                   a PassInfo for static passes, and for every
//                                   pass a callable: info_of<P>(p) -> PassInfo
//
// A pass is any object type with a PassInfo and a body:
//
//   struct FoldConstant {
//     static constexpr passinfra::PassInfo info{"FoldConstant", 2};
//     using required = passinfra::requires_passes<InferType>;        // optional
//     Module transform(Module m, auto& ctx) const;
//   };
//
// The body receives the context it runs under, so passes it runs itself (with
// passinfra::run) are instrumented by the same context. The names of
// `required` appear in info_of<FoldConstant>.required without being written
// twice. A pass whose info is only known per object (FuseOps(level), passes
// built at run time) has `PassInfo info() const` instead of a static member.
#pragma once

#include <array>
#include <concepts>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "passinfra/core/pass_info.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

template <class... Ps>
struct requires_passes;

namespace detail {
template <class L>
inline constexpr bool is_requires_passes = false;
template <class... Ps>
inline constexpr bool is_requires_passes<requires_passes<Ps...>> = true;
}  // namespace detail

// HasStaticPassInfo<P>: `P::info` is a PassInfo known at compile time.
template <class P>
concept HasStaticPassInfo = requires {
  { P::info } -> detail::convertible_to_type<PassInfo>;
};

// HasPassInfoMember<P>: `p.info()` gives the PassInfo of one object.
template <class P>
concept HasPassInfoMember = requires(const P& p) {
  { p.info() } -> detail::convertible_to_type<PassInfo>;
};

// HasPassInfo<P>: either of the two.
template <class P>
concept HasPassInfo = HasStaticPassInfo<P> || HasPassInfoMember<P>;

// DeclaresRequired<P>: P has a nested type `required`.
template <class P>
concept DeclaresRequired = requires { typename P::required; };

// HasValidRequired<P>: `required`, if declared, is a requires_passes<...>.
template <class P>
concept HasValidRequired = !DeclaresRequired<P> || detail::is_requires_passes<typename P::required>;

// Pass<P>: an object type with a PassInfo and a valid `required` list.
template <class P>
concept Pass = detail::is_object_type<P> && HasPassInfo<P> && HasValidRequired<P>;

// HasTransform<P, IR, Ctx>: `p.transform(std::move(ir), ctx)` returns an IR.
template <class P, class IR, class Ctx>
concept HasTransform = requires(const P& p, IR ir, Ctx& ctx) {
  { p.transform(std::move(ir), ctx) } -> detail::convertible_to_type<IR>;
};

// PassFor<P, IR, Ctx>: P can run on IR under a context of type Ctx.
template <class P, class IR, class Ctx>
concept PassFor = Pass<P> && HasTransform<P, IR, Ctx>;

// RequirablePass<P>: a pass another pass may require: its name is known at
// compile time and it can be made on the spot (SPEC §4 runs it as `P{}`).
template <class P>
concept RequirablePass = Pass<P> && HasStaticPassInfo<P> && std::default_initializable<P>;

namespace detail {

// The entry point a check speaks for, so its message repeats the user's call.
enum class Entry { sequential, run, requires_passes };

// check_pass<P, E>(): true for a pass; otherwise exactly one static_assert
// whose message says what P lacks. The offending type is `P` in the
// "required from" / "in instantiation of" notes that follow the message.
template <class P, Entry E>
consteval bool check_pass() {
  constexpr bool has_info = detail::is_object_type<P> && HasPassInfo<P>;
  if constexpr (Pass<P>) {
    return true;
  } else if constexpr (E == Entry::sequential && !has_info) {
    static_assert(has_info,
                  "passinfra::Sequential<Ps...>: every element must be a pass, and P is not: it has neither "
                  "`static constexpr passinfra::PassInfo info` nor `passinfra::PassInfo info() const`");
    return false;
  } else if constexpr (E == Entry::sequential) {
    static_assert(has_info && !DeclaresRequired<P>,
                  "passinfra::Sequential<Ps...>: the pass P declares `required`, but it is not "
                  "passinfra::requires_passes<...>");
    return false;
  } else if constexpr (E == Entry::run && !has_info) {
    static_assert(has_info,
                  "passinfra::run(pass, ir, ctx): `pass` must be a pass, and P is not: it has neither "
                  "`static constexpr passinfra::PassInfo info` nor `passinfra::PassInfo info() const`");
    return false;
  } else if constexpr (E == Entry::run) {
    static_assert(has_info && !DeclaresRequired<P>,
                  "passinfra::run(pass, ir, ctx): the pass P declares `required`, but it is not "
                  "passinfra::requires_passes<...>");
    return false;
  } else {
    static_assert(Pass<P>,
                  "passinfra::requires_passes<Ps...>: every required entry must be a pass, and P is not: it has "
                  "neither `static constexpr passinfra::PassInfo info` nor `passinfra::PassInfo info() const`");
    return false;
  }
}

// check_requirable<R>(): R may be listed in requires_passes<...>.
template <class R>
consteval bool check_requirable() {
  if constexpr (!check_pass<R, Entry::requires_passes>()) {
    return false;
  } else if constexpr (!HasStaticPassInfo<R>) {
    static_assert(HasStaticPassInfo<R>,
                  "passinfra::requires_passes<Ps...>: a required pass needs a compile-time name: P has only "
                  "`info() const`; give it `static constexpr passinfra::PassInfo info`");
    return false;
  } else if constexpr (!std::default_initializable<R>) {
    static_assert(std::default_initializable<R>,
                  "passinfra::requires_passes<Ps...>: a required pass is run as `P{}` (SPEC §4), but P is not "
                  "default-constructible");
    return false;
  } else {
    return true;
  }
}

template <class R>
constexpr std::string_view required_name() {
  if constexpr (RequirablePass<R>) {
    return PassInfo(R::info).name;
  } else {
    return {};
  }
}

}  // namespace detail

// requires_passes<Ps...>: the passes a pass requires, in the order SPEC §4
// runs them. `list` is the Mp11 type list; `names` their names, in order.
template <class... Ps>
struct requires_passes {
  // valid: every Ps may be required. Otherwise each bad entry has said why in
  // its own static_assert, and nothing runs them (asserting `valid` as well
  // would print a second error without a message).
  static constexpr bool valid = (detail::check_requirable<Ps>() && ...);
  static_assert(detail::reported(valid));
  using list = boost::mp11::mp_list<Ps...>;
  static constexpr std::size_t size = sizeof...(Ps);
  static constexpr std::array<std::string_view, sizeof...(Ps)> names{detail::required_name<Ps>()...};
};

namespace detail {
template <class P>
struct required_passes_of {
  using type = requires_passes<>;
};
template <DeclaresRequired P>
struct required_passes_of<P> {
  using type = typename P::required;
};
}  // namespace detail

// required_passes_t<P>: P's requires_passes<...>, or requires_passes<> if none.
template <class P>
using required_passes_t = typename detail::required_passes_of<P>::type;

namespace detail {

template <class P>
constexpr std::span<const std::string_view> required_span(std::span<const std::string_view> fallback) {
  using R = required_passes_t<P>;
  if constexpr (is_requires_passes<R>) {
    if constexpr (R::size > 0) return R::names;
  }
  return fallback;
}

// info_of<P> for a pass with a static PassInfo: is a PassInfo, and callable
// (the object is not looked at). One class for every such pass, not one per
// pass type (issue 18: a class instance less per child of a Sequential).
struct StaticInfoOf : PassInfo {
  template <class P>
  constexpr const PassInfo& operator()(const P&) const noexcept {
    return *this;
  }
};

// info_of<P> for a pass whose info is per object: only callable. A pass
// that keeps its PassInfo (info() returns a const reference) and has no
// `required` types to add is answered with that reference, not a copy.
template <class P>
consteval bool adds_no_required() {
  using R = required_passes_t<P>;
  if constexpr (is_requires_passes<R>) {
    return R::size == 0;
  } else {
    return false;
  }
}

template <class P>
struct MemberInfoOf {
  constexpr decltype(auto) operator()(const P& p) const {
    if constexpr (adds_no_required<P>() && std::is_same_v<decltype(p.info()), const PassInfo&>) {
      return p.info();
    } else {
      PassInfo info = p.info();
      info.required = required_span<P>(info.required);
      return info;
    }
  }
};

struct NotAPassInfo {};

template <class P>
constexpr auto make_info_of() {
  if constexpr (HasStaticPassInfo<P>) {
    // (Only a P that declares `required`: info_of's partial specialization
    // answers the others with P::info as it is.)
    PassInfo info = P::info;
    info.required = required_span<P>(info.required);
    return StaticInfoOf{info};
  } else if constexpr (HasPassInfoMember<P>) {
    return MemberInfoOf<P>{};
  } else {
    return NotAPassInfo{};
  }
}

}  // namespace detail

// info_of<P>: see the header comment. `info_of<P>(p)` works for every pass.
// A static PassInfo without `required` to fill in is copied as it is, without
// make_info_of; cv- and reference-qualified P are P (partial
// specializations, not std::remove_cvref_t: a class instance less per pass,
// issue 18: seq_200.cpp's front end -1.5%).
template <class P>
inline constexpr auto info_of = detail::make_info_of<P>();
template <class P>
  requires(HasStaticPassInfo<P> && !DeclaresRequired<P>)
inline constexpr auto info_of<P> = detail::StaticInfoOf{P::info};
template <class P>
inline constexpr auto info_of<const P> = info_of<P>;
template <class P>
inline constexpr auto info_of<volatile P> = info_of<P>;
template <class P>
inline constexpr auto info_of<const volatile P> = info_of<P>;
template <class P>
inline constexpr auto info_of<P&> = info_of<P>;
template <class P>
inline constexpr auto info_of<P&&> = info_of<P>;

}  // namespace passinfra
