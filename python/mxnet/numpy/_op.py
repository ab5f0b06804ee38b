"""mx.np functions: creation, element-wise math, reductions, shape manipulation and linear
algebra with numpy's names, defaults and result shapes, run on MXNet's operators."""
# pylint: disable=redefined-builtin,too-many-lines
import builtins as _builtins

import numpy as _np

from ..base import MXNetError, numeric_types, integer_types
from ..ndarray import ndarray as _nd_mod
from .multiarray import ndarray, NDArray, _invoke, _binary, _as_dtype, _is_float, _promote, \
    _from_numpy, _shape_tuple, _axes_of, _ctx, _copy_into, _wrap, _zero_size_from, \
    OperatorValueError

__all__ = []


def _export(func):
    __all__.append(func.__name__)
    return func


def _dtype_name(dtype, default=_np.float32):
    return _np.dtype(default if dtype is None else dtype).name


# ----------------------------------------------------------------------------- creation
@_export
def array(object, dtype=None, ctx=None):
    """An mx.np array of object (an array, a nested sequence, a scalar). Python sequences and
    scalars become float32 unless dtype is given; numpy arrays keep their dtype."""
    if isinstance(object, NDArray) and not isinstance(object, ndarray):
        raise ValueError("If you're trying to create a mxnet.numpy.ndarray from mx.nd.NDArray, "
                         "please use the zero-copy as_np_ndarray function.")
    if isinstance(object, NDArray):
        dtype = object.dtype if dtype is None else dtype
        out = object.as_in_context(_ctx(ctx)) if ctx is not None else object
        out = _wrap(out).astype(dtype)
        return out
    if isinstance(object, _np.ndarray):
        arr = object if dtype is None else object.astype(dtype)
    else:
        if dtype is None:
            dtype = getattr(object, "dtype", _np.float32)
        try:
            arr = _np.array(object, dtype=dtype)
        except Exception as e:  # numpy's own message, as MXNet 1.9.1 reports it
            raise TypeError(str(e)) from None
    return _from_numpy(arr, ctx)


@_export
def asarray(obj, dtype=None, ctx=None):
    """obj as an mx.np array; an mx.np array of the dtype (and device) asked is returned as is."""
    if isinstance(obj, ndarray) and (dtype is None or _np.dtype(dtype) == obj.dtype) and \
            (ctx is None or obj.context == ctx):
        return obj
    return array(obj, dtype=dtype, ctx=ctx)


def _creation(op, shape, dtype, ctx, default=_np.float32, **kwargs):
    return _invoke(op, shape=_shape_tuple(shape), dtype=_dtype_name(dtype, default),
                   ctx=_ctx(ctx), **kwargs)


@_export
def zeros(shape, dtype=None, order="C", ctx=None):  # pylint: disable=unused-argument
    """An array of zeros (float32 by default)."""
    return _creation("_zeros", shape, dtype, ctx)


@_export
def ones(shape, dtype=None, order="C", ctx=None):  # pylint: disable=unused-argument
    """An array of ones (float32 by default)."""
    return _creation("_ones", shape, dtype, ctx)


@_export
def empty(shape, dtype=None, order="C", ctx=None):  # pylint: disable=unused-argument
    """An uninitialised array (float32 by default)."""
    if order != "C":
        raise NotImplementedError("empty: order=%r is not supported" % (order,))
    return _wrap(_nd_mod._new_empty(_shape_tuple(shape), _ctx(ctx),
                                    _np.float32 if dtype is None else dtype))


@_export
def full(shape, fill_value, dtype=None, order="C", ctx=None, out=None):
    # pylint: disable=unused-argument
    """An array filled with fill_value (float32 by default; an array fill_value broadcasts)."""
    if isinstance(fill_value, NDArray):
        dtype = fill_value.dtype if dtype is None else dtype
        res = broadcast_to(fill_value.astype(dtype), _shape_tuple(shape)).copy()
        return res if out is None else _copy_into(res, out)
    if isinstance(fill_value, (bool, _np.bool_)) and dtype is None:
        dtype = _np.bool_
    return _invoke("_full", shape=_shape_tuple(shape), dtype=_dtype_name(dtype),
                   ctx=_ctx(ctx), value=float(fill_value), out=out)


def _like(op, a, dtype, ctx, **kwargs):
    dtype = a.dtype if dtype is None else dtype
    return _creation(op, a.shape, dtype, a.context if ctx is None else ctx, **kwargs)


@_export
def zeros_like(a, dtype=None, order="C", ctx=None, out=None):  # pylint: disable=unused-argument
    """Zeros of a's shape (and dtype unless given)."""
    res = _like("_zeros", a, dtype, ctx)
    return res if out is None else _copy_into(res, out)


@_export
def ones_like(a, dtype=None, order="C", ctx=None, out=None):  # pylint: disable=unused-argument
    """Ones of a's shape (and dtype unless given)."""
    res = _like("_ones", a, dtype, ctx)
    return res if out is None else _copy_into(res, out)


@_export
def empty_like(prototype, dtype=None, order="C", subok=False, shape=None):
    # pylint: disable=unused-argument
    """An uninitialised array of prototype's shape and dtype."""
    return empty(prototype.shape if shape is None else shape,
                 prototype.dtype if dtype is None else dtype, ctx=prototype.context)


@_export
def full_like(a, fill_value, dtype=None, order="C", ctx=None, out=None):
    # pylint: disable=unused-argument
    """fill_value in a's shape (and dtype unless given)."""
    return full(a.shape, fill_value, a.dtype if dtype is None else dtype,
                ctx=a.context if ctx is None else ctx, out=out)


