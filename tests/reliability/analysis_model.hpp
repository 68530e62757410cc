// tests/reliability/analysis_model.hpp — a plain, independent model of docs/spec.md §10
// (analyses), on top of the §2–§5 rules it needs (gates, should_run, hooks in list order,
// run_after_pass_failed).
//
// anmodel::Scenario            a pipeline tree whose pass bodies request analyses and mark
//                              what they keep, the passes' static declarations, the
//                              analyses' dependency requests, a context, instruments (any of
//                              eight hooks), and a fault plan
// anmodel::Outcome             what docs/spec.md says happens: the events, the escaping
//                              fault, the cached results afterwards, the IR's trail
// anmodel::run_model(s)        the SPEC's answer for a scenario
// anmodel::describe(s)         the scenario as readable text (printed when a check fails)
// anmodel::generate(rng)       a random free-form scenario
//
// Written from the text of docs/spec.md §10 (and DESIGN's "Analyses" for the names), not
// from the implementation: it shares no code with include/passinfra and is deliberately
// naive -- the cache is a vector in storage order, a preserved set is three bit masks, and
// the model's own exceptions (ModelThrow) play the scenario's.
//
// The fixed family of analyses (SPEC §10.1; "@" marks a function analysis):
//
//   MA          module, sets SetX
//   MB          module, depends_on<MA, FA>   (FA for every function of the module)
//   FA @        function
//   FB @        function, depends_on<FA, MA>, sets SetX
//   MC          module, depends_on<MB>, is_invalidated: !pa.preserved<TagT>()
//   FC @        function, depends_on<FB>, is_invalidated: !pa.preserved<TagT>() && !pa.preserved<FC>()
//
// Tags: TagT (not an analysis), SetX, all_analyses_on<module_unit>, all_analyses_on<function_unit>.
// Which declared dependencies a computation actually requests is part of the scenario
// (Scenario::requests): the inputs recorded are those requested, not those declared.
// The module has the functions f, g and x; x is external (function passes skip it).
//
// Events, as the property test records them:
//   "<I> should_run <P>" / "<I> before <P>" / "<I> after <P>" / "<I> after_failed <P> ^<id>"
//   "<I> before_analysis <A>" / "<I> after_analysis <A>" / "<I> analysis_failed <A> ^<id>"
//   "<I> invalidated <A>"                     (<A> is "MA" or "FA@f")
//   "run <A> #<n>"                            an analysis computing its n-th result (n counts
//                                             every computation of the scenario, from 1)
//   "<P>" / "<P>:<f>"                         a module pass body / a function pass body on f
//   "get <A> = #<n>"                          a body's get returned result n
//   "get <A> caught ^<id>"                    a body caught what its get threw
//   "cached <A> = #<n>" / "cached <A> = -"    get_cached
//   "nested caught ^<id>"                     a body caught what its nested run threw
// A call that throws fault <id> has " !<id>" appended (the throw comes after the event).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace anmodel {

// ---------------------------------------------------------------- the fixed family

enum Key : int { MA = 0, MB, FA, FB, MC, FC, TagT, SetX, AllModule, AllFunction };
inline constexpr int kAnalyses = 6;
inline constexpr int kKeys = 10;
inline constexpr int kFunctions = 3;  // f, g, x (x external)

inline unsigned kbit(int k) { return 1u << k; }

inline const char* key_name(int k) {
  static const char* const names[kKeys] = {"MA", "MB",   "FA",   "FB",          "MC",
                                           "FC", "TagT", "SetX", "all<module>", "all<function>"};
  return names[k];
}
inline const char* function_name(int f) {
  static const char* const names[kFunctions] = {"f", "g", "x"};
  return names[f];
}
inline bool is_function_analysis(int a) { return a == FA || a == FB || a == FC; }
inline bool in_set_x(int a) { return a == MA || a == FB; }
// The analyses each may request (depends_on).
inline unsigned declared_deps(int a) {
  switch (a) {
    case MB:
      return kbit(MA) | kbit(FA);
    case FB:
      return kbit(FA) | kbit(MA);
    case MC:
      return kbit(MB);
    case FC:
      return kbit(FB);
    default:
      return 0;
  }
}

// ---------------------------------------------------------------- preserved sets (SPEC §10.3)

struct PA {
  bool all = false;
  unsigned keys = 0;       // kbit(key) for each key named
  unsigned abandoned = 0;  // kbit(key) for each key abandoned
};

// Preserved, abandons aside.
inline bool kept(const PA& pa, int k) {
  if (pa.all || (pa.keys & kbit(k))) return true;
  if (k >= kAnalyses) return false;  // a tag: "all" or itself
  if (pa.keys & kbit(is_function_analysis(k) ? AllFunction : AllModule)) return true;
  return in_set_x(k) && (pa.keys & kbit(SetX));
}
inline bool preserved(const PA& pa, int k) { return !(pa.abandoned & kbit(k)) && kept(pa, k); }
inline bool is_all(const PA& pa) { return pa.all && pa.abandoned == 0; }

