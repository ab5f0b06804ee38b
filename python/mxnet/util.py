"""mx.util: small utilities (numpy-shape and numpy-array switches, the process environment as
the library sees it, GPU queries)."""
import ctypes
import functools
import inspect
import os
import threading

from . import _ffi
from .base import _LIB, check_call, c_str, py_str, MXNetError

__all__ = ["is_np_shape", "set_np_shape", "np_shape", "use_np_shape", "makedirs",
           "get_gpu_count", "get_gpu_memory", "set_num_omp_threads", "env_var_table",
           "is_np_array", "np_array", "use_np_array", "use_np", "set_np", "reset_np",
           "get_cuda_compute_capability", "getenv", "setenv", "set_module"]


def makedirs(d):
    os.makedirs(d, exist_ok=True)


def get_gpu_count():
    """Number of visible GPUs (0 in a build without CUDA)."""
    return _ffi.gpu_count()


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of GPU gpu_dev_id; raises MXNetError where the GPU is not available."""
    from .context import gpu_memory_info
    return gpu_memory_info(gpu_dev_id)


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
    False (0) turns them off (both the thread's and the global switch); that is refused
    (ValueError) while numpy-array semantics are on, as MXNet 1.9.1 refuses it."""
    if not active and is_np_array():
        raise ValueError("Deactivating NumPy shape semantics while NumPy array semantics is "
                         "still active is not allowed. Please consider calling `npx.reset_np()` "
                         "to deactivate both of them.")
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


# ----------------------------------------------------------------------------- numpy-array
class _NumpyArrayScope:
    """Scope of the numpy-array semantics flag (per thread). Use np_array(active) instead."""
    _current = threading.local()

    def __init__(self, is_np_array):  # pylint: disable=redefined-outer-name
        self._old_scope = None
        self._is_np_array = is_np_array

    def __enter__(self):
        if not hasattr(_NumpyArrayScope._current, "value"):
            _NumpyArrayScope._current.value = _NumpyArrayScope(False)
        self._old_scope = _NumpyArrayScope._current.value
        _NumpyArrayScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_scope
        _NumpyArrayScope._current.value = self._old_scope


def np_array(active=True):
    """A `with` scope in which the numpy-array flag of this thread is `active`."""
    return _NumpyArrayScope(active)


def is_np_array():
    """Whether the numpy-array semantics flag is on in this thread (False by default)."""
    return _NumpyArrayScope._current.value._is_np_array if hasattr(
        _NumpyArrayScope._current, "value") else False


def use_np_array(func):
    """Decorator: run func (or every method and property of a class) inside np_array(True)."""
    if inspect.isclass(func):
        for name, method in inspect.getmembers(
                func, predicate=lambda f: inspect.isfunction(f) or inspect.ismethod(f)
                or isinstance(f, property)):
            if isinstance(method, property):
                setattr(func, name, property(use_np_array(method.__get__), method.__set__,
                                             method.__delattr__, method.__doc__))
            else:
                setattr(func, name, use_np_array(method))
        return func
    if callable(func):
        @functools.wraps(func)
        def _with_np_array(*args, **kwargs):
            with np_array(active=True):
                return func(*args, **kwargs)
        return _with_np_array
    raise TypeError("use_np_array can only decorate classes and callable objects, while "
                    "received a {}".format(str(type(func))))


def use_np(func):
    """Decorator: func (or a class) under both numpy-shape and numpy-array semantics."""
    return use_np_shape(use_np_array(func))


def _set_np_array(active):
    """Set the numpy-array flag of this thread; returns the previous value."""
    cur_state = is_np_array()
    _NumpyArrayScope._current.value = _NumpyArrayScope(active)
    return cur_state


def set_np(shape=True, array=True):
    """Turn numpy-shape and numpy-array semantics on or off together (array needs shape)."""
    if not shape and array:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    _set_np_array(array)
    set_np_shape(shape)


def reset_np():
    """Turn numpy-shape and numpy-array semantics off."""
    set_np(shape=False, array=False)


def set_module(module):
    """Decorator setting a function's or class's __module__ (how it shows in docs)."""
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator


# ----------------------------------------------------------------------------- GPU queries
_CUDA_SUCCESS = 0


def get_cuda_compute_capability(ctx):
    """CUDA compute capability of a GPU context as an int (70 for sm_70).

    Raises ValueError for a context that is not a GPU, and MXNetError when the CUDA driver
    (libcuda) cannot be loaded or does not know the device."""
    if ctx.device_type != "gpu":
        raise ValueError("Expecting a gpu context to get cuda compute capability, while "
                         "received ctx {}".format(str(ctx)))
    for libname in ("libcuda.so", "libcuda.so.1", "libcuda.dylib", "cuda.dll"):
        try:
            cuda = ctypes.CDLL(libname)
            break
        except OSError:
            continue
    else:
        raise MXNetError("get_cuda_compute_capability(%s): the CUDA driver library (libcuda) "
                         "cannot be loaded on this machine" % (ctx,))
    cc_major, cc_minor, device = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()

    def _check(ret, call):
        if ret != _CUDA_SUCCESS:
            error_str = ctypes.c_char_p()
            cuda.cuGetErrorString(ret, ctypes.byref(error_str))
            raise MXNetError("get_cuda_compute_capability(%s): %s failed with error code %d: %s"
                             % (ctx, call, ret, py_str(error_str.value or b"")))

    _check(cuda.cuInit(0), "cuInit")
    _check(cuda.cuDeviceGet(ctypes.byref(device), ctx.device_id), "cuDeviceGet")
    _check(cuda.cuDeviceComputeCapability(ctypes.byref(cc_major), ctypes.byref(cc_minor), device),
           "cuDeviceComputeCapability")
    return cc_major.value * 10 + cc_minor.value


# ----------------------------------------------------------------------------- environment
_LIB.MXGetEnv.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
_LIB.MXSetEnv.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


def getenv(name):
    """The value of environment variable name as the library sees it (None when unset)."""
    ret = ctypes.c_char_p()
    check_call(_LIB.MXGetEnv(c_str(name), ctypes.byref(ret)))
    return None if ret.value is None else py_str(ret.value)


def setenv(name, value):
    """Set (or, with None, unset) environment variable name in the library's process
    environment. Variables the library reads per use (docs/env_var.md) see the new value."""
    passed_value = None if value is None else c_str(value)
    check_call(_LIB.MXSetEnv(c_str(name), passed_value))
