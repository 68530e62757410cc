// passinfra/dynamic/dynamic_sequential.hpp — a pipeline chosen at run time (SPEC §4).
//
// DynamicSequential<IR>{p1, p2, ...}            from AnyPasses (or anything AnyPass takes)
// DynamicSequential<IR>(passes, PassInfo{...})  a custom name / opt_level (the name is copied)
// seq.info()                                    "sequential", opt_level 0 by default
// seq.passes() / seq.push_back(p)
// seq(ir, ctx) / seq(ir)                        run through run(), under ctx / current()
//
// The same rules as Sequential<...>: children gated by PassEnabled, their
// required passes run first through run() without the gate, one level deep,
// every time. Static and dynamic pipelines nest both ways.
#pragma once

#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "passinfra/core/run.hpp"
#include "passinfra/core/sequential.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/dynamic/any_pass.hpp"

namespace passinfra {

template <class IR>
class DynamicSequential : public CallablePass<DynamicSequential<IR>> {
 public:
  DynamicSequential() = default;
  DynamicSequential(std::initializer_list<AnyPass<IR>> passes) : passes_(passes) {}
  explicit DynamicSequential(std::vector<AnyPass<IR>> passes, PassInfo info = Sequential<>::default_info)
      : passes_(std::move(passes)), name_(info.name), opt_level_(info.opt_level) {}

  PassInfo info() const noexcept { return {name_, opt_level_}; }

  const std::vector<AnyPass<IR>>& passes() const noexcept { return passes_; }
  void push_back(AnyPass<IR> pass) { passes_.push_back(std::move(pass)); }

  template <class Ctx>
  IR transform(IR ir, Ctx& ctx) const {
    const auto gate = detail::gate_of(ctx);  // options are fixed: read them once
    if constexpr (requires { gate.opt_level_gate(); }) {
      // No names listed (the common case): the gate is one compare and no
      // name is required; the general version is out of line.
      if (gate.names_listed()) [[unlikely]]
        return run_children_general(std::move(ir), ctx, gate);
      return run_children(std::move(ir), ctx, gate.opt_level_gate());
    } else {
      return run_children(std::move(ir), ctx, gate);
    }
  }

 private:
  // A child whose body runs under `body_ctx` (one ContextRef for all the
  // children) while `run` calls the hooks of the context itself.
  struct BoundChild {
    const AnyPass<IR>& pass;
    ContextRef<IR>& body_ctx;
    PASSINFRA_ALWAYS_INLINE const PassInfo& info() const noexcept { return pass.info(); }
    template <class Ctx>
    PASSINFRA_ALWAYS_INLINE IR transform(IR ir, Ctx&) const {
      return pass.transform(std::move(ir), body_ctx);
    }
  };

  template <class Ctx, class Gate>
  PASSINFRA_ALWAYS_INLINE IR run_children(IR ir, Ctx& ctx, const Gate& gate) const {
    if constexpr (std::is_same_v<Ctx, ContextRef<IR>>) {
      return run_children(std::move(ir), ctx, gate, ctx);
    } else {
      ContextRef<IR> body_ctx(ctx);
      return run_children(std::move(ir), ctx, gate, body_ctx);
    }
  }
  template <class Ctx, class Gate>
  PASSINFRA_ALWAYS_INLINE IR run_children(IR ir, Ctx& ctx, const Gate& gate, ContextRef<IR>& body_ctx) const {
    for (const auto& child : passes_) {
      if (!gate.pass_enabled(child.info())) continue;
      if (child.has_required()) ir = child.run_required(std::move(ir), body_ctx);
      ir = detail::run_gated(BoundChild{child, body_ctx}, std::move(ir), ctx, gate);
    }
    return ir;
  }
  template <class Ctx, class Gate>
  [[gnu::noinline]] IR run_children_general(IR ir, Ctx& ctx, const Gate& gate) const {
    return run_children(std::move(ir), ctx, gate);
  }

  std::vector<AnyPass<IR>> passes_;
  std::string name_{Sequential<>::default_info.name};
  int opt_level_ = Sequential<>::default_info.opt_level;
};

}  // namespace passinfra