@_export
def arange(start, stop=None, step=1, dtype=None, ctx=None):
    """Evenly spaced values in [start, stop) (float32 by default, as MXNet 1.9.1)."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("arange: step must not be zero")
    n = _builtins.max(0, int(_np.ceil((stop - start) / step)))
    if n == 0:
        return zeros((0,), dtype=dtype, ctx=ctx)
    return _invoke("_arange", start=start, stop=stop, step=step, repeat=1, infer_range=False,
                   ctx=_ctx(ctx), dtype=_dtype_name(dtype))


@_export
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    """num evenly spaced values over [start, stop] (float32 by default)."""
    if axis != 0:
        raise NotImplementedError("linspace: axis other than 0 is not supported")
    if not isinstance(num, integer_types):
        raise OperatorValueError("linspace: num must be an integer, given %r" % (num,))
    num = int(num)
    if num < 0:
        raise OperatorValueError("Number of samples, %d, must be non-negative." % num)
    if num == 0:
        res = zeros((0,), dtype=dtype, ctx=ctx)
    elif dtype is not None and not _is_float(dtype):
        # numpy computes in float and rounds towards -inf for an integer dtype
        res = _from_numpy(_np.floor(_np.linspace(start, stop, num, endpoint=endpoint))
                          .astype(dtype), ctx)
    else:
        res = _invoke("_linspace", start=start, stop=stop, num=num, endpoint=endpoint,
                      ctx=_ctx(ctx), dtype=_dtype_name(dtype))
    if retstep:
        div = (num - 1) if endpoint else num
        return res, (stop - start) / div if div > 0 else _np.nan
    return res


@_export
def eye(N, M=None, k=0, dtype=None, ctx=None, **kwargs):  # pylint: disable=invalid-name
    """A 2-D array with ones on the k-th diagonal (float32 by default)."""
    if kwargs.pop("order", "C") != "C":
        raise NotImplementedError("eye: only order='C' is supported")
    if kwargs:
        raise TypeError("eye() got unexpected keyword argument(s) %s" % list(kwargs))
    M = N if M is None else M
    if N == 0 or M == 0:
        return zeros((N, M), dtype=dtype, ctx=ctx)
    return _invoke("_eye", N=N, M=M, k=k, ctx=_ctx(ctx), dtype=_dtype_name(dtype))


@_export
def identity(n, dtype=None, ctx=None):
    """The n x n identity (float32 by default)."""
    if not isinstance(n, integer_types):
        raise TypeError("identity: n must be an int, given %s" % type(n).__name__)
    if n < 0:
        raise ValueError("negative dimensions are not allowed")
    return eye(n, dtype=dtype, ctx=ctx)


@_export
def copy(a):
    """A copy of a."""
    return asarray(a).copy()


# ----------------------------------------------------------------------------- element-wise
def _make_binary(name, public=None):
    def func(x1, x2, out=None, **kwargs):
        _check_ufunc_kwargs(public or name, kwargs)
        return _binary(name, x1, x2, out=out)
    func.__name__ = public or name
    func.__doc__ = "numpy.%s on mx.np arrays and scalars (broadcasting)." % (public or name)
    return func


_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                   "subok": True}


_UFUNC_LEGAL = {
    "casting": lambda v: v in ("no", "equiv", "safe", "same_kind", "unsafe"),
    "order": lambda v: isinstance(v, str),
    "dtype": lambda v: v in (_np.int8, _np.uint8, _np.int32, _np.int64, _np.float16, _np.float32,
                             _np.float64, "int8", "uint8", "int32", "int64", "float16",
                             "float32", "float64"),
    "subok": lambda v: isinstance(v, bool),
    "where": lambda v: True,
}


def _check_ufunc_kwargs(name, kwargs):
    """numpy ufunc keywords: only their defaults are supported; another legal value raises
    NotImplementedError, an illegal one TypeError (as MXNet 1.9.1)."""
    for key, value in kwargs.items():
        if key not in _UFUNC_DEFAULTS:
            raise TypeError("%s is an invalid keyword to function '%s'" % (key, name))
        if value is _UFUNC_DEFAULTS[key] or (not isinstance(value, type) and
                                             value == _UFUNC_DEFAULTS[key]):
            continue
        if _UFUNC_LEGAL[key](value):
            raise NotImplementedError("%s=%s is not implemented yet for operator %s"
                                      % (key, value, name))
        raise TypeError("%s=%s not understood for operator %s" % (key, value, name))


for _name in ("add", "subtract", "multiply", "true_divide", "mod", "power", "maximum",
              "minimum", "hypot", "equal", "not_equal", "greater", "greater_equal", "less",
              "less_equal", "logical_and", "logical_or", "logical_xor"):
    globals()[_name] = _export(_make_binary(_name))
divide = _export(_make_binary("true_divide", "divide"))
remainder = _export(_make_binary("mod", "remainder"))
fmax = maximum  # noqa: F821  (defined by the loop above)
fmin = minimum  # noqa: F821
__all__ += ["fmax", "fmin"]

# unary ops: name -> (operator, whether integer input is computed in float32)
_UNARY = {
    "negative": ("negative", False), "absolute": ("abs", False), "abs": ("abs", False),
    "sign": ("sign", False), "square": ("square", False), "floor": ("floor", False),
    "ceil": ("ceil", False), "trunc": ("trunc", False), "fix": ("fix", False),
    "rint": ("rint", False), "sqrt": ("sqrt", True), "cbrt": ("cbrt", True),
    "exp": ("exp", True), "expm1": ("expm1", True), "log": ("log", True),
    "log2": ("log2", True), "log10": ("log10", True), "log1p": ("log1p", True),
    "sin": ("sin", True), "cos": ("cos", True), "tan": ("tan", True),
    "arcsin": ("arcsin", True), "arccos": ("arccos", True), "arctan": ("arctan", True),
    "sinh": ("sinh", True), "cosh": ("cosh", True), "tanh": ("tanh", True),
    "arcsinh": ("arcsinh", True), "arccosh": ("arccosh", True), "arctanh": ("arctanh", True),
    "degrees": ("degrees", True), "radians": ("radians", True), "rad2deg": ("degrees", True),
    "deg2rad": ("radians", True), "reciprocal": ("reciprocal", True),
    "sigmoid": ("sigmoid", True),
}


def _make_unary(public, opname, to_float):
    def func(x, out=None, **kwargs):
        _check_ufunc_kwargs(public, kwargs)
        x = asarray(x)
        if to_float and not _is_float(x.dtype):
            x = _as_dtype(x, _np.float32)
        return _invoke(opname, x, out=out)
    func.__name__ = public
    func.__doc__ = "numpy.%s element-wise on an mx.np array." % public
    return func


for _name, (_opname, _to_float) in _UNARY.items():
    if _name != "sigmoid":
        globals()[_name] = _export(_make_unary(_name, _opname, _to_float))


@_export
def positive(x, out=None):
    """+x."""
    return x.copy() if out is None else _copy_into(x, out)


@_export
def logical_not(x, out=None, **kwargs):
    """Element-wise not; a bool array."""
    _check_ufunc_kwargs("logical_not", kwargs)
    res = _as_dtype(_invoke("logical_not", asarray(x)), _np.bool_)
    return res if out is None else _copy_into(res, out)


@_export
def isnan(x, out=None, **kwargs):
    """Element-wise test for NaN (a bool array)."""
    _check_ufunc_kwargs("isnan", kwargs)
    x = asarray(x)
    res = _binary("not_equal", x, x)
    return res if out is None else _copy_into(res, out)


@_export
def isinf(x, out=None, **kwargs):
    """Element-wise test for +inf or -inf (a bool array)."""
    _check_ufunc_kwargs("isinf", kwargs)
    x = asarray(x)
    res = _binary("equal", _invoke("abs", x) if _is_float(x.dtype) else x, _np.inf)
    return res if out is None else _copy_into(res, out)


@_export
def isposinf(x, out=None, **kwargs):
    """Element-wise test for +inf."""
    _check_ufunc_kwargs("isposinf", kwargs)
    x = asarray(x)
    res = _binary("equal", x, _np.inf)
    return res if out is None else _copy_into(res, out)


@_export
def isneginf(x, out=None, **kwargs):
    """Element-wise test for -inf."""
    _check_ufunc_kwargs("isneginf", kwargs)
    x = asarray(x)
    res = _binary("equal", x, -_np.inf)
    return res if out is None else _copy_into(res, out)


@_export
def isfinite(x, out=None, **kwargs):
    """Element-wise test for finite values (a bool array)."""
    _check_ufunc_kwargs("isfinite", kwargs)
    x = asarray(x)
    res = _binary("logical_and", logical_not(isnan(x)), logical_not(isinf(x)))
    return res if out is None else _copy_into(res, out)


@_export
def around(x, decimals=0, out=None):
    """Round to decimals places (half to even, as numpy)."""
    if decimals == 0:
        return _invoke("rint", x, out=out) if _is_float(x.dtype) else x.copy()
    scale = 10.0 ** decimals
    res = _binary("true_divide", _invoke("rint", _binary("multiply", x, scale)), scale)
    return res if out is None else _copy_into(res, out)


round = around  # noqa: A001
round_ = around
__all__ += ["round", "round_"]


@_export
def clip(a, a_min, a_max, out=None):
    """Values of a limited to [a_min, a_max] (either may be None)."""
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    lo = -_np.inf if a_min is None else a_min
    hi = _np.inf if a_max is None else a_max
    return _invoke("clip", asarray(a), a_min=float(lo), a_max=float(hi), out=out)


@_export
def floor_divide(x1, x2, out=None):
    """Largest integer not greater than x1 / x2."""
    res = _binary("true_divide", x1, x2)
    res = _invoke("floor", res)
    if isinstance(x1, NDArray) and not _is_float(x1.dtype) and \
            (not isinstance(x2, NDArray) or not _is_float(x2.dtype)) and \
            not isinstance(x2, float):
        res = _as_dtype(res, x1.dtype)
    return res if out is None else _copy_into(res, out)


# ----------------------------------------------------------------------------- reductions
def _reduced_shape(shape, axes, keepdims):
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keepdims or i not in axes)


def _reduce(opname, a, axis, keepdims, out=None, dtype=None, float_ints=False):
    a = asarray(a)
    axes = _axes_of(axis, a.ndim)
    if dtype is not None:
        a = _as_dtype(a, dtype)
    elif float_ints and not _is_float(a.dtype):
        a = _as_dtype(a, _np.float32)
    target = _reduced_shape(a.shape, axes, keepdims)
    if a.ndim == 0 or not axes:
        res = a.copy()
    elif a.size == 0 and _np.prod(target) == 0 and _builtins.all(a.shape[i] for i in axes):
        res = _zero_size_from(a, target)
    elif a.size == 0:
        if opname in ("max", "min"):
            raise OperatorValueError(
                "zero-size array to reduction operation %s which has no identity"
                % ("maximum" if opname == "max" else "minimum"))
        fill = {"sum": 0.0, "prod": 1.0, "mean": _np.nan}[opname]
        res = full(target, fill, dtype=a.dtype, ctx=a.context)
    else:
        res = _invoke(opname, a, axis=axes, keepdims=keepdims)
    if res.shape != target:
        res = res.reshape(target)
    return res if out is None else _copy_into(res, out)


@_export
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum over axis (all axes by default); bool input sums as int64."""
    if where is not None:
        raise NotImplementedError("sum: where is not supported")
    if dtype is None and asarray(a).dtype == _np.bool_:
        dtype = _np.int64
    res = _reduce("sum", a, axis, keepdims, None, dtype)
    if initial is not None:
        res = _binary("add", res, initial)
    return res if out is None else _copy_into(res, out)


