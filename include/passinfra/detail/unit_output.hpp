// passinfra/detail/unit_output.hpp — the output of a unit pipeline in a
// parallel nest, held back and delivered in unit order (SPEC §11.5).
//
// While a unit of a parallel nest runs, the thread running it has a current
// UnitOutput (UnitOutputScope); log() and TextSink::write append to it
// instead of writing, and the nest replays every unit's buffer on its calling
// thread, in unit order, once all units finished. Outside parallel units the
// pointer is null: the serial path pays one thread_local load.
//
// A replayed message goes through log() / TextSink::write again, so a nest
// inside a parallel unit hands its units' output on to that unit's buffer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/detail/type_name.hpp"

namespace passinfra::detail {

// A class template (one instance, UnitOutput below) so that a translation
// unit compiles the members it uses only: log() adds, parallel nests deliver
// and insert (issue 18: the vector<Entry> insert and the rest were compiled
// by every TU that includes core.hpp).
template <class V = void>
class UnitOutputOf {
 public:
  // One held-back message: `replay(level, target, text)` sends it on.
  using Replay = void (*)(int level, void* target, std::string_view text);

  void add(Replay replay, int level, void* target, std::string_view text) {
    entries_.push_back(Entry{replay, level, target, dependent_t<std::string, V>(text)});  // (type_name.hpp)
  }
  // deliver(): replays the messages in the order they were sent, then forgets them.
  void deliver() {
    std::vector<Entry> entries = std::exchange(entries_, {});
    for (const Entry& e : entries) e.replay(e.level, e.target, e.text);
  }
  void discard() noexcept { entries_.clear(); }
  bool empty() const noexcept { return entries_.empty(); }
  std::size_t size() const noexcept { return entries_.size(); }
  // insert(at, other): other's messages, taken, sent after the first `at` of these.
  void insert(std::size_t at, UnitOutputOf&& other) {
    const auto pos = entries_.begin() + static_cast<std::ptrdiff_t>((at < entries_.size() ? at : entries_.size()));
    entries_.insert(pos, std::make_move_iterator(other.entries_.begin()),
                    std::make_move_iterator(other.entries_.end()));
    other.entries_.clear();
  }

 private:
  struct Entry {
    Replay replay;
    int level;
    void* target;
    std::string text;
  };
  std::vector<Entry> entries_;
};

using UnitOutput = UnitOutputOf<>;

inline thread_local UnitOutput* current_unit_output = nullptr;

// UnitOutputScope: `out` holds this thread's output for the scope's life.
class UnitOutputScope {
 public:
  explicit UnitOutputScope(UnitOutput& out) noexcept : saved_(std::exchange(current_unit_output, &out)) {}
  UnitOutputScope(const UnitOutputScope&) = delete;
  UnitOutputScope& operator=(const UnitOutputScope&) = delete;
  ~UnitOutputScope() { current_unit_output = saved_; }

 private:
  UnitOutput* saved_;
};

}  // namespace passinfra::detail
