"""passinfra.tinyir.testing.resnet: ResNet as relay.testing.resnet builds it.

get_workload(num_layers=18, batch_size=1, image_shape=(3, 224, 224), dtype="float32")
    -> (mod, params). tinyir builds ResNet-18, batch 1, 3x224x224, float32 (NCHW) only;
    other arguments raise ValueError. `params` maps each weight's name (every parameter
    of @main but %data) to a numpy array of zeros of its shape: tinyir's workload has no
    trained or random weights (the C++ example binds zeros too). Needs numpy.
"""
from .. import _t


def get_workload(num_layers=18, batch_size=1, image_shape=(3, 224, 224), dtype="float32", **kwargs):
    if num_layers != 18 or batch_size != 1 or tuple(image_shape) != (3, 224, 224) or dtype != "float32" or kwargs:
        raise ValueError(
            "get_workload: tinyir builds ResNet-18 with batch_size=1, image_shape=(3, 224, 224), "
            "dtype='float32' only"
        )
    import numpy as np

    mod = _t.resnet18(False)
    params = {}
    for p in mod["main"].params:
        if p.name_hint != "data":
            params[p.name_hint] = np.zeros(p.shape, dtype=p.dtype)
    return mod, params
