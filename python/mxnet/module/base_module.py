"""BaseModule: the Module API (bind, init_params, init_optimizer, forward/backward/update)
and what every module gets from it: fit, score, predict, iter_predict, params files."""
import logging
import time
import warnings

import numpy as np

from .. import metric
from .. import ndarray
from ..context import cpu
from ..initializer import Uniform
from ..io import DataDesc, DataIter, DataBatch
from ..model import BatchEndParam

__all__ = ['BaseModule']


def _as_list(obj):
    """`obj` as a list: a list stays, anything else is wrapped."""
    return obj if isinstance(obj, list) else [obj]


def _check_input_names(symbol, names, typename, throw):
    """Every name must be an argument of `symbol`; otherwise raise (or warn) listing the
    arguments that look like inputs."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [a for a in args if not a.endswith(('_weight', '_bias', '_gamma', '_beta'))]
        msg = ("You created Module with Module(..., %s_names=%s) but input with name '%s' is "
               "not found in symbol.list_arguments(). Did you mean one of:\n\t%s"
               % (typename, str(names), name, '\n\t'.join(candidates)))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _check_names_match(data_names, data_shapes, name, throw):
    """The descriptors' names must be the module's names (same order)."""
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        msg = "Data provided by %s_shapes don't match names specified by %s_names (%s vs. %s)" \
            % (name, name, str(data_shapes), str(data_names))
        if throw:
            raise ValueError(msg)
        warnings.warn(msg)


def _to_desc(entry):
    if isinstance(entry, DataDesc):
        return entry
    if not isinstance(entry, (list, tuple)) or len(entry) < 2:
        raise TypeError("a data shape must be a DataDesc or a (name, shape) pair, given %r"
                        % (entry,))
    name, shape = entry[0], entry[1]
    if not isinstance(shape, (list, tuple)) or \
            not all(isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError("shape of input '%s' must be a tuple of ints, given %s"
                        % (name, type(shape).__name__))
    return DataDesc(name, tuple(int(d) for d in shape), *entry[2:])


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """DataDescs for the data and label shapes, checked against the module's names."""
    data_shapes = [_to_desc(x) for x in data_shapes]
    _check_names_match(data_names, data_shapes, 'data', True)
    if label_shapes is not None:
        label_shapes = [_to_desc(x) for x in label_shapes]
        _check_names_match(label_names, label_shapes, 'label', False)
    else:
        _check_names_match(label_names, [], 'label', False)
    return data_shapes, label_shapes


def _labels_of(batch):
    """(labels, pre_sliced) of a batch or of a list of per-device batches."""
    if isinstance(batch, list):
        return [b.label for b in batch], True
    return batch.label, False


