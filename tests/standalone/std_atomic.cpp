// tests/standalone/std_atomic.cpp — its own program (ctest unit.std_atomic),
// built with PASSINFRA_STD_ATOMIC=1: detail::Atomic forwards to std::atomic,
// as on a platform without the built-in / futex implementation. It runs the
// same cases as tests/detail/atomic_test.cpp, and a context, a log call and a
// parallel nest's fork-join, so the whole core builds and runs on it. (The
// macro must have one value in a program, hence a program of its own.)
#define PASSINFRA_STD_ATOMIC 1
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>

#include <passinfra/core.hpp>
#include <passinfra/detail/fork_join.hpp>
#include <passinfra/parallel/thread_pool.hpp>

#include "support/atomic_cases.hpp"

#if !PASSINFRA_STD_ATOMIC
#error "std_atomic.cpp must build detail::Atomic on std::atomic"
#endif
static_assert(sizeof(passinfra::detail::Atomic<unsigned>) == sizeof(std::atomic<unsigned>));

namespace {

struct Ir {
  int value = 0;
};

struct AddOne {
  static constexpr passinfra::PassInfo info{"AddOne", 0};
  Ir transform(Ir ir, auto& /*ctx*/) const {
    ++ir.value;
    return ir;
  }
};

}  // namespace

TEST_CASE("std::atomic build: a context runs a pipeline, logs, and forks and joins") {
  auto ctx = passinfra::make_pass_context<Ir>({.opt_level = 2});
  const Ir out = passinfra::run(passinfra::Sequential<AddOne, AddOne>{}, Ir{}, ctx);
  CHECK(out.value == 2);

  passinfra::log(passinfra::LogLevel::debug, "std_atomic: a message under the log lock");

  passinfra::ThreadPool pool(3);
  std::atomic<std::size_t> units{0};
  auto run_unit = [&](std::size_t) { units.fetch_add(1); };
  const auto result = passinfra::detail::fork_join(passinfra::ExecutorRef(pool), 64, run_unit);
  CHECK(result.ok());
  CHECK(result.started == 64);
  CHECK(units.load() == 64);
}
