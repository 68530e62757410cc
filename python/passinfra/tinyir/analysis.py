"""passinfra.tinyir.analysis: relay.analysis's post_order_visit and free_vars."""
from .. import _core as _c


def post_order_visit(expr, fvisit):
    """Call fvisit(node) on every distinct node reachable from `expr`, operands first."""
    _c.tinyir.post_order_visit(expr, fvisit)


def free_vars(expr):
    """The variables `expr` uses without binding them, in first-use order."""
    return list(_c.tinyir.free_vars(expr))


__all__ = ["post_order_visit", "free_vars"]
