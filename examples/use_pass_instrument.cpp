// use_pass_instrument: TVM's tutorial "How to Use TVM Pass Instrument", step by step,
// on tinyir's ResNet-18.
//
// The tutorial times passes with PassTimingInstrument (in a context's scope, then
// on the current context through override_instruments), writes an instrument
// that counts how each pass changes the number of calls of each operator (a
// stack, because passes nest), and shows what happens when an instrument throws
// in each of its hooks. `make demo` runs this example.
//
// Output: stdout is the tutorial's output, line for line where it is
// deterministic (timing numbers vary). passinfra's INFO lines -- the notes
// written when an instrument fails, as TVM's LOG(INFO) writes them -- go to
// stderr, where TVM writes them too.
//
// The `// [tag]` lines mark the regions docs/tutorial_pass_instrument.md quotes;
// scripts/check_docs.sh (ctest docs.check) keeps the two identical.
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <passinfra/passinfra.hpp>

#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"
#include "tutorial.hpp"

namespace {

using passinfra::AnyInstrument;
using passinfra::PassInfo;
using tinyir::Module;
using Context = passinfra::PassContext<Module>;

// bind_params_by_name(mod): TVM's bind_params_by_name(mod["main"], params) with
// the parameters relay.testing initializes: every parameter of @main but %data
// becomes a constant with data (zeros here), so FoldConstant can fold what
// ConvertLayout does to the weights.
Module bind_params_by_name(const Module& mod) {
  const tinyir::Function main = mod.main();
  std::unordered_map<const tinyir::VarNode*, tinyir::Expr> binds;
  std::vector<tinyir::Var> params;
  for (const tinyir::Var& p : main->params) {
    if (p->name == "data") {
      params.push_back(p);
      continue;
    }
    const auto n = static_cast<std::size_t>(tinyir::num_elements(*tinyir::as_tensor(p->type_annotation)));
    binds.emplace(p.get(), tinyir::make_constant(p->type_annotation, std::vector<float>(n, 0.0f)));
  }
  tinyir::Expr body = tinyir::substitute(main->body, binds);
  return Module{{"main", tinyir::make_function(std::move(params), std::move(body), main->ret_type, main->attrs)}};
}

// The tutorial's RelayCallNodeDiffer: the change in the number of calls of each
// operator caused by each pass, with the depth at which the pass ran.
class RelayCallNodeDiffer {
 public:
  using OpCounts = std::map<std::string, long>;
  struct PassDiff {
    std::size_t depth;
    std::string pass;
    OpCounts diff;  // op -> after minus before; only the ops that changed
  };

  std::string_view name() const { return "RelayCallNodeDiffer"; }

  // [differ-hooks]
  void enter_pass_ctx() {
    op_diff_.clear();
    op_cnt_before_stack_.clear();
  }
  void exit_pass_ctx() {
    if (!op_cnt_before_stack_.empty()) throw std::logic_error("The stack is not empty. Something wrong.");
  }
  void run_before_pass(const Module& mod, const PassInfo& info) {
    op_cnt_before_stack_.emplace_back(std::string(info.name), count_nodes(mod));
  }
  void run_after_pass(const Module& mod, const PassInfo& info) {
    // Pop out the latest recorded pass: passes nest, so before/after pair up as a stack.
    auto [name_before, op_to_cnt_before] = std::move(op_cnt_before_stack_.back());
    op_cnt_before_stack_.pop_back();
    if (name_before != info.name) {
      throw std::logic_error("name_before: " + name_before + ", info.name: " + std::string(info.name) +
                             " doesn't match");
    }
    const std::size_t cur_depth = op_cnt_before_stack_.size();
    OpCounts op_diff = diff(count_nodes(mod), op_to_cnt_before);
    if (!op_diff.empty()) op_diff_.push_back({cur_depth, std::string(info.name), std::move(op_diff)});
  }
  // [differ-hooks]

  const std::vector<PassDiff>& get_pass_to_op_diff() const { return op_diff_; }

 private:
  // The number of calls of each operator in @main.
  static OpCounts count_nodes(const Module& mod) {
    OpCounts out;
    for (const auto& [op, n] : tinyir::count_calls(mod.main())) out[op] = static_cast<long>(n);
    return out;
  }

  static OpCounts diff(const OpCounts& after, const OpCounts& before) {
    OpCounts out;
    for (const auto& [op, n] : after) {
      const auto it = before.find(op);
      const long d = n - (it == before.end() ? 0 : it->second);
      if (d != 0) out[op] = d;
    }
    for (const auto& [op, n] : before) {
      if (!after.contains(op)) out[op] = -n;
    }
    return out;
  }