// unite: what run() does with a declaration and the marks (abandons of either win).
inline PA unite(const PA& a, const PA& b) { return {a.all || b.all, a.keys | b.keys, a.abandoned | b.abandoned}; }
// intersect, by meaning: every key of the (finite) universe kept by both.
inline PA intersect(const PA& a, const PA& b) {
  PA out;
  out.all = a.all && b.all;
  out.abandoned = a.abandoned | b.abandoned;
  for (int k = 0; k < kKeys; ++k) {
    if (kept(a, k) && kept(b, k)) out.keys |= kbit(k);
  }
  return out;
}

// The static declarations a pass type may carry (the property test has a type per entry).
inline constexpr int kDecls = 8;
inline PA decl_pa(int d) {
  switch (d) {
    case 1:
      return {true, 0, 0};  // preserves_all
    case 2:
      return {false, kbit(MA), 0};  // preserves<MA>
    case 3:
      return {false, kbit(FA) | kbit(FB), 0};  // preserves<FA, FB>
    case 4:
      return {false, kbit(AllFunction), 0};  // preserves<all_analyses_on<function_unit>>
    case 5:
      return {false, kbit(SetX), 0};  // preserves<SetX>
    case 6:
      return {false, kbit(TagT) | kbit(MB), 0};  // preserves<TagT, MB>
    case 7:
      return {false, kbit(AllModule), 0};  // preserves<all_analyses_on<module_unit>>
    default:
      return {};  // no declaration
  }
}
inline const char* decl_name(int d) {
  static const char* const names[kDecls] = {
      "(none)",          "preserves_all",      "preserves<MA>",         "preserves<FA,FB>", "preserves<all<function>>",
      "preserves<SetX>", "preserves<TagT,MB>", "preserves<all<module>>"};
  return names[d];
}

// ---------------------------------------------------------------- hooks

enum class Hook : int {
  should_run = 0,
  before = 1,
  after = 2,
  after_failed = 3,
  before_analysis = 4,
  after_analysis = 5,
  analysis_failed = 6,
  invalidated = 7
};
inline constexpr int kHookCount = 8;
inline unsigned hbit(Hook h) { return 1u << static_cast<int>(h); }
inline const char* hook_name(Hook h) {
  static const char* const names[kHookCount] = {"should_run",      "before",         "after",           "after_failed",
                                                "before_analysis", "after_analysis", "analysis_failed", "invalidated"};
  return names[static_cast<int>(h)];
}
// The hooks a fault may be planted in (a throw from run_after_pass_failed or
// run_after_analysis_failed is logged and dropped, from run_analysis_invalidated
// it would leave the cache half walked: not part of this model).
inline bool faultable(Hook h) {
  return h == Hook::should_run || h == Hook::before || h == Hook::after || h == Hook::before_analysis ||
         h == Hook::after_analysis;
}

struct InstrumentSpec {
  std::string name;
  unsigned hooks = 0xff;          // hbit(Hook) for each hook it has
  std::vector<std::string> veto;  // should_run answers "skip" for these pass names
};

// ---------------------------------------------------------------- the pipeline

struct Node;

struct Action {
  enum class Kind { get, get_caught, cached, preserve, preserve_all, abandon, nested, fail } kind = Kind::get;
  int key = 0;           // get / get_caught / cached: the analysis; preserve / abandon: the key
  int function = -1;     // function analyses: the function (-1: the function a function pass is visiting)
  int fault = 0;         // fail: the fault id it throws
  bool caught = false;   // nested: the body catches what the nested run throws
  bool by_name = false;  // get / get_caught / preserve / abandon of an analysis: by its name
                         // (ctx.analyses().get("MA", ir), preserve("MA")): the same entry, the same key
};

struct Node {
  enum class Kind { seq, module_pass, function_pass, require, invalidate, invalidate_all } kind = Kind::module_pass;
  std::string name;  // seq / passes; the utility passes' names are made from `analysis`
  int opt_level = 0;
  int decl = 0;                                 // passes: index into decl_pa
  std::vector<Action> actions;                  // module pass body
  std::vector<std::vector<Action>> fn_actions;  // function pass: per function (f, g)
  std::vector<Node> children;                   // seq
  std::vector<Node> nested;                     // module pass: the pipeline its `nested` action runs
  std::vector<Node> required;                   // a Sequential's child: its requires_passes (module
                                                // passes), run before it, ungated (SPEC §4)
  int analysis = 0;                             // require / invalidate
  int static_index = -1;                        // static shapes: which pass type stands for it
};

