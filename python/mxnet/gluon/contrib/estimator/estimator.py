"""Estimator: fit a Gluon network on a DataLoader, with the loop's behaviour (metrics,
logging, validation, stopping, parameter updates, checkpoints) supplied by event handlers."""
import copy
import logging
import sys
import warnings

from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin,
                            TrainEnd, ValidationHandler, _check_event_handlers)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss
from ...data import DataLoader
from ...loss import Loss as GluonLoss
from ...trainer import Trainer
from ...utils import split_and_load
from ....context import Context, cpu, gpu, num_gpus
from ....metric import Loss as LossMetric

__all__ = ['Estimator']

_STAGES = (('train_begin', TrainBegin), ('epoch_begin', EpochBegin),
           ('batch_begin', BatchBegin), ('batch_end', BatchEnd), ('epoch_end', EpochEnd),
           ('train_end', TrainEnd))


class Estimator(object):
    """Trains `net` with `loss`.

    train_metrics / val_metrics: EvalMetric(s); by default the metric suggested for the loss
    (Accuracy for SoftmaxCrossEntropyLoss) and the running loss, named 'training ...' and
    'validation ...'. initializer: used when the net is not initialized yet. trainer: a
    gluon.Trainer (default SGD, learning rate 0.001). context: a Context or a list (default
    gpu(0) when there is a GPU, else cpu()). val_net / val_loss: used by evaluate (default net
    and loss). batch_processor: runs each batch (default BatchProcessor())."""

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer=None, context=None, val_net=None, val_loss=None,
                 batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net
        self.logger = logging.Logger(name='Estimator', level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = None
        self.max_batch = None
        self.batch_axis = 0

    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, GluonLoss):
            raise ValueError("loss must be a Loss, refer to gluon.loss.Loss:{}".format(loss))
        return loss

    @staticmethod
    def _check_context(context):
        available = [gpu(i) for i in range(num_gpus())]
        if not context:
            if len(available) > 1:
                warnings.warn("You have multiple GPUs, gpu(0) will be used by default."
                              "To utilize all your GPUs, specify context as a list of gpus, "
                              "e.g. context=[mx.gpu(0), mx.gpu(1)] ")
            return [available[0]] if available else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise ValueError("context must be a Context or a list of Context, for example "
                             "mx.cpu() or [mx.gpu(0), mx.gpu(1)], refer to "
                             "mxnet.Context:{}".format(context))
        for ctx in context:
            assert ctx in available or str(ctx).startswith('cpu'), \
                "%s is not available, please make sure your context is in one of: mx.cpu(), " \
                "%s" % (ctx, ", ".join(str(c) for c in available))
        return context

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, 'fit_batch', None))
                and callable(getattr(batch_processor, 'evaluate_batch', None))):
            raise ValueError('Customized Batch Processor must contain fit_batch() and '
                             'evaluate_batch() methods')
        return batch_processor

    def _is_initialized(self):
        params = self.net.collect_params()
        try:
            for param in params.values():
                param.list_ctx()
        except RuntimeError:
            return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. You "
                          "don't need to pass initializer if you already initialized your net. "
                          "You can use net.initialize(init=your_initializer, force_reinit=True)"
                          "to force re-initialize.")

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn("No trainer specified, default SGD optimizer with learning rate "
                          "0.001 is used.")
            return Trainer(self.net.collect_params(), 'sgd', {'learning_rate': 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError("Trainer must be a Gluon Trainer instance, refer to "
                             "gluon.Trainer:{}".format(trainer))
        return trainer

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        return (split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis),
                split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis))

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(LossMetric(self.loss.name.rstrip('1234567890')))
        for metric in self._train_metrics:
            metric.name = 'training ' + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(m) for m in self._train_metrics]
        for metric in self._val_metrics:
            metric.name = (metric.name.replace('training', 'validation')
                           if 'training' in metric.name else 'validation ' + metric.name)

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Runs val_net over val_data once, updating val_metrics (reset first); handlers see
        epoch_begin, batch_begin, batch_end and epoch_end."""
        if not isinstance(val_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. Alternatively, "
                             "you can transform your DataIter or any NDArray into Gluon "
                             "DataLoader. Refer to gluon.data.DataLoader")
        for metric in self.val_metrics:
            metric.reset()
        stages = self._categorize_handlers(self._prepare_default_validation_handlers(
            event_handlers))
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = stages
        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in batch_end:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None,
            batch_axis=0):
        """Trains for `epochs` passes over train_data or for `batches` batches (exactly one
        of them). Any batch_end or epoch_end handler returning True stops the loop; the
        default handlers (added unless one of the same kind is given) stop at the limit,
        update the parameters, update and log the training metrics and, with val_data,
        evaluate after each epoch."""
        if not isinstance(train_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. Alternatively, "
                             "you can transform your DataIter or any NDArray into Gluon "
                             "DataLoader. Refer to gluon.data.dataloader")
        if (not epochs) == (not batches):
            raise ValueError("Fit only support exactly one type of iteration, train by number "
                             "of epochs or number of batches.Please specify one and only one "
                             "of: epochs or batches.")
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        stages = self._categorize_handlers(self._prepare_default_handlers(val_data,
                                                                          event_handlers))
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = stages
        for handler in train_begin:
            handler.train_begin(self)
        stop = False
        while not stop:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                # every handler sees the batch, then any of them may stop the epoch
                results = [handler.batch_end(self, batch=batch, pred=pred, label=label,
                                             loss=loss) for handler in batch_end]
                if any(results):
                    break
            stop = any([handler.epoch_end(self) for handler in epoch_end])
        for handler in train_end:
            handler.train_end(self)

    def _merge_defaults(self, event_handlers, defaults, known_metrics):
        """User handlers plus the defaults of the kinds they lack, sorted by priority; when
        both are present the handlers' metrics must be the estimator's own."""
        event_handlers = _check_event_handlers(event_handlers)
        added = [handler for kind, handler in defaults
                 if handler is not None
                 and (kind is None or not any(isinstance(h, kind) for h in event_handlers))]
        mixing = bool(event_handlers) and bool(added)
        event_handlers.extend(added)
        if mixing:
            for handler in event_handlers:
                _check_handler_metric_ref(handler, known_metrics)
        event_handlers.sort(key=lambda handler: getattr(handler, 'priority', 0))
        return event_handlers

    def _prepare_default_handlers(self, val_data, event_handlers):
        validation = (ValidationHandler(val_data=val_data, eval_fn=self.evaluate)
                      if val_data else None)
        defaults = [(None, StoppingHandler(self.max_epoch, self.max_batch)),
                    (GradientUpdateHandler, GradientUpdateHandler()),
                    (MetricHandler, MetricHandler(metrics=self.train_metrics)),
                    (ValidationHandler, validation),
                    (LoggingHandler, LoggingHandler(metrics=self.train_metrics))]
        return self._merge_defaults(event_handlers, defaults,
                                    set(self.train_metrics + self.val_metrics))

    def _prepare_default_validation_handlers(self, event_handlers):
        defaults = [(MetricHandler, MetricHandler(metrics=self.val_metrics)),
                    (LoggingHandler, LoggingHandler(metrics=self.val_metrics))]
        return self._merge_defaults(event_handlers, defaults, set(self.val_metrics))

    def _categorize_handlers(self, event_handlers):
        """The handlers of each stage, in order: train_begin, epoch_begin, batch_begin,
        batch_end, epoch_end, train_end (a handler may be in several)."""
        return tuple([h for h in event_handlers if isinstance(h, kind)] for _, kind in _STAGES)
