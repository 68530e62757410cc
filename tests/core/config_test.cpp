// passinfra/core/config.hpp: registering typed options, validating a
// context's config (SPEC §8), reading options with defaults.
// The registry is process-wide: every key here starts with "pitest.core.".
#include <doctest/doctest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <passinfra/core.hpp>

#include "support/test_ir.hpp"

using passinfra::Config;
using passinfra::ConfigType;
using passinfra::ConfigValue;
using passinfra::StringList;

namespace {

template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const passinfra::Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

const passinfra::ConfigOption* find_option(const std::vector<passinfra::ConfigOption>& options, std::string_view key) {
  auto it = std::find_if(options.begin(), options.end(), [&](const auto& o) { return o.key == key; });
  return it == options.end() ? nullptr : &*it;
}

// Registered once for the whole file (registering again with the same type is a no-op).
void register_test_options() {
  passinfra::register_config_option<bool>("pitest.core.flag", "a flag");
  passinfra::register_config_option<std::int64_t>("pitest.core.unroll_factor", "an int64");
  passinfra::register_config_option<int>("pitest.core.unroll_depth", "an int");
  passinfra::register_config_option<double>("pitest.core.ratio", "a double");
  passinfra::register_config_option<float>("pitest.core.small_ratio", "a float");
  passinfra::register_config_option<std::string>("pitest.core.target", "a string");
  passinfra::register_config_option<StringList>("pitest.core.passes", "a list of strings");
}

inline constexpr passinfra::ConfigKey<std::int64_t> kMaxDepth{"pitest.core.max_depth", 3};
inline constexpr passinfra::ConfigKey<bool> kVerbose{"pitest.core.verbose", true};

}  // namespace

TEST_CASE("core/config: to_string of each type, and the type each C++ type is stored as") {
  CHECK(passinfra::to_string(ConfigType::boolean) == "bool");
  CHECK(passinfra::to_string(ConfigType::integer) == "integer");
  CHECK(passinfra::to_string(ConfigType::floating) == "double");
  CHECK(passinfra::to_string(ConfigType::string) == "string");
  CHECK(passinfra::to_string(ConfigType::string_list) == "list of strings");
  static_assert(passinfra::config_type_of<bool>() == ConfigType::boolean);
  static_assert(passinfra::config_type_of<int>() == ConfigType::integer);
  static_assert(passinfra::config_type_of<unsigned char>() == ConfigType::integer);
  static_assert(passinfra::config_type_of<std::int64_t>() == ConfigType::integer);
  static_assert(passinfra::config_type_of<float>() == ConfigType::floating);
  static_assert(passinfra::config_type_of<const double&>() == ConfigType::floating);
  static_assert(passinfra::config_type_of<std::string>() == ConfigType::string);
  static_assert(passinfra::config_type_of<std::string_view>() == ConfigType::string);
  static_assert(passinfra::config_type_of<StringList>() == ConfigType::string_list);
  // A value's type is the alternative it holds; a string literal is a string, not a bool.
  CHECK(passinfra::config_type_of(ConfigValue(true)) == ConfigType::boolean);
  CHECK(passinfra::config_type_of(ConfigValue(std::int64_t{4})) == ConfigType::integer);
  CHECK(passinfra::config_type_of(ConfigValue(4)) == ConfigType::integer);
  CHECK(passinfra::config_type_of(ConfigValue(0.5)) == ConfigType::floating);
  CHECK(passinfra::config_type_of(ConfigValue("llvm")) == ConfigType::string);
  CHECK(passinfra::config_type_of(ConfigValue(StringList{"a"})) == ConfigType::string_list);
}