inline std::string pass_name(const Node& n) {
  switch (n.kind) {
    case Node::Kind::require:
      return std::string("require<") + key_name(n.analysis) + ">";
    case Node::Kind::invalidate:
      return std::string("invalidate<") + key_name(n.analysis) + ">";
    case Node::Kind::invalidate_all:
      return "invalidate<all>";
    default:
      return n.name;
  }
}

struct ContextSpec {
  int opt_level = 2;
  std::vector<std::string> required_pass;
  std::vector<std::string> disabled_pass;
};

struct Fault {
  enum class Where { body, analysis, hook } where = Where::body;
  int analysis = 0;          // analysis: which one throws ...
  int instrument = 0;        // hook: which instrument ...
  Hook hook = Hook::before;  // ... and which hook
  int occurrence = 1;        // analysis / hook: its k-th computation / call (1-based)
  int id = 1;
};

struct Scenario {
  Node root;
  std::vector<InstrumentSpec> instruments;  // the context's list, in order
  ContextSpec context;
  unsigned requests[kAnalyses] = {};  // per analysis: the declared dependencies its computations request
  std::vector<Fault> faults;          // body faults are also Action::fail entries
};

struct Cached {
  int analysis = 0;
  int function = -1;  // -1: a module result
  int serial = 0;     // the computation that made it
  friend bool operator==(const Cached&, const Cached&) = default;
};

struct Outcome {
  std::vector<std::string> events;
  std::optional<int> escaped;      // the fault whose exception leaves run()
  std::vector<Cached> cache;       // afterwards, in storage order
  std::vector<std::string> trail;  // meaningful when nothing escaped
};

inline std::string result_name(int a, int f) {
  std::string s = key_name(a);
  if (f >= 0) s += std::string("@") + function_name(f);
  return s;
}

// ---------------------------------------------------------------- the model

namespace detail {

struct ModelThrow {
  int id;
};

class Model {
 public:
  explicit Model(const Scenario& s) : s_(s) {
    counts_.assign(s.instruments.size(), std::vector<int>(kHookCount, 0));
    fired_.assign(s.faults.size(), false);
  }

  Outcome run() {
    Outcome out;
    try {
      run_pass(s_.root, out.trail);
    } catch (const ModelThrow& t) {
      out.escaped = t.id;
    }
    out.events = std::move(events_);
    for (const Entry& e : cache_) out.cache.push_back({e.analysis, e.function, e.serial});
    return out;
  }

 private:
  struct Entry {
    int analysis;
    int function;
    int serial;
    std::vector<int> inputs;  // serials of the entries it obtained through deps
  };

  const Scenario& s_;
  std::vector<std::vector<int>> counts_;  // per instrument, per hook
  int runs_[kAnalyses] = {};              // computations per analysis
  std::vector<bool> fired_;
  std::vector<std::string> events_;
  std::vector<Entry> cache_;  // storage order
  int serial_ = 0;
  std::vector<PA> frames_;  // marks of the running pass bodies, innermost last

  bool has(int i, Hook h) const { return (s_.instruments[static_cast<std::size_t>(i)].hooks & hbit(h)) != 0; }

  std::optional<int> hook_fault(int i, Hook h) {
    const int n = ++counts_[static_cast<std::size_t>(i)][static_cast<std::size_t>(h)];
    for (std::size_t f = 0; f < s_.faults.size(); ++f) {
      const Fault& fault = s_.faults[f];
      if (!fired_[f] && fault.where == Fault::Where::hook && fault.instrument == i && fault.hook == h &&
          fault.occurrence == n) {
        fired_[f] = true;
        return fault.id;
      }
    }
    return std::nullopt;
  }

  // One hook call; a hook the instrument lacks does nothing (should_run: "run").
  bool call(int i, Hook h, const std::string& subject, int failed = 0) {
    if (!has(i, h)) return true;
    std::string e = s_.instruments[static_cast<std::size_t>(i)].name + " " + hook_name(h) + " " + subject;
    if (h == Hook::after_failed || h == Hook::analysis_failed) e += " ^" + std::to_string(failed);
    if (const auto fault = hook_fault(i, h)) {
      events_.push_back(e + " !" + std::to_string(*fault));
      throw ModelThrow{*fault};
    }
    events_.push_back(e);
    if (h == Hook::should_run) {
      const auto& veto = s_.instruments[static_cast<std::size_t>(i)].veto;
      return std::find(veto.begin(), veto.end(), subject) == veto.end();
    }
    return true;
  }
  int instruments() const { return static_cast<int>(s_.instruments.size()); }

  static bool contains(const std::vector<std::string>& v, const std::string& name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  }

  // SPEC §2 PassEnabled (the utility passes have opt_level 0).
  bool pass_enabled(const Node& n) const {
    const std::string name = pass_name(n);
    if (contains(s_.context.disabled_pass, name)) return false;
    if (contains(s_.context.required_pass, name)) return true;
    return s_.context.opt_level >= n.opt_level;
  }

