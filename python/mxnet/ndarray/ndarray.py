"""NDArray: the Python face of the C++ array (methods, creation functions, arithmetic)."""
import ctypes

import numpy as np

from .. import _ffi
from ..base import MXNetError, dtype_flag, _FLAG_NP_DTYPES, numeric_types, integer_types
from ..context import Context, current_context, _ctx_from_tuple

NDArray = _ffi.NDArray
NDArray.__module__ = "mxnet.ndarray"
NDArray.__qualname__ = "NDArray"

_ffi_ndarray_init = NDArray.__init__


def _ndarray_init(self, handle, writable=True):  # pylint: disable=unused-argument
    """NDArray(handle): take ownership of an NDArrayHandle made by the C API (an int or a
    ctypes.c_void_p, as MXNet's ctypes code passes); the caller must not free it after."""
    if isinstance(handle, ctypes.c_void_p):
        handle = handle.value or 0
    _ffi_ndarray_init(self, handle)


NDArray.__init__ = _ndarray_init

# MXNet 1.9's ndarray module declared these return types on ctypes.pythonapi, and code that
# hands DLPack capsules to the C API through ctypes relies on it (a pointer as a C int would
# be cut to 32 bits).
ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object

_STORAGE_TYPE_STR = "default"

# Filled in by mxnet.ndarray.__init__ once the op functions exist.
_op = None
_internal = None


def _ctx_or_default(ctx):
    if ctx is None:
        return current_context()
    if isinstance(ctx, str):
        dev, _, rest = ctx.partition("(")
        return Context(dev, int(rest.rstrip(")") or 0))
    return ctx


def _new_empty(shape, ctx=None, dtype=None):
    ctx = _ctx_or_default(ctx)
    if isinstance(shape, integer_types):
        shape = (int(shape),)
    return _ffi.empty(tuple(int(s) for s in shape), ctx.device_typeid, ctx.device_id,
                      dtype_flag(np.float32 if dtype is None else dtype))


# ----------------------------------------------------------------------------- properties
def _dtype(self):
    return _FLAG_NP_DTYPES[self._dtype_flag]


def _context(self):
    return _ctx_from_tuple(self._ctx)


def _grad(self):
    return self._grad()


NDArray.dtype = property(_dtype, doc="numpy type of the elements")
NDArray.context = property(_context, doc="Device of the array")
NDArray.ctx = NDArray.context
NDArray.stype = property(lambda self: _STORAGE_TYPE_STR, doc="Storage type ('default')")
NDArray.grad = property(lambda self: NDArray._grad(self), doc="Gradient buffer (attach_grad)")
NDArray.T = property(lambda self: _op.transpose(self), doc="Transpose (reverses the axes)")
NDArray.__array_priority__ = 1000.0


# ----------------------------------------------------------------------------- basics
def _repr(self):
    shape_info = "x".join(str(x) for x in self.shape)
    return "\n%s\n<%s %s @%s>" % (str(self.asnumpy()), self.__class__.__name__, shape_info,
                                  self.context)


def _asscalar(self):
    if self.size != 1:
        raise ValueError("The current array is not a scalar")
    return self.asnumpy().reshape(-1)[0]


def _len(self):
    if self.ndim == 0:
        raise TypeError("len() of a 0-d NDArray")
    return self.shape[0]


def _iter(self):
    for i in range(len(self)):
        yield self[i]


def _bool(self):
    n = self.size
    if n == 0:
        return False
    if n == 1:
        return bool(self.asscalar())
    raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")


def _copy(self):
    return self.copyto(self.context)


def _copyto(self, other):
    if isinstance(other, NDArray):
        if other._chunk_id == self._chunk_id and other._byte_offset == self._byte_offset:
            return other
        self._copyto(other)
        return other
    if isinstance(other, Context):
        return self._copy_to_ctx(other.device_typeid, other.device_id)
    raise TypeError("copyto does not support type %s" % type(other))


def _as_in_context(self, context):
    if self.context == context:
        return self
    return self.copyto(context)


