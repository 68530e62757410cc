"""passinfra: TVM's pass infrastructure over the C++ core (pybind11).

    import passinfra
    from passinfra import transform, instrument, tinyir
"""
from . import _core
from ._core import PassError
from . import transform, instrument, tinyir
from .tinyir import IRModule

__all__ = ["PassError", "transform", "instrument", "tinyir", "IRModule"]
