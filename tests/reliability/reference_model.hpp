// tests/reliability/reference_model.hpp — a plain, independent model of docs/spec.md §2–§5.
//
// refmodel::Scenario          a pipeline tree, contexts, instruments, a mode and a fault plan
// refmodel::Outcome           what docs/spec.md says happens: events, the escaping fault, the
//                             instruments each context holds afterwards, the §5 log lines,
//                             the IR trail, and which context is current() afterwards
// refmodel::run_model(s)      the SPEC's answer for a scenario
// refmodel::describe(s)       the scenario as readable text (printed when a check fails)
// refmodel::generate(rng, options)   a random scenario (free form)
//
// This file is written from the text of docs/spec.md (and, for passinfra's sixth hook
// run_after_pass_failed, from the paragraph of its §5 that defines it),
// not from the implementation: it shares no code with include/passinfra and is
// deliberately naive -- every rule is one visible statement, and the model's
// own exceptions (ModelThrow) play the exceptions of the scenario.
//
// Events, as the property test records them:
//   "<instrument> <hook> @<cur>"           enter_pass_ctx / exit_pass_ctx
//   "<instrument> <hook> <pass>"           should_run / run_before_pass / run_after_pass
//   "<instrument> run_after_pass_failed <pass> ^<id>"   given the exception of fault <id>
//   "<pass> @<cur>"                        a pass body running
// where <cur> is the context current() returns at that moment: "D" for the
// thread's default context, else the context's index in Scenario::contexts.
// A call that throws fault <id> has " !<id>" appended (the throw happens after
// the event is recorded).
//
// Fault plan: a fault fires on the k-th call of one hook of one instrument
// (calls counted per instrument and hook over the whole scenario, clean-up
// calls included; a hook the instrument does not have is never called), or on
// the k-th run of a pass body with a given name. Each fault fires at most once
// and throws its own exception object (identified by its id).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refmodel {

enum class Hook { enter = 0, exit = 1, should_run = 2, before = 3, after = 4, after_failed = 5 };
inline constexpr int kHookCount = 6;
inline constexpr unsigned kAllSpecHooks = 0x1f;  // the five hooks of SPEC §5

inline const char* hook_name(Hook h) {
  switch (h) {
    case Hook::enter:
      return "enter_pass_ctx";
    case Hook::exit:
      return "exit_pass_ctx";
    case Hook::should_run:
      return "should_run";
    case Hook::before:
      return "run_before_pass";
    case Hook::after:
      return "run_after_pass";
    case Hook::after_failed:
      return "run_after_pass_failed";
  }
  return "?";
}

inline unsigned bit(Hook h) { return 1u << static_cast<int>(h); }

// A node of the pipeline tree.
struct Node {
  enum class Kind { pass, seq } kind = Kind::pass;
  std::string name;
  int opt_level = 0;
  // pass: the names of the passes it requires (leaf passes: a body, nothing else)
  std::vector<std::string> required;
  // seq: the children, in order
  std::vector<Node> children;
  // pass: a pipeline its body runs (0 or 1 element) ...
  std::vector<Node> nested;
  // ... under the context the pass was given (-1), or inside a scope of
  // contexts[nested_context], under current()
  int nested_context = -1;
  // the body catches whatever the nested run throws and goes on with its input
  bool catch_nested = false;
  // Static shapes (property test): the index of the static pass type this node stands for.
  int static_index = -1;
};

struct InstrumentSpec {
  std::string name;
  unsigned hooks = kAllSpecHooks;  // bit(Hook) for each hook it has
  std::vector<std::string> veto;   // should_run answers "skip" for these pass names
};

struct ContextSpec {
  int opt_level = 2;
  std::vector<std::string> required_pass;
  std::vector<std::string> disabled_pass;
  std::vector<int> instruments;  // indices into Scenario::instruments, in list order
  bool dynamic = true;           // a PassContext<IR> (pushed, so current() sees it); false: a static context
};

