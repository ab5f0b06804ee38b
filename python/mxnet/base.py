"""Basic definitions shared by the whole package: the library handle, MXNetError, the ctypes
helpers of the C API (handles, strings, arrays) and data_dir()."""
import ctypes
import inspect
import logging
import numbers
import os
import platform

import numpy as np

from . import libinfo

__version__ = libinfo.__version__

# An OpenMP thread that sleeps at once after a parallel region takes ~100 us to wake for the
# next one, more than a small operator's whole work; one that spins libgomp's default (~4 ms
# here) takes the cores the Python thread and the engine's workers need. 10000 spins (~0.1 ms)
# keeps a team warm across the regions of one operator and between back-to-back operators
# (docs/perf.md); the engine gives operators fewer threads when others need the cores
# (MXNET_OMP_ADAPTIVE_THREADS). libgomp reads this once, when the library below loads it.
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = "10000"

_LIB = libinfo.load_lib()


def _env_flag(name, default):
    """A bool variable of the registry read before the extension is loaded (docs/env_var.md)."""
    value = os.environ.get(name, "").strip().lower()
    if value in ("1", "true"):
        return True
    if value in ("0", "false"):
        return False
    return default


try:
    from . import _ffi  # noqa: E402  (needs _LIB loaded first)
except ImportError as _err:
    if _env_flag("MXNET_ENFORCE_CYTHON", False):
        raise ImportError("MXNET_ENFORCE_CYTHON=1 and the compiled extension mxnet._ffi cannot "
                          "be loaded: %s" % (_err,)) from _err
    raise
if not _env_flag("MXNET_ENABLE_CYTHON", True):
    logging.warning("MXNET_ENABLE_CYTHON=0 is ignored: mxnet uses its compiled extension "
                    "(mxnet._ffi) always")

MXNetError = _ffi.MXNetError
MXNetError.__module__ = "mxnet.base"
MXNetError.__doc__ = "Error raised by MXNet functions (the C++ message is kept)."

_LIB.MXGetLastError.restype = ctypes.c_char_p
_LIB.MXGetLastError.argtypes = []

# Opaque handles of the C API (c_api.h), for modules that call _LIB through ctypes.
NDArrayHandle = ctypes.c_void_p
FunctionHandle = ctypes.c_void_p
OpHandle = ctypes.c_void_p
CachedOpHandle = ctypes.c_void_p
SymbolHandle = ctypes.c_void_p
ExecutorHandle = ctypes.c_void_p
DataIterCreatorHandle = ctypes.c_void_p
DataIterHandle = ctypes.c_void_p
KVStoreHandle = ctypes.c_void_p
RecordIOHandle = ctypes.c_void_p
RtcHandle = ctypes.c_void_p
CudaModuleHandle = ctypes.c_void_p
CudaKernelHandle = ctypes.c_void_p
ProfileHandle = ctypes.c_void_p
DLPackHandle = ctypes.c_void_p

mx_int = ctypes.c_int
mx_uint = ctypes.c_uint
mx_int64 = ctypes.c_int64
mx_float = ctypes.c_float
mx_float_p = ctypes.POINTER(mx_float)
mx_real_t = np.float32


class MXCallbackList(ctypes.Structure):
    """A list of C callbacks with their contexts (the layout custom operators pass)."""
    _fields_ = [
        ("num_callbacks", ctypes.c_int),
        ("callbacks", ctypes.POINTER(ctypes.CFUNCTYPE(ctypes.c_int))),
        ("contexts", ctypes.POINTER(ctypes.c_void_p)),
    ]


class _NullType:
    """Placeholder for an argument that was not given (distinct from None)."""

    def __repr__(self):
        return "_Null"


_Null = _NullType()


def data_dir_default():
    """The default data folder: %APPDATA%\\mxnet on Windows, ~/.mxnet elsewhere."""
    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA"), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """The folder where downloaded data and models are kept: $MXNET_HOME, else
    data_dir_default()."""
    return os.getenv("MXNET_HOME", data_dir_default())


class _NotAvailableFor(MXNetError):
    """Base of the errors raised when a function does not apply to a kind of object."""
    _what = ""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = function.__name__
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = "Function {}".format(self.function)
        if self.alias:
            msg += ' (namely operator "{}")'.format(self.alias)
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        return msg + self._what


class NotImplementedForSymbol(_NotAvailableFor):
    """Raised by a function that works on NDArrays only when given a Symbol."""
    _what = " is not implemented for Symbol and only available in NDArray."


class NotSupportedForSparseNDArray(_NotAvailableFor):
    """Raised by a function that works on dense NDArrays only when given a sparse one."""
    _what = " is not supported for SparseNDArray and only available in NDArray."


class InvalidConfigError(MXNetError, AssertionError):
    """A bad name or configuration where MXNet 1.9.1 failed an assert (an unregistered
    initializer or metric name, a loaded parameter of the wrong shape): both
    `except MXNetError` and old code's `except AssertionError` catch it."""