@_export
def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
    """Product over axis (all axes by default)."""
    res = _reduce("prod", a, axis, keepdims, None, dtype)
    if initial is not None:
        res = _binary("multiply", res, initial)
    return res if out is None else _copy_into(res, out)


@_export
def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean over axis; integer input gives float32 (as MXNet 1.9.1). dtype casts the mean
    computed in the input's (float) type, as MXNet 1.9.1's operator does."""
    if dtype is not None:
        res = _as_dtype(_reduce("mean", a, axis, keepdims, None, None, float_ints=True), dtype)
        return res if out is None else _copy_into(res, out)
    return _reduce("mean", a, axis, keepdims, out, dtype, float_ints=True)


@_export
def max(a, axis=None, out=None, keepdims=False):
    """Maximum over axis."""
    return _reduce("max", a, axis, keepdims, out)


@_export
def min(a, axis=None, out=None, keepdims=False):
    """Minimum over axis."""
    return _reduce("min", a, axis, keepdims, out)


amax = max
amin = min
__all__ += ["amax", "amin"]


@_export
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance over axis (ddof: delta degrees of freedom)."""
    a = asarray(a)
    if dtype is not None:
        a = _as_dtype(a, dtype)
    elif not _is_float(a.dtype):
        a = _as_dtype(a, _np.float32)
    axes = _axes_of(axis, a.ndim)
    n = int(_np.prod([a.shape[i] for i in axes])) if axes else 1
    centered = _binary("subtract", a, mean(a, axis=axes, keepdims=True))
    res = mean(_binary("multiply", centered, centered), axis=axes, keepdims=keepdims)
    if ddof:
        res = _binary("multiply", res, float(n) / _builtins.max(n - ddof, 0) if n > ddof
                      else _np.inf)
    return res if out is None else _copy_into(res, out)


