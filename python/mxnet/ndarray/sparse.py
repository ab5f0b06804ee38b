"""mx.nd.sparse: sparse arrays (CSRNDArray, RowSparseNDArray), their creation functions and the
operators that compute on them directly."""
import warnings

import numpy as np

from .. import _ffi
from ..base import MXNetError, numeric_types, integer_types, dtype_flag
from ..context import Context
from .ndarray import NDArray, _ctx_or_default, _STORAGE_TYPE_STR_TO_ID
from .ndarray import array as _array
from .ndarray import zeros as _zeros_ndarray

try:
    import scipy.sparse as spsp
except ImportError:  # pragma: no cover
    spsp = None

__all__ = ["_ndarray_cls", "csr_matrix", "row_sparse_array", "BaseSparseNDArray",
           "CSRNDArray", "RowSparseNDArray", "add", "subtract", "multiply", "divide",
           "zeros", "empty", "array"]

py_slice = slice
mx_real_t = np.float32
# dtypes of the aux arrays (indices, and csr's indptr first), as MXNet stores them
_STORAGE_AUX_TYPES = {"row_sparse": [np.int64], "csr": [np.int64, np.int64]}
_INT64_FLAG = 6

BaseSparseNDArray = _ffi.BaseSparseNDArray
CSRNDArray = _ffi.CSRNDArray
RowSparseNDArray = _ffi.RowSparseNDArray
for _cls in (BaseSparseNDArray, CSRNDArray, RowSparseNDArray):
    _cls.__module__ = "mxnet.ndarray.sparse"

# Filled in by mxnet.ndarray.__init__ once the op functions exist.
_op = None
_internal = None


def _ndarray_cls(handle, writable=True, stype=-1):  # pylint: disable=unused-argument
    """The array of an NDArrayHandle (taking ownership), as the class of its storage type."""
    if hasattr(handle, "value"):
        handle = handle.value or 0
    return _ffi.ndarray_from_handle(int(handle))


def _new_sparse(stype, shape, ctx, dtype, aux_shapes=()):
    ctx = _ctx_or_default(ctx)
    if isinstance(shape, integer_types):
        shape = (shape,)
    flag = dtype_flag(np.dtype(mx_real_t if dtype is None else dtype))
    return _ffi.sparse_empty(_STORAGE_TYPE_STR_TO_ID[stype], [int(s) for s in shape],
                             ctx.device_typeid, ctx.device_id, flag,
                             [_INT64_FLAG] * len(_STORAGE_AUX_TYPES[stype]),
                             [[int(d) for d in s] for s in aux_shapes])


# ----------------------------------------------------------------------------- common methods
def _not_supported(name):
    def f(self, *args, **kwargs):
        raise MXNetError("%s is not supported for %s (storage type %s)"
                         % (name, type(self).__name__, self.stype))
    f.__name__ = name
    return f


def _repr(self):
    shape_info = "x".join("%d" % x for x in self.shape)
    return "\n<%s %s @%s>" % (type(self).__name__, shape_info, self.context)


def _asnumpy(self):
    """A dense numpy copy of the array."""
    return self.tostype("default").asnumpy()


def _astype(self, dtype, copy=True):
    """A copy with elements cast to dtype, in the same storage type."""
    if not copy and np.dtype(dtype) == self.dtype:
        return self
    return self.tostype("default").astype(dtype).tostype(self.stype)


def _copyto(self, other):
    """Copy into other (an NDArray of this storage type or dense, or a Context)."""
    if isinstance(other, Context):
        res = _new_sparse(self.stype, self.shape, other, self.dtype)
        self._copyto(res)
        return res
    if isinstance(other, NDArray):
        if other.stype not in ("default", self.stype):
            raise TypeError("copyto does not support destination NDArray stype " + other.stype)
        if other._chunk_id == self._chunk_id:
            warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
            return False
        if other.dtype != self.dtype:
            self.astype(other.dtype)._copyto(other)
        else:
            self._copyto(other)
        return other
    raise TypeError("copyto does not support type " + str(type(other)))


def _check_format(self, full_check=True):
    """Check that the indices are valid (sorted, in range); raises MXNetError otherwise."""
    self._check_format(bool(full_check))


