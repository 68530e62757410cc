"""passinfra.instrument: Python instruments, their hooks, and SPEC §5's exception
rules with Python hooks (the tutorial's "Exception Handling" section, and the
cases it leaves out: should_run, run_after_pass, the pass body, two failures)."""
import pytest

import passinfra
from passinfra import instrument, tinyir, transform
from passinfra.instrument import pass_instrument

HOOKS = ("enter_pass_ctx", "exit_pass_ctx", "should_run", "run_before_pass", "run_after_pass")


class PassExampleBase:
    """The tutorial's base: every hook prints "<name> <hook>"."""

    def __init__(self, name, out):
        self._name = name
        self._out = out
        self.error = ValueError("{} bad".format(name))

    def enter_pass_ctx(self):
        self._out.append(self._name + " enter_pass_ctx")

    def exit_pass_ctx(self):
        self._out.append(self._name + " exit_pass_ctx")

    def should_run(self, mod, info):
        self._out.append(self._name + " should_run")
        return True

    def run_before_pass(self, mod, pass_info):
        self._out.append(self._name + " run_before_pass")

    def run_after_pass(self, mod, pass_info):
        self._out.append(self._name + " run_after_pass")


def bad(hook):
    """A PassExampleBase subclass whose `hook` prints "<name> bad <hook>!!!" and raises self.error."""

    def failing(self, *args):
        self._out.append("{} bad {}!!!".format(self._name, hook))
        raise self.error

    return pass_instrument(type("PassBad_" + hook, (PassExampleBase,), {hook: failing}))


PassFine = pass_instrument(type("PassFine", (PassExampleBase,), {}))


def trio(hook, out):
    return [PassFine("PassFine_0", out), bad(hook)("PassBad", out), PassFine("PassFine_1", out)]


ENTERS = ["PassFine_0 enter_pass_ctx", "PassBad enter_pass_ctx", "PassFine_1 enter_pass_ctx"]
SHOULD_RUNS = ["PassFine_0 should_run", "PassBad should_run", "PassFine_1 should_run"]
BEFORES = ["PassFine_0 run_before_pass", "PassBad run_before_pass", "PassFine_1 run_before_pass"]
AFTERS = ["PassFine_0 run_after_pass", "PassBad run_after_pass", "PassFine_1 run_after_pass"]
EXITS = ["PassFine_0 exit_pass_ctx", "PassBad exit_pass_ctx", "PassFine_1 exit_pass_ctx"]


def frames(excinfo):
    return [entry.name for entry in excinfo.traceback]


def test_enter_failure_spec_5_1(mod, log_lines):
    out = []
    instruments = trio("enter_pass_ctx", out)
    ctx = transform.PassContext(instruments=instruments)
    with pytest.raises(ValueError) as e:
        with ctx:
            tinyir.transform.InferType()(mod)
    assert e.value is instruments[1].error  # the same object, with the hook's frame
    assert "failing" in frames(e)
    assert out == ["PassFine_0 enter_pass_ctx", "PassBad bad enter_pass_ctx!!!", "PassFine_0 exit_pass_ctx"]
    assert log_lines == [
        "INFO Pass instrumentation entering pass context failed.",
        "INFO Disable pass instrumentation.",
        "INFO PassFine exiting PassContext ...",
        "INFO PassFine exited PassContext.",
    ]
    assert transform.PassContext.current() is not ctx  # never pushed
    assert ctx.instruments == []  # cleared
    out.clear()
    ctx.override_instruments([])
    assert out == []  # nothing left to exit


def test_exit_failure_spec_5_2(mod, log_lines):
    out = []
    instruments = trio("exit_pass_ctx", out)
    ctx = transform.PassContext(instruments=instruments)
    with pytest.raises(ValueError) as e:
        with ctx:
            tinyir.transform.InferType()(mod)
    assert e.value is instruments[1].error
    assert out == ENTERS + SHOULD_RUNS + BEFORES + AFTERS + ["PassFine_0 exit_pass_ctx", "PassBad bad exit_pass_ctx!!!"]
    assert log_lines == ["INFO Pass instrumentation exiting pass context failed."]
    assert ctx.instruments == []
    assert transform.PassContext.current() is not ctx  # popped before the exit hooks


