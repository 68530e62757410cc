// passinfra/instruments/output.hpp — which passes an instrument looks at, and where it writes.
//
// PassFilter                   every pass (default), or only the listed names
// PassFilter{"A", "B"}         only A and B (exact names)
// PassFilter::only(names)      only these; an empty list matches nothing
// f.matches(name)              the filter lets `name` through
// TextSink                     the log sink at INFO (default), the log at another level, or a std::ostream
// TextSink(os) / TextSink(LogLevel::debug)
// sink.write(text)             one message (see below)
//
// A TextSink writes one message per write(): to the log as one log() call
// without a trailing newline; to a stream as the text followed by a newline
// if it does not end with one, then a flush. The stream must outlive the
// instrument; writes are not synchronized (an instrument that prints is
// meant for one thread at a time, like the stream it prints to).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passinfra/core/log.hpp"
#include "passinfra/core/pipeline_info.hpp"
#include "passinfra/detail/atomic.hpp"
#include "passinfra/detail/std_algorithm.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

class PassFilter {
 public:
  // PassFilter(): every pass.
  PassFilter() = default;
  // PassFilter{"A", "B"}: only these names.
  PassFilter(std::initializer_list<std::string_view> names) : all_(false), names_(names.begin(), names.end()) {}

  static PassFilter all() { return PassFilter(); }
  static PassFilter only(std::vector<std::string> names) {
    PassFilter f;
    f.all_ = false;
    f.names_ = std::move(names);
    return f;
  }

  bool matches(std::string_view name) const noexcept {
    return all_ || std::find(names_.begin(), names_.end(), name) != names_.end();
  }
  bool matches_all() const noexcept { return all_; }
  const std::vector<std::string>& names() const noexcept { return names_; }

 private:
  bool all_ = true;
  std::vector<std::string> names_;
};

class TextSink {
 public:
  // TextSink(): the log sink, at INFO.
  TextSink() = default;
  // TextSink(os): a stream the caller owns.
  TextSink(std::ostream& os) : os_(&os) {}  // NOLINT(google-explicit-constructor): `PrintIRAfter({}, std::cerr)`
  // TextSink(level): the log sink, at `level`.
  explicit TextSink(LogLevel level) : level_(level) {}

  // (A template called as write(text), with what it names spelled through
  // V: a translation unit that never writes compiles neither log() nor the
  // nest's held output. Issue 18.)
  template <class V = void>
  void write(std::string_view text) const {
    if (os_ != nullptr) {
      if (detail::dependent_t<detail::UnitOutput, V>* held = detail::current_unit_output) [[unlikely]] {
        // A unit of a parallel nest: held back, replayed in unit order (SPEC §11.5).
        held->add([](int, void* os, std::string_view t) { TextSink(*static_cast<std::ostream*>(os)).write<V>(t); }, 0,
                  os_, text);
        return;
      }
      *os_ << text;
      if (text.empty() || text.back() != '\n') *os_ << '\n';
      os_->flush();
    } else {
      if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
      log<V>(level_, text);
    }
  }

  bool to_log() const noexcept { return os_ == nullptr; }
  std::ostream* stream() const noexcept { return os_; }
  LogLevel level() const noexcept { return level_; }

 private:
  std::ostream* os_ = nullptr;
  LogLevel level_ = LogLevel::info;
};

namespace detail {

// SharedCount: a count that several threads may add to at once (relaxed; a
// parallel nest's units call an instrument's hooks concurrently); copying
// copies the value, so an instrument holding one stays copyable.
class SharedCount {
 public:
  SharedCount() = default;
  SharedCount(const SharedCount& other) noexcept : n_(other.get()) {}
  SharedCount& operator=(const SharedCount& other) noexcept {
    n_.store(other.get(), detail::MemoryOrder::relaxed);
    return *this;
  }
  ~SharedCount() = default;
  void operator++() noexcept { n_.fetch_add(1, detail::MemoryOrder::relaxed); }
  std::size_t get() const noexcept { return n_.load(detail::MemoryOrder::relaxed); }

 private:
  detail::Atomic<std::size_t> n_{0};
};

// PerThread<T>: one T per thread (by thread_ordinal()), for the state an
// instrument pairs across hooks on one thread (a stack of saved inputs, the
// last should_run), so that a parallel nest's units keep theirs apart
// (SPEC §11.8). Not synchronized: the instrument holds its lock around it.
template <class T>
class PerThread {
 public:
  // The T of `thread` (default: the calling thread), or null if it has none yet.
  T* find(std::uint32_t thread = thread_ordinal()) noexcept {
    for (auto& [t, value] : items_) {
      if (t == thread) return &value;
    }
    return nullptr;
  }
  // The calling thread's T, made from `initial` at its first use.
  T& mine(T initial = T{}) {
    const std::uint32_t self = thread_ordinal();
    if (T* value = find(self)) return *value;
    return items_.emplace_back(self, std::move(initial)).second;
  }
  void clear() noexcept { items_.clear(); }

 private:
  std::vector<std::pair<std::uint32_t, T>> items_;
};

// append_unit(text): inside a nest's unit pipeline, " on <unit name>" (SPEC §11.8).
template <class = void>
void append_unit(std::string& text) {
  if (const PipelineInfo* p = current_pipeline()) {
    text += " on ";
    text += p->unit_name;
  }
}

}  // namespace detail

}  // namespace passinfra
