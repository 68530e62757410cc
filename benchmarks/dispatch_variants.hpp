// benchmarks/dispatch_variants.hpp — the pipelines measured by dispatch_callgrind.cpp:
// N trivial passes run by passinfra and by hand.
//
// Every variant is an extern "C" noinline function `long v_<name>_<N>(long)`
// so callgrind can count exactly its instructions (--toggle-collect) and the
// per-pass cost is (Ir(N) - Ir(0)) / N.
//
// A trivial pass adds K to a value and hides it from the optimizer with an
// empty asm, so N passes cost N adds whether written by hand or by passinfra.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
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

// The same body behind a call the optimizer may not inline.
template <int K>
[[gnu::noinline]] IR body_noinline(IR ir) {
  return body<K>(ir);
}

// A name of typical length (FoldConstant: 12 bytes), which matters to the
// timing instrument (it copies the name).
template <int K>
struct Inc {
  static constexpr passinfra::PassInfo info{"IncrementPass", K % 3};
  IR transform(IR ir, auto&) const { return body<K>(ir); }
};

// count(c): ++c, and an empty asm that reads and writes c in memory, so the
// optimizer keeps every count where it happens (it may not merge the counts
// of a whole pipeline into one add) -- as it must keep a real instrument's
// effects. One increment in memory per hook, however the hook is reached.
inline void count(long& c) {
  ++c;
  asm volatile("" : "+m"(c));
}

// Three counting hooks (should_run / before / after), like a cheap recorder.
struct CountingHooks {
  long calls = 0;
  bool should_run(const IR&, const passinfra::PassInfo&) {
    count(calls);
    return true;
  }
  void run_before_pass(const IR&, const passinfra::PassInfo&) { count(calls); }
  void run_after_pass(const IR&, const passinfra::PassInfo&) { count(calls); }
};

// A recording instrument: appends (hook, pass name) to a vector whose
// capacity is reserved up front (the driver clears it between runs).
struct Event {
  char hook;
  std::string_view pass;
};
// record(events, hook, pass): one push_back, the same out-of-line call from
// the recording instrument's hooks and from the hand-written recorder.
// Out of line in both, with everything it calls inlined into it (flatten),
// so that neither side's count depends on how much of the translation unit's
// inlining budget is left: g++ inlines std::vector::emplace_back into a
// caller only until --param inline-unit-growth is reached, so with a plain
// push_back in each hook which of the two variants got its push_backs inlined
// (and how many of them) changed with the size of the rest of this file.
[[gnu::noinline, gnu::flatten]] inline void record(std::vector<Event>& events, char hook, std::string_view pass) {
  events.push_back({hook, pass});
}
struct Recording {
  std::vector<Event>* events;
  bool should_run(const IR&, const passinfra::PassInfo& info) {
    record(*events, 's', info.name);
    return true;
  }
  void run_before_pass(const IR&, const passinfra::PassInfo& info) { record(*events, 'b', info.name); }
  void run_after_pass(const IR&, const passinfra::PassInfo& info) { record(*events, 'a', info.name); }
};

// The clock reads of the hand-written timing baselines; `sink` keeps the
// differences alive as PassTimingInstrument keeps its entries.
inline std::uint64_t clock_sink = 0;
struct ChronoNow {
  std::uint64_t operator()() const noexcept {
    return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
};
template <class Clock>
struct ClockNow {
  Clock clock;
  std::uint64_t operator()() const noexcept { return clock.now(); }
};

// Three std::function hooks, as an engineer would bolt callbacks onto a loop.
struct FunctionHooks {
  std::function<bool(const IR&)> should_run;
  std::function<void(const IR&)> before;
  std::function<void(const IR&)> after;
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
    count(calls);
    return true;
  }
  void before(const IR&) override { count(calls); }
  void after(const IR&) override { count(calls); }
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
  static IR hand_noinline(IR ir) {
    ((ir = body_noinline<K>(ir)), ...);
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
  // The same with a recording instrument written by hand.
  template <class Ctx>
  static IR hand_record(IR ir, Ctx& ctx, std::vector<Event>& events) {
    [[maybe_unused]] auto one = [&]<int J>(std::integral_constant<int, J>) {
      constexpr const passinfra::PassInfo& info = passinfra::info_of<Inc<J>>;
      if (!ctx.pass_enabled(info)) return;
      record(events, 's', info.name);
      record(events, 'b', info.name);
      ir = body<J>(ir);
      record(events, 'a', info.name);
    };
    (one(std::integral_constant<int, K>{}), ...);
    return ir;
  }
  // The gate and two clock reads per pass: what a timing instrument cannot avoid.
  template <class Ctx, class Now>
  static IR hand_clock(IR ir, Ctx& ctx, const Now& now) {
    [[maybe_unused]] auto one = [&]<int J>(std::integral_constant<int, J>) {
      constexpr const passinfra::PassInfo& info = passinfra::info_of<Inc<J>>;
      if (!ctx.pass_enabled(info)) return;
      const std::uint64_t start = now();
      ir = body<J>(ir);
      clock_sink += now() - start;
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

// The virtual loop alone: gate and body.
inline IR virtual_loop(IR ir, int opt_level, const std::vector<std::unique_ptr<VPass>>& passes) {
  for (const auto& p : passes) {
    if (opt_level < p->opt_level()) continue;
    ir = p->run(ir);
  }
  return ir;
}

// The virtual loop with three std::function hooks (each may be empty).
inline IR virtual_function_hooks(IR ir, int opt_level, const std::vector<std::unique_ptr<VPass>>& passes,
                                 const FunctionHooks& hooks) {
  for (const auto& p : passes) {
    if (opt_level < p->opt_level()) continue;
    if (hooks.should_run && !hooks.should_run(ir)) continue;
    if (hooks.before) hooks.before(ir);
    ir = p->run(ir);
    if (hooks.after) hooks.after(ir);
  }
  return ir;
}

}  // namespace bench
