"""contrib.DeformableConvolution and contrib.ModulatedDeformableConvolution: forward against a
numpy transcription of the sampling rule, backward against numerical gradients (float64),
outputs and (DCNv1) gradients equal to MXNet 1.9.1's (fixtures/deformable_conv_mxnet191.npz,
written by tools/make_deformable_conv_fixtures.py), the gluon.contrib.cnn layers loading a
1.9.1 parameter file, argument names and errors."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.base import MXNetError
from mxnet.gluon import nn
from mxnet.gluon.contrib.cnn import DeformableConvolution, ModulatedDeformableConvolution

HERE = os.path.join(os.path.dirname(__file__), 'fixtures')
FIXTURE = np.load(os.path.join(HERE, 'deformable_conv_mxnet191.npz'))

CASES = {
    'basic': dict(kernel=(3, 3), num_filter=4),
    'stride_pad_dilate': dict(kernel=(3, 2), stride=(2, 1), pad=(1, 2), dilate=(2, 1),
                              num_filter=3),
    'groups': dict(kernel=(2, 3), num_filter=6, num_group=2, num_deformable_group=2,
                   no_bias=True),
    'deform_groups': dict(kernel=(3, 3), pad=(1, 1), num_filter=3, num_deformable_group=3),
}


def case(name):
    start = name + '/'
    return {k[len(start):]: FIXTURE[k] for k in FIXTURE.files if k.startswith(start)}


def np_sample(plane, h, w, modulated):
    """The bilinear read of one tap, as the operators define it."""
    H, W = plane.shape
    if modulated:
        if not (h > -1 and w > -1 and h < H and w < W):
            return 0.0
    elif not (h >= 0 and w >= 0 and h < H and w < W):
        return 0.0
    h0, w0 = int(np.floor(h)), int(np.floor(w))
    h1, w1 = h0 + 1, w0 + 1
    lh, lw = h - h0, w - w0
    if not modulated:
        if h0 >= H - 1:
            h0 = h1 = H - 1
            lh = 0.0
        if w0 >= W - 1:
            w0 = w1 = W - 1
            lw = 0.0
    total = 0.0
    for r, c, wt in ((h0, w0, (1 - lh) * (1 - lw)), (h0, w1, (1 - lh) * lw),
                     (h1, w0, lh * (1 - lw)), (h1, w1, lh * lw)):
        if 0 <= r < H and 0 <= c < W:
            total += wt * plane[r, c]
    return total


def np_deformable_conv(data, offset, weight, bias, mask, kernel, stride=(1, 1), pad=(0, 0),
                       dilate=(1, 1), num_group=1, num_deformable_group=1, **_):
    N, C, H, W = data.shape
    F = weight.shape[0]
    kh, kw = kernel
    oh, ow = offset.shape[2:]
    cpg, cg, fg = C // num_deformable_group, C // num_group, F // num_group
    cols = np.zeros((N, C, kh * kw, oh, ow))
    for n in range(N):
        for c in range(C):
            dg = c // cpg
            for i in range(kh):
                for j in range(kw):
                    k = i * kw + j
                    for y in range(oh):
                        for x in range(ow):
                            dy = offset[n, 2 * (dg * kh * kw + k), y, x]
                            dx = offset[n, 2 * (dg * kh * kw + k) + 1, y, x]
                            h = y * stride[0] - pad[0] + i * dilate[0] + dy
                            w = x * stride[1] - pad[1] + j * dilate[1] + dx
                            m = 1.0 if mask is None else mask[n, dg * kh * kw + k, y, x]
                            cols[n, c, k, y, x] = m * np_sample(data[n, c], h, w,
                                                                mask is not None)
    out = np.zeros((N, F, oh, ow))
    for grp in range(num_group):
        wg = weight[grp * fg:(grp + 1) * fg].reshape(fg, cg * kh * kw)
        cg_cols = cols[:, grp * cg:(grp + 1) * cg].reshape(N, cg * kh * kw, oh * ow)
        out[:, grp * fg:(grp + 1) * fg] = np.einsum('fk,nkp->nfp', wg, cg_cols).reshape(
            N, fg, oh, ow)
    if bias is not None:
        out += bias[None, :, None, None]
    return out


def run(modulated, arrays, kw, dtype=np.float32):
    op = (mx.nd.contrib.ModulatedDeformableConvolution if modulated
          else mx.nd.contrib.DeformableConvolution)
    names = ['data', 'offset'] + (['mask'] if modulated else []) + ['weight'] + \
        ([] if kw.get('no_bias') else ['bias'])
    inputs = {k: mx.nd.array(arrays[k], dtype=dtype) for k in names}
    for v in inputs.values():
        v.attach_grad()
    with autograd.record():
        out = op(**inputs, **kw)
    out.backward(mx.nd.array(arrays['head'], dtype=dtype))
    return out.asnumpy(), {k: v.grad.asnumpy() for k, v in inputs.items()}


@pytest.mark.parametrize('modulated', [False, True])
@pytest.mark.parametrize('name', sorted(CASES))
def test_forward_matches_numpy_and_mxnet191(name, modulated):
    arrays = case(('modulated_' if modulated else 'deformable_') + name)
    kw = CASES[name]
    out, _ = run(modulated, arrays, kw)
    ref = np_deformable_conv(arrays['data'].astype(np.float64), arrays['offset'],
                             arrays['weight'], arrays.get('bias'), arrays.get('mask'), **kw)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out, arrays['output'], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize('name', sorted(CASES))
def test_deformable_gradients_match_mxnet191(name):
    arrays = case('deformable_' + name)
    _, grads = run(False, arrays, CASES[name])
    for k, g in grads.items():
        np.testing.assert_allclose(g, arrays['grad:' + k], rtol=1e-4, atol=1e-4, err_msg=k)


@pytest.mark.parametrize('modulated', [False, True])
@pytest.mark.parametrize('name', ['basic', 'groups', 'stride_pad_dilate'])
def test_gradients_match_numerical(name, modulated):
    arrays = case(('modulated_' if modulated else 'deformable_') + name)
    kw = CASES[name]
    arrays = {k: v.astype(np.float64) for k, v in arrays.items()}
    _, grads = run(modulated, arrays, kw, dtype=np.float64)
    head = arrays['head']

    def loss(key, value):
        a = dict(arrays)
        a[key] = value
        out = np_deformable_conv(a['data'], a['offset'], a['weight'], a.get('bias'),
                                 a.get('mask'), **kw)
        return (out * head).sum()

    rng = np.random.RandomState(0)
    eps = 1e-6
    for key, grad in grads.items():
        flat = arrays[key].reshape(-1)
        for idx in rng.choice(flat.size, min(flat.size, 12), replace=False):
            plus, minus = flat.copy(), flat.copy()
            plus[idx] += eps
            minus[idx] -= eps
            numeric = (loss(key, plus.reshape(arrays[key].shape))
                       - loss(key, minus.reshape(arrays[key].shape))) / (2 * eps)
            assert abs(grad.reshape(-1)[idx] - numeric) < 1e-5 * max(1, abs(numeric)), \
                (key, idx, grad.reshape(-1)[idx], numeric)


def test_zero_offsets_and_unit_mask_give_convolution():
    rng = np.random.RandomState(1)
    x = mx.nd.array(rng.uniform(-1, 1, (2, 4, 6, 6)))
    w = mx.nd.array(rng.uniform(-1, 1, (6, 2, 3, 3)))
    b = mx.nd.array(rng.uniform(-1, 1, (6,)))
    kw = dict(kernel=(3, 3), pad=(1, 1), stride=(2, 2), num_filter=6, num_group=2)
    ref = mx.nd.Convolution(x, w, b, **kw).asnumpy()
    off = mx.nd.zeros((2, 18, 3, 3))
    np.testing.assert_allclose(mx.nd.contrib.DeformableConvolution(x, off, w, b, **kw).asnumpy(),
                               ref, rtol=1e-5, atol=1e-5)
    out = mx.nd.contrib.ModulatedDeformableConvolution(x, off, mx.nd.ones((2, 9, 3, 3)), w, b,
                                                       **kw)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5, atol=1e-5)


def test_float64_and_add_to_gradients():
    arrays = case('deformable_basic')
    out32, g32 = run(False, arrays, CASES['basic'])
    out64, g64 = run(False, arrays, CASES['basic'], dtype=np.float64)
    np.testing.assert_allclose(out64, out32, rtol=1e-4, atol=1e-4)
    x = mx.nd.array(arrays['data'])
    off = mx.nd.array(arrays['offset'])
    w = mx.nd.array(arrays['weight'])
    for v in (x, off, w):
        v.attach_grad(grad_req='add')
    for _ in range(2):
        with autograd.record():
            y = mx.nd.contrib.DeformableConvolution(x, off, w, kernel=(3, 3), num_filter=4,
                                                    no_bias=True)
        y.backward(mx.nd.array(arrays['head']))
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * g32['data'], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(off.grad.asnumpy(), 2 * g32['offset'], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(w.grad.asnumpy(), 2 * g32['weight'], rtol=1e-4, atol=1e-4)


def test_argument_and_input_names_follow_mxnet191():
    doc = mx.nd.contrib.ModulatedDeformableConvolution.__doc__
    for arg in ('data', 'offset', 'mask', 'weight', 'bias', 'kernel', 'stride', 'dilate', 'pad',
                'num_filter', 'num_group', 'num_deformable_group', 'workspace', 'no_bias',
                'im2col_step', 'layout'):
        assert arg in doc, arg
    x = mx.nd.ones((1, 2, 4, 4))
    out = mx.nd.contrib.DeformableConvolution(x, mx.nd.zeros((1, 8, 3, 3)),
                                              mx.nd.ones((3, 2, 2, 2)), kernel=(2, 2),
                                              num_filter=3, no_bias=True, workspace=512,
                                              layout='NCHW')
    assert out.shape == (1, 3, 3, 3)
    np.testing.assert_allclose(out.asnumpy(), 8)


def test_bad_input_is_named():
    x = mx.nd.ones((1, 4, 5, 5))
    w = mx.nd.ones((2, 4, 3, 3))
    with pytest.raises(MXNetError, match='DeformableConvolution.*offset'):
        mx.nd.contrib.DeformableConvolution(x, mx.nd.zeros((1, 17, 3, 3)), w, kernel=(3, 3),
                                            num_filter=2, no_bias=True).wait_to_read()
    with pytest.raises(MXNetError, match='num_deformable_group=3'):
        mx.nd.contrib.DeformableConvolution(x, mx.nd.zeros((1, 54, 3, 3)), w, kernel=(3, 3),
                                            num_filter=2, num_deformable_group=3,
                                            no_bias=True).wait_to_read()
    with pytest.raises(MXNetError, match='kernel expected 2 values'):
        mx.nd.contrib.DeformableConvolution(mx.nd.ones((1, 4, 5)), mx.nd.zeros((1, 6, 3)),
                                            mx.nd.ones((2, 4, 3)), kernel=(3,), num_filter=2,
                                            no_bias=True).wait_to_read()
    with pytest.raises(MXNetError, match='float32 or float64'):
        mx.nd.contrib.ModulatedDeformableConvolution(
            x.astype('float16'), mx.nd.zeros((1, 18, 3, 3), dtype='float16'),
            mx.nd.ones((1, 9, 3, 3), dtype='float16'), w.astype('float16'), kernel=(3, 3),
            num_filter=2, no_bias=True).wait_to_read()


def make_net():
    net = nn.HybridSequential(prefix='dcn_')
    with net.name_scope():
        net.add(DeformableConvolution(4, kernel_size=3, padding=1),
                ModulatedDeformableConvolution(4, kernel_size=(3, 2), strides=2,
                                               num_deformable_group=2, activation='relu'))
    return net


def test_layers_load_mxnet191_parameters_and_match_outputs():
    net = make_net()
    net.load_parameters(os.path.join(HERE, 'deformable_conv_mxnet191.params'))
    assert list(net.collect_params().keys()) == [
        'dcn_deformable_conv0_offset_weight', 'dcn_deformable_conv0_offset_bias',
        'dcn_deformable_conv0_deformable_conv_weight', 'dcn_deformable_conv0_deformable_conv_bias',
        'dcn_modulated_deformable_conv0_deformable_conv_weight',
        'dcn_modulated_deformable_conv0_deformable_conv_bias',
        'dcn_modulated_deformable_conv0_offset_weight',
        'dcn_modulated_deformable_conv0_offset_bias']
    out = net(mx.nd.array(FIXTURE['net/data']))
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['net/output'], rtol=1e-4, atol=1e-4)


def test_layer_shapes_defer_and_train():
    layer = ModulatedDeformableConvolution(5, kernel_size=3, num_deformable_group=2,
                                           use_bias=False, offset_use_bias=False)
    assert layer.offset_weight.shape == (54, 0, 3, 3)
    assert layer.deformable_conv_bias is None and layer.offset_bias is None
    layer.initialize()
    x = mx.nd.ones((2, 4, 6, 6))
    x.attach_grad()
    with autograd.record():
        y = layer(x)
    y.backward()
    assert y.shape == (2, 5, 4, 4)
    assert layer.offset_weight.shape == (54, 4, 3, 3)
    assert layer.deformable_conv_weight.shape == (5, 4, 3, 3)
    assert layer.offset_weight.grad().abs().sum().asscalar() > 0
    assert 'ModulatedDeformableConvolution(4 -> 5' in repr(layer)
