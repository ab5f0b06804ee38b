"""mx.npx.save / load: mx.np arrays in MXNet's .npz-free NDArray file format (the format
mx.nd.save writes), as MXNet 1.9.1."""
from ..util import is_np_shape, is_np_array
from ..numpy.multiarray import ndarray, _wrap
from ..ndarray import utils as _nd_utils

__all__ = ["save", "load"]


def _check_np(what):
    if not (is_np_shape() and is_np_array()):
        raise ValueError("Cannot %s `mxnet.numpy.ndarray` in legacy mode. Please activate numpy "
                         "semantics by calling `npx.set_np()` in the global scope before calling "
                         "this function." % what)


def save(file, arr):  # pylint: disable=redefined-builtin
    """Save an mx.np array, a list of them or a dict str -> array to file."""
    _check_np("save")
    if isinstance(arr, ndarray):
        arr = [arr]
    if isinstance(arr, dict):
        if any(not isinstance(k, str) for k in arr) or \
                any(not isinstance(v, ndarray) for v in arr.values()):
            raise TypeError("Only accepts dict str->ndarray or list of ndarrays")
    elif isinstance(arr, list):
        if any(not isinstance(v, ndarray) for v in arr):
            raise TypeError("Only accepts dict str->ndarray or list of ndarrays")
    else:
        raise ValueError("data needs to either be a ndarray, dict of (str, ndarray) pairs or a "
                         "list of ndarrays.")
    _nd_utils.save(file, arr)


def load(file):  # pylint: disable=redefined-builtin
    """The list (or dict) of mx.np arrays saved in file."""
    _check_np("load")
    if not isinstance(file, str):
        raise TypeError("file required to be a string")
    res = _nd_utils.load(file)
    if isinstance(res, dict):
        return {k: _wrap(v) for k, v in res.items()}
    return [_wrap(v) for v in res]
