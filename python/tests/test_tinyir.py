"""passinfra.tinyir: Relay's spellings over tinyir."""
import re

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
    parsed = str(relay.parse(str(mod)))
    assert "/* span=from_string:2:8 */" in parsed  # parsed nodes carry their spans, shown as Relay does
    assert re.sub(r" /\* span=[^*]*\*/", "", parsed) == str(mod)
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
    assert params["conv0_weight"].shape == (64, 3, 7, 7) and not params["conv0_weight"].any()
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


def test_expression_classes_and_post_order_visit(mod):
    main = mod["main"]
    assert isinstance(main, relay.expr.Function) and isinstance(main, relay.Expr)
    kinds = []
    ops = []

    def visit(node):
        kinds.append(type(node).__name__)
        if isinstance(node, relay.expr.Call) and hasattr(node.op, "name"):
            ops.append(node.op.name)

    relay.analysis.post_order_visit(main, visit)
    # operands first, every distinct node once, the function last
    assert kinds[-1] == "Function"
    assert ops == ["nn.conv2d", "add", "multiply", "add", "add", "add", "add"]
    assert kinds.count("Constant") == 2  # c (shared) and 2f
    call = main.body
    assert isinstance(call, relay.Call) and call.op.name == "add" and len(call.args) == 2
    conv = relay.nn.conv2d(relay.var("x", shape=(1, 3, 8, 8)), relay.var("w", shape=(4, 3, 3, 3)), padding=(1, 1))
    assert conv.attrs["padding"] == (1, 1, 1, 1)  # normalized to 4 values, as Relay does


def test_bind_params_by_name_makes_constants(mod):
    main = mod["main"]
    w = np.ones((64, 64, 3, 3), dtype="float32")
    bound = relay.build_module.bind_params_by_name(main, {"weight": w})
    assert [p.name_hint for p in bound.params] == ["x"]
    consts = []
    relay.analysis.post_order_visit(bound, lambda n: consts.append(n) if isinstance(n, relay.Constant) else None)
    assert any(c.shape == (64, 64, 3, 3) and c.has_data for c in consts)
    with pytest.raises(TypeError, match="params"):
        relay.build_module.bind_params_by_name(main, [w])


def test_fold_scale_axis_is_relays_sequential_and_folds_a_scale_into_conv2d():
    p = relay.transform.FoldScaleAxis()
    assert (p.info.name, p.info.opt_level) == ("FoldScaleAxis", 0)
    x = relay.var("x", shape=(1, 4, 8, 8))
    w = relay.const(np.ones((4, 4, 3, 3), dtype="float32"))
    scale = relay.const(np.full((4, 1, 1), 2.0, dtype="float32"))
    body = relay.multiply(relay.nn.conv2d(x, w, padding=(1, 1)), scale)
    m = relay.transform.InferType()(relay.IRModule.from_expr(relay.Function([x], body)))
    ops = lambda mod: re.findall(r"\b(nn\.conv2d|multiply)\(", str(mod))  # noqa: E731
    assert ops(m) == ["nn.conv2d", "multiply"]
    with transform.PassContext(opt_level=2):  # Backward/ForwardFoldScaleAxis are opt_level 3
        assert ops(p(m)) == ["nn.conv2d", "multiply"]
    with transform.PassContext(opt_level=3):
        folded = p(m)
    assert ops(folded) == ["nn.conv2d"]  # the scale is in the weight now


def test_expr_mutator_rewrites_constants_memoized(mod):
    three = relay.const(3, "float32")

    class ReplaceConstant(relay.ExprMutator):
        def __init__(self):
            super().__init__()
            self.seen = 0

        def visit_constant(self, c):
            self.seen += 1
            return relay.multiply(three, c)

    mutator = ReplaceConstant()
    out = mutator.visit(mod["main"])
    assert mutator.seen == 2  # c is shared: visited once; and 2f
    assert isinstance(out, relay.Function) and not out.same_as(mod["main"])
    text = str(out)
    assert text.count("multiply(3f, meta[Constant][0])") == 1 and "multiply(3f, 2f)" in text

    class Nothing(relay.ExprMutator):
        pass

    assert Nothing().visit(mod["main"]).same_as(mod["main"])  # unchanged: the same node


def test_expr_visitor_counts_calls(mod):
    class Count(relay.ExprVisitor):
        def __init__(self):
            super().__init__()
            self.ops = []

        def visit_call(self, call):
            self.ops.append(call.op.name)
            super().visit_call(call)

    v = Count()
    v.visit(mod["main"])
    assert sorted(v.ops) == sorted(["nn.conv2d", "add", "multiply", "add", "add", "add", "add"])


def test_let_tuple_and_get_item_round_trip():
    x = relay.var("x", shape=(2,))
    t = relay.Tuple([x, x])
    item = relay.TupleGetItem(t, 1)
    v = relay.var("v")
    let = relay.Let(v, item, relay.add(v, x))
    fn = relay.Function([x], let)
    assert isinstance(fn.body, relay.Let) and fn.body.value.index == 1
    assert len(fn.body.value.tuple_value.fields) == 2
    typed = relay.transform.InferType()(relay.IRModule.from_expr(fn))
    assert "ty=" in str(typed)  # the text shows inferred types, as Relay's


def test_from_expr_of_a_non_function_takes_the_free_vars_as_params():
    x, y = relay.var("x", shape=(3,)), relay.var("y", shape=(3,))
    e = (x + y) * (x - y) / x
    mod = relay.IRModule.from_expr(e)
    assert [p.name_hint for p in mod["main"].params] == ["x", "y"]
    assert [v.name_hint for v in relay.analysis.free_vars(e)] == ["x", "y"]
    assert [c.op.name for c in [e, e.args[0], e.args[0].args[1]]] == ["divide", "multiply", "subtract"]
    with pytest.raises(TypeError, match="with `const` first"):
        x + 1


def test_annotate_spans_and_show(capsys):
    x = relay.var("x", shape=(3, 4), dtype="float32")
    mod = relay.IRModule.from_expr(relay.Function([x], relay.clip(x, -np.inf, np.inf)))
    mod = relay.transform.AnnotateSpans()(mod)
    mod.show()
    assert "span=GeneratedSource:2:3" in capsys.readouterr().out


def test_override_instruments_none_clears(mod):
    cur = transform.PassContext.current()
    timing = passinfra.instrument.PassTimingInstrument()
    cur.override_instruments([timing])
    assert cur.instruments == [timing]
    cur.override_instruments(None)
    assert cur.instruments == []


def test_batch_norm_is_a_tuple_wrapper_and_a_small_net_type_checks():
    data = relay.var("data", relay.TensorType((1, 3, 8, 8), "float32"))
    weight = relay.var("weight", shape=(4, 3, 3, 3))
    gamma, beta, mean, var = [relay.var(n, shape=(4,)) for n in ("g", "b", "m", "v")]
    net = relay.nn.conv2d(data, weight, kernel_size=(3, 3), channels=4, padding=(1, 1))
    bn = relay.nn.batch_norm(net, gamma, beta, mean, var)
    assert len(bn) == 3 and isinstance(bn[0], relay.TupleGetItem) and bn[0].index == 0
    net = relay.nn.relu(bn[0])
    net = relay.nn.max_pool2d(net, pool_size=(2, 2), strides=(2, 2))
    net = relay.nn.global_avg_pool2d(net)
    fn = relay.Function(relay.analysis.free_vars(net), net)
    mod = relay.transform.InferType()(relay.IRModule.from_expr(fn))
    assert "ty=Tensor[(1, 4, 1, 1), float32]" in str(mod)
    with pytest.raises(IndexError):
        bn[3]
