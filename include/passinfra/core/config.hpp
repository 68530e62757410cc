// passinfra/core/config.hpp — typed options of a PassContext (SPEC §8).
//
// ConfigValue                       bool | std::int64_t | double | std::string | StringList
// ConfigEntry{key, value}           one option as given to a context (ConfigEntry() is {"", false})
// Config                            std::vector<ConfigEntry>
// ConfigType                        the registered type of an option
// ConfigKey<T>{key, default}        a typed key for static code
// register_config_option<T>(key, description)   T: bool, an integer, a floating type,
//                                   std::string, StringList; re-registering the same type is a no-op
// register_config_option(ConfigKey<T>)
// registered_config_options()       all options, sorted by key
// validate_config(config)           throws Error: unknown key (with the closest keys) or wrong type
// config_get<T>(config, key, default)
// format_option_value(value)        a ConfigValue as pipeline text: 2, -1.5, true, "s", ["a","b"]
//
// Options are process-wide, registered by key with a value type. A context
// validates its config when it is constructed; reading an option that was
// not set returns the default given by the reader. An integer given for a
// floating option is converted; no other conversion happens. Reading an
// integer as a narrower integer type (or a double as float) checks the
// range: a value the type cannot hold is an Error naming the key, never a
// silently truncated number.
#pragma once

#include <cfloat>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "passinfra/core/error.hpp"
#include "passinfra/detail/atomic.hpp"
#include "passinfra/detail/compiled.hpp"
#include "passinfra/detail/light_mutex.hpp"
#include "passinfra/detail/suggest.hpp"
#include "passinfra/detail/type_name.hpp"

namespace passinfra {

using StringList = std::vector<std::string>;
using ConfigValue = std::variant<bool, std::int64_t, double, std::string, StringList>;

// ConfigEntry{key, value}: one option, made from a key and a value, copied,
// moved and assigned like a struct of the two. What is unusual is how its
// value is destroyed: through a pointer that the constructor which made the
// value stored. Destroying a Config (every PassContextOptions does) then
// compiles no std::variant destructor (a visit over the five types) in a
// translation unit that never makes an entry (issue 18: a TU that makes one
// context, benchmarks/compile_time.sh's context.cpp, g++ 3282 -> 3241 M
// compiler instructions, clang 3158 -> 3007 M). Not an aggregate: no
// designated initializers or structured bindings; `{key, value}` works.
// Every entry holds the same pointer (destroy_config_value<>); it is per
// entry, not one shared variable, so that it is set where the value is made,
// with no synchronization.
namespace detail {
// Destroys a ConfigEntry's value (through the entry's pointer).
template <class V = void>
void destroy_config_value(dependent_t<ConfigValue, V>& value) noexcept {
  value.~ConfigValue();
}

template <class V = void>
struct ConfigEntryOf {
  // (The value's type spelled dependently: clang would otherwise compile
  // std::variant's special members where this template is defined.)
  using value_type = dependent_t<ConfigValue, V>;

  std::string key;
  union {
    value_type value;
  };

  ConfigEntryOf() : ConfigEntryOf(std::string(), value_type()) {}
  ConfigEntryOf(std::string key_, value_type value_)
      : key(static_cast<std::string&&>(key_)), destroy_(&destroy_config_value<V>) {
    ::new (static_cast<void*>(&value)) value_type(static_cast<value_type&&>(value_));
  }
  ConfigEntryOf(const ConfigEntryOf& other) : key(other.key), destroy_(other.destroy_) {
    ::new (static_cast<void*>(&value)) value_type(other.value);
  }
  ConfigEntryOf(ConfigEntryOf&& other) noexcept : key(static_cast<std::string&&>(other.key)), destroy_(other.destroy_) {
    ::new (static_cast<void*>(&value)) value_type(static_cast<value_type&&>(other.value));
  }
  ConfigEntryOf& operator=(const ConfigEntryOf& other) {
    if (this != &other) {
      key = other.key;
      value = other.value;
    }
    return *this;
  }
  ConfigEntryOf& operator=(ConfigEntryOf&& other) noexcept {
    key = static_cast<std::string&&>(other.key);
    value = static_cast<value_type&&>(other.value);
    return *this;
  }
  ~ConfigEntryOf() { destroy_(value); }