@_export
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation over axis."""
    res = sqrt(var(a, axis, dtype, None, ddof, keepdims))  # noqa: F821
    return res if out is None else _copy_into(res, out)


def _arg_reduce(opname, a, axis, out):
    a = asarray(a)
    if a.size == 0 and (axis is None or a.shape[_axes_of(axis, a.ndim)[0]] == 0):
        raise OperatorValueError("attempt to get %s of an empty sequence" % opname)
    if a.size == 0:
        target = tuple(d for i, d in enumerate(a.shape) if i != _axes_of(axis, a.ndim)[0])
        res = zeros(target, dtype=_np.int64, ctx=a.context)
        return res if out is None else _copy_into(res, out)
    if a.ndim == 0:
        if axis not in (None, 0, -1):
            raise OperatorValueError("axis %s is out of bounds for array of dimension 0"
                                     % (axis,))
        res = zeros((), dtype=_np.int64, ctx=a.context)
        return res if out is None else _copy_into(res, out)
    if axis is None:
        res = _invoke(opname, a.reshape(-1), axis=0)
    else:
        res = _invoke(opname, a, axis=int(axis))
    res = _as_dtype(res, _np.int64)
    target = () if axis is None else tuple(d for i, d in enumerate(a.shape)
                                             if i != _axes_of(axis, a.ndim)[0])
    if res.shape != target:
        res = res.reshape(target)
    return res if out is None else _copy_into(res, out)


@_export
def argmax(a, axis=None, out=None):
    """Index of the maximum (over the flattened array by default); int64."""
    return _arg_reduce("argmax", a, axis, out)


@_export
def argmin(a, axis=None, out=None):
    """Index of the minimum (over the flattened array by default); int64."""
    return _arg_reduce("argmin", a, axis, out)


@_export
def all(a, axis=None, out=None, keepdims=False):
    """Whether all elements (over axis) are true."""
    b = _as_dtype(_binary("not_equal", a, 0), _np.float32)
    res = _as_dtype(_reduce("min", b, axis, keepdims) if b.size else
                    full(_reduced_shape(b.shape, _axes_of(axis, b.ndim), keepdims), 1.0),
                    _np.bool_)
    return res if out is None else _copy_into(res, out)


@_export
def any(a, axis=None, out=None, keepdims=False):
    """Whether any element (over axis) is true."""
    b = _as_dtype(_binary("not_equal", a, 0), _np.float32)
    res = _as_dtype(_reduce("max", b, axis, keepdims) if b.size else
                    zeros(_reduced_shape(b.shape, _axes_of(axis, b.ndim), keepdims)),
                    _np.bool_)
    return res if out is None else _copy_into(res, out)


@_export
def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along axis (of the flattened array by default)."""
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if dtype is None and a.dtype == _np.bool_:
        dtype = _np.int64  # numpy counts booleans as int64
    if dtype is not None:
        a = _as_dtype(a, dtype)
    axis = _axes_of(axis, a.ndim)[0]
    n = a.shape[axis]
    if not _is_float(a.dtype) and n:  # the matrix product runs in floats: exact for ints
        res = _as_dtype(cumsum(_as_dtype(a, _np.float64), axis), a.dtype)
        return res if out is None else _copy_into(res, out)
    if a.dtype == _np.float16:
        if 0 < n <= 256:  # numpy accumulates float16 one element at a time, rounding each step
            lead = (slice(None),) * axis
            acc = [a[lead + (slice(0, 1),)]]
            for i in range(1, n):
                acc.append(_binary("add", acc[-1], a[lead + (slice(i, i + 1),)]))
            res = concatenate(acc, axis=axis)
        else:  # long axes: accumulate in float32 (closer to the exact sums than numpy's)
            res = _as_dtype(cumsum(_as_dtype(a, _np.float32), axis), _np.float16)
        return res if out is None else _copy_into(res, out)
    # cumsum as a product with a lower-triangular ones matrix along axis
    moved = moveaxis(a, axis, -1)
    tri = _from_numpy(_np.triu(_np.ones((n, n), dtype=_np.dtype(a.dtype))), a.context)
    res = moveaxis(dot(moved, tri), -1, axis) if n else a.copy()
    return res if out is None else _copy_into(res, out)


