# Neural-network layer operators (FullyConnected, Dropout, Embedding, LayerNorm, InstanceNorm,
# GroupNorm, L2Normalization, LRN, SequenceMask/Last/Reverse): forward against numpy,
# gradients through mx.autograd against analytic or numerical gradients, argument errors.
import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.test_utils import assert_almost_equal

nd = mx.nd
TOL = {np.float32: (1e-4, 1e-5), np.float64: (1e-10, 1e-12)}


def _grads(fn, arrays, head=None):
    """Outputs of fn(*arrays) and the gradients of sum(out * head) for each array."""
    xs = [nd.array(a, dtype=a.dtype) for a in arrays]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = fn(*xs)
    y.backward(None if head is None else nd.array(head, dtype=head.dtype))
    return y.asnumpy(), [x.grad.asnumpy() for x in xs]


def _numeric_grad(f, arrays, head, i, eps=1e-6):
    """d sum(f(*arrays) * head) / d arrays[i] by central differences (float64)."""
    a = arrays[i]
    g = np.zeros_like(a)
    for k in range(a.size):
        old = a.flat[k]
        a.flat[k] = old + eps
        hi = np.sum(f(*arrays) * head)
        a.flat[k] = old - eps
        lo = np.sum(f(*arrays) * head)
        a.flat[k] = old
        g.flat[k] = (hi - lo) / (2 * eps)
    return g


# ------------------------------------------------------------------------- FullyConnected
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("flatten", [True, False])
@pytest.mark.parametrize("no_bias", [False, True])
def test_fully_connected_matches_numpy_forward_and_backward(dtype, flatten, no_bias):
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 4).astype(dtype)
    k = 12 if flatten else 4
    w = rng.randn(5, k).astype(dtype)
    b = rng.randn(5).astype(dtype)
    xm = x.reshape(2, 12) if flatten else x.reshape(6, 4)
    expect = xm @ w.T + (0 if no_bias else b)
    expect = expect.reshape((2, 5) if flatten else (2, 3, 5))
    head = rng.randn(*expect.shape).astype(dtype)
    arrays = [x, w] if no_bias else [x, w, b]
    y, grads = _grads(lambda *a: nd.FullyConnected(*a, num_hidden=5, no_bias=no_bias,
                                                   flatten=flatten), arrays, head)
    rtol, atol = TOL[dtype]
    assert y.dtype == dtype
    assert_almost_equal(y, expect, rtol=rtol, atol=atol)
    hm = head.reshape(-1, 5)
    assert_almost_equal(grads[0], (hm @ w).reshape(x.shape), rtol=rtol, atol=atol)
    assert_almost_equal(grads[1], hm.T @ xm, rtol=rtol, atol=atol)
    if not no_bias:
        assert_almost_equal(grads[2], hm.sum(axis=0), rtol=rtol, atol=atol)


def test_fully_connected_one_dim_data_follows_flatten():
    # flatten: (3,) is 3 rows of 1 feature; otherwise one row of 3 features.
    assert nd.FullyConnected(nd.ones((3,)), nd.ones((2, 1)), num_hidden=2,
                             no_bias=True).shape == (3, 2)
    y = nd.FullyConnected(nd.array([1, 2, 3]), nd.array([[1, 1, 1], [0, 1, 0]]), num_hidden=2,
                          no_bias=True, flatten=False)
    assert y.asnumpy().tolist() == [6, 2]


def test_fully_connected_out_accumulates_with_kAddTo_grad_req():
    x = nd.ones((2, 3))
    w = nd.ones((4, 3))
    w.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            y = nd.FullyConnected(x, w, num_hidden=4, no_bias=True)
        y.backward()
    assert (w.grad.asnumpy() == 4).all()


