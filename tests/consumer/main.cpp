// A downstream compiler's smallest use of passinfra: its own IR, a pass, a
// Sequential, a static and a dynamic context. Built by the consumer tests.
#include <passinfra/passinfra.hpp>

struct Module {
  int value = 0;
};

struct AddOne {
  static constexpr passinfra::PassInfo info{"AddOne", 1};
  Module transform(Module m, auto&) const {
    ++m.value;
    return m;
  }
};

int main() {
  passinfra::Sequential<AddOne, AddOne> seq;
  auto ctx = passinfra::make_pass_context<Module>({});
  passinfra::PassContext<Module> dynamic_ctx;
  Module m = passinfra::run(seq, Module{}, ctx);
  m = passinfra::run(passinfra::DynamicSequential<Module>{AddOne{}}, m, dynamic_ctx);
  return m.value == 3 ? 0 : 1;
}