@pytest.mark.parametrize("hook", ["should_run", "run_before_pass", "run_after_pass"])
def test_failure_in_a_pass_hook_inside_a_scope_spec_5_3(mod, log_lines, hook):
    out = []
    instruments = trio(hook, out)
    ctx = transform.PassContext(instruments=instruments)
    with pytest.raises(ValueError) as e:
        with ctx:
            tinyir.transform.InferType()(mod)
    assert e.value is instruments[1].error
    assert "failing" in frames(e)
    upto = {
        "should_run": ["PassFine_0 should_run", "PassBad bad should_run!!!"],
        "run_before_pass": SHOULD_RUNS + ["PassFine_0 run_before_pass", "PassBad bad run_before_pass!!!"],
        "run_after_pass": SHOULD_RUNS + BEFORES + ["PassFine_0 run_after_pass", "PassBad bad run_after_pass!!!"],
    }[hook]
    assert out == ENTERS + upto + EXITS  # all exit hooks run, by the scope
    assert log_lines == []
    # instrumentation stays active: a later override_instruments exits them all again
    out.clear()
    assert len(ctx.instruments) == 3
    ctx.override_instruments([])
    assert out == EXITS


def test_failure_without_a_scope_exits_nothing_tutorial(mod):
    """The tutorial's last case: instruments on the current (default) context."""
    out = []
    cur = transform.PassContext.current()
    cur.override_instruments(trio("run_before_pass", out))
    assert out == ENTERS
    out.clear()
    with pytest.raises(ValueError):
        tinyir.transform.InferType()(mod)
    assert out == SHOULD_RUNS + ["PassFine_0 run_before_pass", "PassBad bad run_before_pass!!!"]
    out.clear()
    cur.override_instruments([])
    assert out == EXITS


def test_exception_in_a_python_pass_body(mod):
    out = []
    raised = KeyError("body")

    @transform.module_pass(opt_level=0, name="Raising")
    def raising(m, ctx):
        out.append("body")
        raise raised

    ctx = transform.PassContext(instruments=[PassFine("PassFine_0", out), PassFine("PassFine_1", out)])
    with pytest.raises(KeyError) as e:
        with ctx:
            raising(mod)
    assert e.value is raised
    assert "raising" in frames(e)
    assert out == [
        "PassFine_0 enter_pass_ctx",
        "PassFine_1 enter_pass_ctx",
        "PassFine_0 should_run",
        "PassFine_1 should_run",
        "PassFine_0 run_before_pass",
        "PassFine_1 run_before_pass",
        "body",
        "PassFine_0 exit_pass_ctx",
        "PassFine_1 exit_pass_ctx",
    ]


def test_exit_failure_while_another_exception_leaves_spec_5_4(mod, log_lines):
    out = []
    instruments = trio("exit_pass_ctx", out)
    raised = KeyError("body")
    with pytest.raises(KeyError) as e:
        with transform.PassContext(instruments=instruments):
            raise raised
    assert e.value is raised  # the exception in flight wins
    assert out == ENTERS + ["PassFine_0 exit_pass_ctx", "PassBad bad exit_pass_ctx!!!"]
    assert log_lines[0] == "INFO Pass instrumentation exiting pass context failed."
    assert log_lines[1].startswith("WARNING exit_pass_ctx of instrument PassBad_exit_pass_ctx threw")
    assert len(log_lines) == 2


def test_hooks_a_class_lacks_are_not_part_of_its_instrument():
    @pass_instrument
    class OnlyBefore:
        def run_before_pass(self, mod, info):
            pass

    @pass_instrument
    class Nothing:
        pass

    assert instrument.hooks(OnlyBefore()) == ["run_before_pass"]
    assert instrument.hooks(PassFine("x", [])) == list(HOOKS)
    assert instrument.hooks(Nothing()) == []
    assert isinstance(OnlyBefore(), instrument.PassInstrument)
    assert OnlyBefore.__name__ == "OnlyBefore"


def test_missing_should_run_means_run_and_false_skips(mod):
    out = []

    @pass_instrument
    class Veto:
        def should_run(self, mod, info):
            return info.name != "FoldConstant"

    @pass_instrument
    class After:
        def run_after_pass(self, mod, info):
            out.append(info.name)

    seq = transform.Sequential([tinyir.transform.FoldConstant(), tinyir.transform.InferType()])
    with transform.PassContext(instruments=[Veto(), After()]):
        seq(mod)
    assert out == ["InferType", "sequential"]