  // ------------------------------------------------------------ the cache

  Entry* find(int a, int f) {
    for (Entry& e : cache_) {
      if (e.analysis == a && e.function == f) return &e;
    }
    return nullptr;
  }

  // SPEC §10.4: drop the results `own` selects and, transitively, every
  // result one of whose inputs is dropped (inputs are stored first, so one
  // walk in storage order sees them first); then one invalidated event per
  // dropped result, in storage order, on every instrument in order.
  template <class Own>
  void invalidate(Own&& own) {
    std::vector<int> dropped;  // serials
    for (const Entry& e : cache_) {
      bool drop = own(e);
      for (int in : e.inputs) drop = drop || std::find(dropped.begin(), dropped.end(), in) != dropped.end();
      if (drop) dropped.push_back(e.serial);
    }
    if (dropped.empty()) return;
    std::vector<Entry> keep;
    std::vector<Entry> gone;
    for (Entry& e : cache_) {
      (std::find(dropped.begin(), dropped.end(), e.serial) != dropped.end() ? gone : keep).push_back(std::move(e));
    }
    cache_ = std::move(keep);
    for (const Entry& e : gone) {
      for (int i = 0; i < instruments(); ++i) call(i, Hook::invalidated, result_name(e.analysis, e.function));
    }
  }

  // An analysis's own test (SPEC §10.4): its is_invalidated, or !preserved.
  static bool own_test(int a, const PA& pa) {
    if (a == MC) return !preserved(pa, TagT);
    if (a == FC) return !preserved(pa, TagT) && !preserved(pa, FC);
    return !preserved(pa, a);
  }

  // After a module pass (module and function results), or the module-level step
  // of a function pass (module results only). An "all" set costs no walk.
  void invalidate_module(const PA& pa, bool function_results_too) {
    if (is_all(pa)) return;
    invalidate([&](const Entry& e) {
      if (e.function >= 0 && !function_results_too) return false;
      return own_test(e.analysis, pa);
    });
  }
  // After a function pass's call for function f (SPEC §10.5).
  void invalidate_function(int f, const PA& pa) {
    if (is_all(pa)) return;
    invalidate([&](const Entry& e) { return e.function == f && own_test(e.analysis, pa); });
  }
  void clear() {
    invalidate([](const Entry&) { return true; });
  }

  // SPEC §10.2 / §10.6: get<A>(ir[, fn]) through the context's handle.
  int get(int a, int f) {
    if (Entry* e = find(a, f)) return e->serial;
    const std::string name = result_name(a, f);
    int returned = 0;
    try {
      for (int i = 0; i < instruments(); ++i) {
        call(i, Hook::before_analysis, name);
        ++returned;
      }
    } catch (const ModelThrow& t) {
      failed_hooks(returned, name, t.id);
      throw;
    }
    const int serial = ++serial_;
    events_.push_back("run " + name + " #" + std::to_string(serial));
    std::vector<int> inputs;
    try {
      const unsigned req = s_.requests[a] & declared_deps(a);
      // The order the analyses' run functions request their dependencies in.
      for (int d = 0; d < kAnalyses; ++d) {
        if (!(req & kbit(d))) continue;
        if (is_function_analysis(d)) {
          if (is_function_analysis(a)) {
            inputs.push_back(get(d, f));
          } else {
            for (int g = 0; g < kFunctions; ++g) inputs.push_back(get(d, g));
          }
        } else {
          inputs.push_back(get(d, -1));
        }
      }
      const int n = ++runs_[a];
      for (std::size_t k = 0; k < s_.faults.size(); ++k) {
        const Fault& fault = s_.faults[k];
        if (!fired_[k] && fault.where == Fault::Where::analysis && fault.analysis == a && fault.occurrence == n) {
          fired_[k] = true;
          events_.push_back("throw " + name + " !" + std::to_string(fault.id));
          throw ModelThrow{fault.id};
        }
      }
    } catch (const ModelThrow& t) {
      failed_hooks(returned, name, t.id);  // nothing cached for A; its inputs stay
      throw;
    }
    cache_.push_back({a, f, serial, std::move(inputs)});
    // run_after_analysis in order; a throw: the result stays stored, the
    // instruments whose after hook was not started get analysis_failed (as
    // run_after_pass_failed, SPEC §5), the exception leaves get.
    int started = 0;
    try {
      for (int i = 0; i < instruments(); ++i) {
        ++started;
        call(i, Hook::after_analysis, name);
      }
    } catch (const ModelThrow& t) {
      for (int i = started; i < returned; ++i) call(i, Hook::analysis_failed, name, t.id);
      throw;
    }
    return serial;
  }

  void failed_hooks(int returned, const std::string& name, int id) {
    for (int i = 0; i < returned; ++i) call(i, Hook::analysis_failed, name, id);
  }

  // ------------------------------------------------------------ passes

