"""Gluon losses: HybridBlocks mapping (prediction, label[, sample_weight]) to a loss per sample.

Each loss is computed elementwise, multiplied by `sample_weight` (broadcast against the
elementwise loss) and by the scalar `weight`, then averaged (or summed) over every axis but
`batch_axis`, as in MXNet 1.9.1.
"""
import numpy as np

from .. import ndarray
from ..base import InvalidConfigError, MXNetError, numeric_types
from .block import HybridBlock

__all__ = ['Loss', 'L2Loss', 'L1Loss',
           'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss',
           'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss',
           'KLDivLoss', 'CTCLoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'TripletLoss', 'PoissonNLLLoss',
           'CosineEmbeddingLoss', 'SDMLLoss']


def _check_weight(weight):
    if weight is not None and not isinstance(weight, numeric_types):
        raise InvalidConfigError("weight must be a number, given %s" % type(weight).__name__)


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """loss * sample_weight (broadcast) * weight (a Python number); None skips a factor."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        _check_weight(weight)
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """x with y's shape (same number of elements)."""
    if F is ndarray:
        if x.size != y.size:
            raise MXNetError("loss: the label (or target) of shape %s cannot be reshaped like "
                             "the prediction of shape %s" % (x.shape, y.shape))
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


def _softrelu_of_minus_abs(F, x):
    """log(1 + exp(-|x|)), the overflow-free part of log(1 + exp(x)) = relu(x) + this."""
    return F.Activation(-F.abs(x), act_type='softrelu')


