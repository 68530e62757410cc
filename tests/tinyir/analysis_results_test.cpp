// Tests of examples/tinyir/analyses.hpp: what tinyir's analyses compute (SPEC §10.1),
// on their own and through an AnalysisManager: CallGraph's edges, Liveness's dead
// lets (the ones DeadCodeElimination removes), FunctionTypes and TypeMap against
// infer_types, the function keys (the global names), and == (what the preservation
// checker compares).
#include <doctest/doctest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <passinfra/passinfra.hpp>

#include "tinyir/analyses.hpp"
#include "tinyir/passes.hpp"
#include "tinyir/tinyir.hpp"

namespace {

using namespace tinyir;

Module from_text(std::string_view text) { return parse(text, "test"); }

// Two functions: @f has two dead lets (one made dead only by the other), @g calls
// a closure and nothing is dead.
constexpr std::string_view kTwoFunctions = R"IR(def @f(%x: Tensor[(2), float32]) {
  let %a = add(%x, %x);
  let %b = multiply(%a, %a);
  let %c = nn.relu(%x);
  %c
}
def @g(%y: Tensor[(2), float32]) {
  %0 = fn (%z: Tensor[(2), float32]) {
    nn.relu(%z)
  };
  %0(%y)
}
)IR";

std::vector<std::string> names_of(const std::vector<Var>& vars) {
  std::vector<std::string> out;
  for (const auto& v : vars) out.push_back(v->name);
  return out;
}

}  // namespace

TEST_CASE(
    "tinyir analyses: CallGraph lists the operators each global function calls and its calls of function values") {
  const Module m = from_text(kTwoFunctions);
  const CallGraphInfo cg = CallGraph{}.run(m);
  REQUIRE(cg.functions.size() == 2);
  const auto* f = cg.find("f");
  const auto* g = cg.find("g");
  REQUIRE(f != nullptr);
  REQUIRE(g != nullptr);
  CHECK(f->ops == std::set<std::string, std::less<>>{"add", "multiply", "nn.relu"});
  CHECK_FALSE(f->calls_functions);
  CHECK(g->ops == std::set<std::string, std::less<>>{"nn.relu"});  // the closure's body counts
  CHECK(g->calls_functions);
  CHECK(cg.calls("f", "multiply"));
  CHECK_FALSE(cg.calls("g", "multiply"));
  CHECK_FALSE(cg.calls("h", "add"));  // no such function
  CHECK(cg.find("h") == nullptr);

  // After FuseOps every operator of ResNet-18 sits in a Primitive function that main calls.
  const Module fused = fuse_ops(infer_types(resnet18(true)), 1);
  const CallGraphInfo fcg = CallGraph{}.run(fused);
  CHECK(fcg.functions.front().calls_functions);
  CHECK(fcg.calls("main", "nn.conv2d"));
  CHECK_FALSE(CallGraph{}.run(resnet18(true)).functions.front().calls_functions);
}

TEST_CASE("tinyir analyses: CallGraph is structural, and ToANormalForm keeps it even when it duplicates a call") {
  // A call shared by a closure and its enclosing scope is bound twice by
  // ToANormalForm (once inside the closure): the edges stay the same.
  const Module m = from_text(R"IR(def @main(%x: Tensor[(2), float32]) {
  %0 = add(%x, %x);
  %1 = fn () {
    %0
  };
  (%1, %0)
}
)IR");
  const Module anf = to_a_normal_form(m);
  CHECK(count_calls(anf).at("add") == 2);  // duplicated
  CHECK(CallGraph{}.run(anf) == CallGraph{}.run(m));
  for (const Module& w : {example(), resnet18(false), resnet18(true), fuse_ops(infer_types(resnet18(true)), 0)})
    CHECK(CallGraph{}.run(to_a_normal_form(w)) == CallGraph{}.run(w));
  // A rewrite that changes an edge changes it.
  const Module canon = canonicalize_ops(resnet18(true));
  CHECK_FALSE(CallGraph{}.run(canon) == CallGraph{}.run(resnet18(true)));
}

