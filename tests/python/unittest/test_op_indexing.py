"""Slicing and indexing operators against numpy references: slice, slice_axis, slice_like,
_slice_assign, _slice_assign_scalar, take, batch_take, pick, gather_nd, scatter_nd,
_scatter_set_nd, one_hot."""
import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient

ALL_DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.int8, np.int32, np.int64, np.bool_]


def _data(shape, dtype=np.float32):
    if dtype == np.bool_:
        return np.random.uniform(size=shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return np.random.randint(0, 100, size=shape).astype(dtype)
    return np.random.uniform(-1, 1, size=shape).astype(dtype)


def _nd(x):
    x = np.asarray(x)
    return mx.nd.array(x, dtype=x.dtype)


def _check_grad(f, *inputs, **kwargs):
    check_numeric_gradient(f, [np.asarray(x, dtype=np.float64) for x in inputs], **kwargs)


def _np_slices(begin, end, step):
    step = step or (None,) * len(begin)
    return tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))


# ---------------------------------------------------------------- slice
@pytest.mark.parametrize("begin,end,step", [
    ((0,), (2,), None),
    ((1, 0), (3, 4), None),
    ((None, 1), (None, 3), None),
    ((-3, None), (-1, -1), None),
    ((None, None), (None, None), (-1, 2)),
    ((3, 2), (0, None), (-1, -2)),
    ((10, -10), (20, 10), (1, 1)),
    ((4, 3), (-5, -6), (-2, -1)),
    ((1, 1, 1), (2, 3, 5), (1, 2, 3)),
])
def test_slice_matches_numpy_basic_indexing(begin, end, step):
    x = _data((4, 5, 6))
    kwargs = {} if step is None else {"step": step}
    y = mx.nd.slice(_nd(x), begin=begin, end=end, **kwargs)
    ref = x[_np_slices(begin, end, step)]
    assert y.shape == ref.shape
    assert_almost_equal(y.asnumpy(), ref)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_slice_every_dtype(dtype):
    x = _data((3, 4), dtype)
    y = mx.nd.crop(_nd(x), begin=(1, None), end=(None, 3))
    assert y.dtype == dtype
    assert (y.asnumpy() == x[1:, :3]).all()


@pytest.mark.parametrize("begin,end,step", [((0, 0), (1,), None), ((0,), (1,), (0,)),
                                            ((0, 0, 0, 0), (1, 1, 1, 1), None),
                                            ((0, 0), (1, 1), (1,))])
def test_slice_bad_arguments_raise(begin, end, step):
    kwargs = {} if step is None else {"step": step}
    with pytest.raises(MXNetError):
        mx.nd.slice(mx.nd.zeros((2, 3, 4)), begin=begin, end=end, **kwargs).asnumpy()


def test_slice_gradient_scatters_back():
    _check_grad(lambda a: mx.nd.slice(a, begin=(1, None), end=(3, None), step=(1, -2)),
                _data((4, 5)))


# ---------------------------------------------------------------- slice_axis, slice_like
@pytest.mark.parametrize("axis,begin,end", [(0, 1, 3), (1, -3, None), (-1, 0, -2), (2, 2, 6)])
def test_slice_axis_matches_numpy(axis, begin, end):
    x = _data((4, 5, 6))
    y = mx.nd.slice_axis(_nd(x), axis=axis, begin=begin, end=end)
    idx = [slice(None)] * 3
    idx[axis] = slice(begin, end)
    assert_almost_equal(y.asnumpy(), x[tuple(idx)])


@pytest.mark.parametrize("axis,begin,end", [(3, 0, 1), (0, 3, 2), (0, 0, 7), (1, -9, 2)])
def test_slice_axis_bad_range_raises(axis, begin, end):
    with pytest.raises(MXNetError):
        mx.nd.slice_axis(mx.nd.zeros((4, 5, 6)), axis=axis, begin=begin, end=end).asnumpy()


