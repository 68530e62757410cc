// tests/support/test_ir.hpp — a tiny IR and pass kit for the conformance tests.
//
// EventLog                   the shared, ordered list of events of one test
// TestIR{log, value, trail}  the IR: passes append their names to `trail`
// TestError{id}              the exception type tests throw (identity checked by id and address)
// TestPass<"Name", opt, requires_passes<...>>        records "Name", value += 1
// ThrowingPass<"Name", opt>                          records "Name", throws TestError
// NestedPass<"Name", Inner, opt>                     records "Name", runs Inner via run(inner, ir, ctx)
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <passinfra/core.hpp>

namespace pitest {

struct EventLog {
  std::vector<std::string> events;
  void add(std::string e) { events.push_back(std::move(e)); }
  void clear() { events.clear(); }
};

struct TestIR {
  EventLog* log = nullptr;
  int value = 0;
  std::vector<std::string> trail;

  TestIR() = default;
  explicit TestIR(EventLog* l, int v = 0, std::vector<std::string> t = {}) : log(l), value(v), trail(std::move(t)) {}
};

// A compile-time string, so a pass's name can be a template argument.
template <std::size_t N>
struct Name {
  char chars[N]{};
  constexpr Name(const char (&s)[N]) { std::copy_n(s, N, chars); }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

struct TestError : std::runtime_error {
  int id;
  explicit TestError(int i, const std::string& what = "test error") : std::runtime_error(what), id(i) {}
};

// The exception most recently thrown by test code: a handler compares its
// std::current_exception() with it to prove the very same object arrived.
inline std::exception_ptr last_thrown;

[[noreturn]] inline void throw_test_error(int id, const std::string& what) {
  last_thrown = std::make_exception_ptr(TestError(id, what));
  std::rethrow_exception(last_thrown);
}

template <Name N, int Opt = 0, class Req = passinfra::requires_passes<>>
struct TestPass {
  static constexpr passinfra::PassInfo info{N.view(), Opt};
  using required = Req;
  TestIR transform(TestIR ir, auto&) const {
    if (ir.log) ir.log->add(std::string(N.view()));
    ir.trail.emplace_back(N.view());
    ir.value += 1;
    return ir;
  }
};

template <Name N, int Opt = 0>
struct ThrowingPass {
  static constexpr passinfra::PassInfo info{N.view(), Opt};
  TestIR transform(TestIR ir, auto&) const {
    if (ir.log) ir.log->add(std::string(N.view()));
    throw_test_error(100, "pass body failed");
  }
};

template <Name N, class Inner, int Opt = 0>
struct NestedPass {
  static constexpr passinfra::PassInfo info{N.view(), Opt};
  TestIR transform(TestIR ir, auto& ctx) const {
    if (ir.log) ir.log->add(std::string(N.view()));
    ir.trail.emplace_back(N.view());
    return passinfra::run(Inner{}, std::move(ir), ctx);
  }
};

}  // namespace pitest
