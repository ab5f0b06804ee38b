"""Shape, permutation, repetition and joining operators against numpy references:
Reshape, reshape_like, Flatten, expand_dims, squeeze, transpose, SwapAxis, reverse, tile,
repeat, Pad, depth_to_space, space_to_depth, shape_array, size_array, diag, Concat, stack,
SliceChannel."""
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
    return mx.nd.array(x, dtype=x.dtype)


def _check_grad(f, *inputs, **kwargs):
    check_numeric_gradient(f, [np.asarray(x, dtype=np.float64) for x in inputs], **kwargs)


# ---------------------------------------------------------------- Reshape
@pytest.mark.parametrize("src,shape,reverse,expected", [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((2, 6), (-2, 2, -1, -4), True, (2, 2, 3)),
])
def test_reshape_special_values_follow_mxnet_rules(src, shape, reverse, expected):
    x = _data(src)
    y = mx.nd.reshape(_nd(x), shape=shape, reverse=reverse)
    assert y.shape == expected
    assert_almost_equal(y.asnumpy(), x.reshape(expected))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_reshape_keeps_every_dtype(dtype):
    x = _data((2, 3, 4), dtype)
    y = mx.nd.Reshape(_nd(x), shape=(4, -1))
    assert y.dtype == dtype
    assert (y.asnumpy() == x.reshape(4, 6)).all()


def test_reshape_legacy_target_shape_and_keep_highest():
    x = _data((2, 3, 4))
    assert mx.nd.Reshape(_nd(x), target_shape=(0, 4)).shape == (6, 4)
    assert mx.nd.Reshape(_nd(x), target_shape=(5, 0), keep_highest=True).shape == (2, 12)


@pytest.mark.parametrize("shape", [(5, 5), (-1, -1), (2, -4, -1, -1), (7, -1)])
def test_reshape_bad_shape_raises(shape):
    with pytest.raises(MXNetError):
        mx.nd.reshape(mx.nd.ones((2, 3, 4)), shape=shape).asnumpy()


def test_reshape_gradient_reshapes_back():
    _check_grad(lambda x: mx.nd.reshape(x, shape=(-1, 2)), _data((3, 4)))


def test_reshape_like_uses_ranges_of_both_shapes():
    x = _data((30, 7))
    y = mx.nd.reshape_like(_nd(x), mx.nd.zeros((15, 2, 4)), lhs_begin=0, lhs_end=1,
                           rhs_begin=0, rhs_end=2)
    assert y.shape == (15, 2, 7)
    assert_almost_equal(y.asnumpy(), x.reshape(15, 2, 7))
    z = mx.nd.reshape_like(mx.nd.zeros((3, 5)), mx.nd.zeros((1, 15, 4)), lhs_begin=0,
                           lhs_end=2, rhs_begin=1, rhs_end=2)
    assert z.shape == (15,)
    w = mx.nd.reshape_like(mx.nd.zeros((2, 12)), mx.nd.zeros((3, 4), dtype=np.int32),
                           lhs_begin=-1)
    assert w.shape == (2, 3, 4)
    assert w.dtype == np.float32
    assert mx.nd.reshape_like(mx.nd.zeros((2, 6)), mx.nd.zeros((3, 4))).shape == (3, 4)


def test_reshape_like_size_mismatch_raises():
    with pytest.raises(MXNetError):
        mx.nd.reshape_like(mx.nd.zeros((2, 6)), mx.nd.zeros((3, 5))).asnumpy()


def test_reshape_like_gradient_flows_to_lhs_only():
    _check_grad(lambda a, b: mx.nd.reshape_like(a, b), _data((2, 6)), _data((3, 4)))


# ---------------------------------------------------------------- Flatten, expand_dims, squeeze
def test_flatten_collapses_trailing_dims():
    x = _data((2, 3, 4))
    assert_almost_equal(mx.nd.flatten(_nd(x)).asnumpy(), x.reshape(2, 12))
    assert mx.nd.Flatten(mx.nd.zeros((5,))).shape == (5, 1)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims_inserts_axis(axis):
    x = _data((2, 3))
    y = mx.nd.expand_dims(_nd(x), axis=axis)
    assert_almost_equal(y.asnumpy(), np.expand_dims(x, axis))


