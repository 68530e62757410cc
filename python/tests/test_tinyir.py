"""passinfra.tinyir: Relay's spellings over tinyir."""
import numpy as np
import pytest

import passinfra
from passinfra import tinyir as relay
from passinfra import transform


def example():
    """The pass-infra tutorial's example(), as its Python code writes it."""
    shape = (1, 64, 54, 54)
    c_data = np.zeros(shape).astype("float32")
    c = relay.const(c_data)
    weight = relay.var("weight", shape=(64, 64, 3, 3))
    x = relay.var("x", relay.TensorType((1, 64, 56, 56), "float32"))
    conv = relay.nn.conv2d(x, weight)
    y = relay.add(c, c)
    y = relay.multiply(y, relay.const(2, "float32"))
    y = relay.add(conv, y)
    z = relay.add(y, c)
    z1 = relay.add(y, c)
    z2 = relay.add(z, z1)
    return relay.Function([x, weight], z2)


def test_the_tutorial_example_builds_the_same_module_as_cpp(mod):
    built = relay.IRModule.from_expr(example())
    assert str(built) == str(mod)
    assert passinfra.IRModule is relay.IRModule


def test_module_get_set_print_parse(mod):
    main = mod["main"]
    assert main.kind == "Function"
    assert [p.name_hint for p in main.params] == ["x", "weight"]
    assert main.params[0].shape == (1, 64, 56, 56)
    other = relay.IRModule()
    other["main"] = main
    other["copy"] = main
    assert other.functions == ["main", "copy"]
    assert "main" in other and len(other) == 2
    text = mod.astext(show_meta_data=False)
    assert "#[metadata]" not in text and "#[metadata]" in mod.astext()
    assert str(relay.parse(str(mod))) == str(mod)
    with pytest.raises(passinfra.PassError):
        mod["nothere"]
    with pytest.raises(TypeError, match="expected a Function"):
        other["x"] = main.params[0]


def test_bad_ir_is_a_pass_error_with_the_cpp_message():
    with pytest.raises(passinfra.PassError, match="unknown operator 'no.such_op'"):
        relay._call("no.such_op", [relay.const(1.0)])
    with pytest.raises(TypeError, match="type_annotation"):
        relay.var("x", "float32")


def test_passes_have_relays_names_and_levels():
    t = relay.transform
    infos = {
        p.info.name: (p.info.opt_level, list(p.info.required))
        for p in [
            t.InferType(),
            t.FoldConstant(),
            t.EliminateCommonSubexpr(),
            t.DeadCodeElimination(),
            t.FuseOps(2),
            t.DefuseOps(),
            t.ToANormalForm(),
            t.CanonicalizeOps(),
            t.ConvertLayout({"nn.conv2d": ["NHWC", "default"]}),
            t.AnnotateSpans(),
        ]
    }
    assert infos["InferType"] == (0, [])
    assert infos["FoldConstant"] == (2, [])
    assert infos["EliminateCommonSubexpr"] == (3, ["InferType"])
    assert infos["FuseOps"] == (0, ["InferType"])
    assert infos["ConvertLayout"] == (3, ["InferType", "CanonicalizeOps"])
    with pytest.raises(passinfra.PassError, match="nn.conv2d"):
        t.ConvertLayout({"nn.conv2": ["NHWC"]})
    with pytest.raises(TypeError, match="desired_layouts"):
        t.ConvertLayout(["NHWC"])


def test_convert_layout_on_resnet():
    mod, params = relay.testing.resnet.get_workload(num_layers=18, batch_size=1, image_shape=(3, 224, 224))
    assert params["conv0_weight"] == (64, 3, 7, 7)
    assert "data" not in params
    seq = transform.Sequential(
        [
            relay.transform.FoldConstant(),
            relay.transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"]}),
            relay.transform.FoldConstant(),
        ]
    )
    with transform.PassContext(opt_level=3):
        out = seq(mod)
    text = str(out)
    assert 'data_layout="NHWC"' in text and "layout_transform" in text
    with pytest.raises(ValueError):
        relay.testing.resnet.get_workload(num_layers=50)
