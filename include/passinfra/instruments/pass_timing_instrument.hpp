// passinfra/instruments/pass_timing_instrument.hpp — time every pass (SPEC §6).
//
// PassTimingOptions{keep_on_exit = false}     exit_pass_ctx keeps the profiles instead of discarding them
// PassProfile{name, start, duration, failed, thread, analysis, function, children}
//                                             one timed pass (or analysis) run; p.self(), p.label()
// BasicPassTimingInstrument<Clock>(options = {}, clock = {})   Clock: a TimingClock (timing_clocks.hpp)
// BasicPassTimingInstrument<Clock>(clock)     e.g. a ManualClock the test advances
// PassTimingInstrument                        BasicPassTimingInstrument<SteadyClock>
// t.render()                                  SPEC §6's text (TVM's format); "" + WARNING when empty
// t.render_list()                             aggregated by pass name, sorted by total time, with counts
// t.to_chrome_trace_json(pid = 1)             Trace Event Format ("ph":"X"), for Perfetto / chrome://tracing
// t.profile()                                 the recorded runs as a tree (roots in order)
// t.clear()                                   discards every recorded profile, on every thread
// t.clock() / t.options()                     the clock object; the options
// format_pass_profiles(roots)                 render() of a (filtered) tree
// format_pass_profile_list(roots)             render_list() of a tree
// pass_profiles_to_chrome_trace_json(roots, pid)   to_chrome_trace_json() of a tree
//
// Hooks. run_before_pass opens an entry as a child of the innermost entry
// open on the calling thread, taking the start time as its last step;
// run_after_pass takes the end time as its first step and closes it. So an
// entry's time includes the hooks of the instruments listed after this one
// (before the pass) and before it (after the pass). There is no should_run:
// a vetoed pass is never opened, so never recorded. When the pass body (or
// a hook after this instrument's run_before_pass) throws,
// run_after_pass_failed *closes* the entry at that moment and marks it
// failed: the time up to the failure is kept (render() shows it like any
// other entry; profile() and the Chrome trace say `failed`), and a failure
// never leaves an entry open. enter_pass_ctx does nothing. exit_pass_ctx
// discards the profiles recorded on the calling thread, passes still
// running included (TVM), unless `keep_on_exit`. A run_after_pass for a pass
// whose entry was discarded meanwhile is ignored. render() and the other
// readers clear nothing and may be called at any time, from inside a pass
// too: entries still open (a pass still running) are left out, and the
// finished runs below them are shown at the top level. Any pass name works,
// `root` included.
//
// Threads. Each thread records into its own buffer of this instrument, so
// one instrument may be shared by contexts on many threads (or one static
// context used from many threads): the hooks of a thread touch only that
// thread's buffer, take no lock, and passes on different threads never nest
// into each other. exit_pass_ctx, being a hook, discards only its own
// thread's profiles. The readers (render, render_list, to_chrome_trace_json,
// profile) and clear() read or reset every thread's buffer: call them when no
// pass is running with this instrument on *another* thread (after joining
// the workers, say); they list the threads in the order in which each first
// ran a pass here (PassProfile::thread and the Chrome trace's tid: 1, 2, ...),
// and render()'s percentages are relative to the sum of the top-level
// entries of all threads. A thread finds its buffer in one compare (the
// first thread that recorded) or through a small thread-local cache; a new
// thread that the system gives a finished thread's identity (its TLS block)
// continues that thread's buffer.
//
// Analyses (SPEC §10.7). run_before_analysis / run_after_analysis /
// run_after_analysis_failed open and close an entry exactly as the pass
// hooks do, so an analysis computed on a cache miss is a child of the pass
// that requested it (and of the analysis that requested it through deps);
// one requested outside any pass is a top-level entry. Its PassProfile has
// `analysis` set and, for a function analysis, `function` (the key as
// text); render() and render_list() write it `(A) <name>` (label()), the
// Chrome trace gives it "cat":"analysis" and "args":{"function":...}. These
// are separate members: a pipeline that computes no analysis never calls
// them, and the pass hooks are the code they were (the cost below).
//
// Nests (SPEC §11.7). run_before_pipeline / run_after_pipeline /
// run_after_pipeline_failed open and close a unit's entry (named by the
// unit; PassProfile::unit, unit_index), so the unit's passes nest under it.
// A unit run on the nest's own thread nests under the nest's entry as any
// entry does; one run on another thread is recorded there, marked, and
// placed under the nest's entry by profile() (the deepest entry of the
// nest's thread spanning it that is not inside the same nest run's units),
// and the units under a nest are listed by unit index. So the instrument is
// thread-safe (thread_safe = true) and a parallel nest runs under it.
//
// Cost per pass (benchmarks/dispatch_callgrind: 100 trivial passes in a
// Sequential, g++ -O3): about 31 instructions besides the two clock reads
// and the core's gate -- the thread check (twice), 64 bytes written per
// entry (a name of up to 32 bytes is copied into the entry with word loads,
// and a static pass's name folds to constants; longer names are interned
// once per thread), the nesting link and the match at the close; a few ns
// next to the clock reads (a SteadyClock read executes about 105
// instructions of the vDSO here). No allocation in steady state: the entry
// array keeps its capacity across clear() and exits. SteadyClock reads
// CLOCK_MONOTONIC without the call through libstdc++; TscClock reads the
// time-stamp counter.
//
// The instrument is movable, not copyable: hold it by std::ref in a context
// (or by value and read it back with ctx.instruments().get<K>()).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/core/analysis.hpp"
#include "passinfra/core/log.hpp"
#include "passinfra/core/pass_info.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/detail/atomic.hpp"
#include "passinfra/detail/inline.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/type_name.hpp"  // dependent_t
#include "passinfra/detail/utf8.hpp"
#include "passinfra/instruments/timing_clocks.hpp"  // and std::chrono's durations and clocks (see there)