class Loss(HybridBlock):
    """Base class of losses: `weight` scales the loss, `batch_axis` is the sample axis."""

    def __init__(self, weight, batch_axis, **kwargs):
        super(Loss, self).__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return '{name}(batch_axis={axis}, w={weight})'.format(
            name=type(self).__name__, axis=self._batch_axis, weight=self._weight)

    def _mean_per_sample(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """weight/2 * (label - pred)^2, averaged per sample."""

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super(L2Loss, self).__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return self._mean_per_sample(F, loss)


class L1Loss(Loss):
    """|label - pred|, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super(L1Loss, self).__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean_per_sample(F, loss)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross entropy of labels in [0, 1] and sigmoid(pred) (or pred itself when
    `from_sigmoid`); `pos_weight` scales the positive term."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super(SigmoidBinaryCrossEntropyLoss, self).__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if self._from_sigmoid:
            eps = 1e-12
            positive = F.log(pred + eps) * label
            if pos_weight is not None:
                positive = F.broadcast_mul(positive, pos_weight)
            loss = -(positive + F.log(1. - pred + eps) * (1. - label))
        elif pos_weight is None:
            loss = F.relu(pred) - pred * label + _softrelu_of_minus_abs(F, pred)
        else:
            # -log(sigmoid(pred)) = softrelu(-|pred|) + relu(-pred), scaled on positives
            log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
            loss = pred - pred * label + log_weight * (_softrelu_of_minus_abs(F, pred)
                                                       + F.relu(-pred))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean_per_sample(F, loss)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """-log softmax(pred)[label] along `axis` (class indices when `sparse_label`, else a
    distribution); `from_logits` means pred already holds log probabilities."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, **kwargs):
        super(SoftmaxCrossEntropyLoss, self).__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean_per_sample(F, loss)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """label * (log(label) - pred), summed per sample; pred holds log probabilities unless
    `from_logits` is False (then log_softmax is applied along `axis`)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super(KLDivLoss, self).__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist temporal classification loss of unnormalized scores `pred` (layout
    'NTC' or 'TNC', the last class is the blank) and padded labels ('NT' or 'TN')."""

    def __init__(self, layout='NTC', label_layout='NT', weight=None, **kwargs):
        if layout not in ('NTC', 'TNC'):
            raise InvalidConfigError(
                "Only 'NTC' and 'TNC' layouts for pred are supported. Got: %s" % layout)
        if label_layout not in ('NT', 'TN'):
            raise InvalidConfigError(
                "Only 'NT' and 'TN' layouts for label are supported. Got: %s" % label_layout)
        self._layout = layout
        self._label_layout = label_layout
        super(CTCLoss, self).__init__(weight, label_layout.find('N'), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == 'NTC':
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None,
                         blank_label='last')
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smooth L1: |d| - rho/2 where |d| > rho, else d^2 / (2 rho); averaged per sample."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super(HuberLoss, self).__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        distance = F.abs(label - pred)
        loss = F.where(distance > self._rho, distance - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(distance))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean_per_sample(F, loss)


class HingeLoss(Loss):
    """max(0, margin - pred * label) for labels in {-1, 1}; averaged per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super(HingeLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean_per_sample(F, loss)


class SquaredHingeLoss(Loss):
    """max(0, margin - pred * label)^2 for labels in {-1, 1}; averaged per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super(SquaredHingeLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean_per_sample(F, loss)


class LogisticLoss(Loss):
    """log(1 + exp(-pred * label)) with labels in {-1, 1} ('signed') or {0, 1} ('binary')."""

    def __init__(self, weight=None, batch_axis=0, label_format='signed', **kwargs):
        super(LogisticLoss, self).__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if label_format not in ('signed', 'binary'):
            raise ValueError("label_format can only be signed or binary, recieved %s."
                             % label_format)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == 'signed':
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + _softrelu_of_minus_abs(F, pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean_per_sample(F, loss)


class TripletLoss(Loss):
    """max(0, |pos - pred|^2 - |neg - pred|^2 + margin), the squares summed per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super(TripletLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        gap = F.sum(F.square(positive - pred) - F.square(negative - pred),
                    axis=self._batch_axis, exclude=True)
        loss = F.relu(gap + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    """Negative log likelihood of `target` under Poisson(exp(pred)) (`from_logits`) or
    Poisson(pred); `compute_full` adds Stirling's term for targets > 1. One mean overall."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False,
                 **kwargs):
        super(PoissonNLLLoss, self).__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """1 - cos(input1, input2) for label 1, max(0, cos - margin) for label -1; shape (N, 1)."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super(CosineEmbeddingLoss, self).__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        similar = (1 - cos_sim) * (label == 1)
        dissimilar = F.relu((label == -1) * (cos_sim - self._margin))
        loss = similar + dissimilar
        return _apply_weighting(F, loss, self._weight, sample_weight)

    def _cosine_similarity(self, F, x, y, axis=-1):
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        x_dot_y = F.sum(x * y, axis=axis).reshape((-1, 1))
        return x_dot_y / F.maximum(x_norm * y_norm, 1e-12)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss of paired batches x1, x2 (N, D): row i of x1
    should be nearest to row i of x2; KL divergence to labels smoothed by
    `smoothing_parameter`, one value per sample."""

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super(SDMLLoss, self).__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1, x2):
        """Squared euclidean distances between every row of x1 and every row of x2."""
        if x1.shape != x2.shape:
            raise InvalidConfigError("SDMLLoss: x1 and x2 must have the same shape, given "
                                     "%s and %s" % (x1.shape, x2.shape))
        batch_size, dim = x1.shape
        x1_ = x1.expand_dims(1).broadcast_to([batch_size, batch_size, dim])
        x2_ = x2.expand_dims(0).broadcast_to([batch_size, batch_size, dim])
        return ((x1_ - x2_) ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size):
        """1 - s on the diagonal, s / (N - 1) elsewhere."""
        gold = F.eye(batch_size)
        return gold * (1 - self.smoothing_parameter) + \
            (1 - gold) * self.smoothing_parameter / (batch_size - 1)

    def _loss(self, F, x1, x2):
        labels = self._compute_labels(F, x1.shape[0])
        distances = self._compute_distances(x1, x2)
        log_probabilities = F.log_softmax(-distances, axis=1)
        return self.kl_loss(log_probabilities, labels.as_in_context(distances.context))

    def hybrid_forward(self, F, x1, x2):
        return self._loss(F, x1, x2)
