"""passinfra.tinyir: tinyir (passinfra's small Relay-like IR) with Relay's spellings.

IRModule                  from_expr(fn), mod["main"] (get / set), print(mod), astext(show_meta_data=True)
parse(text)               the module a Relay-like text describes
var(name, type_annotation=None, shape=None, dtype="float32"), TensorType(shape, dtype)
const(value, dtype=None)  a number (scalar) or an array (numpy; shape, dtype, data)
add, subtract, multiply, divide, nn.conv2d, nn.relu, ...; Function(params, body)
transform                 InferType(), FoldConstant(), ... (passinfra.tinyir.transform)
testing.resnet            get_workload(num_layers=18, batch_size=1, image_shape=(3, 224, 224))
expr                      Expr, Var, Constant, Call (op.name), Let, Tuple, TupleGetItem, Function, Op
ExprVisitor / ExprMutator subclassed in Python (visit_constant, visit_call, ...), memoized
analysis.post_order_visit, build_module.bind_params_by_name
"""
from .. import _core as _c

_t = _c.tinyir

IRModule = _t.IRModule
parse = _t.parse
from .expr import Call, Constant, Expr, Function, Let, Op, Tuple, TupleGetItem, Var  # noqa: E402


class TensorType:
    """A tensor type: shape and dtype (what var() takes as its type annotation)."""

    def __init__(self, shape, dtype="float32"):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    def __repr__(self):
        return "TensorType({}, {!r})".format(self.shape, self.dtype)


def var(name_hint, type_annotation=None, shape=None, dtype="float32"):
    """A variable; its type from `type_annotation` (a TensorType) or `shape` and `dtype`."""
    if type_annotation is not None:
        if not isinstance(type_annotation, TensorType):
            raise TypeError(
                "var: type_annotation expected a passinfra.tinyir.TensorType; got {}".format(
                    type(type_annotation).__name__
                )
            )
        shape, dtype = type_annotation.shape, type_annotation.dtype
    return _t.var(name_hint, None if shape is None else [int(d) for d in shape], dtype)


def const(value, dtype=None):
    """A constant: a number (rank 0) or an array with .shape and .flatten() (numpy)."""
    return _t.const(value, dtype)


def _call(op, args, **attrs):
    return _t.call(op, list(args), {k: v for k, v in attrs.items() if v is not None})


def add(lhs, rhs):
    return _call("add", [lhs, rhs])


def subtract(lhs, rhs):
    return _call("subtract", [lhs, rhs])


def multiply(lhs, rhs):
    return _call("multiply", [lhs, rhs])


def divide(lhs, rhs):
    return _call("divide", [lhs, rhs])


def clip(a, a_min, a_max):
    return _call("clip", [a], a_min=float(a_min), a_max=float(a_max))


def _binary(op_name):
    def method(self, other):
        if not isinstance(other, Expr):
            # as Relay: a Python number must be made a constant first
            raise TypeError('convert "{}" with `const` first'.format(other))
        return _call(op_name, [self, other])

    method.__name__ = "__{}__".format(op_name)
    return method


# Relay's operators on expressions: a + b, a - b, a * b, a / b.
Expr.__add__ = _binary("add")
Expr.__sub__ = _binary("subtract")
Expr.__mul__ = _binary("multiply")
Expr.__truediv__ = _binary("divide")


def _show(self):
    """Print the module's text (as IRModule.show in TVM)."""
    print(self.astext())


IRModule.show = _show


def expand_dims(data, axis, num_newaxis=1):
    return _call("expand_dims", [data], axis=axis, num_newaxis=num_newaxis)


def layout_transform(data, src_layout, dst_layout):
    return _call("layout_transform", [data], src_layout=src_layout, dst_layout=dst_layout)


def reshape(data, newshape):
    return _call("reshape", [data], newshape=list(newshape))


from . import analysis, build_module, expr, expr_functor, nn, op, testing, transform  # noqa: E402  (they use the names above)
from .expr_functor import ExprFunctor, ExprMutator, ExprVisitor  # noqa: E402

__all__ = [
    "Expr",
    "Var",
    "Constant",
    "Call",
    "Let",
    "Tuple",
    "TupleGetItem",
    "Op",
    "ExprFunctor",
    "ExprVisitor",
    "ExprMutator",
    "expr_functor",
    "analysis",
    "build_module",
    "expr",
    "IRModule",
    "parse",
    "Function",
    "TensorType",
    "var",
    "const",
    "add",
    "subtract",
    "multiply",
    "divide",
    "clip",
    "expand_dims",
    "layout_transform",
    "reshape",
    "nn",
    "op",
    "transform",
    "testing",
]