namespace passinfra {

struct PassTimingOptions {
  bool keep_on_exit = false;
};

// PassProfile: one timed run of a pass and the runs nested in it.
struct PassProfile {
  std::string name;
  std::chrono::nanoseconds start{};     // since the earliest start among the recorded runs
  std::chrono::nanoseconds duration{};  // inclusive of the children
  bool failed = false;                  // the pass ended with an exception
  unsigned thread = 1;                  // 1, 2, ...: the order threads first ran a pass here
  bool analysis = false;                // an analysis computation (SPEC §10.7), not a pass
  std::string function;                 // an analysis's function key (as text); empty for a module analysis
  bool unit = false;                    // a nest's unit pipeline (SPEC §11.7), named by the unit: not a pass
  std::size_t unit_index = 0;           // a unit's index in its nest run
  std::vector<PassProfile> children;

  // label(): the name as render() and render_list() show it: `(A) <name>`
  // for an analysis, the name for a pass.
  std::string label() const { return analysis ? "(A) " + name : name; }

  // self(): duration minus the children's durations, or 0 when the
  // children add up to more (a parallel nest's units, SPEC §11.7).
  std::chrono::nanoseconds self() const noexcept {
    auto s = duration;
    for (const auto& c : children) s -= c.duration;
    return s.count() < 0 ? std::chrono::nanoseconds{0} : s;
  }
};

namespace detail {

template <class = void>
std::string printf_double(const char* format, double value) {
  char buffer[64];
  const int n = std::snprintf(buffer, sizeof buffer, format, value);
  return std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
}

inline double ns_to_us(std::chrono::nanoseconds d) noexcept { return static_cast<double>(d.count()) / 1000.0; }

inline double percent(std::chrono::nanoseconds part, std::chrono::nanoseconds whole) noexcept {
  return whole.count() == 0 ? 0.0 : static_cast<double>(part.count()) / static_cast<double>(whole.count()) * 100.0;
}

template <class T = void>
void format_profile(std::string& out, const dependent_t<PassProfile, T>& p, std::size_t depth,
                    std::chrono::nanoseconds top, std::chrono::nanoseconds parent) {
  out.append(depth, '\t');
  if (p.analysis) out += "(A) ";
  out += p.name;
  out += ": ";
  out += printf_double("%.0f", ns_to_us(p.duration));
  out += "us [";
  out += printf_double("%.0f", ns_to_us(p.self()));
  out += "us] (";
  out += printf_double("%.2f", percent(p.duration, top));
  out += "%; ";
  out += printf_double("%.2f", percent(p.duration, parent));
  out += "%)\n";
  for (const auto& c : p.children) format_profile<T>(out, c, depth + 1, top, p.duration);
}

// "1234.567": nanoseconds as microseconds with three exact decimals.
template <class = void>
std::string ns_as_us_text(std::chrono::nanoseconds d) {
  const long long ns = static_cast<long long>(d.count());
  char buffer[48];
  const int n = std::snprintf(buffer, sizeof buffer, "%s%lld.%03lld", ns < 0 ? "-" : "", (ns < 0 ? -ns : ns) / 1000,
                              (ns < 0 ? -ns : ns) % 1000);
  return std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
}

// append_json_string(out, s): s as a JSON string. Control characters are
// escaped; well-formed UTF-8 is kept; every byte that does not start a
// well-formed UTF-8 sequence is written as \ufffd (U+FFFD), so the output
// is valid UTF-8 that strict JSON parsers accept, whatever the pass names.
template <class = void>
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(s, i);
      if (length == 0) {
        out += "\\ufffd";
      } else {
        out.append(s.substr(i, length));
        i += length - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

template <class T = void>
void append_trace_events(std::string& out, const dependent_t<PassProfile, T>& p, int pid, bool& first) {
  out += first ? "\n" : ",\n";
  first = false;
  out += "{\"name\":";
  append_json_string(out, p.name);
  out += p.analysis ? ",\"cat\":\"analysis\",\"ph\":\"X\",\"ts\":"
         : p.unit   ? ",\"cat\":\"unit\",\"ph\":\"X\",\"ts\":"
                    : ",\"cat\":\"pass\",\"ph\":\"X\",\"ts\":";
  out += ns_as_us_text(p.start);
  out += ",\"dur\":";
  out += ns_as_us_text(p.duration);
  out += ",\"pid\":";
  out += std::to_string(pid);
  out += ",\"tid\":";
  out += std::to_string(p.thread);
  if (p.failed || !p.function.empty()) {
    out += ",\"args\":{";
    if (p.failed) out += "\"failed\":true";
    if (!p.function.empty()) {
      if (p.failed) out += ',';
      out += "\"function\":";
      append_json_string(out, p.function);
    }
    out += '}';
  }
  out += '}';
  for (const auto& c : p.children) append_trace_events<T>(out, c, pid, first);
}

struct ListRow {
  std::string name;
  std::chrono::nanoseconds total{};
  std::chrono::nanoseconds self{};
  std::size_t count = 0;
};

// Sums per label (an analysis is "(A) <name>", apart from a pass of that
// name): self of every run, total of runs not nested in a run of the same
// label (so a recursive or repeated nesting is not counted twice).
// (The std types spelled dependently: see dependent_t.)
template <class T = void>
using ListRows = dependent_t<std::map<std::string, ListRow, std::less<>>, T>;

template <class T = void>
void aggregate(const dependent_t<PassProfile, T>& p, ListRows<T>& rows,
               dependent_t<std::vector<std::string>, T>& open_names) {
  if (p.unit) {  // no row of its own (SPEC §11.7): its passes count as the nest's children
    for (const auto& c : p.children) aggregate<T>(c, rows, open_names);
    return;
  }
  std::string label = p.label();
  auto it = rows.find(label);
  if (it == rows.end()) it = rows.emplace(label, ListRow{label, {}, {}, 0}).first;
  ListRow& row = it->second;
  ++row.count;
  row.self += p.self();
  const bool nested_in_same = std::find(open_names.begin(), open_names.end(), label) != open_names.end();
  if (!nested_in_same) row.total += p.duration;
  open_names.push_back(std::move(label));
  for (const auto& c : p.children) aggregate<T>(c, rows, open_names);
  open_names.pop_back();
}

}  // namespace detail

// format_pass_profiles(roots): SPEC §6's text for a tree of profiles.
template <class T = void>
std::string format_pass_profiles(const detail::dependent_t<std::vector<PassProfile>, T>& roots) {
  std::chrono::nanoseconds top{0};
  for (const auto& r : roots) top += r.duration;
  std::string out;
  for (const auto& r : roots) detail::format_profile<T>(out, r, 0, top, top);
  return out;
}

// format_pass_profile_list(roots): one line per pass name, by total time
// (then name). Exactly:
//
//   ===-------------------------------------------------------------------------===
//                            Pass execution timing report
//   ===-------------------------------------------------------------------------===
//     Total Execution Time: 9579us
//
//          Total (      %)       Self (      %)   Count  Name
//         8508us ( 88.82%)     8508us ( 88.82%)       2  InferType
//       ...
//
// Columns: "%8.0fus (%6.2f%%) %8.0fus (%6.2f%%) %7zu  <name>", two leading
// spaces; an analysis's rows are named "(A) <name>" (all its functions in
// one row). Total: the time of a name's runs not nested in a run of the same
// name; Self: the sum of their self times; both percentages are of the
// total execution time (the sum of the top-level runs), so the Self column
// adds up to 100%. Count: runs of that name (failed ones included).
template <class T = void>
std::string format_pass_profile_list(const detail::dependent_t<std::vector<PassProfile>, T>& roots) {
  std::chrono::nanoseconds top{0};
  for (const auto& r : roots) top += r.duration;
  detail::ListRows<T> by_name;
  detail::dependent_t<std::vector<std::string>, T> open_names;
  for (const auto& r : roots) detail::aggregate<T>(r, by_name, open_names);
  detail::dependent_t<std::vector<detail::ListRow>, T> rows;
  rows.reserve(by_name.size());
  for (auto& [name, row] : by_name) rows.push_back(std::move(row));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const detail::ListRow& a, const detail::ListRow& b) { return a.total > b.total; });