TEST_CASE("core/config: register_config_option with each type lists the options, sorted, with their types") {
  register_test_options();
  const auto options = passinfra::registered_config_options();
  struct Expected {
    std::string_view key;
    ConfigType type;
    std::string_view description;
  };
  for (const Expected& e : {Expected{"pitest.core.flag", ConfigType::boolean, "a flag"},
                            Expected{"pitest.core.unroll_factor", ConfigType::integer, "an int64"},
                            Expected{"pitest.core.unroll_depth", ConfigType::integer, "an int"},
                            Expected{"pitest.core.ratio", ConfigType::floating, "a double"},
                            Expected{"pitest.core.small_ratio", ConfigType::floating, "a float"},
                            Expected{"pitest.core.target", ConfigType::string, "a string"},
                            Expected{"pitest.core.passes", ConfigType::string_list, "a list of strings"}}) {
    CAPTURE(e.key);
    const auto* option = find_option(options, e.key);
    REQUIRE(option != nullptr);
    CHECK(option->type == e.type);
    CHECK(option->description == e.description);
  }
  CHECK(std::is_sorted(options.begin(), options.end(), [](const auto& a, const auto& b) { return a.key < b.key; }));
}

TEST_CASE("core/config: registering a key again is a no-op with the same type and an error with another") {
  register_test_options();
  const std::size_t before = passinfra::registered_config_options().size();
  passinfra::register_config_option<std::int64_t>("pitest.core.unroll_factor", "another description");
  passinfra::register_config_option<short>("pitest.core.unroll_factor");  // also an integer
  const auto options = passinfra::registered_config_options();
  CHECK(options.size() == before);
  CHECK(find_option(options, "pitest.core.unroll_factor")->description == "an int64");  // the first one stays

  CHECK(error_message([] { passinfra::register_config_option<std::string>("pitest.core.flag"); }) ==
        "passinfra: register_config_option: 'pitest.core.flag' is already registered as bool, not string");
  CHECK(error_message([] { passinfra::register_config_option<bool>(""); }) ==
        "passinfra: register_config_option: the key is empty; expected a non-empty name");
}

TEST_CASE("core/config: validate_config accepts registered keys with values of their type") {
  register_test_options();
  Config config{{"pitest.core.flag", true},
                {"pitest.core.unroll_factor", std::int64_t{8}},
                {"pitest.core.ratio", 0.25},
                {"pitest.core.target", std::string("llvm")},
                {"pitest.core.passes", StringList{"FoldConstant", "InferType"}}};
  CHECK_NOTHROW(passinfra::validate_config(config));
  Config empty;
  CHECK_NOTHROW(passinfra::validate_config(empty));
}

TEST_CASE("core/config: an unknown key is an error naming the key and the closest registered keys") {
  register_test_options();
  Config config{{"pitest.core.unrol_factor", std::int64_t{2}}};
  const std::string message = error_message([&] { passinfra::validate_config(config); });
  CHECK(message.rfind("passinfra: unknown config key 'pitest.core.unrol_factor'; expected a registered option; the "
                      "closest registered keys: 'pitest.core.unroll_factor', ",
                      0) == 0);
  const std::string second = error_message([] {
    Config c{{"pitest.core.flag", false}, {"pitest.core.targt", std::string("x")}};
    passinfra::validate_config(c);
  });
  CHECK(contains(second, "'pitest.core.targt'"));
  CHECK(contains(second, "closest registered keys: 'pitest.core.target'"));
}

TEST_CASE("core/config: a value of the wrong type is an error naming the key, the expected and the given type") {
  register_test_options();
  auto message_for = [](ConfigValue value, std::string key) {
    return error_message([&] {
      Config c{{key, std::move(value)}};
      passinfra::validate_config(c);
    });
  };
  const std::string int_for_bool = message_for(std::int64_t{1}, "pitest.core.flag");
  CHECK(contains(int_for_bool, "config key 'pitest.core.flag'"));
  CHECK(contains(int_for_bool, "expects a value of type bool"));
  CHECK(contains(int_for_bool, "but was given an integer (1)"));

  CHECK(message_for(std::string("3"), "pitest.core.unroll_factor") ==
        "passinfra: config key 'pitest.core.unroll_factor' expects a value of type integer, but was given a string "
        "(\"3\")");
  CHECK(message_for(1.5, "pitest.core.unroll_factor") ==
        "passinfra: config key 'pitest.core.unroll_factor' expects a value of type integer, but was given a double "
        "(1.5)");
  CHECK(message_for(true, "pitest.core.target") ==
        "passinfra: config key 'pitest.core.target' expects a value of type string, but was given a bool (true)");
  CHECK(message_for(std::string("a"), "pitest.core.passes") ==
        "passinfra: config key 'pitest.core.passes' expects a value of type list of strings, but was given a string "
        "(\"a\")");
  CHECK(message_for(true, "pitest.core.ratio") ==
        "passinfra: config key 'pitest.core.ratio' expects a value of type double, but was given a bool (true)");
}