@pytest.mark.parametrize("flatten", [True, False])
@pytest.mark.parametrize("no_bias", [False, True])
def test_fully_connected_second_order_gradients(flatten, no_bias):
    rng = np.random.RandomState(12)
    x = nd.array(rng.randn(2, 3, 4), dtype="float64")
    k = 12 if flatten else 4
    w = nd.array(rng.randn(5, k), dtype="float64")
    b = nd.array(rng.randn(5), dtype="float64")
    for a in (x, w, b):
        a.attach_grad()
    args = [x, w] if no_bias else [x, w, b]
    with mx.autograd.record():
        y = nd.FullyConnected(*args, num_hidden=5, flatten=flatten, no_bias=no_bias)
        head = nd.array(rng.randn(*y.shape), dtype="float64")
        x_grad = mx.autograd.grad(y, [x], head_grads=head, create_graph=True,
                                  retain_graph=True)[0]
        hx = nd.array(rng.randn(*x.shape), dtype="float64")
        w_grad_grad = mx.autograd.grad(x_grad, [w], head_grads=hx, create_graph=False,
                                       retain_graph=True)[0]
        w_grad = mx.autograd.grad(y, [w], head_grads=head, create_graph=True,
                                  retain_graph=True)[0]
        hw = nd.array(rng.randn(*w.shape), dtype="float64")
        x_grad_grad = mx.autograd.grad(w_grad, [x], head_grads=hw, create_graph=False)[0]
    g = head.asnumpy().reshape(-1, 5)
    # x_grad = G W, so d<hx, x_grad>/dW = G^T hx; w_grad = G^T X, so d<hw, w_grad>/dX = G hw.
    assert_almost_equal(w_grad_grad.asnumpy(), g.T @ hx.asnumpy().reshape(-1, k), rtol=1e-10,
                        atol=1e-12)
    assert_almost_equal(x_grad_grad.asnumpy(), (g @ hw.asnumpy()).reshape(x.shape), rtol=1e-10,
                        atol=1e-12)


def test_fully_connected_backward_is_differentiable_in_the_output_gradient():
    # d/dG <dX, dX> = 2 dX W^T with dX = G W; d/dG <db, db> = 2 db on each row (db = sum_rows G).
    rng = np.random.RandomState(13)
    g, x, w = (nd.array(rng.randn(*s), dtype="float64") for s in [(3, 2), (3, 4), (2, 4)])
    for a in (g, x, w):
        a.attach_grad()
    with mx.autograd.record():
        dx, dw, db = nd._internal._backward_FullyConnected(g, x, w, num_hidden=2)
        z = (dx * dx).sum() + (db * db).sum()
    z.backward()
    gn, wn = g.asnumpy(), w.asnumpy()
    expect = 2 * (gn @ wn) @ wn.T + 2 * gn.sum(axis=0)
    assert_almost_equal(g.grad.asnumpy(), expect, rtol=1e-10, atol=1e-12)
    assert_almost_equal(w.grad.asnumpy(), 2 * gn.T @ (gn @ wn), rtol=1e-10, atol=1e-12)
    assert (x.grad.asnumpy() == 0).all()


def test_fully_connected_rejects_bad_arguments():
    x = nd.ones((2, 3))
    with pytest.raises(MXNetError, match=r"FullyConnected.*weight.*\(5,3\)"):
        nd.FullyConnected(x, nd.ones((4, 3)), nd.ones(5), num_hidden=5)
    with pytest.raises(MXNetError, match="expects 3 input"):
        nd.FullyConnected(x, nd.ones((5, 3)), num_hidden=5)
    with pytest.raises(MXNetError, match="float16"):
        nd.FullyConnected(x.astype("float16"), nd.ones((5, 3), dtype="float16"),
                          num_hidden=5, no_bias=True)
    with pytest.raises(MXNetError, match="num_hidden"):
        nd.FullyConnected(x, nd.ones((5, 3)), nd.ones(5), num_hidden=0)


# ------------------------------------------------------------------------------- Dropout
def test_dropout_is_identity_outside_training():
    x = np.random.RandomState(1).randn(4, 5).astype(np.float32)
    assert (nd.Dropout(nd.array(x), p=0.7).asnumpy() == x).all()
    with mx.autograd.record(train_mode=False):
        y = nd.Dropout(nd.array(x), p=0.7)
    assert (y.asnumpy() == x).all()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_dropout_in_training_zeroes_or_scales_each_element(dtype):
    x = nd.ones((50, 40), dtype=dtype)
    with mx.autograd.train_mode():
        y = nd.Dropout(x, p=0.25).asnumpy()
    assert y.dtype == dtype
    # The scale is computed in float32 from p (a float argument), as in MXNet.
    assert set(np.unique(y).tolist()) <= {0.0, float(dtype(np.float32(1) / np.float32(0.75)))}
    kept = (y != 0).mean()
    assert 0.7 < kept < 0.8


