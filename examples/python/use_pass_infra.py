# "How to Use TVM Pass Infra" (a TVM tutorial), its
# Python code with only the renames tvm -> passinfra, relay -> passinfra.tinyir.
# Left out: `from tvm import te` (imported, never used; passinfra has no te) and
# `with tvm.target.Target("llvm"):` (passinfra has no targets; its body runs as is).
import numpy as np
import passinfra
import passinfra.tinyir as relay


def example():
    shape = (1, 64, 54, 54)
    c_data = np.empty(shape).astype("float32")
    c = relay.const(c_data)
    weight = relay.var("weight", shape=(64, 64, 3, 3))
    x = relay.var("x", relay.TensorType((1, 64, 56, 56), "float32"))
    conv = relay.nn.conv2d(x, weight)
    y = relay.add(c, c)
    y = relay.multiply(y, relay.const(2, "float32"))
    y = relay.add(conv, y)
    z = relay.add(y, c)
    z1 = relay.add(y, c)
    z2 = relay.add(z, z1)
    return relay.Function([x, weight], z2)


# Let's first create a relay Module which contains one or multiple Relay
# functions for optimization.
f = example()
mod = passinfra.IRModule.from_expr(f)

# Now we can apply constant folding on the module.
# fold_const here is a callback that doesn't take any parameters.
fold_const = relay.transform.FoldConstant()
# Then, we can invoke the pass on the given module. Note that the constant
# folding pass works at the function-level. That being said, each function in
# the module will be applied with the optimization. Users don't need to iterate
# through individual functions manually to apply this pass.
mod = fold_const(mod)
# We can see from the updated program that the constants are folded.
print(mod)

mod = relay.transform.EliminateCommonSubexpr()(mod)
print(mod)

mod = relay.transform.FuseOps(fuse_opt_level=0)(mod)

# We can observe that the optimized module contains functions that only have
# a signle primitive op.
print(mod)

# Now let's execute some passes through :py:class:`tvm.transform.Sequential`
f = example()
mod = passinfra.IRModule.from_expr(f)
# Glob the interested passes.
seq = passinfra.transform.Sequential(
    [
        relay.transform.FoldConstant(),
        relay.transform.EliminateCommonSubexpr(),
        relay.transform.FuseOps(fuse_opt_level=2),
    ]
)
mod1 = seq(mod)
print(mod1)

with passinfra.transform.PassContext(opt_level=3):
    mod2 = seq(mod)
print(mod2)

with passinfra.transform.PassContext(opt_level=3, disabled_pass=["EliminateCommonSubexpr"]):
    mod3 = seq(mod)
print(mod3)


@relay.transform.function_pass(opt_level=1)
class CustomPipeline:
    """Simple test function to replace one argument to another."""

    def __init__(self, multiplier):
        self.multiplier = multiplier

    # This function can define a pass.
    def transform_function(self, func, mod, ctx):
        obj = self

        class ReplaceConstant(passinfra.tinyir.ExprMutator):
            def visit_constant(self, c):
                return relay.multiply(obj.multiplier, c)

        return ReplaceConstant().visit(func)


f = example()
mod = passinfra.IRModule.from_expr(f)
custom_pass = CustomPipeline(multiplier=relay.const(3, "float32"))
assert custom_pass.info.name == "CustomPipeline"
mod3 = custom_pass(mod)
print(mod3)

f = example()
mod = passinfra.IRModule.from_expr(f)
seq = passinfra.transform.Sequential(
    [
        relay.transform.FoldConstant(),
        passinfra.transform.PrintIR(),
        relay.transform.EliminateCommonSubexpr(),
        relay.transform.FuseOps(),
    ]
)


@passinfra.instrument.pass_instrument
class PrintIR:
    """Print the name of the pass, the IR, only before passes execute."""

    def run_before_pass(self, mod, info):
        print("Running pass: {}", info)
        print(mod)


with passinfra.transform.PassContext(opt_level=3, instruments=[PrintIR()]):
    # Perform the optimizations.
    mod = seq(mod)
print(mod)

print("done")