def _astype(self, dtype, copy=True):
    if not copy and np.dtype(dtype) == np.dtype(self.dtype):
        return self
    return _op.cast(self, dtype=np.dtype(dtype).name)


def _reshape(self, *shape, **kwargs):
    """A view in the new shape (MXNet's reshape rule, applied in C++; recorded for autograd)."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    elif not shape:
        shape = kwargs.get("shape")
        if shape is None:
            raise TypeError("reshape() takes a shape")
        if isinstance(shape, (int, np.integer)):
            shape = (shape,)
    unknown = [k for k in kwargs if k not in ("shape", "reverse")]
    if unknown:
        raise TypeError("Got unknown keywords in reshape: %s. Accepted keyword arguments are "
                        "'shape' and 'reverse'." % ", ".join(unknown))
    return self._reshape_with_record([int(s) for s in shape], bool(kwargs.get("reverse", False)))


def _attach_grad(self, grad_req="write", stype=None):
    reqs = {"null": 0, "write": 1, "add": 3}
    if grad_req not in reqs:
        raise ValueError("grad_req must be one of 'null', 'write', 'add', given %r" % (grad_req,))
    grad = zeros(self.shape, ctx=self.context, dtype=self.dtype)
    _ffi.mark_variables([self], [reqs[grad_req]], [grad])


def _backward(self, out_grad=None, retain_graph=False, train_mode=True):
    _ffi.backward([self], [out_grad], [], retain_graph, False, train_mode)


def _detach(self):
    return self._detach()


def _hash(self):
    return id(self) // 16


def _array(self, dtype=None):
    a = self.asnumpy()
    return a if dtype is None else a.astype(dtype)


def _to_scalar(cast):
    def f(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return cast(self.asscalar())
    return f


def _getstate(self):
    return {"handle": _ffi.save_to_bytes([self], [])}


def _setstate(self, state):
    raise MXNetError("unpickling NDArray in place is not supported; use mx.nd.load")


NDArray.__repr__ = _repr
NDArray.__str__ = _repr
NDArray.__len__ = _len
NDArray.__iter__ = _iter
NDArray.__bool__ = _bool
NDArray.__hash__ = _hash
NDArray.__array__ = _array
NDArray.__float__ = _to_scalar(float)
NDArray.__int__ = _to_scalar(int)
NDArray.__index__ = _to_scalar(int)
NDArray.asscalar = _asscalar
NDArray.copy = _copy
NDArray.copyto = _copyto
NDArray.as_in_context = _as_in_context
NDArray.as_in_ctx = _as_in_context
NDArray.astype = _astype
NDArray.reshape = _reshape
NDArray.attach_grad = _attach_grad
NDArray.backward = _backward
NDArray.detach = _detach
NDArray.tostype = lambda self, stype: self if stype == "default" else (_ for _ in ()).throw(
    MXNetError("sparse storage type %r is not supported" % stype))


def _reshape_like(self, *args, **kwargs):
    return _op.reshape_like(self, *args, **kwargs)


NDArray.reshape_like = _reshape_like

# Fluent methods: a.op(...) == mx.nd.op(a, ...), as MXNet 1.9 defines them.
_FLUENT = [
    "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad", "swapaxes", "split",
    "split_v2", "slice", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort",
    "topk", "argsort", "argmax", "argmax_channel", "argmin", "clip", "abs", "sign",
    "flatten", "shape_array", "size_array", "expand_dims", "tile", "transpose", "flip",
    "depth_to_space", "space_to_depth", "diag", "sum", "nansum", "prod", "nanprod", "mean",
    "max", "min", "norm", "round", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos",
    "tan", "arcsin", "arccos", "arctan", "degrees", "radians", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log", "log10", "log2", "log1p",
    "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "reciprocal", "relu", "sigmoid", "softmax",
    "log_softmax", "softmin", "squeeze", "broadcast_to", "broadcast_like", "erf", "erfinv",
    "gamma", "gammaln", "logical_not",
]


def _make_fluent(name):
    def method(self, *args, **kwargs):
        return getattr(_op, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


def _install_fluent():
    for name in _FLUENT:
        if hasattr(_op, name) and not hasattr(NDArray, name):
            setattr(NDArray, name, _make_fluent(name))


# ----------------------------------------------------------------------------- creation
def array(source_array, ctx=None, dtype=None):
    """Create an NDArray from any object numpy can turn into an array (or an NDArray)."""
    if isinstance(source_array, NDArray):
        dt = source_array.dtype if dtype is None else dtype
        return source_array.as_in_context(_ctx_or_default(ctx)).astype(dt)
    # As MXNet 1.x: float32 unless dtype is given, even for numpy sources.
    np_arr = np.asarray(source_array, dtype=np.float32 if dtype is None else dtype)
    ctx = _ctx_or_default(ctx)
    return _ffi.array_from_numpy(np_arr, ctx.device_typeid, ctx.device_id, dtype_flag(np_arr.dtype))


def empty(shape, ctx=None, dtype=None):
    """An uninitialised array."""
    return _new_empty(shape, ctx, dtype)


def _shape_tuple(shape):
    return (int(shape),) if isinstance(shape, integer_types) else tuple(int(s) for s in shape)


def zeros(shape, ctx=None, dtype=None, **kwargs):
    """An array of zeros."""
    return _internal._zeros(shape=_shape_tuple(shape), ctx=_ctx_or_default(ctx),
                            dtype=np.dtype(dtype or np.float32).name, **kwargs)


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones."""
    return _internal._ones(shape=_shape_tuple(shape), ctx=_ctx_or_default(ctx),
                           dtype=np.dtype(dtype or np.float32).name, **kwargs)


