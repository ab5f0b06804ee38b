"""mx.metric: evaluation metrics accumulated over batches, each with local and global totals."""
import math
from collections import OrderedDict

import numpy

from . import ndarray
from . import registry
from .base import numeric_types, string_types
from .ndarray import NDArray

__all__ = ["check_label_shapes", "EvalMetric", "register", "alias", "create",
           "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity", "MAE",
           "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood", "PearsonCorrelation", "PCC",
           "Loss", "Torch", "Caffe", "CustomMetric", "np"]


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raise ValueError unless labels and preds have the same length (or, with shape=True, the
    same shape). With wrap=True a single NDArray comes back wrapped in a list."""
    if shape:
        label_shape, pred_shape = labels.shape, preds.shape
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of predictions {}"
                         .format(label_shape, pred_shape))
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


def _widened(value):
    """A float32/float16 numpy scalar as float64, so that totals accumulate in double precision
    as MXNet 1.9.1's did under numpy 1.x (numpy 2 would keep the narrow type)."""
    return numpy.float64(value) if isinstance(value, numpy.floating) else value


def _as_column(arr):
    """A 1-D array as an (N, 1) column, anything else unchanged."""
    return arr.reshape(arr.shape[0], 1) if arr.ndim == 1 else arr


class EvalMetric:
    """Base of the metrics. A metric sums `sum_metric` over `num_inst` instances twice: locally
    (cleared by reset_local, e.g. every logging interval) and globally (cleared only by reset).
    Subclasses implement update(labels, preds) on lists of NDArrays."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        """The constructor arguments as a dict that create(**config) turns back into an equal
        metric."""
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        """update() with the arrays named by label_names/output_names (all, in order, when
        those are None) taken from name -> NDArray dicts."""
        if self.output_names is not None:
            pred = [pred[name] for name in self.output_names]
        else:
            pred = list(pred.values())
        if self.label_names is not None:
            label = [label[name] for name in self.label_names]
        else:
            label = list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        """Add a batch of labels and predictions (lists of NDArrays) to the totals."""
        raise NotImplementedError()

    def reset(self):
        """Clear the local and the global totals."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local totals only."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value, count):
        """Add to both the local and the global totals."""
        value = _widened(value)
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def get(self):
        """(name, value) of the local totals; the value is nan before any instance."""
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        """(name, value) of the global totals (the local ones for a metric without them)."""
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.global_sum_metric / self.global_num_inst)

    @staticmethod
    def _zip_name_value(name, value):
        if not isinstance(name, list):
            name = [name]
        if not isinstance(value, list):
            value = [value]
        return list(zip(name, value))

    def get_name_value(self):
        """get() as a list of (name, value) pairs."""
        return self._zip_name_value(*self.get())

    def get_global_name_value(self):
        """get_global() as a list of (name, value) pairs."""
        return self._zip_name_value(*self.get_global())


register = registry.get_register_func(EvalMetric, "metric")
alias = registry.get_alias_func(EvalMetric, "metric")
_create = registry.get_create_func(EvalMetric, "metric")


def create(metric, *args, **kwargs):
    """A metric from a registered name (case-insensitive; extra arguments go to its
    constructor), an EvalMetric (returned as is), a config dict or JSON string, a callable
    feval(label, pred) (a CustomMetric), or a list of any of these (a CompositeEvalMetric)."""
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)