# ----------------------------------------------------------------------------- shapes
@_export
def reshape(a, newshape, order="C"):
    """a in shape newshape (one -1 is inferred)."""
    return asarray(a).reshape(newshape, order=order)


@_export
def ravel(x, order="C"):
    """x flattened to 1-D."""
    return asarray(x).reshape(-1, order=order)


@_export
def transpose(a, axes=None):
    """a with its axes permuted (reversed by default)."""
    return asarray(a).transpose(axes)


@_export
def swapaxes(a, axis1, axis2):
    """a with axis1 and axis2 interchanged."""
    a = asarray(a)
    order = list(range(a.ndim))
    i, j = _axes_of(axis1, a.ndim)[0], _axes_of(axis2, a.ndim)[0]
    order[i], order[j] = order[j], order[i]
    return a.transpose(order)


@_export
def moveaxis(a, source, destination):
    """a with axes moved from source to destination (ints or sequences)."""
    a = asarray(a)
    return a.transpose(_nd_mod._moveaxis_order(a.ndim, source, destination))


@_export
def expand_dims(a, axis):
    """a with a new size-1 axis at axis."""
    a = asarray(a)
    axis = int(axis)
    nd = a.ndim + 1
    if not -nd <= axis < nd:
        raise ValueError("axis %d is out of bounds for array of dimension %d" % (axis, nd))
    axis %= nd
    return a.reshape(a.shape[:axis] + (1,) + a.shape[axis:])


@_export
def squeeze(a, axis=None):
    """a without size-1 axes (all, or those in axis)."""
    a = asarray(a)
    axes = _axes_of(axis, a.ndim) if axis is not None else \
        tuple(i for i, d in enumerate(a.shape) if d == 1)
    for i in axes:
        if a.shape[i] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal "
                             "to one")
    return a.reshape(tuple(d for i, d in enumerate(a.shape) if i not in axes))


@_export
def broadcast_to(array, shape):  # pylint: disable=redefined-outer-name
    """array broadcast to shape (numpy's rules)."""
    array = asarray(array)
    shape = _shape_tuple(shape)
    cur = array.shape
    if len(shape) < len(cur):
        raise OperatorValueError("input operand has more dimensions than allowed by the axis remapping")
    padded = (1,) * (len(shape) - len(cur)) + cur
    if _builtins.any(c != s and c != 1 for c, s in zip(padded, shape)) or \
            _builtins.any(s < 0 for s in shape):
        raise OperatorValueError("operands could not be broadcast together with remapped shapes "
                         "[original->remapped]: %s and requested shape %s" % (cur, shape))
    if padded == shape:
        return array.reshape(shape) if cur != shape else array.copy()
    if 0 in shape:
        return _zero_size_from(array, shape)
    return _invoke("broadcast_to", array.reshape(padded), shape=shape)


@_export
def broadcast_arrays(*args):
    """The arrays broadcast against each other."""
    shape = _np.broadcast_shapes(*[asarray(a).shape for a in args])
    return [broadcast_to(a, shape) for a in args]


def _as_list(arrays):
    return [asarray(a) for a in arrays]


def _common_dtype(arrays):
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        dtype = _promote(dtype, a.dtype)
    return dtype


@_export
def concatenate(seq, axis=0, out=None):
    """Join arrays along an existing axis (axis=None: flattened)."""
    arrays = _as_list(seq)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays, axis = [a.reshape(-1) for a in arrays], 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = _axes_of(axis, nd)[0]
    dtype = _common_dtype(arrays)
    arrays = [_as_dtype(a, dtype) for a in arrays]
    nonempty = [a for a in arrays if a.size]
    if not nonempty or len(nonempty) == 1:
        shape = list(arrays[0].shape)
        shape[axis] = _builtins.sum(a.shape[axis] for a in arrays)
        res = nonempty[0].copy() if nonempty and tuple(shape) == nonempty[0].shape else \
            _zero_size_from(arrays[0], tuple(shape))
    else:
        res = _invoke("concat", *nonempty, dim=axis, num_args=len(nonempty))
    return res if out is None else _copy_into(res, out)


@_export
def append(arr, values, axis=None):
    """values appended to arr (flattened when axis is None)."""
    return concatenate([arr, values], axis=axis)


