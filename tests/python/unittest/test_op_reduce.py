# Reductions (sum, mean, prod, max, min, nansum, nanprod, norm, argmax, argmin,
# argmax_channel), sorting (topk, sort, argsort) and broadcasting to a shape (broadcast_to,
# broadcast_like, broadcast_axis, _reduce_to_like): forward against numpy, gradients against
# central differences, bad arguments raising MXNetError.
import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient

nd = mx.nd
_int = mx.nd._internal
MXNetError = mx.base.MXNetError

FLOATS = [np.float32, np.float64, np.float16]
INTS = [np.int32, np.int64, np.int8, np.uint8]
TOL = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-12}

# (shape, axis, exclude): None/() reduce all, ints, negatives, tuples, separated axis groups.
AXES_CASES = [
    ((5,), None, False),
    ((5,), 0, False),
    ((2, 3, 4), None, False),
    ((2, 3, 4), (), False),
    ((2, 3, 4), 1, False),
    ((2, 3, 4), -1, False),
    ((2, 3, 4), 0, False),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), (2, 0), False),
    ((2, 3, 4), (0, 1, 2), False),
    ((2, 3, 4), 1, True),
    ((2, 3, 4), (0, 2), True),
    ((2, 3, 4, 5), (0, 2), False),
    ((2, 3, 4, 5), (1, 3), False),
    ((3, 1, 4), 1, False),
    ((4, 1, 3, 1), (1, 3), True),
]


def np_axes(shape, axis, exclude):
    nd_ = len(shape)
    if axis is None or axis == ():
        return tuple(range(nd_))
    ax = (axis,) if isinstance(axis, int) else tuple(axis)
    ax = tuple(sorted(a % nd_ for a in ax))
    if exclude:
        ax = tuple(i for i in range(nd_) if i not in ax)
    return ax


def np_reduce(fn, x, shape, axis, exclude, keepdims):
    ax = np_axes(shape, axis, exclude)
    r = fn(x, axis=ax, keepdims=keepdims)
    r = np.asarray(r)
    return r.reshape((1,)) if r.ndim == 0 else r


def mx_kwargs(axis, keepdims, exclude):
    kw = {"keepdims": keepdims, "exclude": exclude}
    if axis is not None:
        kw["axis"] = axis
    return kw


NP_FLOAT_REF = {
    "sum": np.sum,
    "mean": np.mean,
    "prod": np.prod,
    "max": np.max,
    "min": np.min,
    "nansum": np.nansum,
    "nanprod": np.nanprod,
}


@pytest.mark.parametrize("op", sorted(NP_FLOAT_REF))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("keepdims", [False, True])
def test_float_reductions_match_numpy_over_axis_sets(op, dtype, keepdims):
    rng = np.random.RandomState(0)
    for shape, axis, exclude in AXES_CASES:
        x = rng.uniform(0.5, 1.5, size=shape).astype(dtype)
        if op.startswith("nan") and x.size > 2:
            x.reshape(-1)[::3] = np.nan
        out = getattr(nd, op)(nd.array(x, dtype=dtype), **mx_kwargs(axis, keepdims, exclude))
        ref = np_reduce(NP_FLOAT_REF[op], x.astype(np.float64), shape, axis, exclude, keepdims)
        assert out.dtype == dtype
        assert out.shape == ref.shape, (shape, axis, exclude, keepdims)
        assert_almost_equal(out.asnumpy().astype(np.float64), ref, rtol=TOL[dtype],
                            atol=TOL[dtype])