def _flatten_results(results):
    """Concatenate the (name(s), value(s)) pairs of child metrics into two lists."""
    names, values = [], []
    for name, value in results:
        names.extend([name] if isinstance(name, string_types) else name)
        values.extend([value] if isinstance(value, numeric_types) else value)
    return (names, values)


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; get() lists all their names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = []
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        """Add a child metric (anything create() accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at index."""
        try:
            return self.metrics[index]
        except IndexError:
            raise ValueError("Metric index {} is out of range 0 and {}"
                             .format(index, len(self.metrics))) from None

    def update_dict(self, labels, preds):  # pylint: disable=arguments-renamed
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in self.metrics:
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def get(self):
        return _flatten_results(m.get() for m in self.metrics)

    def get_global(self):
        return _flatten_results(m.get_global() for m in self.metrics)

    def get_config(self):
        config = super().get_config()
        config.update({"metrics": [m.get_config() for m in self.metrics]})
        return config


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of predicted classes equal to the labels. A prediction of another shape than
    its label holds class scores along `axis` (argmax is taken); one of the same shape holds
    class indices. Labels and predictions are compared flattened."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if pred.shape != label.shape:
                pred = ndarray.argmax(pred, axis=self.axis)
            pred = pred.asnumpy().astype("int32").ravel()
            label = label.asnumpy().astype("int32").ravel()
            check_label_shapes(label, pred)
            self._add((pred == label).sum(), len(pred))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the top_k (> 1) scored classes."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        if self.top_k <= 1:
            raise AssertionError("Please use Accuracy if top_k is no more than 1")
        # the displayed name carries k; a name from get_config() already does (MXNet 1.9.1
        # appended it again on every round trip)
        suffix = "_%d" % self.top_k
        if not self.name.endswith(suffix):
            self.name += suffix

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if len(pred.shape) > 2:
                raise AssertionError("Predictions should be no more than 2 dims, given shape %s"
                                     % (pred.shape,))
            # only membership in the top k counts, so a partition is enough
            ranked = numpy.argpartition(pred.asnumpy().astype("float32"), -self.top_k)
            label = label.asnumpy().astype("int32")
            check_label_shapes(label, ranked)
            if ranked.ndim == 1:
                correct = (ranked.flat == label.flat).sum()
            else:
                num_classes = ranked.shape[1]
                correct = 0
                for j in range(min(num_classes, self.top_k)):
                    correct += (ranked[:, num_classes - 1 - j].flat == label.flat).sum()
            self._add(correct, ranked.shape[0])


class _BinaryConfusion:
    """True/false positive/negative counts of a binary classifier, local and global."""

    _COUNTS = ("true_positives", "false_positives", "false_negatives", "true_negatives")

    def __init__(self):
        self.reset_stats()

    def local_reset_stats(self):
        for count in self._COUNTS:
            setattr(self, count, 0)

    def reset_stats(self):
        self.local_reset_stats()
        for count in self._COUNTS:
            setattr(self, "global_" + count, 0)

    def update_binary_stats(self, label, pred):
        """Count one batch: pred holds two class scores per sample, label 0/1 per sample."""
        pred = pred.asnumpy()
        label = label.asnumpy().astype("int32")
        predicted_class = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError("%s currently only supports binary classification."
                             % self.__class__.__name__)
        pred_pos = predicted_class == 1
        label_pos = label == 1
        batch = {"true_positives": (pred_pos & label_pos).sum(),
                 "false_positives": (pred_pos & ~label_pos).sum(),
                 "false_negatives": (~pred_pos & label_pos).sum(),
                 "true_negatives": (~pred_pos & ~label_pos).sum()}
        for count, value in batch.items():
            setattr(self, count, getattr(self, count) + value)
            setattr(self, "global_" + count, getattr(self, "global_" + count) + value)

    def _counts(self, use_global):
        prefix = "global_" if use_global else ""
        return [getattr(self, prefix + c) for c in self._COUNTS]

    def _total(self, use_global):
        return sum(self._counts(use_global))

    def _precision(self, use_global):
        tp, fp, _, _ = self._counts(use_global)
        return float(tp) / (tp + fp) if tp + fp > 0 else 0.

    def _recall(self, use_global):
        tp, _, fn, _ = self._counts(use_global)
        return float(tp) / (tp + fn) if tp + fn > 0 else 0.

    def _fscore(self, use_global):
        precision, recall = self._precision(use_global), self._recall(use_global)
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.

    precision = property(lambda self: self._precision(False))
    global_precision = property(lambda self: self._precision(True))
    recall = property(lambda self: self._recall(False))
    global_recall = property(lambda self: self._recall(True))
    total_examples = property(lambda self: self._total(False))
    global_total_examples = property(lambda self: self._total(True))
    fscore = property(lambda self: self._fscore(False))
    global_fscore = property(lambda self: self._fscore(True))

    def matthewscc(self, use_global=False):
        """Matthews correlation; zero factors of the denominator count as 1."""
        if not self._total(use_global):
            return 0.
        tp, fp, fn, tn = [float(c) for c in self._counts(use_global)]
        denominator = 1.
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            if term != 0.:
                denominator *= term
        return (tp * tn - fp * fn) / math.sqrt(denominator)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: one score from the confusion counts. 'macro' averages the score of each
    update() call; 'micro' scores the counts summed over all calls."""

    def __init__(self, name, output_names, label_names, average):
        self._average = average
        self._confusion = _BinaryConfusion()
        kwargs = {} if average == "macro" else {"average": average}
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True, **kwargs)

    def _score(self, use_global):
        raise NotImplementedError()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._confusion.update_binary_stats(label, pred)
        if self._average == "macro":
            self._add(self._score(False), 1)
            self._confusion.reset_stats()
        else:
            self.sum_metric = self._score(False) * self._confusion.total_examples
            self.global_sum_metric = self._score(True) * self._confusion.global_total_examples
            self.num_inst = self._confusion.total_examples
            self.global_num_inst = self._confusion.global_total_examples

    def reset(self):
        super().reset()
        self._confusion.reset_stats()

    def reset_local(self):
        super().reset_local()
        self._confusion.local_reset_stats()


@register
class F1(_BinaryMetric):
    """F1 score (harmonic mean of precision and recall) of a binary classifier whose
    predictions hold two class scores per sample."""

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        self.average = average
        super().__init__(name, output_names, label_names, average)

    @property
    def metrics(self):
        return self._confusion

    def _score(self, use_global):
        return self._confusion.global_fscore if use_global else self._confusion.fscore


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier (zero factors of the
    denominator count as 1); see PCC for more classes."""

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._confusion.matthewscc(use_global)


