"""DataLoader: batches of a Dataset, made in this process, in threads or in worker processes.

Worker processes are forked once per DataLoader and live as long as it does. Each receives
(batch number, sample indices), builds the batch with the dataset and batchify function it
inherited through the fork (so neither needs to be picklable) and sends it back with every
NDArray in a POSIX shared-memory block; only names, shapes and dtypes go through the pipe.
The parent waits for a batch in short polls, checking that every worker is still alive, so
a worker that raises re-raises its exception here and one that dies is reported, never
waited for forever.
"""
import itertools
import multiprocessing
import os
import pickle
import queue
import signal
import traceback
from multiprocessing import shared_memory
from multiprocessing.pool import ThreadPool

import numpy as np

from . import sampler as _sampler
from ... import context, ndarray as nd
from ...base import MXNetError
from ...util import is_np_array, is_np_shape, set_np

__all__ = ['DataLoader', 'default_batchify_fn', 'default_mp_batchify_fn']

_POLL_SECONDS = 0.2
_SHM_DIR = '/dev/shm'  # where Linux's shm_open keeps the blocks


def default_batchify_fn(data):
    """Stacks a list of samples into a batch: NDArrays with `nd.stack`, tuples element-wise
    (giving a list), anything else through `numpy.asarray` keeping its dtype."""
    if isinstance(data[0], nd.NDArray):
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype)


def default_mp_batchify_fn(data):
    """`default_batchify_fn` for worker processes: the batch is made in `cpu_shared` memory."""
    shared = context.Context('cpu_shared', 0)
    if isinstance(data[0], nd.NDArray):
        out = nd.empty((len(data),) + data[0].shape, dtype=data[0].dtype, ctx=shared)
        return nd.stack(*data, out=out)
    if isinstance(data[0], tuple):
        return [default_mp_batchify_fn(list(field)) for field in zip(*data)]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype, ctx=shared)


