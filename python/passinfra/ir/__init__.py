"""passinfra.ir: tvm.ir's names (IRModule, transform, instrument)."""
from .. import instrument, transform
from ..tinyir import IRModule

__all__ = ["IRModule", "instrument", "transform"]