  // SPEC §3 + §10.4 for one pass (a Sequential included).
  void run_pass(const Node& n, std::vector<std::string>& trail) {
    const std::string name = pass_name(n);
    bool go = true;
    if (!contains(s_.context.required_pass, name)) {
      for (int i = 0; i < instruments(); ++i) {
        const bool says_run = call(i, Hook::should_run, name);
        go = go && says_run;
      }
    }
    if (!go) return;  // skipped: preserves everything, no event
    int returned = 0;
    int started = 0;
    try {
      for (int i = 0; i < instruments(); ++i) {
        call(i, Hook::before, name);
        ++returned;
      }
      PA pa;
      try {
        pa = body(n, trail);
      } catch (const ModelThrow&) {
        clear();  // SPEC §10.6: the IR the results described was moved into the failed pass
        throw;
      }
      if (n.kind == Node::Kind::function_pass) {
        invalidate_module(pa, false);
      } else {
        invalidate_module(pa, true);
      }
      for (int i = 0; i < instruments(); ++i) {
        ++started;
        call(i, Hook::after, name);
      }
    } catch (const ModelThrow& t) {
      for (int i = started; i < returned; ++i) call(i, Hook::after_failed, name, t.id);
      throw;
    }
  }

  // Runs the body; returns the pass's effective set (for a function pass: the
  // module-level one, after the per-function invalidations).
  PA body(const Node& n, std::vector<std::string>& trail) {
    switch (n.kind) {
      case Node::Kind::seq:
        for (const Node& child : n.children) {
          if (!pass_enabled(child)) continue;
          for (const Node& r : child.required) run_pass(r, trail);  // ordinary runs: their sets apply
          run_pass(child, trail);
        }
        return {true, 0, 0};
      case Node::Kind::require:
        get(n.analysis, -1);
        return {true, 0, 0};
      case Node::Kind::invalidate:
        return {true, 0, kbit(n.analysis)};
      case Node::Kind::invalidate_all:
        return {};
      case Node::Kind::module_pass: {
        events_.push_back(n.name);
        frames_.emplace_back();
        struct Pop {
          std::vector<PA>& f;
          ~Pop() { f.pop_back(); }
        } pop{frames_};
        actions(n, n.actions, -1, trail);
        trail.push_back(n.name);
        return unite(decl_pa(n.decl), frames_.back());
      }
      case Node::Kind::function_pass: {
        const PA decl = decl_pa(n.decl);
        std::optional<PA> common;      // the intersection of the per-function marks
        for (int f = 0; f < 2; ++f) {  // f and g; x is external
          events_.push_back(n.name + ":" + function_name(f));
          frames_.emplace_back();
          PA marks;
          {
            struct Pop {
              std::vector<PA>& f;
              ~Pop() { f.pop_back(); }
            } pop{frames_};
            actions(n, n.fn_actions[static_cast<std::size_t>(f)], f, trail);
            marks = frames_.back();
          }
          invalidate_function(f, unite(decl, marks));
          common = common ? intersect(*common, marks) : marks;
        }
        return unite(decl, *common);  // (a function pass changes functions only: no trail entry)
      }
    }
    return {};
  }

  void actions(const Node& n, const std::vector<Action>& list, int current, std::vector<std::string>& trail) {
    for (const Action& act : list) {
      const int fn = is_function_analysis(act.key) ? (act.function >= 0 ? act.function : current) : -1;
      switch (act.kind) {
        case Action::Kind::get:
          events_.push_back("get " + result_name(act.key, fn) + " = #" + std::to_string(get(act.key, fn)));
          break;
        case Action::Kind::get_caught:
          try {
            events_.push_back("get " + result_name(act.key, fn) + " = #" + std::to_string(get(act.key, fn)));
          } catch (const ModelThrow& t) {
            events_.push_back("get " + result_name(act.key, fn) + " caught ^" + std::to_string(t.id));
          }
          break;
        case Action::Kind::cached: {
          const Entry* e = find(act.key, fn);
          events_.push_back("cached " + result_name(act.key, fn) + " = " +
                            (e ? "#" + std::to_string(e->serial) : std::string("-")));
          break;
        }
        case Action::Kind::preserve:
          frames_.back().keys |= kbit(act.key);
          break;
        case Action::Kind::preserve_all:
          frames_.back().all = true;
          break;
        case Action::Kind::abandon:
          frames_.back().abandoned |= kbit(act.key);
          break;
        case Action::Kind::nested: {
          const std::vector<std::string> saved = trail;
          try {
            run_pass(n.nested.front(), trail);
          } catch (const ModelThrow& t) {
            if (!act.caught) throw;
            trail = saved;
            events_.push_back("nested caught ^" + std::to_string(t.id));
          }
          break;
        }
        case Action::Kind::fail:
          events_.push_back("fail !" + std::to_string(act.fault));
          throw ModelThrow{act.fault};
      }
    }
  }
};

}  // namespace detail

