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

// detail::throw_error: Error(concat(parts)) without a std::string (what a
// context's constructor throws); a message past its buffer ends in "...".
TEST_CASE("core/error: throw_error throws what Error(concat(parts)) says, NULs as \\0") {
  using passinfra::detail::concat;
  using passinfra::detail::throw_error;
  auto message_of = [](auto thrower) {
    try {
      thrower();
    } catch (const passinfra::Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string nul(1, '\0');
  const std::string expected = passinfra::Error(concat({"a ", nul, " b", "", "c"})).what();
  CHECK(expected == "passinfra: a \\0 bc");
  CHECK(message_of([&] { throw_error({"a ", nul, " b", "", "c"}); }) == expected);
  CHECK(message_of([] { throw_error({}); }) == "passinfra: ");

  // Up to the buffer: the whole text. Past it: cut, ending in "...".
  const std::string fits(1000, 'x');
  CHECK(message_of([&] { throw_error({fits}); }) == "passinfra: " + fits);
  const std::string long_text(5000, 'y');
  const std::string cut = message_of([&] { throw_error({"head ", long_text}); });
  CHECK(cut.size() < 1024);
  CHECK(cut.size() > 1000);
  CHECK(cut.rfind("passinfra: head yyy", 0) == 0);
  CHECK(cut.substr(cut.size() - 4) == "y...");
  const std::string nuls(600, '\0');  // each written as two characters
  const std::string cut_nuls = message_of([&] { throw_error({nuls}); });
  CHECK(cut_nuls.size() < 1024);
  CHECK(cut_nuls.substr(cut_nuls.size() - 5) == "\\0...");
}
