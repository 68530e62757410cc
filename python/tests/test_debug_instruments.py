"""passinfra.instrument.PassBisect and CrashReproducer: the library's debugging
instruments (include/passinfra/instruments/pass_bisect.hpp, crash_reproducer.hpp)
from Python, with Python passes and instruments in the same pipeline."""
import os
import re

import pytest

import passinfra
from passinfra import instrument, tinyir, transform
from passinfra.instrument import pass_instrument


def recording_passes(names, ran):
    """Python module passes named `names` (opt_level 0) that append their name to `ran`."""

    def make(name):
        @transform.module_pass(opt_level=0, name=name)
        def body(mod, ctx):
            ran.append(name)
            return mod

        return body

    return [make(name) for name in names]


def same_ir(text, mod):
    """`text` (a report, or its IR) parses to `mod`: both printed typed, without the
    spans the parser gives every node."""

    def canonical(m):
        return re.sub(r" /\* span=[^*]*\*/", "", str(tinyir.transform.InferType()(m)))

    return canonical(tinyir.parse(text)) == canonical(mod)


def bisect_lines(log_lines):
    return [line for line in log_lines if "BISECT" in line]


# ---------------------------------------------------------------- PassBisect


def test_bisect_without_limit_numbers_every_pass_and_runs_it(mod, log_lines):
    ran = []
    bisect = instrument.PassBisect()
    assert bisect.limit is None and bisect.count == 0 and bisect.log_level == "INFO"
    assert instrument.hooks(bisect) == ["should_run"]
    with transform.PassContext(instruments=[bisect]):
        transform.Sequential(recording_passes(["P1", "P2", "P3"], ran))(mod)
    assert ran == ["P1", "P2", "P3"]
    assert bisect.count == 4
    assert bisect_lines(log_lines) == [
        "INFO BISECT: running pass (1) sequential",
        "INFO BISECT: running pass (2) P1",
        "INFO BISECT: running pass (3) P2",
        "INFO BISECT: running pass (4) P3",
    ]


def test_bisect_limit_skips_the_later_passes(mod, log_lines):
    ran = []
    bisect = instrument.PassBisect(limit=3)
    assert bisect.limit == 3
    with transform.PassContext(instruments=[bisect]):
        transform.Sequential(recording_passes(["P1", "P2", "P3", "P4"], ran))(mod)
    assert ran == ["P1", "P2"]
    assert bisect.count == 5
    assert bisect_lines(log_lines) == [
        "INFO BISECT: running pass (1) sequential",
        "INFO BISECT: running pass (2) P1",
        "INFO BISECT: running pass (3) P2",
        "INFO BISECT: NOT running pass (4) P3",
        "INFO BISECT: NOT running pass (5) P4",
    ]


def test_bisect_limit_zero_skips_the_sequential_whose_children_get_no_number(mod, log_lines):
    ran = []
    bisect = instrument.PassBisect(limit=0)
    with transform.PassContext(instruments=[bisect]):
        transform.Sequential(recording_passes(["P1", "P2"], ran))(mod)
    assert ran == [] and bisect.count == 1
    assert bisect_lines(log_lines) == ["INFO BISECT: NOT running pass (1) sequential"]


def test_bisect_minus_one_is_no_limit_as_llvm_and_limit_is_settable(mod, log_lines):
    ran = []
    bisect = instrument.PassBisect(limit=-1)
    assert bisect.limit is None
    seq = transform.Sequential(recording_passes(["P1", "P2"], ran))
    with transform.PassContext(instruments=[bisect]):
        seq(mod)
        assert ran == ["P1", "P2"] and bisect.count == 3
        # The count goes on across runs until reset().
        bisect.limit = 4
        seq(mod)
        assert ran == ["P1", "P2"] and bisect.count == 6  # numbers 4 (sequential) ran, 5 and 6 did not
        bisect.reset()
        assert bisect.count == 0
        seq(mod)
        assert ran == ["P1", "P2", "P1", "P2"]
        bisect.limit = None
        assert bisect.limit is None


def test_bisect_never_asks_about_the_contexts_required_passes(mod, log_lines):
    ran = []
    bisect = instrument.PassBisect(limit=1)
    with transform.PassContext(instruments=[bisect], required_pass=["P2"]):
        transform.Sequential(recording_passes(["P1", "P2", "P3"], ran))(mod)
    assert ran == ["P2"]  # mandatory: runs, and takes no number
    assert bisect_lines(log_lines) == [
        "INFO BISECT: running pass (1) sequential",
        "INFO BISECT: NOT running pass (2) P1",
        "INFO BISECT: NOT running pass (3) P3",
    ]