inline Outcome run_model(const Scenario& s) { return detail::Model(s).run(); }

// ---------------------------------------------------------------- printing

namespace detail {

inline std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
  return out;
}

inline std::string describe_action(const Action& a) {
  auto target = [&] {
    std::string s = a.by_name ? std::string("\"") + key_name(a.key) + "\"" : std::string(key_name(a.key));
    if (a.kind != Action::Kind::preserve && a.kind != Action::Kind::abandon && is_function_analysis(a.key)) {
      s += a.function >= 0 ? std::string("@") + function_name(a.function) : std::string("@current");
    }
    return s;
  };
  switch (a.kind) {
    case Action::Kind::get:
      return "get " + target();
    case Action::Kind::get_caught:
      return "try-get " + target();
    case Action::Kind::cached:
      return "cached " + target();
    case Action::Kind::preserve:
      return "preserve " + target();
    case Action::Kind::preserve_all:
      return "preserve_all";
    case Action::Kind::abandon:
      return "abandon " + target();
    case Action::Kind::nested:
      return a.caught ? "nested (caught)" : "nested";
    case Action::Kind::fail:
      return "fail !" + std::to_string(a.fault);
  }
  return "?";
}

inline std::string describe_actions(const std::vector<Action>& list) {
  std::vector<std::string> parts;
  for (const auto& a : list) parts.push_back(describe_action(a));
  return "[" + join(parts) + "]";
}

inline void describe_node(const Node& n, int depth, std::string& out) {
  out += std::string(2 * static_cast<std::size_t>(depth), ' ');
  switch (n.kind) {
    case Node::Kind::seq:
      out += "seq '" + n.name + "' opt=" + std::to_string(n.opt_level);
      break;
    case Node::Kind::module_pass:
      out += "module pass '" + n.name + "' opt=" + std::to_string(n.opt_level) + " " + decl_name(n.decl) + " " +
             describe_actions(n.actions);
      break;
    case Node::Kind::function_pass:
      out += "function pass '" + n.name + "' opt=" + std::to_string(n.opt_level) + " " + decl_name(n.decl) +
             " f:" + describe_actions(n.fn_actions[0]) + " g:" + describe_actions(n.fn_actions[1]);
      break;
    default:
      out += pass_name(n);
      break;
  }
  if (n.static_index >= 0) out += " [static #" + std::to_string(n.static_index) + "]";
  out += "\n";
  for (const Node& r : n.required) {
    out += std::string(2 * static_cast<std::size_t>(depth) + 2, ' ') + "(requires)\n";
    describe_node(r, depth + 2, out);
  }
  for (const Node& c : n.children) describe_node(c, depth + 1, out);
  for (const Node& c : n.nested) describe_node(c, depth + 2, out);
}

}  // namespace detail

inline std::string describe(const Scenario& s) {
  std::string out;
  for (const auto& in : s.instruments) {
    out += "instrument '" + in.name + "' hooks:";
    for (int h = 0; h < kHookCount; ++h) {
      if (in.hooks & (1u << h)) out += std::string(" ") + hook_name(static_cast<Hook>(h));
    }
    if (!in.veto.empty()) out += " veto=[" + detail::join(in.veto) + "]";
    out += "\n";
  }
  out += "context opt_level=" + std::to_string(s.context.opt_level) + " required=[" +
         detail::join(s.context.required_pass) + "] disabled=[" + detail::join(s.context.disabled_pass) + "]\n";
  out += "requests:";
  for (int a = 0; a < kAnalyses; ++a) {
    if (!declared_deps(a)) continue;
    out += std::string(" ") + key_name(a) + "->{";
    bool first = true;
    for (int d = 0; d < kAnalyses; ++d) {
      if (s.requests[a] & declared_deps(a) & kbit(d)) {
        out += (first ? "" : ",") + std::string(key_name(d));
        first = false;
      }
    }
    out += "}";
  }
  out += "\n";
  for (const auto& f : s.faults) {
    out += "fault " + std::to_string(f.id) + ": ";
    switch (f.where) {
      case Fault::Where::body:
        out += "a pass body (fail action)";
        break;
      case Fault::Where::analysis:
        out += std::string("analysis ") + key_name(f.analysis) + ", computation " + std::to_string(f.occurrence);
        break;
      case Fault::Where::hook:
        out += "instrument " + s.instruments[static_cast<std::size_t>(f.instrument)].name + " " + hook_name(f.hook) +
               ", call " + std::to_string(f.occurrence);
        break;
    }
    out += "\n";
  }
  out += "pipeline:\n";
  detail::describe_node(s.root, 1, out);
  return out;
}

inline std::string describe(const Cached& c) {
  return result_name(c.analysis, c.function) + " #" + std::to_string(c.serial);
}

