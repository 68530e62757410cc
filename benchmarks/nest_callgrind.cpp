// benchmarks/nest_callgrind.cpp — a serial Nest against the loop a user
// would write (DESIGN "Nests and parallel execution", performance targets):
// callgrind instructions per unit, callgrind_driver.hpp's protocol.
//
// The parent holds N units; each unit runs three trivial passes (an add the
// optimizer may not fold: an empty asm reads and writes the value). The
// IR's own cost — units() building the slots (names fit the small-string
// buffer) and replace_units() putting them back — is in every variant.
//
//   nest_hand          unit_traits::units(), a loop calling the 3 bodies, replace_units()
//   nest_static        passinfra::run(Nest<Unit, P0, P1, P2>{}, parent, ctx), InstrumentSet<>, no executor
//   nest_exec_serial   the same under a context with an executor (a ThreadPool), the nest marked
//                      NestOptions{.serial = true}: the executor's test and nothing else
//   nest_static_hooks  Nest<Unit, P0, P1, P2> under a static context with one instrument of three
//                      counting hooks (should_run, run_before_pass, run_after_pass) on every IR
//   nest_dyn_none      DynamicNest<Parent, Unit> of three AnyPass<Unit>, a PassContext<Parent>
//                      without instruments
//   nest_dyn_one       the same with that instrument as one AnyInstrument<Parent> (DESIGN: the
//                      DynamicNest / static Nest ratio at most the DynamicSequential / Sequential one)
//
// Per unit = (Ir(N=100) - Ir(N=0)) / 100. benchmarks/callgrind.sh runs it.
#include <string>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>
#include <passinfra/dynamic.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "callgrind_driver.hpp"

namespace nb {

struct Unit {
  long v = 0;
};
struct Parent {
  std::vector<Unit> units;
};

template <int K>
inline Unit body(Unit u) {
  u.v += K + 1;
  asm volatile("" : "+r"(u.v));
  return u;
}
template <int K>
struct P {
  static constexpr passinfra::PassInfo info{"UnitPass", 0};
  template <class Ctx>
  Unit transform(Unit u, Ctx&) const {
    return body<K>(u);
  }
};

// Three counting hooks on any IR (the nest's own run and its units' runs).
struct CountingHooks {
  long calls = 0;
  void count() {
    ++calls;
    asm volatile("" : "+m"(calls));
  }
  template <class IR>
  bool should_run(const IR&, const passinfra::PassInfo&) {
    count();
    return true;
  }
  template <class IR>
  void run_before_pass(const IR&, const passinfra::PassInfo&) {
    count();
  }
  template <class IR>
  void run_after_pass(const IR&, const passinfra::PassInfo&) {
    count();
  }
};

}  // namespace nb

template <>
struct passinfra::ir_traits<nb::Parent> {
  using unit_types = passinfra::unit_list<nb::Unit>;
};
template <>
struct passinfra::ir_traits<nb::Unit> {
  static constexpr std::string_view name = "function";
  using parent_type = nb::Parent;
};
template <>
struct passinfra::unit_traits<nb::Parent, nb::Unit> {
  static std::vector<passinfra::UnitSlot<nb::Unit>> units(const nb::Parent& p) {
    std::vector<passinfra::UnitSlot<nb::Unit>> out;
    out.reserve(p.units.size());
    for (const auto& u : p.units) out.push_back({"@f", u});
    return out;
  }
  static nb::Parent replace_units(nb::Parent p, std::vector<passinfra::UnitSlot<nb::Unit>> slots) {
    for (std::size_t i = 0; i < slots.size(); ++i) p.units[i] = slots[i].ir;
    return p;
  }
};

