"""contrib.index_copy (forward, gradients to both tensors, bad indices) and contrib.allclose
(tolerances, NaNs, dtypes), as MXNet 1.9.1 defines them."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.base import MXNetError


@pytest.mark.parametrize('index_dtype', ['int64', 'float32'])
def test_index_copy_and_its_gradients(index_dtype):
    x = mx.nd.zeros((5, 3))
    t = mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    index = mx.nd.array([0, 4, 2], dtype=index_dtype)
    x.attach_grad()
    t.attach_grad()
    head = mx.nd.arange(15).reshape((5, 3))
    with autograd.record():
        out = mx.nd.contrib.index_copy(x, index, t)
    out.backward(head)
    np.testing.assert_array_equal(out.asnumpy(), [[1, 2, 3], [0, 0, 0], [7, 8, 9], [0, 0, 0],
                                                  [4, 5, 6]])
    h = head.asnumpy()
    expected_x = h.copy()
    expected_x[[0, 4, 2]] = 0
    np.testing.assert_array_equal(x.grad.asnumpy(), expected_x)
    np.testing.assert_array_equal(t.grad.asnumpy(), h[[0, 4, 2]])
    with pytest.raises(MXNetError, match=r'index_vector\[1\] = 7'):
        mx.nd.contrib.index_copy(x, mx.nd.array([0, 7, 1]), t).wait_to_read()
    with pytest.raises(MXNetError, match='new_tensor'):
        mx.nd.contrib.index_copy(x, index, mx.nd.ones((3, 4))).wait_to_read()


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64', 'int32'])
def test_allclose(dtype):
    a = np.array([[1.0, 2.0], [3.0, 4.0]]).astype(dtype)
    out = mx.nd.contrib.allclose(mx.nd.array(a, dtype=dtype), mx.nd.array(a, dtype=dtype))
    assert out.shape == () and out.dtype == np.uint8 and out.asscalar() == 1
    if dtype.startswith('float'):
        b = a * (1 + 1e-3)
        assert mx.nd.contrib.allclose(mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype),
                                      rtol=1e-2).asscalar() == 1
        assert mx.nd.contrib.allclose(mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype),
                                      rtol=1e-5, atol=0).asscalar() == 0
    nan = mx.nd.array([1.0, np.nan])
    assert mx.nd.contrib.allclose(nan, nan).asscalar() == 1
    assert mx.nd.contrib.allclose(nan, nan, equal_nan=False).asscalar() == 0
