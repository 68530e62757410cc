"""passinfra: TVM's pass infrastructure over the C++ core (pybind11).

    import passinfra
    from passinfra import transform, instrument, tinyir
"""
from . import _core
from ._core import PassError, set_log_sink
from . import transform, instrument, tinyir
from .tinyir import IRModule

_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def log_to_stderr(level="INFO"):
    """Send passinfra's log lines at `level` and above to sys.stderr as
    "[passinfra] LEVEL: message" (as the C++ examples do); the default sink
    writes WARNING and above only. set_log_sink(None) restores it."""
    import sys

    if level not in _LEVELS:
        raise ValueError("log_to_stderr: level expected one of {}; got {!r}".format(_LEVELS, level))
    least = _LEVELS.index(level)

    def sink(lvl, message):
        if _LEVELS.index(lvl) >= least:
            sys.stdout.flush()
            sys.stderr.write("[passinfra] {}: {}\n".format(lvl, message))
            sys.stderr.flush()

    set_log_sink(sink)


# As TVM, whose pass infrastructure logs SPEC §5's lines at INFO to stderr:
# passinfra's INFO lines and above go to stderr as "[passinfra] LEVEL: message".
# set_log_sink(None) restores the C++ default (WARNING and above).
log_to_stderr("INFO")

__all__ = ["PassError", "set_log_sink", "log_to_stderr", "transform", "instrument", "tinyir", "IRModule"]
