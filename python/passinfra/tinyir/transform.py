"""passinfra.tinyir.transform: tinyir's passes (Relay's names, opt_levels and
requirements), made through the pass registry."""
from .. import _core as _c
from ..transform import FunctionPass, ModulePass, Pass, Sequential, function_pass, module_pass


def _create(base, name, **options):
    return base(_c.create_pass(name, options))


def InferType():  # noqa: N802 (Relay's names)
    return _create(ModulePass, "InferType")


def FoldConstant():  # noqa: N802
    return _create(FunctionPass, "FoldConstant")


def EliminateCommonSubexpr():  # noqa: N802
    return _create(FunctionPass, "EliminateCommonSubexpr")


def DeadCodeElimination():  # noqa: N802
    return _create(FunctionPass, "DeadCodeElimination")


def FuseOps(fuse_opt_level=-1):  # noqa: N802
    """-1: the level is the context's opt_level."""
    return _create(FunctionPass, "FuseOps", fuse_opt_level=fuse_opt_level)


def DefuseOps():  # noqa: N802
    return _create(FunctionPass, "DefuseOps")


def ToANormalForm():  # noqa: N802
    return _create(ModulePass, "ToANormalForm")


def CanonicalizeOps():  # noqa: N802
    return _create(FunctionPass, "CanonicalizeOps")


def ConvertLayout(desired_layouts):  # noqa: N802
    """desired_layouts: {"nn.conv2d": ["NHWC", "default"]} (tinyir converts nn.conv2d)."""
    if not isinstance(desired_layouts, dict):
        raise TypeError("ConvertLayout: desired_layouts expected a dict; got {}".format(type(desired_layouts).__name__))
    return FunctionPass(_c.create_pass("ConvertLayout", {k: list(v) for k, v in desired_layouts.items()}))


def BackwardFoldScaleAxis():  # noqa: N802
    return _create(FunctionPass, "BackwardFoldScaleAxis")


def ForwardFoldScaleAxis():  # noqa: N802
    return _create(FunctionPass, "ForwardFoldScaleAxis")


def FoldScaleAxis():  # noqa: N802
    """Relay's FoldScaleAxis: Sequential([BackwardFoldScaleAxis, ForwardFoldScaleAxis,
    FoldConstant], name="FoldScaleAxis"), tinyir's own (the two folds are opt_level 3)."""
    return _create(ModulePass, "FoldScaleAxis")


def AnnotateSpans():  # noqa: N802
    return _create(ModulePass, "AnnotateSpans")


__all__ = [
    "Pass",
    "function_pass",
    "module_pass",
    "InferType",
    "FoldConstant",
    "EliminateCommonSubexpr",
    "DeadCodeElimination",
    "FuseOps",
    "DefuseOps",
    "ToANormalForm",
    "CanonicalizeOps",
    "ConvertLayout",
    "BackwardFoldScaleAxis",
    "ForwardFoldScaleAxis",
    "FoldScaleAxis",
    "AnnotateSpans",
]