  std::string out =
      "===-------------------------------------------------------------------------===\n"
      "                         Pass execution timing report\n"
      "===-------------------------------------------------------------------------===\n";
  out += "  Total Execution Time: " + detail::printf_double("%.0f", detail::ns_to_us(top)) + "us\n\n";
  out += "       Total (      %)       Self (      %)   Count  Name\n";
  for (const auto& row : rows) {
    char buffer[128];
    const int n = std::snprintf(buffer, sizeof buffer, "  %8.0fus (%6.2f%%) %8.0fus (%6.2f%%) %7zu  ",
                                detail::ns_to_us(row.total), detail::percent(row.total, top),
                                detail::ns_to_us(row.self), detail::percent(row.self, top), row.count);
    out.append(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
    out += row.name;
    out += '\n';
  }
  return out;
}

// pass_profiles_to_chrome_trace_json(roots, pid): one complete event per
// run, depth-first (a parent before its children), exactly:
//   {"displayTimeUnit":"ns","traceEvents":[
//   {"name":"InferType","cat":"pass","ph":"X","ts":0.000,"dur":4340.000,"pid":1,"tid":1},
//   {"name":"Liveness","cat":"analysis","ph":"X","ts":2.000,"dur":8.000,"pid":1,"tid":1,"args":{"function":"@main"}},
//   ...
//   ]}
// ts and dur in microseconds with three decimals (exact nanoseconds); an
// analysis has "cat":"analysis" (its plain name; "function" in args for a
// function analysis); a failed run carries "args":{"failed":true} (before
// "function" when both). Names are JSON-escaped (", \,
// control characters); other bytes are copied as they are (UTF-8 assumed).
template <class T = void>
std::string pass_profiles_to_chrome_trace_json(const detail::dependent_t<std::vector<PassProfile>, T>& roots,
                                               int pid = 1) {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  bool first = true;
  for (const auto& r : roots) detail::append_trace_events<T>(out, r, pid, first);
  out += "\n]}\n";
  return out;
}

namespace detail {

inline std::uint64_t load_u64(const char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline std::uint32_t load_u32(const char* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store_u64(char* p, std::uint64_t v) noexcept { std::memcpy(p, &v, sizeof v); }
inline void store_u32(char* p, std::uint32_t v) noexcept { std::memcpy(p, &v, sizeof v); }

// One pass run on one thread: 64 bytes. The name is copied into `text`
// (names of up to 32 bytes, with overlapping word loads that read only the
// name's own bytes) or, when longer, points at a copy interned by the
// buffer. Copying is what makes any name safe: a pass (and its name) may
// die right after it ran. An entry is running while it is on its buffer's
// chain of open entries (TimingBuffer::open and the parents from there);
// `end` means something only once it is off that chain.
//
// An analysis's entry has analysis_bit set in `size`, and its text holds
// two pointers to strings interned by the buffer: the name (text[0]) and
// the function key (text[1]; null for a module analysis). Analyses are
// timed on cache misses only, next to a computation, so they take the
// simple path; the pass path does not look at the bit.
struct TimingEntry {
  static constexpr std::uint32_t failed_bit = 0x80000000u;    // in `size`
  static constexpr std::uint32_t analysis_bit = 0x40000000u;  // in `size`
  static constexpr std::uint32_t unit_bit = 0x20000000u;      // in `size`: a nest's unit pipeline
  static constexpr std::uint32_t graft_bit = 0x10000000u;     // in `size`: a unit run on another thread than its nest
  static constexpr std::size_t inline_size = 32;

  std::uint64_t start;
  std::uint64_t end;  // written when the pass ends
  const char* key;    // the name's address when opened: matches run_after_pass to it (never read); an
                      // analysis's: its interned copy's
  std::uint64_t text[4];
  std::uint32_t size;   // the name's size, | failed_bit
  std::int32_t parent;  // entries from here back to the entry open around it (the sentinel at the top)

  TimingEntry* parent_entry() noexcept { return this + parent; }
  const TimingEntry* parent_entry() const noexcept { return this + parent; }
  bool failed() const noexcept { return (size & failed_bit) != 0; }
  bool analysis() const noexcept { return (size & analysis_bit) != 0; }
  bool unit() const noexcept { return (size & unit_bit) != 0; }
  bool grafted() const noexcept { return (size & graft_bit) != 0; }
  std::size_t name_size() const noexcept { return size & ~(failed_bit | analysis_bit | unit_bit | graft_bit); }
  // A unit entry's text: the interned name, its nest run, its index, the nest's thread.
  std::uint64_t unit_nest_run() const noexcept { return text[1]; }
  std::uint64_t unit_index() const noexcept { return text[2]; }
  std::uint64_t unit_parent_thread() const noexcept { return text[3]; }

  // An analysis entry's interned strings (see above).
  const std::string* interned(std::size_t i) const noexcept {
    const std::string* s;
    std::memcpy(&s, &text[i], sizeof s);  // NOLINT(bugprone-sizeof-expression): the pointer itself
    return s;
  }
  // function(): an analysis entry's function key; "" for a module analysis or a pass.
  std::string_view function() const noexcept {
    const std::string* s = analysis() ? interned(1) : nullptr;
    return s == nullptr ? std::string_view{} : std::string_view(*s);
  }

  // set_text(p, n): n <= inline_size.
  PASSINFRA_ALWAYS_INLINE void set_text(const char* p, std::size_t n) noexcept {
    if (n >= 8) [[likely]] {
      text[0] = load_u64(p);
      if (n <= 16) [[likely]] {
        text[1] = load_u64(p + n - 8);
      } else {
        text[1] = load_u64(p + 8);
        text[2] = load_u64(p + n - 16);
        text[3] = load_u64(p + n - 8);
      }
    } else if (n >= 4) {
      text[0] = load_u32(p) | (std::uint64_t{load_u32(p + n - 4)} << 32);
    } else {
      const auto byte = [&](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(p[i])}; };
      text[0] = n == 0 ? 0 : byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16);
    }
  }

  // name(): undoes set_text (or reads the interned copy).
  std::string name() const {
    const std::size_t n = name_size();
    if (analysis() || unit()) return *interned(0);
    if (n > inline_size) {
      const std::string* interned;
      std::memcpy(&interned, &text[0], sizeof interned);  // NOLINT(bugprone-sizeof-expression): the pointer itself
      return *interned;
    }
    std::string out(n, '\0');
    char* d = out.data();
    if (n >= 8) {
      store_u64(d, text[0]);
      if (n <= 16) {
        store_u64(d + n - 8, text[1]);
      } else {
        store_u64(d + 8, text[1]);
        store_u64(d + n - 16, text[2]);
        store_u64(d + n - 8, text[3]);
      }
    } else if (n >= 4) {
      store_u32(d, static_cast<std::uint32_t>(text[0]));
      store_u32(d + n - 4, static_cast<std::uint32_t>(text[0] >> 32));
    } else if (n > 0) {
      d[0] = static_cast<char>(text[0] & 0xFF);
      d[n / 2] = static_cast<char>((text[0] >> 8) & 0xFF);
      d[n - 1] = static_cast<char>((text[0] >> 16) & 0xFF);
    }
    return out;
  }
};
static_assert(sizeof(TimingEntry) == 64);

// is_pass_named(e, name): e is a pass's entry (not an analysis's) with
// that name: the slow path of a close, when the name's address differs
// from the one opened. Out of line, so the pass hooks' code stays as small
// as it was before analyses (benchmarks/README.md's timing rows).
[[gnu::noinline]] inline bool is_pass_named(const TimingEntry& e, std::string_view name) {
  return !e.analysis() && !e.unit() && e.name() == name;
}

// A value that differs between threads alive at the same time: the thread
// pointer where the compiler exposes it (one instruction), else the address
// of a thread_local.
inline const void* thread_tag() noexcept {
#if (defined(__x86_64__) || defined(__aarch64__)) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_thread_pointer();
#else
  static thread_local char tag;
  return &tag;
#endif
}

// One thread's record; only that thread's hooks touch it. `entries` is a
// plain array whose capacity survives clear(); its first element is a
// sentinel, the parent of the top-level entries, so that `open` is never
// null: a run_after_pass with nothing open meets the sentinel. Its key is
// null and its name empty, so a pass named "" matches it; closing it then
// writes its `end` and failed bit, which no reader looks at, and leaves
// `open` where it was (its parent is itself). Made with make(), which
// allocates the array.
// TimingBuffer is this template's one specialization: a class template's members are
// compiled only when used, so including the header compiles none of them.
// Its std members are spelled dependently (see dependent_t), so that
// neither compiler instantiates them where the template is defined.
template <class T = void>
struct TimingBufferOf {
  const void* thread = nullptr;  // thread_tag() of its thread
  unsigned index = 0;            // 1-based, in order of first use
  std::uint32_t ordinal = 0;     // passinfra::thread_ordinal() of its thread (for a nest's units, SPEC §11.7)
  // The ordinals of ended threads whose buffer this was: a thread with an
  // ended one's tag takes its buffer over, and a unit that another thread ran
  // for the ended thread's nest still finds the nest's entry here.
  dependent_t<std::vector<std::uint32_t>, T> earlier_ordinals;
  TimingEntry* open = nullptr;   // the innermost running entry, or the sentinel
  TimingEntry* next = nullptr;   // where the next entry goes
  TimingEntry* limit = nullptr;  // the end of the array
  dependent_t<std::unique_ptr<TimingEntry[]>, T> entries;
  // names longer than TimingEntry::inline_size (a map used as a set: <map> is
  // included anyway, <set> would be one more header to compile: issue 18)
  dependent_t<std::map<std::string, bool, std::less<>>, T> long_names;