def test_dropout_mode_always_drops_in_inference():
    y = nd.Dropout(nd.ones((100,)), p=0.5, mode="always").asnumpy()
    assert set(np.unique(y).tolist()) == {0.0, 2.0}


def test_dropout_seed_makes_the_mask_reproducible():
    x = nd.ones((30, 30))
    mx.random.seed(7)
    a = nd.Dropout(x, mode="always").asnumpy()
    mx.random.seed(7)
    b = nd.Dropout(x, mode="always").asnumpy()
    c = nd.Dropout(x, mode="always").asnumpy()
    assert (a == b).all()
    assert not (a == c).all()


def test_dropout_axes_share_one_draw_along_them():
    with mx.autograd.train_mode():
        y = nd.Dropout(nd.ones((20, 6, 7)), p=0.5, axes=(1,)).asnumpy()
    assert (y == y[:, :1, :]).all()
    assert 0 < (y != 0).mean() < 1


def test_dropout_p_limits():
    x = nd.ones((10,))
    assert (nd.Dropout(x, p=0.0, mode="always").asnumpy() == 1).all()
    # p=1: MXNet 1.9.1 scales the all-zero mask by 1/(1-p) = inf, so every output is NaN
    assert np.isnan(nd.Dropout(x, p=1.0, mode="always").asnumpy()).all()


def test_dropout_gradient_is_the_mask():
    x = nd.array(np.random.RandomState(2).randn(8, 9))
    x.attach_grad()
    with mx.autograd.record():
        y = nd.Dropout(x, p=0.4)
    y.backward()
    mask = x.grad.asnumpy()
    assert set(np.unique(mask).tolist()) <= {0.0, np.float32(1 / 0.6)}
    assert_almost_equal(y.asnumpy(), x.asnumpy() * mask, rtol=1e-6, atol=1e-6)
    with mx.autograd.record(train_mode=False):
        y = nd.Dropout(x, p=0.4)
    y.backward()
    assert (x.grad.asnumpy() == 1).all()


def test_dropout_accepts_cudnn_off_and_has_one_visible_output():
    out = nd.Dropout(nd.ones((2, 2)), cudnn_off=True)
    assert isinstance(out, nd.NDArray)
    nd.Dropout(nd.ones((2, 2)), cudnn_off=None)


def test_dropout_rejects_bad_arguments():
    with pytest.raises(MXNetError, match="p"):
        nd.Dropout(nd.ones((2,)), p=1.5)
    with pytest.raises(MXNetError, match="axes"):
        nd.Dropout(nd.ones((2, 2)), axes=(3,))
    with pytest.raises(MXNetError, match="int32"):
        nd.Dropout(nd.ones((2,), dtype="int32"))


# ----------------------------------------------------------------------------- Embedding
@pytest.mark.parametrize("wtype", ["float32", "float64", "float16", "int32"])
def test_embedding_picks_rows_with_clipped_truncated_indices(wtype):
    w = np.arange(12).reshape(4, 3).astype(wtype)
    d = np.array([[-1, 0, 3.7], [4, 10, 1.2]], dtype=np.float32)
    y = nd.Embedding(nd.array(d), nd.array(w, dtype=wtype), input_dim=4, output_dim=3,
                     dtype=wtype)
    rows = np.clip(np.trunc(d), 0, 3).astype(int)
    assert y.dtype == np.dtype(wtype)
    assert (y.asnumpy() == w[rows]).all()


def test_embedding_weight_gradient_scatter_adds_per_index():
    w = np.arange(12).reshape(4, 3).astype(np.float64)
    d = np.array([[-1, 0, 3.7], [4, 10, 1.2]])
    head = np.random.RandomState(3).randn(2, 3, 3)
    _, (gd, gw) = _grads(lambda a, b: nd.Embedding(a, b, input_dim=4, output_dim=3),
                         [d, w], head)
    expect = np.zeros_like(w)
    for idx, g in zip(np.clip(np.trunc(d), 0, 3).astype(int).ravel(), head.reshape(-1, 3)):
        expect[idx] += g
    assert_almost_equal(gw, expect, rtol=1e-12, atol=1e-12)
    assert (gd == 0).all()


def test_embedding_weight_dtype_comes_from_the_weight():
    y = nd.Embedding(nd.array([1, 2]), nd.ones((4, 3), dtype="float64"), input_dim=4,
                     output_dim=3)
    assert y.dtype == np.float64


