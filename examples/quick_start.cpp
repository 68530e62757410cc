// The README's quick start: an IR, two passes, a pipeline, an instrument, a context.
#include <functional>
#include <iostream>
#include <vector>

#include <passinfra/core.hpp>

struct Module { std::vector<int> body; };  // your IR: any movable type

struct Double {  // a pass: a PassInfo and a const transform
  static constexpr passinfra::PassInfo info{"Double", 1};
  Module transform(Module m, auto& /*ctx*/) const {
    for (int& x : m.body) x *= 2;
    return m;
  }
};
// A pass from a lambda; opt_level 3: it runs only in contexts with opt_level >= 3.
auto drop_zeros = passinfra::module_pass({"DropZeros", 3}, [](Module m) { std::erase(m.body, 0); return m; });

struct Printer {  // an instrument: any subset of the five hooks
  void run_after_pass(const Module& m, const passinfra::PassInfo& info) {
    std::cout << info.name << ": " << m.body.size() << " values\n";
  }
};

int main() {
  passinfra::Sequential pipeline{Double{}, drop_zeros};
  Printer printer;
  auto ctx = passinfra::make_pass_context<Module>({.opt_level = 3}, std::ref(printer));
  Module m = passinfra::run(pipeline, Module{{1, 0, 2}}, ctx);  // prints "Double: 3 values", ...
  return m.body == std::vector{2, 4} ? 0 : 1;                    // {1, 0, 2} -> {2, 0, 4} -> {2, 4}
}
