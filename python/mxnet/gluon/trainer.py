"""Trainer: applies an Optimizer to a set of Parameters after each backward pass.

Parameters on several contexts go through a KVStore (MXNet 1.9.1's rules): gradients are
summed across contexts by pushpull; with update_on_kvstore the optimizer runs in the store and
the new weights are pulled back, else each context's copy is updated with the summed gradient.

Sparse parameters (MXNet 1.9.1's rules): a row_sparse weight always lives in a KVStore that
runs the optimizer (update_on_kvstore); its copies hold the rows last asked for with
`Parameter.row_sparse_data` (a row_sparse_pull). Row_sparse gradients of dense weights are
pushed and pulled separately, and the weights updated on the workers (single machine).
"""
from .. import optimizer as opt
from ..base import InvalidConfigError
from ..model import _create_kvstore, _create_sparse_kvstore
from .parameter import Parameter, ParameterDict

__all__ = ['Trainer']


class Trainer(object):
    """Updates `params` with `optimizer` (a name with `optimizer_params`, or an Optimizer).

    `kvstore` ('device', 'local', a KVStore, or None) sums the gradients of parameters
    kept on several contexts; `compression_params` ({'type': '2bit', 'threshold': t}) is
    handed to the store's set_gradient_compression; `update_on_kvstore` (default: the
    MXNET_UPDATE_ON_KVSTORE variable) runs the optimizer in the store.
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore='device',
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(list(params.keys()))]
        if not isinstance(params, (list, tuple)):
            raise ValueError("First argument must be a list or dict of Parameters, got %s."
                             % type(params))
        self._params = []
        self._param2idx = {}
        self._contains_sparse_weight = False
        self._contains_sparse_grad = False
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError("First argument must be a list or dict of Parameters, "
                                 "got list of %s." % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
            self._contains_sparse_weight |= param._stype != 'default'
            self._contains_sparse_grad |= param._grad_stype != 'default'
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {'kvstore': kvstore, 'update_on_kvstore': update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise InvalidConfigError(
                    "All Parameters must be initialized on the same set of contexts, but "
                    "Parameter %s is initialized on %s while previous Parameters are "
                    "initialized on %s." % (param.name, str(ctx), str(contexts)))
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = {i: param for i, param in enumerate(self._params)}
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise InvalidConfigError("optimizer_params must be None if optimizer is an "
                                         "instance of Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts or [None]]

    def _reset_kvstore(self):
        """Forget the store; it is made again (and the parameters pushed) at the next step."""
        if self._kvstore and 'dist' in self._kvstore.type:
            raise RuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Create the store and decide update_on_kvstore (MXNet 1.9.1's rules)."""
        config = self._kvstore_params
        if self._contains_sparse_weight:
            # row_sparse weights live in the store, which updates them; workers pull rows.
            kvstore, update_on_kvstore = _create_sparse_kvstore(config['kvstore'])
            self._distributed = 'dist' in kvstore.type
            if config['update_on_kvstore'] is False:
                raise ValueError("Cannot set update_on_kvstore=False when sparse weights "
                                 "are present.")
        elif self._contains_sparse_grad:
            kvstore, update_on_kvstore = self._init_sparse_grad_kvstore(config)
        else:
            kvstore, update_on_kvstore = self._init_dense_kvstore(config)
        self._finish_kvstore(kvstore, update_on_kvstore)

    def _init_sparse_grad_kvstore(self, config):
        """Dense weights with row_sparse gradients: one machine updates on the workers (the
        gradients are pushed and pulled), a distributed store only on the store."""
        kvstore, _ = _create_kvstore(config['kvstore'], len(self._contexts or []),
                                     {param.name: param for param in self._params})
        self._distributed = 'dist' in kvstore.type if kvstore else False
        update_on_kvstore = self._distributed
        if config['update_on_kvstore'] is not None:
            if config['update_on_kvstore'] is False and self._distributed:
                raise ValueError("Cannot set update_on_kvstore=False on dist kvstore "
                                 "when sparse gradients are present.")
            update_on_kvstore = config['update_on_kvstore']
        if kvstore is not None and not hasattr(kvstore, 'row_sparse_pull'):
            raise ValueError("Cannot use {} for multi-device training with sparse gradients"
                             .format(type(kvstore)))
        return kvstore, update_on_kvstore

    def _init_dense_kvstore(self, config):
        """Dense weights and gradients: only async distributed training forces
        update_on_kvstore; a store without an optimizer forbids it."""
        kvstore, update_on_kvstore = _create_kvstore(
            config['kvstore'], len(self._contexts or []),
            {param.name: param for param in self._params})
        self._distributed = 'dist' in kvstore.type if kvstore else False
        if self._distributed and 'async' in kvstore.type:
            update_on_kvstore = True
            if config['update_on_kvstore'] is False:
                raise ValueError("Please set update_on_kvstore=True "
                                 "when training in async mode.")
        if config['update_on_kvstore'] is not None:
            update_on_kvstore = config['update_on_kvstore']
        if update_on_kvstore and not kvstore.is_capable('optimizer'):
            if config['update_on_kvstore']:
                raise ValueError("Please set update_on_kvstore=False "
                                 "when training with {}".format(type(kvstore)))
            update_on_kvstore = False
        return kvstore, update_on_kvstore

    def _finish_kvstore(self, kvstore, update_on_kvstore):
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _init_params(self):
        """Put parameters initialized since the store was made into it; every context's copy
        gets the first one's value. Deferred ones wait for their first forward."""
        pending = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    pending.append(param)
                else:
                    arrays = param._check_and_get(param._data, list)
                    idx = self._param2idx[param.name]
                    if param._stype != 'default':
                        self._kvstore.init(idx, arrays[0])
                    else:
                        self._kvstore.broadcast(idx, arrays[0], arrays)
        self._params_to_init = pending

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    @property
    def learning_rate(self):
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        return self._optimizer

    def set_learning_rate(self, lr):
        """Sets the optimizer's learning rate (an error when an lr_scheduler drives it)."""
        self._optimizer.set_learning_rate(lr)

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """Pulls the rows `row_id` of `parameter` from the store into `out` (an array or a
        list); `full_idx` (every row) pulls the whole value where the store is local."""
        self._prepare()
        idx = self._param2idx[parameter.name]
        if full_idx and 'dist' not in self._kvstore.type:
            if row_id.size != out.shape[0]:
                raise ValueError("full_idx pull of Parameter '%s': %d row ids for %d rows"
                                 % (parameter.name, row_id.size, out.shape[0]))
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning('Possible change in the `batch_size` from previous '
                                  '`step` detected. Optimizer gradient normalizing '
                                  'factor will not change w.r.t new batch_size when '
                                  'update_on_kvstore=True and when distributed kvstore '
                                  'is used.')
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """One update of every parameter: gradients are combined across contexts, then
        scaled by 1/batch_size (times the optimizer's rescale_grad) and applied."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sums the gradients across contexts without updating (for `update`); not
        available when the optimizer runs in the KVStore (update_on_kvstore)."""
        self._prepare()
        assert not (self._kvstore and self._update_on_kvstore), \
            'allreduce_grads() when parameters are updated on kvstore ' \
            'is not supported. Try setting `update_on_kvstore` ' \
            'to False when creating trainer.'
        self._allreduce_grads()

    def _allreduce_grads(self):
        if not self._kvstore:
            return
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            grads = param.list_grad()
            if grads[0].stype != 'default':
                # sparse gradients: push; dense weights pull back the updated weights (or the
                # summed gradients); row_sparse weights are pulled by row_sparse_data.
                self._kvstore.push(i, grads, priority=-i)
                if param._stype == 'default':
                    pulled = param.list_data() if self._update_on_kvstore else grads
                    self._kvstore.pull(i, pulled, priority=-i, ignore_sparse=self._distributed)
                continue
            # update_on_kvstore: push gradients, pull the updated weights; else the summed
            # gradient comes back into every context's gradient.
            if self._update_on_kvstore:
                self._kvstore.pushpull(i, param.list_grad(), out=param.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, param.list_grad(), priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        """Applies the optimizer to the current gradients (after `allreduce_grads`); not
        available when the optimizer runs in the KVStore (update_on_kvstore)."""
        self._prepare()
        assert not (self._kvstore and self._update_on_kvstore), \
            'update() when parameters are updated on kvstore ' \
            'is not supported. Try setting `update_on_kvstore` ' \
            'to False when creating trainer.'

        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        loss_scaler = getattr(self, '_amp_loss_scaler', None)
        if loss_scaler is not None and loss_scaler.has_overflow(self._params):
            return  # skip the step on overflow
        updates = [[] for _ in self._updaters]
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            if not ignore_stale_grad:
                for data in param._check_and_get(param._data, list):
                    if not data._fresh_grad:
                        raise UserWarning(
                            "Gradient of Parameter `%s` on context %s has not been updated by "
                            "backward since last `step`. This could mean a bug in your model "
                            "that made it only use a subset of the Parameters (Blocks) for this "
                            "iteration. If you are intentionally only using a subset, call step "
                            "with ignore_stale_grad=True to suppress this warning and skip "
                            "updating of Parameters with stale gradient"
                            % (param.name, str(data.context)))
            if self._kvstore and self._update_on_kvstore:
                continue
            for pending, arr, grad in zip(updates, param.list_data(), param.list_grad()):
                if not ignore_stale_grad or arr._fresh_grad:
                    pending.append((i, grad, arr))
                    arr._fresh_grad = False
        if self._kvstore and self._update_on_kvstore:
            return
        for updater, pending in zip(self._updaters, updates):
            if pending:
                indices, grads, weights = zip(*pending)
                updater(list(indices), list(grads), list(weights))

    def save_states(self, fname):
        """Writes the optimizer and its states (momentum etc.) to `fname` (from the KVStore
        when the optimizer runs there)."""
        self._prepare()
        if self._update_on_kvstore:
            assert not self._params_to_init, "Cannot save trainer states when some " \
                                             "parameters are not yet initialized in kvstore."
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
        else:
            with open(fname, 'wb') as fout:
                fout.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Restores what `save_states` wrote, on every context (or in the KVStore)."""
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, 'rb') as fin:
                states = fin.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: param for i, param in enumerate(self._params)}
