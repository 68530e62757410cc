// benchmarks/dispatch_variants.hpp — the pipelines measured by dispatch_callgrind.cpp
// and dispatch_bench.cpp: N trivial passes run by passinfra and by hand.
//
// Every variant is an extern "C" noinline function `long v_<name>_<N>(long)`
// so callgrind can count exactly its instructions (--toggle-collect) and the
// per-pass cost is (Ir(N=100) - Ir(N=0)) / 100.
//
// A trivial pass adds K to a value and hides it from the optimizer with an
// empty asm, so N passes cost N adds whether written by hand or by passinfra.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include <passinfra/passinfra.hpp>

namespace bench {

struct IR {
  long value = 0;
};

template <int K>
inline IR body(IR ir) {
  ir.value += K;
  asm volatile("" : "+r"(ir.value));
  return ir;
}

template <int K>
struct Inc {
  static constexpr passinfra::PassInfo info{"Inc", K % 3};
  IR transform(IR ir, auto&) const { return body<K>(ir); }
};

// Three counting hooks (should_run / before / after), like a cheap recorder.
struct CountingHooks {
  long calls = 0;
  bool should_run(const IR&, const passinfra::PassInfo&) {
    ++calls;
    return true;
  }
  void run_before_pass(const IR&, const passinfra::PassInfo&) { ++calls; }
  void run_after_pass(const IR&, const passinfra::PassInfo&) { ++calls; }
};

// A plain hand-written virtual dispatcher doing the same work as the dynamic layer.
struct VPass {
  virtual ~VPass() = default;
  virtual int opt_level() const = 0;
  virtual IR run(IR) const = 0;
};
template <int K>
struct VInc final : VPass {
  int opt_level() const override { return K % 3; }
  IR run(IR ir) const override { return body<K>(ir); }
};
struct VInstrument {
  virtual ~VInstrument() = default;
  virtual bool should_run(const IR&) = 0;
  virtual void before(const IR&) = 0;
  virtual void after(const IR&) = 0;
};
struct VCounting final : VInstrument {
  long calls = 0;
  bool should_run(const IR&) override {
    ++calls;
    return true;
  }
  void before(const IR&) override { ++calls; }
  void after(const IR&) override { ++calls; }
};

template <class Seq>
struct Kit;
template <int... K>
struct Kit<std::integer_sequence<int, K...>> {
  using Pipeline = passinfra::Sequential<Inc<K>...>;

  static IR hand_calls(IR ir) {
    ((ir = body<K>(ir)), ...);
    return ir;
  }
  template <class Ctx>
  static IR run_each(IR ir, Ctx& ctx) {
    ((ir = passinfra::run(Inc<K>{}, std::move(ir), ctx)), ...);
    return ir;
  }
  template <class Ctx>
  static IR hand_gate(IR ir, Ctx& ctx) {
    ((ir = ctx.pass_enabled(passinfra::info_of<Inc<K>>) ? body<K>(ir) : ir), ...);
    return ir;
  }
  // What a careful engineer writes for gate + three hooks, inlined.
  template <class Ctx>
  static IR hand_hooks(IR ir, Ctx& ctx, CountingHooks& h) {
    [[maybe_unused]] auto one = [&]<int J>(std::integral_constant<int, J>) {
      constexpr const passinfra::PassInfo& info = passinfra::info_of<Inc<J>>;
      if (!ctx.pass_enabled(info)) return;
      if (!h.should_run(ir, info)) return;
      h.run_before_pass(ir, info);
      ir = body<J>(ir);
      h.run_after_pass(ir, info);
    };
    (one(std::integral_constant<int, K>{}), ...);
    return ir;
  }
  static std::vector<passinfra::AnyPass<IR>> any_passes() { return {passinfra::AnyPass<IR>(Inc<K>{})...}; }
  static std::vector<std::unique_ptr<VPass>> virtual_passes() {
    std::vector<std::unique_ptr<VPass>> v;
    (v.push_back(std::make_unique<VInc<K>>()), ...);
    return v;
  }
};

// The hand-written dynamic dispatcher: gate, should_run/before/after on each
// instrument, body -- all through virtual calls, as a plain C++ engineer would.
inline IR virtual_dispatch(IR ir, int opt_level, const std::vector<std::unique_ptr<VPass>>& passes,
                           const std::vector<VInstrument*>& instruments) {
  for (const auto& p : passes) {
    if (opt_level < p->opt_level()) continue;
    bool run = true;
    for (auto* i : instruments) run = i->should_run(ir) && run;
    if (!run) continue;
    for (auto* i : instruments) i->before(ir);
    ir = p->run(ir);
    for (auto* i : instruments) i->after(ir);
  }
  return ir;
}

}  // namespace bench