def test_slice_axis_gradient():
    _check_grad(lambda a: mx.nd.slice_axis(a, axis=1, begin=1, end=-1), _data((2, 4, 3)))


def test_slice_like_all_and_selected_axes():
    x = _data((4, 5, 6))
    like = mx.nd.zeros((2, 3, 4), dtype=np.int32)
    assert_almost_equal(mx.nd.slice_like(_nd(x), like).asnumpy(), x[:2, :3, :4])
    assert_almost_equal(mx.nd.slice_like(_nd(x), like, axes=(0, -1)).asnumpy(), x[:2, :, :4])
    with pytest.raises(MXNetError):
        mx.nd.slice_like(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 3))).asnumpy()


def test_slice_like_gradient_ignores_shape_like():
    _check_grad(lambda a, b: mx.nd.slice_like(a, b, axes=(1,)), _data((2, 4)), _data((1, 2)),
                grad_nodes=[0])


# ---------------------------------------------------------------- _slice_assign(_scalar)
def test_slice_assign_replaces_region():
    x = _data((4, 5))
    v = _data((2, 3))
    y = mx.nd._internal._slice_assign(_nd(x), _nd(v), begin=(1, None), end=(None, None),
                                      step=(2, 2))
    ref = x.copy()
    ref[1::2, ::2] = v
    assert_almost_equal(y.asnumpy(), ref)
    with pytest.raises(MXNetError):
        mx.nd._internal._slice_assign(_nd(x), mx.nd.zeros((3, 3)), begin=(0, 0),
                                      end=(2, 2)).asnumpy()


def test_slice_assign_scalar_sets_region_in_place():
    x = _nd(_data((3, 4)))
    ref = x.asnumpy()
    mx.nd._internal._slice_assign_scalar(x, scalar=7, begin=(None, 1), end=(2, -1), out=x)
    ref[:2, 1:-1] = 7
    assert_almost_equal(x.asnumpy(), ref)
    i = mx.nd.array(np.arange(6).reshape(2, 3), dtype=np.int32)
    j = mx.nd._internal._crop_assign_scalar(i, scalar=-1, begin=(1,), end=(2,))
    assert j.asnumpy().tolist() == [[0, 1, 2], [-1, -1, -1]]


def test_slice_assign_gradients():
    _check_grad(lambda a, b: mx.nd._internal._slice_assign(a, b, begin=(1,), end=(3,)),
                _data((4, 2)), _data((2, 2)))
    _check_grad(lambda a: mx.nd._internal._slice_assign_scalar(a, scalar=3, begin=(0, 1),
                                                                end=(2, 2)), _data((3, 3)))


# ---------------------------------------------------------------- take
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_take_modes_match_numpy(axis, mode):
    x = _data((4, 5, 3))
    idx = np.array([[0, 2], [-1, 7], [3, -6]])
    y = mx.nd.take(_nd(x), mx.nd.array(idx), axis=axis, mode=mode)
    assert_almost_equal(y.asnumpy(), np.take(x, idx, axis=axis, mode=mode))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64, np.float32, np.uint8])
def test_take_dtypes(dtype, idx_dtype):
    x = _data((5, 2), dtype)
    idx = np.array([4, 0, 2, 2], dtype=idx_dtype)
    y = mx.nd.take(_nd(x), _nd(idx))
    assert y.dtype == dtype
    assert (y.asnumpy() == x[idx.astype(np.int64)]).all()


def test_take_raise_mode_rejects_out_of_bound_indices():
    x = mx.nd.array(np.arange(6).reshape(3, 2))
    assert mx.nd.take(x, mx.nd.array([2, 0]), mode="raise").asnumpy().tolist() == [[4, 5], [0, 1]]
    with pytest.raises(MXNetError):
        mx.nd.take(x, mx.nd.array([3]), mode="raise").asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.take(x, mx.nd.array([-1]), mode="raise").asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.take(x, mx.nd.array([0]), axis=2).asnumpy()