def test_bisect_finds_the_pass_that_breaks_a_pipeline(mod, log_lines):
    """The use it is for: a binary search over `limit` finds the culprit's number,
    and the BISECT line with that number names it."""
    names = ["A", "B", "C", "Breaks", "D", "E"]

    def make(name):
        @transform.module_pass(opt_level=0, name=name)
        def body(m, ctx):
            if name == "Breaks":
                m["broken"] = m["main"]
            return m

        return body

    seq = transform.Sequential([make(n) for n in names])

    def bad(limit):
        bisect = instrument.PassBisect(limit=limit)
        with transform.PassContext(instruments=[bisect]):
            out = seq(mod)
        return "broken" in out, bisect.count

    broken, total = bad(None)
    assert broken and total == len(names) + 1
    lo, hi = 0, total  # bad(hi) is bad, bad(lo) is good
    assert not bad(lo)[0]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if bad(mid)[0]:
            hi = mid
        else:
            lo = mid
    del log_lines[:]
    bad(hi)
    assert "INFO BISECT: running pass ({}) Breaks".format(hi) in log_lines


def test_bisect_log_level_and_mixing_with_python_instruments(mod, log_lines):
    seen = []

    @pass_instrument
    class Before:
        def run_before_pass(self, m, info):
            seen.append(info.name)

    bisect = instrument.PassBisect(limit=2, log_level="DEBUG")
    with transform.PassContext(instruments=[Before(), bisect]):
        transform.Sequential(recording_passes(["P1", "P2"], []))(mod)
    assert seen == ["sequential", "P1"]  # should_run of the list said no to P2
    assert bisect_lines(log_lines) == [
        "DEBUG BISECT: running pass (1) sequential",
        "DEBUG BISECT: running pass (2) P1",
        "DEBUG BISECT: NOT running pass (3) P2",
    ]


def test_bisect_bad_arguments():
    with pytest.raises(ValueError, match=r"PassBisect: limit expected None, -1 \(no limit\) or a count >= 0; got -2"):
        instrument.PassBisect(limit=-2)
    with pytest.raises(ValueError, match=r"PassBisect: log_level expected one of .*'INFO'.*; got 'LOUD'"):
        instrument.PassBisect(log_level="LOUD")
    with pytest.raises(TypeError, match=r"limit"):
        instrument.PassBisect(limit="3")
    bisect = instrument.PassBisect()
    with pytest.raises(ValueError, match=r"got -5"):
        bisect.limit = -5
    assert bisect.limit is None


# ----------------------------------------------------------- CrashReproducer


def test_crash_reproducer_writes_a_report_for_a_failing_python_pass(mod, tmp_path, log_lines):
    path = tmp_path / "repro.tir"
    reproducer = instrument.CrashReproducer(str(path))
    assert reproducer.reports() == 0 and reproducer.last_report() is None
    assert reproducer.path == path and reproducer.pipeline == "" and reproducer.comment_prefix == "// "
    raised = ValueError("constant folding went wrong")

    @transform.module_pass(opt_level=0, name="Fails")
    def fails(m, ctx):
        raise raised

    folded = transform.Sequential([tinyir.transform.FoldConstant()])(mod)
    with pytest.raises(ValueError) as e:
        with transform.PassContext(instruments=[reproducer]):
            transform.Sequential([tinyir.transform.FoldConstant(), fails])(mod)
    assert e.value is raised  # the same Python object, not wrapped
    assert "fails" in [entry.name for entry in e.traceback]  # with the pass body's frame

    assert reproducer.reports() == 1
    text = path.read_text()
    lines = text.splitlines()
    assert lines[0] == "// passinfra crash reproducer"
    assert lines[1] == "// pass: Fails"  # the innermost failing pass, not the sequential
    assert lines[2] == "// error: ValueError: constant folding went wrong"  # Python's text, without the stack
    assert lines[3] != "// error: "
    report = reproducer.last_report()
    assert report == instrument.parse_crash_report(text)
    assert (report.pass_name, report.error) == ("Fails", "ValueError: constant folding went wrong")
    assert report.pipeline == ""
    # The IR is Fails' input (FoldConstant's output), and the whole file parses as tinyir.
    assert same_ir(text, folded) and not same_ir(text, mod)
    assert instrument.format_crash_report(report) == text
    assert "WARNING CrashReproducer: pass 'Fails' failed; reproducer written to {}".format(path) in log_lines


def test_crash_reproducer_options_pipeline_and_prefix(mod, tmp_path):
    path = tmp_path / "repro.txt"
    reproducer = instrument.CrashReproducer(path, pipeline="FoldConstant,Fails", comment_prefix="# ")
    assert reproducer.pipeline == "FoldConstant,Fails" and reproducer.comment_prefix == "# "

    @transform.module_pass(opt_level=0, name="Fails")
    def fails(m, ctx):
        raise KeyError("k")

    with pytest.raises(KeyError):
        with transform.PassContext(instruments=[reproducer]):
            fails(mod)
    text = path.read_text()
    assert text.startswith("# passinfra crash reproducer\n# pass: Fails\n# error: KeyError: 'k'\n")
    assert "# pipeline: FoldConstant,Fails\n" in text
    report = instrument.parse_crash_report(text, comment_prefix="# ")
    assert report == reproducer.last_report()
    assert report.pipeline == "FoldConstant,Fails" and same_ir(report.ir, mod)


