// passinfra/core/config.hpp — typed options of a PassContext (SPEC §8).
//
// ConfigValue                       bool | std::int64_t | double | std::string | StringList
// ConfigEntry{key, value}           one option as given to a context
// Config                            std::vector<ConfigEntry>
// ConfigType                        the registered type of an option
// ConfigKey<T>{key, default}        a typed key for static code
// register_config_option<T>(key, description)   T: bool, an integer, a floating type,
//                                   std::string, StringList; re-registering the same type is a no-op
// register_config_option(ConfigKey<T>)
// registered_config_options()       all options, sorted by key
// validate_config(config)           throws Error: unknown key (with the closest keys) or wrong type
// config_get<T>(config, key, default)
//
// Options are process-wide, registered by key with a value type. A context
// validates its config when it is constructed; reading an option that was
// not set returns the default given by the reader. An integer given for a
// floating option is converted; no other conversion happens.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "passinfra/core/error.hpp"
#include "passinfra/detail/suggest.hpp"

namespace passinfra {

using StringList = std::vector<std::string>;
using ConfigValue = std::variant<bool, std::int64_t, double, std::string, StringList>;

struct ConfigEntry {
  std::string key;
  ConfigValue value;
};

using Config = std::vector<ConfigEntry>;

enum class ConfigType { boolean, integer, floating, string, string_list };

// to_string(ConfigType) -> "bool" | "integer" | "double" | "string" | "list of strings"
constexpr std::string_view to_string(ConfigType type) noexcept {
  switch (type) {
    case ConfigType::boolean: return "bool";
    case ConfigType::integer: return "integer";
    case ConfigType::floating: return "double";
    case ConfigType::string: return "string";
    case ConfigType::string_list: return "list of strings";
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

inline ConfigType config_type_of(const ConfigValue& value) noexcept {
  return static_cast<ConfigType>(value.index());
}

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

namespace detail {

struct ConfigRegistry {
  std::mutex mutex;
  std::map<std::string, ConfigOption, std::less<>> options;
};

inline ConfigRegistry& config_registry() {
  static ConfigRegistry registry;
  return registry;
}

inline void register_config_option(std::string key, ConfigType type, std::string description) {
  if (key.empty()) throw Error("register_config_option: the key is empty; expected a non-empty name");
  auto& registry = config_registry();
  std::lock_guard lock(registry.mutex);
  auto it = registry.options.find(key);
  if (it != registry.options.end()) {
    if (it->second.type != type) {
      throw Error("register_config_option: '" + key + "' is already registered as " +
                  std::string(to_string(it->second.type)) + ", not " + std::string(to_string(type)));
    }
    return;
  }
  registry.options.emplace(key, ConfigOption{key, type, std::move(description)});
}

}  // namespace detail

template <class T>
void register_config_option(std::string key, std::string description = {}) {
  detail::register_config_option(std::move(key), config_type_of<T>(), std::move(description));
}

template <class T>
void register_config_option(const ConfigKey<T>& key, std::string description = {}) {
  detail::register_config_option(std::string(key.key), config_type_of<T>(), std::move(description));
}

inline std::vector<ConfigOption> registered_config_options() {
  auto& registry = detail::config_registry();
  std::lock_guard lock(registry.mutex);
  std::vector<ConfigOption> out;
  for (const auto& [key, option] : registry.options) out.push_back(option);
  return out;
}

// validate_config(config): every key registered, every value of its type.
// Integers given for floating options are converted in place.
inline void validate_config(Config& config) {
  auto& registry = detail::config_registry();
  std::lock_guard lock(registry.mutex);
  for (auto& entry : config) {
    auto it = registry.options.find(entry.key);
    if (it == registry.options.end()) {
      std::vector<std::string_view> keys;
      for (const auto& [key, option] : registry.options) keys.push_back(key);
      throw Error("unknown config key '" + entry.key + "'; expected a registered option" +
                  detail::suggestion_text(entry.key, keys, "keys"));
    }
    const ConfigType expected = it->second.type;
    const ConfigType given = config_type_of(entry.value);
    if (expected == ConfigType::floating && given == ConfigType::integer) {
      entry.value = static_cast<double>(std::get<std::int64_t>(entry.value));
    } else if (expected != given) {
      throw Error("config key '" + entry.key + "' expects a value of type " + std::string(to_string(expected)) +
                  ", but was given a value of type " + std::string(to_string(given)));
    }
  }
}

// config_get<T>(config, key, default): the value set for key, or default.
template <class T>
T config_get(const Config& config, std::string_view key, T default_value) {
  constexpr ConfigType want = config_type_of<T>();
  for (auto it = config.rbegin(); it != config.rend(); ++it) {
    if (it->key != key) continue;
    const ConfigType have = config_type_of(it->value);
    if constexpr (want == ConfigType::floating) {
      if (have == ConfigType::integer) return static_cast<T>(std::get<std::int64_t>(it->value));
    }
    if (have != want) {
      throw Error("get_config: key '" + std::string(key) + "' holds a " + std::string(to_string(have)) +
                  ", but was read as " + std::string(to_string(want)));
    }
    if constexpr (want == ConfigType::integer) {
      return static_cast<T>(std::get<std::int64_t>(it->value));
    } else if constexpr (want == ConfigType::floating) {
      return static_cast<T>(std::get<double>(it->value));
    } else if constexpr (want == ConfigType::string) {
      return T(std::get<std::string>(it->value));
    } else {
      return std::get<static_cast<std::size_t>(want)>(it->value);
    }
  }
  return default_value;
}

}  // namespace passinfra
