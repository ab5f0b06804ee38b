"""The Optimizer base class, the registry of optimizers by name, and the Updater that keeps
per-weight states for a KVStore or a Trainer.

Every optimizer of this package is also reachable here (mx.optimizer.optimizer.SGD, ...),
the module MXNet 1.x pickles them under, so `Updater.get_states(dump_optimizer=True)` files
load in either framework (see __init__.py).
"""
import os
import pickle
import warnings

import numpy

from ..base import MXNetError, py_str
from ..ndarray import NDArray, cast, clip, zeros
from ..util import is_np_array

__all__ = ['Optimizer', 'Updater', 'create', 'get_updater', 'register', 'Test']


class UnknownOptimizerError(MXNetError, ValueError):
    """`create` was given a name no optimizer is registered under. A ValueError too, which
    is what MXNet 1.x raised."""


def aggregation_size(default):
    """MXNET_OPTIMIZER_AGGREGATION_SIZE: how many weights one fused multi-weight update
    takes (read when an optimizer is built, as MXNet does)."""
    return int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', str(default)))


def state_zeros(weight, dtype=None, stype='default'):
    """A zero state array shaped and placed like `weight` (float32 unless `dtype`)."""
    return zeros(weight.shape, weight.context, dtype=dtype, stype=stype)


def warn_float16_accumulation(name='optimizer'):
    warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow "
                  "convergence. Consider using multi_precision=True option of the %s" % name)


def is_float16(weight):
    return weight.dtype == numpy.float16


def interleave(*columns):
    """[a0, b0, c0, a1, b1, c1, ...] from the columns [a0, a1, ...], [b0, b1, ...], ..."""
    return [item for row in zip(*columns) for item in row]


