"""gluon.loss: every loss against a numpy transcription and against MXNet 1.9.1's outputs
(fixtures/mxnet191_gluon_loss.npz, from fixtures/make_gluon_loss_rnn_fixtures.py),
sample_weight broadcasting, gradients, names and bad arguments."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.base import InvalidConfigError, MXNetError
from mxnet.gluon import loss as gloss

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'mxnet191_gluon_loss.npz'))
IN = {k[3:]: FIXTURE[k] for k in FIXTURE.files if k.startswith('in_')}
HAS_CTC = hasattr(mx.nd, 'CTCLoss')
needs_ctc = pytest.mark.skipif(not HAS_CTC, reason='gluon.loss.CTCLoss runs on the CTCLoss '
                               'operator, which this build lacks (mx.nd.CTCLoss missing)')


def nd(name):
    return mx.nd.array(IN[name])


def np_log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def np_softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def np_cos(a, b):
    dot = (a * b).sum(axis=-1)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return (dot / np.maximum(norms, 1e-12)).reshape(-1, 1)


def np_sdml(x1, x2, smoothing):
    n = x1.shape[0]
    dist = ((x1[:, None, :] - x2[None, :, :]) ** 2).sum(axis=2)
    logp = np_log_softmax(-dist, axis=1)
    labels = np.eye(n) * (1 - smoothing) + (1 - np.eye(n)) * smoothing / (n - 1)
    return (labels * (np.log(labels + 1e-12) - logp)).sum(axis=1)


PRED, LABEL, SW = IN['pred'], IN['reg_label'], IN['sample_weight']
BIN, SIGNED = IN['binary'], IN['signed']


def numpy_losses():
    """case -> (loss, args as fixture names, numpy expected)."""
    diff = LABEL - PRED
    huber = lambda d, rho: np.where(np.abs(d) > rho, np.abs(d) - rho / 2, d * d / (2 * rho))
    onehot = np.eye(3)[IN['sparse'].astype(int)]
    logp = np_log_softmax(PRED)
    prob = IN['prob']
    pos_w = IN['pos_weight']
    gap = lambda m: np.maximum(((IN['positive'] - PRED) ** 2 - (IN['negative'] - PRED) ** 2)
                               .sum(axis=1) + m, 0)
    counts, rates, full = IN['counts'], IN['rates'], IN['counts_pos']
    stirling = full * np.log(full) - full + 0.5 * np.log(2 * full * np.pi)
    stirling = np.where(full > 1, stirling, 0)
    cos = np_cos(PRED, IN['positive'])
    cos_label = IN['cos_label'].reshape(-1, 1)
    cosine = lambda m: (1 - cos) * (cos_label == 1) + np.maximum(0, (cos_label == -1) * (cos - m))
    return {
        'l2': (gloss.L2Loss(), ['pred', 'reg_label'], (diff ** 2 / 2).mean(1)),
        'l2_weighted': (gloss.L2Loss(weight=3.), ['pred', 'reg_label', 'sample_weight'],
                        (1.5 * diff ** 2 * SW).mean(1)),
        'l1': (gloss.L1Loss(), ['pred', 'reg_label'], np.abs(diff).mean(1)),
        'l1_weighted': (gloss.L1Loss(weight=0.5), ['pred', 'reg_label', 'sample_weight'],
                        (0.5 * np.abs(diff) * SW).mean(1)),
        'bce': (gloss.SigmoidBCELoss(), ['pred', 'binary'],
                (np_softplus(PRED) - PRED * BIN).mean(1)),
        'bce_pos_weight': (gloss.SigmoidBCELoss(), ['pred', 'binary', None, 'pos_weight'],
                           (pos_w * BIN * np_softplus(-PRED)
                            + (1 - BIN) * np_softplus(PRED)).mean(1)),
        'bce_from_sigmoid': (gloss.SigmoidBCELoss(from_sigmoid=True), ['prob', 'binary'],
                             -(BIN * np.log(prob + 1e-12)
                               + (1 - BIN) * np.log(1 - prob + 1e-12)).mean(1)),
        'bce_from_sigmoid_pos_weight': (
            gloss.SigmoidBCELoss(from_sigmoid=True),
            ['prob', 'binary', 'sample_weight', 'pos_weight'],
            (-(pos_w * BIN * np.log(prob + 1e-12)
               + (1 - BIN) * np.log(1 - prob + 1e-12)) * SW).mean(1)),
        'softmax_ce': (gloss.SoftmaxCELoss(), ['pred', 'sparse'], -(logp * onehot).sum(1)),
        'softmax_ce_weighted': (gloss.SoftmaxCELoss(weight=2.),
                                ['pred', 'sparse', 'sample_weight'],
                                -2 * (logp * onehot).sum(1) * SW[:, 0]),
        'softmax_ce_dense': (gloss.SoftmaxCELoss(sparse_label=False), ['pred', 'dense'],
                             -(logp * IN['dense']).sum(1)),
        'kl_not_logits': (gloss.KLDivLoss(from_logits=False),
                          ['pred', 'dense', 'sample_weight'],
                          (IN['dense'] * (np.log(IN['dense'] + 1e-12) - logp) * SW).sum(1)),
        'huber': (gloss.HuberLoss(), ['pred', 'reg_label'], huber(diff, 1.).mean(1)),
        'huber_rho': (gloss.HuberLoss(rho=0.5), ['pred', 'reg_label', 'sample_weight'],
                      (huber(diff, 0.5) * SW).mean(1)),
        'hinge': (gloss.HingeLoss(), ['pred', 'signed'],
                  np.maximum(0, 1 - PRED * SIGNED).mean(1)),
        'hinge_margin': (gloss.HingeLoss(margin=2), ['pred', 'signed'],
                         np.maximum(0, 2 - PRED * SIGNED).mean(1)),
        'squared_hinge': (gloss.SquaredHingeLoss(), ['pred', 'signed'],
                          (np.maximum(0, 1 - PRED * SIGNED) ** 2).mean(1)),
        'logistic_signed': (gloss.LogisticLoss(), ['pred', 'signed'],
                            np.log1p(np.exp(-PRED * SIGNED)).mean(1)),
        'logistic_binary': (gloss.LogisticLoss(label_format='binary'), ['pred', 'binary'],
                            np.log1p(np.exp(-PRED * SIGNED)).mean(1)),
        'triplet': (gloss.TripletLoss(), ['pred', 'positive', 'negative'], gap(1)),
        'triplet_margin': (gloss.TripletLoss(margin=3, weight=0.5),
                           ['pred', 'positive', 'negative'], 0.5 * gap(3)),
        'poisson': (gloss.PoissonNLLLoss(), ['pred', 'counts'],
                    np.array([(np.exp(PRED) - counts * PRED).mean()])),
        'poisson_rates': (gloss.PoissonNLLLoss(from_logits=False), ['rates', 'counts'],
                          np.array([(rates - counts * np.log(rates + 1e-8)).mean()])),
        'poisson_full': (gloss.PoissonNLLLoss(from_logits=False, compute_full=True),
                         ['rates', 'counts_pos', 'sample_weight'],
                         np.array([((rates - full * np.log(rates + 1e-8) + stirling)
                                    * SW).mean()])),
        'poisson_full_zero_target': (gloss.PoissonNLLLoss(compute_full=True),
                                     ['pred', 'counts'], np.array([np.nan])),
        'cosine': (gloss.CosineEmbeddingLoss(), ['pred', 'positive', 'cos_label'], cosine(0)),
        'cosine_margin': (gloss.CosineEmbeddingLoss(margin=0.2),
                          ['pred', 'positive', 'cos_label'], cosine(0.2)),
        'sdml': (gloss.SDMLLoss(), ['pred', 'positive'], np_sdml(PRED, IN['positive'], 0.3)),
        'sdml_smoothing': (gloss.SDMLLoss(smoothing_parameter=0.1), ['pred', 'positive'],
                           np_sdml(PRED, IN['positive'], 0.1)),
    }


CASES = numpy_losses()


@pytest.mark.parametrize('case', sorted(CASES))
def test_loss_matches_numpy_and_mxnet191(case):
    block, names, expected = CASES[case]
    out = block(*[None if n is None else nd(n) for n in names]).asnumpy()
    assert out.shape == FIXTURE['out_' + case].shape
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    # float32 logs differ in the last bits between libms; KL sums cancel them up to 2e-5
    np.testing.assert_allclose(out, FIXTURE['out_' + case], rtol=5e-5, atol=1e-6)


def test_losses_from_log_probabilities_match_mxnet191():
    logp = mx.nd.log_softmax(nd('pred'))
    out = gloss.SoftmaxCELoss(from_logits=True)(logp, nd('sparse'))
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['out_softmax_ce_logits'], rtol=1e-5)
    out = gloss.KLDivLoss()(logp, nd('dense'))
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['out_kl'], rtol=5e-5, atol=1e-7)


def test_softmax_ce_along_axis_0_with_batch_axis_1():
    out = gloss.SoftmaxCELoss(axis=0, batch_axis=1)(nd('pred'), mx.nd.array([0, 3, 1]))
    expected = -np_log_softmax(PRED, axis=0)[[0, 3, 1], [0, 1, 2]]
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['out_softmax_ce_axis0'], rtol=1e-5)


def test_labels_are_reshaped_like_predictions():
    out = gloss.L1Loss()(nd('pred'), nd('reg_label').reshape((12,)))
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['out_l1'], rtol=1e-6)


def test_sample_weight_broadcasts_per_element_and_per_sample():
    per_element = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = gloss.L1Loss()(nd('pred'), nd('reg_label'), mx.nd.array(per_element))
    np.testing.assert_allclose(out.asnumpy(), (np.abs(LABEL - PRED) * per_element).mean(1),
                               rtol=1e-5)
    per_column = np.array([[0., 1., 2.]], dtype=np.float32)
    out = gloss.L2Loss()(nd('pred'), nd('reg_label'), mx.nd.array(per_column))
    np.testing.assert_allclose(out.asnumpy(), ((LABEL - PRED) ** 2 / 2 * per_column).mean(1),
                               rtol=1e-5)


def test_sample_weight_that_does_not_broadcast_is_an_error():
    # a (4,) weight against the (4, 3) elementwise loss: 1.9.1 refuses it as well
    with pytest.raises(MXNetError, match='broadcast'):
        gloss.L2Loss()(nd('pred'), nd('reg_label'), mx.nd.array([1, 2, 3, 4]))


def test_batch_axis_selects_the_axis_kept():
    out = gloss.L2Loss(batch_axis=1)(nd('pred'), nd('reg_label'))
    np.testing.assert_allclose(out.asnumpy(), ((LABEL - PRED) ** 2 / 2).mean(0), rtol=1e-5)


def test_float64_inputs_give_float64_losses():
    out = gloss.L2Loss()(mx.nd.array(PRED, dtype='float64'),
                         mx.nd.array(LABEL, dtype='float64'))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), ((LABEL - PRED) ** 2 / 2).mean(1), rtol=1e-6)


def grad_of(block, pred, *args):
    x = mx.nd.array(pred)
    x.attach_grad()
    with autograd.record():
        out = block(x, *args)
    out.backward()
    return x.grad.asnumpy()


def test_l2_gradient_is_the_scaled_difference():
    grad = grad_of(gloss.L2Loss(weight=2.), PRED, nd('reg_label'))
    np.testing.assert_allclose(grad, 2 * (PRED - LABEL) / 3, rtol=1e-5)


def test_softmax_ce_gradient_is_softmax_minus_onehot():
    grad = grad_of(gloss.SoftmaxCELoss(), PRED, nd('sparse'), nd('sample_weight'))
    onehot = np.eye(3)[IN['sparse'].astype(int)]
    np.testing.assert_allclose(grad, (np.exp(np_log_softmax(PRED)) - onehot) * SW,
                               rtol=1e-5, atol=1e-6)


def test_sigmoid_bce_gradient_is_sigmoid_minus_label():
    grad = grad_of(gloss.SigmoidBCELoss(), PRED, nd('binary'))
    np.testing.assert_allclose(grad, (1 / (1 + np.exp(-PRED)) - BIN) / 3, rtol=1e-5,
                               atol=1e-6)


def test_huber_gradient_is_clipped_difference():
    grad = grad_of(gloss.HuberLoss(rho=0.5), PRED, nd('reg_label'))
    d = PRED - LABEL
    np.testing.assert_allclose(grad, np.where(np.abs(d) > 0.5, np.sign(d), d / 0.5) / 3,
                               rtol=1e-5, atol=1e-6)


def test_names_prefixes_repr_and_aliases_as_mxnet191():
    assert gloss.SigmoidBCELoss is gloss.SigmoidBinaryCrossEntropyLoss
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss
    assert repr(gloss.L2Loss()) == 'L2Loss(batch_axis=0, w=1.0)'
    assert repr(gloss.CTCLoss()) == 'CTCLoss(batch_axis=0, w=None)'
    assert repr(gloss.CTCLoss(label_layout='TN')) == 'CTCLoss(batch_axis=1, w=None)'
    assert repr(gloss.HingeLoss(weight=2, batch_axis=1)) == 'HingeLoss(batch_axis=1, w=2)'
    assert gloss.SoftmaxCELoss(prefix='ce_').prefix == 'ce_'
    assert gloss.SigmoidBCELoss().prefix.startswith('sigmoidbinarycrossentropyloss')
    assert not gloss.L1Loss().collect_params().keys()
    assert list(gloss.SDMLLoss()._children) == ['kl_loss']
    assert set(gloss.__all__) == {
        'Loss', 'L2Loss', 'L1Loss', 'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss',
        'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss', 'KLDivLoss', 'CTCLoss', 'HuberLoss',
        'HingeLoss', 'SquaredHingeLoss', 'LogisticLoss', 'TripletLoss', 'PoissonNLLLoss',
        'CosineEmbeddingLoss', 'SDMLLoss'}


def test_hybridized_loss_gives_the_same_values():
    block = gloss.SoftmaxCELoss()
    block.hybridize()
    np.testing.assert_allclose(block(nd('pred'), nd('sparse')).asnumpy(),
                               FIXTURE['out_softmax_ce'], rtol=1e-5)


def test_bad_arguments():
    with pytest.raises(InvalidConfigError, match='weight must be a number'):
        gloss.L1Loss(weight=mx.nd.array([1.]))(nd('pred'), nd('reg_label'))
    with pytest.raises(AssertionError):  # InvalidConfigError is an AssertionError as in 1.9.1
        gloss.L1Loss(weight='2')(nd('pred'), nd('reg_label'))
    with pytest.raises(ValueError, match='label_format can only be signed or binary'):
        gloss.LogisticLoss(label_format='sign')
    with pytest.raises(InvalidConfigError, match="'NTC' and 'TNC' layouts for pred"):
        gloss.CTCLoss(layout='NCT')
    with pytest.raises(InvalidConfigError, match="'NT' and 'TN' layouts for label"):
        gloss.CTCLoss(label_layout='TT')
    with pytest.raises(MXNetError, match=r'shape \(5, 3\) cannot be reshaped like'):
        gloss.L2Loss()(nd('pred'), mx.nd.ones((5, 3)))
    with pytest.raises(InvalidConfigError, match='same shape'):
        gloss.SDMLLoss()(nd('pred'), mx.nd.ones((3, 3)))


@needs_ctc
def test_ctc_layouts_and_lengths_match_mxnet191():
    pred, label = nd('ctc_pred'), nd('ctc_label')
    np.testing.assert_allclose(gloss.CTCLoss()(pred, label).asnumpy(),
                               FIXTURE['out_ctc_ntc'], rtol=1e-5)
    out = gloss.CTCLoss(layout='TNC', label_layout='TN')(pred.swapaxes(0, 1), label.T)
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['out_ctc_tnc'], rtol=1e-5)
    out = gloss.CTCLoss()(pred, label, mx.nd.array([6, 4]), mx.nd.array([3, 1]))
    np.testing.assert_allclose(out.asnumpy(), FIXTURE['out_ctc_lengths'], rtol=1e-5)
    weighted = gloss.CTCLoss(weight=2.)(pred, label, None, None, mx.nd.array([1., 3.]))
    np.testing.assert_allclose(weighted.asnumpy(), FIXTURE['out_ctc_ntc'] * [2., 6.],
                               rtol=1e-5)


def test_ctc_without_the_operator_says_so():
    if HAS_CTC:
        pytest.skip('mx.nd.CTCLoss exists in this build')
    with pytest.raises(AttributeError, match='CTCLoss'):
        gloss.CTCLoss()(nd('ctc_pred'), nd('ctc_label'))