def check_call(ret):
    """Raise MXNetError with the library's last error message when a C API call failed.

    ret is the return value of a function of c_api.h: 0 on success, -1 on failure.
    """
    if ret != 0:
        raise MXNetError(py_str(_LIB.MXGetLastError()) or "MXNet C API call failed")


def c_str(string):
    """A Python str as a NUL-terminated UTF-8 C string (ctypes.c_char_p)."""
    return ctypes.c_char_p(string.encode("utf-8"))


def c_str_array(strings):
    """A list of Python str as a C array of char* (const char**)."""
    arr = (ctypes.c_char_p * len(strings))()
    arr[:] = [s.encode("utf-8") for s in strings]
    return arr


def c_array(ctype, values):
    """A ctypes array of ctype holding values: c_array(mx_float, [1, 2, 3])."""
    out = (ctype * len(values))()
    out[:] = values
    return out


def c_array_buf(ctype, buf):
    """A ctypes array of ctype over a writable buffer (array.array, bytearray), without copy."""
    return (ctype * len(buf)).from_buffer(buf)


def c_handle_array(objs):
    """A void** array of the handles of MXNet objects (NDArray, Symbol, ...)."""
    arr = (ctypes.c_void_p * len(objs))()
    arr[:] = [o.handle.value if isinstance(o.handle, ctypes.c_void_p) else o.handle
              for o in objs]
    return arr


def ctypes2buffer(cptr, length):
    """A bytearray copy of length bytes at a ctypes char pointer."""
    if not isinstance(cptr, ctypes.POINTER(ctypes.c_char)):
        raise TypeError("ctypes2buffer: expected a POINTER(c_char), given %s" % type(cptr).__name__)
    res = bytearray(length)
    rptr = (ctypes.c_char * length).from_buffer(res)
    if not ctypes.memmove(rptr, cptr, length):
        raise RuntimeError("ctypes2buffer: memmove failed")
    return res


def ctypes2numpy_shared(cptr, shape):
    """A float32 numpy array of the given shape over the memory of a POINTER(mx_float)."""
    if not isinstance(cptr, ctypes.POINTER(mx_float)):
        raise RuntimeError("ctypes2numpy_shared: expected a POINTER(mx_float), given %s"
                           % type(cptr).__name__)
    size = int(np.prod(shape, dtype=np.int64))
    dbuffer = (mx_float * size).from_address(ctypes.addressof(cptr.contents))
    return np.frombuffer(dbuffer, dtype=np.float32).reshape(shape)


string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)
integer_types_ = integer_types

# The dtype table lives in C++ (src/common/base.cc); these maps are views of it.
_DTYPE_TABLE = _ffi.dtype_table()  # (flag, mxnet name, numpy name, size) rows
_NP_DTYPE_FLAGS = {np.dtype(numpy_name): flag for flag, _, numpy_name, _ in _DTYPE_TABLE}
_FLAG_NP_DTYPES = {v: k.type for k, v in _NP_DTYPE_FLAGS.items()}


def dtype_flag(dtype):
    """Type flag (mshadow numbering) of a numpy dtype, a dtype name or a Python type."""
    try:
        return _NP_DTYPE_FLAGS[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError("dtype %s is not supported; expected one of %s"
                        % (dtype, ", ".join(row[2] for row in _DTYPE_TABLE))) from None


def py_str(x):
    """Decode bytes to str (identity on str)."""
    return x.decode("utf-8") if isinstance(x, bytes) else x


def is_number(x):
    return isinstance(x, numbers.Number) or isinstance(x, np.generic)


class _MXClassPropertyDescriptor:
    """A property on the class itself (Context.default_ctx, NameManager.current)."""

    def __init__(self, fget, fset=None):
        self.fget = fget
        self.fset = fset

    def __get__(self, obj, clas=None):
        if clas is None:
            clas = type(obj)
        return self.fget.__get__(obj, clas)()

    def __set__(self, obj, value):
        if not self.fset:
            raise MXNetError("cannot use the setter: %s to set attribute" % obj.__name__)
        if inspect.isclass(obj):
            type_, obj = obj, None
        else:
            type_ = type(obj)
        return self.fset.__get__(obj, type_)(value)

    def setter(self, func):
        if not isinstance(func, (classmethod, staticmethod)):
            func = classmethod(func)
        self.fset = func
        return self


class _MXClassPropertyMetaClass(type):
    """Metaclass that routes `Cls.prop = value` to a classproperty's setter."""

    def __setattr__(cls, key, value):
        obj = cls.__dict__.get(key)
        if obj is not None and isinstance(obj, _MXClassPropertyDescriptor):
            return obj.__set__(cls, value)
        return super().__setattr__(key, value)


def with_metaclass(meta, *bases):
    """A base class with metaclass meta (Python 2/3 neutral spelling MXNet code uses)."""
    return meta("_with_metaclass_base", bases or (object,), {})


def classproperty(func):
    """Decorator: a read-only property of the class (add a setter with .setter)."""
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _MXClassPropertyDescriptor(func)


def _as_list(obj):
    """obj as a list: a list or tuple unchanged (as list), anything else wrapped."""
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]
