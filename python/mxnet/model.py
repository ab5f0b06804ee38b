"""mx.model: checkpoint files (prefix-symbol.json + prefix-NNNN.params), BatchEndParam and the
KVStore/updater plumbing Module shares (MXNet 1.9's model module without FeedForward)."""
import logging
import os
from collections import namedtuple

import numpy as np

from . import ndarray as nd
from . import symbol as sym
from .context import cpu

__all__ = ['BatchEndParam', 'save_checkpoint', 'load_checkpoint', 'load_params']

# What a batch-end callback receives (the type name is MXNet's, plural included).
BatchEndParam = namedtuple('BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals'])


def _kvstore_module():
    """mx.kvstore when this build has one, else None (updates then run locally)."""
    try:
        from . import kvstore  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return kvstore


def _kv_base_class(kvs):
    return getattr(kvs, 'KVStoreBase', None) or getattr(kvs, 'KVStore')


def _kv_can_optimize(kv, kvs):
    """Whether `kv` runs the optimizer itself (KVStoreBase.OPTIMIZER capability)."""
    is_capable = getattr(kv, 'is_capable', None)
    base = getattr(kvs, 'KVStoreBase', None)
    if is_capable is None or base is None or not hasattr(base, 'OPTIMIZER'):
        return hasattr(kv, 'set_optimizer')
    return bool(is_capable(base.OPTIMIZER))


def _create_sparse_kvstore(kvstore):
    """A KVStore for row_sparse parameters: these are always updated on the store."""
    kvs = _kvstore_module()
    if kvs is None:
        raise TypeError("Cannot create '%s' KVStore with row_sparse parameters: this build "
                        "has no mx.kvstore" % (kvstore,))
    if isinstance(kvstore, _kv_base_class(kvs)):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
    else:
        raise TypeError("Cannot create '%s' KVStore with row_sparse parameters. "
                        "The type must be KVStore or str." % (kvstore,))
    if not _kv_can_optimize(kv, kvs):
        raise AssertionError("KVStore with sparse weight requires optimizer support, which "
                             "%s lacks" % type(kv).__name__)
    return kv, True


class _DeviceSum(object):
    """Stands in for a 'local'/'device' KVStore when this build has no mx.kvstore: sums
    the devices' gradients so that every copy of a parameter gets the same update (the
    optimizer then runs on the workers)."""
    type = 'local'
    num_workers = 1
    rank = 0

    def init(self, key, value):
        """Nothing to keep: the devices already hold the parameters."""

    def pushpull(self, key, value, out=None, priority=0):
        """out[i] <- sum of value over the devices (the first device adds them up)."""
        del key, priority
        values = value if isinstance(value, (list, tuple)) else [value]
        outs = values if out is None else (out if isinstance(out, (list, tuple)) else [out])
        total = values[0].copy()
        for v in values[1:]:
            total += v.as_in_context(total.context)
        for o in outs:
            total.copyto(o)


def _create_kvstore(kvstore, num_device, arg_params):
    """(kvstore or None, update_on_kvstore) for a KVStore object, a type name or None.

    One device without 'dist' needs no store; MXNET_UPDATE_ON_KVSTORE (default 1) chooses
    where the optimizer runs, and a 'local' store with a parameter over 16M elements updates
    on the workers instead."""
    update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', "1")))
    kvs = _kvstore_module()
    if kvstore is None:
        kv = None
    elif kvs is not None and isinstance(kvstore, _kv_base_class(kvs)):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and 'dist' not in kvstore:
            kv = None
        elif kvs is None:
            if 'dist' in kvstore:
                raise ValueError("kvstore '%s': this build has no mx.kvstore" % kvstore)
            kv = _DeviceSum()
        else:
            kv = kvs.create(kvstore)
            if kvstore == 'local' and arg_params:
                largest = max(int(np.prod(p.shape)) for p in arg_params.values())
                if largest > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        raise TypeError('kvstore must be KVStore, str or None')
    if kv is None or isinstance(kv, _DeviceSum):
        update_on_kvstore = False
    else:
        update_on_kvstore = update_on_kvstore and _kv_can_optimize(kv, kvs)
    return kv, update_on_kvstore