def test_embedding_rejects_bad_arguments():
    with pytest.raises(MXNetError, match=r"Embedding.*weight.*\(5,3\)"):
        nd.Embedding(nd.array([1]), nd.ones((4, 3)), input_dim=5, output_dim=3)
    with pytest.raises(MXNetError, match="Embedding: weight must be of a numeric dtype"):
        nd.Embedding(nd.array([1]), nd.ones((4, 3), dtype="bool"), input_dim=4, output_dim=3)
    with pytest.raises(MXNetError, match="output_dim"):
        nd.Embedding(nd.array([1]), nd.ones((4, 3)), input_dim=4)


# ------------------------------------------------------------- LayerNorm / InstanceNorm / GroupNorm
def F32(v):
    """eps arguments are float32 (as in MXNet): the value the kernels see."""
    return float(np.float32(v))


def _np_layer_norm(x, g, b, axis=-1, eps=F32(1e-5)):
    shape = [1] * x.ndim
    shape[axis] = -1
    mean = x.mean(axis=axis, keepdims=True)
    std = np.sqrt(x.var(axis=axis, keepdims=True) + eps)
    return (x - mean) / std * g.reshape(shape) + b.reshape(shape), mean, std


def _np_instance_norm(x, g, b, eps=F32(1e-3)):
    flat = x.reshape(x.shape[0], x.shape[1], -1)
    mean = flat.mean(-1, keepdims=True)
    var = flat.var(-1, keepdims=True)
    y = (flat - mean) / np.sqrt(var + eps) * g[:, None] + b[:, None]
    return y.reshape(x.shape), mean[..., 0], var[..., 0]


def _np_group_norm(x, g, b, num_groups, eps=F32(1e-5)):
    flat = x.reshape(x.shape[0], num_groups, -1)
    mean = flat.mean(-1, keepdims=True)
    std = np.sqrt(flat.var(-1, keepdims=True) + eps)
    y = (flat - mean) / std * g[:, None] + b[:, None]
    return y.reshape(x.shape), mean[..., 0], std[..., 0]


NORM_CASES = [
    ("LayerNorm", dict(), (2, 3, 4), 4, lambda x, g, b: _np_layer_norm(x, g, b)),
    ("LayerNorm", dict(axis=1, eps=1e-3), (2, 3, 4), 3,
     lambda x, g, b: _np_layer_norm(x, g, b, axis=1, eps=F32(1e-3))),
    ("LayerNorm", dict(axis=-3), (2, 3, 4), 2, lambda x, g, b: _np_layer_norm(x, g, b, axis=0)),
    ("InstanceNorm", dict(), (2, 3, 2, 2), 3, _np_instance_norm),
    ("InstanceNorm", dict(eps=0.1), (2, 3, 5), 3,
     lambda x, g, b: _np_instance_norm(x, g, b, eps=F32(0.1))),
    ("GroupNorm", dict(num_groups=2), (2, 4, 3), 2,
     lambda x, g, b: _np_group_norm(x, g, b, 2)),
    ("GroupNorm", dict(), (3, 2, 2, 2), 1, lambda x, g, b: _np_group_norm(x, g, b, 1)),
]


@pytest.mark.parametrize("op,kwargs,shape,nparam,ref", NORM_CASES)
def test_row_norms_forward_and_gradients_match_numpy(op, kwargs, shape, nparam, ref):
    rng = np.random.RandomState(4)
    x, g, b = rng.randn(*shape), rng.rand(nparam) + 0.5, rng.randn(nparam)
    head = rng.randn(*shape)
    y, grads = _grads(lambda *a: getattr(nd, op)(*a, **kwargs), [x, g, b], head)
    assert_almost_equal(y, ref(x, g, b)[0], rtol=1e-10, atol=1e-10)
    f = lambda *a: ref(*a)[0]
    for i, grad in enumerate(grads):
        assert_almost_equal(grad, _numeric_grad(f, [x, g, b], head, i), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,kwargs,shape,nparam,ref",
                         [c for c in NORM_CASES if c[0] != "InstanceNorm"])