def full(shape, val, ctx=None, dtype=np.float32, out=None):
    """An array filled with val."""
    return _internal._full(shape=_shape_tuple(shape), ctx=_ctx_or_default(ctx),
                           dtype=np.dtype(dtype).name, value=float(val), out=out)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=np.float32):
    """Evenly spaced values in [start, stop)."""
    return _internal._arange(start=start, stop=stop, step=step, repeat=repeat,
                             infer_range=False, ctx=_ctx_or_default(ctx),
                             dtype=np.dtype(dtype).name)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """A 2-D array with ones on the k-th diagonal."""
    return _internal._eye(N=N, M=M, k=k, ctx=_ctx_or_default(ctx),
                          dtype=np.dtype(dtype or np.float32).name, **kwargs)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """num evenly spaced values over [start, stop]."""
    return _internal._linspace(start=start, stop=stop, num=num, endpoint=endpoint,
                               ctx=_ctx_or_default(ctx), dtype=np.dtype(dtype).name)


def waitall():
    """Block until every pushed operation has finished; raises the first deferred error."""
    _ffi.waitall()


def concatenate(arrays, axis=0, always_copy=True):
    """Join arrays along an existing axis."""
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    return _op.concat(*arrays, dim=axis)


def moveaxis(tensor, source, destination):
    axes = list(range(tensor.ndim))
    src = source % tensor.ndim
    dst = destination % tensor.ndim
    axes.pop(src)
    axes.insert(dst, src)
    return _op.transpose(tensor, axes=tuple(axes))


# ----------------------------------------------------------------------------- arithmetic
def _ufunc(lhs, rhs, array_op, scalar_op, rscalar_op, py_op):
    if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return py_op(lhs, rhs)
    if isinstance(rhs, numeric_types):
        return _ffi.invoke_scalar(scalar_op, lhs, float(rhs), isinstance(rhs, integer_types))
    if isinstance(lhs, numeric_types):
        return _ffi.invoke_scalar(rscalar_op, rhs, float(lhs), isinstance(lhs, integer_types))
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return getattr(_op, array_op)(lhs, rhs)
    raise TypeError("type %s and %s are not supported" % (type(lhs), type(rhs)))


def _binary(name, array_op, scalar_op, rscalar_op, py_op):
    def f(lhs, rhs):
        return _ufunc(lhs, rhs, array_op, scalar_op, rscalar_op, py_op)
    f.__name__ = name
    f.__doc__ = "Element-wise %s of arrays/scalars with broadcasting." % name
    return f