  // Entries are linked by offsets, which a copy to a bigger array keeps;
  // an int32_t offset reaches 2^31 entries (128 GiB), the most it may hold.
  static constexpr std::size_t max_entries = std::size_t{1} << 31;

  static dependent_t<std::unique_ptr<TimingBufferOf>, T> make(const void* thread, unsigned index) {
    auto b = std::make_unique<TimingBufferOf>();
    b->thread = thread;
    b->index = index;
    b->grow();
    return b;
  }
  void clear() noexcept {
    next = entries.get() + 1;
    open = entries.get();
    earlier_ordinals.clear();  // their entries, and the units that point at them, are gone
  }
  void set_ordinal(std::uint32_t o) {
    if (ordinal != 0 && ordinal != o) earlier_ordinals.push_back(ordinal);
    ordinal = o;
  }
  bool ran_on(std::uint32_t o) const noexcept {
    if (ordinal == o) return true;
    for (const std::uint32_t e : earlier_ordinals) {
      if (e == o) return true;
    }
    return false;
  }
  [[gnu::noinline]] void grow() {
    const std::size_t used = entries ? static_cast<std::size_t>(next - entries.get()) : 0;
    const std::size_t capacity = entries ? static_cast<std::size_t>(limit - entries.get()) : 0;
    const std::size_t cap = capacity == 0 ? 256 : capacity * 2;
    if (cap > max_entries)
      throw std::length_error(
          "passinfra::PassTimingInstrument: 2^31 - 1 pass runs recorded on one thread without clear() or "
          "an exit_pass_ctx that discards them; no room for more");
    auto bigger = std::make_unique_for_overwrite<dependent_t<TimingEntry, T>[]>(cap);
    if (entries) {
      std::copy(entries.get(), next, bigger.get());
      open = bigger.get() + (open - entries.get());
    } else {
      bigger[0] = TimingEntry{};  // the sentinel: key nullptr, size 0, parent 0 (itself)
      open = bigger.get();
    }
    next = bigger.get() + (used == 0 ? 1 : used);
    limit = bigger.get() + cap;
    entries = std::move(bigger);
  }
  [[gnu::noinline]] const std::string* intern(std::string_view name) {
    auto it = long_names.find(name);
    if (it == long_names.end()) it = long_names.try_emplace(std::string(name)).first;
    return &it->first;
  }
  const TimingEntry* sentinel() const noexcept { return entries.get(); }
  const TimingEntry* begin() const noexcept { return entries.get() + 1; }
  const TimingEntry* end() const noexcept { return next; }
  std::size_t size() const noexcept { return static_cast<std::size_t>(end() - begin()); }

