# Pooling and BatchNorm: forward against numpy references, gradients against central differences
# (Pooling) or the analytic batch-norm derivative, moving statistics, and bad arguments.
import itertools

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.base import MXNetError
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient

nd = mx.nd


# ------------------------------------------------------------------------------ Pooling
def _out_size(x, k, p, s, convention):
    if convention == "full":
        return 1 + int(np.ceil((x + 2 * p - k) / s))
    return 1 + (x + 2 * p - k) // s


def np_pool(x, kernel, stride, pad, pool_type, convention="valid", count_include_pad=True,
            p_value=None):
    """Pooling of an NC... array; windows clipped as MXNet, padding never enters max."""
    nsp = x.ndim - 2
    outs = [_out_size(x.shape[2 + d], kernel[d], pad[d], stride[d], convention)
            for d in range(nsp)]
    y = np.zeros(x.shape[:2] + tuple(outs), dtype=np.float64)
    for o in itertools.product(*[range(n) for n in outs]):
        sl, with_pad = [], 1
        for d in range(nsp):
            start = o[d] * stride[d] - pad[d]
            end = min(start + kernel[d], x.shape[2 + d] + pad[d])
            with_pad *= end - start
            sl.append(slice(max(start, 0), min(end, x.shape[2 + d])))
        win = x[(slice(None), slice(None)) + tuple(sl)].astype(np.float64)
        win = win.reshape(x.shape[0], x.shape[1], -1)
        idx = (slice(None), slice(None)) + o
        if pool_type == "max":
            y[idx] = win.max(axis=2) if win.shape[2] else np.finfo(x.dtype).min
        elif pool_type == "sum":
            y[idx] = win.sum(axis=2)
        elif pool_type == "avg":
            y[idx] = win.sum(axis=2) / (with_pad if count_include_pad else win.shape[2])
        else:
            y[idx] = np.cbrt(np.sum(win ** p_value, axis=2)) if p_value == 3 else \
                np.sum(win ** p_value, axis=2) ** (1.0 / p_value)
    return y


POOL_CASES = [
    # (shape, kernel, stride, pad)
    ((2, 3, 9), (3,), (2,), (1,)),
    ((2, 2, 7, 6), (3, 2), (2, 1), (1, 0)),
    ((1, 2, 5, 5), (2, 2), (2, 2), (0, 0)),
    ((1, 2, 4, 5, 6), (2, 3, 2), (2, 1, 2), (1, 1, 0)),
]