 private:
  void (*destroy_)(value_type&) noexcept;
};
}  // namespace detail
using ConfigEntry = detail::ConfigEntryOf<>;

using Config = std::vector<ConfigEntry>;

enum class ConfigType { boolean, integer, floating, string, string_list };

// to_string(ConfigType) -> "bool" | "integer" | "double" | "string" | "list of strings"
constexpr std::string_view to_string(ConfigType type) noexcept {
  switch (type) {
    case ConfigType::boolean:
      return "bool";
    case ConfigType::integer:
      return "integer";
    case ConfigType::floating:
      return "double";
    case ConfigType::string:
      return "string";
    case ConfigType::string_list:
      return "list of strings";
  }
  return "?";
}

// config_type_of<T>: the ConfigType a C++ type reads and writes as.
template <class T>
consteval ConfigType config_type_of() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return ConfigType::boolean;
  } else if constexpr (std::is_integral_v<U>) {
    return ConfigType::integer;
  } else if constexpr (std::is_floating_point_v<U>) {
    return ConfigType::floating;
  } else if constexpr (std::is_convertible_v<U, std::string_view>) {
    return ConfigType::string;
  } else {
    static_assert(std::is_same_v<U, StringList>,
                  "passinfra config: an option's type must be bool, an integer type, a floating-point type, "
                  "std::string or passinfra::StringList");
    return ConfigType::string_list;
  }
}

inline ConfigType config_type_of(const ConfigValue& value) noexcept { return static_cast<ConfigType>(value.index()); }

// ConfigKey<T>: a key that carries its type and default, for static code:
//   inline constexpr passinfra::ConfigKey<std::int64_t> kMaxDepth{"relay.FuseOps.max_depth", 3};
template <class T>
struct ConfigKey {
  std::string_view key;
  T default_value{};
};

struct ConfigOption {
  std::string key;
  ConfigType type;
  std::string description;
};

// Cold code is lazy: the functions below that only registration, validation
// and messages use (register_config_option, registered_config_options,
// validate_config, format_option_value and their helpers) are templates with
// a defaulted parameter, called as plain functions (validate_config(config)),
// so that including this header compiles none of them; a translation unit
// compiles those it calls. A context reaches validate_config only through
// detail::config_validator (below).
namespace detail {

// The registered options, sorted by key (a sorted vector rather than a
// std::map: core.hpp stays free of <map>; registration is rare). A class
// template with a dependent member (one instance, ConfigRegistryOf<void>):
// its members and the vector's compile only where an option is registered
// or validated (issue 18).
template <class D = void>
struct ConfigRegistryOf {
  LightMutex mutex;
  dependent_t<std::vector<ConfigOption>, D> options;

