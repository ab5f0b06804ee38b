"""contrib.div_sqrt_dim, contrib.index_array, contrib.arange_like, ravel_multi_index,
unravel_index and split_v2 (MXNet 1.9.1 semantics, checked against numpy)."""
import numpy as np
import pytest
import mxnet as mx
from mxnet.base import MXNetError
from mxnet.test_utils import check_numeric_gradient, check_symbolic_forward, \
    check_symbolic_backward


def test_div_sqrt_dim_forward_and_gradient():
    x = np.random.normal(0, 1, (5, 10, 8))
    sym = mx.sym.contrib.div_sqrt_dim(mx.sym.var('data'))
    check_symbolic_forward(sym, [x], [x / np.sqrt(8)])
    check_symbolic_backward(sym, [x], [np.ones(x.shape)], [np.ones(x.shape) / np.sqrt(8)])
    check_numeric_gradient(sym, [x], numeric_eps=1e-2)
    np.testing.assert_allclose(mx.nd.contrib.div_sqrt_dim(mx.nd.array(x)).asnumpy(),
                               x / np.sqrt(8), rtol=1e-5)


@pytest.mark.parametrize("shape,axes", [((10,), None), ((3, 4, 5), None),
                                        ((3, 4, 5), (2, 0)), ((3, 4, 5), (-1,))])
def test_index_array(shape, axes):
    x = np.ones(shape)
    grid = np.stack(np.mgrid[tuple(slice(0, n) for n in shape)], axis=-1)
    want = grid if axes is None else grid[..., list(axes)]
    kw = {} if axes is None else {'axes': axes}
    out = mx.nd.contrib.index_array(mx.nd.array(x), **kw)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.asnumpy(), want)
    sym = mx.sym.contrib.index_array(mx.sym.var('data'), **kw)
    check_symbolic_backward(sym, [x], [np.ones(want.shape)], [np.zeros(shape)])


def test_index_array_bad_axis():
    with pytest.raises(MXNetError):
        mx.nd.contrib.index_array(mx.nd.ones((2, 3)), axes=(2,))


def test_arange_like():
    x = mx.nd.zeros((4, 5))
    np.testing.assert_array_equal(mx.nd.contrib.arange_like(x).asnumpy(),
                                  np.arange(20).reshape(4, 5))
    np.testing.assert_array_equal(mx.nd.contrib.arange_like(x, axis=-1).asnumpy(), np.arange(5))
    out = mx.nd.contrib.arange_like(x, start=1, step=2, repeat=2, axis=0)
    np.testing.assert_array_equal(out.asnumpy(), [1, 1, 3, 3])
    assert mx.nd.contrib.arange_like(mx.nd.zeros((3,), dtype='float64')).dtype == np.float64


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_ravel_and_unravel_match_numpy(dim):
    data = np.random.randint(20, size=(dim, 50))
    shape = tuple(int(v) for v in data.max(axis=1) + 1)
    flat = np.ravel_multi_index(data, shape)
    np.testing.assert_array_equal(
        mx.nd.ravel_multi_index(mx.nd.array(data), shape=shape).asnumpy(), flat)
    np.testing.assert_array_equal(
        mx.nd.unravel_index(mx.nd.array(flat), shape=shape).asnumpy(), data)
    anylead = (-1,) + shape[1:]
    np.testing.assert_array_equal(
        mx.nd.ravel_multi_index(mx.nd.array(data), shape=anylead).asnumpy(), flat)
    np.testing.assert_array_equal(
        mx.nd.unravel_index(mx.nd.array(flat), shape=anylead).asnumpy(), data)


def test_ravel_rejects_wrong_rows():
    with pytest.raises(MXNetError):
        mx.nd.ravel_multi_index(mx.nd.ones((3, 4)), shape=(2, 2))


@pytest.mark.parametrize("shape,ios,axis", [((6, 4), (2, 3), 0), ((3, 7, 2), (1, 5), 1),
                                            ((3, 6), 3, 1), ((4, 2), (), -1)])
def test_split_v2_forward_and_backward(shape, ios, axis):
    x = np.random.uniform(-1, 1, shape).astype(np.float32)
    parts = np.split(x, ios, axis=axis)
    sym = mx.sym.split_v2(mx.sym.var('data'), indices_or_sections=ios, axis=axis)
    check_symbolic_forward(sym, {'data': x}, parts)
    grads = [np.random.uniform(-1, 1, p.shape) for p in parts]
    check_symbolic_backward(sym, {'data': x}, grads, [np.concatenate(grads, axis=axis)])


def test_split_v2_squeeze_axis():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    sym = mx.sym.split_v2(mx.sym.var('data'), indices_or_sections=3, axis=0, squeeze_axis=True)
    check_symbolic_forward(sym, {'data': x}, [x[0], x[1], x[2]])
    check_symbolic_backward(sym, {'data': x}, [np.ones(2), 2 * np.ones(2), 3 * np.ones(2)],
                            [np.array([[1, 1], [2, 2], [3, 3]])])


def test_split_v2_uneven_sections_is_an_error():
    with pytest.raises((MXNetError, ValueError)):
        mx.nd.split_v2(mx.nd.ones((5, 2)), 2, axis=0)


def test_boolean_mask_rows_and_gradient():
    data = mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    index = mx.nd.array([0, 1, 1])
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.boolean_mask(data, index)
        loss = (out * mx.nd.array([[1, 2, 3], [4, 5, 6]])).sum()
    loss.backward()
    np.testing.assert_array_equal(out.asnumpy(), [[4, 5, 6], [7, 8, 9]])
    np.testing.assert_array_equal(data.grad.asnumpy(), [[0, 0, 0], [1, 2, 3], [4, 5, 6]])


def test_boolean_mask_nothing_kept_and_bad_index():
    with mx.np_shape():
        out = mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.zeros((3,)))
        assert out.shape == (0, 2)
    with pytest.raises(MXNetError):
        mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.ones((4,)))