// ---------------------------------------------------------------- generation

// splitmix64, so scenarios are the same everywhere.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return n <= 0 ? 0 : static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(below(static_cast<int>(v.size())))];
  }
};

inline const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names{"P0", "P1", "P2", "P3", "P4", "P5"};
  return names;
}

// The hook masks the static instrument types of the property test exist for
// (SInstr<M>); the dynamic layer also takes any mask (a run-time mask type).
inline const std::vector<unsigned>& static_masks() {
  static const std::vector<unsigned> masks{
      0xff,  // all eight
      0x0f,  // the pass hooks
      0xf0,  // the analysis hooks
      0x90,  // before_analysis, invalidated
      0x80,  // invalidated only
      0x66,  // before, after, after_analysis, analysis_failed
      0x35,  // should_run, after, before_analysis, after_analysis
      0x5a,  // before, after_failed, before_analysis, analysis_failed
  };
  return masks;
}

inline Action random_action(Rng& rng, bool in_function_pass, bool may_nest) {
  Action a;
  const int r = rng.below(100);
  a.kind = r < 38   ? Action::Kind::get
           : r < 46 ? Action::Kind::get_caught
           : r < 56 ? Action::Kind::cached
           : r < 76 ? Action::Kind::preserve
           : r < 82 ? Action::Kind::preserve_all
           : r < 92 ? Action::Kind::abandon
                    : Action::Kind::nested;
  if (a.kind == Action::Kind::nested && !may_nest) a.kind = Action::Kind::get;
  if (a.kind == Action::Kind::preserve || a.kind == Action::Kind::abandon) {
    a.key = rng.below(kKeys);
  } else {
    a.key = rng.below(kAnalyses);
  }
  if (is_function_analysis(a.key)) a.function = in_function_pass && rng.chance(75) ? -1 : rng.below(kFunctions);
  if (a.kind == Action::Kind::nested) a.caught = rng.chance(40);
  const bool nameable = a.kind == Action::Kind::get || a.kind == Action::Kind::get_caught ||
                        a.kind == Action::Kind::preserve || a.kind == Action::Kind::abandon;
  if (nameable && a.key < kAnalyses) a.by_name = rng.chance(25);
  return a;
}

inline std::vector<Action> random_actions(Rng& rng, int max, bool in_function_pass, bool may_nest) {
  std::vector<Action> out;
  const int n = rng.below(max + 1);
  for (int i = 0; i < n; ++i) out.push_back(random_action(rng, in_function_pass, may_nest));
  return out;
}

namespace detail {

// A required pass: a module pass named R0..R2 (any declaration, its own actions).
inline Node random_required(Rng& rng) {
  Node r;
  r.kind = Node::Kind::module_pass;
  r.name = "R" + std::to_string(rng.below(3));
  r.opt_level = rng.below(4);  // (not gated: required passes run whatever their level)
  r.decl = rng.below(kDecls);
  r.actions = random_actions(rng, 3, false, false);
  return r;
}

inline Node random_tree(Rng& rng, int depth) {
  Node n;
  const int r = rng.below(100);
  const bool seq_ok = depth < 3;
  if (seq_ok && (depth == 0 ? r < 80 : r < 15)) {
    n.kind = Node::Kind::seq;
    n.name = rng.chance(70) ? "sequential" : "S1";
    n.opt_level = rng.chance(80) ? 0 : rng.below(4);
    const int children = rng.below(6);
    for (int i = 0; i < children; ++i) {
      n.children.push_back(random_tree(rng, depth + 1));
      Node& c = n.children.back();
      if ((c.kind == Node::Kind::module_pass || c.kind == Node::Kind::function_pass) && rng.chance(20)) {
        const int r = 1 + rng.below(2);
        for (int k = 0; k < r; ++k) c.required.push_back(random_required(rng));
      }
    }
    return n;
  }
  const int k = rng.below(100);
  n.name = rng.pick(pass_names());
  n.opt_level = rng.below(4);
  n.decl = rng.below(kDecls);
  if (k < 50) {
    n.kind = Node::Kind::module_pass;
    const bool nest = depth < 3 && rng.chance(25);
    n.actions = random_actions(rng, 5, false, nest);
    if (nest) {
      bool has = false;
      for (const auto& a : n.actions) has = has || a.kind == Action::Kind::nested;
      if (!has) {
        Action a;
        a.kind = Action::Kind::nested;
        a.caught = rng.chance(40);
        n.actions.insert(n.actions.begin() + rng.below(static_cast<int>(n.actions.size()) + 1), a);
      }
      n.nested.push_back(random_tree(rng, depth + 1));
    }
  } else if (k < 80) {
    n.kind = Node::Kind::function_pass;
    n.fn_actions = {random_actions(rng, 3, true, false), random_actions(rng, 3, true, false)};
  } else if (k < 88) {
    n.kind = Node::Kind::require;
    n.analysis = rng.pick(std::vector<int>{MA, MB, MC});
  } else if (k < 95) {
    n.kind = Node::Kind::invalidate;
    n.analysis = rng.below(kAnalyses);
  } else {
    n.kind = Node::Kind::invalidate_all;
  }
  if (n.kind == Node::Kind::require || n.kind == Node::Kind::invalidate || n.kind == Node::Kind::invalidate_all) {
    n.name.clear();
    n.opt_level = 0;
    n.decl = 0;
  }
  return n;
}

inline void collect_bodies(Node& n, std::vector<std::vector<Action>*>& out) {
  if (n.kind == Node::Kind::module_pass) out.push_back(&n.actions);
  if (n.kind == Node::Kind::function_pass) {
    for (auto& l : n.fn_actions) out.push_back(&l);
  }
  for (auto& c : n.required) collect_bodies(c, out);
  for (auto& c : n.children) collect_bodies(c, out);
  for (auto& c : n.nested) collect_bodies(c, out);
}

}  // namespace detail