def test_expand_dims_out_of_range_raises():
    with pytest.raises(MXNetError):
        mx.nd.expand_dims(mx.nd.zeros((2, 3)), axis=3).asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.expand_dims(mx.nd.zeros((2, 3)), axis=-4).asnumpy()


def test_squeeze_default_and_selected_axes():
    x = _data((1, 3, 1, 4))
    assert mx.nd.squeeze(_nd(x)).shape == (3, 4)
    assert mx.nd.squeeze(_nd(x), axis=2).shape == (1, 3, 4)
    assert mx.nd.squeeze(_nd(x), axis=(0, -2)).shape == (3, 4)
    assert_almost_equal(mx.nd.squeeze(_nd(x)).asnumpy(), x.reshape(3, 4))
    assert mx.nd.squeeze(mx.nd.zeros((1, 1))).shape == (1,)


def test_squeeze_non_unit_axis_raises():
    with pytest.raises(MXNetError):
        mx.nd.squeeze(mx.nd.zeros((1, 3)), axis=1).asnumpy()


def test_expand_dims_and_squeeze_gradients():
    _check_grad(lambda x: mx.nd.expand_dims(x, axis=1), _data((2, 3)))
    _check_grad(lambda x: mx.nd.squeeze(x), _data((2, 1, 3)))


# ---------------------------------------------------------------- shape_array, size_array
def test_shape_and_size_array_are_int64():
    x = mx.nd.zeros((2, 3, 4), dtype=np.float16)
    s = mx.nd.shape_array(x)
    assert s.dtype == np.int64
    assert s.asnumpy().tolist() == [2, 3, 4]
    z = mx.nd.size_array(x)
    assert z.dtype == np.int64
    assert z.asnumpy().tolist() == [24]


# ---------------------------------------------------------------- transpose, SwapAxis, reverse
@pytest.mark.parametrize("shape,axes", [((2, 3), ()), ((2, 3, 4), ()), ((2, 3, 4), (1, 0, 2)),
                                        ((2, 3, 4, 5), (3, 1, 0, 2)), ((2, 3, 4), (-1, 0, 1)),
                                        ((4,), (0,))])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.uint8, np.bool_])
def test_transpose_permutes_axes(shape, axes, dtype):
    x = _data(shape, dtype)
    y = mx.nd.transpose(_nd(x), axes=axes)
    assert (y.asnumpy() == np.transpose(x, axes or None)).all()


def test_transpose_large_matches_numpy():
    x = _data((64, 300, 5))
    assert_almost_equal(mx.nd.transpose(_nd(x), axes=(2, 0, 1)).asnumpy(), x.transpose(2, 0, 1))


@pytest.mark.parametrize("axes", [(0, 0, 1), (0, 1), (0, 1, 3)])
def test_transpose_bad_axes_raise(axes):
    with pytest.raises(MXNetError):
        mx.nd.transpose(mx.nd.zeros((2, 3, 4)), axes=axes).asnumpy()


def test_transpose_gradient_is_inverse_permutation():
    _check_grad(lambda x: mx.nd.transpose(x, axes=(1, 2, 0)), _data((2, 3, 4)))
    _check_grad(lambda x: mx.nd.transpose(x), _data((2, 3)))


def test_swapaxes_matches_numpy_and_differentiates():
    x = _data((2, 3, 4))
    assert_almost_equal(mx.nd.swapaxes(_nd(x), dim1=0, dim2=2).asnumpy(), np.swapaxes(x, 0, 2))
    assert_almost_equal(mx.nd.SwapAxis(_nd(x), dim1=-1, dim2=1).asnumpy(), np.swapaxes(x, -1, 1))
    _check_grad(lambda a: mx.nd.SwapAxis(a, dim1=0, dim2=1), _data((2, 3)))
    with pytest.raises(MXNetError):
        mx.nd.SwapAxis(_nd(x), dim1=0, dim2=3).asnumpy()


