"""amp_cast / amp_multicast: casts between floating-point types only, gradients back to each
input's dtype."""
import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError


@pytest.mark.parametrize("src,dst,want", [("float32", "float16", "float16"),
                                          ("float16", "float32", "float32"),
                                          ("float64", "float16", "float16"),
                                          ("int32", "float16", "int32"),
                                          ("float32", "int32", "float32")])
def test_amp_cast_only_between_floats(src, dst, want):
    x = mx.nd.array([1.5, -2.25, 3.0], dtype=src)
    y = mx.nd.amp_cast(x, dtype=dst)
    assert y.dtype == np.dtype(want)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy().astype(want))


def test_amp_cast_gradient_has_the_input_dtype():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.amp_cast(x, dtype="float16") * 2
    y.backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad.asnumpy(), [2, 2, 2])


@pytest.mark.parametrize("narrow,want", [(False, "float32"), (True, "float16")])
def test_amp_multicast_widest_or_narrowest_float(narrow, want):
    a = mx.nd.array([1.5, 2.5])
    b = mx.nd.array([1, 2], dtype="float16")
    c = mx.nd.array([3, 4], dtype="int32")
    outs = mx.nd.amp_multicast(a, b, c, num_outputs=3, cast_narrow=narrow)
    assert [o.dtype for o in outs] == [np.dtype(want), np.dtype(want), np.int32]
    np.testing.assert_array_equal(outs[2].asnumpy(), [3, 4])
    # num_outputs is filled from the inputs when not given, as MXNet's front does.
    assert len(mx.nd.amp_multicast(a, b)) == 2


def test_amp_multicast_gradients_return_to_each_dtype():
    a = mx.nd.array([1.0, 2.0])
    b = mx.nd.array([3.0, 4.0], dtype="float16")
    for v in (a, b):
        v.attach_grad()
    with mx.autograd.record():
        x, y = mx.nd.amp_multicast(a, b, num_outputs=2)
        z = x * y
    z.backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float16
    np.testing.assert_array_equal(a.grad.asnumpy(), [3, 4])
    np.testing.assert_array_equal(b.grad.asnumpy(), [1, 2])


def test_bad_arguments():
    with pytest.raises(MXNetError, match="dtype"):
        mx.nd.amp_cast(mx.nd.ones((2,)), dtype="complex64")
    with pytest.raises(MXNetError):
        mx.nd.amp_multicast(mx.nd.ones((2,)), mx.nd.ones((3,)), num_outputs=3)