TEST_CASE("core/config: an integer is accepted for a floating option and converted in place") {
  register_test_options();
  Config config{{"pitest.core.ratio", std::int64_t{3}}};
  passinfra::validate_config(config);
  REQUIRE(std::holds_alternative<double>(config[0].value));
  CHECK(std::get<double>(config[0].value) == 3.0);
  // Not the other way round: a double is not an integer.
  Config back{{"pitest.core.unroll_factor", 3.0}};
  CHECK_THROWS_AS(passinfra::validate_config(back), passinfra::Error);
}

TEST_CASE(
    "core/config: a ConfigEntry is made, copied, moved, assigned and destroyed like a struct of its key and value") {
  // (Its value is destroyed through a pointer the constructor stored: issue
  // 18. Under ASan, a value destroyed twice or never is a failure here.)
  const std::string long_text(200, 'x');  // beyond any small-string buffer
  Config config;
  config.push_back({"pitest.core.entry.bool", true});
  config.push_back({"pitest.core.entry.int", std::int64_t{-7}});
  config.push_back({"pitest.core.entry.double", 2.5});
  config.emplace_back("pitest.core.entry.string", long_text);
  config.emplace_back("pitest.core.entry.list", StringList{long_text, "b"});
  for (int i = 0; i < 40; ++i)
    config.push_back(config[static_cast<std::size_t>(i % 5)]);  // copies, and moves on growth
  REQUIRE(config.size() == 45);
  CHECK(std::get<std::string>(config[43].value) == long_text);
  CHECK(std::get<StringList>(config[44].value) == StringList{long_text, "b"});
  CHECK(config[41].key == "pitest.core.entry.int");

  const Config copy = config;  // a copy is independent of the original
  config[3].value = std::int64_t{1};
  config[4].key = "changed";
  CHECK(std::get<std::string>(copy[3].value) == long_text);
  CHECK(copy[4].key == "pitest.core.entry.list");

  passinfra::ConfigEntry moved = std::move(config[4]);  // the moved-from entry stays valid
  CHECK(std::get<StringList>(moved.value) == StringList{long_text, "b"});
  config[4] = copy[3];  // copy-assigned over a list: the list goes, the string is copied
  CHECK(std::get<std::string>(config[4].value) == long_text);
  config[4] = std::move(moved);
  CHECK(std::get<StringList>(config[4].value).size() == 2);
  const passinfra::ConfigEntry& first = config[0];
  config[0] = first;  // self-assignment keeps the entry
  CHECK(config[0].key == "pitest.core.entry.bool");
  CHECK(std::get<bool>(config[0].value));

  const passinfra::ConfigEntry empty;  // an empty key and false, as a value-initialized struct
  CHECK(empty.key.empty());
  CHECK(std::get<bool>(empty.value) == false);
  config.erase(config.begin(), config.begin() + 10);  // moves down, destroys the tail
  CHECK(config.size() == 35);
}

TEST_CASE("core/config: config_get returns the value set, the last one if set twice, or the default") {
  const Config config{{"pitest.core.unroll_factor", std::int64_t{8}},  {"pitest.core.target", std::string("llvm")},
                      {"pitest.core.unroll_factor", std::int64_t{16}}, {"pitest.core.ratio", 0.5},
                      {"pitest.core.passes", StringList{"A", "B"}},    {"pitest.core.flag", false}};
  CHECK(passinfra::config_get<std::int64_t>(config, "pitest.core.unroll_factor", 1) == 16);
  CHECK(passinfra::config_get<int>(config, "pitest.core.unroll_factor", 1) == 16);
  CHECK(passinfra::config_get<std::string>(config, "pitest.core.target", "c") == "llvm");
  CHECK(passinfra::config_get<double>(config, "pitest.core.ratio", 0.0) == 0.5);
  CHECK(passinfra::config_get<float>(config, "pitest.core.ratio", 0.0f) == 0.5f);
  CHECK(passinfra::config_get<StringList>(config, "pitest.core.passes", {}) == StringList{"A", "B"});
  CHECK(passinfra::config_get<bool>(config, "pitest.core.flag", true) == false);
  CHECK(passinfra::config_get<std::int64_t>(config, "pitest.core.not_set", 42) == 42);
  CHECK(passinfra::config_get<std::string>(config, "pitest.core.not_set", "dflt") == "dflt");
  // Reading with the wrong type is an error naming the key.
  CHECK(error_message([&] { (void)passinfra::config_get<bool>(config, "pitest.core.target", false); }) ==
        "passinfra: get_config: key 'pitest.core.target' holds a string, but was read as a bool");
}

