"""UpSampling: nearest (one or several inputs, concat or sum) and bilinear (a grouped
transposed convolution), forward and gradients."""
import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError


def nearest(x, f):
    return np.repeat(np.repeat(x, f, axis=2), f, axis=3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_nearest_one_input_and_gradient(dtype):
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, 4, 5)).astype(dtype)
    a = mx.nd.array(x, dtype=dtype)
    a.attach_grad()
    head = np.random.RandomState(1).uniform(-1, 1, (2, 3, 12, 15)).astype(dtype)
    with mx.autograd.record():
        y = mx.nd.UpSampling(a, scale=3, sample_type="nearest")
    y.backward(mx.nd.array(head, dtype=dtype))
    assert y.dtype == dtype
    np.testing.assert_allclose(y.asnumpy(), nearest(x, 3))
    want = head.astype(np.float64).reshape(2, 3, 4, 3, 5, 3).sum(axis=(3, 5))
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(a.grad.asnumpy().astype(np.float64), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", ["concat", "sum"])
def test_nearest_several_inputs_are_brought_to_the_first_ones_size(mode):
    rng = np.random.RandomState(2)
    xs = [rng.uniform(-1, 1, (2, 2, 2, 3)), rng.uniform(-1, 1, (2, 2, 4, 6)),
          rng.uniform(-1, 1, (2, 2, 1, 1))]
    arrays = [mx.nd.array(x) for x in xs]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.UpSampling(*arrays, scale=2, sample_type="nearest", multi_input_mode=mode)
    ups = [nearest(xs[0], 2), nearest(xs[1], 1), np.tile(xs[2], (1, 1, 4, 6))]
    want = np.concatenate(ups, axis=1) if mode == "concat" else sum(ups)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-6)
    y.backward()
    # d/dx of a repeat is the number of copies of each element.
    np.testing.assert_allclose(arrays[0].grad.asnumpy(), np.full(xs[0].shape, 4.0))
    np.testing.assert_allclose(arrays[1].grad.asnumpy(), np.ones(xs[1].shape))
    np.testing.assert_allclose(arrays[2].grad.asnumpy(), np.full(xs[2].shape, 24.0))


def test_bilinear_is_the_grouped_deconvolution_and_matches_mxnet():
    x = mx.nd.array(np.arange(9).reshape(1, 1, 3, 3))
    w = mx.nd.array(np.arange(16).reshape(1, 1, 4, 4))
    y = mx.nd.UpSampling(x, w, scale=2, sample_type="bilinear", num_filter=1)
    # Rows observed with MXNet 1.9.1.
    np.testing.assert_allclose(y.asnumpy()[0, 0, :2], [[0, 4, 5, 14, 17, 12],
                                                      [3, 14, 22, 34, 46, 30]])
    rng = np.random.RandomState(3)
    for scale in (2, 3):
        k = 2 * scale - scale % 2
        x = mx.nd.array(rng.uniform(-1, 1, (2, 3, 4, 5)))
        w = mx.nd.array(rng.uniform(-1, 1, (3, 1, k, k)))
        x2, w2 = x.copy(), w.copy()
        for a in (x, w, x2, w2):
            a.attach_grad()
        with mx.autograd.record():
            y = mx.nd.UpSampling(x, w, scale=scale, sample_type="bilinear", num_filter=3)
            z = mx.nd.Deconvolution(x2, w2, kernel=(k, k), stride=(scale, scale),
                                    pad=(scale // 2, scale // 2), num_filter=3, num_group=3)
        assert y.shape == (2, 3, 4 * scale, 5 * scale)
        head = mx.nd.array(rng.uniform(-1, 1, y.shape))
        y.backward(head)
        z.backward(head)
        np.testing.assert_allclose(y.asnumpy(), z.asnumpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(x.grad.asnumpy(), x2.grad.asnumpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(w.grad.asnumpy(), w2.grad.asnumpy(), rtol=1e-5, atol=1e-6)


def test_bad_arguments():
    a, b = mx.nd.ones((1, 1, 2, 3)), mx.nd.ones((1, 1, 3, 3))
    with pytest.raises(MXNetError, match=r"UpSampling.*does not divide"):
        mx.nd.UpSampling(a, b, scale=2, sample_type="nearest")
    with pytest.raises(MXNetError, match=r"UpSampling.*sum.*channels"):
        mx.nd.UpSampling(mx.nd.ones((1, 2, 2, 2)), mx.nd.ones((1, 1, 2, 2)), scale=1,
                         sample_type="nearest", multi_input_mode="sum")
    with pytest.raises(MXNetError, match=r"UpSampling.*num_filter"):
        mx.nd.UpSampling(mx.nd.ones((1, 2, 3, 3)), mx.nd.ones((2, 1, 4, 4)), scale=2,
                         sample_type="bilinear", num_filter=3)
    with pytest.raises(MXNetError, match=r"UpSampling.*weight"):
        mx.nd.UpSampling(mx.nd.ones((1, 2, 3, 3)), mx.nd.ones((2, 1, 3, 3)), scale=2,
                         sample_type="bilinear", num_filter=2)
    with pytest.raises(MXNetError, match=r"UpSampling.*4 dims"):
        mx.nd.UpSampling(mx.nd.ones((2, 3, 3)), scale=2, sample_type="nearest")
    with pytest.raises(MXNetError, match=r"sample_type"):
        mx.nd.UpSampling(a, scale=2, sample_type="cubic")
