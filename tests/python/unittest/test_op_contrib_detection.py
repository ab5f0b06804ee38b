"""Detection operators box_iou, bipartite_matching, box_encode, box_decode and MultiBoxPrior:
results equal MXNet 1.9.1's (fixtures/contrib_ops_mxnet191.npz, from
tools/make_contrib_op_fixtures.py) and numpy transcriptions; errors name the operator."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'contrib_ops_mxnet191.npz'))


def case(prefix):
    return {k.split('/', 1)[1]: FIXTURE[k] for k in FIXTURE.files if k.startswith(prefix + '/')}


def np_iou(a, b):
    a = a.reshape(-1, 1, 4)
    b = b.reshape(1, -1, 4)
    w = np.maximum(0, np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]))
    h = np.maximum(0, np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]))
    inter = w * h
    area = lambda x: (x[..., 2] - x[..., 0]) * (x[..., 3] - x[..., 1])
    return np.where(inter > 0, inter / (area(a) + area(b) - inter), 0)


def test_box_iou():
    f = case('iou')
    out = mx.nd.contrib.box_iou(mx.nd.array(f['a']), mx.nd.array(f['b']))
    assert out.shape == (2, 3, 4)
    np.testing.assert_allclose(out.asnumpy(), f['corner'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy().reshape(6, 4), np_iou(f['a'], f['b']), rtol=1e-5)
    center = mx.nd.contrib.box_iou(mx.nd.array(f['a']), mx.nd.array(f['b']), format='center')
    np.testing.assert_allclose(center.asnumpy(), f['center'], rtol=1e-5, atol=1e-6)
    with pytest.raises(MXNetError, match='box_iou.*4 coordinates'):
        mx.nd.contrib.box_iou(mx.nd.ones((2, 3)), mx.nd.ones((2, 4))).wait_to_read()


def test_bipartite_matching():
    f = case('match')
    for name, kw in (('desc', dict(threshold=0.3)), ('asc', dict(threshold=0.6, is_ascend=True))):
        rows, cols = mx.nd.contrib.bipartite_matching(mx.nd.array(f['scores']), **kw)
        np.testing.assert_array_equal(rows.asnumpy(), f[name + '_rows'])
        np.testing.assert_array_equal(cols.asnumpy(), f[name + '_cols'])
    scores = mx.nd.array([[0.9, 0.8, 0.1], [0.7, 0.95, 0.2], [0.3, 0.4, 0.85]])
    rows, cols = mx.nd.contrib.bipartite_matching(scores, threshold=0.0, topk=2)
    assert rows.asnumpy().tolist() == [0, 1, -1] and cols.asnumpy().tolist() == [0, 1, -1]


def test_box_encode():
    f = case('encode')
    t, m = mx.nd.contrib.box_encode(*[mx.nd.array(f[k]) for k in
                                      ('samples', 'matches', 'anchors', 'refs', 'means', 'stds')])
    np.testing.assert_allclose(t.asnumpy(), f['targets'], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(m.asnumpy(), f['masks'])
    assert (m.asnumpy()[f['samples'] <= 0.5] == 0).all()


def test_box_decode_inverts_encode():
    f = case('decode')
    for name, kw in (('corner', dict(format='corner')),
                     ('center_clip', dict(format='center', clip=0.3, std0=0.1, std1=0.2,
                                          std2=0.3, std3=0.4))):
        out = mx.nd.contrib.box_decode(mx.nd.array(f['data']), mx.nd.array(f['anchors']), **kw)
        np.testing.assert_allclose(out.asnumpy(), f[name], rtol=1e-5, atol=1e-5)
    # decoding the targets of box_encode gives back the reference boxes
    anchors = f['anchors'][0]
    refs = anchors + np.array([0.5, -0.2, 1.0, 0.3], dtype=np.float32)
    t, _ = mx.nd.contrib.box_encode(mx.nd.ones((1, 5)), mx.nd.array(np.arange(5)[None]),
                                    mx.nd.array(anchors[None]), mx.nd.array(refs[None]),
                                    mx.nd.zeros((4,)), mx.nd.ones((4,)))
    back = mx.nd.contrib.box_decode(t, mx.nd.array(anchors[None]), format='corner')
    np.testing.assert_allclose(back.asnumpy()[0], refs, rtol=1e-5, atol=1e-5)


def test_multibox_prior():
    f = case('prior')
    fmap = mx.nd.zeros((1, 2, 3, 5))
    np.testing.assert_allclose(mx.nd.contrib.MultiBoxPrior(fmap).asnumpy(), f['default'],
                               rtol=1e-6, atol=1e-7)
    out = mx.contrib.nd.MultiBoxPrior(fmap, sizes=(0.7, 0.3), ratios=(1.5, 2, 0.5),
                                      steps=(0.2, 0.1), offsets=(0.25, 0.75), clip=True)
    assert out.shape == (1, 3 * 5 * 4, 4)
    np.testing.assert_allclose(out.asnumpy(), f['custom'], rtol=1e-6, atol=1e-7)
    # one box per size, then per extra ratio; size s, ratio q: s*H/W*sqrt(q) by s/sqrt(q)
    boxes = mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, 4, 8)), sizes=[0.5],
                                        ratios=[1, 4]).asnumpy().reshape(4, 8, 2, 4)
    np.testing.assert_allclose(boxes[1, 2, 0], [0.3125 - 0.125, 0.375 - 0.25,
                                                0.3125 + 0.125, 0.375 + 0.25], rtol=1e-6)
    np.testing.assert_allclose(boxes[1, 2, 1, 2] - boxes[1, 2, 1, 0], 0.5 * 0.5 * 2, rtol=1e-6)
    with pytest.raises(MXNetError, match='offsets'):
        mx.nd.contrib.MultiBoxPrior(fmap, offsets=(1.5, 0.5)).wait_to_read()


def test_multibox_target_matches_and_mines_negatives():
    anchors = mx.nd.array([[[0.1, 0.1, 0.3, 0.3], [0.5, 0.5, 0.8, 0.8], [0.0, 0.0, 0.2, 0.2],
                            [0.6, 0.0, 0.9, 0.2]]])
    label = mx.nd.array([[[2, 0.12, 0.1, 0.3, 0.32], [0, 0.55, 0.5, 0.8, 0.85],
                          [-1, -1, -1, -1, -1]]])
    cls_pred = mx.nd.array(np.array([[[0.1, 0.2, 3.0, -1.0], [0.5, 0.1, 0.0, 2.0],
                                      [0.2, 0.3, 0.1, 0.0]]], dtype=np.float32))
    loc, mask, cls = mx.nd.contrib.MultiBoxTarget(anchors, label, cls_pred,
                                                  negative_mining_ratio=1,
                                                  negative_mining_thresh=0.5)
    # anchors 0 and 1 match the two labels (classes 2 and 0 -> targets 3 and 1); of the two
    # unmatched anchors, mining keeps at most 2 negatives: anchor 3 has the lowest background
    # probability, then anchor 2
    assert cls.asnumpy().tolist() == [[3, 1, 0, 0]]
    np.testing.assert_array_equal(mask.asnumpy().reshape(4, 4).sum(axis=1), [4, 4, 0, 0])
    gx, ax = (0.12 + 0.3) / 2, 0.2
    np.testing.assert_allclose(loc.asnumpy()[0, 0], (gx - ax) / 0.2 / 0.1, rtol=1e-5)
    np.testing.assert_allclose(loc.asnumpy()[0, 3], np.log(0.22 / 0.2) / 0.2, rtol=1e-5)
    _, _, cls1 = mx.nd.contrib.MultiBoxTarget(anchors, label, cls_pred,
                                              negative_mining_ratio=0.5,
                                              negative_mining_thresh=0.5, ignore_label=-7)
    assert cls1.asnumpy().tolist() == [[3, 1, -7, 0]]
