"""passinfra.tinyir.expr_functor: ExprFunctor, ExprVisitor and ExprMutator, as
Relay's Python classes: subclass and override visit_var, visit_constant,
visit_call, visit_let, visit_tuple, visit_tuple_getitem, visit_function, visit_op.

visit(expr) is memoized per object (memo_map: a node shared by several users is
visited once, and a mutator rewrites it to one new node). The mutator rebuilds a
node only when one of its operands changed, keeping its operator, attributes,
annotations and span. Recursive, as Relay's: a chain deeper than Python's
recursion limit raises RecursionError.
"""
from .. import _core as _c
from .expr import Call, Constant, Expr, Function, Let, Op, Tuple, TupleGetItem, Var

_t = _c.tinyir


class ExprFunctor:
    """Dispatches visit(expr) to visit_<kind>, memoized."""

    def __init__(self):
        self.memo_map = {}

    def visit(self, expr):
        if isinstance(expr, Op):
            return self.visit_op(expr)
        if expr in self.memo_map:
            return self.memo_map[expr]
        if isinstance(expr, Call):
            res = self.visit_call(expr)
        elif isinstance(expr, Var):
            res = self.visit_var(expr)
        elif isinstance(expr, Constant):
            res = self.visit_constant(expr)
        elif isinstance(expr, Function):
            res = self.visit_function(expr)
        elif isinstance(expr, Let):
            res = self.visit_let(expr)
        elif isinstance(expr, Tuple):
            res = self.visit_tuple(expr)
        elif isinstance(expr, TupleGetItem):
            res = self.visit_tuple_getitem(expr)
        else:
            raise TypeError("ExprFunctor.visit: expected a passinfra.tinyir.Expr; got {}".format(type(expr).__name__))
        self.memo_map[expr] = res
        return res

    def visit_var(self, var):
        raise NotImplementedError()

    def visit_constant(self, const):
        raise NotImplementedError()

    def visit_call(self, call):
        raise NotImplementedError()

    def visit_let(self, let):
        raise NotImplementedError()

    def visit_tuple(self, tup):
        raise NotImplementedError()

    def visit_tuple_getitem(self, t):
        raise NotImplementedError()

    def visit_function(self, fn):
        raise NotImplementedError()

    def visit_op(self, op):
        raise NotImplementedError()


class ExprVisitor(ExprFunctor):
    """Visits every node once, operands through visit()."""

    def visit_var(self, var):
        pass

    def visit_constant(self, const):
        pass

    def visit_op(self, op):
        pass

    def visit_call(self, call):
        self.visit(call.op)
        for a in call.args:
            self.visit(a)

    def visit_let(self, let):
        self.visit(let.var)
        self.visit(let.value)
        self.visit(let.body)

    def visit_tuple(self, tup):
        for f in tup.fields:
            self.visit(f)

    def visit_tuple_getitem(self, t):
        self.visit(t.tuple_value)

    def visit_function(self, fn):
        for p in fn.params:
            self.visit(p)
        self.visit(fn.body)


def _same(new, old):
    return len(new) == len(old) and all(a.same_as(b) for a, b in zip(new, old))


class ExprMutator(ExprFunctor):
    """Rewrites bottom-up: each visit_* returns the new node (the same one when
    nothing under it changed)."""

    def visit_var(self, var):
        return var

    def visit_constant(self, const):
        return const

    def visit_op(self, op):
        return op

    def visit_call(self, call):
        op = call.op
        new_fn = op if isinstance(op, Op) else self.visit(op)
        new_args = [self.visit(a) for a in call.args]
        if (isinstance(op, Op) or new_fn.same_as(op)) and _same(new_args, call.args):
            return call
        return _t.call_with_args(call, None if isinstance(op, Op) else new_fn, new_args)

    def visit_let(self, let):
        new_var = self.visit(let.var)
        new_value = self.visit(let.value)
        new_body = self.visit(let.body)
        if new_var.same_as(let.var) and new_value.same_as(let.value) and new_body.same_as(let.body):
            return let
        return Let(new_var, new_value, new_body)

    def visit_tuple(self, tup):
        new_fields = [self.visit(f) for f in tup.fields]
        if _same(new_fields, tup.fields):
            return tup
        return Tuple(new_fields)

    def visit_tuple_getitem(self, t):
        new_tuple = self.visit(t.tuple_value)
        if new_tuple.same_as(t.tuple_value):
            return t
        return TupleGetItem(new_tuple, t.index)

    def visit_function(self, fn):
        new_params = [self.visit(p) for p in fn.params]
        new_body = self.visit(fn.body)
        if _same(new_params, fn.params) and new_body.same_as(fn.body):
            return fn
        return _t.function_with(fn, new_params, new_body)


__all__ = ["ExprFunctor", "ExprVisitor", "ExprMutator", "Expr"]