@pytest.mark.parametrize("dtype", INTS)
def test_integer_reductions_accumulate_in_int64_and_keep_dtype(dtype):
    rng = np.random.RandomState(1)
    for shape, axis, exclude in AXES_CASES:
        x = rng.randint(1, 4, size=shape).astype(dtype)
        kw = mx_kwargs(axis, False, exclude)
        wide = x.astype(np.int64)
        ref_sum = np_reduce(np.sum, wide, shape, axis, exclude, False)
        ref_prod = np_reduce(np.prod, wide, shape, axis, exclude, False)
        n = x.size // max(ref_sum.size, 1) if x.size else 1
        for op, ref in [("sum", ref_sum), ("nansum", ref_sum), ("prod", ref_prod),
                        ("nanprod", ref_prod), ("mean", ref_sum // n),
                        ("max", np_reduce(np.max, wide, shape, axis, exclude, False)),
                        ("min", np_reduce(np.min, wide, shape, axis, exclude, False))]:
            out = getattr(nd, op)(nd.array(x, dtype=dtype), **kw)
            assert out.dtype == dtype, op
            np.testing.assert_array_equal(out.asnumpy(), ref.astype(dtype), err_msg=op)


def test_int8_sum_wraps_like_its_dtype_but_mean_uses_the_exact_sum():
    x = nd.array([100, 100, 100], dtype=np.int8)
    assert nd.sum(x).asnumpy().tolist() == [np.int8(44)]  # 300 wraps to 44, as in MXNet
    assert nd.mean(x).asnumpy().tolist() == [100]


def test_bool_reductions_return_bool():
    x = np.array([[True, False, True], [False, False, False]])
    a = nd.array(x, dtype=np.bool_)
    assert nd.sum(a).dtype == np.bool_
    np.testing.assert_array_equal(nd.sum(a, axis=1).asnumpy(), [True, False])
    np.testing.assert_array_equal(nd.max(a, axis=0).asnumpy(), [True, False, True])
    np.testing.assert_array_equal(nd.min(a, axis=1).asnumpy(), [False, False])
    np.testing.assert_array_equal(nd.prod(a, axis=1).asnumpy(), [False, False])


def test_float16_sum_and_mean_accumulate_in_float():
    x = nd.ones((100000,), dtype=np.float16)
    assert np.isinf(nd.sum(x).asnumpy()[0])  # 100000 overflows float16
    assert nd.mean(x).asnumpy()[0] == 1.0
    y = nd.array(np.full((4096,), 0.1, dtype=np.float16), dtype=np.float16)
    assert abs(float(nd.sum(y).asnumpy()[0]) - 409.5) < 1.0


def test_large_float32_sum_is_accurate():
    rng = np.random.RandomState(2)
    x = rng.uniform(0, 1, size=(3_000_001,)).astype(np.float32)
    exact = np.sum(x.astype(np.float64))
    got = float(nd.sum(nd.array(x)).asnumpy()[0])
    assert abs(got - exact) / exact < 1e-6


@pytest.mark.parametrize("shape,axis", [((3, 200001), 1), ((200001, 3), 0), ((7, 40000, 2), 1),
                                        ((40, 3, 5000), (0, 2)), ((5000, 7, 30), (0, 2))])
def test_large_reductions_split_across_threads_match_numpy(shape, axis):
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, size=shape).astype(np.float32)
    a = nd.array(x)
    x64 = x.astype(np.float64)
    assert_almost_equal(nd.sum(a, axis=axis).asnumpy(), x64.sum(axis=axis), rtol=1e-5, atol=1e-3)
    assert_almost_equal(nd.max(a, axis=axis).asnumpy(), x64.max(axis=axis), rtol=0, atol=0)
    assert_almost_equal(nd.norm(a, axis=axis).asnumpy(),
                        np.sqrt((x64 ** 2).sum(axis=axis)), rtol=1e-5, atol=1e-5)
    am = nd.argmin(a, axis=axis if isinstance(axis, int) else 0).asnumpy()
    np.testing.assert_array_equal(am, x.argmin(axis=axis if isinstance(axis, int) else 0))


def test_max_and_min_propagate_nan():
    x = nd.array([[1, np.nan], [5, 2]])
    out = nd.max(x, axis=1).asnumpy()
    assert np.isnan(out[0]) and out[1] == 5
    out = nd.min(x, axis=1).asnumpy()
    assert np.isnan(out[0]) and out[1] == 2


@pytest.mark.parametrize("shape,axis", [((100003,), None), ((3, 5000), 1), ((5000, 3), 0),
                                        ((40, 70, 30), (0, 2))])