@pytest.mark.parametrize("axis,mode", [(0, "clip"), (1, "wrap"), (-1, "clip")])
def test_take_gradient_accumulates_repeated_indices(axis, mode):
    idx = np.array([[1, 1], [0, 5]])
    _check_grad(lambda a, i: mx.nd.take(a, i, axis=axis, mode=mode), _data((3, 4)), idx,
                grad_nodes=[0])


def test_take_second_order_gradient_is_take():
    x = mx.nd.array(_data((4, 3)), dtype=np.float64)
    idx = mx.nd.array([3, 3, 1], dtype=np.float64)
    og = mx.nd.array(_data((3, 3)), dtype=np.float64)
    og.attach_grad()
    with mx.autograd.record():
        g = mx.nd._internal._take_grad(og, idx, x)
    head = _data((4, 3)).astype(np.float64)
    g.backward(mx.nd.array(head, dtype=np.float64))
    assert_almost_equal(og.grad.asnumpy(), head[[3, 3, 1]])


# ---------------------------------------------------------------- batch_take, pick
def test_batch_take_picks_one_per_row():
    x = _data((4, 3))
    idx = np.array([0, 2, 5, -1])
    y = mx.nd.batch_take(_nd(x), mx.nd.array(idx, dtype=np.int32))
    assert_almost_equal(y.asnumpy(), x[np.arange(4), np.clip(idx, 0, 2)])


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_pick_matches_numpy(axis, keepdims, mode):
    x = _data((3, 4, 5))
    n = x.shape[axis]
    ishape = list(x.shape)
    ishape[axis] = 1
    idx = np.random.randint(-n - 2, n + 2, size=ishape)
    ref_idx = np.clip(idx, 0, n - 1) if mode == "clip" else np.mod(idx, n)
    ref = np.take_along_axis(x, ref_idx, axis=axis)
    if not keepdims:
        ref = np.squeeze(ref, axis=axis)
        idx = np.squeeze(idx, axis=axis)
    y = mx.nd.pick(_nd(x), mx.nd.array(idx), axis=axis, keepdims=keepdims, mode=mode)
    assert_almost_equal(y.asnumpy(), ref)


def test_pick_gradient_and_bad_index_shape():
    _check_grad(lambda a, i: mx.nd.pick(a, i, axis=1), _data((3, 4)), np.array([0, 3, 1]),
                grad_nodes=[0])
    with pytest.raises(MXNetError):
        mx.nd.pick(mx.nd.zeros((3, 4)), mx.nd.zeros((4,)), axis=1).asnumpy()


# ---------------------------------------------------------------- gather_nd, scatter_nd
def test_gather_nd_matches_numpy_fancy_indexing():
    x = _data((3, 4, 2))
    idx = np.array([[0, 2, -1], [1, -4, 3]])
    y = mx.nd.gather_nd(_nd(x), mx.nd.array(idx, dtype=np.int64))
    assert_almost_equal(y.asnumpy(), x[idx[0], idx[1]])
    idx1 = np.array([[2, 0, 1, 1]])
    assert_almost_equal(mx.nd.gather_nd(_nd(x), mx.nd.array(idx1)).asnumpy(), x[idx1[0]])
    with mx.np_shape():  # M = 0: every block is all of x
        whole = mx.nd.gather_nd(_nd(x), mx.nd.zeros((0, 2)))
    assert_almost_equal(whole.asnumpy(), np.stack([x, x]))


def test_gather_nd_out_of_bound_raises():
    with pytest.raises(MXNetError):
        mx.nd.gather_nd(mx.nd.zeros((3, 4)), mx.nd.array([[3], [0]])).asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.gather_nd(mx.nd.zeros((3, 4)), mx.nd.array([0, 1])).asnumpy()


def test_gather_nd_gradient_sums_duplicates():
    idx = np.array([[1, 1, 0], [2, 2, 0]])
    _check_grad(lambda a, i: mx.nd.gather_nd(a, i), _data((2, 3, 2)), idx, grad_nodes=[0])


def test_scatter_nd_places_data():
    data = _data((3, 2))
    idx = np.array([[0, 2, 1], [1, 0, 3]])
    y = mx.nd.scatter_nd(_nd(data), mx.nd.array(idx), shape=(3, 4, 2))
    ref = np.zeros((3, 4, 2), dtype=np.float32)
    ref[idx[0], idx[1]] = data
    assert_almost_equal(y.asnumpy(), ref)
    with pytest.raises(MXNetError):
        mx.nd.scatter_nd(mx.nd.zeros((2,)), mx.nd.array([[0, 1]]), shape=(2, 2)).asnumpy()


def test_scatter_nd_gradient_gathers():
    idx = np.array([[0, 2], [1, 0]])
    _check_grad(lambda d, i: mx.nd.scatter_nd(d, i, shape=(3, 2)), _data((2,)), idx,
                grad_nodes=[0])


def test_backward_gather_nd_accumulates():
    data = mx.nd.array([1.0, 2.0, 3.0])
    idx = mx.nd.array([[1, 1, 0]])
    y = mx.nd._internal._backward_gather_nd(data, idx, shape=(3,))
    assert y.asnumpy().tolist() == [3.0, 3.0, 0.0]


def test_scatter_set_nd_overwrites_lhs_places():
    lhs = _data((3, 4))
    rhs = _data((2,))
    idx = np.array([[0, 2], [1, 3]])
    y = mx.nd._internal._scatter_set_nd(_nd(lhs), _nd(rhs), mx.nd.array(idx), shape=(3, 4))
    ref = lhs.copy()
    ref[idx[0], idx[1]] = rhs
    assert_almost_equal(y.asnumpy(), ref)
    _check_grad(lambda a, b: mx.nd._internal._scatter_set_nd(a, b, mx.nd.array(idx), shape=(3, 4)),
                lhs, rhs)


# ---------------------------------------------------------------- one_hot
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "float16", "int64"])
def test_one_hot_values_and_dtype(dtype):
    idx = np.array([[1, 0], [4, -1]])
    y = mx.nd.one_hot(mx.nd.array(idx), depth=3, on_value=5, off_value=-1, dtype=dtype) \
        if dtype != "uint8" else mx.nd.one_hot(mx.nd.array(idx), depth=3, dtype=dtype)
    assert y.dtype == np.dtype(dtype)
    on, off = (5, -1) if dtype != "uint8" else (1, 0)
    ref = np.full((2, 2, 3), off)
    for (i, j), v in np.ndenumerate(idx):
        if 0 <= v < 3:
            ref[i, j, v] = on
    assert (y.asnumpy() == ref).all()
    assert mx.nd.one_hot(mx.nd.array([0, 1]), depth=4).dtype == np.float32
    with pytest.raises(MXNetError):
        mx.nd.one_hot(mx.nd.array([0]), depth=-1).asnumpy()


def test_slice_second_order_gradient():
    x = mx.nd.array(_data((4, 3)), dtype=np.float64)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.slice(x, begin=(1,), end=(3,))
        g = mx.autograd.grad(y * y, [x], create_graph=True, retain_graph=True)[0]
        w = g * g
    w.backward()
    mask = np.zeros((4, 1))
    mask[1:3] = 1
    assert_almost_equal(x.grad.asnumpy(), 8 * x.asnumpy() * mask)


def test_int_index_of_a_1d_array_has_shape_1_or_0d_with_np_shape():
    a = mx.nd.arange(6).reshape((2, 3))
    assert a[0][2].shape == (1,) and a[0][2].asnumpy()[0] == 2  # MXNet 1.x legacy shapes
    assert a[1, 1].shape == (1,)
    with mx.util.np_shape(True):
        assert a[0][2].shape == () and a[1, 1].shape == ()
        assert float(a[1, 1].asnumpy()) == 4
