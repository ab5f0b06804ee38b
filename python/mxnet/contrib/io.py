"""mx.contrib.io.DataLoaderIter: a gluon DataLoader seen as an mx.io.DataIter (for Module)."""
from ..io import DataDesc, DataIter
from .. import ndarray as nd

__all__ = ['DataLoaderIter']


class DataLoaderIter(DataIter):
    """Iterates `loader`'s (data, label) batches as DataBatch objects named data_name and
    label_name, cast to `dtype`. A last batch shorter than the first is padded up to the
    batch size (the padding is left uninitialized, as in MXNet 1.9.1) and `pad` says by how
    many rows."""

    def __init__(self, loader, data_name='data', label_name='softmax_label', dtype='float32'):
        super(DataLoaderIter, self).__init__()
        self._loader = loader
        data, label = next(iter(loader))
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self._iter = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, array):
        array = array.astype(self.dtype)
        if not self.getpad():
            return [array]
        full = nd.empty((self.batch_size,) + tuple(array.shape[1:]), dtype=self.dtype)
        full[:array.shape[0]] = array
        return [full]

    def getdata(self):
        return self._padded(self._current_batch[0])

    def getlabel(self):
        return self._padded(self._current_batch[1])

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