def test_row_norms_output_mean_var_shows_the_statistics(op, kwargs, shape, nparam, ref):
    rng = np.random.RandomState(5)
    x, g, b = rng.randn(*shape), rng.rand(nparam), rng.randn(nparam)
    outs = getattr(nd, op)(nd.array(x, dtype=x.dtype), nd.array(g, dtype=g.dtype),
                           nd.array(b, dtype=b.dtype), output_mean_var=True, **kwargs)
    assert len(outs) == 3
    for got, want in zip(outs, ref(x, g, b)):
        assert got.shape == want.shape
        assert_almost_equal(got.asnumpy(), want, rtol=1e-10, atol=1e-10)
    assert isinstance(getattr(nd, op)(nd.array(x), nd.array(g), nd.array(b), **kwargs),
                      nd.NDArray)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_layer_norm_low_precision_dtypes(dtype):
    x = np.random.RandomState(6).randn(3, 8).astype(dtype)
    g, b = np.ones(8, dtype), np.zeros(8, dtype)
    y = nd.LayerNorm(nd.array(x, dtype=dtype), nd.array(g, dtype=dtype), nd.array(b, dtype=dtype))
    assert y.dtype == dtype
    tol = 2e-2 if dtype == np.float16 else 1e-5
    assert_almost_equal(y.asnumpy(), _np_layer_norm(x.astype(np.float64), g, b)[0], rtol=tol,
                        atol=tol)


def test_row_norms_reject_bad_arguments():
    with pytest.raises(MXNetError, match="LayerNorm.*axis=2"):
        nd.LayerNorm(nd.ones((2, 3)), nd.ones(3), nd.ones(3), axis=2)
    with pytest.raises(MXNetError, match=r"LayerNorm.*gamma.*\(3,\)"):
        nd.LayerNorm(nd.ones((2, 3)), nd.ones(2), nd.ones(3))
    with pytest.raises(MXNetError, match="InstanceNorm.*rank >= 3"):
        nd.InstanceNorm(nd.ones((2, 3)), nd.ones(3), nd.ones(3))
    with pytest.raises(MXNetError, match="GroupNorm.*not divisible by num_groups=4"):
        nd.GroupNorm(nd.ones((2, 6, 1)), nd.ones(4), nd.ones(4), num_groups=4)
    with pytest.raises(MXNetError, match=r"GroupNorm.*gamma.*\(3,\)"):
        nd.GroupNorm(nd.ones((2, 6, 1)), nd.ones(6), nd.ones(6), num_groups=3)
    with pytest.raises(MXNetError, match="int32"):
        nd.LayerNorm(nd.ones((2, 3), dtype="int32"), nd.ones(3, dtype="int32"),
                     nd.ones(3, dtype="int32"))


# ----------------------------------------------------------------------- L2Normalization
def _np_l2(x, mode, eps=F32(1e-10)):
    axes = {"instance": tuple(range(1, x.ndim)), "channel": (1,),
            "spatial": tuple(range(2, x.ndim))}[mode]
    return x / np.sqrt((x * x).sum(axis=axes, keepdims=True) + eps)


@pytest.mark.parametrize("mode,shape", [("instance", (3, 4)), ("instance", (2, 3, 2)),
                                        ("channel", (2, 3, 4)), ("channel", (2, 3, 2, 2)),
                                        ("spatial", (2, 3, 4)), ("spatial", (2, 3, 2, 2))])
def test_l2_normalization_forward_and_gradient_match_numpy(mode, shape):
    rng = np.random.RandomState(7)
    x, head = rng.randn(*shape), rng.randn(*shape)
    y, (gx,) = _grads(lambda a: nd.L2Normalization(a, mode=mode), [x], head)
    assert_almost_equal(y, _np_l2(x, mode), rtol=1e-10, atol=1e-12)
    assert_almost_equal(gx, _numeric_grad(lambda a: _np_l2(a, mode), [x], head, 0),
                        rtol=1e-5, atol=1e-7)


def test_l2_normalization_known_values_and_eps():
    y = nd.L2Normalization(nd.array([[3, 4]]))
    assert_almost_equal(y.asnumpy(), np.array([[0.6, 0.8]]), rtol=1e-6, atol=1e-7)
    # eps keeps an all-zero vector finite.
    assert (nd.L2Normalization(nd.zeros((2, 3))).asnumpy() == 0).all()


