"""passinfra.transform: PassContext, PassInfo, Sequential, module_pass / function_pass."""
import threading
import time

import pytest

import passinfra
from passinfra import instrument, tinyir, transform


@instrument.pass_instrument
class Recorder:
    """Records every pass that runs (name, opt_level) via run_before_pass."""

    def __init__(self):
        self.ran = []

    def run_before_pass(self, mod, info):
        self.ran.append(info.name)


def test_pass_info_prints_as_spec_1():
    info = transform.PassInfo("FuseOps", 0, ["InferType"])
    assert (info.name, info.opt_level, info.required) == ("FuseOps", 0, ["InferType"])
    assert str(info) == "The meta data of the pass - pass name: FuseOps, opt_level: 0, required passes: [\nInferType, ]\n"
    assert str(transform.PassInfo("P", 2)) == "The meta data of the pass - pass name: P, opt_level: 2, required passes: []\n"
    assert str(tinyir.transform.FuseOps().info) == str(info)


def test_context_is_a_context_manager_and_current_is_per_thread():
    default = transform.PassContext.current()
    assert default.opt_level == 2
    assert transform.PassContext.current() is default
    ctx = transform.PassContext(opt_level=3, required_pass=["A"], disabled_pass=["B"])
    with ctx as entered:
        assert entered is ctx
        assert transform.PassContext.current() is ctx
        inner = transform.PassContext(opt_level=0)
        with inner:
            assert transform.PassContext.current() is inner
        assert transform.PassContext.current() is ctx
        seen = []
        t = threading.Thread(target=lambda: seen.append(transform.PassContext.current().opt_level))
        t.start()
        t.join()
        assert seen == [2]  # the other thread's default context, not ctx
    assert transform.PassContext.current() is default
    assert (ctx.opt_level, ctx.required_pass, ctx.disabled_pass) == (3, ["A"], ["B"])


def test_config_round_trips_and_unknown_keys_get_did_you_mean():
    ctx = transform.PassContext(config={"relay.FuseOps.max_depth": 4})
    assert ctx.config == {"relay.FuseOps.max_depth": 4}
    with pytest.raises(passinfra.PassError) as e:
        transform.PassContext(config={"relay.FuseOps.max_dept": 4})
    assert "relay.FuseOps.max_depth" in str(e.value)  # the closest registered key
    assert isinstance(e.value, RuntimeError)


def test_bad_argument_types_are_type_errors():
    with pytest.raises(TypeError):
        transform.PassContext(opt_level="3")
    with pytest.raises(TypeError, match="config"):
        transform.PassContext(config=[1])
    with pytest.raises(TypeError, match="opt_level"):
        transform.module_pass(lambda m, c: m, opt_level="1")
    with pytest.raises(TypeError, match=r"passes\[1\]"):
        transform.Sequential([tinyir.transform.InferType(), 3])


def test_negative_opt_level_is_a_pass_error():
    with pytest.raises(passinfra.PassError, match="opt_level"):
        transform.PassContext(opt_level=-1)


def test_module_pass_decorator_forms(mod):
    calls = []

    @transform.module_pass(opt_level=1)
    def plain(m, ctx):
        calls.append(("plain", ctx.opt_level))
        return m

    def named(m, ctx):
        calls.append("named")
        return m

    p2 = transform.module_pass(named, opt_level=2, name="Renamed")
    assert isinstance(plain, transform.ModulePass)
    assert (plain.info.name, plain.info.opt_level) == ("plain", 1)
    assert (p2.info.name, p2.info.opt_level) == ("Renamed", 2)
    out = plain(mod)
    assert isinstance(out, tinyir.IRModule)
    p2(mod)
    with transform.PassContext(opt_level=1):
        p2(mod)  # SPEC §3: a pass run directly is not gated by opt_level
    assert calls == [("plain", 2), "named", "named"]


def test_module_pass_on_a_class_keeps_the_instance(mod):
    @transform.module_pass(opt_level=0, name="Counting")
    class CountingPass:
        def __init__(self, step):
            self.step = step
            self.count = 0

        def transform_module(self, m, ctx):
            self.count += self.step
            return m

    p = CountingPass(5)
    assert isinstance(p, transform.Pass)
    assert p.info.name == "Counting"
    p(mod)
    p(mod)
    assert p.count == 10


def test_function_pass_maps_every_function_then_infer_type(mod):
    seen = []

    @transform.function_pass(opt_level=1)
    class Visit:
        def transform_function(self, func, m, ctx):
            seen.append((func.kind, len(m)))
            return func

    rec = Recorder()
    with transform.PassContext(instruments=[rec]):
        Visit()(mod)
    assert seen == [("Function", 1)]
    assert rec.ran == ["Visit", "InferType"]  # Relay's trailing InferType, instrumented


def test_function_pass_can_rewrite(mod):
    def drop_body(func, m, ctx):
        # a new function: the parameters, returning the first one
        return tinyir.Function(func.params, func.params[0])

    p = transform.function_pass(drop_body, opt_level=0)
    out = p(mod)
    assert "%x" in str(out) and "conv2d" not in str(out)


def test_pass_returning_the_wrong_type_is_a_type_error(mod):
    p = transform.module_pass(lambda m, ctx: 42, opt_level=0, name="Bad")
    with pytest.raises(TypeError, match="'Bad' returned a int"):
        p(mod)