inline InstrumentSpec random_instrument(Rng& rng, int index, unsigned mask) {
  InstrumentSpec in;
  in.name = "I" + std::to_string(index);
  in.hooks = mask;
  if (rng.chance(25)) {
    for (const auto& n : pass_names()) {
      if (rng.chance(15)) in.veto.push_back(n);
    }
  }
  return in;
}

inline ContextSpec random_context(Rng& rng) {
  ContextSpec c;
  c.opt_level = rng.chance(60) ? 3 : rng.below(4);
  if (rng.chance(25)) {
    for (const auto& n : pass_names()) {
      if (rng.chance(15)) c.disabled_pass.push_back(n);
    }
  }
  if (rng.chance(20)) {
    for (const auto& n : pass_names()) {
      if (rng.chance(15)) c.required_pass.push_back(n);
    }
  }
  return c;
}

inline void random_requests(Rng& rng, Scenario& s) {
  for (int a = 0; a < kAnalyses; ++a) {
    for (int d = 0; d < kAnalyses; ++d) {
      if ((declared_deps(a) & kbit(d)) && rng.chance(75)) s.requests[a] |= kbit(d);
    }
  }
}

// Faults: fail actions put into bodies, analyses throwing on their k-th
// computation, hooks throwing on their k-th call. Ids from 1.
inline void random_faults(Rng& rng, Scenario& s, int max_faults) {
  std::vector<std::vector<Action>*> bodies;
  detail::collect_bodies(s.root, bodies);
  const int n = rng.chance(20) ? 0 : 1 + rng.below(max_faults);
  int id = 0;
  for (int k = 0; k < n; ++k) {
    Fault f;
    const int r = rng.below(100);
    if (r < 30 && !bodies.empty()) {
      f.where = Fault::Where::body;
      f.id = ++id;
      auto& list = *bodies[static_cast<std::size_t>(rng.below(static_cast<int>(bodies.size())))];
      Action a;
      a.kind = Action::Kind::fail;
      a.fault = f.id;
      list.insert(list.begin() + rng.below(static_cast<int>(list.size()) + 1), a);
    } else if (r < 65 || s.instruments.empty()) {
      f.where = Fault::Where::analysis;
      f.analysis = rng.below(kAnalyses);
      f.occurrence = rng.chance(60) ? 1 : 1 + rng.below(3);
      f.id = ++id;
    } else {
      f.where = Fault::Where::hook;
      f.instrument = rng.below(static_cast<int>(s.instruments.size()));
      std::vector<Hook> present;
      for (int h = 0; h < kHookCount; ++h) {
        const Hook hook = static_cast<Hook>(h);
        if ((s.instruments[static_cast<std::size_t>(f.instrument)].hooks & hbit(hook)) && faultable(hook)) {
          present.push_back(hook);
        }
      }
      if (present.empty()) continue;
      f.hook = rng.pick(present);
      f.occurrence = rng.chance(50) ? 1 : 1 + rng.below(4);
      f.id = ++id;
    }
    s.faults.push_back(f);
  }
}

// generate(rng, any_mask): a free-form scenario for the dynamic layer
// (any_mask: instruments may have any set of hooks, else one of static_masks()).
inline Scenario generate(Rng& rng, bool any_mask) {
  Scenario s;
  const int n_instruments = rng.below(4);
  for (int i = 0; i < n_instruments; ++i) {
    const unsigned mask =
        any_mask && rng.chance(50) ? 1u + static_cast<unsigned>(rng.below(255)) : rng.pick(static_masks());
    s.instruments.push_back(random_instrument(rng, i, mask));
  }
  s.context = random_context(rng);
  random_requests(rng, s);
  s.root = detail::random_tree(rng, 0);
  random_faults(rng, s, 3);
  return s;
}

}  // namespace anmodel