  // running(): for each entry, whether it is on the chain of open entries.
  dependent_t<std::vector<bool>, T> running() const {
    dependent_t<std::vector<bool>, T> out(size(), false);
    for (const TimingEntry* e = open; e != sentinel(); e = e->parent_entry())
      out[static_cast<std::size_t>(e - begin())] = true;
    return out;
  }
};
using TimingBuffer = TimingBufferOf<>;

// The per-thread cache for threads other than an instrument's first one.
struct TimingThreadSlot {
  std::uint64_t key;
  TimingBuffer* buffer;
};
inline constexpr std::size_t timing_thread_slots = 4;

inline TimingThreadSlot& timing_thread_slot(std::uint64_t key) noexcept {
  static thread_local TimingThreadSlot slots[timing_thread_slots];  // zero: no key is 0
  return slots[key & (timing_thread_slots - 1)];
}

// Keys are never reused, so a slot of a destroyed instrument never matches.
inline std::uint64_t new_timing_key() noexcept {
  static detail::Atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, detail::MemoryOrder::relaxed) + 1;
}

}  // namespace detail

template <class Clock = SteadyClock>
class BasicPassTimingInstrument {
  static_assert(TimingClock<Clock>,
                "passinfra::BasicPassTimingInstrument<Clock>: Clock must be a TimingClock: copyable, with "
                "`std::uint64_t now() const noexcept` and `std::int64_t to_ns(std::uint64_t ticks) const` (see "
                "passinfra/instruments/timing_clocks.hpp)");

  // The buffer and the std types of the readers, spelled dependently (see
  // detail::dependent_t): neither compiler instantiates them, nor what the
  // readers call, where the template is defined.
  template <class X>
  using Dep = detail::dependent_t<X, Clock>;
  using Buffer = Dep<detail::TimingBuffer>;
  using Running = Dep<std::vector<std::vector<bool>>>;  // per buffer, per entry: on its chain of open entries

 public:
  using clock_type = Clock;

  explicit BasicPassTimingInstrument(PassTimingOptions options = {}, Clock clock = Clock{})
      : key_(detail::new_timing_key()),
        options_(options),
        clock_(std::move(clock)),
        state_(std::make_unique<State>()) {}
  explicit BasicPassTimingInstrument(Clock clock) : BasicPassTimingInstrument(PassTimingOptions{}, std::move(clock)) {}

  BasicPassTimingInstrument(const BasicPassTimingInstrument&) = delete;
  BasicPassTimingInstrument& operator=(const BasicPassTimingInstrument&) = delete;
  // A move takes the buffers (and the identity the thread caches know);
  // the moved-from instrument is empty and usable. Not while passes run.
  // Not noexcept: the moved-from instrument gets a new, empty state (an allocation).
  BasicPassTimingInstrument(BasicPassTimingInstrument&& other)  // NOLINT(performance-noexcept-move-constructor)
      : key_(std::exchange(other.key_, detail::new_timing_key())),
        options_(other.options_),
        clock_(other.clock_),
        state_(std::exchange(other.state_, std::make_unique<State>())),
        owner_tag_(other.owner_tag_.exchange(nullptr, detail::MemoryOrder::acq_rel)),
        owner_(std::exchange(other.owner_, nullptr)) {}
  // NOLINTNEXTLINE(performance-noexcept-move-constructor)
  BasicPassTimingInstrument& operator=(BasicPassTimingInstrument&& other) {
    if (this != &other) {
      key_ = std::exchange(other.key_, detail::new_timing_key());
      options_ = other.options_;
      clock_ = other.clock_;
      state_ = std::exchange(other.state_, std::make_unique<State>());
      owner_tag_.store(other.owner_tag_.exchange(nullptr, detail::MemoryOrder::acq_rel), detail::MemoryOrder::release);
      owner_ = std::exchange(other.owner_, nullptr);
    }
    return *this;
  }
  ~BasicPassTimingInstrument() = default;

  std::string_view name() const noexcept { return "PassTimingInstrument"; }

  // Each thread records into its own buffer (see Threads above), so a
  // parallel nest may run its units under this instrument (SPEC §11.8).
  static constexpr bool thread_safe = true;

  // exit_pass_ctx(): discards the profiles recorded on the calling thread
  // (all of them, passes still running included), unless keep_on_exit.
  void exit_pass_ctx() {
    if (options_.keep_on_exit) return;
    if (Buffer* b = buffer_if_any()) b->clear();
  }
  // run_before_pass: opens an entry; its start is the hook's last step.
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_before_pass(const IR&, const PassInfo& info) {
    open(info.name);
  }
  // run_after_pass: the end is the hook's first step; closes the entry.
  template <class IR>
  PASSINFRA_ALWAYS_INLINE void run_after_pass(const IR&, const PassInfo& info) noexcept {
    close(info.name, false);
  }
  // run_after_pass_failed: closes the entry at the failure, marked failed.
  void run_after_pass_failed(const PassInfo& info, const std::exception_ptr&) noexcept { close(info.name, true); }

