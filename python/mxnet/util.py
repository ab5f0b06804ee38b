"""mx.util: small utilities (numpy-shape switches, environment helpers)."""
import functools
import os

from . import _ffi

__all__ = ["is_np_shape", "set_np_shape", "np_shape", "use_np_shape", "makedirs",
           "get_gpu_count", "set_num_omp_threads", "env_var_table"]


def makedirs(d):
    os.makedirs(d, exist_ok=True)


def get_gpu_count():
    return _ffi.gpu_count()


def set_num_omp_threads(num_threads):
    """Number of OpenMP threads operator kernels use in this process."""
    _ffi.set_omp_threads(int(num_threads))


def is_np_shape():
    """numpy-shape semantics are not supported yet: always False."""
    return False


def set_np_shape(active):
    if active:
        from .base import MXNetError
        raise MXNetError("numpy-shape semantics (mx.npx.set_np) are not supported yet")
    return False


class _NumpyShapeScope:
    def __init__(self, is_np_shape):  # pylint: disable=redefined-outer-name
        self._active = is_np_shape

    def __enter__(self):
        set_np_shape(self._active)
        return self

    def __exit__(self, ptype, value, trace):
        pass


def np_shape(active=True):
    return _NumpyShapeScope(active)


def use_np_shape(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with np_shape(True):
            return func(*args, **kwargs)
    return wrapper


def env_var_table():
    """Every environment variable the library reads: (name, type, default, choices, doc)."""
    return _ffi.env_vars()