@pytest.mark.parametrize("axis", [0, 1, (0, 2), -1, (1, 2)])
def test_reverse_flips_axes(axis):
    x = _data((2, 3, 4))
    assert_almost_equal(mx.nd.reverse(_nd(x), axis=axis).asnumpy(), np.flip(x, axis))
    assert_almost_equal(mx.nd.flip(_nd(x), axis=axis).asnumpy(), np.flip(x, axis))


def test_reverse_gradient_and_bad_axis():
    _check_grad(lambda a: mx.nd.reverse(a, axis=1), _data((2, 3)))
    with pytest.raises(MXNetError):
        mx.nd.reverse(mx.nd.zeros((2, 3)), axis=2).asnumpy()


# ---------------------------------------------------------------- tile, repeat
@pytest.mark.parametrize("shape,reps", [((2, 3), (2, 2)), ((2, 3), (3,)), ((3,), (2, 2)),
                                        ((2, 3, 4), (1, 2, 1)), ((2, 3), ()), ((2, 3), (0, 2)),
                                        ((2, 1), (1, 1, 3))])
def test_tile_matches_numpy(shape, reps):
    x = _data(shape)
    with mx.np_shape(0 in reps):  # a 0 dim is unknown outside numpy-shape semantics
        y = mx.nd.tile(_nd(x), reps=reps)
    assert_almost_equal(y.asnumpy(), np.tile(x, reps))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tile_every_dtype(dtype):
    x = _data((2, 3), dtype)
    assert (mx.nd.tile(_nd(x), reps=(2, 1)).asnumpy() == np.tile(x, (2, 1))).all()


@pytest.mark.parametrize("shape,reps", [((2, 3), (2, 2)), ((3,), (2, 3)), ((2, 3), (2,))])
def test_tile_gradient_sums_tiles(shape, reps):
    _check_grad(lambda a: mx.nd.tile(a, reps=reps), _data(shape))


def test_tile_negative_reps_raise():
    with pytest.raises(MXNetError):
        mx.nd.tile(mx.nd.zeros((2, 3)), reps=(-1, 2)).asnumpy()


@pytest.mark.parametrize("shape,repeats,axis", [((2, 3), 2, None), ((2, 3), 3, 0),
                                                ((2, 3), 2, 1), ((2, 3, 4), 2, -1),
                                                ((2, 3, 4), 3, -2), ((2, 3), 1, 0)])
def test_repeat_matches_numpy(shape, repeats, axis):
    x = _data(shape)
    kwargs = {} if axis is None else {"axis": axis}
    y = mx.nd.repeat(_nd(x), repeats=repeats, **kwargs)
    assert_almost_equal(y.asnumpy(), np.repeat(x, repeats, axis=axis))


@pytest.mark.parametrize("shape,repeats,axis", [((2, 3), 2, None), ((2, 3), 3, 0),
                                                ((2, 3, 2), 2, -1), ((2, 3, 2), 2, -2)])
def test_repeat_gradient_sums_repeats(shape, repeats, axis):
    kwargs = {} if axis is None else {"axis": axis}
    _check_grad(lambda a: mx.nd.repeat(a, repeats=repeats, **kwargs), _data(shape))


def test_repeat_zero_gives_empty_and_bad_args_raise():
    assert mx.nd.repeat(mx.nd.ones((2, 3)), repeats=0, axis=1).shape == (0,)
    with pytest.raises(MXNetError):
        mx.nd.repeat(mx.nd.ones((2, 3)), repeats=-1).asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.repeat(mx.nd.ones((2, 3)), repeats=2, axis=2).asnumpy()


# ---------------------------------------------------------------- Pad
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("shape,pad_width", [((2, 3, 4, 5), (0, 0, 0, 0, 1, 2, 2, 1)),
                                             ((1, 2, 3, 4, 3), (0, 0, 0, 0, 1, 1, 2, 0, 0, 2))])