  // The analysis hooks (SPEC §10.7): the same entries, marked as analyses.
  // Called on cache misses only (a cached lookup fires no hook).
  template <class IR>
  void run_before_analysis(const IR&, const AnalysisInfo& info) {
    open_analysis(info);
  }
  template <class IR>
  void run_after_analysis(const IR&, const AnalysisInfo& info) noexcept {
    close_analysis(info, false);
  }
  void run_after_analysis_failed(const AnalysisInfo& info, const std::exception_ptr&) noexcept {
    close_analysis(info, true);
  }

  // The pipeline hooks (SPEC §11.7): a unit's entry, named by the unit,
  // opens before its pipeline and closes after it (marked failed when it
  // threw). On the nest's own thread it nests under the nest's entry; on
  // another thread it is grafted there when read (profile()), and the units
  // under a nest are listed by unit index, whichever thread ran them.
  template <class Unit>
  void run_before_pipeline(const Unit&, const PipelineInfo& info) {
    open_unit(info);
  }
  template <class Unit>
  void run_after_pipeline(const Unit&, const PipelineInfo& info) noexcept {
    close_unit(info, false);
  }
  void run_after_pipeline_failed(const PipelineInfo& info, const std::exception_ptr&) noexcept {
    close_unit(info, true);
  }

  // clear(): discards every recorded profile, on every thread. Not while
  // passes run with this instrument on another thread.
  void clear() {
    detail::LightLock lock(state_->mutex);
    for (const auto& b : state_->buffers) b->clear();
  }

  // profile(): the finished runs as trees, thread by thread. Not while
  // passes run with this instrument on another thread (the same thread --
  // from inside a pass -- is fine).
  // (std::vector<PassProfile>, spelled dependently.)
  Dep<std::vector<PassProfile>> profile() const {
    Dep<std::vector<PassProfile>> roots;
    detail::LightLock lock(state_->mutex);
    bool any = false;
    std::uint64_t origin = 0;
    Running running;
    running.reserve(state_->buffers.size());
    for (const auto& b : state_->buffers) {
      running.push_back(b->running());
      for (std::size_t i = 0; i < b->size(); ++i) {
        if (running.back()[i]) continue;
        const auto& e = b->begin()[i];
        if (!any || e.start < origin) origin = e.start;
        any = true;
      }
    }
    const Grafts grafts = find_grafts(running);
    append_trees(running, grafts, origin, roots);
    return roots;
  }

  // render(): SPEC §6. Empty: "" and the WARNING.
  std::string render() const {
    std::string out = format_pass_profiles(profile());
    if (out.empty()) log(LogLevel::warning, "no passes have been profiled, did you enable pass profiling?");
    return out;
  }

  std::string render_list() const { return format_pass_profile_list(profile()); }

  std::string to_chrome_trace_json(int pid = 1) const { return pass_profiles_to_chrome_trace_json(profile(), pid); }

  Clock& clock() noexcept { return clock_; }
  const Clock& clock() const noexcept { return clock_; }
  const PassTimingOptions& options() const noexcept { return options_; }

 private:
  struct State {
    mutable detail::LightMutex mutex;  // guards `buffers` (the list; each buffer is its thread's)
    Dep<std::vector<std::unique_ptr<Buffer>>> buffers;
  };

  // The calling thread's buffer: the first thread's in one compare, the
  // others' through a thread-local cache, or found (made) under the mutex.
  Buffer* buffer(bool create) {
    if (owner_tag_.load(detail::MemoryOrder::acquire) == detail::thread_tag()) [[likely]]
      return owner_;
    return other_buffer(create);
  }

  [[gnu::noinline]] Buffer* other_buffer(bool create) {
    detail::TimingThreadSlot& slot = detail::timing_thread_slot(key_);
    if (slot.key == key_) return slot.buffer;
    const void* self = detail::thread_tag();
    detail::LightLock lock(state_->mutex);
    Buffer* found = nullptr;
    for (const auto& b : state_->buffers) {
      if (b->thread == self) found = b.get();  // a thread that ended left it to us
    }
    if (found != nullptr) found->set_ordinal(thread_ordinal());
    if (found == nullptr) {
      if (!create) return nullptr;
      auto made = Buffer::make(self, static_cast<unsigned>(state_->buffers.size() + 1));
      found = made.get();
      found->set_ordinal(thread_ordinal());
      state_->buffers.push_back(std::move(made));
    }
    if (owner_ == nullptr) {
      owner_ = found;
      owner_tag_.store(self, detail::MemoryOrder::release);
    } else {
      slot = detail::TimingThreadSlot{key_, found};
    }
    return found;
  }

  PASSINFRA_ALWAYS_INLINE void open(std::string_view name) {
    Buffer& b = *buffer(true);
    const std::string* interned = nullptr;
    if (name.size() > detail::TimingEntry::inline_size) [[unlikely]]
      interned = b.intern(name);
    if (b.next == b.limit) [[unlikely]]
      b.grow();
    // Nothing below throws: an entry is either fully opened or not at all.
    detail::TimingEntry& e = *b.next++;
    if (interned == nullptr) [[likely]] {
      e.set_text(name.data(), name.size());
    } else {
      std::memcpy(&e.text[0], &interned, sizeof interned);  // NOLINT(bugprone-sizeof-expression): the pointer itself
    }
    e.size = static_cast<std::uint32_t>(name.size());
    e.key = name.data();
    e.parent = static_cast<std::int32_t>(b.open - &e);
    b.open = &e;
    e.start = clock_.now();  // the last step
  }