def _aux_type(self, i):
    return np.dtype(np.int64) if self._aux_type(i) == _INT64_FLAG else np.dtype(np.int32)


def _size(self):
    raise NotImplementedError("size is ambiguous for a sparse array")


def _binary_method(fn):
    def method(self, other):
        return fn(self, other)
    return method


def _rbinary_method(fn):
    def method(self, other):
        return fn(other, self)
    return method


def _inplace_method(fn):
    def method(self, other):
        fn(self, other).copyto(self)
        return self
    return method


def _getstate(self):
    data = self._save_raw_bytes()
    return {"handle": None if data is None else bytearray(data)}


def _reduce(self):
    return type(self), (None,), _getstate(self)


# ----------------------------------------------------------------------------- arithmetic
def _ufunc(lhs, rhs, elemwise_op, broadcast_op, scalar_op, rscalar_op):
    if isinstance(rhs, numeric_types):
        return getattr(_internal, scalar_op)(lhs, scalar=float(rhs))
    if isinstance(lhs, numeric_types):
        return getattr(_internal, rscalar_op)(rhs, scalar=float(lhs))
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        if lhs.shape == rhs.shape:
            return getattr(_op, elemwise_op)(lhs, rhs)
        return getattr(_op, broadcast_op)(lhs, rhs)
    raise TypeError("type %s and %s are not supported" % (type(lhs), type(rhs)))


def add(lhs, rhs):
    """Element-wise sum; sparse when both arrays have the same shape and storage type."""
    return _ufunc(lhs, rhs, "elemwise_add", "broadcast_add", "_plus_scalar", "_plus_scalar")


def subtract(lhs, rhs):
    """Element-wise difference; sparse when both arrays share shape and storage type."""
    return _ufunc(lhs, rhs, "elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar")


def multiply(lhs, rhs):
    """Element-wise product; sparse when either array is sparse and shapes match."""
    return _ufunc(lhs, rhs, "elemwise_mul", "broadcast_mul", "_mul_scalar", "_mul_scalar")


def divide(lhs, rhs):
    """Element-wise quotient."""
    return _ufunc(lhs, rhs, "elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar")


def _tostype(self, stype):
    """A copy in storage type stype ('default' or this array's own)."""
    if stype not in ("default", self.stype):
        raise ValueError("cast_storage from %s to %s is not supported" % (self.stype, stype))
    return _op.cast_storage(self, stype=stype)


def _readonly(name):
    def setter(self, value):
        raise NotImplementedError("%s of a sparse array cannot be set" % name)
    return setter


for _cls in (BaseSparseNDArray,):
    _cls.__repr__ = _repr
    _cls.__str__ = _repr
    _cls.asnumpy = _asnumpy
    _cls.astype = _astype
    _cls.copyto = _copyto
    _cls.check_format = _check_format
    _cls._aux_type_np = _aux_type
    _cls._num_aux = property(lambda self: len(_STORAGE_AUX_TYPES[self.stype]))
    _cls._aux_types = property(lambda self: [_aux_type(self, i) for i in range(self._num_aux)])
    _cls._data = lambda self: self._data_ndarray()
    _cls._aux_data = lambda self, i: self._aux_ndarray(i)
    _cls.size = property(_size)
    _cls.reshape = _not_supported("reshape")
    _cls._at = _not_supported("[idx]")
    _cls._slice = _not_supported("slice")
    _cls._sync_copyfrom = _not_supported("_sync_copyfrom")
    _cls.__add__ = _binary_method(add)
    _cls.__radd__ = _rbinary_method(add)
    _cls.__sub__ = _binary_method(subtract)
    _cls.__rsub__ = _rbinary_method(subtract)
    _cls.__mul__ = _binary_method(multiply)
    _cls.__rmul__ = _rbinary_method(multiply)
    _cls.__truediv__ = _binary_method(divide)
    _cls.__rtruediv__ = _rbinary_method(divide)
    _cls.__div__ = _cls.__truediv__
    _cls.__iadd__ = _inplace_method(add)
    _cls.__isub__ = _inplace_method(subtract)
    _cls.__imul__ = _inplace_method(multiply)
    _cls.__itruediv__ = _inplace_method(divide)
    _cls.__idiv__ = _cls.__itruediv__
    _cls.__reduce__ = _reduce
    _cls.data = property(lambda self: self._data_ndarray(), _readonly("data"),
                         doc="A copy of the stored values (csr) or rows (row_sparse).")
    _cls.tostype = _tostype