  std::vector<PassDiff> op_diff_;
  std::vector<std::pair<std::string, OpCounts>> op_cnt_before_stack_;
};

// What Python's pprint prints for the list of (depth, pass, {op: diff}) tuples:
// one line if it fits in 80 columns, else one tuple per line.
std::string pformat(const std::vector<RelayCallNodeDiffer::PassDiff>& diffs) {
  std::vector<std::string> items;
  for (const auto& d : diffs) {
    std::string s = "(" + std::to_string(d.depth) + ", '" + d.pass + "', {";
    bool first = true;
    for (const auto& [op, n] : d.diff) {
      s += (first ? "'" : ", '") + op + "': " + std::to_string(n);
      first = false;
    }
    items.push_back(s + "})");
  }
  std::string one_line = "[";
  for (std::size_t i = 0; i < items.size(); ++i) one_line += (i ? ", " : "") + items[i];
  one_line += "]";
  if (one_line.size() <= 80) return one_line;
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ",\n " : "") + items[i];
  return out + "]";
}

// The tutorial's exceptions are Python ValueErrors.
struct ValueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// [example-instruments]
// Instruments printing "<name> <hook>" in every hook.
class PassExampleBase {
 public:
  explicit PassExampleBase(std::string name) : name_(std::move(name)) {}
  std::string_view name() const { return name_; }

  void enter_pass_ctx() { say("enter_pass_ctx"); }
  void exit_pass_ctx() { say("exit_pass_ctx"); }
  bool should_run(const Module&, const PassInfo&) {
    say("should_run");
    return true;
  }
  void run_before_pass(const Module&, const PassInfo&) { say("run_before_pass"); }
  void run_after_pass(const Module&, const PassInfo&) { say("run_after_pass"); }

 protected:
  void say(std::string_view what) const { std::cout << name_ << ' ' << what << '\n'; }
  std::string name_;
};

struct PassFine : PassExampleBase {
  using PassExampleBase::PassExampleBase;
};

struct PassBadEnterCtx : PassExampleBase {
  using PassExampleBase::PassExampleBase;
  void enter_pass_ctx() {
    say("bad enter_pass_ctx!!!");
    throw ValueError(name_ + " bad enter_pass_ctx");
  }
};

struct PassBadExitCtx : PassExampleBase {
  using PassExampleBase::PassExampleBase;
  void exit_pass_ctx() {
    say("bad exit_pass_ctx!!!");
    throw ValueError(name_ + " bad exit_pass_ctx");
  }
};

struct PassBadRunBefore : PassExampleBase {
  using PassExampleBase::PassExampleBase;
  void run_before_pass(const Module&, const PassInfo&) {
    say("bad run_before_pass!!!");
    throw ValueError(name_ + " bad run_before_pass");
  }
};
// [example-instruments]

// [make-instrument]
// An instrument owned by the list that holds it, as the tutorial creates them inline.
template <class T>
AnyInstrument<Module> make(std::string name) {
  return passinfra::make_instrument<Module, T>(std::move(name));
}
// [make-instrument]

void catching(const ValueError& ex) { std::cout << "Catching ValueError: " << ex.what() << '\n'; }

}  // namespace