  PASSINFRA_ALWAYS_INLINE void close(std::string_view name, bool failed) noexcept {
    const std::uint64_t end = clock_.now();  // the first step
    Buffer* b;
    if (owner_tag_.load(detail::MemoryOrder::acquire) == detail::thread_tag()) [[likely]] {
      b = owner_;
    } else {
      b = buffer_if_any();
      if (b == nullptr) return;
    }
    detail::TimingEntry& e = *b->open;  // the sentinel when nothing is open
    if (e.key != name.data() && !detail::is_pass_named(e, name)) [[unlikely]]
      return;  // not the pass we opened
    e.end = end;
    if (failed) [[unlikely]]
      e.size |= detail::TimingEntry::failed_bit;
    b->open = e.parent_entry();
  }

  // open_analysis / close_analysis: open() and close() for an analysis's
  // entry (two interned strings instead of the name's bytes).
  [[gnu::noinline]] void open_analysis(const AnalysisInfo& info) {
    Buffer& b = *buffer(true);
    const std::string* name = b.intern(info.name);
    const std::string* function = info.function.empty() ? nullptr : b.intern(info.function);
    if (b.next == b.limit) [[unlikely]]
      b.grow();
    // Nothing below throws.
    detail::TimingEntry& e = *b.next++;
    std::memcpy(&e.text[0], &name, sizeof name);          // NOLINT(bugprone-sizeof-expression): the pointer itself
    std::memcpy(&e.text[1], &function, sizeof function);  // NOLINT(bugprone-sizeof-expression): the pointer itself
    e.size = static_cast<std::uint32_t>(info.name.size()) | detail::TimingEntry::analysis_bit;
    e.key = name->data();  // the buffer's own copy: no pass's name has this address, so a pass's close never matches
    e.parent = static_cast<std::int32_t>(b.open - &e);
    b.open = &e;
    e.start = clock_.now();  // the last step
  }

  [[gnu::noinline]] void close_analysis(const AnalysisInfo& info, bool failed) noexcept {
    const std::uint64_t end = clock_.now();  // the first step
    Buffer* b = buffer_if_any();
    if (b == nullptr) return;
    detail::TimingEntry& e = *b->open;  // the sentinel when nothing is open
    if (!e.analysis() || *e.interned(0) != info.name || e.function() != info.function) return;  // not ours
    e.end = end;
    if (failed) e.size |= detail::TimingEntry::failed_bit;
    b->open = e.parent_entry();
  }

  [[gnu::noinline]] void open_unit(const PipelineInfo& info) {
    Buffer& b = *buffer(true);
    if (info.thread == info.parent_thread) b.set_ordinal(info.thread);  // a thread reusing an ended one's buffer
    const std::string* name = b.intern(info.unit_name);
    if (b.next == b.limit) [[unlikely]]
      b.grow();
    // Nothing below throws.
    detail::TimingEntry& e = *b.next++;
    std::memcpy(&e.text[0], &name, sizeof name);  // NOLINT(bugprone-sizeof-expression): the pointer itself
    e.text[1] = info.nest_run;
    e.text[2] = info.unit_index;
    e.text[3] = info.parent_thread;
    e.size = static_cast<std::uint32_t>(info.unit_name.size()) | detail::TimingEntry::unit_bit |
             (info.thread != info.parent_thread ? detail::TimingEntry::graft_bit : 0u);
    e.key = name->data();  // the buffer's own copy: a pass's close never matches it
    e.parent = static_cast<std::int32_t>(b.open - &e);
    b.open = &e;
    e.start = clock_.now();  // the last step
  }

  [[gnu::noinline]] void close_unit(const PipelineInfo& info, bool failed) noexcept {
    const std::uint64_t end = clock_.now();  // the first step
    Buffer* b = buffer_if_any();
    if (b == nullptr) return;
    detail::TimingEntry& e = *b->open;  // the sentinel when nothing is open
    if (!e.unit() || e.unit_nest_run() != info.nest_run || e.unit_index() != info.unit_index) return;  // not ours
    e.end = end;
    if (failed) e.size |= detail::TimingEntry::failed_bit;
    b->open = e.parent_entry();
  }

  [[gnu::noinline]] Buffer* buffer_if_any() noexcept {
    try {
      return buffer(false);
    } catch (...) {  // (the lookup is not noexcept); then nothing was opened here anyway
      return nullptr;
    }
  }

  // Where the units run on another thread than their nest go (SPEC §11.7).
  // An entry is (buffer, index). A grafted unit goes under its nest's entry:
  // on the buffer of the nest's thread, the deepest entry whose time spans
  // the unit's and that is not inside one of that nest run's own units
  // (the nest's thread runs only that run's units while it waits for them).
  // With the nest's thread unknown, or its entry still running, the unit is
  // shown at the top level; with the nest's entry gone (discarded by
  // exit_pass_ctx or clear), the unit goes too.
  using EntryRef = std::pair<std::size_t, std::size_t>;
  struct Grafts {
    Dep<std::map<EntryRef, std::vector<EntryRef>>> under;  // nest entry -> its units from other threads
    Dep<std::map<EntryRef, bool>> placed;  // grafted units (the keys): not roots, not under their own thread's entries
  };

  using ByStart = Dep<std::map<std::size_t, std::vector<std::size_t>>>;

  Grafts find_grafts(const Running& running) const {
    Grafts out;
    const auto& buffers = state_->buffers;
    // Per (nest thread, nest run): the nest's entry; none: top level; dropped: {size, size}.
    Dep<std::map<std::pair<std::uint64_t, std::uint64_t>, std::optional<EntryRef>>> target;
    ByStart by_start;  // per nest thread's buffer, made when first needed
    constexpr EntryRef dropped{static_cast<std::size_t>(-1), static_cast<std::size_t>(-1)};
    for (std::size_t w = 0; w < buffers.size(); ++w) {
      const detail::TimingEntry* entries = buffers[w]->begin();
      for (std::size_t j = 0; j < buffers[w]->size(); ++j) {
        const detail::TimingEntry& g = entries[j];
        if (!g.grafted() || running[w][j]) continue;
        const auto key = std::make_pair(g.unit_parent_thread(), g.unit_nest_run());
        auto it = target.find(key);
        if (it == target.end()) it = target.emplace(key, nest_entry_of(g, running, dropped, by_start)).first;
        if (!it->second) continue;  // top level
        out.placed.try_emplace(EntryRef{w, j});
        if (*it->second != dropped) out.under[*it->second].push_back({w, j});
      }
    }
    return out;
  }

