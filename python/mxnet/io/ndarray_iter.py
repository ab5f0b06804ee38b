"""NDArrayIter: batches over in-memory arrays (NDArray, numpy, or dicts/lists of them)."""
from collections import OrderedDict

import numpy as np

from .io import DataBatch, DataDesc, DataIter
from ..ndarray import NDArray, array, concat, tile
from ..ndarray.sparse import CSRNDArray, csr_matrix

__all__ = ['NDArrayIter']

_LAST_BATCH_HANDLES = ('pad', 'discard', 'roll_over')


def _is_scipy_csr(value):
    return type(value).__module__.startswith('scipy.sparse') and \
        getattr(value, 'format', None) == 'csr'


def _named_arrays(data, allow_empty, default_name):
    """[(name, NDArray)] sorted by name, as MXNet orders them: one array is called
    `default_name`, several are `_0_<default_name>`, `_1_...`, a dict keeps its keys."""
    assert data is not None or allow_empty
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty:
            assert data, '%s: at least one array is needed' % default_name
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict(('_%d_%s' % (i, default_name), d) for i, d in enumerate(data))
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, h5py.Dataset "
                        "a list of them or dict with them as values")
    named = []
    for name, value in data.items():
        if _is_scipy_csr(value):
            value = csr_matrix(value)
        elif not isinstance(value, NDArray):
            try:
                value = array(value)
            except Exception:
                raise TypeError("Invalid type '%s' for %s, should be NDArray, numpy.ndarray "
                                "or h5py.Dataset" % (type(value), name))
        named.append((name, value))
    return sorted(named, key=lambda item: item[0])


class NDArrayIter(DataIter):
    """Iterates over arrays in batches of `batch_size` along the layout's 'N' axis.

    `last_batch_handle` decides what happens to a last, incomplete batch: 'pad' fills it
    with samples from the start (`pad` says how many), 'discard' drops it, 'roll_over' keeps
    it for the first batch of the next epoch. `shuffle` permutes the samples (numpy's
    global generator) at every reset. CSRNDArrays (and scipy csr matrices) give csr batches
    and need last_batch_handle='discard', as in MXNet 1.9.1.
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False,
                 last_batch_handle='pad', data_name='data',
                 label_name='softmax_label', layout='NCHW'):
        super(NDArrayIter, self).__init__(batch_size)
        if last_batch_handle not in _LAST_BATCH_HANDLES:
            raise ValueError("NDArrayIter: last_batch_handle must be one of %s, given %r"
                             % (', '.join(_LAST_BATCH_HANDLES), last_batch_handle))
        self.data = _named_arrays(data, allow_empty=False, default_name=data_name)
        self.label = _named_arrays(label, allow_empty=True, default_name=label_name)
        if last_batch_handle != 'discard' and \
                any(isinstance(v, CSRNDArray) for _, v in self.data + self.label):
            raise NotImplementedError("`NDArrayIter` only supports ``CSRNDArray`` with "
                                      "`last_batch_handle` set to `discard`.")
        self.layout = layout
        # The first data array sets the sample count; longer arrays are read up to it, as
        # MXNet 1.9.1 reads them.
        self.num_data = self.data[0][1].shape[0]
        for name, value in self.data + self.label:
            if value.shape[0] < self.num_data:
                raise ValueError('NDArrayIter: %s has %d samples, %s has only %d'
                                 % (self.data[0][0], self.num_data, name, value.shape[0]))
        self.idx = np.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = batch_size
        self.cursor = -batch_size
        self._cache_data = None
        self._cache_label = None
        self.reset()
        self.data_list = [v for _, v in self.data] + [v for _, v in self.label]
        self.num_source = len(self.data_list)

    def _descs(self, named):
        axis = self.layout.find('N')
        return [DataDesc(name, value.shape[:axis] + (self.batch_size,) + value.shape[axis + 1:],
                         value.dtype, layout=self.layout) for name, value in named]

    @property
    def provide_data(self):
        """DataDescs of the data arrays, with the batch size on the batch axis."""
        return self._descs(self.data)

    @property
    def provide_label(self):
        """DataDescs of the label arrays."""
        return self._descs(self.label)

    def hard_reset(self):
        """Starts over, dropping a batch held for roll_over."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        if self.shuffle:
            self._shuffle_data()
        if self.last_batch_handle == 'roll_over' and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            # the held samples open the next epoch: its first batch starts that much early
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data, label = self.getdata(), self.getlabel()
        if data[0].shape[self.layout.find('N')] != self.batch_size:
            self._cache_data, self._cache_label = data, label  # held for roll_over
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _slice(self, named, start=0, end=None):
        end = self.num_data if end is None else end
        axis = self.layout.find('N')
        return [value[start:end] if isinstance(value, CSRNDArray)
                else value.slice_axis(axis=axis, begin=start, end=end) for _, value in named]

    def _concat(self, first, second):
        if not first or not second:
            return first or second
        axis = self.layout.find('N')
        return [concat(a, b, dim=axis) for a, b in zip(first, second)]

    def _batchify(self, named, cache):
        assert self.cursor < self.num_data, 'DataIter needs reset.'
        end = self.cursor + self.batch_size
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            assert cache is not None, 'next epoch should have cached data'
            return self._concat(cache, self._slice(named, end=end))
        if self.last_batch_handle == 'pad' and end > self.num_data:
            pad = end - self.num_data
            head = []
            if pad > self.num_data:  # more padding than samples: repeat the whole set
                whole = self._slice(named)
                head = [tile(x, [pad // self.num_data] + [1] * (x.ndim - 1)) for x in whole]
            if pad % self.num_data or not head:
                head = self._concat(head, self._slice(named, end=pad % self.num_data or pad))
            return self._concat(self._slice(named, start=self.cursor), head)
        return self._slice(named, self.cursor, min(end, self.num_data))

    def getdata(self):
        data = self._batchify(self.data, self._cache_data)
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            self._cache_data = None
        return data

    def getlabel(self):
        label = self._batchify(self.label, self._cache_label)
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            self._cache_label = None
        return label

    def getpad(self):
        if self.last_batch_handle == 'pad' and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        self.data = [(k, _take_rows(v, self.idx)) for k, v in self.data]
        self.label = [(k, _take_rows(v, self.idx)) for k, v in self.label]


def _take_rows(value, idx):
    """The samples `idx` of value, in that order, with value's storage type and context."""
    if isinstance(value, CSRNDArray):
        return csr_matrix(value.asscipy()[idx], ctx=value.context)
    return array(value.asnumpy()[idx], value.context)