def test_pad_matches_numpy(mode, shape, pad_width):
    x = _data(shape)
    pw = list(zip(pad_width[::2], pad_width[1::2]))
    kwargs = {"constant_value": 1.5} if mode == "constant" else {}
    y = mx.nd.pad(_nd(x), mode=mode, pad_width=pad_width, **kwargs)
    ref = np.pad(x, pw, mode=mode, **({"constant_values": 1.5} if mode == "constant" else {}))
    assert_almost_equal(y.asnumpy(), ref)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_gradient_accumulates_borders(mode):
    _check_grad(lambda a: mx.nd.Pad(a, mode=mode, pad_width=(0, 0, 0, 0, 2, 1, 1, 2)),
                _data((1, 2, 3, 3)))


@pytest.mark.parametrize("shape,pad_width,mode", [
    ((3, 4, 5), (0, 0, 1, 1, 1, 1), "constant"),       # 3-D is not supported
    ((2, 3, 4, 5), (1, 0, 0, 0, 1, 1, 1, 1), "edge"),   # first two axes must not pad
    ((2, 3, 4, 5), (0, 0, 0, 0, 1, 1), "constant"),     # length must be 2*ndim
    ((2, 3, 4, 5), (0, 0, 0, 0, 4, 0, 1, 1), "reflect"),  # reflect pad must be < size
])
def test_pad_rules_raise(shape, pad_width, mode):
    with pytest.raises(MXNetError):
        mx.nd.pad(mx.nd.zeros(shape), mode=mode, pad_width=pad_width).asnumpy()


# ---------------------------------------------------------------- depth_to_space, space_to_depth
def _depth_to_space_ref(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _space_to_depth_ref(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def test_depth_to_space_and_back():
    x = _data((2, 8, 3, 2))
    y = mx.nd.depth_to_space(_nd(x), block_size=2)
    assert_almost_equal(y.asnumpy(), _depth_to_space_ref(x, 2))
    z = mx.nd.space_to_depth(y, block_size=2)
    assert_almost_equal(z.asnumpy(), x)
    x2 = _data((1, 2, 6, 9))
    assert_almost_equal(mx.nd.space_to_depth(_nd(x2), block_size=3).asnumpy(),
                        _space_to_depth_ref(x2, 3))


def test_depth_to_space_gradients():
    _check_grad(lambda a: mx.nd.depth_to_space(a, block_size=2), _data((1, 4, 2, 3)))
    _check_grad(lambda a: mx.nd.space_to_depth(a, block_size=2), _data((1, 1, 4, 2)))


def test_depth_to_space_bad_shapes_raise():
    with pytest.raises(MXNetError):
        mx.nd.depth_to_space(mx.nd.zeros((1, 6, 2, 2)), block_size=2).asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.space_to_depth(mx.nd.zeros((1, 1, 3, 4)), block_size=2).asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.depth_to_space(mx.nd.zeros((4, 2, 2)), block_size=2).asnumpy()


# ---------------------------------------------------------------- diag
@pytest.mark.parametrize("k", [0, 1, -2])
def test_diag_of_vector_builds_matrix(k):
    x = _data((3,))
    assert_almost_equal(mx.nd.diag(_nd(x), k=k).asnumpy(), np.diag(x, k))


@pytest.mark.parametrize("shape,k", [((3, 4), 0), ((3, 4), 2), ((4, 3), -1), ((3, 4), 4)])
def test_diag_of_matrix_extracts(shape, k):
    x = _data(shape)
    assert_almost_equal(mx.nd.diag(_nd(x), k=k).asnumpy(), np.diag(x, k))


def test_diag_of_nd_uses_axes():
    x = _data((2, 3, 4))
    y = mx.nd.diag(_nd(x), k=1, axis1=0, axis2=2)
    assert_almost_equal(y.asnumpy(), np.diagonal(x, offset=1, axis1=0, axis2=2))
    with pytest.raises(MXNetError):
        mx.nd.diag(_nd(x), axis1=1, axis2=1).asnumpy()


def test_diag_gradients():
    _check_grad(lambda a: mx.nd.diag(a, k=1), _data((3,)))
    _check_grad(lambda a: mx.nd.diag(a, k=-1), _data((3, 4)))
    _check_grad(lambda a: mx.nd.diag(a, axis1=1, axis2=2), _data((2, 3, 3)))


# ---------------------------------------------------------------- Concat, stack, SliceChannel
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.bool_])
def test_concat_joins_along_dim(dim, dtype):
    shapes = [(2, 3, 4), (2, 3, 4), (2, 3, 4)]
    shapes = [tuple(s[i] + j * (i == (dim % 3)) for i in range(3)) for j, s in enumerate(shapes)]
    xs = [_data(s, dtype) for s in shapes]
    y = mx.nd.concat(*[_nd(x) for x in xs], dim=dim)
    assert y.dtype == dtype
    assert (y.asnumpy() == np.concatenate(xs, axis=dim)).all()
    assert (mx.nd.Concat(*[_nd(x) for x in xs], dim=dim).asnumpy() == y.asnumpy()).all()


