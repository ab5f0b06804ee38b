"""Basic definitions shared by the whole package: the library handle and MXNetError."""
import ctypes
import numbers

import numpy as np

from . import libinfo

_LIB = libinfo.load_lib()
from . import _ffi  # noqa: E402  (needs _LIB loaded first)

MXNetError = _ffi.MXNetError
MXNetError.__module__ = "mxnet.base"
MXNetError.__doc__ = "Error raised by MXNet functions (the C++ message is kept)."

_LIB.MXGetLastError.restype = ctypes.c_char_p
_LIB.MXGetLastError.argtypes = []

# Opaque handles of the C API (c_api.h), for modules that call _LIB through ctypes.
ProfileHandle = ctypes.c_void_p
KVStoreHandle = ctypes.c_void_p


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

string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)
integer_types_ = integer_types
mx_uint = np.uint32
mx_real_t = np.float32

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
