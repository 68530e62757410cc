// passinfra/core/error.hpp: the error passinfra throws for bad input.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include <passinfra/core.hpp>

static_assert(std::is_base_of_v<std::runtime_error, passinfra::Error>);
static_assert(!std::is_convertible_v<std::string, passinfra::Error>);  // explicit

TEST_CASE("core/error: Error prefixes its message with 'passinfra: '") {
  const passinfra::Error error("unknown pass 'Foo'");
  CHECK(std::string(error.what()) == "passinfra: unknown pass 'Foo'");
  try {
    throw passinfra::Error("x");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()) == "passinfra: x");
  }
}