def test_l2_normalization_rejects_too_few_axes_for_channel_and_spatial():
    for mode in ["channel", "spatial"]:
        with pytest.raises(MXNetError, match="L2Normalization: mode=%s.*3 dimensions" % mode):
            nd.L2Normalization(nd.ones((2, 3)), mode=mode)
    with pytest.raises(MXNetError, match="mode"):
        nd.L2Normalization(nd.ones((2, 3)), mode="row")


# ----------------------------------------------------------------------------------- LRN
def _np_lrn(x, nsize, alpha=F32(1e-4), beta=0.75, knorm=2.0):
    half = (nsize - 1) // 2
    sq = x * x
    s = np.zeros_like(x)
    for c in range(x.shape[1]):
        s[:, c] = sq[:, max(0, c - half):c + half + 1].sum(axis=1)
    return x * (knorm + alpha / nsize * s) ** -beta


@pytest.mark.parametrize("nsize,kwargs", [(3, {}), (5, dict(alpha=0.1, beta=0.6, knorm=1.5)),
                                          (1, dict(alpha=0.5)), (4, dict(alpha=1.0))])
def test_lrn_forward_and_gradient_match_numpy(nsize, kwargs):
    rng = np.random.RandomState(8)
    x, head = rng.randn(2, 6, 2, 3), rng.randn(2, 6, 2, 3)
    ref_kwargs = {k: F32(v) for k, v in kwargs.items()}
    f = lambda a: _np_lrn(a, nsize, **ref_kwargs)
    y, (gx,) = _grads(lambda a: nd.LRN(a, nsize=nsize, **kwargs), [x], head)
    assert_almost_equal(y, f(x), rtol=1e-10, atol=1e-12)
    assert_almost_equal(gx, _numeric_grad(f, [x], head, 0), rtol=1e-5, atol=1e-7)


def test_lrn_even_window_matches_mxnet_float32():
    # MXNet 1.9.1 (float32): nsize=2 sums only the channel itself, nsize=4 one on each side.
    x = np.array([1.764052, 0.400157, 0.978738, 2.240893, 1.867558], np.float32).reshape(1, 5, 1, 1)
    for nsize, expect in [(2, [2.5559404, 1.0800629, 1.4789641, 3.510801, 2.7438865]),
                          (4, [1.8180017, 2.0574837, 2.534914, 3.3668256, 3.1273437])]:
        y = nd.LRN(nd.array(x), nsize=nsize, alpha=1.0, beta=1.0, knorm=1.0).asnumpy()
        assert_almost_equal(x.ravel() / y.ravel(), np.array(expect), rtol=1e-5, atol=1e-5)


def test_lrn_rejects_bad_arguments():
    with pytest.raises(MXNetError, match="nsize"):
        nd.LRN(nd.ones((1, 2, 2, 2)))
    with pytest.raises(MXNetError, match="LRN: data must be"):
        nd.LRN(nd.ones((4,)), nsize=3)


# ------------------------------------------------------------- SequenceMask / Last / Reverse
SEQ = np.arange(24, dtype=np.float64).reshape(4, 2, 3)


def _seq_lengths(lengths, steps):
    return [int(min(max(np.trunc(v), 0), steps)) for v in lengths]


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("lengths", [None, [1, 3], [0, 9], [2.7, 4]])
def test_sequence_mask_fills_steps_past_each_length(axis, lengths):
    data = SEQ if axis == 0 else SEQ.transpose(1, 0, 2).copy()
    expect = SEQ.copy()
    args = [data]
    kwargs = dict(axis=axis, value=-1.5)
    if lengths is not None:
        for b, n in enumerate(_seq_lengths(lengths, 4)):
            expect[n:, b] = -1.5
        args.append(np.array(lengths))
        kwargs["use_sequence_length"] = True
    if axis == 1:
        expect = expect.transpose(1, 0, 2)
    head = np.random.RandomState(9).randn(*data.shape)
    y, grads = _grads(lambda *a: nd.SequenceMask(*a, **kwargs), args, head)
    assert (y == expect).all()
    assert (grads[0] == np.where(expect == -1.5, 0, head)).all()
    if lengths is not None:
        assert (grads[1] == 0).all()


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("lengths", [None, [1, 3], [0, 9]])
def test_sequence_last_takes_each_sequences_last_step(axis, lengths):
    data = SEQ if axis == 0 else SEQ.transpose(1, 0, 2).copy()
    args, kwargs = [data], dict(axis=axis)
    last = [3, 3]
    if lengths is not None:
        last = [max(n - 1, 0) for n in _seq_lengths(lengths, 4)]
        args.append(np.array(lengths))
        kwargs["use_sequence_length"] = True
    head = np.random.RandomState(10).randn(2, 3)
    y, grads = _grads(lambda *a: nd.SequenceLast(*a, **kwargs), args, head)
    assert (y == np.stack([SEQ[last[b], b] for b in range(2)])).all()
    expect_grad = np.zeros_like(SEQ)
    for b in range(2):
        expect_grad[last[b], b] = head[b]
    if axis == 1:
        expect_grad = expect_grad.transpose(1, 0, 2)
    assert (grads[0] == expect_grad).all()


