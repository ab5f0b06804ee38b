"""mx.np.ndarray: the numpy-semantics array (a subclass of NDArray sharing its C++ array) and
the helpers every mx.np function uses to run an operator with numpy shape semantics on and
hand back mx.np arrays."""
import numpy as _np

from .. import _ffi
from ..base import MXNetError, numeric_types, integer_types, dtype_flag, _FLAG_NP_DTYPES
from ..context import current_context
from ..ndarray import ndarray as _nd_mod
from ..ndarray import indexing as _nd_indexing

NDArray = _nd_mod.NDArray

__all__ = ["ndarray"]


class OperatorValueError(MXNetError, ValueError):
    """A bad argument found before an operator runs: an MXNetError (as the operator would
    raise in MXNet 1.9.1) that is also a ValueError (as numpy raises)."""


# ----------------------------------------------------------------------------- op plumbing
def _wrap(out):
    """out (an NDArray, or a list/tuple of them) as mx.np.ndarray(s) sharing the same data;
    sparse arrays and non-arrays pass through."""
    if isinstance(out, ndarray):
        return out
    if isinstance(out, NDArray):
        if out._stype != 0:
            return out
        return ndarray(out._new_handle())
    if isinstance(out, (list, tuple)):
        return type(out)(_wrap(o) for o in out)
    return out


def _np_call(fn, *args, **kwargs):
    """fn(*args, **kwargs) with numpy shape semantics on for the call (``()`` is a scalar shape,
    0 a zero extent), the result as mx.np arrays. The thread's setting is restored after."""
    if _ffi.is_np_shape():
        return _wrap(fn(*args, **kwargs))
    prev = _ffi.set_np_shape(1)
    try:
        return _wrap(fn(*args, **kwargs))
    finally:
        if not prev:
            _ffi.set_np_shape(0)


_OPS = {}


def _op(name):
    """The registered operator ``name`` (mx.nd's function of it)."""
    fn = _OPS.get(name)
    if fn is None:
        from .. import ndarray as _mx_nd
        fn = getattr(_mx_nd._internal, name, None)
        if fn is None:
            fn = getattr(_mx_nd, name)
        _OPS[name] = fn
    return fn


def _invoke(name, *args, **kwargs):
    """Run registered operator ``name`` with numpy shape semantics; mx.np results."""
    return _np_call(_op(name), *args, **kwargs)


def _ctx(ctx):
    return _nd_mod._ctx_or_default(ctx)


def _is_float(dtype):
    return _np.issubdtype(_np.dtype(dtype), _np.floating)


def _promote(d1, d2):
    """The result dtype of a binary op on arrays of dtypes d1 and d2: an integer (or bool)
    meeting a float gives that float (float32 for int32 + float32, as MXNet 1.9.1), otherwise
    numpy's promotion."""
    d1, d2 = _np.dtype(d1), _np.dtype(d2)
    if d1 == d2:
        return d1
    f1, f2 = _is_float(d1), _is_float(d2)
    if f1 and not f2:
        return d1
    if f2 and not f1:
        return d2
    return _np.result_type(d1, d2)


_FLOAT_FLAGS = frozenset(f for f, t in _FLAG_NP_DTYPES.items()
                         if _np.issubdtype(_np.dtype(t), _np.floating))


def _as_dtype(a, dtype):
    dtype = _np.dtype(dtype)
    return a if a._dtype_flag == dtype_flag(dtype) else _invoke("cast", a, dtype=dtype.name)


def _shape_tuple(shape):
    if shape is None:
        return ()
    if isinstance(shape, integer_types):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _scalar_like(value, dtype=None):
    """A Python scalar as a 0-d mx.np array."""
    return _from_numpy(_np.array(value, dtype=dtype), None)


def _from_numpy(arr, ctx):
    ctx = _ctx(ctx)
    arr = _np.asarray(arr)
    return _np_call(_ffi.array_from_numpy, arr, ctx.device_typeid, ctx.device_id,
                    _nd_mod.dtype_flag(arr.dtype))


