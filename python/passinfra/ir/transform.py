"""passinfra.ir.transform: tvm.ir.transform's names."""
from ..transform import *  # noqa: F401,F403
from ..transform import __all__  # noqa: F401