@_export
def stack(arrays, axis=0, out=None):
    """Join arrays along a new axis."""
    arrays = _as_list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    nd = arrays[0].ndim + 1
    axis = _axes_of(axis, nd)[0]
    res = concatenate([expand_dims(a, axis) for a in arrays], axis=axis)
    return res if out is None else _copy_into(res, out)


@_export
def vstack(arrays, out=None):
    """Stack arrays row-wise (1-D arrays become rows)."""
    arrays = [a.reshape(1, -1) if a.ndim < 2 else a for a in _as_list(arrays)]
    return concatenate(arrays, axis=0, out=out)


row_stack = vstack
__all__.append("row_stack")


@_export
def hstack(arrays):
    """Stack arrays column-wise (along axis 1, or 0 for 1-D arrays)."""
    arrays = [a.reshape(1) if a.ndim == 0 else a for a in _as_list(arrays)]
    return concatenate(arrays, axis=0 if arrays and arrays[0].ndim <= 1 else 1)


@_export
def dstack(arrays):
    """Stack arrays along the third axis."""
    out = []
    for a in _as_list(arrays):
        if a.ndim < 2:
            a = a.reshape(1, -1, 1)
        elif a.ndim == 2:
            a = expand_dims(a, 2)
        out.append(a)
    return concatenate(out, axis=2)


@_export
def column_stack(tup):
    """1-D arrays as columns of a 2-D array."""
    return concatenate([a.reshape(-1, 1) if a.ndim < 2 else a for a in _as_list(tup)], axis=1)


def _split_at(ary, cuts, axis):
    outs = []
    for begin, end in zip(cuts[:-1], cuts[1:]):
        key = [slice(None)] * ary.ndim
        key[axis] = slice(begin, end)
        outs.append(ary[tuple(key)])
    return outs


def _section_cuts(n, indices_or_sections, even):
    """Split points along an axis of length n: equal sections for an int (even=True needs an
    exact division; otherwise the first n % sections parts get one more), or the given
    indices."""
    if isinstance(indices_or_sections, integer_types):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if even and n % sections:
            raise ValueError("array split does not result in an equal division")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        return [0] + [int(c) for c in _np.cumsum(sizes)]
    return [0] + [_builtins.min(int(i), n) for i in indices_or_sections] + [n]


@_export
def split(ary, indices_or_sections, axis=0):
    """ary split into equal sections (an int) or at the given indices along axis."""
    ary = asarray(ary)
    axis = _axes_of(axis, ary.ndim)[0]
    return _split_at(ary, _section_cuts(ary.shape[axis], indices_or_sections, True), axis)


@_export
def array_split(ary, indices_or_sections, axis=0):
    """As split, but an int number of sections need not divide the axis."""
    ary = asarray(ary)
    axis = _axes_of(axis, ary.ndim)[0]
    return _split_at(ary, _section_cuts(ary.shape[axis], indices_or_sections, False), axis)


@_export
def hsplit(ary, indices_or_sections):
    """split along axis 1 (axis 0 for 1-D arrays)."""
    return split(ary, indices_or_sections, axis=1 if asarray(ary).ndim > 1 else 0)


@_export
def vsplit(ary, indices_or_sections):
    """split along axis 0."""
    return split(ary, indices_or_sections, axis=0)


@_export
def flip(m, axis=None, out=None):
    """m with the order of elements reversed along axis (all axes by default)."""
    m = asarray(m)
    axes = _axes_of(axis, m.ndim)
    res = m if not axes or m.size == 0 else _invoke("reverse", m, axis=axes)
    if res is m:
        res = m.copy()
    return res if out is None else _copy_into(res, out)


@_export
def flipud(m):
    """Reverse along axis 0."""
    return flip(m, 0)


@_export
def fliplr(m):
    """Reverse along axis 1."""
    return flip(m, 1)


@_export
def tile(A, reps):  # pylint: disable=invalid-name
    """A repeated reps times (numpy's rules for differing lengths)."""
    A = asarray(A)
    reps = _shape_tuple(reps)
    nd = _builtins.max(A.ndim, len(reps))
    shape = (1,) * (nd - A.ndim) + A.shape
    reps = (1,) * (nd - len(reps)) + reps
    target = tuple(s * r for s, r in zip(shape, reps))
    if 0 in target:
        return zeros(target, dtype=A.dtype, ctx=A.context)
    if nd == 0:
        return A.copy()
    return _invoke("tile", A.reshape(shape), reps=reps)


@_export
def repeat(a, repeats, axis=None):
    """Each element of a repeated repeats times (along axis, or of the flattened array)."""
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = _axes_of(axis, a.ndim)[0]
    if not isinstance(repeats, integer_types):
        reps = list(repeats)
        if len(reps) == 1:
            repeats = int(reps[0])
        else:
            idx = _np.repeat(_np.arange(a.shape[axis]), reps)
            return take(a, _from_numpy(idx.astype(_np.int64), a.context), axis=axis)
    if repeats == 0 or a.size == 0:
        shape = list(a.shape)
        shape[axis] *= repeats
        return zeros(tuple(shape), dtype=a.dtype, ctx=a.context)
    return _invoke("repeat", a, repeats=int(repeats), axis=axis)


