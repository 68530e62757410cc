# TVM's AnnotateSpans notebook, the
# parts of its Python code passinfra can run, with only the renames
# tvm -> passinfra, relay -> passinfra.tinyir. Left out: In [1]-[7] (the
# PyTorch ResNet through relay.frontend.from_pytorch: no PyTorch frontend) and
# test_annotate_spans_compatibility (relay.optimize and tvm.testing's targets:
# no code generation). Added at the end: a call of test_pass_timing_instrument,
# which the notebook only defines, and a print of get_test_model()'s module.
import numpy as np
import passinfra
import passinfra.tinyir as relay

x = relay.var("x", shape=(3, 4), dtype="float32")
y = relay.clip(x, -np.inf, np.inf)

f = relay.Function([x], y)
mod = passinfra.IRModule.from_expr(f)

mod = relay.transform.AnnotateSpans()(mod)
mod.show()

import passinfra
import passinfra.tinyir
from passinfra.tinyir import op
from passinfra.ir.instrument import PassTimingInstrument, pass_instrument


def get_test_model():
    x, y, z = [passinfra.tinyir.var(c, shape=(3, 4), dtype="float32") for c in "xyz"]
    e1 = op.add(x, y)
    e2 = op.subtract(x, z)
    e3 = op.multiply(e1, e1 / e2)
    return passinfra.IRModule.from_expr(e3 + e2)


def test_pass_timing_instrument():
    pass_timing = PassTimingInstrument()

    # Override current PassContext's instruments
    passinfra.transform.PassContext.current().override_instruments([pass_timing])

    mod = get_test_model()
    mod = passinfra.tinyir.transform.AnnotateSpans()(mod)
    mod = passinfra.tinyir.transform.ToANormalForm()(mod)
    mod = passinfra.tinyir.transform.InferType()(mod)

    profiles = pass_timing.render()
    assert "AnnotateSpans" in profiles
    assert "ToANormalForm" in profiles
    assert "InferType" in profiles

    # Reset current PassContext's instruments to None
    passinfra.transform.PassContext.current().override_instruments(None)

    mod = get_test_model()
    mod = passinfra.tinyir.transform.AnnotateSpans()(mod)
    mod = passinfra.tinyir.transform.ToANormalForm()(mod)
    mod = passinfra.tinyir.transform.InferType()(mod)

    profiles = pass_timing.render()
    assert profiles == ""


test_pass_timing_instrument()
print(get_test_model())
print("done")