@pytest.mark.parametrize("shape,kernel,stride,pad", POOL_CASES)
@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("convention", ["valid", "full"])
def test_pooling_forward_matches_numpy(shape, kernel, stride, pad, pool_type, convention):
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    out = nd.Pooling(nd.array(x), kernel=kernel, stride=stride, pad=pad, pool_type=pool_type,
                     pooling_convention=convention)
    assert_almost_equal(out.asnumpy(), np_pool(x, kernel, stride, pad, pool_type, convention),
                        rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,kernel,stride,pad", POOL_CASES)
def test_avg_pooling_count_include_pad_false_divides_by_inside_count(shape, kernel, stride, pad):
    x = np.random.RandomState(1).randn(*shape).astype(np.float32)
    out = nd.Pooling(nd.array(x), kernel=kernel, stride=stride, pad=pad, pool_type="avg",
                     count_include_pad=False)
    assert_almost_equal(out.asnumpy(), np_pool(x, kernel, stride, pad, "avg",
                                               count_include_pad=False), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("p_value", [1, 2, 3])
def test_lp_pooling_matches_numpy(p_value):
    x = np.random.RandomState(2).uniform(0.5, 2, (2, 2, 5, 5)).astype(np.float64)
    out = nd.Pooling(nd.array(x, dtype="float64"), kernel=(2, 3), stride=(1, 2), pool_type="lp",
                     p_value=p_value)
    assert_almost_equal(out.asnumpy(), np_pool(x, (2, 3), (1, 2), (0, 0), "lp", p_value=p_value),
                        rtol=1e-10, atol=1e-10)


def test_pooling_values_observed_in_mxnet_191():
    x = nd.array(np.arange(25).reshape(1, 1, 5, 5))
    full_avg = nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="avg",
                          pooling_convention="full")
    assert_almost_equal(full_avg.asnumpy().ravel(),
                        np.array([3, 5, 6.5, 13, 15, 16.5, 20.5, 22.5, 24]))
    padded_avg = nd.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg")
    assert_almost_equal(padded_avg.asnumpy().ravel(),
                        np.array([12, 27, 24, 63, 108, 81, 72, 117, 84]) / 9.0, rtol=1e-6)
    # Windows lying wholly in the padding: max gives the lowest float, sum 0.
    empty_max = nd.Pooling(-x, kernel=(2, 2), pad=(1, 1), stride=(3, 3), pool_type="max",
                           pooling_convention="full").asnumpy()
    assert empty_max[0, 0, 2, 2] == np.finfo(np.float32).min
    assert empty_max[0, 0, 1, 1] == -12
    lp = nd.Pooling(nd.array([[[[1, -2], [3, -4]]]]), kernel=(2, 2), pool_type="lp", p_value=3)
    assert_almost_equal(lp.asnumpy().ravel(), np.array([-3.5303483]), rtol=1e-6)


def test_global_pooling_ignores_kernel_pad_and_stride():
    x = np.random.RandomState(3).randn(2, 3, 4, 5).astype(np.float32)
    for pool_type, ref in [("max", x.max(axis=(2, 3))), ("avg", x.mean(axis=(2, 3))),
                           ("sum", x.sum(axis=(2, 3)))]:
        out = nd.Pooling(nd.array(x), kernel=(3, 3), pad=(1, 1), stride=(2, 2), global_pool=True,
                         pool_type=pool_type)
        assert out.shape == (2, 3, 1, 1)
        assert_almost_equal(out.asnumpy()[:, :, 0, 0], ref, rtol=1e-5, atol=1e-6)
    assert nd.Pooling(nd.array(x[:, :, 0]), global_pool=True).shape == (2, 3, 1)


@pytest.mark.parametrize("layout,perm", [("NWC", (0, 2, 1)), ("NHWC", (0, 2, 3, 1)),
                                         ("NDHWC", (0, 2, 3, 4, 1))])
def test_channel_last_layout_equals_transposed_channel_first(layout, perm):
    nsp = len(perm) - 2
    x = np.random.RandomState(4).randn(*((2, 3) + (5,) * nsp)).astype(np.float32)
    kw = dict(kernel=(3,) * nsp, stride=(2,) * nsp, pad=(1,) * nsp, pool_type="avg")
    ref = nd.Pooling(nd.array(x), **kw).asnumpy().transpose(perm)
    out = nd.Pooling(nd.array(x.transpose(perm)), layout=layout, **kw)
    assert_almost_equal(out.asnumpy(), ref, rtol=1e-6, atol=1e-6)
    xl = nd.array(x.transpose(perm))
    xl.attach_grad()
    with autograd.record():
        y = nd.Pooling(xl, layout=layout, **dict(kw, pool_type="max"))
    y.backward()
    xc = nd.array(x)
    xc.attach_grad()
    with autograd.record():
        y = nd.Pooling(xc, **dict(kw, pool_type="max"))
    y.backward()
    assert_almost_equal(xl.grad.asnumpy(), xc.grad.asnumpy().transpose(perm))


def test_same_convention_has_ceil_outputs_running_past_the_end():
    x = nd.array(np.arange(10).reshape(1, 1, 10))
    # Values observed in MXNet 1.9.1; extra pad entries are accepted when all zero.
    for kw, expected in [(dict(kernel=2, stride=2, pool_type="max"), [1, 3, 5, 7, 9]),
                         (dict(kernel=3, stride=2, pool_type="avg"), [1, 3, 5, 7, 8.5]),
                         (dict(kernel=3, stride=2, pool_type="sum"), [3, 9, 15, 21, 17]),
                         (dict(kernel=4, stride=3, pool_type="sum"), [6, 18, 30, 9])]:
        out = nd.Pooling(x, pad=(0, 0, 0), pooling_convention="same", **kw)
        assert_almost_equal(out.asnumpy().ravel(), np.array(expected, dtype=np.float32))


@pytest.mark.parametrize("dtype,tol", [("float16", 1e-2), ("float64", 1e-12)])
def test_pooling_dtypes(dtype, tol):
    x = np.random.RandomState(5).randn(2, 2, 6, 6).astype(dtype)
    for pool_type in ["max", "avg"]:
        out = nd.Pooling(nd.array(x, dtype=dtype), kernel=(2, 2), stride=(2, 2),
                         pool_type=pool_type)
        assert out.dtype == np.dtype(dtype)
        assert_almost_equal(out.asnumpy(), np_pool(x, (2, 2), (2, 2), (0, 0), pool_type),
                            rtol=tol, atol=tol)


@pytest.mark.parametrize("shape,kernel,stride,pad", POOL_CASES)
@pytest.mark.parametrize("pool_type,extra", [("max", {}), ("avg", {}), ("sum", {}),
                                             ("avg", {"count_include_pad": False}),
                                             ("lp", {"p_value": 2}), ("lp", {"p_value": 3})])
def test_pooling_gradient_matches_central_differences(shape, kernel, stride, pad, pool_type,
                                                      extra):
    rs = np.random.RandomState(6)
    x = rs.uniform(0.5, 2, shape) if pool_type == "lp" else rs.randn(*shape)
    check_numeric_gradient(
        lambda a: nd.Pooling(a, kernel=kernel, stride=stride, pad=pad, pool_type=pool_type,
                             pooling_convention="full", **extra),
        [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-7)


def test_max_pooling_gradient_goes_to_first_maximum_on_ties():
    x = nd.array([[[[1, 3, 3], [3, 2, 3], [0, 0, 0]]]])
    x.attach_grad()
    with autograd.record():
        y = nd.Pooling(x, kernel=(2, 2), stride=(1, 1), pool_type="max")
    y.backward()
    assert_almost_equal(x.grad.asnumpy()[0, 0], np.array([[0, 2, 0], [1, 0, 1], [0, 0, 0]]))


def test_lp1_gradient_is_one_and_lp2_is_ratio():
    x = nd.array([[[[1, -2], [3, -4]]]])
    x.attach_grad()
    for p, expected in [(1, [1, 1, 1, 1]), (2, np.array([1, -2, 3, -4]) / np.sqrt(30))]:
        with autograd.record():
            y = nd.Pooling(x, kernel=(2, 2), pool_type="lp", p_value=p)
        y.backward()
        assert_almost_equal(x.grad.asnumpy().ravel(), np.array(expected), rtol=1e-6)


def _raises(fn, *words):
    with pytest.raises(MXNetError) as e:
        fn().wait_to_read()
    for w in words:
        assert w in str(e.value), str(e.value)


def test_pooling_bad_arguments_raise_naming_op_and_argument():
    x = nd.ones((1, 1, 5, 5))
    _raises(lambda: nd.Pooling(x, kernel=(6, 6)), "Pooling", "kernel", "(6,6)", "padded", "5")
    _raises(lambda: nd.Pooling(x, kernel=(2, 2), pool_type="foo"), "pool_type", "foo")
    _raises(lambda: nd.Pooling(x, kernel=(2,)), "Pooling", "kernel", "(1,1,5,5)")
    _raises(lambda: nd.Pooling(x), "Pooling", "kernel")
    _raises(lambda: nd.Pooling(x, kernel=(2, 2), stride=(2,)), "Pooling", "stride")
    _raises(lambda: nd.Pooling(x, kernel=(2, 2), layout="NCW"), "Pooling", "layout", "NCW")
    _raises(lambda: nd.Pooling(x, kernel=(2, 2), pool_type="lp"), "Pooling", "p_value")
    _raises(lambda: nd.Pooling(x, kernel=(2, 2), pool_type="lp", p_value=4), "p_value", "4")
    _raises(lambda: nd.Pooling(nd.ones((1, 3)), kernel=(2,)), "Pooling", "data", "(1,3)")
    _raises(lambda: nd.Pooling(x.astype("int32"), kernel=(2, 2)), "Pooling", "int32")
    _raises(lambda: nd.Pooling(nd.ones((1, 1, 7)), kernel=(3,), pad=(0, 1),
                               pooling_convention="same"), "Pooling", "pad", "(0,1)")


# ------------------------------------------------------------------------------ BatchNorm
def _bn_inputs(shape, axis, dtype="float32", seed=7):
    rs = np.random.RandomState(seed)
    c = shape[axis]
    pdtype = "float32" if dtype == "float16" else dtype
    return (rs.randn(*shape).astype(dtype), rs.uniform(0.5, 1.5, c).astype(pdtype),
            rs.randn(c).astype(pdtype), rs.randn(c).astype(pdtype),
            rs.uniform(0.5, 2, c).astype(pdtype))


def _bcast(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def np_bn(x, gamma, beta, mean, var, axis, eps, fix_gamma):
    g = np.ones_like(gamma) if fix_gamma else gamma
    b = lambda v: _bcast(v.astype(np.float64), x.ndim, axis)  # noqa: E731
    return (x - b(mean)) / np.sqrt(b(var) + eps) * b(g) + b(beta)


def _batch_stats(x, axis):
    red = tuple(i for i in range(x.ndim) if i != axis)
    return x.astype(np.float64).mean(axis=red), x.astype(np.float64).var(axis=red)


BN_CASES = [((4, 3, 2, 2), 1), ((5, 4), 1), ((3, 2, 4), -1), ((2, 3, 4), 0), ((2, 3, 2, 2, 2), 2)]


@pytest.mark.parametrize("shape,axis", BN_CASES)
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_batchnorm_outside_training_uses_moving_statistics(shape, axis, fix_gamma):
    x, g, b, mm, mv = _bn_inputs(shape, axis)
    out = nd.BatchNorm(*[nd.array(a) for a in (x, g, b, mm, mv)], axis=axis, eps=1e-3,
                       fix_gamma=fix_gamma)
    assert_almost_equal(out.asnumpy(), np_bn(x, g, b, mm, mv, axis % x.ndim, 1e-3, fix_gamma),
                        rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,axis", BN_CASES)
def test_batchnorm_training_uses_batch_statistics_and_outputs_mean_invstd(shape, axis):
    x, g, b, mm, mv = _bn_inputs(shape, axis)
    arrays = [nd.array(a) for a in (x, g, b, mm, mv)]
    with autograd.train_mode():
        out, mean, invstd = nd.BatchNorm(*arrays, axis=axis, fix_gamma=False,
                                         output_mean_var=True)
    ax = axis % x.ndim
    bm, bv = _batch_stats(x, ax)
    assert_almost_equal(out.asnumpy(), np_bn(x, g, b, bm, bv, ax, 1e-3, False), rtol=1e-4,
                        atol=1e-5)
    assert_almost_equal(mean.asnumpy(), bm, rtol=1e-5, atol=1e-6)
    assert_almost_equal(invstd.asnumpy(), 1 / np.sqrt(bv + 1e-3), rtol=1e-5, atol=1e-6)
    # No backward ran: the moving statistics are untouched.
    assert_almost_equal(arrays[3].asnumpy(), mm)
    assert_almost_equal(arrays[4].asnumpy(), mv)


def test_batchnorm_visible_outputs_follow_output_mean_var():
    arrays = [nd.array(a) for a in _bn_inputs((2, 3, 2), 1)]
    assert isinstance(nd.BatchNorm(*arrays), nd.NDArray)
    outs = nd.BatchNorm(*arrays, output_mean_var=True)
    assert [o.shape for o in outs] == [(2, 3, 2), (3,), (3,)]
    # Outside training the outputs are the moving mean and its inverse std.
    assert_almost_equal(outs[1].asnumpy(), arrays[3].asnumpy())
    assert_almost_equal(outs[2].asnumpy(), 1 / np.sqrt(arrays[4].asnumpy() + 1e-3), rtol=1e-6)


def np_bn_backward(x, g, og, axis, eps, fix_gamma):
    red = tuple(i for i in range(x.ndim) if i != axis)
    m = x.size // x.shape[axis]
    mean, var = _batch_stats(x, axis)
    invstd = 1 / np.sqrt(var + eps)
    xhat = (x - _bcast(mean, x.ndim, axis)) * _bcast(invstd, x.ndim, axis)
    dbeta = og.sum(axis=red)
    dgamma = (og * xhat).sum(axis=red)
    scale = np.ones_like(g) if fix_gamma else g
    dx = _bcast(scale * invstd, x.ndim, axis) * (
        og - _bcast(dbeta / m, x.ndim, axis) - xhat * _bcast(dgamma / m, x.ndim, axis))
    return dx, (np.zeros_like(dgamma) if fix_gamma else dgamma), dbeta


@pytest.mark.parametrize("shape,axis", BN_CASES)
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_batchnorm_training_gradients_and_moving_update(shape, axis, fix_gamma):
    x, g, b, mm, mv = _bn_inputs(shape, axis, dtype="float64")
    arrays = [nd.array(a, dtype="float64") for a in (x, g, b, mm, mv)]
    for a in arrays[:3]:
        a.attach_grad()
    og = np.random.RandomState(8).randn(*shape)
    with autograd.record():
        y = nd.BatchNorm(*arrays, axis=axis, fix_gamma=fix_gamma, momentum=0.75)
    y.backward(nd.array(og, dtype="float64"))
    ax = axis % x.ndim
    dx, dg, db = np_bn_backward(x, g, og, ax, 1e-3, fix_gamma)
    assert_almost_equal(arrays[0].grad.asnumpy(), dx, rtol=1e-8, atol=1e-10)
    assert_almost_equal(arrays[1].grad.asnumpy(), dg, rtol=1e-8, atol=1e-10)
    assert_almost_equal(arrays[2].grad.asnumpy(), db, rtol=1e-8, atol=1e-10)
    bm, bv = _batch_stats(x, ax)
    assert_almost_equal(arrays[3].asnumpy(), 0.75 * mm + 0.25 * bm, rtol=1e-8, atol=1e-10)
    assert_almost_equal(arrays[4].asnumpy(), 0.75 * mv + 0.25 * bv, rtol=1e-8, atol=1e-10)


def test_batchnorm_training_gradient_matches_central_differences():
    x, g, b, mm, mv = _bn_inputs((3, 2, 3), 1, dtype="float64")
    og = np.random.RandomState(9).randn(3, 2, 3)

    def loss(xv, gv, bv):
        with autograd.train_mode():
            y = nd.BatchNorm(nd.array(xv, dtype="float64"), nd.array(gv, dtype="float64"),
                             nd.array(bv, dtype="float64"), nd.array(mm, dtype="float64"),
                             nd.array(mv, dtype="float64"), fix_gamma=False)
        return float((y.asnumpy() * og).sum())

    arrays = [nd.array(a, dtype="float64") for a in (x, g, b, mm, mv)]
    for a in arrays[:3]:
        a.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(*arrays, fix_gamma=False)
    y.backward(nd.array(og, dtype="float64"))
    vals = [x, g, b]
    for k in range(3):
        num = np.zeros_like(vals[k])
        for i in np.ndindex(vals[k].shape):
            plus = [v.copy() for v in vals]
            minus = [v.copy() for v in vals]
            plus[k][i] += 1e-6
            minus[k][i] -= 1e-6
            num[i] = (loss(*plus) - loss(*minus)) / 2e-6
        assert_almost_equal(arrays[k].grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_batchnorm_no_moving_update_outside_training_or_with_global_stats():
    x, g, b, mm, mv = _bn_inputs((4, 3), 1)
    for record_kw, bn_kw, backward_train in [({}, {"use_global_stats": True}, True),
                                             ({}, {}, False),
                                             ({"train_mode": False}, {}, False)]:
        arrays = [nd.array(a) for a in (x, g, b, mm, mv)]
        arrays[0].attach_grad()
        with autograd.record(**record_kw):
            y = nd.BatchNorm(*arrays, **bn_kw)
        y.backward(train_mode=backward_train)
        assert_almost_equal(arrays[3].asnumpy(), mm)
        assert_almost_equal(arrays[4].asnumpy(), mv)


def test_batchnorm_global_stats_gradient_is_a_scale():
    x, g, b, mm, mv = _bn_inputs((4, 3, 2), 1)
    arrays = [nd.array(a) for a in (x, g, b, mm, mv)]
    for a in arrays[:3]:
        a.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(*arrays, use_global_stats=True, fix_gamma=False)
    y.backward()
    scale = g / np.sqrt(mv + 1e-3)
    assert_almost_equal(arrays[0].grad.asnumpy(), np.ones((4, 3, 2)) * scale[None, :, None],
                        rtol=1e-5, atol=1e-6)
    xhat = (x - mm[None, :, None]) / np.sqrt(mv + 1e-3)[None, :, None]
    assert_almost_equal(arrays[1].grad.asnumpy(), xhat.sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)
    assert_almost_equal(arrays[2].grad.asnumpy(), np.full(3, 8.0))


def test_batchnorm_values_observed_in_mxnet_191():
    x = nd.array(np.arange(12).reshape(2, 3, 2))
    g, b = nd.array([0.5, 1.5, 2.0]), nd.array([0.1, 0.2, 0.3])
    mm, mv = nd.zeros(3), nd.ones(3)
    x.attach_grad()
    with autograd.record():
        y, mean, invstd = nd.BatchNorm(x, g, b, mm, mv, fix_gamma=False, output_mean_var=True)
    y.backward()
    # Per channel the batch is {2c, 2c+1, 2c+6, 2c+7}: mean 2c+3.5, variance 9.25.
    assert_almost_equal(mean.asnumpy(), np.array([3.5, 5.5, 7.5]))
    assert_almost_equal(invstd.asnumpy(), np.full(3, 1 / np.sqrt(9.251)), rtol=1e-6)
    assert_almost_equal(mm.asnumpy(), np.array([0.35, 0.55, 0.75]), rtol=1e-6)
    assert_almost_equal(mv.asnumpy(), np.full(3, 0.9 + 0.925), rtol=1e-6)
    assert_almost_equal(x.grad.asnumpy(), np.zeros((2, 3, 2)), atol=1e-6)


def test_batchnorm_float16_data_with_float32_parameters():
    x, g, b, mm, mv = _bn_inputs((4, 3, 2), 1, dtype="float16")
    out = nd.BatchNorm(nd.array(x, dtype="float16"), nd.array(g), nd.array(b), nd.array(mm),
                       nd.array(mv), fix_gamma=False, output_mean_var=True)
    assert out[0].dtype == np.float16 and out[1].dtype == np.float32
    assert_almost_equal(out[0].asnumpy(), np_bn(x, g, b, mm, mv, 1, 1e-3, False), rtol=1e-2,
                        atol=1e-2)


def test_batchnorm_bad_arguments_raise_naming_op_and_argument():
    arrays = [nd.array(a) for a in _bn_inputs((2, 3, 4), 1)]
    x, g, b, mm, mv = arrays
    _raises(lambda: nd.BatchNorm(x, nd.ones(4), b, mm, mv), "BatchNorm", "gamma", "(4,)", "(3,)")
    _raises(lambda: nd.BatchNorm(x, g, b, mm, nd.ones(2)), "BatchNorm", "moving_var", "(2,)")
    _raises(lambda: nd.BatchNorm(x, g, b, mm, mv, axis=3), "BatchNorm", "axis", "(2,3,4)")
    _raises(lambda: nd.BatchNorm(x.astype("int32"), g, b, mm, mv), "BatchNorm", "int32")
    _raises(lambda: nd.BatchNorm(x.astype("float16"), g.astype("float16"), b, mm, mv),
            "BatchNorm", "gamma")


@pytest.mark.parametrize("pool_type", ["max", "avg"])
@pytest.mark.parametrize("convention,pad,include", [("valid", (0, 0), True), ("valid", (1, 1), True),
                                                    ("full", (1, 0), True), ("valid", (1, 1), False),
                                                    ("full", (0, 1), False)])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_pooling_onednn_and_plain_kernels_agree(pool_type, convention, pad, include, layout):
    rng = np.random.RandomState(11)
    shape = (2, 3, 7, 6) if layout == "NCHW" else (2, 7, 6, 3)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    results = []
    for enabled in ("1", "0"):
        mx.util.setenv("MXNET_ONEDNN_ENABLED", enabled)
        try:
            a = mx.nd.array(x)
            a.attach_grad(grad_req="add")
            for _ in range(2):  # accumulates: grad_req='add'
                with mx.autograd.record():
                    y = mx.nd.Pooling(a, kernel=(3, 2), stride=(2, 2), pad=pad,
                                      pool_type=pool_type, pooling_convention=convention,
                                      count_include_pad=include, layout=layout)
                y.backward(mx.nd.array(rng.uniform(-1, 1, y.shape)))
            results.append((y.asnumpy(), a.grad.asnumpy()))
        finally:
            mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
        rng = np.random.RandomState(11)
        rng.uniform(-1, 1, shape)  # the same head gradients for the second run
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)