int main() {
  // [log-lines]
  // The notes passinfra writes when an instrument fails (SPEC §5) are INFO lines;
  // TVM writes them with LOG(INFO), to stderr. Show them there.
  tutorial::LogLines log_lines(std::cerr);
  // [log-lines]
  bool ok = true;

  tutorial::section("Create An Example Relay Program");
  // [resnet]
  // ResNet-18 as relay.testing.resnet builds it: batch 1, 3x224x224, weights as parameters.
  Module relay_mod = tinyir::resnet18(/*bind_params=*/false);
  std::cout << "Printing the IR module...\n" << tinyir::print(relay_mod, {.show_metadata = false});
  // [resnet]

  tutorial::section("Create PassContext With Instruments");
  // [timing-scope]
  // FoldScaleAxis is Relay's Sequential([BackwardFoldScaleAxis, ForwardFoldScaleAxis,
  // FoldConstant], "FoldScaleAxis"); its two scale-axis passes (opt_level 3) are
  // skipped at the default opt_level 2, so what runs there is FoldConstant and the
  // InferType after it.
  const auto fold_scale_axis = tinyir::FoldScaleAxis();
  passinfra::PassTimingInstrument timing_inst;
  std::string profiles;
  {
    Context ctx({}, {AnyInstrument<Module>(std::ref(timing_inst))});
    auto scope = ctx.enter();
    relay_mod = tinyir::InferType{}(relay_mod);
    relay_mod = fold_scale_axis(relay_mod);
    // Before exiting the context, get profile results.
    profiles = timing_inst.render();
  }
  std::cout << "Printing results of timing profile...\n" << profiles;
  // [timing-scope]

  tutorial::section("Use Current PassContext With Instruments");
  // [override]
  // override_instruments runs exit_pass_ctx of the instruments already there, then
  // installs the new ones and runs their enter_pass_ctx.
  Context& cur_pass_ctx = Context::current();
  cur_pass_ctx.override_instruments({AnyInstrument<Module>(std::ref(timing_inst))});
  relay_mod = tinyir::InferType{}(relay_mod);
  relay_mod = fold_scale_axis(relay_mod);
  profiles = timing_inst.render();
  std::cout << "Printing results of timing profile...\n" << profiles;
  // [override]

  // [override-clear]
  // An empty list clears the instruments. PassTimingInstrument's exit_pass_ctx
  // discards its profiles, so render() gives "" (and logs "no passes have been
  // profiled, did you enable pass profiling?" as a WARNING).
  cur_pass_ctx.override_instruments({});
  profiles = timing_inst.render();
  std::cout << "After override_instruments([]), render() returns "
            << (profiles.empty() ? "an empty string" : "profiles!") << "\n";
  ok = ok && profiles.empty();
  // [override-clear]

  tutorial::section("Apply Passes and Multiple Instrument Classes");
  // [multiple]
  // Instruments run in list order; timing_inst comes after call_node_inst, so the
  // time of call_node_inst's run_before_pass is left out of each pass's time and
  // that of its run_after_pass is counted in.
  RelayCallNodeDiffer call_node_inst;
  const tinyir::DesiredLayouts desired_layouts{{"nn.conv2d", {"NHWC", "default"}}};
  passinfra::Sequential pass_seq{tinyir::FoldConstant{}, tinyir::ConvertLayout(desired_layouts),
                                 tinyir::FoldConstant{}};
  relay_mod = bind_params_by_name(relay_mod);
  {
    Context ctx({.opt_level = 3},
                {AnyInstrument<Module>(std::ref(call_node_inst)), AnyInstrument<Module>(std::ref(timing_inst))});
    auto scope = ctx.enter();
    relay_mod = pass_seq(relay_mod);
    profiles = timing_inst.render();
  }
  // (The tutorial leaves this print commented out.)
  std::cout << "Printing results of timing profile...\n" << profiles;

  std::cout << "Printing the change in number of occurrences of each operator caused by each pass...\n"
            << pformat(call_node_inst.get_pass_to_op_diff()) << '\n';
  // [multiple]

  tutorial::section("Exception Handling");
  // [bad-enter]
  // If enter_pass_ctx throws, instrumentation is disabled and the instruments
  // that entered (PassFine_0) are exited.
  {
    Context demo_ctx(
        {}, {make<PassFine>("PassFine_0"), make<PassBadEnterCtx>("PassBadEnterCtx"), make<PassFine>("PassFine_1")});
    try {
      auto scope = demo_ctx.enter();
      relay_mod = tinyir::InferType{}(relay_mod);
      ok = false;
    } catch (const ValueError& ex) {
      catching(ex);
    }
    // The instruments were cleared: nothing is printed.
    demo_ctx.override_instruments({});
  }
  // [bad-enter]

  // [bad-exit]
  // If exit_pass_ctx throws, instrumentation is disabled and the exception
  // propagates: PassFine_1's exit_pass_ctx does not run.
  {
    Context demo_ctx(
        {}, {make<PassFine>("PassFine_0"), make<PassBadExitCtx>("PassBadExitCtx"), make<PassFine>("PassFine_1")});
    try {
      auto scope = demo_ctx.enter();
      relay_mod = tinyir::InferType{}(relay_mod);
    } catch (const ValueError& ex) {
      catching(ex);
    }
  }
  // [bad-exit]

  // [bad-run-before]
  // Exceptions in should_run, run_before_pass and run_after_pass are not handled:
  // the scope exits the context on the way out, so every exit_pass_ctx runs.
  {
    Context demo_ctx(
        {}, {make<PassFine>("PassFine_0"), make<PassBadRunBefore>("PassBadRunBefore"), make<PassFine>("PassFine_1")});
    try {
      auto scope = demo_ctx.enter();
      relay_mod = tinyir::InferType{}(relay_mod);
      ok = false;
    } catch (const ValueError& ex) {
      catching(ex);
    }
    // Instrumentation was not disabled: override_instruments runs the old exits again.
    demo_ctx.override_instruments({});
  }
  // [bad-run-before]

  // [no-scope]
  // Without a scope, nothing exits the context: on the current context, no
  // exit_pass_ctx runs after the exception...
  {
    Context& cur = Context::current();
    cur.override_instruments(
        {make<PassFine>("PassFine_0"), make<PassBadRunBefore>("PassBadRunBefore"), make<PassFine>("PassFine_1")});
    try {
      relay_mod = tinyir::InferType{}(relay_mod);
      ok = false;
    } catch (const ValueError& ex) {
      catching(ex);
    }
    // ...until the instruments are cleared.
    cur.override_instruments({});
  }
  // [no-scope]
  return ok ? 0 : 1;
}
