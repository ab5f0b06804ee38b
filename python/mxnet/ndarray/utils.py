"""mx.nd.save / mx.nd.load in MXNet's binary format (docs/ndarray_format.md)."""
import os

from .. import _ffi
from ..base import string_types
from .ndarray import NDArray


def save(fname, data):
    """Save an NDArray, a list of NDArrays or a dict of str -> NDArray to fname."""
    if isinstance(fname, os.PathLike):
        fname = os.fspath(fname)
    if not isinstance(fname, string_types):
        raise TypeError("fname must be a string")
    if isinstance(data, NDArray):
        arrays, names = [data], []
    elif isinstance(data, dict):
        names, arrays = list(data.keys()), list(data.values())
        if not all(isinstance(k, string_types) for k in names):
            raise TypeError("save only accepts dict str->NDArray")
    elif isinstance(data, (list, tuple)):
        arrays, names = list(data), []
    else:
        raise TypeError("save only accepts dict str->NDArray or list of NDArray")
    if not all(isinstance(a, NDArray) for a in arrays):
        raise TypeError("save only accepts dict str->NDArray or list of NDArray")
    _ffi.save(fname, arrays, names)


def _to_result(arrays, names):
    if not names:
        return list(arrays)
    return dict(zip(names, arrays))


def load(fname):
    """Load a list (no names in the file) or a dict of NDArrays saved by mx.nd.save."""
    if isinstance(fname, os.PathLike):
        fname = os.fspath(fname)
    if not isinstance(fname, string_types):
        raise TypeError("fname required to be a string")
    return _to_result(*_ffi.load(fname))


def load_frombuffer(buf):
    """Load from bytes holding a saved file's contents."""
    if not isinstance(buf, (bytes, bytearray)):
        raise TypeError("buf required to be bytes")
    return _to_result(*_ffi.load_from_bytes(bytes(buf)))
