// tests/support/nest_analyses.hpp — analysis_ir.hpp's AModule as a parent of AFunc units
// (SPEC §11.13), and unit passes that use analyses. Shared by the nest-analysis tests of
// every layer.
//
// unit_traits<AModule, AFunc>     the functions that are not external, named "@<name>"
// ir_traits<AFunc>                name "function", parent_type AModule
// URec / urecorder(log)           AnalysisRecorder<AModule> ("r") that also records the unit
//                                 pass hooks: "r before_pass U@f", "r after_pass U@f"
// NestManager                     a manager listing ModuleSum, Derived, Tagged, FunctionSum,
//                                 FunctionSize
// count(log, e)                   how many times e was recorded
// hooks_of(events) / cached(am)   the recorder "r"'s events without its name / the cached
//                                 results ("Name", "Name@fn") in storage order
// Unit passes (each records "<Name>@<fn>..." on the parent's log; Ps...: its preserves<...>):
//   FTouch<N, Ps...>              body += {0}
//   FUse<N, Ps...>                gets FunctionSum for its unit: "N@f=<sum>"
//   FUseBoth<N, Ps...>            gets FunctionSum and FunctionSize for its unit
//   FUseSize<N, Ps...>            gets FunctionSize (which reads the module result ModuleSum)
//   FMarkKeepSum<N>               gets FunctionSum, marks it preserved: "N@f cached=<0|1>"
//   FCheckCached<N>               "N@f cached=<0|1>": get_cached<FunctionSum>(fn)
//   FReadModule<N>                get_cached_parent<ModuleSum>, get<ModuleSum>(parent), and
//                                 get<Derived>(parent) (uncached: Error): "N@f parent=... same=1"
//                                 or "N@f error=<what>"
//   FThreadOf                     records the thread it ran on (FThreadOf::seen())
//   FThrowOn<N, Fn>               throws TestError(9) on the function named Fn
//   FAskOther<N, How>             on unit g only: asks for f's FunctionSum (How: by get, get_cached,
//                                 get by name, or through FirstSum's dependency); logs (passinfra::log,
//                                 so held back per unit in parallel) "N@g got=<v>" or "N@g error=<what>"
// FirstSum                        function analysis: FunctionSum of the module's first function
//                                 (a dependency on another function when asked for g)
// LogRec                          a thread-safe instrument logging the analysis hooks: "r before_analysis
//                                 FunctionSum@f", "r analysis_failed ...", "r invalidated ..."
// AskManager                      a manager listing FunctionSum and FirstSum
// run_logged(nest, make_ctx)      a run on a fresh AskManager: the lines logged and the cache after
// other_function_error(u, a, fn)  the Error text for analysis a of function fn asked in unit u
#pragma once

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

#include "support/analysis_ir.hpp"

template <>
struct passinfra::ir_traits<pitest::AFunc> {
  static constexpr std::string_view name = "function";
  using parent_type = pitest::AModule;
};

template <>
struct passinfra::unit_traits<pitest::AModule, pitest::AFunc> {
  static std::vector<passinfra::UnitSlot<pitest::AFunc>> units(const pitest::AModule& m) {
    std::vector<passinfra::UnitSlot<pitest::AFunc>> out;
    for (const auto& f : m.functions) {
      if (!f.external) out.push_back({"@" + f.name, f});
    }
    return out;
  }
  static pitest::AModule replace_units(pitest::AModule m, std::vector<passinfra::UnitSlot<pitest::AFunc>> slots) {
    std::size_t k = 0;
    for (auto& f : m.functions) {
      if (!f.external) f = std::move(slots.at(k++).ir);
    }
    return m;
  }
};