namespace {

using Traits = passinfra::unit_traits<nb::Parent, nb::Unit>;
using Nest3 = passinfra::Nest<nb::Unit, nb::P<0>, nb::P<1>, nb::P<2>>;

auto ctx_empty = passinfra::make_pass_context<nb::Parent>({});
passinfra::ThreadPool pool(1);
auto ctx_exec = passinfra::make_pass_context<nb::Parent>({.executor = pool});
const auto serial_nest =
    passinfra::nest<nb::Unit>(passinfra::NestOptions{.serial = true}, nb::P<0>{}, nb::P<1>{}, nb::P<2>{});

nb::CountingHooks hooks, dyn_hooks;
auto ctx_hooks = passinfra::make_pass_context<nb::Parent>({}, std::ref(hooks));
passinfra::PassContext<nb::Parent> dyn_none_ctx;
passinfra::PassContext<nb::Parent> dyn_one_ctx({}, {passinfra::AnyInstrument<nb::Parent>(std::ref(dyn_hooks))});
const passinfra::DynamicNest<nb::Parent, nb::Unit> dyn_nest{passinfra::AnyPass<nb::Unit>(nb::P<0>{}),
                                                            passinfra::AnyPass<nb::Unit>(nb::P<1>{}),
                                                            passinfra::AnyPass<nb::Unit>(nb::P<2>{})};

template <int N>
nb::Parent parent() {
  static const nb::Parent p{std::vector<nb::Unit>(N)};
  return p;
}

template <int N>
long hand(long x) {
  nb::Parent p = parent<N>();
  if (!p.units.empty()) p.units[0].v = x;
  auto slots = Traits::units(p);
  for (auto& s : slots) s.ir = nb::body<2>(nb::body<1>(nb::body<0>(s.ir)));
  p = Traits::replace_units(std::move(p), std::move(slots));
  return p.units.empty() ? x : p.units[0].v;
}
template <int N, class Pass, class Ctx>
long nested(long x, const Pass& pass, Ctx& ctx) {
  nb::Parent p = parent<N>();
  if (!p.units.empty()) p.units[0].v = x;
  p = passinfra::run(pass, std::move(p), ctx);
  return p.units.empty() ? x : p.units[0].v;
}

}  // namespace

#define PI_NEST_VARIANTS(N)                                                                                   \
  PASSINFRA_BENCH_VARIANT long v_nest_hand_##N(long x) { return hand<N>(x); }                                 \
  PASSINFRA_BENCH_VARIANT long v_nest_static_##N(long x) { return nested<N>(x, Nest3{}, ctx_empty); }         \
  PASSINFRA_BENCH_VARIANT long v_nest_exec_serial_##N(long x) { return nested<N>(x, serial_nest, ctx_exec); } \
  PASSINFRA_BENCH_VARIANT long v_nest_static_hooks_##N(long x) { return nested<N>(x, Nest3{}, ctx_hooks); }   \
  PASSINFRA_BENCH_VARIANT long v_nest_dyn_none_##N(long x) { return nested<N>(x, dyn_nest, dyn_none_ctx); }   \
  PASSINFRA_BENCH_VARIANT long v_nest_dyn_one_##N(long x) { return nested<N>(x, dyn_nest, dyn_one_ctx); }

PI_NEST_VARIANTS(0)
PI_NEST_VARIANTS(10)
PI_NEST_VARIANTS(100)

#define PI_ROW(name, what)                                                              \
  {#name, 0, v_##name##_0, what, nullptr}, {#name, 10, v_##name##_10, what, nullptr}, { \
    #name, 100, v_##name##_100, what, nullptr                                           \
  }

int main(int argc, char** argv) {
  const std::vector<bench::Variant> variants = {
      PI_ROW(nest_hand, "hand-written: units(), 3 calls per unit, replace_units()"),
      PI_ROW(nest_static, "Nest<Unit, 3 passes>, InstrumentSet<>, no executor"),
      PI_ROW(nest_exec_serial, "the same nest marked serial, under a context with an executor"),
      PI_ROW(nest_static_hooks, "Nest<Unit, 3 passes>, one instrument with 3 counting hooks"),
      PI_ROW(nest_dyn_none, "DynamicNest of 3 AnyPass<Unit>, PassContext<Parent> without instruments"),
      PI_ROW(nest_dyn_one, "the same with the 3-hook instrument as one AnyInstrument<Parent>"),
  };
  return bench::run_variants(argc, argv, variants);
}
