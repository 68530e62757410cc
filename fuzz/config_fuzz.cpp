// fuzz/config_fuzz.cpp — libFuzzer target: config options (SPEC §8).
//
// Input: lines of commands, checked against a shadow model of the registry:
//   r<T> <key>           register_config_option<T>(key); <key> is the rest of the line
//   c<T> <key> <value>   append {key, value} to the pending config; <value> as text:
//                        i: an integer, d: a double, b: 0/1, s: the rest, l: strings split at ','
//   v                    validate the pending config: validate_config(config) and a
//                        PassContext<IR> built with it; then config_get each entry back
//   <T> is one of b i d s l (bool, integer, double, string, list of strings).
// Invariants:
//  * register throws passinfra::Error iff the key is empty or already registered with
//    another type; the message names the key and both types;
//  * validate throws passinfra::Error iff an entry's key is unknown or its value has
//    another type (an integer for a double is converted); the message names the first
//    such key (and, for an unknown key, suggests registered ones); a context built with
//    the same config throws the same; nothing else ever escapes;
//  * after validation every value reads back with config_get / get_config.
// The registry is process-wide and never shrinks, so the shadow model lives as
// long as the process; new keys stop being registered after kMaxKeys and keys
// are cut at kMaxKeyLength bytes (suggestions cost O(keys x length^2) per unknown key).
// Build and run: `make fuzz` (scripts/fuzz.sh). Seeds: fuzz/corpus/config/.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/dynamic.hpp>

#include "support/test_ir.hpp"

namespace {

using passinfra::ConfigType;
using passinfra::ConfigValue;

constexpr std::size_t kMaxKeys = 128;  // about what a real compiler registers (TVM: ~100)
constexpr std::size_t kMaxKeyLength = 40;

std::map<std::string, ConfigType, std::less<>>& shadow() {
  static std::map<std::string, ConfigType, std::less<>> m;
  return m;
}

// What an exception's what() (a C string) can show of a key: up to its first NUL.
std::string shown(const std::string& key) { return key.substr(0, key.find('\0')); }

[[noreturn]] void violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "config_fuzz: invariant violated: %s\n  %s\n", what, detail.c_str());
  std::abort();
}

bool type_of(char c, ConfigType& t) {
  switch (c) {
    case 'b':
      t = ConfigType::boolean;
      return true;
    case 'i':
      t = ConfigType::integer;
      return true;
    case 'd':
      t = ConfigType::floating;
      return true;
    case 's':
      t = ConfigType::string;
      return true;
    case 'l':
      t = ConfigType::string_list;
      return true;
    default:
      return false;
  }
}

void register_key(ConfigType t, const std::string& key) {
  auto& m = shadow();
  const auto it = m.find(key);
  if (it == m.end() && m.size() >= kMaxKeys) return;
  const bool should_fail = key.empty() || (it != m.end() && it->second != t);
  try {
    switch (t) {
      case ConfigType::boolean:
        passinfra::register_config_option<bool>(key);
        break;
      case ConfigType::integer:
        passinfra::register_config_option<std::int64_t>(key);
        break;
      case ConfigType::floating:
        passinfra::register_config_option<double>(key);
        break;
      case ConfigType::string:
        passinfra::register_config_option<std::string>(key);
        break;
      case ConfigType::string_list:
        passinfra::register_config_option<passinfra::StringList>(key);
        break;
    }
  } catch (const passinfra::Error& e) {
    if (!should_fail) violated("register threw", key + ": " + e.what());
    const std::string what = e.what();
    if (!key.empty() &&
        (what.find("'" + shown(key)) == std::string::npos ||
         (shown(key) == key && what.find(std::string(passinfra::to_string(it->second))) == std::string::npos) ||
         (shown(key) == key && what.find(std::string(passinfra::to_string(t))) == std::string::npos))) {
      violated("register error does not name the key and both types", what);
    }
    return;
  }
  if (should_fail) violated("register did not throw", key);
  m.emplace(key, t);
}

