"""passinfra.tinyir.expr: the expression classes (relay.expr's names).

Expr          base: kind, astext(), same_as(other); == is node identity
Var           name_hint, shape, dtype
Constant      shape, dtype, has_data
Call          op (an Op with .name, or the called Function), args, attrs
Let           var, value, body
Tuple         fields
TupleGetItem  tuple_value, index
Function      Function(params, body); params, body, attrs
Op            an operator: name
"""
from .. import _core as _c

_t = _c.tinyir

Expr = _t.Expr
Var = _t.Var
Constant = _t.Constant
Call = _t.Call
Let = _t.Let
Tuple = _t.Tuple
TupleGetItem = _t.TupleGetItem
Function = _t.Function
Op = _t.Op

__all__ = ["Expr", "Var", "Constant", "Call", "Let", "Tuple", "TupleGetItem", "Function", "Op"]