# ----------------------------------------------------------------------------- CSRNDArray
def _csr_getitem(self, key):
    """Rows of the matrix as a CSRNDArray: x[i] (one row) or x[begin:end] (step 1)."""
    if isinstance(key, integer_types):
        begin = int(key) + self.shape[0] if key < 0 else int(key)
        if not 0 <= begin < self.shape[0]:
            raise IndexError("index %d is out of bounds for axis 0 with size %d"
                             % (key, self.shape[0]))
        return _op.slice(self, begin=(begin,), end=(begin + 1,))
    if isinstance(key, py_slice):
        if key.step is not None:
            raise ValueError("CSRNDArray only supports continuous slicing on axis 0")
        if key.start is None and key.stop is None:
            return self
        begin, end, _ = key.indices(self.shape[0])
        return _op.slice(self, begin=(begin,), end=(max(begin, end),))
    if isinstance(key, tuple):
        raise ValueError("Multi-dimension indexing is not supported")
    raise ValueError("Undefined behaviour for {}".format(key))


def _sparse_setitem(self, key, value):
    """x[:] = value: value (an NDArray, or a numpy array) copied in; other keys are not
    supported."""
    if not isinstance(key, py_slice):
        raise TypeError("%s only supports [:] for assignment" % type(self).__name__)
    if key.step is not None or key.start is not None or key.stop is not None:
        raise ValueError("Assignment with slice for %s is not implemented yet."
                         % type(self).__name__)
    if isinstance(value, NDArray):
        if value._chunk_id != self._chunk_id:
            value.copyto(self)
    elif isinstance(value, numeric_types):
        if self.stype == "csr":
            raise ValueError("Assigning numeric types to CSRNDArray is not implemented yet.")
        _zeros_ndarray(self.shape, ctx=self.context, dtype=self.dtype).__add__(
            float(value)).copyto(self)
    elif isinstance(value, (np.ndarray, np.generic)):
        warnings.warn("Assigning non-NDArray object to %s is not efficient"
                      % type(self).__name__, RuntimeWarning)
        _array(value, ctx=self.context, dtype=self.dtype).copyto(self)
    else:
        raise TypeError("type %s not supported" % str(type(value)))


def _asscipy(self):
    """The matrix as a scipy.sparse.csr_matrix (a copy)."""
    if spsp is None:
        raise ImportError("scipy could not be imported. Please make sure that the scipy is "
                          "installed.")
    return spsp.csr_matrix((self.data.asnumpy(), self.indices.asnumpy(), self.indptr.asnumpy()),
                           shape=self.shape, dtype=self.dtype)


CSRNDArray.__getitem__ = _csr_getitem
CSRNDArray.__setitem__ = _sparse_setitem
CSRNDArray.indices = property(lambda self: self._aux_ndarray(1), _readonly("indices"),
                              doc="A copy of the column indices (int64).")
CSRNDArray.indptr = property(lambda self: self._aux_ndarray(0), _readonly("indptr"),
                             doc="A copy of the row pointers (int64, rows + 1 entries).")
CSRNDArray.asscipy = _asscipy


# ----------------------------------------------------------------------------- RowSparseNDArray
def _rsp_getitem(self, key):
    """x[:] (the array itself); other keys are not supported."""
    if isinstance(key, integer_types):
        raise Exception("__getitem__ with int key is not implemented for RowSparseNDArray yet")
    if isinstance(key, py_slice):
        if key.step is not None or key.start is not None or key.stop is not None:
            raise Exception("RowSparseNDArray only supports [:] for __getitem__")
        return self
    if isinstance(key, tuple):
        raise ValueError("Multi-dimension indexing is not supported")
    raise ValueError("Undefined behaviour for {}".format(key))


def _retain(self, *args, **kwargs):
    """The rows of this array whose indices are given (mx.nd.sparse.retain)."""
    return _internal._sparse_retain(self, *args, **kwargs)