# ----------------------------------------------------------------------------- binary ops
# name: (array op, scalar op, reversed scalar op)
_BINARY = {
    "add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
    "subtract": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
    "multiply": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
    "true_divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
    "mod": ("broadcast_mod", "_mod_scalar", "_rmod_scalar"),
    "power": ("broadcast_power", "_power_scalar", "_rpower_scalar"),
    "maximum": ("broadcast_maximum", "_maximum_scalar", "_maximum_scalar"),
    "minimum": ("broadcast_minimum", "_minimum_scalar", "_minimum_scalar"),
    "hypot": ("broadcast_hypot", "_hypot_scalar", "_hypot_scalar"),
    "equal": ("broadcast_equal", "_equal_scalar", "_equal_scalar"),
    "not_equal": ("broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar"),
    "greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar"),
    "greater_equal": ("broadcast_greater_equal", "_greater_equal_scalar",
                      "_lesser_equal_scalar"),
    "less": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar"),
    "less_equal": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar"),
    "logical_and": ("broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar"),
    "logical_or": ("broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar"),
    "logical_xor": ("broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar"),
}
_BOOL_RESULT = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
                "logical_and", "logical_or", "logical_xor"}
_PY_BINARY = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "true_divide": lambda a, b: a / b, "mod": lambda a, b: a % b, "power": lambda a, b: a ** b,
    "maximum": max, "minimum": min, "hypot": _np.hypot,
    "equal": lambda a, b: a == b, "not_equal": lambda a, b: a != b,
    "greater": lambda a, b: a > b, "greater_equal": lambda a, b: a >= b,
    "less": lambda a, b: a < b, "less_equal": lambda a, b: a <= b,
    "logical_and": lambda a, b: bool(a) and bool(b), "logical_or": lambda a, b: bool(a) or bool(b),
    "logical_xor": lambda a, b: bool(a) != bool(b),
}


def _to_array_operand(x):
    """An operand that is neither an NDArray nor a scalar (a list, a numpy array) as mx.np."""
    if isinstance(x, NDArray) or isinstance(x, numeric_types):
        return x
    if isinstance(x, _np.ndarray):
        if x.ndim == 0:
            return x.item()
        return _from_numpy(x, None)
    if isinstance(x, (list, tuple)):
        return _from_numpy(_np.array(x, dtype=_np.float32), None)
    raise TypeError("mxnet.numpy: operand of type %s is not supported" % type(x))


def _binary(name, lhs, rhs, out=None):
    """numpy-style binary op ``name`` on arrays and scalars (broadcasting, dtype promotion)."""
    if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        res = _PY_BINARY[name](lhs, rhs)
        return _scalar_like(res, _np.bool_ if name in _BOOL_RESULT else None)
    lhs, rhs = _to_array_operand(lhs), _to_array_operand(rhs)
    array_op, scalar_op, rscalar_op = _BINARY[name]
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        if lhs._dtype_flag != rhs._dtype_flag or \
                (name == "true_divide" and lhs._dtype_flag not in _FLOAT_FLAGS):
            dtype = _promote(lhs.dtype, rhs.dtype)
            if name == "true_divide" and not _is_float(dtype):
                dtype = _np.dtype(_np.float32)
            lhs, rhs = _as_dtype(lhs, dtype), _as_dtype(rhs, dtype)
        res = _np_call(_op(array_op), lhs, rhs) if out is None or name in _BOOL_RESULT \
            else _np_call(_op(array_op), lhs, rhs, out=out)
    else:
        arr, scalar, op = (lhs, rhs, scalar_op) if isinstance(lhs, NDArray) \
            else (rhs, lhs, rscalar_op)
        if name == "true_divide" and arr._dtype_flag not in _FLOAT_FLAGS:
            arr = _as_dtype(arr, _np.float32)
        if isinstance(scalar, (bool, _np.bool_)):
            scalar = int(scalar)
        if out is not None and name not in _BOOL_RESULT:
            res = _np_call(_op(op), arr, scalar=float(scalar),
                           is_int=isinstance(scalar, integer_types), out=out)
        else:
            res = _np_call(_ffi.invoke_scalar, op, arr, float(scalar),
                           isinstance(scalar, integer_types))
        if res._dtype_flag != arr._dtype_flag and name not in _BOOL_RESULT:
            res = _as_dtype(res, arr.dtype)  # a scalar keeps the array's dtype (MXNet 1.9.1)
    if name in _BOOL_RESULT:
        res = _as_dtype(res, _np.bool_)
        if out is not None:
            return _copy_into(res, out)
    return res


