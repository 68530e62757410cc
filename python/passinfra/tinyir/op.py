"""passinfra.tinyir.op: the operator functions (relay.op's names)."""
from . import add, clip, divide, expand_dims, layout_transform, multiply, nn, reshape, subtract  # noqa: F401

__all__ = ["add", "clip", "divide", "expand_dims", "layout_transform", "multiply", "nn", "reshape", "subtract"]
