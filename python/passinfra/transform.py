"""passinfra.transform: passes, pipelines and the PassContext, as tvm.transform.

PassContext(opt_level=2, required_pass=None, disabled_pass=None, instruments=None, config=None)
    a context manager (``with``); PassContext.current() is this thread's innermost
    entered context (else its default one); override_instruments(list); .instruments,
    .opt_level, .config, .required_pass, .disabled_pass
PassInfo(name, opt_level=0, required=[])    str() prints as SPEC §1
Pass / ModulePass / FunctionPass           every pass is callable: p(mod) runs it under
                                           PassContext.current()
Sequential(passes, opt_level=0, name="sequential", required=None)
module_pass / function_pass                decorators on functions and classes
parse_pipeline(text)                       pipeline text over the registry
"""
import functools
import inspect

from . import _core

PassContext = _core.PassContext
PassInfo = _core.PassInfo
Pass = _core.Pass


class ModulePass(Pass):
    """A pass over the whole module."""


class FunctionPass(Pass):
    """A pass over every global function of the module (then InferType, as Relay's)."""


class Sequential(Pass):
    """Runs `passes` in order, each gated by the context (SPEC §4)."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None):
        passes = [] if passes is None else list(passes)
        for i, p in enumerate(passes):
            if not isinstance(p, Pass):
                raise TypeError(
                    "Sequential: passes[{}] is a {}; expected a passinfra.transform.Pass".format(i, type(p).__name__)
                )
        Pass.__init__(self, _core.make_sequential(passes, _check_opt_level(opt_level), name, _names(required)))


def _check_opt_level(opt_level):
    if isinstance(opt_level, bool) or not isinstance(opt_level, int):
        raise TypeError("opt_level: expected an int; got {}".format(type(opt_level).__name__))
    return opt_level


def _names(required):
    if required is None:
        return []
    if isinstance(required, str):
        raise TypeError("required: expected a list of pass names; got a str")
    return list(required)


def _wrap_class(cls, base, method, make, name, opt_level, required):
    """A class whose instances are passes running `cls(...).<method>`."""

    class PyPass(base):
        def __init__(self, *args, **kwargs):
            inst = cls(*args, **kwargs)
            if not hasattr(inst, method):
                raise TypeError("{} has no method {}".format(cls.__name__, method))
            base.__init__(self, make(getattr(inst, method), name, opt_level, required))
            self._inst = inst

        def __getattr__(self, attr):
            # attributes of the wrapped instance, as TVM's class passes
            if attr == "_inst":
                raise AttributeError(attr)
            return getattr(self._inst, attr)

    functools.update_wrapper(PyPass.__init__, cls.__init__)
    PyPass.__name__ = cls.__name__
    PyPass.__qualname__ = cls.__qualname__
    PyPass.__doc__ = cls.__doc__
    PyPass.__module__ = cls.__module__
    return PyPass


def _decorator(kind, pass_func, opt_level, name, required):
    if opt_level is None:
        raise ValueError("Please provide opt_level for the {} pass.".format(kind))
    opt_level = _check_opt_level(opt_level)
    required = _names(required)
    if kind == "module":
        base, method, make = ModulePass, "transform_module", _core.make_module_pass
    else:
        base, method, make = FunctionPass, "transform_function", _core.make_function_pass

    def create(pass_arg):
        fname = name if name else pass_arg.__name__
        if inspect.isclass(pass_arg):
            return _wrap_class(pass_arg, base, method, make, fname, opt_level, required)
        if not callable(pass_arg):
            raise TypeError("pass_func must be a callable for a {} pass".format(kind))
        return base(make(pass_arg, fname, opt_level, required))

    if pass_func is not None:
        return create(pass_func)
    return create


def module_pass(pass_func=None, opt_level=None, name=None, required=None):
    """A module pass from `pass_func(mod, ctx) -> mod`, or from a class with
    transform_module(self, mod, ctx); as @module_pass(opt_level=...) or module_pass(f, opt_level=...)."""
    return _decorator("module", pass_func, opt_level, name, required)


def function_pass(pass_func=None, opt_level=None, name=None, required=None):
    """A function pass from `pass_func(func, mod, ctx) -> func`, or from a class with
    transform_function(self, func, mod, ctx); every global function is mapped, then InferType runs."""
    return _decorator("function", pass_func, opt_level, name, required)


def parse_pipeline(text):
    """The pass pipeline text `text` describes, e.g. "sequential(FoldConstant, FuseOps(fuse_opt_level=2))"."""
    return Pass(_core.parse_pipeline(text))


def PrintIR(header=""):  # noqa: N802 (TVM's name)
    """passinfra's PrintIR pass: logs "PrintIR(<header>):" and the module at INFO."""
    return ModulePass(_core.create_pass("PrintIR", {"header": header}))


def registered_passes():
    """The names of the passes parse_pipeline knows."""
    return _core.registered_passes()


__all__ = [
    "PassContext",
    "PassInfo",
    "Pass",
    "ModulePass",
    "FunctionPass",
    "Sequential",
    "module_pass",
    "function_pass",
    "parse_pipeline",
    "PrintIR",
    "registered_passes",
]
