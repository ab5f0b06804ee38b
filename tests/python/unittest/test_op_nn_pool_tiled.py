"""Max pooling over non-overlapping, unpadded 2-D windows (stride == kernel; the single-pass
kernels of pooling_tiled.cc) against numpy, forward and backward: the gradient goes to each
window's first maximum, elements outside every window get none, grad_req add accumulates, and
the other pooling paths (windows that overlap) agree with it where they meet."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd


def np_maxpool(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    y = np.empty((n, c, oh, ow), x.dtype)
    dx_of = np.zeros((n, c, oh, ow, 2), np.int64)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].reshape(n, c, -1)
            y[:, :, i, j] = win.max(axis=2)
            arg = win.argmax(axis=2)  # first maximum in raster order
            dx_of[:, :, i, j, 0] = i * s[0] + arg // k[1]
            dx_of[:, :, i, j, 1] = j * s[1] + arg % k[1]
    return y, dx_of


def np_maxpool_grad(x, head, k, s):
    _, where = np_maxpool(x, k, s)
    dx = np.zeros_like(x)
    n, c, oh, ow = head.shape
    for a in range(n):
        for b in range(c):
            for i in range(oh):
                for j in range(ow):
                    r, q = where[a, b, i, j]
                    dx[a, b, r, q] += head[a, b, i, j]
    return dx


def run(x, head, kernel, stride, grad_req="write", dtype="float32"):
    a = nd.array(x, dtype=dtype)
    a.attach_grad(grad_req=grad_req)
    for _ in range(2 if grad_req == "add" else 1):
        with autograd.record():
            y = nd.Pooling(a, kernel=kernel, stride=stride, pool_type="max")
        y.backward(nd.array(head, dtype=dtype))
    return y.asnumpy(), a.grad.asnumpy()


@pytest.mark.parametrize("shape,kernel", [((2, 3, 8, 8), (2, 2)), ((2, 3, 7, 9), (2, 2)),
                                          ((1, 4, 9, 9), (3, 3)), ((2, 2, 10, 7), (2, 3)),
                                          ((32, 64, 56, 56), (2, 2))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tiled_max_pooling_matches_numpy(shape, kernel, dtype):
    rng = np.random.RandomState(0)
    x = rng.randn(*shape).astype(dtype)
    y_ref, _ = np_maxpool(x, kernel, kernel)
    head = rng.randn(*y_ref.shape).astype(dtype)
    y, g = run(x, head, kernel, kernel, dtype=dtype)
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(g, np_maxpool_grad(x, head, kernel, kernel))


def test_ties_send_the_gradient_to_the_first_maximum():
    x = np.zeros((1, 1, 4, 4), np.float32)
    x[0, 0, 1, 1] = x[0, 0, 1, 0] = 1.0  # second window row holds two equal maxima
    head = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
    _, g = run(x, head, (2, 2), (2, 2))
    expect = np.zeros_like(x)
    expect[0, 0, 1, 0] = 1.0
    expect[0, 0, 0, 2] = 2.0
    expect[0, 0, 2, 0] = 3.0
    expect[0, 0, 2, 2] = 4.0
    np.testing.assert_array_equal(g, expect)


def test_grad_req_add_accumulates():
    rng = np.random.RandomState(1)
    x = rng.randn(2, 3, 9, 8).astype(np.float32)
    head = rng.randn(2, 3, 4, 4).astype(np.float32)
    _, g = run(x, head, (2, 2), (2, 2), grad_req="add")
    np.testing.assert_allclose(g, 2 * np_maxpool_grad(x, head, (2, 2), (2, 2)), rtol=1e-6)


@pytest.mark.parametrize("flag", ["1", "0"])
def test_overlapping_windows_agree_with_tiled_where_they_meet(flag):
    # stride (2, 2) with kernel (2, 2) is tiled; the same windows through a 1-wide overlap in
    # the other layout (channel last) run the generic or oneDNN kernels.
    mx.util.setenv("MXNET_ONEDNN_ENABLED", flag)
    try:
        rng = np.random.RandomState(2)
        x = rng.randn(2, 4, 8, 6).astype(np.float32)
        head = rng.randn(2, 4, 4, 3).astype(np.float32)
        y, g = run(x, head, (2, 2), (2, 2))
        a = nd.array(x.transpose(0, 2, 3, 1))
        a.attach_grad()
        with autograd.record():
            yl = nd.Pooling(a, kernel=(2, 2), stride=(2, 2), pool_type="max", layout="NHWC")
        yl.backward(nd.array(head.transpose(0, 2, 3, 1)))
        np.testing.assert_array_equal(y, yl.asnumpy().transpose(0, 3, 1, 2))
        np.testing.assert_array_equal(g, a.grad.asnumpy().transpose(0, 3, 1, 2))
    finally:
        mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")


def _first_max_rule(win):
    """Index of a window's first element no later element strictly exceeds, scanning in
    raster order from the first (the rule the kernels share; a NaN first element keeps it)."""
    best, arg = win[0], 0
    for i, v in enumerate(win[1:], 1):
        if v > best:
            best, arg = v, i
    return arg


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_2x2_gradient_for_every_tie_pattern_and_nan(dtype):
    # Every 2x2 window of values from {0, 1, nan, -inf}: 256 windows side by side, so the
    # vectorized row kernel sees ties, NaNs and infinities in every lane position.
    vals = np.array([0.0, 1.0, np.nan, -np.inf], dtype)
    combos = np.array(np.meshgrid(*[np.arange(4)] * 4, indexing="ij")).reshape(4, -1).T
    x = np.zeros((1, 1, 2, 2 * len(combos)), dtype)
    for j, (a, b, c, d) in enumerate(combos):
        x[0, 0, 0, 2 * j:2 * j + 2] = vals[[a, b]]
        x[0, 0, 1, 2 * j:2 * j + 2] = vals[[c, d]]
    head = np.arange(1, len(combos) + 1, dtype=dtype).reshape(1, 1, 1, -1)
    _, g = run(x, head, (2, 2), (2, 2), dtype=dtype)
    expect = np.zeros_like(x)
    for j in range(len(combos)):
        win = [x[0, 0, 0, 2 * j], x[0, 0, 0, 2 * j + 1], x[0, 0, 1, 2 * j], x[0, 0, 1, 2 * j + 1]]
        arg = _first_max_rule(win)
        expect[0, 0, arg // 2, 2 * j + arg % 2] = head[0, 0, 0, j]
    np.testing.assert_array_equal(g, expect)
