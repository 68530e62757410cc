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


class TupleWrapper:
    """A call whose result is a tuple (Relay's TupleWrapper): t[i] is its field i,
    astuple() the call itself."""

    def __init__(self, tuple_value, size):
        self.tuple_value = tuple_value
        self.size = size

    def astuple(self):
        return self.tuple_value

    def __getitem__(self, index):
        from . import TupleGetItem

        if not isinstance(index, int) or not -self.size <= index < self.size:
            raise IndexError("TupleWrapper index out of range")
        return TupleGetItem(self.tuple_value, index % self.size)

    def __len__(self):
        return self.size


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=None, epsilon=None, center=None, scale=None):
    """nn.batch_norm: a 3-tuple (normalized data, mean, variance), as Relay's TupleWrapper."""
    call = _call("nn.batch_norm", [data, gamma, beta, moving_mean, moving_var], axis=axis, epsilon=epsilon,
                 center=None if center is None else int(bool(center)), scale=None if scale is None else int(bool(scale)))
    return TupleWrapper(call, 3)


def max_pool2d(data, pool_size=None, strides=None, dilation=None, padding=None, layout=None, ceil_mode=None):
    def ints(v):
        return None if v is None else list(v)

    return _call("nn.max_pool2d", [data], pool_size=ints(pool_size), strides=ints(strides), dilation=ints(dilation),
                 padding=ints(padding), layout=layout, ceil_mode=None if ceil_mode is None else int(bool(ceil_mode)))


def global_avg_pool2d(data, layout=None):
    return _call("nn.global_avg_pool2d", [data], layout=layout)