namespace pitest {

struct URec : AnalysisRecorder<AModule> {
  using AnalysisRecorder<AModule>::run_before_pass;
  using AnalysisRecorder<AModule>::run_after_pass;
  void run_before_pass(const AFunc& f, const passinfra::PassInfo& info) {
    hit(AHook::before_pass, std::string(info.name) + "@" + f.name);
  }
  void run_after_pass(const AFunc& f, const passinfra::PassInfo& info) {
    hit(AHook::after_pass, std::string(info.name) + "@" + f.name);
  }
};

inline URec urecorder(EventLog& log) {
  URec r;
  r.name = "r";
  r.log = &log;
  return r;
}

using NestManager =
    passinfra::AnalysisManager<AModule, passinfra::analyses<ModuleSum, Derived, Tagged, FunctionSum, FunctionSize>>;

using Events = std::vector<std::string>;

// hooks_of(events): the recorder "r"'s events, without its name.
inline Events hooks_of(const Events& events) {
  Events out;
  for (const auto& e : events) {
    if (e.rfind("r ", 0) == 0) out.push_back(e.substr(2));
  }
  return out;
}

// cached(am): the cached results, "Name" or "Name@fn", in storage order.
template <class M>
Events cached(const M& am) {
  Events out;
  am.for_each_cached([&](const passinfra::AnalysisInfo& info, const auto&) { out.push_back(analysis_text(info)); });
  return out;
}

inline long count_of(const Events& events, const std::string& e) { return std::count(events.begin(), events.end(), e); }

inline long count(const EventLog& log, const std::string& e) {
  return std::count(log.events.begin(), log.events.end(), e);
}

inline void note(const AModule& m, const std::string& what) {
  if (m.log) m.log->add(what);
}

template <Name N, class... Ps>
struct FTouch {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves<Ps...>;
  AFunc transform(AFunc f, auto& ctx) const {
    note(ctx.parent(), std::string(N.view()) + "@" + f.name);
    f.body.push_back(0);
    return f;
  }
};

template <Name N, class... Ps>
struct FUse {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves<Ps...>;
  AFunc transform(AFunc f, auto& ctx) const {
    const long& v = ctx.analyses().template get<FunctionSum>(ctx.parent(), f);
    note(ctx.parent(), std::string(N.view()) + "@" + f.name + "=" + std::to_string(v));
    return f;
  }
};

template <Name N, class... Ps>
struct FUseBoth {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves<Ps...>;
  AFunc transform(AFunc f, auto& ctx) const {
    const long a = ctx.analyses().template get<FunctionSum>(ctx.parent(), f);
    const long b = ctx.analyses().template get<FunctionSize>(ctx.parent(), f);
    note(ctx.parent(), std::string(N.view()) + "@" + f.name + "=" + std::to_string(a) + "," + std::to_string(b));
    return f;
  }
};

template <Name N, class... Ps>
struct FUseSize {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves<Ps...>;
  AFunc transform(AFunc f, auto& ctx) const {
    const long b = ctx.analyses().template get<FunctionSize>(ctx.parent(), f);
    note(ctx.parent(), std::string(N.view()) + "@" + f.name + "=" + std::to_string(b));
    return f;
  }
};

template <Name N>
struct FMarkKeepSum {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  AFunc transform(AFunc f, auto& ctx) const {
    (void)ctx.analyses().template get<FunctionSum>(ctx.parent(), f);
    ctx.analyses().template preserve<FunctionSum>();
    note(ctx.parent(), std::string(N.view()) + "@" + f.name +
                           " cached=" + std::to_string(ctx.analyses().template get_cached<FunctionSum>(f) != nullptr));
    return f;
  }
};

template <Name N>
struct FCheckCached {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves_all;
  AFunc transform(AFunc f, auto& ctx) const {
    note(ctx.parent(), std::string(N.view()) + "@" + f.name +
                           " cached=" + std::to_string(ctx.analyses().template get_cached<FunctionSum>(f) != nullptr));
    return f;
  }
};

template <Name N>
struct FReadModule {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves_all;
  AFunc transform(AFunc f, auto& ctx) const {
    const std::string who = std::string(N.view()) + "@" + f.name;
    if (f.name == "g") {
      try {
        (void)ctx.analyses().template get<Derived>(ctx.parent());
        note(ctx.parent(), who + " computed Derived");
      } catch (const passinfra::Error& e) {
        note(ctx.parent(), who + " error=" + e.what());
      }
      return f;
    }
    const long* cached = ctx.analyses().template get_cached_parent<ModuleSum>();
    const long& got = ctx.analyses().template get<ModuleSum>(ctx.parent());
    note(ctx.parent(),
         who + " parent=" + (cached ? std::to_string(*cached) : "null") + " same=" + std::to_string(cached == &got));
    return f;
  }
};

// FThreadOf: records the thread each unit ran on (seen(), in order; clear() empties it).
struct FThreadOf {
  static constexpr passinfra::PassInfo info{"ThreadOf", 0};
  using preserves = passinfra::preserves_all;
  static std::vector<std::thread::id>& seen() {
    static std::vector<std::thread::id> ids;
    return ids;
  }
  AFunc transform(AFunc f, auto&) const {
    seen().push_back(std::this_thread::get_id());  // serial: one thread at a time
    return f;
  }
};

template <Name N, Name Fn>
struct FThrowOn {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  AFunc transform(AFunc f, auto& ctx) const {
    (void)ctx.analyses().template get<FunctionSum>(ctx.parent(), f);
    if (f.name == Fn.view()) throw_test_error(9, std::string(N.view()) + " failed on " + f.name);
    return f;
  }
};

struct FirstSum {
  static constexpr passinfra::AnalysisInfo info{"FirstSum"};
  using unit = passinfra::function_unit;
  using result_type = long;
  using depends_on = passinfra::depends_on<FunctionSum>;
  long run(const AFunc&, const AModule& m, auto& deps) const {
    return deps.template get<FunctionSum>(m.functions.front());
  }
};

enum class AskBy { get, get_cached, name, dependency };

template <Name N, AskBy How>
struct FAskOther {
  static constexpr passinfra::PassInfo info{N.view(), 0};
  using preserves = passinfra::preserves_all;
  AFunc transform(AFunc f, auto& ctx) const {
    if (f.name != "g") return f;
    const AFunc& other = ctx.parent().functions.front();
    std::string said = std::string(N.view()) + "@" + f.name;
    try {
      long v = 0;
      if constexpr (How == AskBy::get) {
        v = ctx.analyses().template get<FunctionSum>(ctx.parent(), other);
      } else if constexpr (How == AskBy::get_cached) {
        const long* p = ctx.analyses().template get_cached<FunctionSum>(other);
        v = p != nullptr ? *p : -1;
      } else if constexpr (How == AskBy::name) {
        v = ctx.analyses().get("FunctionSum", ctx.parent(), other).template get<long>();
      } else {
        v = ctx.analyses().template get<FirstSum>(ctx.parent(), f);
      }
      said += " got=" + std::to_string(v);
    } catch (const passinfra::Error& e) {
      said += " error=" + std::string(e.what());
    }
    passinfra::log(passinfra::LogLevel::info, said);
    return f;
  }
};

struct LogRec {
  static constexpr bool thread_safe = true;
  static void say(const std::string& line) { passinfra::log(passinfra::LogLevel::info, line); }
  void run_before_analysis(const AModule&, const passinfra::AnalysisInfo& info) {
    say("r before_analysis " + analysis_text(info));
  }
  void run_after_analysis_failed(const passinfra::AnalysisInfo& info, const std::exception_ptr&) {
    say("r analysis_failed " + analysis_text(info));
  }
  void run_analysis_invalidated(const passinfra::AnalysisInfo& info) { say("r invalidated " + analysis_text(info)); }
};

// AskManager: a manager listing FunctionSum and FirstSum.
using AskManager = passinfra::AnalysisManager<AModule, passinfra::analyses<FunctionSum, FirstSum>>;

// run_logged(nest, make_ctx): a run of nest over make_module() under make_ctx(am, rec) on a fresh
// AskManager and LogRec: every line logged, in order, and the cache after it.
struct LoggedRun {
  std::vector<std::string> lines;
  std::vector<std::string> cached;
};
template <class Nest, class MakeCtx>
LoggedRun run_logged(const Nest& nest, MakeCtx make_ctx) {
  LoggedRun out;
  AskManager am;
  LogRec rec;
  {
    const passinfra::ScopedLogSink sink(
        [&](passinfra::LogLevel, std::string_view message) { out.lines.emplace_back(message); });
    auto ctx = make_ctx(am, rec);
    (void)passinfra::run(nest, make_module(), ctx);
  }
  out.cached = cached(am);
  return out;
}

// other_function_error(unit, analysis, fn): the Error a unit gets for another function's result (SPEC §11.13).
inline std::string other_function_error(const std::string& unit, const std::string& analysis, const std::string& fn) {
  return "passinfra: function analysis '" + analysis + "' for function '" + fn + "' cannot be computed or read " +
         "inside unit '" + unit + "' of nest 'function': inside a unit, function analyses are those of the " +
         "unit's function only (get<A>(ctx.parent(), fn) and get_cached<A>(fn) with fn the unit)";
}

}  // namespace pitest