def test_concat_mismatched_shapes_raise():
    with pytest.raises(MXNetError):
        mx.nd.concat(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 3)), dim=1).asnumpy()


def test_concat_gradient_slices_back():
    _check_grad(lambda a, b, c: mx.nd.concat(a, b, c, dim=1),
                _data((2, 1)), _data((2, 3)), _data((2, 2)))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_adds_axis(axis):
    xs = [_data((2, 3)) for _ in range(4)]
    y = mx.nd.stack(*[_nd(x) for x in xs], axis=axis)
    assert_almost_equal(y.asnumpy(), np.stack(xs, axis=axis))


def test_stack_gradient_and_shape_mismatch():
    _check_grad(lambda a, b: mx.nd.stack(a, b, axis=1), _data((2, 3)), _data((2, 3)))
    with pytest.raises(MXNetError):
        mx.nd.stack(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 2))).asnumpy()


@pytest.mark.parametrize("axis,num,squeeze", [(1, 3, False), (0, 2, False), (-1, 4, False),
                                              (1, 6, True)])
def test_split_returns_equal_parts(axis, num, squeeze):
    x = _data((4, 6, 4))
    outs = mx.nd.split(_nd(x), num_outputs=num, axis=axis, squeeze_axis=squeeze)
    refs = np.split(x, num, axis=axis)
    assert len(outs) == num
    for o, r in zip(outs, refs):
        assert_almost_equal(o.asnumpy(), np.squeeze(r, axis=axis) if squeeze else r)


def test_split_bad_args_raise():
    with pytest.raises(MXNetError):
        mx.nd.split(mx.nd.zeros((2, 5)), num_outputs=2, axis=1)[0].asnumpy()
    with pytest.raises(MXNetError):
        mx.nd.split(mx.nd.zeros((2, 6)), num_outputs=2, axis=1, squeeze_axis=True)[0].asnumpy()


def test_split_gradient_concatenates_ograds():
    x = mx.nd.array(_data((2, 4, 3)), dtype=np.float64)
    x.attach_grad()
    heads = [np.random.uniform(size=(2, 2, 3)), np.random.uniform(size=(2, 2, 3))]
    with mx.autograd.record():
        a, b = mx.nd.SliceChannel(x, num_outputs=2, axis=1)
        loss = a * mx.nd.array(heads[0], dtype=np.float64) + b * mx.nd.array(heads[1], dtype=np.float64)
    loss.backward()
    assert_almost_equal(x.grad.asnumpy(), np.concatenate(heads, axis=1))
    _check_grad(lambda a: mx.nd.split(a, num_outputs=3, axis=0, squeeze_axis=True)[1],
                _data((3, 2)))


def test_concat_second_order_gradient():
    x = mx.nd.array(_data((2, 3)), dtype=np.float64)
    x.attach_grad()
    with mx.autograd.record():
        z = mx.nd.concat(x, x, dim=0)
        g = mx.autograd.grad(z * z, [x], create_graph=True, retain_graph=True)[0]
        w = g * g
    w.backward()
    assert_almost_equal(x.grad.asnumpy(), 32 * x.asnumpy())
