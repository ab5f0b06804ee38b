"""PSROIPooling: outputs and gradients equal MXNet 1.9.1's
(fixtures/contrib_rcnn_attention_mxnet191.npz) and numpy transcriptions of the rules; float16
agrees with float32; bad shapes raise MXNetError naming the operator."""
import math
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'contrib_rcnn_attention_mxnet191.npz'))


def np_psroi(data, rois, scale, out_dim, pooled, group):
    """Position-sensitive average pooling over the integer pixels of each bin."""
    _, _, H, W = data.shape
    out = np.zeros((len(rois), out_dim, pooled, pooled))
    for n, r in enumerate(rois.astype(np.float64)):
        x1, y1 = round(r[1]) * scale, round(r[2]) * scale
        x2, y2 = (round(r[3]) + 1) * scale, (round(r[4]) + 1) * scale
        bh, bw = max(y2 - y1, 0.1) / pooled, max(x2 - x1, 0.1) / pooled
        for c in range(out_dim):
            for ph in range(pooled):
                for pw in range(pooled):
                    h0 = min(max(math.floor(ph * bh + y1), 0), H)
                    h1 = min(max(math.ceil((ph + 1) * bh + y1), 0), H)
                    w0 = min(max(math.floor(pw * bw + x1), 0), W)
                    w1 = min(max(math.ceil((pw + 1) * bw + x1), 0), W)
                    gh, gw = ph * group // pooled, pw * group // pooled
                    ch = (c * group + gh) * group + gw
                    cell = data[int(r[0]), ch, h0:h1, w0:w1]
                    out[n, c, ph, pw] = cell.mean() if cell.size else 0
    return out


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_psroipooling_matches_mxnet191(dtype):
    key = 'psroi_' + dtype
    data = mx.nd.array(FIXTURE[key + '/data'], dtype=dtype)
    rois = mx.nd.array(FIXTURE[key + '/rois'], dtype=dtype)
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.PSROIPooling(data, rois, spatial_scale=0.0625, output_dim=2,
                                         pooled_size=3)
    out.backward(mx.nd.array(FIXTURE[key + '/ograd'], dtype=dtype))
    assert out.shape == (4, 2, 3, 3) and out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.asnumpy(), FIXTURE[key + '/out'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(data.grad.asnumpy(), FIXTURE[key + '/grad'], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), np_psroi(FIXTURE[key + '/data'],
                                                       FIXTURE[key + '/rois'], 0.0625, 2, 3, 3),
                               rtol=1e-5, atol=1e-6)


def test_psroipooling_group_size_differs_from_pooled_size():
    data, rois = FIXTURE['psroi_group/data'], FIXTURE['psroi_group/rois']
    out = mx.nd.contrib.PSROIPooling(mx.nd.array(data), mx.nd.array(rois), spatial_scale=0.0625,
                                     output_dim=3, pooled_size=4, group_size=2)
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['psroi_group/out'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), np_psroi(data, rois, 0.0625, 3, 4, 2), rtol=1e-5,
                               atol=1e-6)


def test_psroipooling_float16_follows_float32():
    data = FIXTURE['psroi_float32/data']
    rois = FIXTURE['psroi_float32/rois']
    outs = [mx.nd.contrib.PSROIPooling(mx.nd.array(data, dtype=t), mx.nd.array(rois, dtype=t),
                                       spatial_scale=0.0625, output_dim=2, pooled_size=3)
            for t in ('float16', 'float32')]
    assert outs[0].dtype == np.float16
    np.testing.assert_allclose(outs[0].asnumpy(), outs[1].asnumpy(), rtol=1e-2, atol=1e-2)


def test_psroipooling_symbol_and_errors():
    s = mx.sym.contrib.PSROIPooling(mx.sym.var('data'), mx.sym.var('rois'), spatial_scale=0.5,
                                    output_dim=2, pooled_size=2)
    assert s.list_arguments() == ['data', 'rois']
    _, outs, _ = s.infer_shape(data=(1, 8, 6, 6), rois=(5, 5))
    assert outs == [(5, 2, 2, 2)]
    with pytest.raises(MXNetError, match='PSROIPooling.*channels'):
        s.infer_shape(data=(1, 7, 6, 6), rois=(5, 5))
    with pytest.raises(MXNetError, match='PSROIPooling.*rois.*\\(num_rois, 5\\)'):
        s.infer_shape(data=(1, 8, 6, 6), rois=(5, 4))
    with pytest.raises(MXNetError, match='PSROIPooling.*batch_index'):
        mx.nd.contrib.PSROIPooling(mx.nd.ones((1, 8, 6, 6)), mx.nd.array([[1, 0, 0, 4, 4]]),
                                   spatial_scale=0.5, output_dim=2,
                                   pooled_size=2).wait_to_read()