import operator as _operator  # noqa: E402

add = _binary("add", "broadcast_add", "_plus_scalar", "_plus_scalar", _operator.add)
subtract = _binary("subtract", "broadcast_sub", "_minus_scalar", "_rminus_scalar", _operator.sub)
multiply = _binary("multiply", "broadcast_mul", "_mul_scalar", "_mul_scalar", _operator.mul)
divide = _binary("divide", "broadcast_div", "_div_scalar", "_rdiv_scalar", _operator.truediv)
true_divide = divide
modulo = _binary("modulo", "broadcast_mod", "_mod_scalar", "_rmod_scalar", _operator.mod)
power = _binary("power", "broadcast_power", "_power_scalar", "_rpower_scalar", _operator.pow)
maximum = _binary("maximum", "broadcast_maximum", "_maximum_scalar", "_maximum_scalar", max)
minimum = _binary("minimum", "broadcast_minimum", "_minimum_scalar", "_minimum_scalar", min)
equal = _binary("equal", "broadcast_equal", "_equal_scalar", "_equal_scalar",
                lambda a, b: float(a == b))
not_equal = _binary("not_equal", "broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar",
                    lambda a, b: float(a != b))
greater = _binary("greater", "broadcast_greater", "_greater_scalar", "_lesser_scalar",
                  lambda a, b: float(a > b))
greater_equal = _binary("greater_equal", "broadcast_greater_equal", "_greater_equal_scalar",
                        "_lesser_equal_scalar", lambda a, b: float(a >= b))
lesser = _binary("lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar",
                 lambda a, b: float(a < b))
lesser_equal = _binary("lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar",
                       "_greater_equal_scalar", lambda a, b: float(a <= b))
logical_and = _binary("logical_and", "broadcast_logical_and", "_logical_and_scalar",
                      "_logical_and_scalar", lambda a, b: float(bool(a) and bool(b)))
logical_or = _binary("logical_or", "broadcast_logical_or", "_logical_or_scalar",
                     "_logical_or_scalar", lambda a, b: float(bool(a) or bool(b)))
logical_xor = _binary("logical_xor", "broadcast_logical_xor", "_logical_xor_scalar",
                      "_logical_xor_scalar", lambda a, b: float(bool(a) != bool(b)))
hypot = _binary("hypot", "broadcast_hypot", "_hypot_scalar", "_hypot_scalar",
                lambda a, b: float(np.hypot(a, b)))


# ----------------------------------------------------------------------------- DLPack
def to_dlpack_for_read(data):
    """A DLPack capsule of data for reading (waits for pending writes)."""
    return data.to_dlpack_for_read()


def to_dlpack_for_write(data):
    """A DLPack capsule of data for writing (waits for pending reads and writes)."""
    return data.to_dlpack_for_write()


def from_dlpack(dlpack):
    """An NDArray sharing memory with a DLPack capsule (or any object with __dlpack__)."""
    if hasattr(dlpack, "__dlpack__"):
        dlpack = dlpack.__dlpack__()
    return _ffi.from_dlpack(dlpack)


def from_numpy(ndarray, zero_copy=True):
    """An NDArray from a numpy array: a copy, or with zero_copy (a C-contiguous array only,
    else ValueError) its memory shared. A shared numpy array becomes read-only (as in MXNet
    1.9.1): write through the NDArray."""
    if zero_copy:
        if not ndarray.flags["C_CONTIGUOUS"]:
            raise ValueError("from_numpy: zero_copy needs a C-contiguous array; use "
                             "numpy.ascontiguousarray or zero_copy=False")
        if not ndarray.flags["WRITEABLE"]:
            # numpy exports only writable memory; MXNet 1.9.1 shares read-only arrays too
            # (e.g. one shared before). Raises ValueError when numpy cannot allow it.
            ndarray.flags["WRITEABLE"] = True
        out = from_dlpack(ndarray.__dlpack__())
        ndarray.flags["WRITEABLE"] = False
        return out
    return array(ndarray, dtype=ndarray.dtype)