def test_crash_reproducer_writes_nothing_when_every_pass_succeeds(mod, tmp_path):
    path = tmp_path / "repro.tir"
    reproducer = instrument.CrashReproducer(path)
    with transform.PassContext(instruments=[reproducer]):
        transform.Sequential([tinyir.transform.FoldConstant()])(mod)
    assert reproducer.reports() == 0 and reproducer.last_report() is None
    assert not path.exists()
    assert instrument.hooks(reproducer) == [
        "exit_pass_ctx",
        "run_before_pass",
        "run_after_pass",
        "run_after_pass_failed",
    ]


def test_crash_reproducer_reports_a_failing_python_hook(mod, tmp_path):
    """A hook after the reproducer's run_before_pass fails: reported for that pass;
    a failing run_after_pass (the pass is done): for the enclosing pass, whose
    input reproduces it (crash_reproducer.hpp)."""
    raised = RuntimeError("hook failed")

    def failing_on_fold_constant(hook):
        def body(self, m, info):
            if info.name == "FoldConstant":
                raise raised

        return pass_instrument(type("Fails_" + hook, (), {hook: body}))()

    for hook, reported in [("run_before_pass", "FoldConstant"), ("run_after_pass", "sequential")]:
        path = tmp_path / (hook + ".tir")
        reproducer = instrument.CrashReproducer(path)
        with pytest.raises(RuntimeError) as e:
            with transform.PassContext(instruments=[reproducer, failing_on_fold_constant(hook)]):
                transform.Sequential([tinyir.transform.FoldConstant(), tinyir.transform.InferType()])(mod)
        assert e.value is raised and not isinstance(e.value, passinfra.PassError)
        report = reproducer.last_report()
        assert reproducer.reports() == 1, hook
        assert (report.pass_name, report.error) == (reported, "RuntimeError: hook failed"), hook
        assert same_ir(path.read_text(), mod), hook  # both passes' input is `mod`


def test_crash_reproducer_one_report_per_failure_and_replaced_file(mod, tmp_path):
    path = tmp_path / "repro.tir"
    reproducer = instrument.CrashReproducer(path)

    def failing(name):
        @transform.module_pass(opt_level=0, name=name)
        def body(m, ctx):
            raise ValueError(name + " failed")

        return body

    with transform.PassContext(instruments=[reproducer]):
        for name in ["First", "Second"]:
            with pytest.raises(ValueError, match=name + " failed"):
                transform.Sequential([failing(name)])(mod)
    assert reproducer.reports() == 2
    assert reproducer.last_report().pass_name == "Second"
    assert path.read_text().splitlines()[1] == "// pass: Second"  # replaced, not appended


def test_crash_reproducer_unwritable_path_logs_and_keeps_the_exception(mod, tmp_path, log_lines):
    path = tmp_path / "no such directory" / "repro.tir"
    reproducer = instrument.CrashReproducer(path)
    raised = ValueError("body failed")

    @transform.module_pass(opt_level=0, name="Fails")
    def fails(m, ctx):
        raise raised

    with pytest.raises(ValueError) as e:
        with transform.PassContext(instruments=[reproducer]):
            fails(mod)
    assert e.value is raised
    assert not os.path.exists(path)
    assert "WARNING CrashReproducer: could not write the report for pass 'Fails' to {}".format(path) in log_lines


def test_crash_reproducer_bad_arguments(tmp_path):
    with pytest.raises(passinfra.PassError, match=r"comment_prefix is empty; expected the IR's line-comment marker"):
        instrument.CrashReproducer(tmp_path / "r", comment_prefix="")
    with pytest.raises(TypeError, match=r"path"):
        instrument.CrashReproducer(42)
    with pytest.raises(passinfra.PassError, match=r"does not start with '// passinfra crash reproducer'"):
        instrument.parse_crash_report("fn main() {}")


def test_crash_reproducer_reports_a_failing_cpp_pass_with_its_message(tmp_path):
    x = tinyir.var("x", shape=(1, 2))
    y = tinyir.var("y", shape=(3, 4))
    ill_typed = tinyir.IRModule.from_expr(tinyir.Function([x, y], tinyir.add(x, y)))
    path = tmp_path / "repro.tir"
    reproducer = instrument.CrashReproducer(path, pipeline="InferType")
    with pytest.raises(passinfra.PassError) as e:
        with transform.PassContext(instruments=[reproducer]):
            transform.Sequential([tinyir.transform.InferType()])(ill_typed)
    report = reproducer.last_report()
    assert reproducer.reports() == 1 and report.pass_name == "InferType"
    assert report.error == str(e.value) and "expected shapes that broadcast" in report.error
    assert report.pipeline == "InferType"
    # The reproducer reproduces: its IR, parsed back, fails the same way.
    with pytest.raises(passinfra.PassError, match="expected shapes that broadcast"):
        tinyir.transform.InferType()(tinyir.parse(path.read_text()))
