// PrintIR on an IR that cannot print itself says what to specialize.
// expect-error: passinfra::PrintIR prints the IR, but the IR cannot print itself
// expect-error: ir_traits<IR>
// expect-max-errors: 1
#include <string>

#include <passinfra/core.hpp>
#include <passinfra/ir/print_ir.hpp>

struct Printable {};
template <>
struct passinfra::ir_traits<Printable> {
  static std::string print(const Printable&) { return "printable\n"; }
};
struct Opaque {};

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  auto ctx = passinfra::make_pass_context<Opaque>({});
  (void)passinfra::run(passinfra::PrintIR("x"), Opaque{}, ctx);  // the mistake
#else
  auto ctx = passinfra::make_pass_context<Printable>({});
  (void)passinfra::run(passinfra::PrintIR("x"), Printable{}, ctx);  // the passing twin
#endif
}