  // One thread's entries nest in time (they open and close as a stack), so
  // the entries that hold the unit's start are the chain from the last
  // entry started by then up to its root: found by a binary search over the
  // buffer's entries in start order (`by_start`, sorted once per buffer) and
  // a walk up, not by a scan of the buffer per nest run (profile() stays
  // O(entries log entries) however many nests ran).
  Dep<std::optional<EntryRef>> nest_entry_of(const detail::TimingEntry& g, const Running& running, EntryRef dropped,
                                             ByStart& by_start) const {
    const auto& buffers = state_->buffers;
    std::size_t p = buffers.size();
    for (std::size_t k = 0; k < buffers.size(); ++k) {
      if (buffers[k]->ran_on(g.unit_parent_thread())) p = k;
    }
    if (p == buffers.size()) return std::nullopt;
    const Buffer& b = *buffers[p];
    const detail::TimingEntry* entries = b.begin();
    Dep<std::vector<std::size_t>>& order = by_start[p];
    if (order.size() != b.size()) {
      order.resize(b.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t x, std::size_t y) { return entries[x].start < entries[y].start; });
    }
    const auto last = std::upper_bound(order.begin(), order.end(), g.start,
                                       [&](std::uint64_t t, std::size_t i) { return t < entries[i].start; });
    if (last == order.begin()) return dropped;
    Dep<std::vector<std::size_t>> chain;  // innermost first
    for (const detail::TimingEntry* e = &entries[*(last - 1)]; e != b.sentinel(); e = e->parent_entry())
      chain.push_back(static_cast<std::size_t>(e - entries));
    // Not the run's own units nor anything inside them: start above the outermost.
    std::size_t from = 0;
    for (std::size_t k = 0; k < chain.size(); ++k) {
      const detail::TimingEntry& e = entries[chain[k]];
      if (e.unit() && e.unit_nest_run() == g.unit_nest_run()) from = k + 1;
    }
    for (std::size_t k = from; k < chain.size(); ++k) {
      const std::size_t i = chain[k];
      if (running[p][i]) return std::nullopt;  // the nest's entry still running: top level for now
      if (g.end <= entries[i].end) return EntryRef{p, i};
    }
    return dropped;
  }

  // append_trees: the finished runs as trees, the threads' roots in thread order.
  void append_trees(const Running& running, const Grafts& grafts, std::uint64_t origin,
                    Dep<std::vector<PassProfile>>& roots) const {
    const auto& buffers = state_->buffers;
    // children[k][i]: entry i's children on its own buffer, for every buffer (grafts cross them).
    Dep<std::vector<std::vector<std::vector<std::size_t>>>> children(buffers.size());
    Dep<std::vector<std::vector<std::size_t>>> tops(buffers.size());
    for (std::size_t w = 0; w < buffers.size(); ++w) {
      const Buffer& b = *buffers[w];
      const detail::TimingEntry* entries = b.begin();
      children[w].resize(b.size());
      for (std::size_t i = 0; i < b.size(); ++i) {
        if (running[w][i]) continue;
        if (entries[i].grafted()) {  // a unit from another thread: under its nest's entry, or top level
          if (grafts.placed.count({w, i}) == 0) tops[w].push_back(i);
          continue;
        }
        const detail::TimingEntry* parent = entries[i].parent_entry();
        if (parent != b.sentinel() && !running[w][static_cast<std::size_t>(parent - entries)]) {
          children[w][static_cast<std::size_t>(parent - entries)].push_back(i);
        } else {
          tops[w].push_back(i);  // top level, or its parent is still running (left out)
        }
      }
    }
    auto build = [&](auto& self, std::size_t w, std::size_t i) -> Dep<PassProfile> {
      const Buffer& b = *buffers[w];
      const auto& e = b.begin()[i];
      Dep<PassProfile> p;
      p.name = e.name();
      p.start = std::chrono::nanoseconds(clock_.to_ns(e.start - origin));
      p.duration = std::chrono::nanoseconds(clock_.to_ns(e.end - e.start));
      p.failed = e.failed();
      p.thread = b.index;
      p.analysis = e.analysis();
      p.function = e.function();
      p.unit = e.unit();
      p.unit_index = e.unit() ? static_cast<std::size_t>(e.unit_index()) : 0;
      const auto grafted = grafts.under.find({w, i});
      p.children.reserve(children[w][i].size() + (grafted == grafts.under.end() ? 0 : grafted->second.size()));
      for (std::size_t c : children[w][i]) p.children.push_back(self(self, w, c));
      if (grafted != grafts.under.end()) {
        for (const auto& [cw, ci] : grafted->second) p.children.push_back(self(self, cw, ci));
      }
      sort_units(p.children);
      return p;
    };
    for (std::size_t w = 0; w < buffers.size(); ++w) {
      for (std::size_t i : tops[w]) roots.push_back(build(build, w, i));
    }
  }

  // sort_units(children): the unit entries among them in unit order, in the
  // places unit entries hold (a nest's entry has only units as children).
  static void sort_units(Dep<std::vector<PassProfile>>& children) {
    Dep<std::vector<std::size_t>> at;
    for (std::size_t i = 0; i < children.size(); ++i) {
      if (children[i].unit) at.push_back(i);
    }
    if (at.size() < 2) return;
    Dep<std::vector<PassProfile>> units;
    units.reserve(at.size());
    for (std::size_t i : at) units.push_back(std::move(children[i]));
    std::stable_sort(units.begin(), units.end(),
                     [](const Dep<PassProfile>& a, const Dep<PassProfile>& b) { return a.unit_index < b.unit_index; });
    for (std::size_t u = 0; u < at.size(); ++u) children[at[u]] = std::move(units[u]);
  }

  std::uint64_t key_;
  PassTimingOptions options_;
  [[no_unique_address]] Clock clock_;
  std::unique_ptr<State> state_;
  detail::Atomic<const void*> owner_tag_{nullptr};  // thread_tag() of the first thread that recorded
  Buffer* owner_ = nullptr;                         // its buffer (written before owner_tag_)
};

using PassTimingInstrument = BasicPassTimingInstrument<>;

}  // namespace passinfra
