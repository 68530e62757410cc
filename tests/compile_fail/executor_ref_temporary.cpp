// An ExecutorRef (PassContextOptions::executor) does not own its executor: one
// made from a temporary would dangle, so that constructor is deleted.
// expect-error: ExecutorRef to a temporary executor: it would dangle
// expect-max-errors: 1
#include <passinfra/core.hpp>

struct InlineExecutor {
  void execute(passinfra::detail::ExecutorTask task) { task(); }
};

int main() {
#ifdef PASSINFRA_COMPILE_FAIL
  passinfra::ExecutorRef ex = InlineExecutor{};  // the mistake
#else
  InlineExecutor inline_executor;  // the passing twin: a named executor that outlives the reference
  passinfra::ExecutorRef ex = inline_executor;
#endif
  return ex ? 0 : 1;
}