struct Fault {
  bool on_body = false;       // else on a hook
  int instrument = 0;         // on a hook: which instrument ...
  Hook hook = Hook::enter;    // ... and which hook
  std::string pass;           // on a body: the pass name
  int occurrence = 1;         // the k-th call (1-based)
  int id = 1;                 // the exception's identity
  bool std_exception = true;  // derived from std::exception, or not
};

enum class Mode {
  scope,              // contexts[0] entered (enter() or with()), the pipeline run inside
  unentered,          // contexts[0] never entered; the pipeline run with it explicitly
  override_default,   // the thread's default context: override_instruments(contexts[0].instruments),
                      // run under current(), then override_instruments({}) (SPEC §2, §5.3)
  override_in_scope,  // contexts[0] entered with its list; inside the scope override_instruments(
                      // override_list), then the run; the scope exit follows
  scope_twice         // Mode::scope, and then the same again (a second step) with the same context
};

inline const char* mode_name(Mode m) {
  switch (m) {
    case Mode::scope:
      return "scope";
    case Mode::unentered:
      return "unentered";
    case Mode::override_default:
      return "override_default";
    case Mode::override_in_scope:
      return "override_in_scope";
    case Mode::scope_twice:
      return "scope_twice";
  }
  return "?";
}

struct Scenario {
  Node root;
  std::vector<InstrumentSpec> instruments;
  std::vector<ContextSpec> contexts;  // [0]: the main context; the others are entered by nested runs
  std::vector<int> override_list;     // Mode::override_in_scope
  Mode mode = Mode::scope;
  std::vector<Fault> faults;
};

struct LogLine {
  std::string level;       // "INFO" or "WARNING"
  std::string text;        // INFO: the exact message
  std::string instrument;  // WARNING: the instrument whose exception was dropped ...
  int dropped = 0;         // ... and that exception's id
  friend bool operator==(const LogLine&, const LogLine&) = default;
};

struct Outcome {
  std::vector<std::string> events;
  std::optional<int> escaped;                  // the fault whose exception leaves the main step
  std::vector<std::vector<std::string>> held;  // per context: instruments held after the main step
  std::vector<std::string> trail;              // the IR's trail (meaningful when nothing escaped)
  // The second step: Mode::override_default: override_instruments({}) on the
  // default context; Mode::scope_twice: the scope and the run again.
  std::optional<int> second_escaped;
  std::vector<std::string> held_final;  // context 0's instruments after the second step
  std::vector<std::string> trail_second;
  std::vector<LogLine> log;
  std::string current_after = "D";
};

// ---------------------------------------------------------------- the model

namespace detail {

struct ModelThrow {
  int id;
};

class Model {
 public:
  explicit Model(const Scenario& s) : s_(s) {
    held_.resize(s.contexts.size());
    counts_.assign(s.instruments.size(), std::vector<int>(kHookCount, 0));
    fired_.assign(s.faults.size(), false);
  }

  Outcome run() {
    Outcome out;
    for (std::size_t c = 0; c < s_.contexts.size(); ++c) held_[c] = s_.contexts[c].instruments;
    std::vector<std::string> trail;
    try {
      switch (s_.mode) {
        case Mode::scope:
        case Mode::scope_twice:
          scope(0, [&] { run_pass(s_.root, 0, trail); });
          break;
        case Mode::unentered:
          run_pass(s_.root, 0, trail);
          break;
        case Mode::override_default:
          held_[0].clear();  // the default context starts with no instruments
          override_instruments(0, s_.contexts[0].instruments);
          run_pass(s_.root, 0, trail);
          break;
        case Mode::override_in_scope:
          scope(0, [&] {
            override_instruments(0, s_.override_list);
            run_pass(s_.root, 0, trail);
          });
          break;
      }
    } catch (const ModelThrow& t) {
      out.escaped = t.id;
    }
    for (std::size_t c = 0; c < s_.contexts.size(); ++c) out.held.push_back(names(held_[c]));
    if (s_.mode == Mode::override_default || s_.mode == Mode::scope_twice) {
      try {
        if (s_.mode == Mode::override_default) {
          override_instruments(0, {});
        } else {
          scope(0, [&] { run_pass(s_.root, 0, out.trail_second); });
        }
      } catch (const ModelThrow& t) {
        out.second_escaped = t.id;
      }
      out.held_final = names(held_[0]);
    }
    out.events = std::move(events_);
    out.log = std::move(log_);
    out.trail = std::move(trail);
    out.current_after = current_label();
    return out;
  }

