"""Trainer: applies an Optimizer to a set of Parameters after each backward pass.

Gradients of parameters kept on several contexts are summed across them before the update
(what MXNet's local/device KVStore does), so every copy gets the same new value; the
distributed KVStore plugs in here once it exists.
"""
import os

from .. import ndarray
from .. import optimizer as opt
from ..base import InvalidConfigError
from .parameter import Parameter, ParameterDict

__all__ = ['Trainer']


def _kvstore_type(kvstore):
    if kvstore is None or isinstance(kvstore, str):
        return kvstore
    return getattr(kvstore, 'type', str(kvstore))


class Trainer(object):
    """Updates `params` with `optimizer` (a name with `optimizer_params`, or an Optimizer).

    `kvstore` ('device', 'local', None, ...) says how gradients of multi-context
    parameters are combined; `compression_params` and `update_on_kvstore` are accepted
    with MXNet 1.9's meaning and take effect with a distributed KVStore.
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
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError("First argument must be a list or dict of Parameters, "
                                 "got list of %s." % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        if kvstore is not None and _kvstore_type(kvstore) not in ('local', 'device'):
            raise InvalidConfigError(
                "Trainer: kvstore %r needs the KVStore, which this version does not have yet; "
                "use 'device', 'local' or None" % _kvstore_type(kvstore))
        self._kvstore_params = {'kvstore': kvstore, 'update_on_kvstore': update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = False
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
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Decides how gradients are combined: summed across contexts when the parameters
        live on several and a kvstore was asked for."""
        config = self._kvstore_params
        if config['kvstore'] and self._contexts and len(self._contexts) > 1:
            self._kvstore = _kvstore_type(config['kvstore'])
            default = bool(int(os.environ.get('MXNET_UPDATE_ON_KVSTORE', '1')))
            self._update_on_kvstore = default if config['update_on_kvstore'] is None \
                else config['update_on_kvstore']
        self._kv_initialized = True

    def _init_params(self):
        """Parameters initialized after the trainer was made: copies made equal."""
        pending = []
        for param in self._params_to_init:
            if param._deferred_init:
                pending.append(param)
            elif self._kvstore:
                copies = param.list_data()
                for copy in copies[1:]:
                    copies[0].copyto(copy)
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

    def _check_and_rescale_grad(self, scale):
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """One update of every parameter: gradients are combined across contexts, then
        scaled by 1/batch_size (times the optimizer's rescale_grad) and applied."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Combines the gradients across contexts without updating (for `update`)."""
        self._prepare()
        self._allreduce_grads()

    def _allreduce_grads(self):
        if not self._kvstore:
            return
        for param in self._params:
            if param.grad_req == 'null':
                continue
            grads = param.list_grad()
            if len(grads) < 2:
                continue
            total = ndarray.add_n(*[g.as_in_context(grads[0].context) for g in grads])
            for g in grads:
                total.copyto(g)

    def update(self, batch_size, ignore_stale_grad=False):
        """Applies the optimizer to the current gradients (after `allreduce_grads`)."""
        self._prepare()
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
                for data in param.list_data():
                    if not data._fresh_grad:
                        raise UserWarning(
                            "Gradient of Parameter `%s` on context %s has not been updated by "
                            "backward since last `step`. This could mean a bug in your model "
                            "that made it only use a subset of the Parameters (Blocks) for this "
                            "iteration. If you are intentionally only using a subset, call step "
                            "with ignore_stale_grad=True to suppress this warning and skip "
                            "updating of Parameters with stale gradient"
                            % (param.name, str(data.context)))
            for pending, arr, grad in zip(updates, param.list_data(), param.list_grad()):
                if not ignore_stale_grad or arr._fresh_grad:
                    pending.append((i, grad, arr))
                    arr._fresh_grad = False
        for updater, pending in zip(self._updaters, updates):
            if pending:
                indices, grads, weights = zip(*pending)
                updater(list(indices), list(grads), list(weights))

    def save_states(self, fname):
        """Writes the optimizer and its states (momentum etc.) to `fname`."""
        self._prepare()
        with open(fname, 'wb') as fout:
            fout.write(self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Restores what `save_states` wrote, on every context."""
        self._prepare()
        with open(fname, 'rb') as fin:
            states = fin.read()
        for updater in self._updaters:
            updater.set_states(states)
            updater.optimizer = self._updaters[0].optimizer
        self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = {i: param for i, param in enumerate(self._params)}
