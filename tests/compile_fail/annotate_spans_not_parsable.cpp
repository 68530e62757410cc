// AnnotateSpans on an IR that prints but cannot parse itself says what to specialize.
// expect-error: passinfra::AnnotateSpans prints the IR and parses it back, but the IR cannot parse itself
// expect-error: ir_traits<IR>
// expect-max-errors: 1
#include <string>
#include <string_view>

#include <passinfra/core.hpp>
#include <passinfra/ir/annotate_spans.hpp>

struct Parsable {
  std::string text;
};
template <>
struct passinfra::ir_traits<Parsable> {
  static std::string print(const Parsable& ir) { return ir.text; }
  static Parsable parse(std::string_view text, std::string_view) { return Parsable{std::string(text)}; }
};
struct PrintOnly {
  std::string text;
};
template <>
struct passinfra::ir_traits<PrintOnly> {
  static std::string print(const PrintOnly& ir) { return ir.text; }
};

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  auto ctx = passinfra::make_pass_context<PrintOnly>({});
  (void)passinfra::run(passinfra::AnnotateSpans<>{}, PrintOnly{"x"}, ctx);  // the mistake
#else
  auto ctx = passinfra::make_pass_context<Parsable>({});
  (void)passinfra::run(passinfra::AnnotateSpans<>{}, Parsable{"x"}, ctx);  // the passing twin
#endif
}
