"""mx.util: small utilities (numpy-shape switches, environment helpers)."""
import functools
import inspect
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
    """Whether numpy-shape semantics are on for this thread: ``()`` is a scalar shape and a dim
    of 0 a zero extent (``(0, 3)`` is zero-size). Off (the default), a 0 dim means "unknown",
    so operators reject zero-size shapes. -1 is an unknown dim either way."""
    return bool(_ffi.is_np_shape())


def set_np_shape(active):
    """Turn numpy-shape semantics on or off; returns whether they were on before.

    ``active`` True (or 1) turns them on for the calling thread, 2 for every thread, and
    False (0) turns them off (both the thread's and the global switch)."""
    return bool(_ffi.set_np_shape(int(active)))


class _NumpyShapeScope:
    """``with`` scope that sets numpy-shape semantics and restores them on exit; use
    :func:`np_shape`. ``None`` leaves the state unchanged."""

    def __init__(self, is_np_shape):  # pylint: disable=redefined-outer-name
        self._enter_is_np_shape = is_np_shape
        self._prev_is_np_shape = None

    def __enter__(self):
        if self._enter_is_np_shape is not None:
            self._prev_is_np_shape = set_np_shape(self._enter_is_np_shape)
        return self

    def __exit__(self, ptype, value, trace):
        if self._enter_is_np_shape is not None and \
                self._prev_is_np_shape != self._enter_is_np_shape:
            set_np_shape(self._prev_is_np_shape)


def np_shape(active=True):
    """A scope with numpy-shape semantics on (or off with ``active=False``)::

        with mx.np_shape():
            mx.nd.zeros((0, 3))
    """
    return _NumpyShapeScope(active)


def use_np_shape(func):
    """Decorator running ``func`` (a function, or every callable of a class) with numpy-shape
    semantics on."""
    if inspect.isclass(func):
        for name, method in inspect.getmembers(
                func, lambda f: inspect.isfunction(f) or inspect.ismethod(f)):
            setattr(func, name, use_np_shape(method))
        return func
    if not callable(func):
        raise TypeError("use_np_shape can only decorate classes and callable objects, given %s"
                        % type(func))

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with np_shape(True):
            return func(*args, **kwargs)
    return wrapper


def env_var_table():
    """Every environment variable the library reads: (name, type, default, choices, doc)."""
    return _ffi.env_vars()