@register
class Perplexity(EvalMetric):
    """exp of the mean negative log of the probability predicted for the true label, the
    probabilities lying along `axis`; labels equal to ignore_label (None: none) are skipped."""

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None,
                 label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        if len(labels) != len(preds):
            raise AssertionError("Perplexity needs one label per prediction, given %d labels "
                                 "and %d predictions" % (len(labels), len(preds)))
        loss = 0.
        num = 0
        for label, pred in zip(labels, preds):
            if label.size != pred.size / pred.shape[-1]:
                raise AssertionError("shape mismatch: %s vs. %s" % (label.shape, pred.shape))
            label = label.as_in_context(pred.context).reshape((label.size,))
            prob = ndarray.pick(pred, label.astype(dtype="int32"), axis=self.axis)
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(prob.dtype)
                num -= _widened(ndarray.sum(ignore).asscalar())
                prob = prob * (1 - ignore) + ignore
            loss -= _widened(ndarray.sum(ndarray.log(ndarray.maximum(1e-10, prob))).asscalar())
            num += prob.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


class _BatchMeanMetric(EvalMetric):
    """A per-batch error of label and prediction (1-D ones taken as columns), averaged over
    update calls."""

    def _batch_error(self, label, pred):
        raise NotImplementedError()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._add(self._batch_error(_as_column(label.asnumpy()), _as_column(pred.asnumpy())),
                      1)


@register
class MAE(_BatchMeanMetric):
    """Mean absolute error, averaged over batches."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _batch_error(self, label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_BatchMeanMetric):
    """Mean squared error, averaged over batches."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _batch_error(self, label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_BatchMeanMetric):
    """Root mean squared error of each batch, averaged over batches."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _batch_error(self, label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class _LabelLogLoss(EvalMetric):
    """Mean of -log(p + eps) over samples, p being the probability predicted for the label
    (predictions are (N, classes), labels N class indices)."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = label.asnumpy().ravel()
            pred = pred.asnumpy()
            count = pred.shape[0]
            if label.shape[0] != count:
                raise AssertionError("%s needs one label per prediction row, given %d labels "
                                     "and %d rows" % (type(self).__name__, label.shape[0], count))
            prob = pred[numpy.arange(count, dtype=numpy.int64), numpy.int64(label)]
            self._add((-numpy.log(prob + self.eps)).sum(), count)


