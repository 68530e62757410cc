"""passinfra.tinyir.testing: workloads (relay.testing's)."""
from . import resnet  # noqa: F401


def example():
    """The pass-infra tutorial's module (its example(), as tinyir::example() in C++)."""
    from .. import _t

    return _t.example()
