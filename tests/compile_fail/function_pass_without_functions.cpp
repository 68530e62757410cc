// function_pass on an IR that does not say how to iterate its functions.
// expect-error: passinfra::function_pass\(info, f\): the IR has no functions to map
// expect-error: (\[with IR = |transform<)PlainModule[;,]
// expect-max-errors: 1
#include <string>
#include <vector>

#include <passinfra/core.hpp>

struct Function {
  std::string name;
};
struct PlainModule {
  std::vector<Function> functions;
};

#ifndef PASSINFRA_COMPILE_FAIL
// The passing twin: the IR specializes ir_traits.
template <>
struct passinfra::ir_traits<PlainModule> {
  using function_type = Function;
  template <class F>
  static PlainModule map_functions(PlainModule m, F&& f) {
    for (auto& fn : m.functions) fn = f(fn, m);
    return m;
  }
};
#endif

int main() {
  auto rename = passinfra::function_pass({"Rename", 1}, [](Function fn, const PlainModule&) {
    fn.name += "_renamed";
    return fn;
  });
  auto ctx = passinfra::make_pass_context<PlainModule>({});
  (void)passinfra::run(rename, PlainModule{}, ctx);
}