ConfigValue parse_value(ConfigType t, std::string_view text) {
  switch (t) {
    case ConfigType::boolean:
      return !text.empty() && text.front() == '1';
    case ConfigType::integer:
      return static_cast<std::int64_t>(std::strtoll(std::string(text).c_str(), nullptr, 10));
    case ConfigType::floating:
      return std::strtod(std::string(text).c_str(), nullptr);
    case ConfigType::string:
      return std::string(text);
    case ConfigType::string_list: {
      passinfra::StringList out;
      std::size_t start = 0;
      while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::size_t end = comma == std::string_view::npos ? text.size() : comma;
        out.emplace_back(text.substr(start, end - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return out;
    }
  }
  return false;
}

bool same(const ConfigValue& a, const ConfigValue& b) {
  if (a.index() != b.index()) return false;
  if (const double* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    return (std::isnan(*x) && std::isnan(y)) || *x == y;
  }
  return a == b;
}

template <class T>
void read_back(const passinfra::PassContext<pitest::TestIR>& ctx, const passinfra::ConfigEntry& entry) {
  const T got = ctx.get_config<T>(entry.key, T{});
  if (!same(ConfigValue(got), entry.value)) violated("a validated value does not read back", entry.key);
}

void validate(passinfra::Config config) {
  // The model: the first entry whose key is unknown or whose type differs decides.
  std::string expected_key;
  bool unknown = false;
  for (const auto& entry : config) {
    const auto it = shadow().find(entry.key);
    const ConfigType given = passinfra::config_type_of(entry.value);
    if (it == shadow().end()) {
      expected_key = entry.key;
      unknown = true;
      break;
    }
    if (it->second != given && !(it->second == ConfigType::floating && given == ConfigType::integer)) {
      expected_key = entry.key;
      break;
    }
  }
  const bool should_fail = unknown || !expected_key.empty();
  passinfra::Config validated = config;
  try {
    passinfra::validate_config(validated);
    if (should_fail) violated("validate_config accepted a bad config", expected_key);
  } catch (const passinfra::Error& e) {
    const std::string what = e.what();
    if (!should_fail) violated("validate_config rejected a good config", what);
    if (what.find("'" + shown(expected_key)) == std::string::npos) violated("the error does not name the key", what);
    // (A NUL in the key ends what(): the rest of the message is not visible -- see the report.)
    if (unknown && !shadow().empty() && shown(expected_key) == expected_key &&
        what.find("the closest registered keys: ") == std::string::npos) {
      violated("an unknown key without suggestions", what);
    }
  }
  try {
    passinfra::PassContext<pitest::TestIR> ctx({.config = config});
    if (should_fail) violated("a context accepted a bad config", expected_key);
    for (std::size_t i = 0; i < config.size(); ++i) {
      // Later entries win: read back only the last entry of each key.
      bool last = true;
      for (std::size_t j = i + 1; j < config.size(); ++j) last = last && config[j].key != config[i].key;
      if (!last) continue;
      const auto& entry = validated[i];
      if (passinfra::config_type_of(entry.value) != shadow().find(entry.key)->second) {
        violated("validate_config did not convert to the registered type", entry.key);
      }
      switch (shadow().find(entry.key)->second) {
        case ConfigType::boolean:
          read_back<bool>(ctx, entry);
          break;
        case ConfigType::integer:
          read_back<std::int64_t>(ctx, entry);
          break;
        case ConfigType::floating:
          read_back<double>(ctx, entry);
          break;
        case ConfigType::string:
          read_back<std::string>(ctx, entry);
          break;
        case ConfigType::string_list:
          read_back<passinfra::StringList>(ctx, entry);
          break;
      }
    }
  } catch (const passinfra::Error& e) {
    if (!should_fail) violated("a context rejected a good config", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  passinfra::Config pending;
  std::size_t pos = 0;
  while (pos < input.size()) {
    std::size_t end = input.find('\n', pos);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    ConfigType t{};
    if (line[0] == 'v') {
      validate(pending);
      pending.clear();
    } else if (line.size() >= 2 && type_of(line[1], t)) {
      std::string_view rest = line.substr(2);
      if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      if (line[0] == 'r') {
        register_key(t, std::string(rest.substr(0, kMaxKeyLength)));
      } else if (line[0] == 'c' && pending.size() < 64) {
        const std::size_t space = rest.find(' ');
        const std::string key(rest.substr(0, std::min(space, kMaxKeyLength)));
        const std::string_view value = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
        pending.push_back({key, parse_value(t, value)});
      }
    }
  }
  if (!pending.empty()) validate(pending);
  return 0;
}
