# gluon.nn and gluon.contrib.nn: every layer's forward against numpy, gradients of a few
# through autograd, deferred shapes, names/prefixes/reprs as MXNet 1.9.1 printed them,
# a parameter file written by MXNet 1.9.1, and errors for inputs that do not fit.
import itertools
import math
import os
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.base import InvalidConfigError, MXNetError
from mxnet.gluon import nn
from mxnet.gluon.contrib import nn as cnn
from mxnet.test_utils import assert_almost_equal

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')


def det(shape, phase=0.0, scale=1.3):
    """Deterministic, sign-varying test data."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + phase) * scale).reshape(shape).astype(np.float32)


def run(block, x, init=True):
    """block(x) after initializing, with parameters then set to deterministic values; returns
    (output, {param suffix: numpy value})."""
    if init:
        block.initialize()
    x = mx.nd.array(x, dtype=x.dtype)
    block(x)
    values = {}
    for i, (name, param) in enumerate(sorted(block.collect_params().items())):
        value = det(param.shape, i + 1).astype(param.dtype)
        if name.endswith('running_var'):
            value = np.abs(value) + 0.5
        param.set_data(mx.nd.array(value, dtype=value.dtype))
        values[name[len(block.prefix):]] = value
    return block(x).asnumpy(), values


# ------------------------------------------------------------------ numpy references
def np_conv(x, w, b, stride, pad, dilate, groups):
    """N-d cross-correlation of an NC... input with an (O, I/g, *k) weight."""
    nsp = x.ndim - 2
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(p, p) for p in pad])
    k = w.shape[2:]
    out_sp = [(x.shape[2 + d] - dilate[d] * (k[d] - 1) - 1) // stride[d] + 1
              for d in range(nsp)]
    out = np.zeros((x.shape[0], w.shape[0]) + tuple(out_sp))
    cin, cout = w.shape[1], w.shape[0] // groups
    for g in range(groups):
        xg = x[:, g * cin:(g + 1) * cin]
        wg = w[g * cout:(g + 1) * cout].astype(np.float64)
        for pos in itertools.product(*[range(n) for n in out_sp]):
            sl = tuple(slice(pos[d] * stride[d], pos[d] * stride[d] + dilate[d] * (k[d] - 1) + 1,
                             dilate[d]) for d in range(nsp))
            patch = xg[(slice(None), slice(None)) + sl]
            out[(slice(None), slice(g * cout, (g + 1) * cout)) + pos] = \
                np.tensordot(patch, wg, axes=(list(range(1, nsp + 2)), list(range(1, nsp + 2))))
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nsp)
    return out


def np_deconv(x, w, b, stride, pad, adj, groups):
    """Transposed convolution: scatters each input pixel times the (I, O/g, *k) kernel."""
    nsp = x.ndim - 2
    k = w.shape[2:]
    full = [(x.shape[2 + d] - 1) * stride[d] + k[d] for d in range(nsp)]
    cin, cout = x.shape[1] // groups, w.shape[1]
    out = np.zeros((x.shape[0], cout * groups) + tuple(f + a for f, a in zip(full, adj)))
    for g in range(groups):
        xg = x[:, g * cin:(g + 1) * cin].astype(np.float64)
        wg = w[g * cin:(g + 1) * cin].astype(np.float64)
        for pos in itertools.product(*[range(n) for n in x.shape[2:]]):
            contrib = np.tensordot(xg[(slice(None), slice(None)) + pos], wg, axes=(1, 0))
            sl = tuple(slice(pos[d] * stride[d], pos[d] * stride[d] + k[d]) for d in range(nsp))
            out[(slice(None), slice(g * cout, (g + 1) * cout)) + sl] += contrib
    out = out[(slice(None), slice(None)) +
              tuple(slice(pad[d], out.shape[2 + d] - pad[d]) for d in range(nsp))]
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nsp)
    return out


def np_pool(x, kernel, stride, pad, pool_type, ceil_mode=False, count_include_pad=True):
    nsp = x.ndim - 2
    rnd = math.ceil if ceil_mode else math.floor
    outs = [1 + int(rnd((x.shape[2 + d] + 2 * pad[d] - kernel[d]) / stride[d]))
            for d in range(nsp)]
    y = np.zeros(x.shape[:2] + tuple(outs))
    for pos in itertools.product(*[range(n) for n in outs]):
        sl, with_pad = [], 1
        for d in range(nsp):
            start = pos[d] * stride[d] - pad[d]
            end = min(start + kernel[d], x.shape[2 + d] + pad[d])
            with_pad *= end - start
            sl.append(slice(max(start, 0), min(end, x.shape[2 + d])))
        win = x[(slice(None), slice(None)) + tuple(sl)].reshape(x.shape[0], x.shape[1], -1)
        idx = (slice(None), slice(None)) + pos
        if pool_type == 'max':
            y[idx] = win.max(axis=2)
        else:
            y[idx] = win.sum(axis=2) / (with_pad if count_include_pad else win.shape[2])
    return y


def np_norm(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def central_differences(f, x, eps=1e-6):
    """The gradient of the scalar function f at x by central differences."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        grad[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return grad