@_export
def take(a, indices, axis=None, mode="raise", out=None):
    """Elements of a at indices (along axis, or of the flattened array)."""
    a = asarray(a)
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError("take: mode must be 'raise', 'clip' or 'wrap'")
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = _axes_of(axis, a.ndim)[0]
    if isinstance(indices, integer_types):
        key = [slice(None)] * a.ndim
        key[axis] = int(indices)
        res = a[tuple(key)].copy()
        return res if out is None else _copy_into(res, out)
    idx = asarray(indices, dtype=_np.int64) if not isinstance(indices, NDArray) else indices
    res = _invoke("take", a, idx, axis=axis, mode="clip" if mode == "raise" else mode)
    target = a.shape[:axis] + idx.shape + a.shape[axis + 1:]
    if res.shape != target:
        res = res.reshape(target)
    return res if out is None else _copy_into(res, out)


@_export
def where(condition, x=None, y=None):
    """Elements of x where condition is true, else of y (broadcasting); with only condition,
    the indices of its nonzero elements."""
    if x is None and y is None:
        return nonzero(condition)
    arrays = [asarray(v) if not isinstance(v, numeric_types) else v for v in (condition, x, y)]
    cond = arrays[0]
    vals = []
    for v in arrays[1:]:
        if isinstance(v, numeric_types):
            v = array(v, dtype=_np.float32 if isinstance(v, float) else None,
                      ctx=cond.context)
        vals.append(v)
    dtype = _promote(vals[0].dtype, vals[1].dtype)
    shape = _np.broadcast_shapes(cond.shape, vals[0].shape, vals[1].shape)
    if 0 in shape:
        return zeros(shape, dtype=dtype, ctx=cond.context)
    c = _as_dtype(broadcast_to(cond, shape), dtype)
    a = _as_dtype(broadcast_to(vals[0], shape), dtype)
    b = _as_dtype(broadcast_to(vals[1], shape), dtype)
    return _invoke("where", c, a, b)


@_export
def nonzero(a):
    """Indices of the nonzero elements, one int64 array per axis."""
    idx = _np.nonzero(asarray(a).asnumpy())
    return tuple(_from_numpy(i.astype(_np.int64), a.context) for i in idx)


@_export
def argwhere(a):
    """Indices of nonzero elements grouped by element (int64, shape (N, a.ndim))."""
    return _from_numpy(_np.argwhere(asarray(a).asnumpy()).astype(_np.int64), a.context)


@_export
def sort(a, axis=-1, kind=None, order=None):  # pylint: disable=unused-argument
    """A sorted copy of a along axis (flattened for axis=None)."""
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.size == 0 or a.ndim == 0:
        return a.copy()
    return _invoke("sort", a, axis=int(axis))


@_export
def argsort(a, axis=-1, kind=None, order=None):  # pylint: disable=unused-argument
    """Indices that sort a along axis (int64)."""
    a = asarray(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.size == 0 or a.ndim == 0:
        return zeros(a.shape, dtype=_np.int64, ctx=a.context)
    return _invoke("argsort", a, axis=int(axis), dtype="int64")


@_export
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted unique elements (computed on the host, as MXNet 1.9.1's CPU path)."""
    ar = asarray(ar)
    res = _np.unique(ar.asnumpy(), return_index, return_inverse, return_counts, axis)
    if isinstance(res, tuple):
        return tuple(_from_numpy(r if i == 0 else r.astype(_np.int64), ar.context)
                     for i, r in enumerate(res))
    return _from_numpy(res, ar.context)


# ----------------------------------------------------------------------------- linear algebra
def _empty_contraction(a, b):
    """a (..., m, 0) times b (..., 0, n): zeros of shape (..., m, n) that stay in the graph
    (the sums over the empty axis, broadcast together)."""
    left = _invoke("sum", a, axis=(a.ndim - 1,), keepdims=True)      # (..., m, 1)
    right = _invoke("sum", b, axis=(b.ndim - 2,), keepdims=True)     # (..., 1, n)
    return _binary("add", left, right)


@_export
def dot(a, b, out=None):
    """numpy.dot: inner product of 1-D arrays, matrix product of 2-D arrays, sum over the last
    axis of a and the second-to-last of b otherwise; a scalar operand multiplies."""
    if isinstance(a, numeric_types) or isinstance(b, numeric_types) or \
            asarray(a).ndim == 0 or asarray(b).ndim == 0:
        return multiply(a, b, out=out)  # noqa: F821
    a, b = asarray(a), asarray(b)
    dtype = _promote(a.dtype, b.dtype)
    a, b = _as_dtype(a, dtype), _as_dtype(b, dtype)
    if a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
        raise MXNetError("Operator dot: shapes %s and %s not aligned" % (a.shape, b.shape))
    if b.ndim > 2:
        res = tensordot(a, moveaxis(b, -2, 0), axes=1)
    else:
        target = a.shape[:-1] + b.shape[1:]
        if 0 in target:
            res = _zero_size_from(a, target)
        elif a.shape[-1] == 0:
            m = int(_np.prod(a.shape[:-1])) if a.ndim > 1 else 1
            n = int(_np.prod(b.shape[1:])) if b.ndim > 1 else 1
            res = _empty_contraction(a.reshape(m, 0), b.reshape(0, n)).reshape(target)
        else:
            a2 = a.reshape(-1, a.shape[-1])
            b2 = b.reshape(b.shape[0], -1)
            res = _invoke("dot", a2, b2).reshape(target)
    return res if out is None else _copy_into(res, out)


@_export
def tensordot(a, b, axes=2):
    """Sum of products over the given axes (an int: the last axes of a with the first of b)."""
    a, b = asarray(a), asarray(b)
    if isinstance(axes, integer_types):
        axes_a = list(range(a.ndim - axes, a.ndim))
        axes_b = list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, integer_types) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, integer_types) else list(axes_b)
    axes_a = [x % a.ndim for x in axes_a]
    axes_b = [x % b.ndim for x in axes_b]
    if [a.shape[i] for i in axes_a] != [b.shape[i] for i in axes_b]:
        raise ValueError("shape-mismatch for sum")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = int(_np.prod([a.shape[i] for i in axes_a])) if axes_a else 1
    at = a.transpose(free_a + axes_a) if a.ndim > 1 else a
    bt = b.transpose(axes_b + free_b) if b.ndim > 1 else b
    target = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    m = int(_np.prod([a.shape[i] for i in free_a])) if free_a else 1
    n = int(_np.prod([b.shape[i] for i in free_b])) if free_b else 1
    dtype = _promote(a.dtype, b.dtype)
    if 0 in (m, n):
        return _zero_size_from(_as_dtype(a, dtype), target)
    if k == 0:
        return _empty_contraction(_as_dtype(at.reshape(m, 0), dtype),
                                  _as_dtype(bt.reshape(0, n), dtype)).reshape(target)
    res = _invoke("dot", _as_dtype(at.reshape(m, k), dtype), _as_dtype(bt.reshape(k, n), dtype))
    return res.reshape(target)


