// passinfra/core/analysis_passes.hpp — the utility passes of SPEC §10.4 / §10.9.
//
// RequireAnalysis<A>        "require<Name>": computes A (a function analysis: for every
//                           function ir_traits<IR>::for_each_function gives), changes
//                           nothing, preserves everything
// InvalidateAnalysis<A>     "invalidate<Name>": preserves everything but A
// InvalidateAllAnalyses     "invalidate<all>": preserves nothing
//
// Ordinary static passes (opt_level 0; usable in requires_passes<...>). Under
// a context without an analysis manager they do nothing. The names are built
// once, at compile time, from A::info.name.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/analysis_handle.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/preserved_analyses.hpp"
#include "passinfra/core/run.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

namespace detail {

// wrapped_name<Prefix, A>: "<prefix><A's name>>" as a constant.
template <class A>
struct analysis_name_of {
  static constexpr std::string_view value = AnalysisInfo(A::info).name;
};

template <std::size_t N>
struct FixedText {
  char chars[N]{};
  constexpr FixedText(const char (&s)[N]) {  // NOLINT(google-explicit-constructor): a template argument
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

template <FixedText Prefix, class A>
struct wrapped_name {
  static constexpr std::string_view prefix = Prefix.view();
  static constexpr std::string_view name = analysis_name_of<A>::value;
  static constexpr auto storage = [] {
    std::array<char, prefix.size() + name.size() + 1> out{};
    std::size_t at = 0;
    for (char c : prefix) out[at++] = c;
    for (char c : name) out[at++] = c;
    out[at] = '>';
    return out;
  }();
  static constexpr std::string_view value{storage.data(), storage.size()};
};

}  // namespace detail

template <class A>
struct RequireAnalysis : CallablePass<RequireAnalysis<A>> {
  static_assert(Analysis<A>,
                "passinfra::RequireAnalysis<A>: A is not an analysis: it needs static constexpr AnalysisInfo info, "
                "using result_type = ..., and a run member");
  static constexpr PassInfo info{detail::wrapped_name<"require<", A>::value, 0};
  using preserves = passinfra::preserves_all;

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (HasAnalyses<Ctx>) {
      if (analyses_available(ctx)) {
        auto handle = ctx.analyses();
        if constexpr (std::is_same_v<unit_of_t<A>, function_unit>) {
          static_assert(FunctionEnumerableIR<IR>,
                        "passinfra::RequireAnalysis<A>: A is a function analysis; computing it for every function "
                        "needs ir_traits<IR>::for_each_function(const IR&, f)");
          if constexpr (FunctionEnumerableIR<IR>) {
            ir_traits<IR>::for_each_function(
                ir, [&](const typename ir_traits<IR>::function_type& fn) { (void)handle.template get<A>(ir, fn); });
          }
        } else {
          (void)handle.template get<A>(ir);
        }
      }
    }
    return ir;
  }
};

template <class A>
struct InvalidateAnalysis : CallablePass<InvalidateAnalysis<A>> {
  static_assert(Analysis<A>,
                "passinfra::InvalidateAnalysis<A>: A is not an analysis: it needs static constexpr AnalysisInfo "
                "info, using result_type = ..., and a run member");
  static constexpr PassInfo info{detail::wrapped_name<"invalidate<", A>::value, 0};
  using preserves = passinfra::preserves_all;  // ... but A, abandoned by the body

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    if constexpr (HasAnalyses<Ctx>) {
      if (analyses_available(ctx)) ctx.analyses().template abandon<A>();
    }
    return ir;
  }
};

struct InvalidateAllAnalyses : CallablePass<InvalidateAllAnalyses> {
  static constexpr PassInfo info{"invalidate<all>", 0};
  // No declaration: nothing preserved.

  template <class IR, class Ctx>
  IR transform(IR ir, Ctx&) const {
    return ir;
  }
};

}  // namespace passinfra
