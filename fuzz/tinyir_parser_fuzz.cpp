// fuzz/tinyir_parser_fuzz.cpp — libFuzzer target: the tinyir text parser, printer and type inference.
//
// Input: any bytes, taken as tinyir text. Invariants (examples/tinyir/parser.hpp's contract):
//  * parse(text) returns a module or throws tinyir::ParseError whose what() starts
//    with "<source>:<line>:<col>: error: " (line and column within the text);
//    nothing else escapes, nothing crashes;
//  * a parsed module prints as text that parses again and prints the same
//    (print(parse(print(m))) == print(m));
//  * infer_types returns or throws tinyir::TypeError; a typed module printed with
//    its types parses again, types again, and prints the same.
// Build and run: `make fuzz` (scripts/fuzz.sh). Seeds: fuzz/corpus/tinyir_parser/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "tinyir/tinyir.hpp"

namespace {

[[noreturn]] void violated(const char* what, std::string_view text, const std::string& detail = {}) {
  std::fprintf(stderr, "tinyir_parser_fuzz: invariant violated: %s\n  text: '%.*s'\n  %s\n", what,
               static_cast<int>(text.size() > 2000 ? 2000 : text.size()), text.data(), detail.c_str());
  std::abort();
}

void check_parse_error(const tinyir::ParseError& e, std::string_view text) {
  const std::string what = e.what();
  if (what.rfind("fuzz:", 0) != 0 || what.find(": error: ") == std::string::npos) {
    violated("a ParseError without 'fuzz:<line>:<col>: error: '", text, what);
  }
  if (e.line() < 1 || e.column() < 1) violated("a ParseError at line or column < 1", text, what);
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n';
  if (static_cast<std::size_t>(e.line()) > lines) violated("a ParseError past the last line", text, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<tinyir::Module> mod;
  try {
    mod.emplace(tinyir::parse(text, "fuzz"));
  } catch (const tinyir::ParseError& e) {
    check_parse_error(e, text);
    return 0;
  }
  const std::string printed = tinyir::print(*mod);
  try {
    const tinyir::Module back = tinyir::parse(printed, "printed");
    const std::string again = tinyir::print(back);
    if (again != printed) violated("print(parse(print(m))) != print(m)", text, printed + "\n--- vs ---\n" + again);
  } catch (const tinyir::ParseError& e) {
    violated("printed text does not parse", text, printed + "\n" + e.what());
  }
  std::optional<tinyir::Module> typed;
  try {
    typed.emplace(tinyir::infer_types(*mod));
  } catch (const tinyir::TypeError&) {
    return 0;
  }
  const std::string with_types = tinyir::print(*typed, {.show_types = true});
  try {
    const tinyir::Module back = tinyir::infer_types(tinyir::parse(with_types, "typed"));
    const std::string again = tinyir::print(back, {.show_types = true});
    if (again != with_types)
      violated("typed text does not print the same again", text, with_types + "\n--- vs ---\n" + again);
  } catch (const tinyir::Error& e) {
    violated("typed text does not parse or type again", text, with_types + "\n" + e.what());
  }
  return 0;
}
