"""mx.callback, mx.model checkpoint files and the Module helpers that need no executor."""
import logging
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.model import BatchEndParam
from mxnet.module.executor_group import _split_input_slice, _prepare_group2ctxs

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')


def _param(epoch, nbatch, metric=None):
    return BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=metric, locals=None)


def _acc_metric():
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([0, 1, 1, 0])], [mx.nd.array([[1, 0], [0, 1], [1, 0], [1, 0]])])
    return metric


def test_batch_end_param_is_mxnet_named_tuple():
    p = _param(1, 2)
    assert type(p).__name__ == 'BatchEndParams'
    assert (p.epoch, p.nbatch, p.eval_metric, p.locals) == (1, 2, None, None)


def test_speedometer_logs_every_frequent_batches_and_resets_metric(caplog):
    caplog.set_level(logging.INFO)
    speed = mx.callback.Speedometer(batch_size=4, frequent=2)
    metric = _acc_metric()
    for nbatch in range(5):
        speed(_param(0, nbatch, metric))
    lines = [r.getMessage() for r in caplog.records if 'Speed' in r.getMessage()]
    # batch 0 starts the clock; batches 2 and 4 log
    assert len(lines) == 2
    assert lines[0].startswith('Epoch[0] Batch [0-2]\tSpeed: ')
    assert 'accuracy=0.750000' in lines[0]
    # auto_reset reset the local metric after the first line
    assert metric.get()[1] != metric.get()[1]   # nan: nothing since the reset
    assert lines[1].startswith('Epoch[0] Batch [2-4]')


def test_speedometer_without_auto_reset_reports_since_epoch_start(caplog):
    caplog.set_level(logging.INFO)
    speed = mx.callback.Speedometer(batch_size=4, frequent=1, auto_reset=False)
    metric = _acc_metric()
    speed(_param(3, 0, metric))
    speed(_param(3, 1, metric))
    line = [r.getMessage() for r in caplog.records if 'Speed' in r.getMessage()][0]
    assert line.startswith('Epoch[3] Batch [0-1]\tSpeed: ')
    assert metric.get()[1] == 0.75


def test_speedometer_without_metric_logs_iter(caplog):
    caplog.set_level(logging.INFO)
    speed = mx.callback.Speedometer(batch_size=2, frequent=1)
    speed(_param(0, 0))
    speed(_param(0, 1))
    assert any(r.getMessage().startswith('Iter[0] Batch [1]\tSpeed:') for r in caplog.records)


def test_log_train_metric_and_validation_callback(caplog):
    caplog.set_level(logging.INFO)
    metric = _acc_metric()
    mx.callback.log_train_metric(period=2)(_param(1, 4, metric))
    mx.callback.log_train_metric(period=3)(_param(1, 4, metric))   # not a multiple: silent
    mx.callback.LogValidationMetricsCallback()(_param(1, 9, metric))
    messages = [r.getMessage() for r in caplog.records]
    assert 'Iter[1] Batch[4] Train-accuracy=0.750000' in messages
    assert 'Epoch[1] Validation-accuracy=0.750000' in messages
    assert sum('Train-' in m for m in messages) == 1


def test_progress_bar(caplog):
    caplog.set_level(logging.INFO)
    mx.callback.ProgressBar(total=4, length=8)(_param(0, 1))
    assert caplog.records[-1].getMessage() == '[==------] 25%\r'


def test_do_checkpoint_writes_params_every_period(tmp_path):
    prefix = str(tmp_path / 'ck')
    callback = mx.callback.do_checkpoint(prefix, period=2)
    arg = {'w': mx.nd.array([[1, 2], [3, 4]])}
    aux = {'m': mx.nd.array([5])}
    for epoch in range(4):
        callback(epoch, None, arg, aux)
    assert sorted(os.listdir(str(tmp_path))) == ['ck-0002.params', 'ck-0004.params']
    arg2, aux2 = mx.model.load_params(prefix, 4)
    assert np.array_equal(arg2['w'].asnumpy(), [[1, 2], [3, 4]])
    assert np.array_equal(aux2['m'].asnumpy(), [5])
    raw = mx.nd.load(prefix + '-0002.params')
    assert sorted(raw) == ['arg:w', 'aux:m']


def test_module_checkpoint_calls_module_save_checkpoint():
    calls = []

    class FakeModule(object):
        def save_checkpoint(self, prefix, epoch, save_optimizer_states):
            calls.append((prefix, epoch, save_optimizer_states))

    callback = mx.callback.module_checkpoint(FakeModule(), 'p', period=3,
                                             save_optimizer_states=True)
    for epoch in range(7):
        callback(epoch)
    assert calls == [('p', 3, True), ('p', 6, True)]


