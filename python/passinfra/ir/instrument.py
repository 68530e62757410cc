"""passinfra.ir.instrument: tvm.ir.instrument's names."""
from ..instrument import *  # noqa: F401,F403
from ..instrument import __all__  # noqa: F401