def _copy_into(res, out):
    if res._dtype_flag != out._dtype_flag:
        res = _as_dtype(res, out.dtype)
    _np_call(_op("_copy"), res, out=out)
    return out


# ----------------------------------------------------------------------------- indexing
def _np_key(key):
    """An indexing key with mx arrays as numpy arrays (to compute numpy's result shape)."""
    if isinstance(key, tuple):
        return tuple(_np_key(k) for k in key)
    if isinstance(key, NDArray):
        return key.asnumpy()
    return key


def _index_shape(shape, key):
    """The shape numpy's indexing rules give for key on an array of shape (raises numpy's
    IndexError for a bad key)."""
    dummy = _np.broadcast_to(_np.zeros((), dtype=_np.bool_), shape)
    return dummy[_np_key(key)].shape


def _getitem(self, key):
    if isinstance(key, (bool, _np.bool_)) or \
            isinstance(key, NDArray) and key.ndim == 0 and key.dtype == _np.bool_:
        # a scalar boolean index adds an axis and keeps (True) or drops (False) everything
        expanded = self.reshape((1,) + self.shape)
        return expanded if bool(key) else expanded[0:0]
    try:
        shape = _index_shape(self.shape, key)
    except IndexError as e:
        raise IndexError(str(e)) from None
    if isinstance(key, tuple) and len(key) == 0 or key is Ellipsis:
        return self
    if 0 in shape:
        return _zero_size_from(self, shape)
    out = _np_call(_nd_indexing.getitem, self, key)
    if out.shape != shape:
        out = out.reshape(shape)
    return out


def _zero_size_from(self, shape):
    """A zero-size array of shape taken from self; while recording it stays in the graph (its
    gradient into self is zero)."""
    empty = _invoke("_zeros", shape=shape, dtype=self.dtype.name, ctx=self.context)
    if not _ffi.is_recording():
        return empty
    if self.size == 0:
        return _invoke("reshape_like", self, empty)
    flat = self.reshape(-1) if self.ndim != 1 else self
    return _invoke("reshape_like", _invoke("slice", flat, begin=(0,), end=(0,)), empty)


def _setitem(self, key, value):
    if isinstance(value, NDArray) and value.dtype != self.dtype:
        value = value.astype(self.dtype)
    if not isinstance(value, (NDArray,) + numeric_types):
        value = _np.asarray(value, dtype=self.dtype)
    if _ffi.is_recording() and (self._is_recorded or
                                isinstance(value, NDArray) and value._is_recorded):
        raise MXNetError("Inplace operations (+=, -=, x[:]=, etc) are not supported when "
                         "recording with autograd: x[key] = value writes into an array that "
                         "the recorded graph would have to track")
    if self.ndim and _np.prod(_index_shape(self.shape, key)) == 0:
        return  # nothing is selected
    if self.ndim == 0:
        if not (key is Ellipsis or isinstance(key, tuple) and not key or
                isinstance(key, slice) and key == slice(None)):
            raise IndexError("too many indices for array: array is 0-dimensional")
        _np_call(_nd_indexing.setitem, self, (), value)
        return
    _np_call(_nd_indexing.setitem, self, key, value)


# ----------------------------------------------------------------------------- the class
def _axes_of(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, integer_types) else tuple(axis)
    if ndim == 0 and all(a in (0, -1) for a in axes):
        return ()  # numpy accepts axis 0 / -1 on a 0-d array
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise ValueError("axis %d is out of bounds for array of dimension %d" % (a, ndim))
        out.append(int(a) % max(ndim, 1))
    return tuple(out)