@pytest.mark.parametrize("lengths", [None, [1, 3], [0, 9], [2.5, 2]])
def test_sequence_reverse_reverses_only_each_sequences_steps(lengths):
    args, kwargs = [SEQ], {}
    ns = [4, 4]
    if lengths is not None:
        ns = _seq_lengths(lengths, 4)
        args.append(np.array(lengths))
        kwargs["use_sequence_length"] = True
    expect = SEQ.copy()
    for b, n in enumerate(ns):
        expect[:n, b] = SEQ[:n, b][::-1]
    head = np.random.RandomState(11).randn(*SEQ.shape)
    y, grads = _grads(lambda *a: nd.SequenceReverse(*a, **kwargs), args, head)
    assert (y == expect).all()
    expect_grad = head.copy()
    for b, n in enumerate(ns):
        expect_grad[:n, b] = head[:n, b][::-1]
    assert (grads[0] == expect_grad).all()


def test_sequence_ops_keep_data_dtype_and_accept_integer_lengths():
    x = nd.array(SEQ, dtype="int32")
    y = nd.SequenceMask(x, nd.array([1, 2], dtype="int64"), use_sequence_length=True)
    assert y.dtype == np.int32
    assert nd.SequenceLast(nd.ones((3, 2))).shape == (2,)


def test_sequence_ops_reject_bad_arguments():
    x = nd.array(SEQ)
    with pytest.raises(MXNetError, match="SequenceReverse: argument axis must be 0, given 1"):
        nd.SequenceReverse(x, axis=1)
    with pytest.raises(MXNetError, match="SequenceMask: argument axis must be 0 or 1, given 2"):
        nd.SequenceMask(x, axis=2)
    with pytest.raises(MXNetError, match=r"SequenceMask.*sequence_length.*\(2,\)"):
        nd.SequenceMask(x, nd.array([1, 2, 3]), use_sequence_length=True)
    with pytest.raises(MXNetError, match="expects 1 input"):
        nd.SequenceLast(x, nd.array([1, 2]))
    with pytest.raises(MXNetError, match="at least 2 axes"):
        nd.SequenceLast(nd.ones((3,)))
    with pytest.raises(MXNetError, match="SequenceMask: sequence_length must be of a numeric"):
        nd.SequenceMask(x, nd.array([1, 1], dtype="bool"), use_sequence_length=True)


@pytest.mark.parametrize("no_bias", [False, True])
@pytest.mark.parametrize("flatten", [True, False])
def test_fully_connected_onednn_and_plain_kernels_agree(no_bias, flatten):
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (4, 3, 5)).astype(np.float32)
    cols = 15 if flatten else 5
    w = rng.uniform(-1, 1, (6, cols)).astype(np.float32)
    b = rng.uniform(-1, 1, (6,)).astype(np.float32)
    results = []
    for enabled in ("1", "0"):
        mx.util.setenv("MXNET_ONEDNN_ENABLED", enabled)
        try:
            args = [mx.nd.array(x), mx.nd.array(w)] + ([] if no_bias else [mx.nd.array(b)])
            for a in args:
                a.attach_grad(grad_req="add")
            for _ in range(2):  # grad_req='add' accumulates both passes
                with mx.autograd.record():
                    y = mx.nd.FullyConnected(*args, num_hidden=6, no_bias=no_bias,
                                             flatten=flatten)
                y.backward(mx.nd.array(np.linspace(-1, 1, y.size).reshape(y.shape)))
            results.append([y.asnumpy()] + [a.grad.asnumpy() for a in args])
        finally:
            mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
    for a, b_ in zip(*results):
        np.testing.assert_allclose(a, b_, rtol=1e-5, atol=1e-5)
