"""BatchProcessor: how the Estimator runs one training or validation batch (override
fit_batch / evaluate_batch to customize)."""
from ...utils import split_and_load
from .... import autograd

__all__ = ['BatchProcessor']


class BatchProcessor(object):
    """Splits a (data, label) batch over the estimator's contexts, runs the net and the loss
    (recording and calling backward when training) and returns (data, label, pred, loss),
    each a list with one entry per context."""

    def __init__(self):
        pass

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """One validation batch through estimator.val_net and estimator.val_loss."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(p, y) for p, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """One training batch: forward under autograd.record, then backward of each loss
        (the parameter update is GradientUpdateHandler's)."""
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(p, y) for p, y in zip(pred, label)]
        for l in loss:
            l.backward()
        return data, label, pred, loss