def _numpy_reshape_target(shape, newshape, opname="reshape"):
    """newshape with its one -1 resolved, checked against shape's size (MXNetError as the
    operator raises it)."""
    newshape = _shape_tuple(newshape)
    size = int(_np.prod(shape)) if shape else 1
    unknown = [i for i, d in enumerate(newshape) if d == -1]
    if len(unknown) > 1 or any(d < -1 for d in newshape):
        raise MXNetError("Operator %s: can only specify one unknown dimension (-1) and no other "
                         "negative value; given newshape=%s for an array of shape %s"
                         % (opname, newshape, shape))
    known = int(_np.prod([d for d in newshape if d != -1])) if newshape else 1
    if unknown:
        if known == 0 or size % known:
            raise MXNetError("Operator %s: cannot reshape array of size %d into shape %s"
                             % (opname, size, newshape))
        newshape = tuple(size // known if d == -1 else d for d in newshape)
    elif known != size:
        raise MXNetError("Operator %s: cannot reshape array of size %d (shape %s) into shape %s"
                         % (opname, size, shape, newshape))
    return newshape


class ndarray(NDArray):
    """An array with numpy semantics (mx.np.ndarray): zero-dim and zero-size shapes, numpy
    broadcasting arithmetic and indexing. It shares the C++ array of the NDArray it is made
    from (``NDArray.as_np_ndarray()``; ``as_nd_ndarray()`` goes back)."""
    __array_priority__ = 1000.0

    def __init__(self, handle, writable=True):  # pylint: disable=super-init-not-called
        _nd_mod._ndarray_init(self, handle, writable)

    # -- basics
    __hash__ = NDArray.__hash__

    def __reduce__(self):
        return ndarray, (None,), self.__getstate__()

    @property
    def dtype(self):
        return _np.dtype(NDArray.dtype.fget(self))

    @property
    def T(self):  # pylint: disable=invalid-name
        return self.transpose()

    @property
    def grad(self):
        if self.__dict__.get("_grad_req_null"):
            return None  # attach_grad(grad_req='null'): no gradient, as MXNet 1.9.1
        g = NDArray._grad(self)
        return None if g is None else _wrap(g)

    def as_nd_ndarray(self):
        """This array as a legacy mx.nd.NDArray (sharing data)."""
        return NDArray(self._new_handle())

    def as_np_ndarray(self):
        return self

    def __repr__(self):
        text = repr(self.asnumpy())
        dtype = self.dtype
        if "dtype=" in text:
            if dtype == _np.float32:
                text = text[:text.rindex(",")] + ")"
        elif dtype not in (_np.float32, _np.bool_):
            text = text[:-1] + ", dtype=%s)" % dtype
        ctx = self.context
        if ctx.device_type == "cpu":
            return text
        return text[:-1] + ", ctx=%s)" % ctx

    def __str__(self):
        text = str(self.asnumpy())
        ctx = self.context
        if ctx.device_type == "cpu" or self.ndim == 0:
            return text
        return "%s @%s" % (text, ctx)

    def __format__(self, fmt):
        if self.ndim == 0:
            return self.item().__format__(fmt)
        if not fmt:
            return str(self).__format__(fmt)
        raise TypeError("Cannot format mxnet.numpy.ndarray with format_spec")

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self):
        n = self.size
        if n == 0:
            return False
        if n == 1:
            return bool(self.item())
        raise ValueError("The truth value of an ndarray with multiple elements is ambiguous.")

    def item(self, *args):
        return self.asnumpy().item(*args)

    def tolist(self):
        return self.asnumpy().tolist()

    def asscalar(self):
        if self.size != 1:
            raise ValueError("The current array is not a scalar")
        return self.asnumpy().reshape(-1)[0]

    __getitem__ = _getitem
    __setitem__ = _setitem

    # -- conversions and copies
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        # pylint: disable=unused-argument
        dtype = _np.dtype(_np.float32 if dtype is None else dtype)
        if not copy and dtype == self.dtype:
            return self
        return _invoke("cast", self, dtype=dtype.name) if dtype != self.dtype else self.copy()

    def copy(self, order="C"):  # pylint: disable=arguments-differ
        if order != "C":
            raise NotImplementedError("ndarray.copy: order=%r is not supported, only 'C'"
                                      % (order,))
        return _invoke("_copy", self)  # an operator, so that autograd records it

    def copyto(self, other):
        return _wrap(_nd_mod._copyto(self, other))

    def as_in_context(self, context):
        return self if self.context == context else self.copyto(context)

    as_in_ctx = as_in_context

    def detach(self):
        return _wrap(NDArray._detach(self))

    def attach_grad(self, grad_req="write"):  # pylint: disable=arguments-differ
        with _NpShape():
            _nd_mod._attach_grad(self, grad_req)
        self.__dict__["_grad_req_null"] = grad_req == "null"

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        with _NpShape():
            _nd_mod._backward(self, out_grad, retain_graph, train_mode)

    # -- shape methods
    def reshape(self, *args, **kwargs):
        order = kwargs.pop("order", "C")
        if kwargs:
            raise TypeError("reshape() got unexpected keyword argument(s) %s" % list(kwargs))
        if order != "C":
            raise NotImplementedError("reshape: order=%r is not supported" % (order,))
        shape = args[0] if len(args) == 1 and not isinstance(args[0], integer_types) else args
        target = _numpy_reshape_target(self.shape, shape)
        if target == self.shape:
            return self
        if 0 in target:
            return _zero_size_from(self, target)
        return _np_call(NDArray._reshape_with_record, self, list(target), False)

    def reshape_view(self, *shape, **kwargs):
        return self.reshape(*shape, **kwargs)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (list, tuple))):
            axes = axes[0]
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        if len(axes) != self.ndim or any(not -self.ndim <= int(a) < self.ndim for a in axes):
            raise MXNetError("Operator transpose: axes=%s do not match an array of %d "
                             "dimensions" % (tuple(axes), self.ndim))
        axes = tuple(int(a) % self.ndim for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis in transpose: %s" % (axes,))
        if self.ndim < 2:
            return self.copy()
        return _invoke("transpose", self, axes=tuple(int(a) for a in axes))

    def flatten(self, order="C"):  # pylint: disable=arguments-differ
        return self.reshape(-1, order=order).copy()

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    def squeeze(self, axis=None):  # pylint: disable=arguments-differ
        from . import _op as _npo
        return _npo.squeeze(self, axis)

    def expand_dims(self, axis):  # pylint: disable=arguments-differ
        from . import _op as _npo
        return _npo.expand_dims(self, axis)

    def swapaxes(self, axis1, axis2):  # pylint: disable=arguments-differ
        from . import _op as _npo
        return _npo.swapaxes(self, axis1, axis2)

    def broadcast_to(self, shape):
        from . import _op as _npo
        return _npo.broadcast_to(self, shape)

    @property
    def flat(self):
        return self.reshape(-1)

    # -- arithmetic
    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", other, self)

    def __sub__(self, other):
        return _binary("subtract", self, other)

    def __rsub__(self, other):
        return _binary("subtract", other, self)

    def __mul__(self, other):
        return _binary("multiply", self, other)

    def __rmul__(self, other):
        return _binary("multiply", other, self)

    def __truediv__(self, other):
        return _binary("true_divide", self, other)

    def __rtruediv__(self, other):
        return _binary("true_divide", other, self)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __mod__(self, other):
        return _binary("mod", self, other)

    def __rmod__(self, other):
        return _binary("mod", other, self)

    def __pow__(self, other):
        return _binary("power", self, other)

    def __rpow__(self, other):
        return _binary("power", other, self)

    def __iadd__(self, other):
        return self._inplace("add", other)

    def __isub__(self, other):
        return self._inplace("subtract", other)

    def __imul__(self, other):
        return self._inplace("multiply", other)

    def __itruediv__(self, other):
        return self._inplace("true_divide", other)

    __idiv__ = __itruediv__

    def __imod__(self, other):
        return self._inplace("mod", other)

    def __ipow__(self, other):
        return self._inplace("power", other)

    def _inplace(self, name, other):
        res = _binary(name, self, other)
        if res.dtype != self.dtype:
            res = res.astype(self.dtype)
        if res.shape != self.shape:
            raise ValueError("non-broadcastable output operand with shape %s doesn't match the "
                             "broadcast shape %s" % (self.shape, res.shape))
        _copy_into(res, self)
        return self

    def __neg__(self):
        return _invoke("negative", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _invoke("abs", self)

    def __invert__(self):
        if self.dtype != _np.bool_:
            raise TypeError("ufunc 'invert' is only supported for boolean arrays here")
        return _binary("equal", self, 0)

    def __eq__(self, other):
        return _binary("equal", self, other)

    def __ne__(self, other):
        return _binary("not_equal", self, other)

    def __gt__(self, other):
        return _binary("greater", self, other)

    def __ge__(self, other):
        return _binary("greater_equal", self, other)

    def __lt__(self, other):
        return _binary("less", self, other)

    def __le__(self, other):
        return _binary("less_equal", self, other)

    def __and__(self, other):
        return _binary("logical_and", self, other)

    def __or__(self, other):
        return _binary("logical_or", self, other)

    def __xor__(self, other):
        return _binary("logical_xor", self, other)

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __matmul__(self, other):
        from . import _op as _npo
        return _npo.matmul(self, other)

    def __rmatmul__(self, other):
        from . import _op as _npo
        return _npo.matmul(other, self)

    def __round__(self, n=0):
        from . import _op as _npo
        return _npo.round(self, n)


ndarray.__module__ = "mxnet.numpy"


def _np_method(name):
    """Method ``name`` of mx.np.ndarray as the mx.np function of that name with this array
    first."""
    def method(self, *args, **kwargs):
        from . import _op as _npo
        return getattr(_npo, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = "Same as mx.np.%s(self, ...)." % name
    return method


def _clip_method(self, min=None, max=None, out=None):  # pylint: disable=redefined-builtin
    """Values limited to [min, max] (ndarray.clip's argument names)."""
    from . import _op as _npo
    return _npo.clip(self, min, max, out=out)


ndarray.clip = _clip_method
for _name in ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "std", "var",
              "round", "cumsum", "sort", "argsort", "all", "any", "dot", "take", "repeat",
              "tile", "flip", "nonzero", "trace", "diag"):
    setattr(ndarray, _name, _np_method(_name))
_UNARY_METHODS = ("abs", "sign", "floor", "ceil", "trunc", "fix", "rint", "sqrt", "cbrt",
                  "square", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
                  "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
                  "arctanh", "degrees", "radians", "reciprocal")
for _name in _UNARY_METHODS:
    setattr(ndarray, _name, _np_method(_name))


def _legacy_method(name):
    """A legacy NDArray method run with numpy shape semantics, its results as mx.np arrays."""
    base = getattr(NDArray, name)

    def method(self, *args, **kwargs):
        return _np_call(base, self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = getattr(base, "__doc__", None)
    return method


for _name in _nd_mod._FLUENT + ["broadcast_like", "reshape_like", "slice_assign",
                                 "slice_assign_scalar", "tostype", "copy"]:
    if _name not in ndarray.__dict__ and hasattr(NDArray, _name):
        setattr(ndarray, _name, _legacy_method(_name))


class _NpShape:
    """``with`` scope turning numpy shape semantics on (restoring the thread's setting)."""

    def __enter__(self):
        self._prev = _ffi.set_np_shape(1) if not _ffi.is_np_shape() else None
        return self

    def __exit__(self, *exc):
        if self._prev is not None and not self._prev:
            _ffi.set_np_shape(0)


def _nd_as_np_ndarray(self):
    """This NDArray as an mx.np.ndarray sharing its data."""
    return ndarray(self._new_handle())


def _nd_as_nd_ndarray(self):
    return self


NDArray.as_np_ndarray = _nd_as_np_ndarray
NDArray.as_nd_ndarray = _nd_as_nd_ndarray


def _current_ctx():
    return current_context()