def test_a_single_nan_anywhere_makes_max_and_min_nan(shape, axis):
    x = np.random.RandomState(15).uniform(-1, 1, size=shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[flat.size // 2 + 7] = np.nan
    kw = {} if axis is None else {"axis": axis}
    for op, ref in [("max", np.max), ("min", np.min)]:
        out = getattr(nd, op)(nd.array(x), **kw).asnumpy()
        exp = ref(x, axis=axis)
        np.testing.assert_array_equal(np.isnan(out), np.isnan(exp).reshape(out.shape))
        assert_almost_equal(np.nan_to_num(out), np.nan_to_num(exp).reshape(out.shape))
    got = nd.nansum(nd.array(x), **kw).asnumpy()
    assert_almost_equal(got, np.asarray(np.nansum(x, axis=axis)).reshape(got.shape), rtol=1e-4,
                        atol=1e-3)


def test_nansum_and_nanprod_skip_nan():
    x = nd.array([1, np.nan, 2, 3])
    assert nd.nansum(x).asnumpy()[0] == 6
    assert nd.nanprod(x).asnumpy()[0] == 6


def test_reduce_aliases_and_output_shapes():
    x = nd.ones((2, 3, 4))
    assert nd.sum_axis(x, axis=1).shape == (2, 4)
    assert nd.max_axis(x, axis=0).shape == (3, 4)
    assert nd.min_axis(x, axis=2, keepdims=True).shape == (2, 3, 1)
    assert nd.sum(x).shape == (1,)
    assert nd.sum(x, keepdims=True).shape == (1, 1, 1)
    assert nd.sum(x, axis=(0, 1, 2), exclude=True).shape == (2, 3, 4)
    assert nd.sum(x, axis=[2, 0]).shape == (3,)
    assert nd.sum(nd.ones((5,)), axis=0).shape == (1,)


@mx.use_np_shape  # zero-size arrays need numpy-shape semantics
def test_reductions_over_empty_axes_give_the_identity():
    x = nd.zeros((2, 0, 3))
    np.testing.assert_array_equal(nd.sum(x, axis=1).asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(nd.prod(x, axis=1).asnumpy(), np.ones((2, 3)))
    assert nd.sum(x, axis=0).shape == (0, 3)
    with pytest.raises(MXNetError):
        nd.max(x, axis=1).wait_to_read()


@pytest.mark.parametrize("kwargs", [{"axis": 3}, {"axis": -4}, {"axis": (0, 0)},
                                    {"axis": (0, -3)}, {"axis": "x"}, {"keepdims": "maybe"},
                                    {"foo": 1}])
def test_reduce_bad_arguments_raise(kwargs):
    with pytest.raises(MXNetError):
        nd.sum(nd.ones((2, 3, 4)), **kwargs).wait_to_read()


def test_reduce_error_message_names_operator_and_argument():
    with pytest.raises(MXNetError) as e:
        nd.mean(nd.ones((2, 3)), axis=5).wait_to_read()
    assert "mean" in str(e.value) and "axis" in str(e.value)


# ---------------------------------------------------------------- norm
@pytest.mark.parametrize("ord_", [1, 2])
@pytest.mark.parametrize("dtype", FLOATS)
def test_norm_matches_numpy(ord_, dtype):
    rng = np.random.RandomState(4)
    x = rng.uniform(-2, 2, size=(3, 4, 5)).astype(dtype)
    fn = (lambda v, axis, keepdims: np.abs(v).sum(axis=axis, keepdims=keepdims)) if ord_ == 1 else \
        (lambda v, axis, keepdims: np.sqrt((v * v).sum(axis=axis, keepdims=keepdims)))
    for axis in [None, 0, -1, (0, 2), (0, 1, 2)]:
        for keepdims in [False, True]:
            kw = {"ord": ord_, "keepdims": keepdims}
            if axis is not None:
                kw["axis"] = axis
            out = nd.norm(nd.array(x, dtype=dtype), **kw)
            ref = np_reduce(fn, x.astype(np.float64), x.shape, axis, False, keepdims)
            assert out.dtype == dtype
            assert out.shape == ref.shape
            assert_almost_equal(out.asnumpy().astype(np.float64), ref, rtol=TOL[dtype],
                                atol=TOL[dtype])


def test_norm_out_dtype_and_integer_inputs():
    x = nd.array([[3, 4], [0, 12]], dtype=np.int32)
    assert nd.norm(x).asnumpy().tolist() == [13]
    np.testing.assert_array_equal(nd.norm(x, axis=1).asnumpy(), [5, 12])
    assert nd.norm(x, ord=1).asnumpy().tolist() == [19]
    out = nd.norm(x, out_dtype="float32")
    assert out.dtype == np.float32 and out.asnumpy()[0] == 13.0
    h = nd.norm(nd.array([3, 4], dtype=np.float16), out_dtype="float64")
    assert h.dtype == np.float64 and h.asnumpy()[0] == 5.0


@pytest.mark.parametrize("kwargs", [{"ord": 3}, {"ord": 0}, {"axis": 2},
                                    {"out_dtype": "uint8"}])
def test_norm_bad_arguments_raise(kwargs):
    with pytest.raises(MXNetError):
        nd.norm(nd.ones((2, 3)), **kwargs).wait_to_read()


# ---------------------------------------------------------------- argmax / argmin
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_argmax_argmin_match_numpy_and_return_input_dtype(dtype):
    rng = np.random.RandomState(5)
    x = rng.randint(0, 5, size=(3, 4, 5)).astype(dtype)  # many ties: first index wins
    a = nd.array(x, dtype=dtype)
    for axis in [0, 1, 2, -1]:
        for op, ref in [("argmax", np.argmax), ("argmin", np.argmin)]:
            out = getattr(nd, op)(a, axis=axis)
            assert out.dtype == dtype
            np.testing.assert_array_equal(out.asnumpy(), ref(x, axis=axis))
            kd = getattr(nd, op)(a, axis=axis, keepdims=True)
            np.testing.assert_array_equal(kd.asnumpy(),
                                          np.expand_dims(ref(x, axis=axis), axis % 3))
    assert nd.argmax(a).shape == (1,)
    assert nd.argmax(a).asnumpy()[0] == np.argmax(x)
    assert nd.argmin(a, keepdims=True).shape == (1, 1, 1)


def test_argmax_treats_nan_as_extreme_like_numpy():
    x = np.array([[1, np.nan, 3], [5, 2, 1]], dtype=np.float32)
    np.testing.assert_array_equal(nd.argmax(nd.array(x), axis=1).asnumpy(), [1, 0])
    np.testing.assert_array_equal(nd.argmin(nd.array(x), axis=1).asnumpy(), [1, 2])


def test_argmax_large_flat_input_finds_first_maximum():
    x = np.zeros((100003,), dtype=np.float32)
    x[[70000, 90000]] = 5
    assert nd.argmax(nd.array(x)).asnumpy()[0] == 70000


def test_argmax_channel_reduces_axis_1():
    x = np.random.RandomState(6).uniform(size=(2, 3, 4)).astype(np.float32)
    out = nd.argmax_channel(nd.array(x))
    assert out.shape == (2, 4)
    np.testing.assert_array_equal(out.asnumpy(), x.argmax(axis=1))
    np.testing.assert_array_equal(nd.argmax_channel(nd.array(x[:, :, 0])).asnumpy(),
                                  x[:, :, 0].argmax(axis=1))


def test_argmax_bad_inputs_raise():
    with pytest.raises(MXNetError):
        nd.argmax(nd.ones((2, 3)), axis=2).wait_to_read()
    with pytest.raises(MXNetError):
        nd.argmax(nd.ones((2, 3), dtype=np.bool_), axis=0).wait_to_read()
    with pytest.raises(MXNetError):
        nd.argmax_channel(nd.ones((4,))).wait_to_read()
    with pytest.raises(MXNetError):
        nd.argmin(nd.ones((2, 0)), axis=1).wait_to_read()


def test_argmax_is_not_differentiable_but_does_not_break_backward():
    x = nd.array([[1, 3], [4, 2]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.sum(x) + nd.sum(nd.argmax(x, axis=1))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.ones((2, 2)))


# ---------------------------------------------------------------- reduction gradients
GRAD_CASES = [((3, 4), None, False, False), ((3, 4), 1, False, True), ((2, 3, 4), (0, 2), False, False),
              ((2, 3, 4), 1, True, True), ((2, 3, 4), -1, False, True)]


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "max", "min", "nansum", "nanprod"])
@pytest.mark.parametrize("shape,axis,exclude,keepdims", GRAD_CASES)
def test_reduction_gradients_match_numeric(op, shape, axis, exclude, keepdims):
    rng = np.random.RandomState(7)
    # distinct values keep max/min differentiable; away from 0 keeps prod's x/prod well defined
    x = (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1 + 0.5)
    kw = mx_kwargs(axis, keepdims, exclude)
    check_numeric_gradient(lambda a: getattr(nd, op)(a, **kw), [x], numeric_eps=1e-4,
                           rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ord_", [1, 2])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_norm_gradient_matches_numeric(ord_, axis):
    x = np.random.RandomState(8).uniform(0.2, 1, size=(2, 3, 4)) * np.array([1, -1, 1, -1])
    kw = {"ord": ord_} if axis is None else {"ord": ord_, "axis": axis}
    check_numeric_gradient(lambda a: nd.norm(a, **kw), [x], numeric_eps=1e-5, rtol=1e-4,
                           atol=1e-6)


def test_nansum_gradient_is_zero_at_nan():
    x = nd.array([1, np.nan, 2])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.nansum(x)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [1, 0, 1])


def test_max_gradient_goes_to_every_tied_maximum():
    x = nd.array([[1, 3, 3], [2, 0, 1]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.max(x, axis=1)
    y.backward(nd.array([10, 20]))
    np.testing.assert_array_equal(x.grad.asnumpy(), [[0, 10, 10], [20, 0, 0]])


def test_mean_gradient_in_float16_and_float32():
    for dtype in [np.float16, np.float32]:
        x = nd.ones((4, 5), dtype=dtype)
        x.attach_grad()
        with mx.autograd.record():
            y = nd.mean(x, axis=0)
        y.backward()
        assert x.grad.dtype == dtype
        assert_almost_equal(x.grad.asnumpy().astype(np.float64), np.full((4, 5), 0.25))


def test_expand_reduced_like_spreads_and_is_differentiable():
    like = nd.zeros((2, 3, 4))
    g = nd.array(np.arange(3, dtype=np.float32))
    out = _int._expand_reduced_like(g, like, axis=(0, 2))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(np.arange(3)[None, :, None], (2, 3, 4)))
    out = _int._expand_reduced_like(g, like, axis=(0, 2), normalize=True)
    assert_almost_equal(out.asnumpy(), np.broadcast_to(np.arange(3)[None, :, None] / 8.0, (2, 3, 4)))
    # data may have another dtype than like: the output takes like's
    out = _int._expand_reduced_like(nd.array([2], dtype=np.float64), like)
    assert out.dtype == np.float32 and out.shape == (2, 3, 4)
    check_numeric_gradient(lambda a, b: _int._expand_reduced_like(a, b, axis=1, keepdims=True,
                                                                  normalize=True),
                           [np.random.uniform(size=(2, 1, 4)), np.zeros((2, 3, 4))],
                           grad_nodes=[0], rtol=1e-4, atol=1e-6)
    with pytest.raises(MXNetError):
        _int._expand_reduced_like(nd.zeros((3,)), like, axis=1).wait_to_read()


# ---------------------------------------------------------------- topk / sort / argsort
def np_topk_order(x, axis, ascend):
    """Stable order along axis: ascending with NaN last, or descending with NaN first."""
    if ascend:
        return np.argsort(x, axis=axis, kind="stable")
    key = np.where(np.isnan(x), np.inf, x) if x.dtype.kind == "f" else x
    if x.dtype.kind == "f":
        key = -key
    elif x.dtype.kind == "u":
        key = -(key.astype(np.int64))
    else:
        key = -(key.astype(np.int64))
    return np.argsort(key, axis=axis, kind="stable")


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("ascend", [False, True])
def test_topk_values_indices_mask_match_numpy(dtype, ascend):
    rng = np.random.RandomState(9)
    x = rng.randint(0, 6, size=(3, 4, 7)).astype(dtype)  # ties decided by index order
    a = nd.array(x, dtype=dtype)
    for axis in [-1, 0, 1]:
        order = np_topk_order(x, axis, ascend)
        n = x.shape[axis]
        for k in [1, 3, n, 0]:
            kk = n if k < 1 else k
            idx = np.take(order, np.arange(kk), axis=axis)
            vals = np.take_along_axis(x, idx, axis=axis)
            v, i = nd.topk(a, axis=axis, k=k, ret_typ="both", is_ascend=ascend)
            assert v.dtype == dtype and i.dtype == np.float32
            np.testing.assert_array_equal(v.asnumpy(), vals)
            np.testing.assert_array_equal(i.asnumpy(), idx)
            ind = nd.topk(a, axis=axis, k=k, is_ascend=ascend, dtype="int64")
            assert ind.dtype == np.int64
            np.testing.assert_array_equal(ind.asnumpy(), idx)
            np.testing.assert_array_equal(
                nd.topk(a, axis=axis, k=k, ret_typ="value", is_ascend=ascend).asnumpy(), vals)
            mask = nd.topk(a, axis=axis, k=k, ret_typ="mask", is_ascend=ascend)
            ref = np.zeros_like(x)
            np.put_along_axis(ref, idx, 1, axis=axis)
            assert mask.dtype == dtype
            np.testing.assert_array_equal(mask.asnumpy(), ref)


def test_topk_defaults_and_flattened_axis():
    x = np.array([[3, 1, 2, 2], [0, 5, -1, 5]], dtype=np.float32)
    a = nd.array(x)
    np.testing.assert_array_equal(nd.topk(a).asnumpy(), [[0], [1]])
    v, i = nd.topk(a, axis=None, k=3, ret_typ="both")
    np.testing.assert_array_equal(v.asnumpy(), [5, 5, 3])
    np.testing.assert_array_equal(i.asnumpy(), [5, 7, 0])
    m = nd.topk(a, axis=None, k=3, ret_typ="mask")
    np.testing.assert_array_equal(m.asnumpy(), [[1, 0, 0, 0], [0, 1, 0, 1]])
    for dt in ["int32", "uint8", "float16", "float64"]:
        assert nd.topk(a, k=2, dtype=dt).dtype == np.dtype(dt)


def test_topk_bad_arguments_raise():
    a = nd.ones((2, 4))
    for kw in [{"k": 5}, {"axis": 2}, {"ret_typ": "all"}, {"dtype": "int8"}]:
        with pytest.raises(MXNetError):
            nd.topk(a, **kw).wait_to_read()
    with pytest.raises(MXNetError):  # uint8 cannot hold index 299
        nd.topk(nd.ones((300,)), k=2, dtype="uint8").wait_to_read()
    with pytest.raises(MXNetError):
        nd.topk(nd.ones((3,), dtype=np.bool_)).wait_to_read()


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_sort_and_argsort_match_stable_numpy(dtype):
    rng = np.random.RandomState(10)
    x = rng.randint(0, 9, size=(4, 5, 6)).astype(dtype)
    a = nd.array(x, dtype=dtype)
    for axis in [-1, 0, 1, None]:
        for ascend in [True, False]:
            kw = {"is_ascend": ascend}
            if axis is not None:
                kw["axis"] = axis
            flat = x.reshape(-1) if axis is None else x
            ax = 0 if axis is None else axis
            order = np_topk_order(flat, ax, ascend)
            s = nd.sort(a, **kw) if axis is not None else nd.sort(a, axis=None, is_ascend=ascend)
            i = nd.argsort(a, **kw) if axis is not None else nd.argsort(a, axis=None, is_ascend=ascend)
            assert s.dtype == dtype and i.dtype == np.float32
            np.testing.assert_array_equal(s.asnumpy(), np.take_along_axis(flat, order, axis=ax))
            np.testing.assert_array_equal(i.asnumpy(), order)
    assert nd.argsort(a, dtype="int32").dtype == np.int32


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint8, np.int32,
                                   np.float64, np.int64])
def test_long_rows_with_ties_sort_stably(dtype):
    rng = np.random.RandomState(16)
    x = rng.randint(0, 7, size=(3, 1500)).astype(dtype)
    if x.dtype.kind == "f":
        x[0, ::5] = -0.0
        x[1, ::11] = np.nan
    a = nd.array(x, dtype=dtype)
    for ascend in [True, False]:
        order = np_topk_order(x, -1, ascend)
        np.testing.assert_array_equal(nd.argsort(a, is_ascend=ascend).asnumpy(), order)
        np.testing.assert_array_equal(nd.sort(a, is_ascend=ascend).asnumpy(),
                                      np.take_along_axis(x, order, axis=-1))
        np.testing.assert_array_equal(nd.topk(a, k=900, is_ascend=ascend).asnumpy(),
                                      order[:, :900])


def test_sort_puts_nan_last_ascending_and_first_descending():
    x = nd.array([1, np.nan, 3, 2])
    s = nd.sort(x).asnumpy()
    assert s[:3].tolist() == [1, 2, 3] and np.isnan(s[3])
    s = nd.sort(x, is_ascend=False).asnumpy()
    assert np.isnan(s[0]) and s[1:].tolist() == [3, 2, 1]


def test_large_sort_matches_numpy():
    x = np.random.RandomState(11).uniform(size=(64, 3000)).astype(np.float32)
    np.testing.assert_array_equal(nd.sort(nd.array(x)).asnumpy(), np.sort(x, axis=-1))
    np.testing.assert_array_equal(nd.argsort(nd.array(x), axis=0, dtype="int64").asnumpy(),
                                  np.argsort(x, axis=0, kind="stable"))


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_sort_and_topk_gradients_match_numeric(axis):
    x = np.random.RandomState(12).permutation(24).reshape(2, 3, 4) * 0.1
    kw = {} if axis == -1 else {"axis": axis}
    check_numeric_gradient(lambda a: nd.sort(a, is_ascend=False, **kw), [x], rtol=1e-4,
                           atol=1e-6)
    check_numeric_gradient(lambda a: nd.topk(a, k=2, ret_typ="value", **kw), [x], rtol=1e-4,
                           atol=1e-6)
    check_numeric_gradient(lambda a: nd.topk(a, k=2, ret_typ="both", is_ascend=True, **kw)[0],
                           [x], rtol=1e-4, atol=1e-6)


def test_topk_indices_and_mask_have_zero_gradient():
    x = nd.array([[3, 1, 2]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.topk(x, k=2, ret_typ="mask") * x
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[1, 0, 1]])


def test_topk_scatter_and_gather_are_adjoint():
    data = nd.array([[10, 20, 30], [40, 50, 60]])
    idx = nd.array([[2, 0], [1, 1]])
    g = _int._topk_gather(data, idx, axis=1)
    np.testing.assert_array_equal(g.asnumpy(), [[30, 10], [50, 50]])
    s = _int._topk_scatter(nd.array([[1, 2], [3, 4]]), idx, data, axis=1)
    np.testing.assert_array_equal(s.asnumpy(), [[2, 0, 1], [0, 7, 0]])  # repeats add up
    flat = _int._topk_scatter(nd.array([5, 6]), nd.array([4, 0], dtype=np.int64), data, axis=None)
    np.testing.assert_array_equal(flat.asnumpy(), [[6, 0, 0], [0, 5, 0]])
    with pytest.raises(MXNetError):
        _int._topk_gather(data, nd.array([[3, 0], [0, 0]]), axis=1).wait_to_read()


# ---------------------------------------------------------------- broadcast_to / like / axis
@pytest.mark.parametrize("dtype", FLOATS + INTS + [np.bool_])
def test_broadcast_to_matches_numpy(dtype):
    x = (np.arange(6).reshape(2, 1, 3) % 2).astype(dtype)
    a = nd.array(x, dtype=dtype)
    for shape, ref_shape in [((2, 4, 3), (2, 4, 3)), ((0, 5, 0), (2, 5, 3)), ((2, 1, 3), (2, 1, 3)),
                             ((4, 2, 3, 3), (4, 2, 3, 3))]:
        out = nd.broadcast_to(a, shape=shape)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x, ref_shape))