@_export
def matmul(a, b, out=None):
    """numpy.matmul: matrix product over the last two axes, batch axes broadcast."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        raise OperatorValueError("matmul: Input operand does not have enough dimensions")
    if a.ndim <= 2 and b.ndim <= 2:
        return dot(a, b, out=out)
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise OperatorValueError("matmul: Input operand 1 has a mismatch in its core dimension 0 "
                         "(size %d is different from %d)" % (b2.shape[-2], a2.shape[-1]))
    try:
        batch = _np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError as e:
        raise OperatorValueError("matmul: %s" % e) from None
    dtype = _promote(a.dtype, b.dtype)
    target = batch + (a2.shape[-2], b2.shape[-1])
    if 0 in target or a2.shape[-1] == 0:
        if 0 in target:
            res = _zero_size_from(_as_dtype(a, dtype), target)
        else:
            res = _empty_contraction(
                _as_dtype(broadcast_to(a2, batch + a2.shape[-2:]), dtype),
                _as_dtype(broadcast_to(b2, batch + b2.shape[-2:]), dtype))
        if a.ndim == 1:
            res = squeeze(res, -2)
        if b.ndim == 1:
            res = squeeze(res, -1)
        return res if out is None else _copy_into(res, out)
    a3 = _as_dtype(broadcast_to(a2, batch + a2.shape[-2:]), dtype).reshape(-1, *a2.shape[-2:])
    b3 = _as_dtype(broadcast_to(b2, batch + b2.shape[-2:]), dtype).reshape(-1, *b2.shape[-2:])
    res = _invoke("batch_dot", a3, b3).reshape(batch + (a2.shape[-2], b2.shape[-1]))
    if a.ndim == 1:
        res = squeeze(res, -2)
    if b.ndim == 1:
        res = squeeze(res, -1)
    return res if out is None else _copy_into(res, out)


@_export
def inner(a, b):
    """Sum of products over the last axes."""
    return tensordot(a, b, axes=([-1], [-1]))


@_export
def outer(a, b):
    """Outer product of the flattened arrays."""
    return _binary("multiply", asarray(a).reshape(-1, 1), asarray(b).reshape(1, -1))


@_export
def vdot(a, b):
    """Dot product of the flattened arrays."""
    return dot(asarray(a).reshape(-1), asarray(b).reshape(-1))


@_export
def trace(a, offset=0, axis1=0, axis2=1):
    """Sum along a diagonal."""
    a = asarray(a)
    ax1, ax2 = _axes_of(axis1, a.ndim)[0], _axes_of(axis2, a.ndim)[0]
    if not -a.shape[ax1] < offset < a.shape[ax2]:  # past the edge: the sum of nothing
        rest = tuple(d for i, d in enumerate(a.shape) if i not in (ax1, ax2))
        return zeros(rest, dtype=a.dtype, ctx=a.context)
    d = _invoke("diag", a, k=offset, axis1=axis1, axis2=axis2)
    return sum(d, axis=-1)


@_export
def diag(v, k=0):
    """The k-th diagonal of a 2-D array (empty when k is past the edge), or a 2-D array with
    the 1-D v on it."""
    v = asarray(v)
    if v.ndim == 2 and not -v.shape[0] < k < v.shape[1]:
        return _zero_size_from(v, (0,))
    return _invoke("diag", v, k=int(k))


@_export
def shape(a):
    """The shape of a."""
    return asarray(a).shape


@_export
def size(a):
    """The number of elements of a."""
    return asarray(a).size


@_export
def ndim(a):
    """The number of axes of a."""
    return asarray(a).ndim


@_export
def array_equal(a1, a2):
    """Whether the arrays have the same shape and elements."""
    a1, a2 = asarray(a1), asarray(a2)
    return a1.shape == a2.shape and bool(all(_binary("equal", a1, a2)))


@_export
def may_share_memory(a, b, max_work=None):  # pylint: disable=unused-argument
    """Whether a and b are views of one buffer whose byte ranges overlap."""
    if a._chunk_id != b._chunk_id or a.size == 0 or b.size == 0:
        return False
    a0, b0 = a._byte_offset, b._byte_offset
    return a0 < b0 + b.size * b.dtype.itemsize and b0 < a0 + a.size * a.dtype.itemsize


shares_memory = may_share_memory
__all__.append("shares_memory")

