"""ROIPooling: max pooling of each region of interest into a fixed grid, and its gradient."""
import math

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError


def ref_roi_pool(x, rois, pooled, scale):
    """numpy reference (Fast R-CNN's rule); returns output and, per output, the argmax
    (batch, channel, h, w) or None for an empty bin."""
    n_r, (c, h, w) = rois.shape[0], x.shape[1:]
    ph_n, pw_n = pooled
    out = np.zeros((n_r, c, ph_n, pw_n))
    arg = {}
    for n, (b, x1, y1, x2, y2) in enumerate(rois):
        b = int(b)
        x1, y1, x2, y2 = [int(math.floor(v * scale + 0.5)) for v in (x1, y1, x2, y2)]
        bh, bw = max(y2 - y1 + 1, 1) / ph_n, max(x2 - x1 + 1, 1) / pw_n
        for ph in range(ph_n):
            hs = min(max(math.floor(ph * bh) + y1, 0), h)
            he = min(max(math.ceil((ph + 1) * bh) + y1, 0), h)
            for pw in range(pw_n):
                ws = min(max(math.floor(pw * bw) + x1, 0), w)
                we = min(max(math.ceil((pw + 1) * bw) + x1, 0), w)
                for ch in range(c):
                    if he <= hs or we <= ws:
                        continue
                    win = x[b, ch, hs:he, ws:we]
                    i = np.unravel_index(np.argmax(win), win.shape)
                    out[n, ch, ph, pw] = win[i]
                    arg[(n, ch, ph, pw)] = (b, ch, hs + i[0], ws + i[1])
    return out, arg


def test_forward_and_gradient_match_the_reference():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 9, 7))
    rois = np.array([[1, 0.5, 1.2, 5.3, 7.9], [0, 2, 2, 2, 3], [1, -3, -2, 20, 30],
                     [0, 6, 8, 1, 1]])
    want, arg = ref_roi_pool(x, rois, (3, 2), 0.8)
    a, r = mx.nd.array(x), mx.nd.array(rois)
    a.attach_grad()
    r.attach_grad()
    head = rng.uniform(-1, 1, want.shape)
    with mx.autograd.record():
        y = mx.nd.ROIPooling(a, r, pooled_size=(3, 2), spatial_scale=0.8)
    y.backward(mx.nd.array(head))
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-6, atol=1e-6)
    grad = np.zeros_like(x)
    for k, pos in arg.items():
        grad[pos] += head[k]
    np.testing.assert_allclose(a.grad.asnumpy(), grad, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(r.grad.asnumpy(), np.zeros_like(rois))
    # The sum MXNet 1.9.1 gives for the first three ROIs.
    assert abs(mx.nd.ROIPooling(a, mx.nd.array(rois[:3]), pooled_size=(3, 2),
                                spatial_scale=0.8).sum().asscalar() - 5.4309983) < 1e-5


def test_documented_example():
    x = mx.nd.array(np.arange(48).reshape(1, 1, 8, 6))
    y = mx.nd.array([[0, 0, 0, 4, 4]])
    np.testing.assert_array_equal(mx.nd.ROIPooling(x, y, (2, 2), 1.0).asnumpy(),
                                  [[[[14, 16], [26, 28]]]])
    np.testing.assert_array_equal(mx.nd.ROIPooling(x, y, (2, 2), 0.7).asnumpy(),
                                  [[[[7, 9], [19, 21]]]])


def test_bad_arguments():
    x = mx.nd.ones((1, 2, 4, 4))
    with pytest.raises(MXNetError, match=r"ROIPooling.*rois expected shape"):
        mx.nd.ROIPooling(x, mx.nd.ones((2, 4)), pooled_size=(2, 2), spatial_scale=1.0)
    with pytest.raises(MXNetError, match=r"ROIPooling.*pooled_size"):
        mx.nd.ROIPooling(x, mx.nd.ones((1, 5)), pooled_size=(2,), spatial_scale=1.0)
    with pytest.raises(MXNetError, match=r"ROIPooling.*batch_index"):
        mx.nd.ROIPooling(x, mx.nd.array([[3, 0, 0, 1, 1]]), pooled_size=(2, 2),
                         spatial_scale=1.0).wait_to_read()