def test_broadcast_to_bad_shapes_raise():
    a = nd.ones((2, 1))
    for shape in [(3, 3), (3,), (), (-1, 3)]:
        with pytest.raises(MXNetError):
            nd.broadcast_to(a, shape=shape).wait_to_read()


def test_broadcast_axis_and_alias():
    x = np.arange(2, dtype=np.float32).reshape(1, 2, 1)
    a = nd.array(x)
    out = nd.broadcast_axis(a, axis=(0, 2), size=(3, 4))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x, (3, 2, 4)))
    assert nd.broadcast_axes(a, axis=-1, size=5).shape == (1, 2, 5)
    assert nd.broadcast_axis(a).shape == (1, 2, 1)
    for kw in [{"axis": 1, "size": 3}, {"axis": (0,), "size": (3, 4)}, {"axis": 3, "size": 2}]:
        with pytest.raises(MXNetError):
            nd.broadcast_axis(a, **kw).wait_to_read()


def test_broadcast_like_full_and_by_axes():
    x = np.arange(2, dtype=np.float32).reshape(2, 1)
    out = nd.broadcast_like(nd.array(x), nd.ones((2, 3), dtype=np.int32))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x, (2, 3)))
    assert nd.broadcast_like(nd.array(x), nd.ones((4, 2, 3))).shape == (4, 2, 3)
    l = nd.ones((1, 2, 1))
    r = nd.ones((5, 6, 7, 8))
    assert nd.broadcast_like(l, r, lhs_axes=(0, 2), rhs_axes=(1, 3)).shape == (6, 2, 8)
    assert nd.broadcast_like(l, r, lhs_axes=(0, -1), rhs_axes=(-3, -1)).shape == (6, 2, 8)
    for kw in [{"lhs_axes": (0,), "rhs_axes": (1, 3)}, {"lhs_axes": (1,), "rhs_axes": (0,)},
               {"lhs_axes": (3,), "rhs_axes": (0,)}]:
        with pytest.raises(MXNetError):
            nd.broadcast_like(l, r, **kw).wait_to_read()
    with pytest.raises(MXNetError):
        nd.broadcast_like(nd.ones((2, 2)), nd.ones((3, 3))).wait_to_read()