class Optimizer(object):
    """Base class of the optimizers.

    Parameters
    ----------
    rescale_grad : float, default 1.0
        Gradients are multiplied by this before use (often 1/batch_size).
    param_idx2name : dict of int to str, optional
        Names of the weights by index; lr_mult/wd_mult may then be given by name, and weights
        whose name ends neither in ``_weight`` nor ``_gamma`` get no weight decay.
    wd : float, default 0.0
        Weight decay (L2 penalty) coefficient.
    clip_gradient : float, optional
        Gradients are clipped to ``[-clip_gradient, clip_gradient]``.
    learning_rate : float, optional
        The learning rate; overrides the scheduler's base_lr. 0.01 when neither is given.
    lr_scheduler : LRScheduler, optional
        Gives the learning rate from the number of updates.
    sym : Symbol, optional
        Its arguments' ``__lr_mult__``/``__wd_mult__`` attributes become multipliers.
    begin_num_update : int, default 0
        The update count to start from.
    multi_precision : bool, default False
        Keep a float32 master copy of float16 weights and update that.
    param_dict : dict of int to gluon.Parameter, optional
        Parameters whose lr_mult/wd_mult take precedence (not pickled).
    """

    opt_registry = {}

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None \
                and lr_scheduler.base_lr != learning_rate:
            print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by "
                              "``learning_rate`` in optimizer."))
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        # update counts per weight index, kept separately for each device
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        # how many weights one update call may take; 0: the Updater passes one at a time
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        assert isinstance(param_idx2name, dict), \
            'param_idx2name should be a dict of param indexes to names.'
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = is_np_array()
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ---- registry ----

    @staticmethod
    def register(klass):
        """Class decorator: makes `klass` creatable by its lower-cased class name."""
        assert isinstance(klass, type)
        name = klass.__name__.lower()
        previous = Optimizer.opt_registry.get(name)
        if previous is not None:
            warnings.warn('WARNING: New optimizer %s.%s is overriding existing optimizer %s.%s'
                          % (klass.__module__, klass.__name__,
                             previous.__module__, previous.__name__))
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """The optimizer registered as `name` (case-insensitive), built with `kwargs`."""
        klass = Optimizer.opt_registry.get(name.lower())
        if klass is None:
            raise UnknownOptimizerError(
                'Cannot find optimizer %s; registered optimizers: %s'
                % (name, ', '.join(sorted(Optimizer.opt_registry))))
        return klass(**kwargs)

    # ---- learning rate ----

    @property
    def learning_rate(self):
        """The current learning rate (the scheduler's at num_update, when there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Sets the learning rate; not allowed when a scheduler sets it."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of "
                              "the optimizer only when the LRScheduler of the optimizer is "
                              "undefined.")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):  # pylint: disable=unused-argument
        """[DEPRECATED] Use set_lr_mult."""
        raise DeprecationWarning

    def _symbol_mults(self, attr_key):
        """{argument name: multiplier} from the `attr_key` attributes of the symbol's arguments."""
        if not self.sym_info:
            return {}
        attrs, arg_names = self.sym_info
        return {name: float(attrs[name][attr_key]) for name in arg_names
                if name in attrs and attr_key in attrs[name]}

    def set_lr_mult(self, args_lr_mult):
        """Learning-rate multipliers by weight name or index; the symbol's ``__lr_mult__``
        attributes first, then `args_lr_mult` over them."""
        self.lr_mult = self._symbol_mults('__lr_mult__')
        self.lr_mult.update(args_lr_mult)

    def _names_without_wd(self):
        return [n for n in self.idx2name.values()
                if not (n.endswith('_weight') or n.endswith('_gamma'))]

    def set_wd_mult(self, args_wd_mult):
        """Weight-decay multipliers by weight name or index: 0 for named weights that are not
        ``*_weight``/``*_gamma``, then the symbol's ``__wd_mult__``, then `args_wd_mult`."""
        self.wd_mult = dict.fromkeys(self._names_without_wd(), 0.0)
        self.wd_mult.update(self._symbol_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _scaled(self, base, indices, mults, attr):
        """`base` times each index's multiplier: the gluon Parameter's, else by index, else
        by name."""
        values = [base] * len(indices)
        for i, index in enumerate(indices):
            if index in self.param_dict:
                values[i] *= getattr(self.param_dict[index], attr)
            elif index in mults:
                values[i] *= mults[index]
            elif index in self.idx2name:
                values[i] *= mults.get(self.idx2name[index], 1.0)
        return values

    def _get_lrs(self, indices):
        """Learning rates of the weights `indices`."""
        return self._scaled(self.learning_rate, indices, self.lr_mult, 'lr_mult')

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        """Weight decays of the weights `indices`."""
        return self._scaled(self.wd, indices, self.wd_mult, 'wd_mult')

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    # ---- update counting ----

    def _set_current_context(self, device_id):
        """Count updates separately for the weights of device `device_id`."""
        counts = self._all_index_update_counts.setdefault(device_id, {})
        self._index_update_count = counts

    def _update_count(self, index):
        """One more update for `index` (or each index of a list); num_update follows the
        largest count."""
        for idx in index if isinstance(index, (list, tuple)) else [index]:
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(count, self.num_update)

    # ---- states and updates ----

    def _start_update(self, index, weight, grad):
        """Checks the arrays, counts the update of `index`; returns its (lr, wd)."""
        assert isinstance(weight, NDArray)
        assert isinstance(grad, NDArray)
        self._update_count(index)
        return self._get_lr(index), self._get_wd(index)

    def _rescaled_clipped(self, grad, wd=0.0, weight=None):
        """rescale_grad * grad (+ wd * weight when `weight` is given), clipped when
        clip_gradient is set: the gradient of the rules written in Python."""
        grad = grad * self.rescale_grad
        if weight is not None:
            grad = grad + wd * weight
        if self.clip_gradient is not None:
            grad = clip(grad, -self.clip_gradient, self.clip_gradient)
        return grad

    def create_state(self, index, weight):
        """The auxiliary state (momentum, moments, ...) of a weight; None when it has none."""

    def create_state_multi_precision(self, index, weight):
        """create_state, preceded by a float32 master copy of float16 weights when
        multi_precision is on: (weight32, state)."""
        if self.multi_precision and is_float16(weight):
            weight32 = weight.astype(numpy.float32)
            return (weight32, self.create_state(index, weight32))
        if is_float16(weight):
            warn_float16_accumulation()
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Updates `weight` in place from `grad` and `state`."""
        raise NotImplementedError()

    def update_multi_precision(self, index, weight, grad, state):
        """update, on the float32 master copy when the weight is float16 under
        multi_precision, then cast back into the weight."""
        if self.multi_precision and is_float16(weight):
            weight32, inner_state = state
            self.update(index, weight32, grad.astype(numpy.float32), inner_state)
            cast(weight32, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    def _wants_multi_precision(self, weight):
        """Whether a weight (or the first of a list) gets the float32 master-copy path."""
        first = weight[0] if isinstance(weight, (list, tuple)) else weight
        return self.multi_precision and is_float16(first)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state['param_dict']  # gluon Parameters: the Trainer sets them again
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}


register = Optimizer.register  # pylint: disable=invalid-name
create = Optimizer.create_optimizer  # pylint: disable=invalid-name


@register
class Test(Optimizer):
    """Adds the rescaled gradient to the weight and keeps a copy of the result as state."""

    def create_state(self, index, weight):
        return zeros(weight.shape, weight.context)

    def update(self, index, weight, grad, state):
        weight[:] += grad * self.rescale_grad
        state[:] = weight


_NP_NDARRAY = []  # [mx.numpy.ndarray or None], looked up once (a failed import is slow)


def _as_classic(arrays, allow_np):
    """mx.np arrays as mx.nd views (optimizers are written with mx.nd operators)."""
    if not _NP_NDARRAY:
        try:
            from ..numpy import ndarray as np_ndarray
        except ImportError:
            np_ndarray = None
        _NP_NDARRAY.append(np_ndarray if isinstance(np_ndarray, type) else None)
    np_ndarray = _NP_NDARRAY[0]
    if np_ndarray is None:
        return arrays
    many = isinstance(arrays, (list, tuple))
    items = arrays if many else [arrays]
    if not any(isinstance(a, np_ndarray) for a in items):
        return arrays
    if not allow_np:
        raise ValueError('Converting np.ndarray to mx.nd.NDArray is not allowed')
    converted = [a.as_nd_ndarray() for a in items]
    return converted if many else converted[0]


class Updater(object):
    """Applies an optimizer to (index, gradient, weight) triples, creating each weight's
    state on first sight. Weights of one dtype go to the optimizer `aggregate_num` at a time
    when it takes several (fused multi-weight updates)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        allow_np = getattr(self.optimizer, 'allow_np_array', is_np_array())
        if isinstance(index, (list, tuple)):
            indices = list(index)
            grads = _as_classic(grad, allow_np)
            weights = _as_classic(weight, allow_np)
        else:
            indices = [index]
            grads = [_as_classic(grad, allow_np)]
            weights = [_as_classic(weight, allow_np)]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):  # keys that came through the C API
                idx = indices[i] = py_str(idx)
            self._ensure_state(idx, weights[i])
        if self.aggregate_updates:
            self._update_aggregated(indices, weights, grads)
        else:
            for idx, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(idx, w, g, self.states[idx])

    def _ensure_state(self, idx, weight):
        if idx not in self.states:
            self.states[idx] = self.optimizer.create_state_multi_precision(idx, weight)
            self.states_synced[idx] = True
        elif not self.states_synced[idx]:
            self.states[idx] = self.sync_state_context(self.states[idx], weight.context)
            self.states_synced[idx] = True

    def _update_aggregated(self, indices, weights, grads):
        by_dtype = {}
        for triple in zip(indices, weights, grads):
            by_dtype.setdefault(triple[1].dtype, []).append(triple)
        size = self.optimizer.aggregate_num
        for triples in by_dtype.values():
            for start in range(0, len(triples), size):
                chunk = triples[start:start + size]
                idxs, ws, gs = (tuple(column) for column in zip(*chunk))
                self.optimizer.update_multi_precision(idxs, ws, gs,
                                                      [self.states[i] for i in idxs])

    def sync_state_context(self, state, context):
        """`state` (an array, or nested tuples/lists of them) moved to `context`."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states):
        """Loads states pickled by get_states (with or without the optimizer)."""
        states = pickle.loads(states)
        if isinstance(states, tuple) and len(states) == 2:
            self.states, self.optimizer = states
        else:
            self.states = states
        self.states_synced = dict.fromkeys(self.states.keys(), False)
        # (MXNet kept the previous optimizer's choice, which breaks when a loaded optimizer
        # takes one weight at a time and the previous one took several)
        self.aggregate_updates = self.optimizer.aggregate_num > 0

    def get_states(self, dump_optimizer=False):
        """The pickled states; with `dump_optimizer`, the pair (states, optimizer), which
        also keeps the learning rate, its schedule and the update counts."""
        return pickle.dumps((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer):
    """An Updater for `optimizer` (the callable a KVStore takes)."""
    return Updater(optimizer)
