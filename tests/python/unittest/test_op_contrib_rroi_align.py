"""RROIAlign (rotated ROI align, forward only): outputs equal MXNet 1.9.1's
(fixtures/contrib_rcnn_attention_mxnet191.npz) and a float32 numpy transcription of the rule;
bad input raises MXNetError naming the operator."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'contrib_rcnn_attention_mxnet191.npz'))


def np_rroi(data, rois, pooled, scale, ratio):
    """Rotated ROI align in float32, sample by sample (the test_operator reference rule)."""
    T = np.float32
    _, C, H, W = data.shape
    PH, PW = pooled
    out = np.zeros((len(rois), C, PH, PW), dtype=T)

    def bilinear(plane, y, x):
        if y < -1.0 or y > H or x < -1.0 or x > W:
            return T(0)
        y, x = T(max(y, 0.0)), T(max(x, 0.0))
        y0, x0 = int(y), int(x)
        y1, x1 = min(y0 + 1, H - 1), min(x0 + 1, W - 1)
        if y0 >= H - 1:
            y0, y = H - 1, T(H - 1)
        if x0 >= W - 1:
            x0, x = W - 1, T(W - 1)
        ly, lx = y - T(y0), x - T(x0)
        hy, hx = T(1) - ly, T(1) - lx
        return (hy * hx * plane[y0, x0] + hy * lx * plane[y0, x1] + ly * hx * plane[y1, x0] +
                ly * lx * plane[y1, x1])

    for n, r in enumerate(rois):
        cx, cy, rw, rh = r[1:5] * T(scale)
        theta = T(r[5] * np.pi / 180.0)
        rw, rh = T(max(rw, 1.0)), T(max(rh, 1.0))
        bh, bw = rh / T(PH), rw / T(PW)
        gh = ratio if ratio > 0 else int(np.ceil(rh / T(PH)))
        gw = ratio if ratio > 0 else int(np.ceil(rw / T(PW)))
        for c in range(C):
            for ph in range(PH):
                for pw in range(PW):
                    v = T(0)
                    for iy in range(gh):
                        yy = -rh / T(2) + T(ph) * bh + (T(iy) + T(0.5)) * bh / T(gh)
                        for ix in range(gw):
                            xx = -rw / T(2) + T(pw) * bw + (T(ix) + T(0.5)) * bw / T(gw)
                            x = xx * np.cos(theta, dtype=T) + yy * np.sin(theta, dtype=T) + cx
                            y = yy * np.cos(theta, dtype=T) - xx * np.sin(theta, dtype=T) + cy
                            v += bilinear(data[int(r[0]), c], y, x)
                    out[n, c, ph, pw] = v / T(gh * gw)
    return out


@pytest.mark.parametrize('ratio', [-1, 2])
def test_rroialign_matches_mxnet191(ratio):
    data, rois = FIXTURE['rroi/data'], FIXTURE['rroi/rois']
    out = mx.nd.contrib.RROIAlign(mx.nd.array(data), mx.nd.array(rois), pooled_size=(3, 4),
                                  spatial_scale=0.0625, sampling_ratio=ratio)
    assert out.shape == (4, 3, 3, 4)
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['rroi/out_%d' % ratio], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), np_rroi(data, rois, (3, 4), 0.0625, ratio),
                               rtol=1e-5, atol=1e-6)


def test_rroialign_errors():
    with pytest.raises(MXNetError, match='RROIAlign.*rois.*\\(num_rois, 6\\)'):
        mx.nd.contrib.RROIAlign(mx.nd.ones((1, 2, 4, 4)), mx.nd.ones((3, 5)),
                                pooled_size=(2, 2), spatial_scale=1.0).wait_to_read()
    with pytest.raises(MXNetError, match='RROIAlign.*batch_index'):
        mx.nd.contrib.RROIAlign(mx.nd.ones((1, 2, 4, 4)), mx.nd.array([[2, 1, 1, 2, 2, 0]]),
                                pooled_size=(2, 2), spatial_scale=1.0).wait_to_read()