def test_reduce_to_like_sums_broadcast_axes():
    x = np.random.RandomState(13).uniform(size=(4, 2, 3, 5)).astype(np.float32)
    a = nd.array(x)
    for like_shape, axes in [((2, 1, 5), (0, 2)), ((1, 1), (0, 1, 2, 3)), ((5,), (0, 1, 2)),
                             ((4, 2, 3, 5), ()), ((1, 2, 3, 1), (0, 3))]:
        out = _int._reduce_to_like(a, nd.zeros(like_shape))
        assert out.shape == like_shape
        ref = x.sum(axis=axes, keepdims=True).reshape(like_shape) if axes else x
        assert_almost_equal(out.asnumpy(), ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(MXNetError):
        _int._reduce_to_like(a, nd.zeros((2, 5))).wait_to_read()


def test_broadcast_gradients_match_numeric():
    x = np.random.RandomState(14).uniform(size=(2, 1, 3))
    check_numeric_gradient(lambda a: nd.broadcast_to(a, shape=(2, 4, 3)), [x], rtol=1e-4,
                           atol=1e-6)
    check_numeric_gradient(lambda a: nd.broadcast_to(a, shape=(5, 2, 4, 3)), [x], rtol=1e-4,
                           atol=1e-6)
    check_numeric_gradient(lambda a: nd.broadcast_axis(a, axis=1, size=4), [x], rtol=1e-4,
                           atol=1e-6)
    check_numeric_gradient(lambda a, b: nd.broadcast_like(a, b), [x, np.zeros((2, 4, 3))],
                           grad_nodes=[0], rtol=1e-4, atol=1e-6)
    check_numeric_gradient(lambda a: _int._reduce_to_like(a, nd.zeros((1, 3), dtype=a.dtype)),
                           [np.random.uniform(size=(2, 4, 3))], rtol=1e-4, atol=1e-6)


def test_second_order_gradient_of_broadcast_through_reduce_to_like():
    x = nd.array([[1.0], [2.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.broadcast_to(x, shape=(2, 3))
        z = nd.sum(y * y)
        (g,) = mx.autograd.grad(z, [x], create_graph=True)  # g = 6 x
        w = nd.sum(g * g)  # 36 x^2 -> dw/dx = 72 x
    w.backward()
    assert_almost_equal(g.asnumpy(), [[6.0], [12.0]])
    assert_almost_equal(x.grad.asnumpy(), [[72.0], [144.0]])
