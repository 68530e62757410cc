"""passinfra.instrument: pass instruments, as tvm.instrument.

PassInstrument            base of Python instruments
pass_instrument(cls)      makes `cls` a PassInstrument; its hooks are any subset of
                          enter_pass_ctx(), exit_pass_ctx(), should_run(mod, info),
                          run_before_pass(mod, info), run_after_pass(mod, info).
                          A hook the class lacks is never called (it costs nothing).
PassTimingInstrument()    passinfra's timing instrument (C++): render(), render_list(),
                          to_chrome_trace_json(pid=1), clear()
PrintIRBefore(passes=None), PrintIRAfter(passes=None), PrintIRChanged(passes=None, diff=False, context=3)
                          passinfra's printing instruments (C++): they log the IR at INFO
                          (stderr, see passinfra.log_to_stderr) for the named passes (None: all)
PassBisect(limit=None, log_level="INFO")
                          LLVM's -opt-bisect-limit (C++): passes are numbered 1, 2, ... as
                          should_run is asked; those up to `limit` run, later ones are skipped
                          (None or -1: no limit). Logs "BISECT: running pass (k) <name>" or
                          "BISECT: NOT running pass (k) <name>". .count, .limit (settable), reset()
CrashReproducer(path, pipeline="", comment_prefix="// ")
                          (C++): when a pass fails, writes to `path` a report naming the pass and
                          the error, followed by the pass's input IR (tinyir.parse reads the file);
                          the exception continues unchanged. reports(), last_report() (a CrashReport:
                          pass_name, error, pipeline, ir); parse_crash_report(text), format_crash_report(report)

Python and C++ instruments mix in one list; they run in list order (SPEC §5).
"""
import inspect

from . import _core

PassTimingInstrument = _core.PassTimingInstrument
PrintIRBefore = _core.PrintIRBefore
PrintIRAfter = _core.PrintIRAfter
PrintIRChanged = _core.PrintIRChanged
PassBisect = _core.PassBisect
CrashReproducer = _core.CrashReproducer
CrashReport = _core.CrashReport
parse_crash_report = _core.parse_crash_report
format_crash_report = _core.format_crash_report


class PassInstrument:
    """Base of Python pass instruments. It defines no hooks: an instrument has
    exactly the hooks its class defines."""


def pass_instrument(pi_cls=None):
    """Decorate a class as a pass instrument (a subclass of it and PassInstrument)."""

    def create(cls):
        if not inspect.isclass(cls):
            raise TypeError("pass_instrument: expected a class; got {}".format(type(cls).__name__))
        if issubclass(cls, PassInstrument):
            return cls
        return type(
            cls.__name__,
            (cls, PassInstrument),
            {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__},
        )

    if pi_cls is not None:
        return create(pi_cls)
    return create


def hooks(instrument):
    """The hooks passinfra calls on `instrument` (for tests and curiosity)."""
    return list(_core.instrument_hooks(instrument))


__all__ = [
    "PassInstrument",
    "pass_instrument",
    "PassTimingInstrument",
    "PrintIRBefore",
    "PrintIRAfter",
    "PrintIRChanged",
    "PassBisect",
    "CrashReproducer",
    "CrashReport",
    "parse_crash_report",
    "format_crash_report",
    "hooks",
]