 private:
  const Scenario& s_;
  std::vector<std::vector<int>> held_;  // per context: the instruments it holds now
  std::vector<int> stack_;              // entered dynamic contexts, innermost last
  std::vector<std::vector<int>> counts_;
  std::vector<std::pair<std::string, int>> body_counts_;
  std::vector<bool> fired_;
  std::vector<std::string> events_;
  std::vector<LogLine> log_;

  std::vector<std::string> names(const std::vector<int>& list) const {
    std::vector<std::string> out;
    for (int i : list) out.push_back(s_.instruments[i].name);
    return out;
  }

  std::string current_label() const {
    // current(): the top of this thread's stack, or its default context (SPEC §2)
    return stack_.empty() ? "D" : std::to_string(stack_.back());
  }

  void info(const std::string& text) { log_.push_back({"INFO", text, "", 0}); }
  void warning(int instrument, int dropped) {
    log_.push_back({"WARNING", "", s_.instruments[instrument].name, dropped});
  }

  bool has(int instrument, Hook h) const { return (s_.instruments[instrument].hooks & bit(h)) != 0; }

  // The fault that fires on this call, if any.
  std::optional<int> hook_fault(int instrument, Hook h) {
    const int n = ++counts_[instrument][static_cast<int>(h)];
    for (std::size_t f = 0; f < s_.faults.size(); ++f) {
      const Fault& fault = s_.faults[f];
      if (!fired_[f] && !fault.on_body && fault.instrument == instrument && fault.hook == h && fault.occurrence == n) {
        fired_[f] = true;
        return fault.id;
      }
    }
    return std::nullopt;
  }

  std::optional<int> body_fault(const std::string& pass) {
    int n = 0;
    bool found = false;
    for (auto& [name, count] : body_counts_) {
      if (name == pass) {
        n = ++count;
        found = true;
      }
    }
    if (!found) {
      body_counts_.emplace_back(pass, 1);
      n = 1;
    }
    for (std::size_t f = 0; f < s_.faults.size(); ++f) {
      const Fault& fault = s_.faults[f];
      if (!fired_[f] && fault.on_body && fault.pass == pass && fault.occurrence == n) {
        fired_[f] = true;
        return fault.id;
      }
    }
    return std::nullopt;
  }

  // One hook call on one instrument. A hook it lacks does nothing (should_run: "run").
  // run_after_pass_failed is given the exception in flight (`failed`).
  bool call(int instrument, Hook h, const std::string& pass = {}, int failed = 0) {
    if (!has(instrument, h)) return true;
    std::string e = s_.instruments[instrument].name + " " + hook_name(h);
    if (h == Hook::enter || h == Hook::exit) {
      e += " @" + current_label();
    } else {
      e += " " + pass;
    }
    if (h == Hook::after_failed) e += " ^" + std::to_string(failed);
    const auto fault = hook_fault(instrument, h);
    if (fault) {
      events_.push_back(e + " !" + std::to_string(*fault));
      throw ModelThrow{*fault};
    }
    events_.push_back(e);
    if (h == Hook::should_run) {
      const auto& veto = s_.instruments[instrument].veto;
      return std::find(veto.begin(), veto.end(), pass) == veto.end();
    }
    return true;
  }

  static bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  }

  // SPEC §2 PassEnabled.
  bool pass_enabled(int c, const Node& n) const {
    const ContextSpec& ctx = s_.contexts[c];
    if (contains(ctx.disabled_pass, n.name)) return false;
    if (contains(ctx.required_pass, n.name)) return true;
    return ctx.opt_level >= n.opt_level;
  }