def test_python_and_cpp_instruments_mix_in_order(mod):
    out = []
    timing = instrument.PassTimingInstrument()

    @pass_instrument
    class Names:
        def run_before_pass(self, mod, info):
            out.append(info.name)

    with transform.PassContext(opt_level=3, instruments=[Names(), timing]) as ctx:
        assert ctx.instruments[1] is timing
        transform.Sequential([tinyir.transform.FoldConstant(), tinyir.transform.FuseOps()])(mod)
        profile = timing.render()
    assert out == ["sequential", "FoldConstant", "InferType", "InferType", "FuseOps", "InferType"]
    lines = profile.splitlines()
    assert lines[0].startswith("sequential:")
    assert any(line.strip().startswith("FoldConstant:") for line in lines)
    assert any(line.strip().startswith("FuseOps:") for line in lines)


def test_timing_is_discarded_on_exit_as_tvm(mod, log_lines):
    timing = instrument.PassTimingInstrument()
    with transform.PassContext(instruments=[timing]):
        tinyir.transform.InferType()(mod)
    assert timing.render() == ""
    assert log_lines == ["WARNING no passes have been profiled, did you enable pass profiling?"]


def test_hook_arguments(mod):
    seen = []

    @pass_instrument
    class Args:
        def run_before_pass(self, m, info):
            seen.append((type(m).__name__, info.name, info.opt_level, list(info.required)))

    with transform.PassContext(instruments=[Args()]):
        tinyir.transform.EliminateCommonSubexpr()(mod)
    # run directly: no required pass first (that is Sequential's, SPEC §4); the follow-up InferType after
    assert seen == [("IRModule", "EliminateCommonSubexpr", 3, ["InferType"]), ("IRModule", "InferType", 0, [])]


def test_print_ir_instruments_log_the_named_passes(mod, log_lines):
    before = instrument.PrintIRBefore(passes=["FoldConstant"])
    after = instrument.PrintIRAfter()
    changed = instrument.PrintIRChanged(diff=True)
    with transform.PassContext(instruments=[before, after, changed]):
        transform.Sequential([tinyir.transform.FoldConstant()])(mod)
    assert before.printed == 1 and after.printed == 3  # sequential, FoldConstant, its InferType
    assert changed.printed == 2  # FoldConstant and the sequential around it changed the module; InferType did not
    heads = [line.split("\n")[0] for line in log_lines]
    assert "INFO Before Running Pass: FoldConstant" in heads
    assert "INFO After Running Pass: sequential" in heads
    assert "INFO Diff After Running Pass: FoldConstant" in heads
    assert "INFO Diff After Running Pass: InferType" not in heads
    assert instrument.hooks(after) == ["run_after_pass"]


def test_timing_list_view_and_chrome_trace(mod):
    import json

    timing = instrument.PassTimingInstrument()
    with transform.PassContext(instruments=[timing]):
        transform.Sequential([tinyir.transform.FoldConstant(), tinyir.transform.InferType()])(mod)
        listing = timing.render_list()
        trace = json.loads(timing.to_chrome_trace_json(pid=7))
    assert "FoldConstant" in listing and "InferType" in listing
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    names = [e["name"] for e in events if e.get("ph") == "X"]
    assert names.count("InferType") == 2 and "FoldConstant" in names and "sequential" in names
    assert all(e["pid"] == 7 for e in events if e.get("ph") == "X")


def test_a_non_instrument_is_a_type_error_naming_its_position():
    with pytest.raises(TypeError, match=r"instruments\[1\]: expected a pass instrument.*got a int"):
        transform.PassContext(instruments=[PassFine("a", []), 42])
    with pytest.raises(TypeError, match=r"instruments\[0\]"):
        transform.PassContext.current().override_instruments([object()])

    class DuckTyped:  # not decorated, but it has a hook: accepted, as passinfra's C++ concept
        def run_after_pass(self, mod, info):
            pass

    assert instrument.hooks(DuckTyped()) == ["run_after_pass"]


def test_python_pass_failure_with_a_cpp_instrument_in_the_list(mod):
    timing = instrument.PassTimingInstrument()
    out = []
    raised = RuntimeError("pass failed")

    @transform.module_pass(opt_level=0, name="Fails")
    def fails(m, ctx):
        raise raised

    with pytest.raises(RuntimeError) as e:
        with transform.PassContext(instruments=[PassFine("F", out), timing]):
            try:
                transform.Sequential([tinyir.transform.InferType(), fails])(mod)
            finally:
                profile = timing.render()  # before the exit discards it
    assert e.value is raised and not isinstance(e.value, passinfra.PassError)
    assert out[-1] == "F exit_pass_ctx" and "F run_after_pass" in out  # InferType's, not Fails'
    assert out.count("F run_after_pass") == 1
    names = [line.strip().split(":")[0] for line in profile.splitlines()]
    assert names == ["sequential", "InferType", "Fails"]  # the failed run is closed and kept (SPEC §6)