TEST_CASE("tinyir analyses: Liveness finds the dead lets DeadCodeElimination removes, in one fixed point") {
  const Module m = from_text(kTwoFunctions);
  const LivenessInfo f = Liveness{}.run(m["f"], m);
  CHECK(f.function == m["f"]);
  CHECK(names_of(f.dead) == std::vector<std::string>{"b", "a"});  // %a is dead only because %b is
  CHECK(f.is_live(m["f"]->params[0]));
  const LivenessInfo g = Liveness{}.run(m["g"], m);
  CHECK(g.dead.empty());
  // Equal for the same function, different for another one (or another version).
  CHECK(Liveness{}.run(m["f"], m) == f);
  CHECK_FALSE(g == f);
  const Module dce = dead_code_elimination(m);
  CHECK(Liveness{}.run(dce["f"], dce).dead.empty());
  CHECK_FALSE(Liveness{}.run(dce["f"], dce) == f);
}

TEST_CASE("tinyir analyses: FunctionTypes and TypeMap type what infer_types types") {
  for (const Module& w : {example(), resnet18(false), from_text(kTwoFunctions)}) {
    const Module typed = infer_types(w);
    passinfra::AnalysisManager<Module, passinfra::analyses<TypeMap>> am;
    const TypeMapInfo& tm = am.get<TypeMap>(w);
    REQUIRE(tm.functions.size() == w.size());
    CHECK(tm.describes(w));
    for (const auto& [name, fn] : w) {
      CHECK(has_checked_types(fn));
      CHECK(type_equal(tm.type_of(name), fn->checked_type()));
      const FunctionTypesInfo* ft = am.get_cached<FunctionTypes>(fn);
      REQUIRE(ft != nullptr);
      CHECK(ft->function == fn);
      CHECK(type_equal(ft->type, typed[name]->checked_type()));
    }
    CHECK(tm.type_of("nope") == nullptr);
    CHECK(am.size() == w.size() + 1);  // one FunctionTypes per function, and the map
  }
  // describes(): false for another module, or the same names with another node.
  const Module a = example();
  const Module b = example();
  const TypeMapInfo tm = [&] {
    passinfra::AnalysisManager<Module, passinfra::analyses<TypeMap>> am;
    return am.get<TypeMap>(a);
  }();
  CHECK(tm.describes(a));
  CHECK_FALSE(tm.describes(b));
  CHECK_FALSE(tm.describes(Module{}));
}

TEST_CASE("tinyir analyses: function results are keyed by the global name, spelled @name") {
  const Module m = from_text(kTwoFunctions);
  using Traits = passinfra::ir_traits<Module>;
  CHECK(Traits::function_key(m["f"]) == "@f");
  CHECK(Traits::function_key(m["g"]) == "@g");
  // A node never put in a module has no global name.
  const Function loose = make_function({}, make_scalar(1.0));
  CHECK(loose->global_name().empty());
  CHECK_THROWS_WITH_AS(Traits::function_key(loose),
                       "function_key: the function was never put in a module, so it has no global name to key its "
                       "analyses by",
                       Error);
  // The first name a module gives a node stays (a rewritten function is a new node).
  const Module both{{"first", loose}, {"second", loose}};
  CHECK(Traits::function_key(both["second"]) == "@first");
  std::vector<Function> seen;
  Traits::for_each_function(m, [&](const Function& fn) { seen.push_back(fn); });
  CHECK(seen == std::vector<Function>{m["f"], m["g"]});

  // The same key for a new version of @f in the next module: the cache keeps one
  // entry per name.
  passinfra::AnalysisManager<Module, passinfra::analyses<Liveness>> am;
  const LivenessInfo& before = am.get<Liveness>(m, m["f"]);
  CHECK(before.dead.size() == 2);
  const Module next = dead_code_elimination(m);
  CHECK(Traits::function_key(next["f"]) == "@f");
  CHECK(am.get<Liveness>(next, next["f"]).function == m["f"]);  // cached: still the old one
  am.invalidate(passinfra::PreservedAnalyses::none());
  CHECK(am.get<Liveness>(next, next["f"]).dead.empty());
}
