"""MXDataIter: the Python face of the C++ data iterators, and the mx.io.<Name> creator
functions (MNISTIter, CSVIter, LibSVMIter, ...) generated from the C++ iterator registry."""
import ctypes
import logging
import sys

import numpy as np

from ..base import _LIB, check_call, c_str_array, py_str, mx_uint
from ..base import DataIterHandle, DataIterCreatorHandle, NDArrayHandle
from ..ndarray.sparse import _ndarray_cls
from .io import DataIter, DataBatch, DataDesc

__all__ = ['MXDataIter']


class MXDataIter(DataIter):
    """A C++ data iterator, as returned by the generated mx.io.<Name> functions.

    The first batch is read at construction to fill provide_data and provide_label."""

    def __init__(self, handle, data_name='data', label_name='softmax_label', **_):
        super(MXDataIter, self).__init__()
        self.handle = handle
        self._debug_skip_load = False
        self._debug_at_begin = True
        self.first_batch = None
        self.first_batch = self.next()
        data = self.first_batch.data[0]
        label = self.first_batch.label[0]
        self.provide_data = [DataDesc(data_name, data.shape, data.dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, label.dtype)]
        self.batch_size = data.shape[0]

    def __del__(self):
        if getattr(self, 'handle', None) is not None and _LIB is not None:
            check_call(_LIB.MXDataIterFree(self.handle))
            self.handle = None

    def debug_skip_load(self):
        """Return the first batch over and over without reading (to time the consumer)."""
        self._debug_skip_load = True
        logging.info('Set debug_skip_load to be true, will simply return first batch')

    def reset(self):
        self._debug_at_begin = True
        self.first_batch = None
        check_call(_LIB.MXDataIterBeforeFirst(self.handle))

    def _current_batch(self):
        return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(),
                         index=self.getindex())

    def next(self):
        if self._debug_skip_load and not self._debug_at_begin:
            return self._current_batch()
        if self.first_batch is not None:
            batch = self.first_batch
            self.first_batch = None
            return batch
        self._debug_at_begin = False
        next_res = ctypes.c_int(0)
        check_call(_LIB.MXDataIterNext(self.handle, ctypes.byref(next_res)))
        if next_res.value:
            return self._current_batch()
        raise StopIteration

    def iter_next(self):
        if self.first_batch is not None:
            return True
        next_res = ctypes.c_int(0)
        check_call(_LIB.MXDataIterNext(self.handle, ctypes.byref(next_res)))
        return bool(next_res.value)

    def getdata(self):
        hdl = NDArrayHandle()
        check_call(_LIB.MXDataIterGetData(self.handle, ctypes.byref(hdl)))
        return _ndarray_cls(hdl)

    def getlabel(self):
        hdl = NDArrayHandle()
        check_call(_LIB.MXDataIterGetLabel(self.handle, ctypes.byref(hdl)))
        return _ndarray_cls(hdl)

    def getindex(self):
        index_data = ctypes.POINTER(ctypes.c_uint64)()
        index_size = ctypes.c_uint64()
        check_call(_LIB.MXDataIterGetIndex(self.handle, ctypes.byref(index_data),
                                           ctypes.byref(index_size)))
        if not index_size.value:
            return None
        return np.ctypeslib.as_array(index_data, shape=(index_size.value,)).copy()

    def getpad(self):
        pad = ctypes.c_int(0)
        check_call(_LIB.MXDataIterGetPadNum(self.handle, ctypes.byref(pad)))
        return pad.value


def _iter_doc(name, desc, arg_names, arg_types, arg_descs):
    lines = [desc, "", "Parameters", "----------"]
    for n, t, d in zip(arg_names, arg_types, arg_descs):
        lines.append("%s : %s" % (n, t))
        if d:
            lines.append("    " + d)
    lines += ["", "Returns", "-------", "MXDataIter", "    The result iterator."]
    return "\n".join(lines)


def _make_io_iterator(handle):
    """The mx.io.<Name> function creating the registered iterator behind creator handle."""
    name = ctypes.c_char_p()
    desc = ctypes.c_char_p()
    num_args = mx_uint()
    arg_names = ctypes.POINTER(ctypes.c_char_p)()
    arg_types = ctypes.POINTER(ctypes.c_char_p)()
    arg_descs = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXDataIterGetIterInfo(
        handle, ctypes.byref(name), ctypes.byref(desc), ctypes.byref(num_args),
        ctypes.byref(arg_names), ctypes.byref(arg_types), ctypes.byref(arg_descs)))
    iter_name = py_str(name.value)
    n = num_args.value
    doc = _iter_doc(iter_name, py_str(desc.value),
                    [py_str(arg_names[i]) for i in range(n)],
                    [py_str(arg_types[i]) for i in range(n)],
                    [py_str(arg_descs[i]) for i in range(n)])

    def creator(*args, **kwargs):
        keys = list(kwargs.keys())
        vals = [str(v) for v in kwargs.values()]
        iter_handle = DataIterHandle()
        check_call(_LIB.MXDataIterCreateIter(handle, mx_uint(len(keys)), c_str_array(keys),
                                             c_str_array(vals), ctypes.byref(iter_handle)))
        if args:
            check_call(_LIB.MXDataIterFree(iter_handle))
            raise TypeError('%s can only accept keyword arguments' % iter_name)
        return MXDataIter(iter_handle, **kwargs)

    creator.__name__ = iter_name
    creator.__qualname__ = iter_name
    creator.__doc__ = doc
    creator.__module__ = 'mxnet.io'
    return creator


def _init_io_module(*modules):
    """Attach a creator function for every registered C++ iterator to the given modules."""
    size = ctypes.c_uint32()
    creators = ctypes.POINTER(DataIterCreatorHandle)()
    check_call(_LIB.MXListDataIters(ctypes.byref(size), ctypes.byref(creators)))
    handles = [creators[i] for i in range(size.value)]
    for hdl in handles:
        func = _make_io_iterator(DataIterCreatorHandle(hdl))
        for module in (sys.modules[__name__],) + modules:
            setattr(module, func.__name__, func)
            if hasattr(module, '__all__') and func.__name__ not in module.__all__:
                module.__all__.append(func.__name__)