// The range an Error states is the type's own (config.hpp computes it without
// <limits>; checked here against std::numeric_limits), and a value at either
// end is read.
namespace {
template <class T>
void check_range_of() {
  using L = std::numeric_limits<T>;
  const std::string range = "(" + std::to_string(+L::min()) + " to " + std::to_string(+L::max()) + ")";
  const auto lo = static_cast<std::int64_t>(L::min()), hi = static_cast<std::int64_t>(L::max());
  const Config config{{"lo", lo}, {"hi", hi}, {"below", lo - 1}, {"above", hi + 1}};
  CHECK(passinfra::config_get<T>(config, "lo", T{1}) == L::min());
  CHECK(passinfra::config_get<T>(config, "hi", T{1}) == L::max());
  for (const char* key : {"below", "above"}) {
    CAPTURE(key);
    const std::string message = error_message([&] { (void)passinfra::config_get<T>(config, key, T{}); });
    CHECK(contains(message, range));
  }
}
}  // namespace

TEST_CASE("core/config: an integer read as a narrower type states the type's range, and both ends are read") {
  check_range_of<std::int8_t>();
  check_range_of<std::uint8_t>();
  check_range_of<std::int16_t>();
  check_range_of<std::uint16_t>();
  check_range_of<int>();
  check_range_of<unsigned>();
  check_range_of<char>();
  check_range_of<char16_t>();
  // The widest: every int64 fits int64, and a negative one is outside uint64.
  const Config config{{"min", std::numeric_limits<std::int64_t>::min()}, {"neg", std::int64_t{-1}}};
  CHECK(passinfra::config_get<std::int64_t>(config, "min", 0) == std::numeric_limits<std::int64_t>::min());
  CHECK(contains(error_message([&] { (void)passinfra::config_get<std::uint64_t>(config, "neg", 0); }),
                 "(0 to 18446744073709551615)"));
}

TEST_CASE("core/config: a double read as float is range-checked against FLT_MAX; infinities and NaN pass") {
  constexpr double max = std::numeric_limits<float>::max();
  const Config config{{"max", max},
                      {"over", max * 2},
                      {"under", -max * 2},
                      {"inf", std::numeric_limits<double>::infinity()},
                      {"ninf", -std::numeric_limits<double>::infinity()},
                      {"nan", std::numeric_limits<double>::quiet_NaN()}};
  CHECK(passinfra::config_get<float>(config, "max", 0.0f) == std::numeric_limits<float>::max());
  const std::string range = "(" + passinfra::format_option_value(ConfigValue{-max}) + " to " +
                            passinfra::format_option_value(ConfigValue{max}) + ")";
  for (const char* key : {"over", "under"}) {
    CAPTURE(key);
    CHECK(contains(error_message([&] { (void)passinfra::config_get<float>(config, key, 0.0f); }), range));
  }
  CHECK(passinfra::config_get<float>(config, "inf", 0.0f) == std::numeric_limits<float>::infinity());
  CHECK(passinfra::config_get<float>(config, "ninf", 0.0f) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(passinfra::config_get<float>(config, "nan", 0.0f)));
}