  // SPEC §5.1: enter hooks in order; on a throw, INFO x2, clear, exit the
  // ones entered (each between two INFO lines; a throwing exit is logged as a
  // WARNING and dropped, the clean-up goes on), rethrow the original.
  void enter(int c) {
    const std::vector<int> list = held_[c];
    std::size_t entered = 0;
    for (int i : list) {
      try {
        call(i, Hook::enter);
      } catch (const ModelThrow&) {
        info("Pass instrumentation entering pass context failed.");
        info("Disable pass instrumentation.");
        held_[c].clear();
        for (std::size_t j = 0; j < entered; ++j) {
          const std::string& name = s_.instruments[list[j]].name;
          info(name + " exiting PassContext ...");
          try {
            call(list[j], Hook::exit);
          } catch (const ModelThrow& dropped) {
            warning(list[j], dropped.id);
            continue;
          }
          info(name + " exited PassContext.");
        }
        throw;
      }
      ++entered;
    }
  }

  // SPEC §5.2 / §5.4: exit hooks in order; on a throw, INFO, clear (later
  // instruments are not exited), rethrow -- unless an exception is already
  // leaving the scope: then the exit's is logged (WARNING) and dropped.
  void exit(int c, bool exception_in_flight) {
    const std::vector<int> list = held_[c];
    for (int i : list) {
      try {
        call(i, Hook::exit);
      } catch (const ModelThrow& t) {
        info("Pass instrumentation exiting pass context failed.");
        held_[c].clear();
        if (!exception_in_flight) throw;
        warning(i, t.id);
        return;
      }
    }
  }

  // SPEC §2 override_instruments: old exits, install, new enters.
  void override_instruments(int c, const std::vector<int>& list) {
    exit(c, false);  // a throw here: cleared, and `list` is never installed
    held_[c] = list;
    enter(c);  // a throw here: `list` is cleared
  }

  // SPEC §2: enter (hooks, then push), the body, then pop and the exit hooks.
  template <class F>
  void scope(int c, F&& body) {
    enter(c);  // a failed enter never pushes
    const bool push = s_.contexts[c].dynamic;
    if (push) stack_.push_back(c);
    std::optional<ModelThrow> in_flight;
    try {
      body();
    } catch (const ModelThrow& t) {
      in_flight = t;
    }
    if (push) stack_.pop_back();
    exit(c, in_flight.has_value());
    if (in_flight) throw *in_flight;
  }

  // SPEC §3 for one pass (a Sequential included), under context c.
  void run_pass(const Node& n, int c, std::vector<std::string>& trail) {
    const std::vector<int> list = held_[c];
    // 1. should_run on every instrument (AND-ed), unless the name is in required_pass.
    bool go = true;
    if (!contains(s_.contexts[c].required_pass, n.name)) {
      for (int i : list) {
        const bool says_run = call(i, Hook::should_run, n.name);
        go = go && says_run;
      }
    }
    if (!go) return;  // 2. skipped: the input unchanged, nothing else
    // 1b. before hooks; 3. the body; 4. after hooks -- no catch in this sequence.
    // (passinfra's run_after_pass_failed -- docs/spec.md §5: on each instrument whose
    // run_before_pass returned and whose run_after_pass was not started, in
    // list order, when the body or a later hook throws; its own throws are
    // logged and dropped.)
    std::size_t returned = 0;
    std::size_t started = 0;
    try {
      for (int i : list) {
        call(i, Hook::before, n.name);
        ++returned;
      }
      body(n, c, trail);
      for (int i : list) {
        ++started;
        call(i, Hook::after, n.name);
      }
    } catch (const ModelThrow& t) {
      for (std::size_t p = started; p < returned; ++p) {
        try {
          call(list[p], Hook::after_failed, n.name, t.id);
        } catch (const ModelThrow& dropped) {
          warning(list[p], dropped.id);
        }
      }
      throw;
    }
  }