def _as_in_context(data, ctx):
    if isinstance(data, nd.NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


class _SharedArray(object):
    """An NDArray in transit: the name of the shared-memory block holding its bytes."""
    __slots__ = ('name', 'shape', 'dtype', 'ctx')

    def __init__(self, array, name):
        host = array.asnumpy()
        block = shared_memory.SharedMemory(name=name, create=True, size=max(host.nbytes, 1))
        try:
            np.ndarray(host.shape, host.dtype, buffer=block.buf)[...] = host
        finally:
            block.close()
        # The parent unlinks the block once it has copied it; the worker's resource tracker
        # must not unlink it first when this process exits.
        _untrack(block)
        self.name, self.shape, self.dtype = block.name, host.shape, host.dtype.str
        self.ctx = (array.context.device_type, array.context.device_id)

    def take(self):
        """The NDArray, copied out of the block, which is then freed."""
        block = shared_memory.SharedMemory(name=self.name)
        try:
            view = np.ndarray(self.shape, np.dtype(self.dtype), buffer=block.buf)
            out = nd.array(view, ctx=context.Context(*self.ctx), dtype=view.dtype)
            out.wait_to_read()
        finally:
            del view
            block.close()
            block.unlink()
        return out


def _untrack(block):
    try:
        from multiprocessing import resource_tracker
        resource_tracker.unregister(block._name, 'shared_memory')  # pylint: disable=protected-access
    except (ImportError, AttributeError, KeyError):
        pass


def _export(batch, names):
    if isinstance(batch, nd.NDArray):
        return _SharedArray(batch, next(names))
    if isinstance(batch, (list, tuple)):
        return type(batch)(_export(x, names) for x in batch)
    return batch


def _import(batch):
    if isinstance(batch, _SharedArray):
        return batch.take()
    if isinstance(batch, (list, tuple)):
        return type(batch)(_import(x) for x in batch)
    return batch


def _discard(batch):
    """Frees the shared-memory blocks of a batch nobody will read."""
    if isinstance(batch, _SharedArray):
        try:
            block = shared_memory.SharedMemory(name=batch.name)
            block.close()
            block.unlink()
        except OSError:
            pass
    elif isinstance(batch, (list, tuple)):
        for x in batch:
            _discard(x)


def _worker_main(dataset, batchify_fn, tasks, results, prefix, np_shape, np_array):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    set_np(shape=np_shape, array=np_array)
    while True:
        task = tasks.get()
        if task is None:
            return
        number, indices = task
        try:
            names = ('%s%d_%d' % (prefix, number, k) for k in itertools.count())
            batch = _export(batchify_fn([dataset[i] for i in indices]), names)
            results.put((number, True, batch))
        except BaseException as err:  # pylint: disable=broad-except
            text = traceback.format_exc()
            try:
                pickle.dumps(err)
            except Exception:  # pylint: disable=broad-except
                err = None
            results.put((number, False, (err, text)))


class _ProcessWorkers(object):
    """Forked worker processes sharing one task queue and one result queue.

    Shared-memory blocks are named after the parent's pid and this pool, so when the pool
    closes it can free even the blocks of batches a terminated worker never delivered.
    """
    _pools = itertools.count()

    def __init__(self, num_workers, dataset, batchify_fn):
        fork = multiprocessing.get_context('fork')
        self._prefix = 'mxdl_%d_%d_' % (os.getpid(), next(self._pools))
        self._tasks = fork.Queue()
        self._results = fork.Queue()
        self._ready = {}
        self._closed = False
        nd.waitall()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self._procs = [fork.Process(target=_worker_main, daemon=True,
                                        args=(dataset, batchify_fn, self._tasks, self._results,
                                              self._prefix, is_np_shape(), is_np_array()))
                           for _ in range(num_workers)]
            for proc in self._procs:
                proc.start()
        finally:
            signal.signal(signal.SIGINT, previous)

    def submit(self, number, indices):
        self._tasks.put((number, indices))

    def result(self, number, timeout):
        waited = 0.0
        while number not in self._ready:
            try:
                got, ok, payload = self._results.get(timeout=_POLL_SECONDS)
                self._ready[got] = (ok, payload)
                continue
            except queue.Empty:
                pass
            waited += _POLL_SECONDS
            for proc in self._procs:
                if not proc.is_alive():
                    code = proc.exitcode
                    self.close()
                    raise MXNetError('DataLoader worker (pid %d) exited unexpectedly with exit '
                                     'code %s while batch %d was pending' % (proc.pid, code, number))
            if waited >= timeout:
                raise multiprocessing.TimeoutError(
                    'DataLoader worker timed out after %s seconds waiting for batch %d: the '
                    'dataset or transform may be slow (raise `timeout`), or shared memory '
                    '(/dev/shm) may be full (lower `num_workers`)' % (timeout, number))
        ok, payload = self._ready.pop(number)
        if ok:
            return _import(payload)
        err, text = payload
        if err is None:
            raise MXNetError('DataLoader worker failed on batch %d:\n%s' % (number, text))
        if hasattr(err, 'add_note'):
            err.add_note('raised in a DataLoader worker process:\n' + text)
        raise err

    def drop(self, numbers):
        """Forgets batches submitted but no longer wanted (an iterator abandoned early)."""
        for number in numbers:
            ok, payload = self._ready.pop(number, (False, None))
            if ok:
                _discard(payload)

    def close(self):
        if self._closed:
            return
        self._closed = True
        for proc in self._procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self._procs:
            proc.join(timeout=1.0)
        for ok, payload in self._ready.values():
            if ok:
                _discard(payload)
        self._ready.clear()
        for q in (self._tasks, self._results):
            q.close()
            q.cancel_join_thread()
        for name in os.listdir(_SHM_DIR) if os.path.isdir(_SHM_DIR) else ():
            if name.startswith(self._prefix):
                try:
                    os.unlink(os.path.join(_SHM_DIR, name))
                except OSError:
                    pass

    def __del__(self):
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except
            pass


class _ThreadWorkers(object):
    """Worker threads: batches are built in this process, no transport needed."""

    def __init__(self, num_workers, dataset, batchify_fn):
        self._dataset = dataset
        self._batchify_fn = batchify_fn
        self._pool = ThreadPool(num_workers, initializer=set_np,
                                initargs=(is_np_shape(), is_np_array()))
        self._pending = {}

    def _build(self, indices):
        return self._batchify_fn([self._dataset[i] for i in indices])

    def submit(self, number, indices):
        self._pending[number] = self._pool.apply_async(self._build, (indices,))

    def result(self, number, timeout):
        pending = self._pending.pop(number)
        try:
            return pending.get(timeout)
        except multiprocessing.TimeoutError:
            raise multiprocessing.TimeoutError(
                'DataLoader worker thread timed out after %s seconds waiting for batch %d: '
                'the dataset or transform may be slow (raise `timeout`)' % (timeout, number))

    def drop(self, numbers):
        for number in numbers:
            self._pending.pop(number, None)

    def close(self):
        self._pool.terminate()

    def __del__(self):
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except
            pass


class _PrefetchingIter(object):
    """Keeps `prefetch` batches requested ahead of the one being returned."""

    def __init__(self, workers, batch_sampler, prefetch, pin_memory, pin_device_id, timeout):
        self._workers = workers
        self._batches = iter(batch_sampler)
        self._length = len(batch_sampler)
        self._pin = context.cpu_pinned(pin_device_id) if pin_memory else None
        self._timeout = timeout
        self._sent = 0
        self._received = 0
        for _ in range(prefetch):
            self._push_next()

    def _push_next(self):
        indices = next(self._batches, None)
        if indices is None:
            return
        self._workers.submit(self._sent, indices)
        self._sent += 1

    def __len__(self):
        return self._length

    def __iter__(self):
        return self

    def __next__(self):
        self._push_next()
        if self._received == self._sent:
            raise StopIteration
        batch = self._workers.result(self._received, self._timeout)
        self._received += 1
        return batch if self._pin is None else _as_in_context(batch, self._pin)

    next = __next__

    def __del__(self):
        try:
            self._workers.drop(range(self._received, self._sent))
        except Exception:  # pylint: disable=broad-except
            pass


class DataLoader(object):
    """Loads batches from `dataset`.

    Parameters follow MXNet 1.9: `batch_size`, `shuffle`, `sampler` and `last_batch`
    ('keep', 'discard' or 'rollover') build a BatchSampler unless `batch_sampler` is given;
    `batchify_fn` merges samples into a batch; `num_workers` > 0 builds batches in that many
    forked processes (threads with `thread_pool=True`); `pin_memory` returns batches in
    `cpu_pinned(pin_device_id)` memory; `prefetch` (default 2 * num_workers) is how many
    batches are requested ahead; `timeout` is how long to wait for one batch, in seconds;
    `auto_reload` starts the next epoch's prefetching as soon as an epoch ends.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None,
                 num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False):
        assert timeout > 0, "timeout must be positive, given {}".format(timeout)
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless "
                                 "batch_sampler is specified")
            if sampler is None:
                sampler = (_sampler.RandomSampler(len(dataset)) if shuffle
                           else _sampler.SequentialSampler(len(dataset)))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size, last_batch or 'keep')
        elif batch_size is not None or shuffle or sampler is not None or \
                last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must "
                             "not be specified if batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = max(0, num_workers)
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 and not thread_pool \
                else default_batchify_fn
        self._batchify_fn = batchify_fn
        self._workers = None
        if self._num_workers > 0:
            kind = _ThreadWorkers if thread_pool else _ProcessWorkers
            self._workers = kind(self._num_workers, dataset, batchify_fn)
        self.auto_reload = auto_reload
        self._iter = None
        if auto_reload:
            self.refresh()

    def _same_process_iter(self):
        pin = context.cpu_pinned(self._pin_device_id) if self._pin_memory else None
        for indices in self._batch_sampler:
            batch = self._batchify_fn([self._dataset[i] for i in indices])
            yield batch if pin is None else _as_in_context(batch, pin)

    def _prefetch_iter(self):
        if self._workers is None:
            return self._same_process_iter()
        return _PrefetchingIter(self._workers, self._batch_sampler, self._prefetch,
                                self._pin_memory, self._pin_device_id, self._timeout)

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        current, self._iter = self._iter, None
        for batch in current:
            yield batch
        if self._iter is None and self.auto_reload:
            self.refresh()

    def __len__(self):
        return len(self._batch_sampler)

    def refresh(self):
        """Starts (prefetching) the next pass over the data."""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Drops a pass started by `refresh` but not iterated."""
        self._iter = None

    def __del__(self):
        workers = getattr(self, '_workers', None)
        if workers is not None:
            workers.close()

