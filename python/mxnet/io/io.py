"""Data iterators: descriptors, batches, the DataIter protocol, and iterator wrappers."""
import threading
from collections import namedtuple

import numpy as np

__all__ = ['DataDesc', 'DataBatch', 'DataIter', 'ResizeIter', 'PrefetchingIter']


class DataDesc(namedtuple('DataDesc', ['name', 'shape'])):
    """Name and shape of one input (a namedtuple, so `name, shape = desc` works), with
    `dtype` (default float32) and `layout` (default 'NCHW'; 'N' marks the batch axis)."""

    def __new__(cls, name, shape, dtype=np.float32, layout='NCHW'):
        desc = super(DataDesc, cls).__new__(cls, name, shape)
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """The position of 'N' in `layout` (0 when the layout is None, -1 when absent)."""
        return 0 if layout is None else layout.find('N')

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from (name, shape) pairs and optional (name, dtype) pairs."""
        if types is None:
            return [DataDesc(name, shape) for name, shape in shapes]
        dtypes = dict(types)
        return [DataDesc(name, shape, dtypes[name]) for name, shape in shapes]


class DataBatch(object):
    """One batch: lists of data and label NDArrays, `pad` (how many trailing samples are
    filler), `index`, `bucket_key`, and optionally the batch's own descriptors."""

    def __init__(self, data, label=None, pad=None, index=None,
                 bucket_key=None, provide_data=None, provide_label=None):
        if data is not None:
            assert isinstance(data, (list, tuple)), "Data must be list of NDArrays"
        if label is not None:
            assert isinstance(label, (list, tuple)), "Label must be list of NDArrays"
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        label_shapes = [l.shape for l in self.label] if self.label else None
        return "{}: data shapes: {} label shapes: {}".format(
            type(self).__name__, [d.shape for d in self.data], label_shapes)


class DataIter(object):
    """Base of data iterators: `next()` returns a DataBatch built from `iter_next`,
    `getdata`, `getlabel`, `getpad` and `getindex`; `reset()` starts over."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Starts a new pass over the data."""

    def next(self):
        """The next DataBatch; StopIteration at the end of the pass."""
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=self.getdata(), label=self.getlabel(),
                         pad=self.getpad(), index=self.getindex())

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Moves to the next batch; whether there is one."""

    def getdata(self):
        """The data NDArrays of the current batch."""

    def getlabel(self):
        """The label NDArrays of the current batch."""

    def getindex(self):
        """The indices of the current batch's samples (None when unknown)."""
        return None

    def getpad(self):
        """How many samples at the end of the current batch are padding."""


class _CurrentBatchIter(DataIter):
    """The get* methods of a wrapper that holds the current DataBatch."""
    current_batch = None

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_CurrentBatchIter):
    """Makes `data_iter` yield exactly `size` batches per pass, restarting it when it ends
    early and stopping it early otherwise; `reset_internal` resets it on every reset."""

    def __init__(self, data_iter, size, reset_internal=True):
        super(ResizeIter, self).__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, 'default_bucket_key'):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


def _renamed(descs, renames):
    if renames is None:
        return sum([list(d) for d in descs], [])
    out = []
    for rename, group in zip(renames, descs):
        for desc in group:
            if isinstance(desc, DataDesc):
                out.append(DataDesc(rename[desc.name], desc.shape, desc.dtype))
            else:
                out.append(DataDesc(rename[desc[0]], *desc[1:]))
    return out


class PrefetchingIter(_CurrentBatchIter):
    """Reads the next batch of each iterator in `iters` in a background thread while the
    current one is used, and joins their batches (data and labels concatenated as lists).
    `rename_data` / `rename_label` are per-iterator {old name: new name} dicts."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        super(PrefetchingIter, self).__init__()
        if not isinstance(iters, list):
            iters = [iters]
        assert iters, 'PrefetchingIter needs at least one iterator'
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for _ in iters]
        self.data_taken = [threading.Event() for _ in iters]
        for taken in self.data_taken:
            taken.set()
        self.started = True
        self.current_batch = None
        self.next_batch = [None] * self.n_iter
        self._errors = [None] * self.n_iter
        self.prefetch_threads = [threading.Thread(target=self._prefetch, args=(i,), daemon=True)
                                 for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.start()

    def _prefetch(self, i):
        while True:
            self.data_taken[i].wait()
            if not self.started:
                return
            try:
                self.next_batch[i] = self.iters[i].next()
            except StopIteration:
                self.next_batch[i] = None
            except Exception as err:  # pylint: disable=broad-except
                self.next_batch[i], self._errors[i] = None, err
            self.data_taken[i].clear()
            self.data_ready[i].set()

    def __del__(self):
        self.started = False
        for taken in getattr(self, 'data_taken', ()):
            taken.set()
        for thread in getattr(self, 'prefetch_threads', ()):
            thread.join()

    @property
    def provide_data(self):
        return _renamed([it.provide_data for it in self.iters], self.rename_data)

    @property
    def provide_label(self):
        return _renamed([it.provide_label for it in self.iters], self.rename_label)

    def reset(self):
        for ready in self.data_ready:
            ready.wait()
        for it in self.iters:
            it.reset()
        self._errors = [None] * self.n_iter
        for ready in self.data_ready:
            ready.clear()
        for taken in self.data_taken:
            taken.set()

    def iter_next(self):
        for ready in self.data_ready:
            ready.wait()
        for err in self._errors:
            if err is not None:
                raise err
        if self.next_batch[0] is None:
            assert all(b is None for b in self.next_batch), \
                "Number of entry mismatches between iterators"
            return False
        first = self.next_batch[0]
        for batch in self.next_batch:
            assert batch.pad == first.pad, "Number of entry mismatches between iterators"
        self.current_batch = DataBatch(sum([list(b.data) for b in self.next_batch], []),
                                       sum([list(b.label) for b in self.next_batch], []),
                                       first.pad, first.index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        for ready in self.data_ready:
            ready.clear()
        for taken in self.data_taken:
            taken.set()
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration
