// tests/compiled/probe.cpp — what a user's translation unit reaches of
// passinfra's cold code: a context (its option checks, the name index), a
// config option registered and validated, a log message and a sink, a
// PassInfo printed. Compiled twice, header-only and with PASSINFRA_COMPILED;
// check_objects.cmake reads both object files (ctest compiled.objects).
#include <string>

#include <passinfra/passinfra.hpp>

namespace {
struct Ir {};
struct Pass {
  static constexpr passinfra::PassInfo info{"Pass", 0};
  Ir transform(Ir ir, auto&) const { return ir; }
};
}  // namespace

int probe_cold_code(int argc) {
  passinfra::register_config_option<int>("probe.level");
  passinfra::PassContextOptions options{.opt_level = argc};
  for (int i = 0; i < 20; ++i) options.required_pass.push_back("Pass" + std::to_string(i));
  options.config.push_back({"probe.level", std::int64_t{1}});
  auto ctx = passinfra::make_pass_context<Ir>(std::move(options));
  passinfra::run(passinfra::Sequential<Pass>{}, Ir{}, ctx);
  passinfra::ScopedLogSink sink([](passinfra::LogLevel, std::string_view) {});
  passinfra::log(passinfra::LogLevel::info, "probe");
  return static_cast<int>(to_string(Pass::info).size() + passinfra::format_option_value(ctx.config()[0].value).size());
}
