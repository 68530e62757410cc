// tinyir::verify (tinyir/verify.hpp): the structural checks behind
// tinyir-opt's input/output checks and --verify-each (SPEC §12.8).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tinyir/builders.hpp"
#include "tinyir/ir.hpp"
#include "tinyir/verify.hpp"
#include "tinyir/workloads.hpp"

namespace {

using namespace tinyir;

Module one(Function fn) {
  std::vector<Module::Entry> entries;
  entries.emplace_back("main", std::move(fn));
  return Module(std::move(entries));
}

}  // namespace

TEST_CASE("tinyir verify: well-formed modules pass, ResNet-18 and a closure included") {
  CHECK_FALSE(verify(resnet18(false)));
  CHECK_FALSE(verify(resnet18(true)));
  const Var x = make_var("x");
  const Var y = make_var("y");
  // A nested function may use the enclosing function's variables.
  const Function inner = make_function({y}, op::add(x, y));
  CHECK_FALSE(verify(one(make_function({x}, make_call(inner, {x})))));
  // let %z = x + 1 in %z * %z
  const Var z = make_var("z");
  CHECK_FALSE(verify(one(make_function({x}, make_let(z, op::add(x, make_scalar(1)), op::multiply(z, z))))));
}

TEST_CASE("tinyir verify: unbound and twice-bound variables") {
  const Var x = make_var("x");
  const Var ghost = make_var("ghost");
  CHECK(verify(one(make_function({x}, op::add(x, ghost)))) ==
        std::optional<std::string>("@main: variable '%ghost' is used but not bound in the function"));
  // A let's variable is not in scope in another function.
  const Var z = make_var("z");
  std::vector<Module::Entry> two;
  two.emplace_back("a", make_function({x}, make_let(z, x, z)));
  two.emplace_back("b", make_function({}, op::relu(z)));
  CHECK(verify(Module(std::move(two))) ==
        std::optional<std::string>("@b: variable '%z' is used but not bound in the function"));
  CHECK(verify(one(make_function({x, x}, x))) == std::optional<std::string>("@main: variable '%x' is bound twice"));
}

TEST_CASE("tinyir verify: operators, arity and tuple indexes") {
  const Var x = make_var("x");
  // (An unknown operator cannot be built: make_call rejects it, as the parser does.)
  CHECK(verify(one(make_function({x}, make_call("add", {x})))) ==
        std::optional<std::string>("@main: call of add with 1 argument; add takes 2"));
  CHECK(verify(one(make_function({x}, make_tuple_get_item(make_tuple_expr({x, x}), 2)))) ==
        std::optional<std::string>("@main: tuple index 2 out of range for a tuple of 2 fields"));
  CHECK_FALSE(verify(one(make_function({x}, make_tuple_get_item(make_tuple_expr({x, x}), 1)))));
}

TEST_CASE("tinyir verify: a chain of 100000 bindings, no recursion") {
  const Var x = make_var("x");
  Expr e = x;
  for (int i = 0; i < 100000; ++i) e = op::add(e, x);
  CHECK_FALSE(verify(one(make_function({x}, e))));
}
