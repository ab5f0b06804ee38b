"""KVStoreBase (the interface a store implements, with a registry of Python stores),
mx.kv.create, and TestStore (a store written in Python, as in MXNet 1.9.1)."""
import ctypes
import warnings

from ..base import _LIB, check_call, c_str, string_types, integer_types, KVStoreHandle
from ..ndarray import NDArray

__all__ = ['create', 'KVStoreBase']


def _flatten_key_value(keys, vals):
    """(keys, values, use_str_keys) as flat lists: one key per value. A key may come with one
    NDArray or a list of them (one per device); keys are all ints or all strings."""
    if isinstance(keys, (tuple, list)):
        if len(keys) != len(vals):
            raise ValueError("KVStore: %d keys for %d values" % (len(keys), len(vals)))
        flat_keys, flat_vals, use_str = [], [], None
        for key, val in zip(keys, vals):
            k, v, s = _flatten_key_value(key, val)
            if use_str is None:
                use_str = s
            if use_str != s:
                raise AssertionError("inconsistent types of keys detected.")
            flat_keys += k
            flat_vals += v
        return flat_keys, flat_vals, bool(use_str)
    if not isinstance(keys, integer_types + string_types):
        raise AssertionError("unexpected type for keys: " + str(type(keys)))
    use_str = isinstance(keys, string_types)
    if isinstance(vals, NDArray):
        return [keys], [vals], use_str
    vals = list(vals)
    for v in vals:
        if not isinstance(v, NDArray):
            raise AssertionError("KVStore: values must be NDArrays, given %s" % type(v))
    return [keys] * len(vals), vals, use_str


def _c_keys(keys, use_str):
    if use_str:
        arr = (ctypes.c_char_p * len(keys))()
        arr[:] = [k.encode('utf-8') for k in keys]
        return arr
    for k in keys:
        if not -2**31 <= k < 2**31:
            raise ValueError("KVStore: int keys must fit in 32 bits, given %d" % k)
    arr = (ctypes.c_int * len(keys))()
    arr[:] = [int(k) for k in keys]
    return arr


def _c_handles(arrays):
    arr = (ctypes.c_void_p * len(arrays))()
    arr[:] = [a.handle for a in arrays]
    return arr


def _c_str_dict(param_dict):
    if not isinstance(param_dict, dict):
        raise AssertionError("unexpected type for param_dict: " + str(type(param_dict)))
    keys = (ctypes.c_char_p * len(param_dict))()
    vals = (ctypes.c_char_p * len(param_dict))()
    keys[:] = [str(k).encode('utf-8') for k in param_dict.keys()]
    vals[:] = [str(v).encode('utf-8') for v in param_dict.values()]
    return keys, vals


class KVStoreBase(object):
    """What a key-value store offers. Subclasses registered with `KVStoreBase.register` are
    created by `mx.kv.create(name)` with their lower-cased class name."""

    OPTIMIZER = 'optimizer'
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        """Initialize key with value and copy it into out (an NDArray or a list)."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Sum value (an NDArray or one per device) and write the result into out, or back
        into value when out is None."""
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        """Run optimizer on the store: pushes then update the stored values."""
        raise NotImplementedError()

    def is_capable(self, capability):
        """Whether the store supports a capability (KVStoreBase.OPTIMIZER)."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the states of the optimizer run on the store."""
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        """Read what save_optimizer_states wrote."""
        raise NotImplementedError()

    @property
    def type(self):
        """The type name of the store."""
        raise NotImplementedError()

    @property
    def rank(self):
        """This worker's rank."""
        raise NotImplementedError()

    @property
    def num_workers(self):
        """The number of workers."""
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Register a KVStoreBase subclass under its lower-cased class name (a decorator)."""
        if not isinstance(klass, type):
            raise AssertionError("KVStoreBase.register expects a class, given %s" % type(klass))
        name = klass.__name__.lower()
        if name in KVStoreBase.kv_registry:
            old = KVStoreBase.kv_registry[name]
            warnings.warn('WARNING: New kvstore %s.%s is overriding existing kvstore %s.%s'
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A store in Python that sums on the first value's context (for tests of the interface)."""

    def broadcast(self, key, value, out, priority=0):
        for o in (out if isinstance(out, list) else [out]):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            if out is not None:
                for o in (out if isinstance(out, list) else [out]):
                    o[:] = value
            return
        ctx = value[0].context
        total = sum([v.as_in_context(ctx) for v in value])
        targets = value if out is None else (out if isinstance(out, list) else [out])
        for t in targets:
            t[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError('Unknown capability: {}'.format(capability))

    @property
    def type(self):
        return 'teststore'

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def set_optimizer(self, optimizer):
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()


def create(name='local'):
    """A new key-value store.

    name: 'local' (sum on the CPU; also 'local_update_cpu', 'local_allreduce_cpu'),
    'device' (sum on the pushing devices, gradient compression available; also
    'local_allreduce_device'), or the name of a registered KVStoreBase subclass. 'nccl' needs
    a build with NCCL. 'dist_sync', 'dist_async', 'dist_sync_device', 'dist_async_device' and
    'dist_p3' (sync, arrays sliced and sent by priority) join the parameter-server job
    described by the DMLC_* variables (tools/launch.py sets them).
    """
    if not isinstance(name, string_types):
        raise TypeError('name must be a string')
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    handle = KVStoreHandle()
    check_call(_LIB.MXKVStoreCreate(c_str(name), ctypes.byref(handle)))
    from .kvstore import KVStore
    from ..profiler import set_kvstore_handle
    kv = KVStore(handle)
    set_kvstore_handle(kv.handle)
    return kv
