"""BatchNorm with fix_gamma=True writes 1 into its gamma argument, as MXNet 1.9.1 does.

The op declares gamma in FWriteArguments, so the engine orders the write after earlier readers
of gamma and before later ones. Values observed in MXNet 1.9.1: gamma is all ones after any
forward with fix_gamma=True (training or not, any dtype and rank, every channel axis, and the
BatchNorm_v1, SyncBatchNorm and BatchNormWithReLU variants); fix_gamma=False leaves it alone;
BatchNorm's backward does not write gamma.
"""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, nd


def _args(shape, axis, dtype, gamma_value=2.0, pdtype=None):
    pdtype = pdtype or dtype
    c = shape[axis]
    x = nd.array(np.random.RandomState(0).rand(*shape), dtype=dtype)
    g = nd.full((c,), gamma_value, dtype=pdtype)
    b = nd.zeros((c,), dtype=pdtype)
    m = nd.zeros((c,), dtype=pdtype)
    v = nd.ones((c,), dtype=pdtype)
    return x, g, b, m, v


@pytest.mark.parametrize("shape,axis", [((2, 3, 4, 5), 1), ((2, 3), 1), ((2, 3, 4), 1),
                                        ((2, 3, 4, 5, 6), 1), ((4, 5, 6, 8), -1),
                                        ((4, 5, 6, 8), 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("train", [False, True])
def test_fix_gamma_writes_ones_into_gamma(shape, axis, dtype, train):
    x, g, b, m, v = _args(shape, axis, dtype)
    with autograd.record(train_mode=train):
        y = nd.BatchNorm(x, g, b, m, v, fix_gamma=True, axis=axis)
    y.wait_to_read()
    assert g.asnumpy().tolist() == [1.0] * shape[axis]


@pytest.mark.parametrize("train", [False, True])
def test_no_fix_gamma_leaves_gamma_alone(train):
    x, g, b, m, v = _args((2, 3, 4, 5), 1, "float32")
    with autograd.record(train_mode=train):
        y = nd.BatchNorm(x, g, b, m, v, fix_gamma=False)
    y.wait_to_read()
    assert g.asnumpy().tolist() == [2.0, 2.0, 2.0]


def test_fix_gamma_float16_data_writes_float32_gamma():
    x, g, b, m, v = _args((2, 3, 4, 5), 1, "float16", pdtype="float32")
    nd.BatchNorm(x, g, b, m, v, fix_gamma=True).wait_to_read()
    assert g.dtype == np.float32 and g.asnumpy().tolist() == [1.0, 1.0, 1.0]


def test_write_is_ordered_between_earlier_and_later_readers():
    # Large enough that every op goes to the engine's workers rather than running inline.
    c = 70000
    x = nd.array(np.random.RandomState(1).rand(2, c), dtype="float32")
    g = nd.full((c,), 3.0)
    b, m, v = nd.zeros((c,)), nd.zeros((c,)), nd.ones((c,))
    for _ in range(5):
        g[:] = 3.0                   # a write queued before the op
        before = g * 2               # a read queued before the op
        y = nd.BatchNorm(x, g, b, m, v, fix_gamma=True)
        after = g * 2                # a read queued after it
        np.testing.assert_array_equal(before.asnumpy(), np.full((c,), 6.0, np.float32))
        np.testing.assert_array_equal(after.asnumpy(), np.full((c,), 2.0, np.float32))
        y.wait_to_read()


def test_output_is_that_of_gamma_one_and_gamma_grad_is_zero():
    x, g, b, m, v = _args((4, 3, 5, 5), 1, "float64", gamma_value=5.0)
    g.attach_grad()
    x.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, g, b, m, v, fix_gamma=True)
    xn = x.asnumpy()
    mean = xn.mean(axis=(0, 2, 3), keepdims=True)
    var = xn.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y.asnumpy(), (xn - mean) / np.sqrt(var + 1e-3), rtol=1e-7)
    y.backward()
    assert g.grad.asnumpy().tolist() == [0.0, 0.0, 0.0]


def test_batchnorm_backward_does_not_write_gamma():
    x, g, b, m, v = _args((2, 3, 4, 5), 1, "float32")
    g.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, g, b, m, v, fix_gamma=True)
    g[:] = 3.0
    y.backward()
    assert g.asnumpy().tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("op,kwargs", [(nd.contrib.SyncBatchNorm, {"key": "k"}),
                                       (nd.contrib.BatchNormWithReLU, {})])
@pytest.mark.parametrize("fix_gamma", [True, False])
def test_variants_write_gamma_like_batchnorm(op, kwargs, fix_gamma):
    x, g, b, m, v = _args((2, 3, 4, 5), 1, "float32")
    with autograd.record(train_mode=True):
        y = op(x, g, b, m, v, fix_gamma=fix_gamma, **kwargs)
    y.wait_to_read()
    assert g.asnumpy().tolist() == ([1.0] * 3 if fix_gamma else [2.0] * 3)


def test_legacy_v1_writes_gamma_in_forward_and_backward():
    x, g, b, m, v = _args((2, 3, 4, 5), 1, "float32")
    g.attach_grad()
    with autograd.record():
        y = nd.BatchNorm_v1(x, g, b, m, v, fix_gamma=True)
    assert g.asnumpy().tolist() == [1.0, 1.0, 1.0]
    g[:] = 3.0
    y.backward()
    assert g.asnumpy().tolist() == [1.0, 1.0, 1.0]