class BaseModule(object):
    """A trainable computation: subclasses implement bind, init_params, init_optimizer,
    forward, backward, update, get_outputs, update_metric and the shape properties; this
    class builds the training and inference loops on them.

    State flags: `binded`, `for_training`, `inputs_need_grad`, `params_initialized`,
    `optimizer_initialized`."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # ---- high-level loops ----

    def forward_backward(self, data_batch):
        """forward(is_train=True) then backward()."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run inference over `eval_data` (at most `num_batch` batches) and return
        ``eval_metric.get_name_value()``."""
        assert self.binded and self.params_initialized
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        done = 0
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            labels, pre_sliced = _labels_of(batch)
            self.update_metric(eval_metric, labels, pre_sliced=pre_sliced)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                       locals=locals())
                for callback in _as_list(batch_end_callback):
                    callback(params)
            done += 1
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=done, eval_metric=eval_metric,
                                   locals=locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def _unpadded_outputs(self, batch):
        pad = batch.pad or 0
        return [out[0:out.shape[0] - pad] for out in self.get_outputs()]

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield (outputs without the batch's padding, batch index, batch)."""
        assert self.binded and self.params_initialized
        if reset:
            eval_data.reset()
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            yield self._unpadded_outputs(batch), nbatch, batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """Outputs over `eval_data` (a DataIter, or one NDArray/numpy batch whose first output
        is returned). With `merge_batches` the batches' outputs are concatenated: a list
        ``[out1, out2, ...]``, or `out1` alone when there is one output and not
        `always_output_list`; otherwise ``[[out1_batch1, ...], [out1_batch2, ...], ...]``."""
        assert self.binded and self.params_initialized
        if isinstance(eval_data, (ndarray.NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = ndarray.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError('eval_data must be of type NDArray or DataIter')
        if reset:
            eval_data.reset()
        per_batch = []
        for nbatch, batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(batch, is_train=False)
            per_batch.append([out.copy() for out in self._unpadded_outputs(batch)])
        if not per_batch or not merge_batches:
            return per_batch
        num_outputs = len(per_batch[0])
        if any(len(outs) != num_outputs for outs in per_batch):
            raise ValueError('Cannot merge batches, as num of outputs is not the same in '
                             'mini-batches. Maybe bucketing is used?')
        merged = [ndarray.concatenate([outs[i] for outs in per_batch])
                  for i in range(num_outputs)]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', optimizer='sgd',
            optimizer_params=(('learning_rate', 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Train for epochs [begin_epoch, num_epoch): bind, init_params (arg_params first,
        `initializer` for the rest), init_optimizer, then per batch forward_backward, update
        and the metric; callbacks after each batch and epoch, and a score on `eval_data`
        (with `validation_metric`, default `eval_metric`) after each epoch.

        Only one batch of `train_data` is referenced at a time (the next is fetched after
        the current one's metric update), as C++ iterators reuse their buffers."""
        assert num_epoch is not None, 'please specify number of epochs'
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            batches = iter(train_data)
            next_batch = next(batches)
            finished = False
            eval_name_vals = []
            while not finished:
                data_batch = next_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                labels, pre_sliced = _labels_of(data_batch)
                self.update_metric(eval_metric, labels, pre_sliced=pre_sliced)
                try:
                    next_batch = next(batches)
                    self.prepare(next_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    finished = True
                if monitor is not None:
                    monitor.toc_print()
                if finished:
                    eval_name_vals = eval_metric.get_global_name_value()
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                           locals=locals())
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch += 1
            for name, val in eval_name_vals:
                self.logger.info('Epoch[%d] Train-%s=%f', epoch, name, val)
            self.logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)

            # the devices' copies, averaged, become the module's parameters
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data is not None:
                res = self.score(eval_data, validation_metric,
                                 score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info('Epoch[%d] Validation-%s=%f', epoch, name, val)
            train_data.reset()

    # ---- description ----

    @property
    def data_names(self):
        """Names of the data inputs."""
        raise NotImplementedError()

    @property
    def output_names(self):
        """Names of the outputs."""
        raise NotImplementedError()

    @property
    def data_shapes(self):
        """DataDescs of the bound data inputs."""
        raise NotImplementedError()

    @property
    def label_shapes(self):
        """DataDescs of the bound labels (None without labels)."""
        raise NotImplementedError()

    @property
    def output_shapes(self):
        """[(name, shape)] of the outputs."""
        raise NotImplementedError()

    @property
    def symbol(self):
        """The symbol of the module (None for modules without one)."""
        return self._symbol

    # ---- parameters ----

    def get_params(self):
        """(arg_params, aux_params) as dicts of name -> NDArray on the CPU."""
        raise NotImplementedError()

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize the parameters from `arg_params`/`aux_params`, else `initializer`."""
        raise NotImplementedError()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Set the parameters (init_params without initializer)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init,
                         allow_extra=allow_extra)

    def save_params(self, fname):
        """Write the parameters to `fname` with keys ``arg:NAME`` and ``aux:NAME``."""
        arg_params, aux_params = self.get_params()
        saved = {'arg:%s' % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
        saved.update({'aux:%s' % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
        ndarray.save(fname, saved)

    def load_params(self, fname):
        """Set the parameters from a file save_params (or save_checkpoint) wrote."""
        saved = ndarray.load(fname)
        if not isinstance(saved, dict):
            raise ValueError('Invalid param file %s: expected arg:/aux: keys' % fname)
        arg_params, aux_params = {}, {}
        for key, value in saved.items():
            kind, _, name = key.partition(':')
            if kind == 'arg':
                arg_params[name] = value
            elif kind == 'aux':
                aux_params[name] = value
            else:
                raise ValueError('Invalid param file %s: key %s is neither arg:NAME nor '
                                 'aux:NAME' % (fname, key))
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        """States kept between batches (none for a module without state inputs)."""
        assert self.binded and self.params_initialized
        assert not merge_multi_context
        return []

    def set_states(self, states=None, value=None):
        """Set the states from arrays or one value (no-op without states)."""
        assert self.binded and self.params_initialized
        assert not states and not value

    def install_monitor(self, mon):
        """Install a mx.mon.Monitor on the executors."""
        raise NotImplementedError()

    # ---- computation ----

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Get ready for `data_batch` (switch bucket, pull row_sparse rows)."""
        del data_batch
        if sparse_row_id_fn is not None:
            warnings.warn(UserWarning("sparse_row_id_fn is not invoked for BaseModule."))

    def forward(self, data_batch, is_train=None):
        """Run the computation on a batch (training mode by default when bound for it)."""
        raise NotImplementedError()

    def backward(self, out_grads=None):
        """Gradients of the last forward (`out_grads` for outputs that are not losses)."""
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context=True):
        """Outputs of the last forward."""
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (bound with inputs_need_grad)."""
        raise NotImplementedError()

    def update(self):
        """Apply the optimizer to the parameters with the last gradients."""
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update `eval_metric` with the last outputs against `labels`."""
        raise NotImplementedError()

    # ---- setup ----

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Allocate executors for these input shapes."""
        raise NotImplementedError()

    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """Set up the optimizer (and the KVStore)."""
        raise NotImplementedError()
