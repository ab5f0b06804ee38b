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
# ctypes.cast(array, NDArrayHandle) (MXNet 1.x monitor callbacks received handles and wrapped
# them with NDArray(handle)): a new handle the receiver owns.
NDArray._as_parameter_ = property(lambda self: ctypes.c_void_p(self._new_handle()))

# MXNet 1.9's ndarray module declared these return types on ctypes.pythonapi, and code that
# hands DLPack capsules to the C API through ctypes relies on it (a pointer as a C int would
# be cut to 32 bits).
ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object

# storage-type codes of MXNet (what __storage_type__ attributes and the C API use)
_STORAGE_TYPE_UNDEFINED = -1
_STORAGE_TYPE_DEFAULT = 0
_STORAGE_TYPE_ROW_SPARSE = 1
_STORAGE_TYPE_CSR = 2
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
py_slice = slice  # MXNet 1.x's name here for the builtin slice (code importing it keeps working)

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
NDArray.stype = property(lambda self: _STORAGE_TYPE_ID_TO_STR[self._stype],
                        doc="Storage type: 'default', 'row_sparse' or 'csr'")
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
    # A sparse stype makes a sparse gradient buffer: backward's results are converted into it.
    # Without one the buffer has the array's own storage type (1.9.1's zeros_like).
    grad = zeros(self.shape, ctx=self.context, dtype=self.dtype,
                 stype=self.stype if stype is None else stype)
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
    """{'handle': the array's raw bytes}, the pickled state MXNet 1.x writes and reads."""
    data = self._save_raw_bytes()
    return {"handle": None if data is None else bytearray(data)}


def _setstate(self, state):
    """Become the array of a pickled state (MXNet 1.x pickles load, also GPU-saved ones)."""
    self._load_raw_bytes(state["handle"])


def _reduce(self):
    return NDArray, (None,), self.__getstate__()


def _get_fresh_grad(self):
    return _ffi.get_grad_state(self)


def _set_fresh_grad(self, state):
    _ffi.set_grad_state(self, bool(state))


NDArray.__getstate__ = _getstate
NDArray.__setstate__ = _setstate
NDArray.__reduce__ = _reduce
NDArray._fresh_grad = property(
    _get_fresh_grad, _set_fresh_grad,
    doc="Whether backward wrote this variable's gradient since the flag was last cleared")
NDArray.__abs__ = lambda self: self.abs()
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


def _tostype(self, stype):
    """A copy of the array in storage type stype ('default', 'row_sparse' or 'csr')."""
    if stype not in ("default", "row_sparse", "csr"):
        raise ValueError("tostype: unknown storage type %r" % (stype,))
    if stype == "csr" and self.ndim != 2:
        raise ValueError("tostype: a csr array is 2-D, given an array of shape %s"
                         % (self.shape,))
    return _op.cast_storage(self, stype=stype)


NDArray.tostype = _tostype


def _reshape_like(self, *args, **kwargs):
    return _op.reshape_like(self, *args, **kwargs)


NDArray.reshape_like = _reshape_like

# Fluent methods: a.op(...) == mx.nd.op(a, ...) (out= included). With flatten, expand_dims,
# squeeze, broadcast_to, reshape(_like) and slice_assign(_scalar), defined apart below, this is
# exactly the list of MXNet 1.9's NDArray.
_FLUENT = [
    "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad", "swapaxes", "split",
    "split_v2", "slice", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort",
    "topk", "argsort", "argmax", "argmax_channel", "argmin", "clip", "abs", "sign",
    "shape_array", "size_array", "tile", "transpose", "flip",
    "depth_to_space", "space_to_depth", "diag", "sum", "nansum", "prod", "nanprod", "mean",
    "max", "min", "norm", "round", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos",
    "tan", "arcsin", "arccos", "arctan", "degrees", "radians", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log", "log10", "log2", "log1p",
    "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "reciprocal", "relu", "sigmoid", "softmax",
    "log_softmax", "softmin", "broadcast_like",
]


