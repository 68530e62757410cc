// tests/standalone/config_unregistered.cpp — its own process (ctest
// unit.config_unregistered): a context validates its config through a
// pointer that register_config_option sets (config.hpp, detail::check_config),
// so with no option registered anywhere in the process a context must still
// reject every key, with validate_config's message for an empty registry.
// (In passinfra_tests other test cases register options first.)
#include <cstdint>
#include <cstdio>
#include <string>

#include <passinfra/core.hpp>

namespace {
struct Ir {};

int failures = 0;
void expect(bool ok, const char* what, const std::string& got) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s (got: %s)\n", what, got.c_str());
    ++failures;
  }
}
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const passinfra::Error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

int main() {
  expect(passinfra::registered_config_options().empty(), "no option is registered at start", "");
  const std::string by_context = error_of([] {
    auto ctx = passinfra::make_pass_context<Ir>({.config = {{"a.b", std::int64_t{1}}}});
    (void)ctx;
  });
  passinfra::Config config{{"a.b", std::int64_t{1}}};
  const std::string by_validate = error_of([&] { passinfra::validate_config(config); });
  expect(by_context == "passinfra: unknown config key 'a.b'; expected a registered option; no keys are registered",
         "the context's message", by_context);
  expect(by_context == by_validate, "the context and validate_config say the same", by_validate);
  // A long key (clipped at a UTF-8 boundary, a NUL in what is quoted): the
  // context's message, built without a std::string (detail::throw_error), is
  // validate_config's (through clipped and Error(std::string)).
  const std::string long_key = std::string(79, 'k') + "\xc3\xa9" + std::string(1, '\0') + std::string(40, 'z');
  const std::string long_by_context = error_of([&] {
    auto ctx = passinfra::make_pass_context<Ir>({.config = {{long_key, std::int64_t{1}}}});
    (void)ctx;
  });
  passinfra::Config long_config{{long_key, std::int64_t{1}}};
  const std::string long_by_validate = error_of([&] { passinfra::validate_config(long_config); });
  expect(long_by_context == "passinfra: unknown config key '" + std::string(79, 'k') +
                                "... (122 bytes)'; expected a registered option; no keys are registered",
         "a long key is clipped", long_by_context);
  expect(long_by_context == long_by_validate, "the context and validate_config clip the same", long_by_validate);
  const std::string nul_key = std::string("a") + std::string(1, '\0') + "b";
  const std::string nul_by_context = error_of([&] {
    auto ctx = passinfra::make_pass_context<Ir>({.config = {{nul_key, std::int64_t{1}}}});
    (void)ctx;
  });
  passinfra::Config nul_config{{nul_key, std::int64_t{1}}};
  expect(
      nul_by_context == "passinfra: unknown config key 'a\\0b'; expected a registered option; no keys are registered",
      "a NUL in the key is written \\0", nul_by_context);
  expect(nul_by_context == error_of([&] { passinfra::validate_config(nul_config); }),
         "the context and validate_config write a NUL the same", nul_by_context);
  expect(error_of([] {
           auto ctx = passinfra::make_pass_context<Ir>({});
           (void)ctx;
         }) == "(no error)",
         "an empty config is valid", "");

  // Once an option is registered, the context validates through validate_config.
  passinfra::register_config_option<bool>("a.c");
  const std::string after = error_of([] {
    auto ctx = passinfra::make_pass_context<Ir>({.config = {{"a.b", std::int64_t{1}}}});
    (void)ctx;
  });
  expect(
      after == "passinfra: unknown config key 'a.b'; expected a registered option; the closest registered keys: 'a.c'",
      "after registering, the context suggests", after);
  expect(error_of([] {
           auto ctx = passinfra::make_pass_context<Ir>({.config = {{"a.c", true}}});
           (void)ctx;
         }) == "(no error)",
         "a registered key of its type is valid", "");
  if (failures == 0) std::puts("config_unregistered: OK");
  return failures == 0 ? 0 : 1;
}