TEST_CASE("core/config: PassContext validates its config at construction") {
  register_test_options();
  CHECK_THROWS_WITH_AS((void)passinfra::make_pass_context<pitest::TestIR>({.config = {{"pitest.core.nope", true}}}),
                       doctest::Contains("unknown config key 'pitest.core.nope'"), passinfra::Error);
  CHECK_THROWS_WITH_AS(
      (void)passinfra::make_pass_context<pitest::TestIR>({.config = {{"pitest.core.flag", std::string("yes")}}}),
      doctest::Contains("config key 'pitest.core.flag' expects a value of type bool"), passinfra::Error);

  auto ctx = passinfra::make_pass_context<pitest::TestIR>(
      {.config = {{"pitest.core.unroll_factor", std::int64_t{4}}, {"pitest.core.ratio", std::int64_t{2}}}});
  CHECK(ctx.get_config<std::int64_t>("pitest.core.unroll_factor", 0) == 4);
  CHECK(ctx.get_config<double>("pitest.core.ratio", 0.0) == 2.0);
  REQUIRE(ctx.config().size() == 2);
  CHECK(std::holds_alternative<double>(ctx.config()[1].value));  // converted at construction
  CHECK(ctx.get_config<std::string>("pitest.core.target", "default target") == "default target");
}

TEST_CASE("core/config: ConfigKey carries the type and the default") {
  passinfra::register_config_option(kMaxDepth, "maximum depth");
  passinfra::register_config_option(kVerbose);
  const auto options = passinfra::registered_config_options();
  REQUIRE(find_option(options, "pitest.core.max_depth") != nullptr);
  CHECK(find_option(options, "pitest.core.max_depth")->type == ConfigType::integer);
  CHECK(find_option(options, "pitest.core.max_depth")->description == "maximum depth");
  CHECK(find_option(options, "pitest.core.verbose")->type == ConfigType::boolean);

  auto unset = passinfra::make_pass_context<pitest::TestIR>({});
  CHECK(unset.get_config(kMaxDepth) == 3);
  CHECK(unset.get_config(kVerbose) == true);
  auto set = passinfra::make_pass_context<pitest::TestIR>(
      {.config = {{"pitest.core.max_depth", std::int64_t{7}}, {"pitest.core.verbose", false}}});
  CHECK(set.get_config(kMaxDepth) == 7);
  CHECK(set.get_config(kVerbose) == false);
}

namespace {
// What std::to_chars(double) writes, with ".0" where it has neither '.' nor an exponent.
std::string to_chars_text(double v) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  std::string out(buffer, result.ptr);
  if (out.find_first_of(".en") == std::string::npos) out += ".0";
  return out;
}
}  // namespace

TEST_CASE("core/config: format_option_value writes a double as std::to_chars does, shortest, fixed on a tie") {
  using passinfra::format_option_value;
  CHECK(format_option_value(ConfigValue(2.5)) == "2.5");
  CHECK(format_option_value(ConfigValue(2.0)) == "2.0");
  CHECK(format_option_value(ConfigValue(-0.0)) == "-0.0");
  CHECK(format_option_value(ConfigValue(0.1)) == "0.1");
  CHECK(format_option_value(ConfigValue(1e4)) == "10000.0");  // a tie: fixed
  CHECK(format_option_value(ConfigValue(1e5)) == "1e+05");    // shorter scientific
  CHECK(format_option_value(ConfigValue(1e-5)) == "1e-05");
  CHECK(format_option_value(ConfigValue(0.001)) == "0.001");
  CHECK(format_option_value(ConfigValue(std::ldexp(1.0, 55))) == "36028797018963968.0");  // exact integer digits
  CHECK(format_option_value(ConfigValue(5e-324)) == "5e-324");
  CHECK(format_option_value(ConfigValue(1.7976931348623157e308)) == "1.7976931348623157e+308");
  // Powers of two read back from a lopsided interval (the correctly rounded
  // digits do not, their neighbour does), and random bit patterns.
  std::vector<double> values;
  for (int e = -1074; e <= 1023; e += 1) {
    const double v = std::ldexp(1.0, e);
    values.insert(values.end(), {v, std::nextafter(v, 0.0), -std::nextafter(v, 2 * v)});
  }
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 20000; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    double v = 0;
    std::memcpy(&v, &state, sizeof v);
    if (v == v && v - v == 0) values.push_back(v);
  }
  std::size_t differ = 0;
  for (const double v : values) {
    const std::string got = passinfra::detail::format_double(v), want = to_chars_text(v);
    if (got != want && ++differ <= 5) CHECK_MESSAGE(got == want, "for ", v);
  }
  CHECK(differ == 0);
}
