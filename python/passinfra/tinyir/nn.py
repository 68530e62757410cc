"""passinfra.tinyir.nn: the nn.* operators, Relay's spellings (an attribute left
None is not given, so the operator's default holds)."""
from . import _call


def conv2d(data, weight, strides=None, padding=None, dilation=None, groups=None, channels=None, kernel_size=None,
           data_layout=None, kernel_layout=None, out_layout=None, out_dtype=None):
    def ints(v):
        return None if v is None else list(v)

    return _call("nn.conv2d", [data, weight], strides=ints(strides), padding=ints(padding), dilation=ints(dilation),
                 groups=groups, channels=channels, kernel_size=ints(kernel_size), data_layout=data_layout,
                 kernel_layout=kernel_layout, out_layout=out_layout, out_dtype=out_dtype)


def relu(data):
    return _call("nn.relu", [data])


def bias_add(data, bias, axis=1):
    return _call("nn.bias_add", [data, bias], axis=axis)


def softmax(data, axis=-1):
    return _call("nn.softmax", [data], axis=axis)


def batch_flatten(data):
    return _call("nn.batch_flatten", [data])


def dense(data, weight, units=None, out_dtype=None):
    return _call("nn.dense", [data, weight], units=units, out_dtype=out_dtype)
