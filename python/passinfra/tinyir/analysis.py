"""passinfra.tinyir.analysis: relay.analysis's post_order_visit."""
from .. import _core as _c


def post_order_visit(expr, fvisit):
    """Call fvisit(node) on every distinct node reachable from `expr`, operands first."""
    _c.tinyir.post_order_visit(expr, fvisit)


__all__ = ["post_order_visit"]