  // The first option whose key is not less than `key` (lower bound).
  auto slot(std::string_view key) {
    std::size_t lo = 0;
    std::size_t hi = options.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (std::string_view(options[mid].key) < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return options.begin() + static_cast<std::ptrdiff_t>(lo);
  }
  // The option registered as `key`, or null.
  const ConfigOption* find(std::string_view key) {
    auto it = slot(key);
    return it != options.end() && it->key == key ? &*it : nullptr;
  }
};

// &validate_config once an option is registered (register_config_option
// sets it): a context validates through this pointer (check_config), so a
// translation unit that only makes contexts does not compile the
// validation, its messages and its did-you-mean search.
inline Atomic<void (*)(Config&)> config_validator{nullptr};

template <class D = void>
ConfigRegistryOf<D>& config_registry() {
  static ConfigRegistryOf<D> registry;
  return registry;
}
PASSINFRA_COLD_INSTANCE(ConfigRegistryOf<void>& config_registry<void>())

template <class = void>
void set_config_validator() noexcept;  // below validate_config

// (V: what the body names is spelled dependently on it, so that clang too
// compiles it only when it is called; type_name.hpp, issue 18.)
template <class V = void>
void register_config_option(std::string key, ConfigType type, std::string description) {
  if (key.empty()) throw Error("register_config_option: the key is empty; expected a non-empty name");
  auto& registry = config_registry<V>();
  LightLock lock(registry.mutex);
  set_config_validator<V>();
  auto it = registry.slot(key);
  if (it != registry.options.end() && it->key == key) {
    if (it->type != type) {
      throw Error("register_config_option: '" + key + "' is already registered as " + std::string(to_string(it->type)) +
                  ", not " + std::string(to_string(type)));
    }
    return;
  }
  registry.options.insert(it, ConfigOption{std::move(key), type, std::move(description)});
}
PASSINFRA_COLD_INSTANCE(void register_config_option<void>(std::string, ConfigType, std::string))

}  // namespace detail

// (NOLINT: clang-tidy 16 does not see the moves into the by-value sink below.)
// NOLINTBEGIN(performance-unnecessary-value-param)
template <class T>
void register_config_option(std::string key, std::string description = {}) {
  detail::register_config_option(std::move(key), config_type_of<T>(), std::move(description));
}

template <class T>
void register_config_option(const ConfigKey<T>& key, std::string description = {}) {
  detail::register_config_option(std::string(key.key), config_type_of<T>(), std::move(description));
}
// NOLINTEND(performance-unnecessary-value-param)

template <class V = void>
detail::dependent_t<std::vector<ConfigOption>, V> registered_config_options() {
  auto& registry = detail::config_registry<V>();
  detail::LightLock lock(registry.mutex);
  return registry.options;
}
PASSINFRA_COLD_INSTANCE(std::vector<ConfigOption> registered_config_options<void>())

namespace detail {

// "an integer", "a string", ...
template <class = void>
std::string type_with_article(ConfigType type) {
  return (type == ConfigType::integer ? "an " : "a ") + std::string(to_string(type));
}
PASSINFRA_COLD_INSTANCE(std::string type_with_article<void>(ConfigType))

// shortest_digits(value, digits, exponent): the fewest significant digits
// that read back as `value` (finite, not negative), value ~ 0.d1d2... x
// 10^(exponent + 1): the correctly rounded ones, or their neighbour in the
// last place when the interval that reads back is lopsided (at a power of
// two). Read back through strtod with no radix character ("12345e-3"), so
// the process's locale cannot change the text.
template <class = void>
int shortest_digits(double value, char (&digits)[24], int& exponent) {
  char text[40];
  int n = 1;
  for (; n <= 17; ++n) {
    std::snprintf(text, sizeof text, "%.*e", n - 1, value);  // d[radix]ddde[+-]xx
    int count = 0;
    const char* p = text;
    for (; *p != 'e'; ++p) {
      if (*p >= '0' && *p <= '9') digits[count++] = *p;
    }
    exponent = static_cast<int>(std::strtol(p + 1, nullptr, 10));
    const auto reads_back = [&] {
      std::snprintf(text, sizeof text, "%.*se%d", count, digits, exponent - (count - 1));
      return std::strtod(text, nullptr) == value;
    };
    if (reads_back()) return count;
    if (n == 17) break;
    const bool low = std::strtod(text, nullptr) < value;
    // The neighbour toward value, unless it changes the digit count.
    int i = count - 1;
    if (low) {
      while (i >= 0 && digits[i] == '9') digits[i--] = '0';
      if (i < 0) continue;
      ++digits[i];
    } else {
      while (i >= 0 && digits[i] == '0') digits[i--] = '9';
      if (i <= 0 && (i < 0 || digits[0] == '1')) continue;
      --digits[i];
    }
    if (reads_back()) return count;
  }
  return 17;  // 17 significant digits always read back
}
PASSINFRA_COLD_INSTANCE(int shortest_digits<void>(double, char (&)[24], int&))

// The shortest text that reads back as `value`, as std::to_chars(double)
// writes it (fixed or scientific, whichever is shorter, fixed on a tie; a
// fixed integer with its exact digits),
// always with a '.' or an exponent ("inf" and "nan" have no pipeline
// spelling; print_pipeline refuses them). Written with snprintf, not
// <charconv>, which would cost every includer of core.hpp ~3% (issue 18).
template <class = void>
std::string format_double(double value) {
  char text[40];
  if (value != value || value - value != 0) {  // nan, inf
    std::snprintf(text, sizeof text, "%g", value);
    return text;
  }
  const bool negative = value < 0 || (value == 0 && 1 / value < 0);
  char digits[24];
  int exponent = 0;
  const int n = shortest_digits(negative ? -value : value, digits, exponent);
  const std::string_view d(digits, static_cast<std::size_t>(n));
  std::string fixed = negative ? "-" : "";
  std::string scientific = fixed;
  scientific += d[0];
  if (n > 1) scientific.append(".").append(d.substr(1));
  std::snprintf(text, sizeof text, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  scientific += text;
  if (exponent >= n - 1) {  // an integer: its exact digits, as long as the shortest ones padded with zeros
    std::snprintf(text, sizeof text, "%.0f", negative ? -value : value);
    fixed += text;
  } else if (exponent >= 0) {
    fixed.append(d.substr(0, static_cast<std::size_t>(exponent) + 1))
        .append(".")
        .append(d.substr(static_cast<std::size_t>(exponent) + 1));
  } else {
    fixed.append("0.").append(static_cast<std::size_t>(-exponent - 1), '0').append(d);
  }
  std::string out = fixed.size() <= scientific.size() ? std::move(fixed) : std::move(scientific);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}
PASSINFRA_COLD_INSTANCE(std::string format_double<void>(double))

// "text" with \" \\ \n \t \r escaped.
template <class = void>
std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}
PASSINFRA_COLD_INSTANCE(std::string quote<void>(std::string_view))

}  // namespace detail

// format_option_value(value): the value as pipeline text reads it back.
// (The parameter is spelled dependently: type_name.hpp.)
template <class V = void>
std::string format_option_value(const detail::dependent_t<ConfigValue, V>& value) {
  switch (config_type_of(value)) {
    case ConfigType::boolean:
      return std::get<bool>(value) ? "true" : "false";
    case ConfigType::integer:
      return std::to_string(std::get<std::int64_t>(value));
    case ConfigType::floating:
      return detail::format_double(std::get<double>(value));
    case ConfigType::string:
      return detail::quote(std::get<std::string>(value));
    case ConfigType::string_list: {
      std::string out = "[";
      for (const auto& s : std::get<StringList>(value)) {
        if (out.size() > 1) out += ',';
        out += detail::quote(s);
      }
      return out + "]";
    }
  }
  return {};
}
PASSINFRA_COLD_INSTANCE(std::string format_option_value<void>(const ConfigValue&))

namespace detail {

// read_config_value<T>(value, reader, key): the value as a T, for config_get
// and get_option. An integer reads as any integer type that holds it and as
// any floating type; a double as any floating type that holds it (a finite
// double beyond float's range is an Error). Errors say
//   <reader> '<key>' holds an integer, but was read as a string
//   <reader> '<key>' holds -1, which is outside the range of the type it was read as (0 to 4294967295)
template <class T>
T read_config_value(const dependent_t<ConfigValue, T>& value, std::string_view reader, std::string_view key) {
  constexpr ConfigType want = config_type_of<T>();
  const ConfigType have = config_type_of(value);
  auto where = [&] { return std::string(reader) + " '" + std::string(key) + "'"; };
  auto out_of_range = [&](const std::string& min, const std::string& max) {
    return Error(where() + " holds " + format_option_value(value) +
                 ", which is outside the range of the type it was read as (" + min + " to " + max + ")");
  };
  if constexpr (want == ConfigType::floating) {
    if (have == ConfigType::integer) return static_cast<T>(std::get<std::int64_t>(value));
  }
  if (have != want) {
    throw Error(where() + " holds " + type_with_article(have) + ", but was read as " + type_with_article(want));
  }
  if constexpr (want == ConfigType::integer) {
    const std::int64_t v = std::get<std::int64_t>(value);
    // T's range without <limits> (issue 18: 47 M of g++'s instructions in
    // every includer of core.hpp, for this one use): two's complement.
    using Unsigned = std::make_unsigned_t<T>;
    constexpr T max = std::is_signed_v<T> ? static_cast<T>(static_cast<Unsigned>(-1) >> 1) : static_cast<T>(-1);
    constexpr T min = std::is_signed_v<T> ? static_cast<T>(-max - 1) : T{0};
    bool fits = false;
    if constexpr (std::is_signed_v<T>) {
      fits = v >= static_cast<std::int64_t>(min) && v <= static_cast<std::int64_t>(max);
    } else {
      fits = v >= 0 && static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(max);
    }
    if (!fits) {
      throw out_of_range(std::to_string(+min), std::to_string(+max));
    }
    return static_cast<T>(v);
  } else if constexpr (want == ConfigType::floating) {
    const double v = std::get<double>(value);
    if constexpr (sizeof(T) < sizeof(double)) {
      static_assert(std::is_same_v<T, float>,
                    "passinfra config: a floating option is read as float, double or long double");
      const double magnitude = v < 0 ? -v : v;                                 // NaN: no compare holds
      if (magnitude > static_cast<double>(FLT_MAX) && magnitude <= DBL_MAX) {  // infinity stays infinity
        throw out_of_range(format_double(-static_cast<double>(FLT_MAX)), format_double(static_cast<double>(FLT_MAX)));
      }
    }
    return static_cast<T>(v);
  } else if constexpr (want == ConfigType::string) {
    return T(std::get<std::string>(value));
  } else {
    return std::get<static_cast<std::size_t>(want)>(value);
  }
}

}  // namespace detail

// validate_config(config): every key registered, every value of its type.
// Integers given for floating options are converted in place.
template <class V = void>
void validate_config(detail::dependent_t<Config, V>& config) {
  auto& registry = detail::config_registry<V>();
  detail::LightLock lock(registry.mutex);
  for (auto& entry : config) {
    const ConfigOption* option = registry.find(entry.key);
    if (option == nullptr) {
      // Spelled dependently: defining the template does not instantiate the vector (issue 18).
      detail::dependent_t<std::vector<std::string_view>, V> keys;
      for (const auto& o : registry.options) keys.push_back(o.key);
      throw Error("unknown config key '" + detail::clipped(entry.key) + "'; expected a registered option" +
                  detail::suggestion_text(entry.key, keys, "keys"));
    }
    const ConfigType expected = option->type;
    const ConfigType given = config_type_of(entry.value);
    if (expected == ConfigType::floating && given == ConfigType::integer) {
      // (double spelled dependently: clang would instantiate the variant's
      // converting assignment where this is defined. Issue 18.)
      entry.value = static_cast<detail::dependent_t<double, V>>(std::get<std::int64_t>(entry.value));
    } else if (expected != given) {
      throw Error("config key '" + entry.key + "' expects a value of type " + std::string(to_string(expected)) +
                  ", but was given " + detail::type_with_article(given) + " (" + format_option_value(entry.value) +
                  ")");
    }
  }
}
PASSINFRA_COLD_INSTANCE(void validate_config<void>(Config&))

namespace detail {

// (&validate_config<T>, not <>: a dependent name, so g++ instantiates the
// validation only with register_config_option, not in every translation unit
// that includes this header.)
template <class T>
void set_config_validator() noexcept {
  config_validator.store(&validate_config<T>, MemoryOrder::release);
}
PASSINFRA_COLD_INSTANCE(void set_config_validator<void>() noexcept)

// check_config(config): what a context does with its config: validate_config
// (config), called through the registry's pointer. With no option registered
// the pointer is null and every key is unknown (validate_config's message
// for an empty registry).
// The message is a cold template: a translation unit that makes a context
// compiles it only then, and out of the constructor's way.
// (The message through throw_error: no std::string member to compile.)
template <class V = void>
[[noreturn, gnu::cold, gnu::noinline]] void reject_unregistered_config(const dependent_t<Config, V>& config) {
  const ClippedText key(config.front().key);  // clipped(key), in pieces
  throw_error(
      {"unknown config key '", key.head(), key.tail(), "'; expected a registered option; no keys are registered"});
}
PASSINFRA_COLD_INSTANCE(void reject_unregistered_config<void>(const Config&))

template <class V = void>
void check_config(dependent_t<Config, V>& config) {
  if (config.empty()) return;
  if (void (*validate)(Config&) = config_validator.load(MemoryOrder::acquire)) {
    validate(config);
    return;
  }
  reject_unregistered_config(config);
}
PASSINFRA_COLD_INSTANCE(void check_config<void>(Config&))

}  // namespace detail

// config_get<T>(config, key, default): the value set for key, or default.
template <class T>
T config_get(const detail::dependent_t<Config, T>& config, std::string_view key, T default_value) {
  for (std::size_t i = config.size(); i-- > 0;) {  // the last setting wins
    if (config[i].key == key) return detail::read_config_value<T>(config[i].value, "get_config: key", key);
  }
  return default_value;
}

}  // namespace passinfra
