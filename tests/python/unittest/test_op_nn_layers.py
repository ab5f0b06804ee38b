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
    assert (nd.Dropout(x, p=1.0, mode="always").asnumpy() == 0).all()


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


def test_embedding_rejects_a_weight_of_the_wrong_shape():
    with pytest.raises(MXNetError, match=r"Embedding.*weight.*\(5,3\)"):
        nd.Embedding(nd.array([1]), nd.ones((4, 3)), input_dim=5, output_dim=3)