  void leaf_body(const std::string& name, int c, std::vector<std::string>& trail) {
    (void)c;
    const std::string e = name + " @" + current_label();
    const auto fault = body_fault(name);
    if (fault) {
      events_.push_back(e + " !" + std::to_string(*fault));
      throw ModelThrow{*fault};
    }
    events_.push_back(e);
    trail.push_back(name);
  }

  void body(const Node& n, int c, std::vector<std::string>& trail) {
    if (n.kind == Node::Kind::seq) {
      // SPEC §4: per child: the gate; its required passes (through §3, no gate,
      // every time, one level deep); the child (through §3).
      for (const Node& child : n.children) {
        if (!pass_enabled(c, child)) continue;
        for (const std::string& r : child.required) {
          Node leaf;
          leaf.name = r;
          run_pass(leaf, c, trail);
        }
        run_pass(child, c, trail);
      }
      return;
    }
    leaf_body(n.name, c, trail);
    if (n.nested.empty()) return;
    const std::vector<std::string> saved = trail;
    try {
      if (n.nested_context < 0) {
        run_pass(n.nested.front(), c, trail);  // the context the outer pass was given
      } else {
        const int inner = n.nested_context;
        scope(inner, [&] { run_pass(n.nested.front(), inner, trail); });  // under current()
      }
    } catch (const ModelThrow&) {
      if (!n.catch_nested) throw;
      trail = saved;
    }
  }
};

}  // namespace detail

inline Outcome run_model(const Scenario& s) { return detail::Model(s).run(); }

// ---------------------------------------------------------------- printing

namespace detail {

inline std::string join_names(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
  return out;
}

inline void describe_node(const Node& n, int depth, std::string& out) {
  out += std::string(2 * static_cast<std::size_t>(depth), ' ');
  if (n.kind == Node::Kind::seq) {
    out += "seq '" + n.name + "' opt=" + std::to_string(n.opt_level);
  } else {
    out += "pass '" + n.name + "' opt=" + std::to_string(n.opt_level);
    if (!n.required.empty()) out += " requires=[" + join_names(n.required) + "]";
    if (!n.nested.empty()) {
      out += " nested";
      if (n.nested_context >= 0) out += " in context " + std::to_string(n.nested_context);
      if (n.catch_nested) out += " (caught)";
    }
  }
  if (n.static_index >= 0) out += " [static #" + std::to_string(n.static_index) + "]";
  out += "\n";
  for (const Node& c : n.children) describe_node(c, depth + 1, out);
  for (const Node& c : n.nested) describe_node(c, depth + 2, out);
}

}  // namespace detail

inline std::string describe(const Scenario& s) {
  std::string out = "mode: " + std::string(mode_name(s.mode)) + "\n";
  for (std::size_t i = 0; i < s.instruments.size(); ++i) {
    const auto& in = s.instruments[i];
    out += "instrument " + std::to_string(i) + " '" + in.name + "' hooks:";
    for (int h = 0; h < kHookCount; ++h) {
      if (in.hooks & (1u << h)) out += std::string(" ") + hook_name(static_cast<Hook>(h));
    }
    if (!in.veto.empty()) out += " veto=[" + detail::join_names(in.veto) + "]";
    out += "\n";
  }
  for (std::size_t c = 0; c < s.contexts.size(); ++c) {
    const auto& ctx = s.contexts[c];
    out += "context " + std::to_string(c) + (ctx.dynamic ? " (dynamic)" : " (static)") +
           " opt_level=" + std::to_string(ctx.opt_level) + " required=[" + detail::join_names(ctx.required_pass) +
           "] disabled=[" + detail::join_names(ctx.disabled_pass) + "] instruments=[";
    for (std::size_t i = 0; i < ctx.instruments.size(); ++i) out += (i ? "," : "") + std::to_string(ctx.instruments[i]);
    out += "]\n";
  }
  if (s.mode == Mode::override_in_scope) {
    out += "override list=[";
    for (std::size_t i = 0; i < s.override_list.size(); ++i) out += (i ? "," : "") + std::to_string(s.override_list[i]);
    out += "]\n";
  }
  for (const auto& f : s.faults) {
    out += "fault " + std::to_string(f.id) + (f.std_exception ? " (std)" : " (non-std)") + ": ";
    if (f.on_body) {
      out += "body of '" + f.pass + "'";
    } else {
      out += "instrument " + std::to_string(f.instrument) + " " + hook_name(f.hook);
    }
    out += ", occurrence " + std::to_string(f.occurrence) + "\n";
  }
  out += "pipeline:\n";
  detail::describe_node(s.root, 1, out);
  return out;
}