@register
@alias("ce")
class CrossEntropy(_LabelLogLoss):
    """Cross entropy of the predicted class probabilities with one-hot labels."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LabelLogLoss):
    """Negative log-likelihood of the labels under the predicted class probabilities."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


class _CoMoments:
    """Running count, means, sums of squared deviations and co-deviation of two series."""

    def __init__(self):
        self.count = 0
        self.mean_label = 0
        self.mean_pred = 0
        self.sse_label = 0
        self.sse_pred = 0
        self.co_deviation = 0

    def add(self, label, pred):
        """Welford's update, batch-wise; the co-deviation uses the label mean after and the
        prediction mean before this batch, which keeps it exact."""
        self.count += len(label)
        delta = label - self.mean_label
        self.mean_label += numpy.sum(delta / self.count)
        self.sse_label += numpy.sum(delta * (label - self.mean_label))
        self.co_deviation = self.co_deviation + numpy.sum((label - self.mean_label) *
                                                          (pred - self.mean_pred))
        delta = pred - self.mean_pred
        self.mean_pred += numpy.sum(delta / self.count)
        self.sse_pred += numpy.sum(delta * (pred - self.mean_pred))

    def correlation(self):
        n = self.count
        return self.co_deviation / ((n - 1) * numpy.sqrt(self.sse_pred / (n - 1)) *
                                    numpy.sqrt(self.sse_label / (n - 1)))


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of flattened labels and predictions: 'macro' averages each
    batch's correlation, 'micro' correlates all values seen (since reset, or since
    reset_local for the local value)."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = average
        kwargs = {} if average == "macro" else {"average": average}
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True, **kwargs)

    def reset(self):
        super().reset()
        self._local_moments = _CoMoments()
        self._global_moments = _CoMoments()

    def reset_local(self):
        super().reset_local()
        self._local_moments = _CoMoments()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = label.asnumpy().ravel().astype(numpy.float64)
            pred = pred.asnumpy().ravel().astype(numpy.float64)
            if self.average == "macro":
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
            else:
                self._local_moments.add(label, pred)
                self._global_moments.add(label, pred)
                self._add(0.0, 1)

    def get(self):
        if self.num_inst == 0 or self.average == "macro":
            return super().get()
        return (self.name, self._local_moments.correlation())

    def get_global(self):
        if self.global_num_inst == 0 or self.average == "macro":
            return super().get_global()
        return (self.name, self._global_moments.correlation())


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation (Gorodkin's R_K) from the confusion matrix of all
    updates; equals MCC for two classes. Predictions are class scores (argmax taken) or,
    when shaped like the labels, class indices."""

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), "constant", constant_values=0)
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), "constant", constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = label.astype("int32", copy=False).asnumpy()
            pred = pred.asnumpy()
            if pred.shape != label.shape:
                pred = pred.argmax(axis=1)
            else:
                pred = pred.astype("int32", copy=False)
            largest = max(pred.max(), label.max())
            if largest >= self.k:
                self._grow(largest + 1 - self.k)
            batch = numpy.zeros((self.k, self.k))
            numpy.add.at(batch, (pred.ravel(), label.ravel()), 1)
            self.lcm += batch
            self.gcm += batch
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))


@register
class Loss(EvalMetric):
    """Mean of the predictions themselves (the outputs of a loss); labels are ignored."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            self._add(ndarray.sum(pred).asscalar(), pred.size)


@register
class Torch(Loss):
    """Loss, named for torch criterions."""

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Loss, named for caffe criterions."""

    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from feval(label, pred) on numpy arrays, returning either a value (counted as
    one instance) or a (sum_metric, num_inst) pair. allow_extra_outputs lets preds have more
    entries than labels (e.g. RNN states)."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            if "<" in name:
                name = "custom(%s)" % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            result = self._feval(label.asnumpy(), pred.asnumpy())
            if isinstance(result, tuple):
                self._add(*result)
            else:
                self._add(result, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval, name=None, allow_extra_outputs=False):  # pylint: disable=invalid-name
    """A CustomMetric from numpy_feval(label, pred) on numpy arrays returning a float."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