def bcast(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


# ------------------------------------------------------------------------------ Dense
@pytest.mark.parametrize('flatten', [True, False])
def test_dense_forward_matches_numpy(flatten):
    x = det((2, 3, 4))
    out, p = run(nn.Dense(5, activation='tanh', flatten=flatten), x)
    xin = x.reshape(2, -1) if flatten else x
    assert_almost_equal(out, np.tanh(xin @ p['weight'].T + p['bias']), rtol=1e-5, atol=1e-6)


def test_dense_without_bias_and_in_units():
    layer = nn.Dense(3, use_bias=False, in_units=4)
    assert layer.bias is None and layer.weight.shape == (3, 4)
    out, p = run(layer, det((2, 4)))
    assert list(p) == ['weight']
    assert_almost_equal(out, det((2, 4)) @ p['weight'].T, rtol=1e-5, atol=1e-6)


def test_dense_backward_matches_analytic():
    layer = nn.Dense(3)
    x = det((4, 5))
    _, p = run(layer, x)
    xa = mx.nd.array(x)
    xa.attach_grad()
    dy = det((4, 3), 2.0)
    with autograd.record():
        y = layer(xa)
    y.backward(mx.nd.array(dy))
    assert_almost_equal(xa.grad.asnumpy(), dy @ p['weight'], rtol=1e-5, atol=1e-6)
    assert_almost_equal(layer.weight.grad().asnumpy(), dy.T @ x, rtol=1e-5, atol=1e-6)
    assert_almost_equal(layer.bias.grad().asnumpy(), dy.sum(axis=0), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ Dropout, Flatten
def test_dropout_is_identity_outside_training_and_at_rate_zero():
    x = det((3, 4))
    out, _ = run(nn.Dropout(0.5), x)
    assert_almost_equal(out, x)
    with autograd.record():
        out = nn.Dropout(0.0)(mx.nd.array(x))
    assert_almost_equal(out.asnumpy(), x)


def test_dropout_training_scales_kept_values_and_shares_mask_along_axes():
    x = np.ones((4, 50), dtype=np.float32)
    with autograd.record():
        y = nn.Dropout(0.5, axes=(0,))(mx.nd.array(x)).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert (y == y[0:1]).all()  # one mask for the whole axis 0
    assert 0 < (y == 0).sum() < y.size


def test_flatten():
    x = det((2, 3, 4))
    out, _ = run(nn.Flatten(), x)
    assert_almost_equal(out, x.reshape(2, 12))


# ---------------------------------------------------------------------- normalization
def bn_reference(x, p, axis, eps, scale=True, train=False):
    axes = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    gamma = p['gamma'] if scale else np.ones_like(p['gamma'])
    if train:
        normed = np_norm(x, axes, eps)
    else:
        normed = (x - bcast(p['running_mean'], x.ndim, axis)) / \
            np.sqrt(bcast(p['running_var'], x.ndim, axis) + eps)
    return normed * bcast(gamma, x.ndim, axis) + bcast(p['beta'], x.ndim, axis)


@pytest.mark.parametrize('axis,scale', [(1, True), (-1, False)])
def test_batchnorm_inference_and_training_match_numpy(axis, scale):
    x = det((2, 3, 4))
    layer = nn.BatchNorm(axis=axis, scale=scale, momentum=0.8)
    out, p = run(layer, x)
    assert_almost_equal(out, bn_reference(x, p, axis, 1e-5, scale), rtol=1e-4, atol=1e-5)
    with autograd.record():
        y = layer(mx.nd.array(x))
    assert_almost_equal(y.asnumpy(), bn_reference(x, p, axis, 1e-5, scale, train=True),
                        rtol=1e-4, atol=1e-4)
    y.backward()  # MXNet's BatchNorm moves its running statistics in backward
    axes = tuple(i for i in range(3) if i != axis % 3)
    assert_almost_equal(layer.running_mean.data().asnumpy(),
                        0.8 * p['running_mean'] + 0.2 * x.mean(axis=axes), rtol=1e-4, atol=1e-5)


def test_batchnorm_use_global_stats_trains_with_running_statistics():
    x = det((2, 3, 4))
    layer = nn.BatchNorm(use_global_stats=True)
    _, p = run(layer, x)
    with autograd.record():
        y = layer(mx.nd.array(x))
    y.backward()
    assert_almost_equal(y.asnumpy(), bn_reference(x, p, 1, 1e-5), rtol=1e-4, atol=1e-5)
    assert_almost_equal(layer.running_mean.data().asnumpy(), p['running_mean'])


def test_batchnorm_backward_matches_analytic():
    x = det((4, 2, 3)).astype(np.float64)
    layer = nn.BatchNorm()
    layer.cast('float64')
    _, p = run(layer, x)
    xa = mx.nd.array(x, dtype='float64')
    xa.attach_grad()
    dy = det(x.shape, 3.0).astype(np.float64)
    with autograd.record():
        y = layer(xa)
    y.backward(mx.nd.array(dy, dtype='float64'))
    axes = (0, 2)
    n = x.size / x.shape[1]
    xhat = np_norm(x, axes, 1e-5)
    inv_std = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + 1e-5)
    g = bcast(p['gamma'].astype(np.float64), 3, 1)
    dxhat = dy * g
    dx = inv_std / n * (n * dxhat - dxhat.sum(axis=axes, keepdims=True)
                        - xhat * (dxhat * xhat).sum(axis=axes, keepdims=True))
    assert_almost_equal(xa.grad.asnumpy(), dx, rtol=1e-6, atol=1e-8)
    assert_almost_equal(layer.gamma.grad().asnumpy(), (dy * xhat).sum(axis=axes), rtol=1e-6)
    assert_almost_equal(layer.beta.grad().asnumpy(), dy.sum(axis=axes), rtol=1e-6)
    assert layer.running_mean.grad_req == 'null' and layer.running_var.grad_req == 'null'


def test_batchnorm_keeps_float32_statistics_when_cast_to_float16():
    layer = nn.BatchNorm(in_channels=2)
    layer.cast('float16')
    assert np.dtype(layer.gamma.dtype) == np.float32


def test_batchnorm_relu_is_batchnorm_then_relu():
    x = det((2, 3, 4))
    out, p = run(nn.BatchNormReLU(), x)
    assert_almost_equal(out, np.maximum(bn_reference(x, p, 1, 1e-5), 0), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('axis', [1, 2])
def test_instancenorm_matches_numpy(axis):
    x = det((2, 3, 5))
    out, p = run(nn.InstanceNorm(axis=axis, scale=True), x)
    xs = np.swapaxes(x, 1, axis)
    ref = np_norm(xs, (2,), 1e-5) * bcast(p['gamma'], 3, 1) + bcast(p['beta'], 3, 1)
    assert_almost_equal(out, np.swapaxes(ref, 1, axis), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('axis', [-1, 1])
def test_layernorm_matches_numpy(axis):
    x = det((2, 3, 5))
    out, p = run(nn.LayerNorm(axis=axis), x)
    ref = np_norm(x, (axis,), 1e-5) * bcast(p['gamma'], 3, axis) + bcast(p['beta'], 3, axis)
    assert_almost_equal(out, ref, rtol=1e-4, atol=1e-5)


def test_layernorm_backward_matches_central_differences():
    x = det((2, 4)).astype(np.float64)
    layer = nn.LayerNorm(in_channels=4)
    layer.cast('float64')
    layer.initialize()
    xa = mx.nd.array(x, dtype='float64')
    xa.attach_grad()
    w = det((2, 4), 1.0).astype(np.float64)
    with autograd.record():
        loss = (layer(xa) * mx.nd.array(w, dtype='float64')).sum()
    loss.backward()

    def f(v):
        return float((layer(mx.nd.array(v, dtype='float64')).asnumpy() * w).sum())
    assert_almost_equal(xa.grad.asnumpy(), central_differences(f, x), rtol=1e-5, atol=1e-7)


def test_groupnorm_matches_numpy():
    x = det((2, 6, 5))
    out, p = run(nn.GroupNorm(num_groups=3), x)
    normed = np_norm(x.reshape(2, 3, -1), (2,), 1e-5)
    ref = (normed * p['gamma'].reshape(1, 3, 1) + p['beta'].reshape(1, 3, 1)).reshape(x.shape)
    assert_almost_equal(out, ref, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------------- Embedding
@pytest.mark.parametrize('layer_type', [nn.Embedding, cnn.SparseEmbedding])
def test_embedding_forward_and_gradient(layer_type):
    layer = layer_type(5, 3)
    layer.initialize()
    weight = det((5, 3))
    layer.weight.set_data(mx.nd.array(weight))
    # SparseEmbedding's row_sparse weight is read through its Trainer's KVStore.
    gluon.Trainer(layer.collect_params(), 'sgd')
    idx = np.array([[0, 4], [2, 2]], dtype=np.float32)
    with autograd.record():
        y = layer(mx.nd.array(idx))
    y.backward()
    assert_almost_equal(y.asnumpy(), weight[idx.astype(int)])
    expected = np.zeros((5, 3), dtype=np.float32)
    np.add.at(expected, idx.astype(int).ravel(), 1)
    assert_almost_equal(layer.weight.grad().asnumpy(), expected)


def test_embedding_sparse_grad_declares_row_sparse_gradient():
    assert nn.Embedding(4, 2, sparse_grad=True).weight._grad_stype == 'row_sparse'
    assert nn.Embedding(4, 2).weight._grad_stype == 'default'


# ------------------------------------------------------------------------ activations
def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


@pytest.mark.parametrize('layer,ref', [
    (lambda: nn.Activation('relu'), lambda x: np.maximum(x, 0)),
    (lambda: nn.Activation('softrelu'), lambda x: np.log1p(np.exp(x))),
    (lambda: nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (lambda: nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (lambda: nn.SELU(), lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * (np.exp(x) - 1))),
    (lambda: nn.GELU(), gelu),
    (lambda: nn.Swish(2.0), lambda x: x / (1 + np.exp(-2.0 * x))),
    (lambda: nn.HybridLambda('tanh'), np.tanh),
    (lambda: nn.HybridLambda(lambda F, x: F.exp(x) * 2), lambda x: np.exp(x) * 2),
    (lambda: nn.Lambda('sigmoid'), lambda x: 1 / (1 + np.exp(-x))),
    (lambda: nn.Lambda(lambda x: x * 3), lambda x: x * 3),
    (lambda: cnn.Identity(), lambda x: x),
])
def test_elementwise_layers_match_numpy(layer, ref):
    x = det((3, 4))
    out, _ = run(layer(), x)
    assert_almost_equal(out, ref(x.astype(np.float64)), rtol=1e-4, atol=1e-5)


def test_prelu_learns_one_slope_per_channel():
    x = det((2, 3, 2))
    layer = nn.PReLU(in_channels=3)
    layer.initialize()
    assert_almost_equal(layer.alpha.data().asnumpy(), np.full(3, 0.25, np.float32))
    out, p = run(layer, x, init=False)
    assert_almost_equal(out, np.where(x > 0, x, x * p['alpha'].reshape(1, 3, 1)), rtol=1e-6)


def test_leakyrelu_rejects_negative_slope():
    with pytest.raises(InvalidConfigError, match='no less than 0'):
        nn.LeakyReLU(-0.1)


# ----------------------------------------------------------------------- convolutions
@pytest.mark.parametrize('make,shape,stride,pad,dilate,groups', [
    (lambda: nn.Conv1D(4, 3, strides=2, padding=1), (2, 3, 9), (2,), (1,), (1,), 1),
    (lambda: nn.Conv2D(4, (3, 2), strides=2, padding=1, groups=2, activation='relu'),
     (2, 4, 9, 8), (2, 2), (1, 1), (1, 1), 2),
    (lambda: nn.Conv2D(2, 2, dilation=(2, 1), use_bias=False), (1, 2, 6, 6), (1, 1), (0, 0),
     (2, 1), 1),
    (lambda: nn.Conv3D(2, 2, padding=1), (1, 2, 3, 4, 5), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1),
])
def test_convolution_matches_numpy(make, shape, stride, pad, dilate, groups):
    layer = make()
    x = det(shape)
    out, p = run(layer, x)
    ref = np_conv(x, p['weight'], p.get('bias'), stride, pad, dilate, groups)
    if layer.act is not None:
        ref = np.maximum(ref, 0)
    assert_almost_equal(out, ref, rtol=1e-4, atol=1e-5)


def test_conv2d_nhwc_matches_nchw():
    x = det((2, 6, 6, 2))
    out, p = run(nn.Conv2D(3, 3, layout='NHWC'), x)
    assert p['weight'].shape == (3, 3, 3, 2)
    ref = np_conv(x.transpose(0, 3, 1, 2), p['weight'].transpose(0, 3, 1, 2), p['bias'],
                  (1, 1), (0, 0), (1, 1), 1)
    assert_almost_equal(out, ref.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('make,shape,stride,pad,adj,groups', [
    (lambda: nn.Conv1DTranspose(3, 3, strides=2, output_padding=1), (2, 2, 5), (2,), (0,),
     (1,), 1),
    (lambda: nn.Conv2DTranspose(4, 3, strides=2, padding=1, output_padding=1, groups=2,
                                in_channels=4), (2, 4, 4, 3), (2, 2), (1, 1), (1, 1), 2),
    (lambda: nn.Conv3DTranspose(2, 2, use_bias=False), (1, 2, 3, 3, 2), (1, 1, 1), (0, 0, 0),
     (0, 0, 0), 1),
])
def test_transposed_convolution_matches_numpy(make, shape, stride, pad, adj, groups):
    x = det(shape)
    out, p = run(make(), x)
    ref = np_deconv(x, p['weight'], p.get('bias'), stride, pad, adj, groups)
    assert_almost_equal(out, ref, rtol=1e-4, atol=1e-5)


def test_conv2d_backward_matches_central_differences():
    layer = nn.Conv2D(2, 3, padding=1, in_channels=2)
    layer.cast('float64')
    layer.initialize()
    x = det((1, 2, 4, 4)).astype(np.float64)
    w = det((1, 2, 4, 4), 1.0).astype(np.float64)
    xa = mx.nd.array(x, dtype='float64')
    xa.attach_grad()
    with autograd.record():
        loss = (layer(xa) * mx.nd.array(w, dtype='float64')).sum()
    loss.backward()
    weight = layer.weight.data().asnumpy()
    bias = layer.bias.data().asnumpy()

    def f(v):
        return float((np_conv(v, weight, bias, (1, 1), (1, 1), (1, 1), 1) * w).sum())
    assert_almost_equal(xa.grad.asnumpy(), central_differences(f, x), rtol=1e-5, atol=1e-7)
    assert_almost_equal(layer.bias.grad().asnumpy(), w.sum(axis=(0, 2, 3)), rtol=1e-10)


# --------------------------------------------------------------------------- pooling
@pytest.mark.parametrize('make,shape,kernel,stride,pad,kind,ceil,cip', [
    (lambda: nn.MaxPool1D(3, 2, 1, ceil_mode=True), (2, 3, 8), (3,), (2,), (1,), 'max', True,
     True),
    (lambda: nn.MaxPool2D(), (2, 3, 5, 5), (2, 2), (2, 2), (0, 0), 'max', False, True),
    (lambda: nn.MaxPool3D(), (1, 2, 4, 4, 4), (2, 2, 2), (2, 2, 2), (0, 0, 0), 'max', False,
     True),
    (lambda: nn.AvgPool1D(3, 2, 1, count_include_pad=False), (2, 3, 8), (3,), (2,), (1,),
     'avg', False, False),
    (lambda: nn.AvgPool2D(3, 2, 1, ceil_mode=True), (2, 3, 6, 6), (3, 3), (2, 2), (1, 1),
     'avg', True, True),
    (lambda: nn.AvgPool3D(), (1, 2, 4, 4, 4), (2, 2, 2), (2, 2, 2), (0, 0, 0), 'avg', False,
     True),
])
def test_pooling_matches_numpy(make, shape, kernel, stride, pad, kind, ceil, cip):
    x = det(shape)
    out, _ = run(make(), x)
    assert_almost_equal(out, np_pool(x, kernel, stride, pad, kind, ceil, cip),
                        rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('layer,shape,reduce', [
    (nn.GlobalMaxPool1D, (2, 3, 8), np.max), (nn.GlobalMaxPool2D, (2, 3, 5, 5), np.max),
    (nn.GlobalMaxPool3D, (1, 2, 4, 3, 2), np.max), (nn.GlobalAvgPool1D, (2, 3, 8), np.mean),
    (nn.GlobalAvgPool2D, (2, 3, 5, 5), np.mean), (nn.GlobalAvgPool3D, (1, 2, 4, 3, 2), np.mean),
])
def test_global_pooling_reduces_spatial_axes(layer, shape, reduce):
    x = det(shape)
    out, _ = run(layer(), x)
    axes = tuple(range(2, len(shape)))
    assert_almost_equal(out, reduce(x, axis=axes, keepdims=True), rtol=1e-5, atol=1e-6)


def test_pooling_channels_last():
    x = det((2, 5, 5, 3))
    out, _ = run(nn.MaxPool2D(layout='NHWC'), x)
    ref = np_pool(x.transpose(0, 3, 1, 2), (2, 2), (2, 2), (0, 0), 'max')
    assert_almost_equal(out, ref.transpose(0, 2, 3, 1))
    out, _ = run(nn.GlobalAvgPool2D(layout='NHWC'), x)
    assert_almost_equal(out, x.mean(axis=(1, 2), keepdims=True), rtol=1e-5, atol=1e-6)


def test_reflection_pad2d():
    x = det((1, 2, 4, 4))
    out, _ = run(nn.ReflectionPad2D(2), x)
    assert_almost_equal(out, np.pad(x, [(0, 0), (0, 0), (2, 2), (2, 2)], mode='reflect'))


# ---------------------------------------------------------------------- contrib layers
def test_pixel_shuffle_matches_numpy():
    x = det((1, 4, 3))
    out, _ = run(cnn.PixelShuffle1D(2), x)
    assert_almost_equal(out, x.reshape(1, 2, 2, 3).transpose(0, 1, 3, 2).reshape(1, 2, 6))
    x = det((1, 12, 2, 3))
    out, _ = run(cnn.PixelShuffle2D((2, 3)), x)
    ref = x.reshape(1, 2, 2, 3, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 9)
    assert_almost_equal(out, ref)
    x = det((1, 12, 2, 3, 2))
    out, _ = run(cnn.PixelShuffle3D((1, 2, 3)), x)
    ref = x.reshape(1, 2, 1, 2, 3, 2, 3, 2).transpose(0, 1, 5, 2, 6, 3, 7, 4)
    assert_almost_equal(out, ref.reshape(1, 2, 2, 6, 6))


def test_concurrent_concatenates_branch_outputs():
    x = det((2, 3))
    for container in (cnn.Concurrent(axis=1), cnn.HybridConcurrent(axis=1)):
        with container.name_scope():
            container.add(nn.Dense(2), cnn.Identity(), nn.Dense(3))
        out, p = run(container, x)
        ref = np.concatenate([x @ p['dense0_weight'].T + p['dense0_bias'], x,
                              x @ p['dense1_weight'].T + p['dense1_bias']], axis=1)
        assert_almost_equal(out, ref, rtol=1e-5, atol=1e-6)


def test_syncbatchnorm_on_one_device_is_batchnorm():
    x = det((2, 3, 4))
    sync = cnn.SyncBatchNorm(num_devices=1)
    _, p = run(sync, x)
    with autograd.record():
        out = sync(mx.nd.array(x)).asnumpy()
    assert_almost_equal(out, bn_reference(x, p, 1, 1e-5, train=True), rtol=1e-4, atol=1e-4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        cnn.SyncBatchNorm()
    assert any('num_devices' in str(w.message) for w in caught)


# --------------------------------------------------------------- deferred shapes, names
@pytest.mark.parametrize('make,shape,expected', [
    (lambda: nn.Dense(3), (2, 4, 5), {'weight': (3, 20), 'bias': (3,)}),
    (lambda: nn.Dense(3, flatten=False), (2, 4, 5), {'weight': (3, 5), 'bias': (3,)}),
    (lambda: nn.Conv2D(4, 3, groups=2), (1, 6, 5, 5), {'weight': (4, 3, 3, 3), 'bias': (4,)}),
    (lambda: nn.Conv2D(4, 3, layout='NHWC'), (1, 5, 5, 6), {'weight': (4, 3, 3, 6),
                                                           'bias': (4,)}),
    (lambda: nn.Conv1DTranspose(4, 3), (1, 6, 5), {'weight': (6, 4, 3), 'bias': (4,)}),
    (lambda: nn.BatchNorm(axis=-1), (2, 3, 7), {'gamma': (7,), 'beta': (7,),
                                               'running_mean': (7,), 'running_var': (7,)}),
    (lambda: nn.InstanceNorm(axis=2), (2, 3, 7), {'gamma': (7,), 'beta': (7,)}),
    (lambda: nn.LayerNorm(axis=1), (2, 3, 7), {'gamma': (3,), 'beta': (3,)}),
])
def test_deferred_shapes_come_from_the_first_input(make, shape, expected):
    layer = make()
    layer.initialize()
    assert any(0 in p.shape for p in layer.params.values())
    layer(mx.nd.array(det(shape)))
    got = {name[len(layer.prefix):]: p.shape for name, p in layer.params.items()}
    assert got == expected


def test_parameter_names_match_mxnet191():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, activation='relu', in_units=4), nn.BatchNorm(scale=False),
                nn.Conv2D(4, 3), nn.Conv2DTranspose(2, 3), nn.PReLU(), nn.Embedding(10, 4),
                nn.LayerNorm(), nn.InstanceNorm(), nn.GroupNorm(2))
    prefix = net.prefix
    assert prefix.startswith('hybridsequential')
    params = net.collect_params()
    got = [(k[len(prefix):], p.shape, p.grad_req) for k, p in params.items()]
    assert got == [
        ('dense0_weight', (3, 4), 'write'), ('dense0_bias', (3,), 'write'),
        ('batchnorm0_gamma', (0,), 'null'), ('batchnorm0_beta', (0,), 'write'),
        ('batchnorm0_running_mean', (0,), 'null'), ('batchnorm0_running_var', (0,), 'null'),
        ('conv0_weight', (4, 0, 3, 3), 'write'), ('conv0_bias', (4,), 'write'),
        ('conv1_weight', (0, 2, 3, 3), 'write'), ('conv1_bias', (2,), 'write'),
        ('prelu0_alpha', (1,), 'write'), ('embedding0_weight', (10, 4), 'write'),
        ('layernorm0_gamma', (0,), 'write'), ('layernorm0_beta', (0,), 'write'),
        ('instancenorm0_gamma', (0,), 'null'), ('instancenorm0_beta', (0,), 'write'),
        ('groupnorm0_gamma', (2,), 'write'), ('groupnorm0_beta', (2,), 'write')]
    assert net[0].act.prefix == prefix + 'dense0_relu_'
    assert nn.MaxPool2D().prefix.startswith('pool')
    assert nn.Activation('tanh').prefix.startswith('tanh')
    assert nn.Conv1DTranspose(2, 3).prefix.startswith('conv')


REPR_191 = """HybridSequential(
  (0): Dense(4 -> 3, Activation(relu))
  (1): Dense(None -> 5, linear)
  (2): Dropout(p = 0.5, axes=(1,))
  (3): BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=True, use_global_stats=False, in_channels=3)
  (4): InstanceNorm(eps=1e-05, axis=1, center=True, scale=False, in_channels=0)
  (5): LayerNorm(eps=1e-05, axis=-1, center=True, scale=True, in_channels=0)
  (6): GroupNorm(eps=1e-05, num_groups=2, center=True, scale=True)
  (7): Embedding(10 -> 4, float32)
  (8): Flatten
  (9): HybridLambda(tanh)
  (10): LeakyReLU(0.1)
  (11): PReLU(
  
  )
  (12): Conv2D(2 -> 4, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), groups=2, bias=False, Activation(relu))
  (13): Conv2DTranspose(4 -> 2, kernel_size=(3, 3), stride=(2, 2))
  (14): Conv1DTranspose(4 -> 0, kernel_size=(3,), stride=(1,))
  (15): MaxPool2D(size=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, global_pool=False, pool_type=max, layout=NCHW)
  (16): AvgPool1D(size=(2,), stride=(2,), padding=(0,), ceil_mode=False, global_pool=False, pool_type=avg, layout=NCW)
  (17): GlobalAvgPool2D(size=(1, 1), stride=(1, 1), padding=(0, 0), ceil_mode=True, global_pool=True, pool_type=avg, layout=NCHW)
  (18): PixelShuffle2D((2, 3))
  (19): SyncBatchNorm(eps=1e-05, momentum=0.9, fix_gamma=False, use_global_stats=False, ndev=1, key='net_syncbatchnorm0_', in_channels=None)
)"""


def test_repr_matches_mxnet191():
    net = nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Dense(3, activation='relu', in_units=4), nn.Dense(5, use_bias=False),
                nn.Dropout(0.5, axes=(1,)), nn.BatchNorm(in_channels=3, scale=False),
                nn.InstanceNorm(), nn.LayerNorm(), nn.GroupNorm(2), nn.Embedding(10, 4),
                nn.Flatten(), nn.HybridLambda('tanh'), nn.LeakyReLU(0.1), nn.PReLU(),
                nn.Conv2D(4, (3, 2), strides=2, padding=1, dilation=2, groups=2,
                          activation='relu', use_bias=False, in_channels=4),
                nn.Conv2DTranspose(4, 3, output_padding=1, strides=2, in_channels=2),
                nn.Conv1DTranspose(4, 3), nn.MaxPool2D(3, 2, 1, ceil_mode=True),
                nn.AvgPool1D(), nn.GlobalAvgPool2D(), cnn.PixelShuffle2D((2, 3)),
                cnn.SyncBatchNorm(num_devices=1))
    assert repr(net) == REPR_191
    seq = nn.Sequential(prefix='s_')
    with seq.name_scope():
        seq.add(nn.Lambda('tanh'), nn.Lambda(lambda x: x), cnn.SparseEmbedding(10, 3))
    assert repr(seq) == ('Sequential(\n  (0): Lambda(tanh)\n  (1): Lambda(<lambda>)\n'
                         '  (2): SparseEmbedding(10 -> 3, float32)\n)')


# ------------------------------------------------------------------------- containers
def test_sequential_indexing_slicing_and_length():
    net = nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Dense(3), nn.Activation('relu'), nn.Dense(2))
    assert len(net) == 3
    assert isinstance(net[1], nn.Activation)
    tail = net[1:]
    assert isinstance(tail, nn.HybridSequential) and len(tail) == 2
    assert tail.prefix == 'net_' and tail[1] is net[2]
    out, _ = run(net, det((2, 4)))
    assert_almost_equal(tail(net[0](mx.nd.array(det((2, 4))))).asnumpy(), out)
    net.hybridize()
    assert_almost_equal(net(mx.nd.array(det((2, 4)))).asnumpy(), out)


def test_sequential_hybridize_warns_when_all_children_are_hybrid():
    net = nn.Sequential()
    net.add(nn.Dense(2), nn.Dense(3))
    with pytest.warns(UserWarning, match='Consider using HybridSequential'):
        net.hybridize()
    mixed = nn.Sequential()
    mixed.add(nn.Dense(2), nn.Lambda('tanh'))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        mixed.hybridize()


def test_hybrid_sequential_rejects_plain_blocks():
    with pytest.raises(ValueError, match='HybridBlock'):
        nn.HybridSequential().add(nn.Lambda('tanh'))


def test_lambda_rejects_unknown_names_and_non_callables():
    with pytest.raises(InvalidConfigError, match='not found'):
        nn.Lambda('no_such_function')
    with pytest.raises(InvalidConfigError, match='not found'):
        nn.HybridLambda('no_such_function')
    with pytest.raises(ValueError, match='Unrecognized function'):
        nn.HybridLambda(3)


# -------------------------------------------------------------------- MXNet 1.9.1 file
def fixture_net():
    net = nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation('relu'),
                nn.MaxPool2D(), nn.Dense(5))
    return net


@pytest.mark.parametrize('prefixed', [False, True])
def test_parameters_saved_by_mxnet191_give_its_outputs(prefixed):
    expected = np.load(os.path.join(FIXTURES, 'gluon_nn_mxnet191_expected.npz'))
    net = fixture_net()
    if prefixed:  # written by ParameterDict.save: full names, deferred shapes still unknown
        net.collect_params().load(os.path.join(FIXTURES, 'gluon_nn_mxnet191_prefixed.params'))
    else:         # written by save_parameters: attribute paths '0.weight', ...
        net.load_parameters(os.path.join(FIXTURES, 'gluon_nn_mxnet191.params'))
    x = mx.nd.array(expected['x'])
    assert_almost_equal(net(x).asnumpy(), expected['infer'], rtol=1e-5, atol=1e-6)
    with autograd.record():
        out = net(x).asnumpy()
    assert_almost_equal(out, expected['train'], rtol=1e-4, atol=1e-5)
    assert net[0].weight.shape == (4, 3, 3, 3) and net[4].weight.shape == (5, 36)


# ------------------------------------------------------------------------ bad inputs
def test_dense_fed_a_wrong_input_size_names_layer_and_shapes():
    layer = nn.Dense(3, prefix='fc_')
    layer.initialize()
    layer(mx.nd.ones((2, 4)))
    with pytest.raises(MXNetError) as err:
        layer(mx.nd.ones((2, 5)))
    message = str(err.value)
    assert "Dense 'fc'" in message and '(2, 5)' in message and '(3,4)' in message


@pytest.mark.parametrize('in_channels', [0, 3])
def test_conv2d_fed_a_3d_input_names_layer_and_shape(in_channels):
    layer = nn.Conv2D(2, 3, in_channels=in_channels, prefix='c_')
    layer.initialize()
    with pytest.raises(MXNetError) as err:
        layer(mx.nd.ones((1, 3, 5)))
    message = str(err.value)
    assert "Conv2D 'c'" in message and '(1, 3, 5)' in message and '4' in message


def test_batchnorm_fed_wrong_channels_names_layer():
    layer = nn.BatchNorm(in_channels=3, prefix='bn_')
    layer.initialize()
    with pytest.raises(MXNetError, match="BatchNorm 'bn'.*\\(2, 4, 5\\)"):
        layer(mx.nd.ones((2, 4, 5)))
    with pytest.raises(MXNetError, match='axis 3 is out of range'):
        bad = nn.BatchNorm(axis=3)
        bad.initialize()
        bad(mx.nd.ones((2, 3)))


@pytest.mark.parametrize('make,match', [
    (lambda: nn.Conv1D(2, 3, layout='NWC'), "Only supports 'NCW'"),
    (lambda: nn.Conv2D(2, (3, 3, 3)), 'kernel_size must be a number or a list of 2 ints'),
    (lambda: nn.Conv2DTranspose(2, 3, output_padding=(1, 1, 1)), 'output_padding'),
    (lambda: nn.Conv2D(3, 3, groups=2), 'divisible by groups'),
    (lambda: nn.MaxPool2D(layout='NCW'), 'Only NCHW and NHWC layouts'),
    (lambda: nn.AvgPool3D(pool_size=(2, 2)), 'pool_size must be a number or a list of 3'),
    (lambda: nn.ReflectionPad2D((1, 2)), 'padding must be a number or 8 ints'),
    (lambda: cnn.PixelShuffle2D((1, 2, 3)), 'wrong length 3'),
])
def test_bad_layer_arguments_raise_invalid_config(make, match):
    with pytest.raises(InvalidConfigError, match=match):
        make()


def test_grouped_conv_rejects_indivisible_input_channels():
    layer = nn.Conv2D(4, 3, groups=2)
    layer.initialize()
    with pytest.raises(MXNetError, match='not divisible by groups=2'):
        layer(mx.nd.ones((1, 3, 5, 5)))


def test_gluon_exposes_nn_modules():
    assert gluon.nn is nn and gluon.contrib.nn is cnn
    assert nn.Block is gluon.Block and nn.HybridBlock is gluon.HybridBlock