inline std::string describe(const LogLine& l) {
  if (l.level == "INFO") return "INFO " + l.text;
  return "WARNING (instrument " + l.instrument + " dropped fault " + std::to_string(l.dropped) + ")";
}

// ---------------------------------------------------------------- generation

// A small, fully specified PRNG (splitmix64), so scenarios are the same everywhere.
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
inline const std::vector<std::string>& required_names() {
  static const std::vector<std::string> names{"R0", "R1", "R2", "R3"};
  return names;
}
inline const std::vector<std::string>& sequential_names() {
  static const std::vector<std::string> names{"sequential", "sequential", "sequential", "S1", "S2"};
  return names;
}

inline std::vector<std::string> random_subset(Rng& rng, const std::vector<std::string>& from, int percent) {
  std::vector<std::string> out;
  for (const auto& n : from) {
    if (rng.chance(percent)) out.push_back(n);
  }
  return out;
}

// Every name a gate or a veto can mention.
inline std::vector<std::string> all_names() {
  std::vector<std::string> all = pass_names();
  for (const auto& n : required_names()) all.push_back(n);
  all.push_back("sequential");
  all.push_back("S1");
  all.push_back("S2");
  return all;
}

inline ContextSpec random_context_options(Rng& rng) {
  ContextSpec c;
  c.opt_level = rng.below(4);
  const auto all = all_names();
  if (rng.chance(50)) c.required_pass = random_subset(rng, all, 12);
  if (rng.chance(50)) c.disabled_pass = random_subset(rng, all, 12);
  return c;
}

inline InstrumentSpec random_instrument(Rng& rng, int index, unsigned hooks_if_fixed = 0) {
  InstrumentSpec in;
  in.name = "I" + std::to_string(index);
  if (hooks_if_fixed) {
    in.hooks = hooks_if_fixed;
  } else {
    in.hooks = 0;
    for (int h = 0; h < kHookCount; ++h) {
      if (rng.chance(h == static_cast<int>(Hook::after_failed) ? 35 : 75)) in.hooks |= 1u << h;
    }
    if (in.hooks == 0) in.hooks = 1u << rng.below(kHookCount);  // an instrument has at least one hook
  }
  if (rng.chance(40)) in.veto = random_subset(rng, all_names(), 15);
  return in;
}

// Names appearing as pass bodies in a tree (for body faults).
inline void body_names(const Node& n, std::vector<std::string>& out) {
  if (n.kind == Node::Kind::pass) {
    out.push_back(n.name);
    for (const auto& r : n.required) out.push_back(r);
  }
  for (const auto& c : n.children) body_names(c, out);
  for (const auto& c : n.nested) body_names(c, out);
}

inline std::vector<Fault> random_faults(Rng& rng, const Scenario& s, int max_faults) {
  std::vector<Fault> faults;
  std::vector<std::string> bodies;
  body_names(s.root, bodies);
  const int n = rng.chance(15) ? 0 : 1 + rng.below(max_faults);
  for (int k = 0; k < n; ++k) {
    Fault f;
    f.id = k + 1;
    f.std_exception = rng.chance(80);
    f.occurrence = rng.chance(60) ? 1 : 1 + rng.below(4);
    if (s.instruments.empty() || (rng.chance(30) && !bodies.empty())) {
      if (bodies.empty()) continue;
      f.on_body = true;
      f.pass = rng.pick(bodies);
    } else {
      f.instrument = rng.below(static_cast<int>(s.instruments.size()));
      const unsigned hooks = s.instruments[static_cast<std::size_t>(f.instrument)].hooks;
      std::vector<Hook> present;
      for (int h = 0; h < kHookCount; ++h) {
        if (hooks & (1u << h)) present.push_back(static_cast<Hook>(h));
      }
      f.hook = present.empty() || rng.chance(5) ? static_cast<Hook>(rng.below(kHookCount)) : rng.pick(present);
    }
    faults.push_back(f);
  }
  for (std::size_t i = 0; i < faults.size(); ++i) faults[i].id = static_cast<int>(i) + 1;
  return faults;
}