def test_load_params_reads_mxnet191_checkpoint():
    arg, aux = mx.model.load_params(os.path.join(FIXTURES, 'module_mxnet191'), 2)
    assert sorted(arg) == ['bn1_beta', 'bn1_gamma', 'fc1_bias', 'fc1_weight', 'fc2_bias',
                           'fc2_weight']
    assert sorted(aux) == ['bn1_moving_mean', 'bn1_moving_var']
    assert arg['fc1_weight'].shape == (16, 6)
    assert arg['fc2_weight'].shape == (3, 16)
    assert np.all(aux['bn1_moving_var'].asnumpy() > 0)


def test_load_params_rejects_list_file(tmp_path):
    fname = str(tmp_path / 'x-0001.params')
    mx.nd.save(fname, [mx.nd.ones((2,))])
    with pytest.raises(ValueError, match='arg:NAME'):
        mx.model.load_params(str(tmp_path / 'x'), 1)


def test_split_input_slice_follows_work_load():
    assert _split_input_slice(10, [1, 1]) == [slice(0, 5), slice(5, 10)]
    assert _split_input_slice(10, [1, 4]) == [slice(0, 2), slice(2, 10)]
    assert _split_input_slice(7, [1, 1, 1]) == [slice(0, 2), slice(2, 4), slice(4, 7)]
    with pytest.raises(ValueError, match='Too many slices'):
        _split_input_slice(1, [1, 1])


def test_prepare_group2ctxs_forms():
    c = [mx.cpu(i) for i in range(4)]
    assert _prepare_group2ctxs(None, 2) == [None, None]
    assert _prepare_group2ctxs({'a': c[2]}, 2) == [{'a': c[2]}, {'a': c[2]}]
    assert _prepare_group2ctxs({'a': [c[3]]}, 2) == [{'a': c[3]}, {'a': c[3]}]
    assert _prepare_group2ctxs({'a': [c[2], c[3]]}, 2) == [{'a': c[2]}, {'a': c[3]}]
    with pytest.raises(ValueError, match='group2ctxs'):
        _prepare_group2ctxs({'a': [c[1], c[2], c[3]]}, 2)
    with pytest.raises(ValueError, match='group2ctxs'):
        _prepare_group2ctxs([{'a': c[1]}], 2)


class _Batch(object):
    def __init__(self, i, live):
        self.i = i
        self.live = live

    @property
    def label(self):
        # the batch must still be the newest one the iterator handed out
        assert self.live[0] == self.i
        return None


class _Iter(object):
    def __init__(self, n):
        self.n = n
        self.live = [None]
        self.provide_data = None
        self.provide_label = None
        self.resets = 0

    def __iter__(self):
        for i in range(self.n):
            self.live[0] = i
            yield _Batch(i, self.live)

    def reset(self):
        self.resets += 1


def test_fit_references_one_batch_at_a_time_and_calls_callbacks():
    mod = mx.mod.BaseModule()
    calls = []

    def record(name):
        return lambda *args, **kwargs: calls.append(name)
    for name in ('bind', 'init_params', 'init_optimizer', 'backward', 'update',
                 'update_metric'):
        setattr(mod, name, record(name))
    mod.forward = lambda batch, is_train=None: calls.append(('forward', is_train))
    mod.get_params = lambda: ({}, {})
    mod.set_params = record('set_params')
    epochs, batches = [], []
    data = _Iter(3)
    mod.fit(data, num_epoch=2, begin_epoch=0,
            epoch_end_callback=lambda epoch, sym, arg, aux: epochs.append(epoch),
            batch_end_callback=[lambda p: batches.append((p.epoch, p.nbatch))])
    assert epochs == [0, 1]
    assert batches == [(e, b) for e in range(2) for b in range(3)]
    assert calls.count(('forward', True)) == 6
    assert calls.count('update') == 6
    assert data.resets == 2


def test_sequential_of_python_loss_module_passes_gradients():
    loss = mx.mod.PythonLossModule(grad_func=lambda scores, labels: scores - labels)
    seq = mx.mod.SequentialModule().add(loss, take_labels=True)
    seq.bind(data_shapes=[('data', (2, 3))], label_shapes=[('softmax_label', (2, 3))],
             inputs_need_grad=True)
    seq.init_params()
    seq.init_optimizer()
    x = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    y = mx.nd.ones((2, 3))
    seq.forward(mx.io.DataBatch([x], [y]), is_train=True)
    seq.backward()
    assert seq.output_shapes == [('pyloss_output', (2, 3))]
    assert np.array_equal(seq.get_outputs()[0].asnumpy(), x.asnumpy())
    assert np.array_equal(seq.get_input_grads()[0].asnumpy(), (x - y).asnumpy())
    with pytest.raises(ValueError, match='Unknown meta'):
        seq.add(loss, take_label=True)
