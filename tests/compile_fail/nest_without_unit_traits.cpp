// A nest over a parent that does not say what its units are: one error naming
// unit_traits<Parent, Unit> and what to specialize (docs/spec.md §11.1).
// expect-error: passinfra::Nest<Unit, Ps...>: the parent IR cannot be split into these units; specialize
// passinfra::unit_traits<Parent, Unit> expect-max-errors: 1
#include <passinfra/core.hpp>

#include "support/unit_ir.hpp"

struct Block {  // a unit type no IR lists
  int n = 0;
};
struct OnBlocks {
  static constexpr passinfra::PassInfo info{"OnBlocks", 0};
  Block transform(Block b, auto&) const { return b; }
};

int main() {
  auto ctx = passinfra::make_pass_context<pitest::UModule>({});
#ifdef PASSINFRA_COMPILE_FAIL
  const passinfra::Nest<Block, OnBlocks> n;  // the mistake: UModule has no units of type Block
#else
  const passinfra::Nest<pitest::UFunc, pitest::UStep<"A"> > n;  // the passing twin
#endif
  (void)passinfra::run(n, pitest::UModule{}, ctx);
}
