"""Checks shared by the Estimator and its handlers: metric lists and metric references."""
from ...loss import SoftmaxCrossEntropyLoss
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric


def _check_metrics(metrics):
    """A list of EvalMetric from one metric, a list, or a CompositeEvalMetric (flattened)."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for child in metrics.metrics for m in _check_metrics(child)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = metrics or []
    if not all(isinstance(m, EvalMetric) for m in metrics):
        raise ValueError("metrics must be a Metric or a list of Metric, "
                         "refer to mxnet.metric.EvalMetric: {}".format(metrics))
    return list(metrics)


def _check_handler_metric_ref(handler, known_metrics):
    """Raises ValueError when one of the handler's metric or monitor attributes holds a
    metric that is not among the estimator's training and validation metrics."""
    for name in dir(handler):
        if 'metric' not in name and 'monitor' not in name:
            continue
        value = getattr(handler, name)
        refs = value if isinstance(value, list) else [value]
        for ref in refs:
            if isinstance(ref, EvalMetric) and ref not in known_metrics:
                raise ValueError(
                    'Event handler {} refers to a metric instance {} outside of the known '
                    'training and validation metrics. Please use the metrics from '
                    'estimator.train_metrics and estimator.val_metrics instead.'
                    .format(type(handler).__name__, ref))


def _suggest_metric_for_loss(loss):
    """Accuracy for a softmax cross-entropy loss, else None."""
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
