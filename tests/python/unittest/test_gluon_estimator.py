"""gluon.contrib.estimator: Estimator.fit/evaluate with the default handlers (stopping,
parameter update, metrics, logging, validation), handler order and stopping rules,
checkpoints and resuming, early stopping, custom batch processors, and argument errors."""
import logging
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon import nn
from mxnet.gluon.contrib.estimator import (BatchProcessor, CheckpointHandler, EarlyStoppingHandler,
                                           Estimator, EpochEnd, LoggingHandler, BatchEnd,
                                           TrainBegin, ValidationHandler)


def make_data(n=32, batch=8, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)
    return gluon.data.DataLoader(gluon.data.ArrayDataset(nd.array(x), nd.array(y)),
                                 batch_size=batch)


def make_net():
    net = nn.Sequential()
    net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
    return net


def make_estimator(lr=0.5, **kw):
    net = make_net()
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': lr})
    est = Estimator(net, loss=gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer,
                    context=mx.cpu(), **kw)
    est.logger.setLevel(logging.WARNING)
    return est


def test_fit_trains_and_names_default_metrics():
    est = make_estimator()
    assert [m.name for m in est.train_metrics] == ['training accuracy',
                                                   'training softmaxcrossentropyloss']
    assert [m.name for m in est.val_metrics] == ['validation accuracy',
                                                 'validation softmaxcrossentropyloss']
    data = make_data()
    est.evaluate(data)
    before = est.val_metrics[1].get()[1]
    est.fit(data, val_data=data, epochs=15)
    assert est.val_metrics[1].get()[1] < before
    assert est.train_metrics[0].get()[1] > 0.8


def test_fit_by_batches_stops_mid_epoch():
    est = make_estimator()
    seen = []

    class Count(BatchEnd):
        def batch_end(self, estimator, *args, **kwargs):
            seen.append(kwargs['batch'][0].shape[0])

    est.fit(make_data(), event_handlers=[Count()], batches=6)
    assert len(seen) == 6  # 4 batches per epoch: one epoch and two batches


def test_handlers_run_by_priority_and_can_stop():
    est = make_estimator()
    order = []

    class Early(EpochEnd):
        priority = -5000

        def epoch_end(self, estimator, *args, **kwargs):
            order.append('early')

    class Late(EpochEnd):
        priority = 5000

        def epoch_end(self, estimator, *args, **kwargs):
            order.append('late')
            return len(order) >= 4  # stop after the second epoch

    est.fit(make_data(), event_handlers=[Late(), Early()], epochs=10)
    assert order == ['early', 'late', 'early', 'late']


def test_custom_batch_processor_is_used():
    calls = []

    class Processor(BatchProcessor):
        def fit_batch(self, estimator, batch, batch_axis=0):
            calls.append('fit')
            return super(Processor, self).fit_batch(estimator, batch, batch_axis)

    est = make_estimator(batch_processor=Processor())
    est.fit(make_data(), epochs=1)
    assert calls == ['fit'] * 4
    with pytest.raises(ValueError, match='fit_batch'):
        make_estimator(batch_processor=object())


def test_checkpoints_rotate_and_resume(tmp_path):
    est = make_estimator()
    handler = CheckpointHandler(str(tmp_path), model_prefix='m', monitor=est.train_metrics[0],
                                save_best=True, max_checkpoints=2)
    est.fit(make_data(), event_handlers=[handler], epochs=3)
    files = sorted(os.listdir(str(tmp_path)))
    assert 'm-best.params' in files and 'm-best.states' in files
    assert 'm-epoch0batch4.params' not in files  # rotated out
    assert 'm-epoch2batch12.params' in files and 'm-epoch1batch8.states' in files

    est2 = make_estimator()
    resume = CheckpointHandler(str(tmp_path), model_prefix='m', resume_from_checkpoint=True)
    est2.fit(make_data(), event_handlers=[resume], epochs=5)
    assert est2.max_epoch == 2  # 3 of 5 epochs were done
    assert 'm-epoch4batch20.params' in os.listdir(str(tmp_path))  # numbering continues


def test_early_stopping_auto_mode_minimizes_losses():
    est = make_estimator(lr=0.0)  # no learning: the loss never improves
    stopper = EarlyStoppingHandler(monitor=est.train_metrics[1], patience=2)
    assert stopper.monitor_op is np.less
    est.fit(make_data(), event_handlers=[stopper], epochs=20)
    assert stopper.current_epoch == 3 and stopper.stopped_epoch == 2
    assert EarlyStoppingHandler(monitor=est.train_metrics[0]).monitor_op is np.greater


def test_validation_handler_batch_period():
    est = make_estimator()
    calls = []
    handler = ValidationHandler(make_data(), eval_fn=lambda **kw: calls.append(kw),
                                epoch_period=None, batch_period=3)
    est.fit(make_data(), event_handlers=[handler], batches=9)
    assert len(calls) == 3 and calls[0]['batch_axis'] == 0


def test_logging_interval_logs_batches(capsys):
    est = make_estimator()
    est.logger.setLevel(logging.INFO)
    est.fit(make_data(), event_handlers=[LoggingHandler(log_interval=2,
                                                        metrics=est.train_metrics)], epochs=1)
    out = capsys.readouterr().out
    assert '[Epoch 0][Batch 2][Samples 24]' in out and 'Training begin' in out


def test_bad_arguments():
    net = make_net()
    with pytest.raises(ValueError, match='loss must be a Loss'):
        Estimator(net, loss='l2')
    est = make_estimator()
    with pytest.raises(ValueError, match='DataLoader'):
        est.fit([1, 2], epochs=1)
    with pytest.raises(ValueError, match='exactly one'):
        est.fit(make_data(), epochs=1, batches=2)
    with pytest.raises(ValueError, match='outside of the known'):
        est.fit(make_data(), epochs=1,
                event_handlers=[LoggingHandler(metrics=[mx.metric.Accuracy()]),
                                ValidationHandler(make_data(), est.evaluate)])
    with pytest.raises(ValueError, match='handlers must be'):
        est.fit(make_data(), epochs=1, event_handlers=[TrainBegin(), 3])