def _make_fluent(name):
    def method(self, *args, **kwargs):
        return getattr(_op, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = "Convenience fluent method for :py:func:`%s` with this array as data." % name
    return method


def _install_fluent():
    for name in _FLUENT:
        if not hasattr(NDArray, name):
            setattr(NDArray, name, _make_fluent(name))


# flatten, expand_dims and squeeze: inplace=True returns a view (sharing memory) shaped as the
# op's own shape rule says, instead of a copy.
def _flatten(self, inplace=False):
    """Flatten to 2-D (first axis kept); inplace=True returns a view sharing memory."""
    return _op.flatten(self) if not inplace else self.reshape((0, -1))


def _view_shaped_like_op(self, op_name, **kwargs):
    shape, = _ffi.infer_shape(op_name, [self.shape], kwargs)
    return self.reshape(shape)


def _expand_dims(self, axis, inplace=False):
    """Insert a size-1 axis at axis; inplace=True returns a view sharing memory."""
    if not inplace:
        return _op.expand_dims(self, axis=axis)
    return _view_shaped_like_op(self, "expand_dims", axis=axis)


def _squeeze(self, axis=None, inplace=False):
    """Remove size-1 axes (all, or those in axis); inplace=True returns a view sharing memory."""
    if not inplace:
        return _op.squeeze(self, axis=axis)
    return _view_shaped_like_op(self, "squeeze", axis=axis)


def _slice_assign_scalar(self, value, begin, end, step):
    """Set self[begin:end:step] = value (a scalar) in place; returns self."""
    return _internal._slice_assign_scalar(self, scalar=value, begin=begin, end=end, step=step,
                                          out=self)


def _slice_assign(self, rhs, begin, end, step):
    """Set self[begin:end:step] = rhs (an NDArray of the sliced shape) in place; returns self."""
    return _internal._slice_assign(self, rhs, begin=begin, end=end, step=step, out=self)


def _broadcast_to(self, shape):
    """A copy broadcast to shape; missing leading axes count as size 1 (numpy's rule)."""
    shape = tuple(int(d) for d in shape)
    cur = self.shape
    err = ("operands could not be broadcast together with remapped shapes "
           "[original->remapped]: %s and requested shape %s" % (cur, shape))
    if len(shape) < len(cur):
        raise ValueError(err)
    padded = (1,) * (len(shape) - len(cur)) + cur
    if any(c != s and c != 1 for c, s in zip(padded, shape)):
        raise ValueError(err)
    src = self.reshape(padded) if padded != cur else self
    return _op.broadcast_to(src, shape=shape)


NDArray.broadcast_to = _broadcast_to
NDArray.flatten = _flatten
NDArray.expand_dims = _expand_dims
NDArray.squeeze = _squeeze
NDArray.slice_assign_scalar = _slice_assign_scalar
NDArray.slice_assign = _slice_assign


# ----------------------------------------------------------------------------- creation
def array(source_array, ctx=None, dtype=None):
    """Create an NDArray from any object numpy can turn into an array (or an NDArray); a
    sparse NDArray or a scipy.sparse csr_matrix gives a sparse array."""
    if _is_sparse_source(source_array):
        from . import sparse
        return sparse.array(source_array, ctx=ctx, dtype=dtype)
    if isinstance(source_array, NDArray):
        dt = source_array.dtype if dtype is None else dtype
        return source_array.as_in_context(_ctx_or_default(ctx)).astype(dt)
    # As MXNet 1.x: float32 unless dtype is given, even for numpy sources.
    np_arr = np.asarray(source_array, dtype=np.float32 if dtype is None else dtype)
    ctx = _ctx_or_default(ctx)
    return _ffi.array_from_numpy(np_arr, ctx.device_typeid, ctx.device_id, dtype_flag(np_arr.dtype))


def _is_sparse_source(src):
    if isinstance(src, NDArray):
        return src._stype > 0
    return type(src).__module__.startswith("scipy.sparse") and getattr(src, "format", "") == "csr"


def empty(shape, ctx=None, dtype=None, stype=None):
    """An uninitialised array (stype 'row_sparse' or 'csr': a sparse array of zeros)."""
    if stype not in (None, "default"):
        from . import sparse
        return sparse.empty(stype, shape, ctx=ctx, dtype=dtype)
    return _new_empty(shape, ctx, dtype)


def _shape_tuple(shape):
    return (int(shape),) if isinstance(shape, integer_types) else tuple(int(s) for s in shape)


def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of zeros; stype 'row_sparse' or 'csr' gives a sparse array (no stored
    element)."""
    if stype not in (None, "default"):
        from . import sparse
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype, **kwargs)
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


def _normalize_axes(axes, ndim, what):
    axes = [axes] if isinstance(axes, integer_types) else list(axes)
    out = []
    for a in axes:
        if not isinstance(a, integer_types) or not -ndim <= a < ndim:
            raise ValueError("moveaxis: %s axis %r is out of bounds for an array of dimension %d"
                             % (what, a, ndim))
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError("moveaxis: repeated axis in `%s` argument" % what)
    return out


def _moveaxis_order(ndim, source, destination):
    """The transpose order that moves axes source to positions destination (the others keep
    their order)."""
    src = _normalize_axes(source, ndim, "source")
    dst = _normalize_axes(destination, ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: `source` and `destination` arguments must have the same "
                         "number of elements")
    order = [n for n in range(ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return tuple(order)


def moveaxis(tensor, source, destination):
    """Move axes (an int or a list of ints) of an array to new positions; the others keep
    their order."""
    return _op.transpose(tensor, axes=_moveaxis_order(tensor.ndim, source, destination))


def histogram(a, bins=10, range=None):  # pylint: disable=redefined-builtin
    """Histogram of a (numpy.histogram): bins an NDArray of edges, or a count with range
    (lo, hi); without a range the counts come from numpy, as in MXNet 1.9.1.
    Returns (counts, bin_edges)."""
    if isinstance(bins, NDArray):
        return _internal._histogram(data=a, bins=bins)
    if isinstance(bins, integer_types):
        if range is None:
            import warnings
            warnings.warn("range is not specified, using numpy's result to ensure consistency "
                          "with numpy")
            res, bin_bounds = np.histogram(a.asnumpy(), bins=bins)
            return array(res), array(bin_bounds)
        return _internal._histogram(data=a, bin_cnt=bins, range=range)
    raise ValueError("bins argument should be either an integer or an NDArray")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ary along axis into equal sections (an int) or at the given indices (a tuple),
    as numpy.split; a list of arrays (one array when there is a single section)."""
    n = ary.shape[axis]
    if isinstance(indices_or_sections, integer_types):
        sections = int(indices_or_sections)
        if sections <= 0 or n % sections:
            raise ValueError("array split does not result in an equal division")
        cuts = [i * (n // sections) for i in range(sections)] + [n]
    elif isinstance(indices_or_sections, tuple):
        cuts = [0] + [int(i) for i in indices_or_sections] + [n]
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    outs = []
    for begin, end in zip(cuts[:-1], cuts[1:]):
        part = _op.slice_axis(ary, axis=axis, begin=begin, end=end)
        outs.append(part.squeeze(axis=axis) if squeeze_axis else part)
    return outs[0] if len(outs) == 1 else outs


def onehot_encode(indices, out):
    """One-hot encode indices (one per row of out) into the 2-D array out; returns out."""
    return _internal._onehot_encode(indices, out, out=out)


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
    1.9.1), so the two cannot silently diverge through numpy writes: write through the NDArray."""
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags["C_CONTIGUOUS"]:
        raise ValueError("from_numpy: zero_copy needs a C-contiguous array; use "
                         "numpy.ascontiguousarray or zero_copy=False")
    if not ndarray.flags["WRITEABLE"]:
        # numpy exports DLPack only from writeable arrays; an array this function already
        # locked can be unlocked for the export (a truly read-only buffer raises ValueError).
        ndarray.flags["WRITEABLE"] = True
    try:
        out = from_dlpack(ndarray.__dlpack__())
    finally:
        ndarray.flags["WRITEABLE"] = False
    return out
