"""Proposal and MultiProposal (RPN region proposals): outputs equal MXNet 1.9.1's
(fixtures/contrib_rcnn_attention_mxnet191.npz), MultiProposal equals Proposal image by image,
the score output is hidden unless output_score, gradients are zero, errors name the operator."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'contrib_rcnn_attention_mxnet191.npz'))
KW = dict(feature_stride=16, scales=(2, 4), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=200,
          rpn_post_nms_top_n=40, threshold=0.6, rpn_min_size=8)


def inputs(sl=slice(None)):
    return [mx.nd.array(FIXTURE['proposal/' + k][sl]) for k in ('cls', 'bbox', 'info')]


@pytest.mark.parametrize('iou', [False, True])
def test_multi_proposal_matches_mxnet191(iou):
    rois, score = mx.nd.contrib.MultiProposal(*inputs(), iou_loss=iou, output_score=True, **KW)
    assert rois.shape == (80, 5) and score.shape == (80, 1)
    np.testing.assert_allclose(rois.asnumpy(), FIXTURE['proposal/multi_rois_%d' % iou],
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(score.asnumpy(), FIXTURE['proposal/multi_score_%d' % iou],
                               rtol=1e-6)
    assert (rois.asnumpy()[:40, 0] == 0).all() and (rois.asnumpy()[40:, 0] == 1).all()


@pytest.mark.parametrize('iou', [False, True])
def test_proposal_matches_mxnet191_and_multi(iou):
    rois, score = mx.nd.contrib.Proposal(*inputs(slice(1, 2)), iou_loss=iou, output_score=True,
                                         **KW)
    np.testing.assert_allclose(rois.asnumpy(), FIXTURE['proposal/single_rois_%d' % iou],
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(score.asnumpy(), FIXTURE['proposal/single_score_%d' % iou],
                               rtol=1e-6)
    multi = FIXTURE['proposal/multi_rois_%d' % iou][40:]
    np.testing.assert_allclose(rois.asnumpy()[:, 1:], multi[:, 1:], rtol=1e-5, atol=1e-4)
    assert (rois.asnumpy()[:, 0] == 0).all()


def test_kept_boxes_respect_the_nms_threshold():
    rois = mx.nd.contrib.Proposal(*inputs(slice(0, 1)), **KW).asnumpy()[:, 1:]
    unique = np.unique(rois, axis=0)
    a = unique[:, None, :]
    b = unique[None, :, :]
    w = np.maximum(0, np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + 1)
    h = np.maximum(0, np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + 1)
    area = (unique[:, 2] - unique[:, 0] + 1) * (unique[:, 3] - unique[:, 1] + 1)
    iou = w * h / (area[:, None] + area[None, :] - w * h)
    np.fill_diagonal(iou, 0)
    assert iou.max() <= 0.6 + 1e-6


def test_score_output_hidden_by_default_and_zero_gradients():
    s = mx.sym.contrib.MultiProposal(mx.sym.var('cls_prob'), mx.sym.var('bbox_pred'),
                                     mx.sym.var('im_info'), **KW)
    names = s.list_outputs()
    assert len(names) == 1 and names[0].endswith('_output')
    args, outs, _ = s.infer_shape(cls_prob=(2, 12, 7, 9))
    assert args == [(2, 12, 7, 9), (2, 24, 7, 9), (2, 3)] and outs == [(80, 5)]
    arrs = inputs()
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.MultiProposal(*arrs, **KW)
    out.backward(mx.nd.ones(out.shape))
    for a in arrs:
        assert not a.grad.asnumpy().any()


def test_errors_name_the_operator():
    cls, bbox, info = inputs()
    with pytest.raises(MXNetError, match='_contrib_Proposal.*batch of 1'):
        mx.nd.contrib.Proposal(cls, bbox, info, **KW).wait_to_read()
    with pytest.raises(MXNetError, match='MultiProposal.*cls_prob.*channels'):
        mx.nd.contrib.MultiProposal(cls, bbox, info, feature_stride=16, scales=(2,),
                                    ratios=(1,)).wait_to_read()


def test_image_larger_than_the_feature_map_is_an_error():
    cls, bbox, info = inputs()
    info[1, 0] = 16 * 8 + 16  # 9 rows of stride 16 > 7
    with pytest.raises(MXNetError, match='MultiProposal.*im_info of image 1'):
        mx.nd.contrib.MultiProposal(cls, bbox, info, **KW).wait_to_read()
