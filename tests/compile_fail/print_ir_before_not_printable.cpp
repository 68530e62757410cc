// A printing instrument on an IR that cannot print itself says what to specialize.
// expect-error: passinfra::PrintIRBefore prints the IR, but the IR cannot print itself
// expect-max-errors: 1
#include <string>

#include <passinfra/core.hpp>
#include <passinfra/instruments/print_ir_before.hpp>

struct Printable {};
template <>
struct passinfra::ir_traits<Printable> {
  static std::string print(const Printable&) { return "printable\n"; }
};
struct Opaque {};
struct Pass {
  static constexpr passinfra::PassInfo info{"Pass", 0};
  template <class IR>
  IR transform(IR ir, auto&) const {
    return ir;
  }
};

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  auto ctx = passinfra::make_pass_context<Opaque>({}, passinfra::PrintIRBefore());  // the mistake
  (void)passinfra::run(Pass{}, Opaque{}, ctx);
#else
  auto ctx = passinfra::make_pass_context<Printable>({}, passinfra::PrintIRBefore());  // the passing twin
  (void)passinfra::run(Pass{}, Printable{}, ctx);
#endif
}
