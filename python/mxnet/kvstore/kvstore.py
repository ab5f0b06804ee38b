"""KVStore: the C++ store ('local', 'device') behind MXNet 1.9.1's Python interface.

Every call only queues engine work: push sums and stores, pull copies out, and Python waits
only when it reads an output.
"""
import atexit
import ctypes
import pickle
import weakref

from ..base import _LIB, check_call, c_str, py_str, KVStoreHandle
from ..ndarray import NDArray
from .. import optimizer as opt
from .base import KVStoreBase, _flatten_key_value, _c_keys, _c_handles, _c_str_dict

__all__ = ['KVStore']

_UPDATER_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_void_p)
_STR_UPDATER_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                                      ctypes.c_void_p)

_SERVER_COMMANDS = {'kController': 0, 'kSetMultiPrecision': 1, 'kStopServer': 2,
                    'kSyncMode': 3, 'kSetGradientCompression': 4, 'kSetProfilerParams': 5}


class KVStore(KVStoreBase):
    """A key-value store made by `mx.kv.create`. Keys are ints or strings (one kind per
    store); a value is an NDArray or a list of NDArrays, one per device."""

    def __init__(self, handle):
        if not isinstance(handle, KVStoreHandle):
            raise AssertionError("KVStore expects a KVStoreHandle")
        self.handle = handle
        self._updater = None
        self._updater_func = None
        self._str_updater_func = None
        self._updater_error = []
        if 'dist' in self.type:
            # A distributed store leaves the job when it is freed (a barrier of the workers,
            # then worker 0 stops the servers). Do that at interpreter exit at the latest,
            # before module teardown can skip __del__ and leave the servers waiting.
            ref = weakref.ref(self)
            atexit.register(lambda: ref() is not None and ref()._close())

    def _close(self):
        if getattr(self, 'handle', None) is not None and _LIB is not None:
            check_call(_LIB.MXKVStoreFree(self.handle))
            self.handle = None

    def __del__(self):
        self._close()

    def _raise_updater_error(self):
        # An exception raised by the updater inside the C callback is kept and raised here,
        # once the call that ran it has returned.
        if self._updater_error:
            err = self._updater_error.pop()
            del self._updater_error[:]
            raise err

    def init(self, key, value):
        """Initialize key (an int or str, or a list) with value (an NDArray each)."""
        keys, vals, use_str = _flatten_key_value(key, value)
        fn = _LIB.MXKVStoreInitEx if use_str else _LIB.MXKVStoreInit
        check_call(fn(self.handle, ctypes.c_uint(len(keys)), _c_keys(keys, use_str),
                      _c_handles(vals)))

    def push(self, key, value, priority=0):
        """Push value(s) for key(s); values given for the same key are summed, then the
        updater (when set) merges the sum into the stored value, else it replaces it."""
        keys, vals, use_str = _flatten_key_value(key, value)
        fn = _LIB.MXKVStorePushEx if use_str else _LIB.MXKVStorePush
        check_call(fn(self.handle, ctypes.c_uint(len(keys)), _c_keys(keys, use_str),
                      _c_handles(vals), ctypes.c_int(priority)))
        self._raise_updater_error()

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the value of key(s) into out (an NDArray or a list, one per device)."""
        assert out is not None
        keys, outs, use_str = _flatten_key_value(key, out)
        fn = _LIB.MXKVStorePullWithSparseEx if use_str else _LIB.MXKVStorePullWithSparse
        check_call(fn(self.handle, ctypes.c_uint(len(keys)), _c_keys(keys, use_str),
                      _c_handles(outs), ctypes.c_int(priority), ctypes.c_bool(ignore_sparse)))

    def pushpull(self, key, value, out=None, priority=0):
        """push then pull: the sum lands in out, or back in value when out is None."""
        vkeys, vals, use_str = _flatten_key_value(key, value)
        if out is None:
            okeys, outs = vkeys, vals
        else:
            okeys, outs, _ = _flatten_key_value(key, out)
        fn = _LIB.MXKVStorePushPullEx if use_str else _LIB.MXKVStorePushPull
        check_call(fn(self.handle, ctypes.c_uint(len(vkeys)), _c_keys(vkeys, use_str),
                      ctypes.c_uint(len(okeys)), _c_keys(okeys, use_str), _c_handles(vals),
                      _c_handles(outs), ctypes.c_int(priority)))
        self._raise_updater_error()

    def broadcast(self, key, value, out, priority=0):
        """Initialize key(s) with value and copy it into out."""
        vkeys, vals, use_str = _flatten_key_value(key, value)
        okeys, outs, _ = _flatten_key_value(key, out)
        fn = _LIB.MXKVStoreBroadcastEx if use_str else _LIB.MXKVStoreBroadcast
        check_call(fn(self.handle, ctypes.c_uint(len(vkeys)), _c_keys(vkeys, use_str),
                      ctypes.c_uint(len(okeys)), _c_keys(okeys, use_str), _c_handles(vals),
                      _c_handles(outs), ctypes.c_int(priority)))

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull the rows row_ids (NDArray, or one per output; any order, repeats allowed) of
        the value of key into the row_sparse array(s) out."""
        assert out is not None
        assert row_ids is not None
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        assert isinstance(row_ids, list), "row_ids should be NDArray or list of NDArray"
        first_out = [out[0]] if len(row_ids) == 1 and isinstance(out, list) else out
        keys, outs, use_str = _flatten_key_value(key, first_out)
        _, rids, _ = _flatten_key_value(key, row_ids)
        assert len(rids) == len(outs), "the number of row_ids doesn't match the number of values"
        fn = _LIB.MXKVStorePullRowSparseEx if use_str else _LIB.MXKVStorePullRowSparse
        check_call(fn(self.handle, ctypes.c_uint(len(keys)), _c_keys(keys, use_str),
                      _c_handles(outs), _c_handles(rids), ctypes.c_int(priority)))
        if first_out is not out:  # one row_ids for every output: the others copy the first
            for other in out[1:]:
                out[0].copyto(other)

    def set_gradient_compression(self, compression_params):
        """Compress pushed gradients: {'type': '2bit', 'threshold': 0.5}. Available for
        'device' stores (and dist ones), as in MXNet 1.9.1; see docs/gradient_compression.md."""
        if 'device' in self.type or 'dist' in self.type:
            keys, vals = _c_str_dict(compression_params)
            check_call(_LIB.MXKVStoreSetGradientCompression(
                self.handle, ctypes.c_uint(len(compression_params)), keys, vals))
        else:
            raise Exception('Gradient compression is not supported for this type of kvstore')

    def set_optimizer(self, optimizer):
        """Run optimizer on the store: each push then updates the stored weight."""
        is_worker = ctypes.c_int()
        check_call(_LIB.MXKVStoreIsWorkerNode(ctypes.byref(is_worker)))
        if 'dist' in self.type and is_worker.value:
            body = py_str(pickle.dumps(optimizer, 0))
            self._send_command_to_servers(_SERVER_COMMANDS['kController'], body)
            if optimizer.multi_precision:
                self._send_command_to_servers(_SERVER_COMMANDS['kSetMultiPrecision'], '')
        else:
            self._set_updater(opt.get_updater(optimizer))

    def is_capable(self, capability):
        """Whether the store can run an optimizer (KVStoreBase.OPTIMIZER): yes."""
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError('Unknown capability: {}'.format(capability))

    @property
    def type(self):
        """The type given to create ('local', 'device', ...)."""
        kv_type = ctypes.c_char_p()
        check_call(_LIB.MXKVStoreGetType(self.handle, ctypes.byref(kv_type)))
        return py_str(kv_type.value)

    @property
    def rank(self):
        """This worker's rank (0 in one process)."""
        rank = ctypes.c_int()
        check_call(_LIB.MXKVStoreGetRank(self.handle, ctypes.byref(rank)))
        return rank.value

    @property
    def num_workers(self):
        """The number of workers (1 in one process)."""
        size = ctypes.c_int()
        check_call(_LIB.MXKVStoreGetGroupSize(self.handle, ctypes.byref(size)))
        return size.value

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the states of the optimizer set with set_optimizer to fname."""
        assert self._updater is not None, "Cannot save states for distributed training"
        with open(fname, 'wb') as fout:
            fout.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        """Read optimizer states written by save_optimizer_states."""
        assert self._updater is not None, "Cannot load states for distributed training"
        with open(fname, 'rb') as fin:
            self._updater.set_states(fin.read())

    def _set_updater(self, updater):
        """Run updater(key, recv, stored) on the store at each push (int keys are passed as
        int, string keys as bytes, as MXNet 1.9.1 does); it writes into stored."""
        self._updater = updater
        errors = self._updater_error

        def call(key, recv_handle, local_handle, _):
            try:
                updater(key, NDArray(recv_handle), NDArray(local_handle))
            except BaseException as err:  # pylint: disable=broad-except
                errors.append(err)

        self._updater_func = _UPDATER_PROTO(call)
        self._str_updater_func = _STR_UPDATER_PROTO(call)
        check_call(_LIB.MXKVStoreSetUpdaterEx(self.handle, self._updater_func,
                                              self._str_updater_func, None))

    def _barrier(self):
        """Wait for all workers (returns at once in one process)."""
        check_call(_LIB.MXKVStoreBarrier(self.handle))

    def _send_command_to_servers(self, head, body):
        """Send a command to the servers (there are none in one process)."""
        check_call(_LIB.MXKVStoreSendCommmandToServers(self.handle, ctypes.c_int(head),
                                                       c_str(body)))
