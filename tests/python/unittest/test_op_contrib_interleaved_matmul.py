"""The interleaved multi-head attention matmuls (selfatt_qk, selfatt_valatt, encdec_qk,
encdec_valatt): outputs and gradients equal MXNet 1.9.1's
(fixtures/contrib_rcnn_attention_mxnet191.npz) and numpy einsum references of the layout;
grad_req='add' accumulates; bad shapes raise MXNetError naming the operator."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'contrib_rcnn_attention_mxnet191.npz'))
HEADS = 3
OPS = {
    'selfatt_qk': (mx.nd.contrib.interleaved_matmul_selfatt_qk, 1),
    'selfatt_valatt': (mx.nd.contrib.interleaved_matmul_selfatt_valatt, 2),
    'encdec_qk': (mx.nd.contrib.interleaved_matmul_encdec_qk, 2),
    'encdec_valatt': (mx.nd.contrib.interleaved_matmul_encdec_valatt, 2),
}


def split_heads(x, parts):
    """(L, B, parts * H * D) -> parts arrays of (B * H, L, D), attention batch b * H + h."""
    L, B, F = x.shape
    t = x.reshape(L, B, HEADS, parts, F // parts // HEADS)
    return [t[:, :, :, i, :].transpose(1, 2, 0, 3).reshape(B * HEADS, L, -1)
            for i in range(parts)]


def merge_heads(x, B):
    """(B * H, L, D) -> (L, B, H * D)."""
    BH, L, D = x.shape
    return x.reshape(B, HEADS, L, D).transpose(2, 0, 1, 3).reshape(L, B, HEADS * D)


def np_forward(name, inputs):
    if name == 'selfatt_qk':
        q, k, _ = split_heads(inputs[0], 3)
        return np.einsum('aid,ajd->aij', q, k) / np.sqrt(q.shape[2])
    if name == 'selfatt_valatt':
        _, _, v = split_heads(inputs[0], 3)
        return merge_heads(np.einsum('aij,ajd->aid', inputs[1], v), inputs[0].shape[1])
    if name == 'encdec_qk':
        (q,) = split_heads(inputs[0], 1)
        k, _ = split_heads(inputs[1], 2)
        return np.einsum('aid,ajd->aij', q, k) / np.sqrt(q.shape[2])
    _, v = split_heads(inputs[0], 2)
    return merge_heads(np.einsum('aij,ajd->aid', inputs[1], v), inputs[0].shape[1])


def run(name, inputs, ograd, grad_req='write'):
    op, n = OPS[name]
    arrs = [mx.nd.array(x) for x in inputs]
    for a in arrs:
        a.attach_grad(grad_req)
    with mx.autograd.record():
        out = op(*arrs, heads=HEADS)
    out.backward(mx.nd.array(ograd))
    return out.asnumpy(), [a.grad.asnumpy() for a in arrs]


@pytest.mark.parametrize('name', sorted(OPS))
def test_matches_mxnet191_and_numpy(name):
    key = 'att_' + name
    inputs = [FIXTURE['%s/in%d' % (key, i)] for i in range(OPS[name][1])]
    out, grads = run(name, inputs, FIXTURE[key + '/ograd'])
    np.testing.assert_allclose(out, FIXTURE[key + '/out'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out, np_forward(name, inputs), rtol=1e-5, atol=1e-6)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, FIXTURE['%s/grad%d' % (key, i)], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name', sorted(OPS))
def test_gradient_add_accumulates(name):
    key = 'att_' + name
    inputs = [FIXTURE['%s/in%d' % (key, i)] for i in range(OPS[name][1])]
    op, _ = OPS[name]
    arrs = [mx.nd.array(x) for x in inputs]
    for a in arrs:
        a.attach_grad('add')
    for _ in range(2):
        with mx.autograd.record():
            out = op(*arrs, heads=HEADS)
        out.backward(mx.nd.array(FIXTURE[key + '/ograd']))
    for i, a in enumerate(arrs):
        np.testing.assert_allclose(a.grad.asnumpy(), 2 * FIXTURE['%s/grad%d' % (key, i)],
                                   rtol=1e-5, atol=1e-6)


def test_float64_and_symbol_inference():
    qkv = np.random.RandomState(0).uniform(-1, 1, (4, 2, 3 * HEADS * 2))
    out = mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.array(qkv, dtype='float64'),
                                                      heads=HEADS)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), np_forward('selfatt_qk', [qkv]), rtol=1e-12)
    s = mx.sym.contrib.interleaved_matmul_encdec_valatt(mx.sym.var('kv'), mx.sym.var('att'),
                                                        heads=HEADS)
    assert s.list_arguments() == ['kv', 'att']
    _, outs, _ = s.infer_shape(kv=(6, 2, 2 * HEADS * 4), att=(2 * HEADS, 5, 6))
    assert outs == [(5, 2, HEADS * 4)]


def test_bad_shapes_name_the_operator():
    with pytest.raises(MXNetError, match='selfatt_qk.*queries_keys_values.*multiple'):
        mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.ones((4, 2, 10)),
                                                    heads=HEADS).wait_to_read()
    with pytest.raises(MXNetError, match='selfatt_valatt.*attention'):
        mx.nd.contrib.interleaved_matmul_selfatt_valatt(
            mx.nd.ones((4, 2, 18)), mx.nd.ones((6, 4, 3)), heads=HEADS).wait_to_read()
    with pytest.raises(MXNetError, match='encdec_qk.*keys_values'):
        mx.nd.contrib.interleaved_matmul_encdec_qk(
            mx.nd.ones((4, 2, 6)), mx.nd.ones((5, 2, 6)), heads=HEADS).wait_to_read()
    with pytest.raises(MXNetError, match='heads'):
        mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.ones((4, 2, 18)),
                                                    heads=0).wait_to_read()