RowSparseNDArray.__getitem__ = _rsp_getitem
RowSparseNDArray.__setitem__ = _sparse_setitem
RowSparseNDArray.indices = property(lambda self: self._aux_ndarray(0), _readonly("indices"),
                                    doc="A copy of the stored rows' indices (int64).")
RowSparseNDArray.retain = _retain


# ----------------------------------------------------------------------------- creation
def _check_shape(s1, s2):
    if s1 and s2 and tuple(s1) != tuple(s2):
        raise ValueError("Shape mismatch detected. " + str(s1) + " v.s. " + str(s2))


def _default_dtype(src, dtype):
    if dtype is not None:
        return dtype
    if isinstance(src, (NDArray, np.ndarray)):
        return src.dtype
    if spsp is not None and spsp.issparse(src):
        return src.dtype
    return mx_real_t


def _as_ndarray(src, ctx, dtype):
    if isinstance(src, NDArray):
        if src.size == 0:  # (no zero-size cast outside numpy-shape semantics)
            return _array(np.zeros(src.shape, dtype=dtype), ctx=ctx, dtype=dtype)
        return src.as_in_context(ctx).astype(dtype, copy=False)
    try:
        src = np.asarray(src, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError("values must be array like object")
    return _array(src, ctx=ctx, dtype=src.dtype)


def _from_dense(src, shape, ctx, dtype, stype):
    dns = _array(src, dtype=_default_dtype(src, dtype))
    if ctx is not None and dns.context != ctx:
        dns = dns.as_in_context(ctx)
    _check_shape(dns.shape, shape)
    return dns.tostype(stype)


def _from_parts(stype, shape, ctx, dtype, data, aux):
    res = _new_sparse(stype, shape, ctx, dtype, [a.shape for a in aux])
    res._sync_copyfrom_ndarray(data, -1)
    for i, a in enumerate(aux):
        res._sync_copyfrom_ndarray(a, i)
    return res


def _csr_matrix_from_definition(data, indices, indptr, shape=None, ctx=None, dtype=None):
    ctx = _ctx_or_default(ctx)
    dtype = _default_dtype(data, dtype)
    data = _as_ndarray(data, ctx, dtype)
    indptr = _as_ndarray(indptr, ctx, np.int64)
    indices = _as_ndarray(indices, ctx, np.int64)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (len(indptr) - 1, int(indices.asnumpy().max()) + 1)
    if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1 or indptr.shape[0] == 0 \
            or len(shape) != 2:
        raise ValueError("invalid shape")
    return _from_parts("csr", shape, ctx, dtype, data, [indptr, indices])


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray (2-D, compressed sparse row) from: a dense array-like (D), a CSRNDArray or
    scipy csr_matrix (S), a shape (M, N) (empty), (data, indices, indptr), or
    (data, (row, col)) coordinates."""
    if isinstance(arg1, tuple):
        if len(arg1) == 2:
            if isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
                data, (row, col) = arg1
                data, row, col = [a.asnumpy() if isinstance(a, NDArray) else a
                                  for a in (data, row, col)]
                if spsp is None:
                    raise ImportError("scipy could not be imported. Please make sure that the "
                                      "scipy is installed.")
                coo = spsp.coo_matrix((data, (row, col)), shape=shape)
                _check_shape(coo.shape, shape)
                return array(coo.tocsr(), ctx=ctx, dtype=dtype)
            _check_shape(arg1, shape)
            return empty("csr", arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_matrix_from_definition(arg1[0], arg1[1], arg1[2], shape=shape, ctx=ctx,
                                               dtype=dtype)
        raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
    if isinstance(arg1, CSRNDArray) or (spsp is not None and spsp.isspmatrix_csr(arg1)):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        raise ValueError("Unexpected input type: RowSparseNDArray")
    return _from_dense(arg1, shape, ctx, dtype, "csr")


def _row_sparse_ndarray_from_definition(data, indices, shape=None, ctx=None, dtype=None):
    ctx = _ctx_or_default(ctx)
    dtype = _default_dtype(data, dtype)
    data = _as_ndarray(data, ctx, dtype)
    indices = _as_ndarray(indices, ctx, np.int64)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (int(indices.asnumpy().max()) + 1,) + data.shape[1:]
    if data.ndim != len(shape) or indices.ndim != 1 or np.prod(shape[1:]) == 0:
        raise ValueError("invalid shape")
    return _from_parts("row_sparse", shape, ctx, dtype, data, [indices])


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from: a dense array-like (D), a RowSparseNDArray (S), a shape
    (D0, D1, ...) (empty), or (data, indices) where data holds the rows at indices."""
    if isinstance(arg1, tuple):
        if len(arg1) < 2:
            raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
        if len(arg1) > 2 or (isinstance(arg1[0], integer_types)
                             and isinstance(arg1[1], integer_types)):
            _check_shape(arg1, shape)
            return empty("row_sparse", arg1, ctx=ctx, dtype=dtype)
        return _row_sparse_ndarray_from_definition(arg1[0], arg1[1], shape=shape, ctx=ctx,
                                                   dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, CSRNDArray):
        raise ValueError("Unexpected input type: CSRNDArray")
    return _from_dense(arg1, shape, ctx, dtype, "row_sparse")


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An array of zeros of storage type stype ('row_sparse', 'csr' or 'default')."""
    if stype == "default":
        return _zeros_ndarray(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype not in _STORAGE_AUX_TYPES:
        raise ValueError("unknown storage type " + str(stype))
    return _new_sparse(stype, shape, ctx, dtype)


def empty(stype, shape, ctx=None, dtype=None):
    """A sparse array of storage type stype holding no element (all zeros)."""
    if stype not in _STORAGE_AUX_TYPES:
        raise Exception("unknown stype : " + str(stype))
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a RowSparseNDArray, CSRNDArray or scipy.sparse csr_matrix."""
    ctx = _ctx_or_default(ctx)
    if isinstance(source_array, NDArray):
        if source_array.stype == "default":
            raise ValueError("Please use `tostype` to create RowSparseNDArray or CSRNDArray "
                             "from an NDArray")
        dtype = _default_dtype(source_array, dtype)
        arr = empty(source_array.stype, source_array.shape, ctx=ctx, dtype=dtype)
        source_array.copyto(arr)
        return arr
    if spsp is not None and spsp.isspmatrix_csr(source_array):
        csr = source_array.sorted_indices()
        csr.sum_duplicates()
        dtype = _default_dtype(source_array, dtype)
        return csr_matrix((csr.data, csr.indices, csr.indptr), shape=csr.shape, dtype=dtype,
                          ctx=ctx)
    if isinstance(source_array, (np.ndarray, np.generic)):
        raise ValueError("Please use mx.nd.array to create an NDArray with source_array of type ",
                         type(source_array))
    raise ValueError("Unexpected source_array type: ", type(source_array))


# Operators with a sparse name in MXNet 1.9.1 (mx.nd.sparse.<name>): the same functions as
# mx.nd.<name>; retain and adagrad_update exist only here.
_SPARSE_OP_NAMES = [
    "Embedding", "FullyConnected", "abs", "adam_update", "add_n", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctanh", "broadcast_add", "broadcast_div", "broadcast_minus", "broadcast_mul",
    "broadcast_plus", "broadcast_sub", "cast_storage", "cbrt", "ceil", "clip", "concat", "cos",
    "cosh", "degrees", "dot", "elemwise_add", "elemwise_div", "elemwise_mul", "elemwise_sub",
    "exp", "expm1", "fix", "floor", "ftrl_update", "gamma", "gammaln", "log", "log10", "log1p",
    "log2", "make_loss", "mean", "negative", "norm", "radians", "relu", "rint", "round",
    "rsqrt", "sgd_mom_update", "sgd_update", "sigmoid", "sign", "sin", "sinh", "slice", "sqrt",
    "square", "stop_gradient", "sum", "tan", "tanh", "trunc", "where", "zeros_like",
]


def _populate(op_module, internal_module):
    """Attach the op functions once mx.nd's generated functions exist."""
    global _op, _internal  # pylint: disable=global-statement
    _op, _internal = op_module, internal_module
    mod = globals()
    for name in _SPARSE_OP_NAMES:
        if name not in mod and hasattr(op_module, name):
            mod[name] = getattr(op_module, name)
    for name in ("retain", "adagrad_update"):
        if hasattr(internal_module, "_sparse_" + name):
            mod[name] = getattr(internal_module, "_sparse_" + name)