struct GenerateOptions {
  int max_depth = 3;
  int max_children = 4;
  int max_instruments = 4;
  int max_inner_contexts = 2;
  int max_faults = 3;
};

namespace detail {

inline Node random_tree(Rng& rng, int depth, const GenerateOptions& o, int inner_contexts, std::vector<int>& on_path) {
  Node n;
  const bool seq = depth < o.max_depth && rng.chance(depth == 0 ? 75 : 30);
  if (seq) {
    n.kind = Node::Kind::seq;
    n.name = rng.pick(sequential_names());
    n.opt_level = rng.chance(75) ? 0 : rng.below(4);
    const int children = rng.below(o.max_children + 1);
    for (int i = 0; i < children; ++i) n.children.push_back(random_tree(rng, depth + 1, o, inner_contexts, on_path));
    return n;
  }
  n.kind = Node::Kind::pass;
  n.name = rng.pick(pass_names());
  n.opt_level = rng.below(4);
  if (rng.chance(35)) {
    const int r = 1 + rng.below(2);
    for (int i = 0; i < r; ++i) n.required.push_back(rng.pick(required_names()));
  }
  if (depth < o.max_depth && rng.chance(25)) {
    int ctx = -1;
    if (inner_contexts > 0 && rng.chance(50)) {
      const int candidate = 1 + rng.below(inner_contexts);
      if (std::find(on_path.begin(), on_path.end(), candidate) == on_path.end()) ctx = candidate;
    }
    n.nested_context = ctx;
    n.catch_nested = rng.chance(30);
    if (ctx >= 0) on_path.push_back(ctx);
    n.nested.push_back(random_tree(rng, depth + 1, o, inner_contexts, on_path));
    if (ctx >= 0) on_path.pop_back();
  }
  return n;
}

}  // namespace detail

// generate(rng, options): a free-form scenario for the dynamic layer.
inline Scenario generate(Rng& rng, const GenerateOptions& o = {}) {
  Scenario s;
  const int modes = rng.below(100);
  s.mode = modes < 35   ? Mode::scope
           : modes < 45 ? Mode::scope_twice
           : modes < 60 ? Mode::unentered
           : modes < 80 ? Mode::override_default
                        : Mode::override_in_scope;
  const int n_instruments = rng.below(o.max_instruments + 1);
  for (int i = 0; i < n_instruments; ++i) s.instruments.push_back(random_instrument(rng, i));
  const int inner = rng.below(o.max_inner_contexts + 1);
  s.contexts.push_back(s.mode == Mode::override_default ? ContextSpec{} : random_context_options(rng));
  for (int c = 0; c < inner; ++c) s.contexts.push_back(random_context_options(rng));
  // Each instrument belongs to one list: context 0's, the override list, or an inner context's.
  for (int i = 0; i < n_instruments; ++i) {
    const int where = rng.below(static_cast<int>(s.contexts.size()) + (s.mode == Mode::override_in_scope ? 1 : 0));
    if (where == static_cast<int>(s.contexts.size())) {
      s.override_list.push_back(i);
    } else {
      s.contexts[static_cast<std::size_t>(where)].instruments.push_back(i);
    }
  }
  std::vector<int> on_path{0};
  s.root = detail::random_tree(rng, 0, o, inner, on_path);
  s.faults = random_faults(rng, s, o.max_faults);
  return s;
}

}  // namespace refmodel