def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Register every parameter with the store; copies on the devices get its value back."""
    for idx, copies in enumerate(param_arrays):
        name = param_names[idx]
        if not update_on_kvstore or arg_params[name].stype != 'default':
            kvstore.init(name, arg_params[name])
        elif hasattr(kvstore, 'broadcast'):
            kvstore.broadcast(name, arg_params[name], out=copies)
        else:
            kvstore.init(name, arg_params[name])
            kvstore.pull(name, copies, priority=-idx)


def _pushpull(kvstore, name, grads, out, priority):
    if hasattr(kvstore, 'pushpull'):
        kvstore.pushpull(name, grads, out=out, priority=priority)
    else:
        kvstore.push(name, grads, priority=priority)
        kvstore.pull(name, out=out, priority=priority)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """Gradients go to the store, which runs the optimizer; new weights come back."""
    for index, (weights, grads) in enumerate(zip(param_arrays, grad_arrays)):
        if grads[0] is None:
            continue
        name = param_names[index]
        if grads[0].stype == 'default' and weights[0].stype == 'default':
            _pushpull(kvstore, name, grads, weights, -index)
        else:
            kvstore.push(name, grads, priority=-index)
            kvstore.pull(name, out=weights, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None,
                   param_names=None):
    """Gradients are summed through the store (when there is one), then `updater` updates
    each device's copy; index `i * num_device + k` keeps one optimizer state per copy."""
    per_device = [[] for _ in range(num_device)]
    for index, (weights, grads) in enumerate(zip(param_arrays, grad_arrays)):
        if grads[0] is None:
            continue
        if kvstore:
            name = param_names[index]
            if grads[0].stype == 'default' and weights[0].stype == 'default':
                _pushpull(kvstore, name, grads, grads, -index)
            else:
                kvstore.push(name, grads, priority=-index)
                kvstore.pull(name, out=grads, priority=-index)
        for k, (w, g) in enumerate(zip(weights, grads)):
            per_device[k].append((index * num_device + k, g, w))
    for updates in per_device:
        if updates:
            indices, grads, weights = zip(*updates)
            updater(list(indices), list(grads), list(weights))


def _multiple_callbacks(callbacks, *args, **kwargs):
    """Call `callbacks` (None, one callable, or a list of them) with the arguments."""
    if isinstance(callbacks, list):
        for callback in callbacks:
            callback(*args, **kwargs)
    elif callbacks:
        callbacks(*args, **kwargs)


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (when `symbol` is given) and ``prefix-%04d.params`` with
    keys ``arg:NAME`` / ``aux:NAME``, the files MXNet 1.x's load_checkpoint reads."""
    if symbol is not None:
        symbol.save('%s-symbol.json' % prefix, remove_amp_cast=remove_amp_cast)
    saved = {'arg:%s' % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
    saved.update({'aux:%s' % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
    param_name = '%s-%04d.params' % (prefix, epoch)
    nd.save(param_name, saved)
    logging.info('Saved checkpoint to "%s"', param_name)


def load_params(prefix, epoch):
    """(arg_params, aux_params) from ``prefix-%04d.params``."""
    fname = '%s-%04d.params' % (prefix, epoch)
    saved = nd.load(fname)
    arg_params, aux_params = {}, {}
    if not saved:
        logging.warning("Params file '%s' is empty", fname)
        return arg_params, aux_params
    if not isinstance(saved, dict):
        raise ValueError("load_params: '%s' holds a list of arrays; a checkpoint needs "
                         "'arg:NAME'/'aux:NAME' keys" % fname)
    for key, value in saved.items():
        kind, _, name = key.partition(':')
        if kind == 'arg':
            arg_params[name] = value
        elif kind == 'aux':
            aux_params[name] = value
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) from ``prefix-symbol.json`` and
    ``prefix-%04d.params``."""
    symbol = sym.load('%s-symbol.json' % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
