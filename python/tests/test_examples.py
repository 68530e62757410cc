"""examples/python/*.py: the TVM tutorials' Python with the renames only, run
against the package; their output compared with examples/python/golden/ (timing
figures masked) and, where it must be the tutorial's, with the tutorial's text."""
import os
import re
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")


def mask(text):
    text = re.sub(r"\d+us", "<t>us", text)
    return re.sub(r"\d+\.\d+%", "<p>%", text)


def run_example(name):
    result = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, name + ".py")],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr


def golden(name, stream):
    path = os.path.join(EXAMPLES, "golden", name + "." + stream)
    with open(path) as f:
        return f.read()


# The tutorial's "Exception Handling" output, its hook lines exactly (the
# "Catching" lines print str(ex) of the very exception raised, so without the
# "ValueError: " TVM's wrapped error adds).
TUTORIAL_EXCEPTION_LINES = """\
PassFine_0 enter_pass_ctx
PassBadEnterCtx bad enter_pass_ctx!!!
PassFine_0 exit_pass_ctx
Catching PassBadEnterCtx bad enter_pass_ctx
PassFine_0 enter_pass_ctx
PassBadExitCtx enter_pass_ctx
PassFine_1 enter_pass_ctx
PassFine_0 should_run
PassBadExitCtx should_run
PassFine_1 should_run
PassFine_0 run_before_pass
PassBadExitCtx run_before_pass
PassFine_1 run_before_pass
PassFine_0 run_after_pass
PassBadExitCtx run_after_pass
PassFine_1 run_after_pass
PassFine_0 exit_pass_ctx
PassBadExitCtx bad exit_pass_ctx!!!
Catching PassBadExitCtx bad exit_pass_ctx
PassFine_0 enter_pass_ctx
PassBadRunBefore enter_pass_ctx
PassFine_1 enter_pass_ctx
PassFine_0 should_run
PassBadRunBefore should_run
PassFine_1 should_run
PassFine_0 run_before_pass
PassBadRunBefore bad run_before_pass!!!
PassFine_0 exit_pass_ctx
PassBadRunBefore exit_pass_ctx
PassFine_1 exit_pass_ctx
Catching PassBadRunBefore bad run_before_pass
PassFine_0 exit_pass_ctx
PassBadRunBefore exit_pass_ctx
PassFine_1 exit_pass_ctx
PassFine_0 enter_pass_ctx
PassBadRunBefore enter_pass_ctx
PassFine_1 enter_pass_ctx
PassFine_0 should_run
PassBadRunBefore should_run
PassFine_1 should_run
PassFine_0 run_before_pass
PassBadRunBefore bad run_before_pass!!!
Catching PassBadRunBefore bad run_before_pass
PassFine_0 exit_pass_ctx
PassBadRunBefore exit_pass_ctx
PassFine_1 exit_pass_ctx
"""

TIMING_LINE = re.compile(r"^\t*[A-Za-z]+: \d+us \[\d+us\] \(\d+\.\d\d%; \d+\.\d\d%\)$")


@pytest.fixture(scope="module")
def use_pass_instrument():
    return run_example("use_pass_instrument")


def test_use_pass_instrument_matches_its_golden(use_pass_instrument):
    out, err = use_pass_instrument
    assert mask(out) == golden("use_pass_instrument", "stdout")
    assert err == golden("use_pass_instrument", "stderr")


def test_use_pass_instrument_exception_section_is_the_tutorials(use_pass_instrument):
    out, _ = use_pass_instrument
    assert out.endswith(TUTORIAL_EXCEPTION_LINES)


# The tutorial's op-diff list (pprint of get_pass_to_op_diff()), exactly: ConvertLayout
# expands the classifier's rank-1 bias before its layout_transform and FoldConstant folds it.
TUTORIAL_OP_DIFF = """\
[(1, 'CanonicalizeOps', {'add': 1, 'nn.bias_add': -1}),
 (1, 'ConvertLayout', {'expand_dims': 1, 'layout_transform': 23}),
 (1, 'FoldConstant', {'expand_dims': -1, 'layout_transform': -21}),
 (0, 'sequential', {'add': 1, 'layout_transform': 2, 'nn.bias_add': -1})]
"""


def test_use_pass_instrument_op_diff_is_the_tutorials(use_pass_instrument):
    out, _ = use_pass_instrument
    assert TUTORIAL_OP_DIFF in out


def test_use_pass_instrument_timing_has_the_tutorials_shape(use_pass_instrument):
    out, _ = use_pass_instrument
    blocks = out.split("Printing results of timing profile...\n")[1:]
    assert len(blocks) == 2
    for block in blocks:
        lines = block.split("\n")[:4]
        assert all(TIMING_LINE.match(line) for line in lines), lines
        assert [line.split(":")[0] for line in lines] == ["InferType", "FoldScaleAxis", "\tFoldConstant", "\t\tInferType"]


def test_use_pass_instrument_log_lines_are_spec_5s(use_pass_instrument):
    _, err = use_pass_instrument
    assert err.splitlines() == [
        "[passinfra] INFO: Pass instrumentation entering pass context failed.",
        "[passinfra] INFO: Disable pass instrumentation.",
        "[passinfra] INFO: PassFine exiting PassContext ...",
        "[passinfra] INFO: PassFine exited PassContext.",
        "[passinfra] INFO: Pass instrumentation exiting pass context failed.",
    ]


def mask_data(text):
    # np.empty in the tutorial's example(): the constants' values are whatever memory held
    return re.sub(r"^(Constant\[\d+\]: [^=]*= ).*$", r"\1<data>", text, flags=re.M)


# The passes the tutorial's PrintIR instrument sees, in its order.
TUTORIAL_RUNNING_PASSES = [
    ("sequential", 0), ("FoldConstant", 2), ("InferType", 0), ("PrintIR", 0), ("InferType", 0),
    ("EliminateCommonSubexpr", 3), ("InferType", 0), ("InferType", 0), ("FuseOps", 0), ("InferType", 0),
]


@pytest.fixture(scope="module")
def use_pass_infra():
    return run_example("use_pass_infra")


def test_use_pass_infra_matches_its_golden(use_pass_infra):
    out, err = use_pass_infra
    assert mask_data(out) == golden("use_pass_infra", "stdout")
    assert mask_data(err) == golden("use_pass_infra", "stderr")


def test_use_pass_infra_runs_the_tutorials_passes(use_pass_infra):
    out, _ = use_pass_infra
    running = re.findall(r"^Running pass: \{\} The meta data of the pass - pass name: (\w+), opt_level: (\d+)", out, re.M)
    assert [(name, int(level)) for name, level in running] == TUTORIAL_RUNNING_PASSES
    assert out.rstrip().endswith("done")


@pytest.fixture(scope="module")
def annotate_spans():
    return run_example("annotate_spans")


def test_annotate_spans_matches_its_golden(annotate_spans):
    out, err = annotate_spans
    assert mask(out) == golden("annotate_spans", "stdout")
    assert err == golden("annotate_spans", "stderr")


def test_annotate_spans_gives_the_clip_call_a_span_into_generated_source(annotate_spans):
    out, _ = annotate_spans
    assert "clip(%x, a_min=-inff, a_max=inff)" in out
    assert "span=GeneratedSource:2:3" in out
