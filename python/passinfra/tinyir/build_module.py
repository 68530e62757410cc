"""passinfra.tinyir.build_module: relay.build_module's bind_params_by_name."""
from .. import _core as _c


def bind_params_by_name(func, params):
    """`func` with the parameters named in `params` replaced by constants; a value
    is a Constant, a number or an array (numpy; read as float32)."""
    if not isinstance(params, dict):
        raise TypeError("bind_params_by_name: params expected a dict; got {}".format(type(params).__name__))
    return _c.tinyir.bind_params_by_name(func, params)


__all__ = ["bind_params_by_name"]