def test_sequential_gates_children_and_runs_required(mod):
    rec = Recorder()
    seq = transform.Sequential(
        [tinyir.transform.FoldConstant(), tinyir.transform.EliminateCommonSubexpr(), tinyir.transform.FuseOps()],
        opt_level=0,
        name="Pipeline",
    )
    assert (seq.info.name, seq.info.opt_level) == ("Pipeline", 0)
    with transform.PassContext(opt_level=2, instruments=[rec]):
        seq(mod)
    # EliminateCommonSubexpr (opt_level 3) is gated out; FuseOps requires InferType
    assert rec.ran[0] == "Pipeline"
    assert "EliminateCommonSubexpr" not in rec.ran
    assert rec.ran[1:] == ["FoldConstant", "InferType", "InferType", "FuseOps", "InferType"]

    rec2 = Recorder()
    with transform.PassContext(opt_level=2, required_pass=["EliminateCommonSubexpr"], instruments=[rec2]):
        seq(mod)
    assert "EliminateCommonSubexpr" in rec2.ran
    rec3 = Recorder()
    with transform.PassContext(opt_level=3, disabled_pass=["FoldConstant"], instruments=[rec3]):
        seq(mod)
    assert "FoldConstant" not in rec3.ran and "EliminateCommonSubexpr" in rec3.ran


def test_sequential_required_names_run_first(mod):
    rec = Recorder()
    seq = transform.Sequential([], name="NeedsTypes", required=["InferType"])
    assert seq.info.required == ["InferType"]
    with transform.PassContext(instruments=[rec]):
        transform.Sequential([seq])(mod)
    assert rec.ran == ["sequential", "InferType", "NeedsTypes"]


def test_the_pipeline_folds_as_in_cpp(mod):
    seq = transform.Sequential(
        [tinyir.transform.FoldConstant(), tinyir.transform.EliminateCommonSubexpr(), tinyir.transform.FuseOps(2)]
    )
    with transform.PassContext(opt_level=3):
        out = seq(mod)
    text = str(out)
    assert "Primitive" in text and "multiply" not in text


def test_parse_pipeline_and_unknown_names(mod):
    p = transform.parse_pipeline("sequential(FoldConstant, FuseOps(fuse_opt_level=2))")
    assert p.info.name == "sequential"
    assert str(p) == "sequential(FoldConstant,FuseOps(fuse_opt_level=2))"  # canonical text
    p(mod)
    with pytest.raises(passinfra.PassError, match="FoldConstant"):
        transform.parse_pipeline("FoldConstnt")
    with pytest.raises(passinfra.PassError, match="fuse_opt_level"):
        transform.parse_pipeline("FuseOps(fuse_opt_levl=1)")
    assert "InferType" in transform.registered_passes()


def test_python_exception_from_a_pass_is_the_same_object(mod):
    raised = KeyError("from the pass")

    def body(m, ctx):
        raise raised

    p = transform.module_pass(body, opt_level=0, name="Raises")
    with pytest.raises(KeyError) as e:
        p(mod)
    assert e.value is raised
    assert "body" in [frame.name for frame in e.traceback]


def test_pass_error_carries_the_cpp_message(mod):
    with pytest.raises(passinfra.PassError) as e:
        tinyir.parse("def @main(%x: Tensor[(2), float32]) { add(%x, ")
    assert isinstance(e.value, RuntimeError)
    assert str(e.value)


def test_pass_under_threads_releases_the_gil(mod):
    # Two threads run a C++ pipeline at once; each sees its own default context.
    results = []

    def work():
        results.append(str(tinyir.transform.FoldConstant()(mod)))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and results[0] == results[1]


def test_python_passes_in_a_sequential_are_gated_and_instrumented(mod):
    rec = Recorder()
    ran = []

    @transform.module_pass(opt_level=3, name="Late")
    def late(m, ctx):
        ran.append("Late")
        return m

    @transform.module_pass(opt_level=1, name="Early", required=["InferType"])
    def early(m, ctx):
        ran.append("Early")
        return m

    seq = transform.Sequential([early, tinyir.transform.FoldConstant(), late])
    with transform.PassContext(opt_level=2, instruments=[rec]):
        seq(mod)
    assert ran == ["Early"]
    assert rec.ran == ["sequential", "InferType", "Early", "FoldConstant", "InferType"]
    with transform.PassContext(opt_level=3):
        seq(mod)
    assert ran == ["Early", "Early", "Late"]


def test_the_gil_is_released_while_a_cpp_pipeline_runs():
    # A C++ pipeline on ResNet-18 (tens of ms) in one thread; this thread keeps
    # running Python meanwhile. Were the GIL held for the whole call, this
    # thread would stall for all of it.
    mod, params = tinyir.testing.resnet.get_workload()
    mod["main"] = tinyir.build_module.bind_params_by_name(mod["main"], params)
    seq = transform.Sequential(
        [
            tinyir.transform.FoldConstant(),
            tinyir.transform.ConvertLayout({"nn.conv2d": ["NHWC", "HWIO"]}),
            tinyir.transform.FoldConstant(),
        ]
    )

    def work():
        with transform.PassContext(opt_level=3):
            seq(mod)

    start = time.perf_counter()
    work()
    alone = time.perf_counter() - start
    t = threading.Thread(target=work)
    last = time.perf_counter()
    longest = 0.0
    t.start()
    while t.is_alive():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    t.join()
    assert alone > 0.02, "the pipeline is too short to tell"
    assert longest < alone / 2, (longest, alone)


def test_the_default_context_of_an_ended_thread_is_refused_not_dangling():
    got = []
    worker = threading.Thread(target=lambda: got.append(transform.PassContext.current()))
    worker.start()
    worker.join()
    with pytest.raises(passinfra.PassError, match="default context of another thread"):
        got[0].opt_level  # noqa: B018 (the access is the test)
    with pytest.raises(passinfra.PassError, match="default context of another thread"):
        got[0].override_instruments([])
    # This thread's own default context works as before.
    assert transform.PassContext.current().opt_level == 2
