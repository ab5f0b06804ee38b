"""More mx.np functions (numpy's function_base / shape_base / twodim_base families), composed
from recorded mx.np operations so autograd flows through them; index-only results (indices,
unravel_index, bincount) are computed on the host."""
# pylint: disable=redefined-builtin
import numpy as _np

from ..base import integer_types
from .multiarray import NDArray, _zero_size_from, _binary, _as_dtype, _from_numpy, \
    _shape_tuple, _axes_of, _invoke, _is_float
from . import _op as _npo

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "tril", "triu", "roll", "diff", "ediff1d",
           "meshgrid", "indices", "logspace", "dsplit", "diagflat", "diagonal", "rot90",
           "nan_to_num", "bincount", "average", "resize", "unravel_index",
           "diag_indices_from", "tri", "lcm", "gcd", "fabs", "bitwise_not", "invert", "pad",
           "einsum"]


def _atleast(arys, ndim, place):
    outs = []
    for a in arys:
        a = _npo.asarray(a)
        if a.ndim < ndim:
            a = a.reshape(place(a.shape))
        outs.append(a)
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*arys):
    """Each array with at least one axis."""
    return _atleast(arys, 1, lambda s: s or (1,))


def atleast_2d(*arys):
    """Each array with at least two axes (new ones in front)."""
    return _atleast(arys, 2, lambda s: (1,) * (2 - len(s)) + s)


def atleast_3d(*arys):
    """Each array with at least three axes (numpy's placement: (N,) -> (1, N, 1))."""
    return _atleast(arys, 3, lambda s: {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}[len(s)])


def _tri_mask(n, m, k, lower, dtype, ctx):
    mask = _np.tri(n, m, k, dtype=dtype)
    return _from_numpy(mask if lower else 1 - mask, ctx)


def tri(N, M=None, k=0, dtype=None, ctx=None):  # pylint: disable=invalid-name
    """Ones at and below the k-th diagonal (float32 by default)."""
    return _from_numpy(_np.tri(N, M, k, dtype=_np.float32 if dtype is None else dtype), ctx)


def tril(m, k=0):
    """m with the elements above the k-th diagonal zeroed (last two axes)."""
    m = _npo.asarray(m)
    if m.ndim < 2:
        m = _npo.broadcast_to(m, (m.shape[-1] if m.ndim else 1,) * 2)
    return _binary("multiply", m, _tri_mask(m.shape[-2], m.shape[-1], k, True, m.dtype,
                                            m.context))


def triu(m, k=0):
    """m with the elements below the k-th diagonal zeroed (last two axes)."""
    m = _npo.asarray(m)
    if m.ndim < 2:
        m = _npo.broadcast_to(m, (m.shape[-1] if m.ndim else 1,) * 2)
    return _binary("multiply", m, _tri_mask(m.shape[-2], m.shape[-1], k - 1, False, m.dtype,
                                            m.context))


def roll(a, shift, axis=None):
    """Elements rolled by shift along axis (of the flattened array by default)."""
    a = _npo.asarray(a)
    if axis is None:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    axes = _axes_of(axis, a.ndim)
    shifts = (shift,) * len(axes) if isinstance(shift, integer_types) else tuple(shift)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        elif len(axes) == 1:
            axes = axes * len(shifts)
        else:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    out = a
    for ax, sh in zip(axes, shifts):
        n = out.shape[ax]
        if n == 0 or sh % n == 0:
            continue
        idx = _from_numpy((_np.arange(n) - sh) % n, a.context)
        out = _npo.take(out, idx, axis=ax)
    return out if out is not a else a.copy()


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """n-th discrete difference along axis."""
    a = _npo.asarray(a)
    if n < 0:
        raise ValueError("order must be non-negative but got %d" % n)
    if prepend is not None or append is not None:
        parts = [p if isinstance(p, NDArray) else
                 _npo.broadcast_to(_npo.array(p, dtype=a.dtype),
                                   tuple(1 if i == _axes_of(axis, a.ndim)[0] else d
                                         for i, d in enumerate(a.shape)))
                 for p in (prepend, a, append) if p is not None]
        a = _npo.concatenate(parts, axis=axis)
    ax = _axes_of(axis, a.ndim)[0]
    for _ in range(n):
        lead = (slice(None),) * ax
        a = _binary("subtract", a[lead + (slice(1, None),)], a[lead + (slice(None, -1),)])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array, with optional ends."""
    ary = _npo.asarray(ary).reshape(-1)
    parts = []
    if to_begin is not None:
        parts.append(_npo.asarray(to_begin, dtype=ary.dtype).reshape(-1))
    parts.append(diff(ary) if ary.size > 1 else _npo.zeros((0,), dtype=ary.dtype))
    if to_end is not None:
        parts.append(_npo.asarray(to_end, dtype=ary.dtype).reshape(-1))
    return _npo.concatenate(parts) if len(parts) > 1 else parts[0]


def meshgrid(*xi, **kwargs):
    """Coordinate matrices from coordinate vectors (indexing 'xy' or 'ij')."""
    indexing = kwargs.pop("indexing", "xy")
    sparse = kwargs.pop("sparse", False)
    copy = kwargs.pop("copy", True)  # pylint: disable=unused-variable
    if kwargs:
        raise TypeError("meshgrid() got unexpected keyword argument(s) %s" % list(kwargs))
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [_npo.asarray(x).reshape(-1) for x in xi]
    nd = len(xs)
    shapes = []
    for i, x in enumerate(xs):
        s = [1] * nd
        s[i] = x.size
        shapes.append(s)
    if indexing == "xy" and nd > 1:
        for s in shapes:
            s[0], s[1] = s[1], s[0]
    out = [x.reshape(tuple(s)) for x, s in zip(xs, shapes)]
    if sparse:
        return out
    full = tuple(max(s[i] for s in shapes) for i in range(nd))
    return [_npo.broadcast_to(o, full) for o in out]


def indices(dimensions, dtype=_np.int32, ctx=None):
    """The grid of indices of an array of shape dimensions (int32 by default, as MXNet
    1.9.1)."""
    return _from_numpy(_np.indices(_shape_tuple(dimensions), dtype=dtype), ctx)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """base ** linspace(start, stop, num)."""
    exps = _npo.linspace(start, stop, num, endpoint=endpoint, axis=axis, ctx=ctx)
    res = _binary("power", float(base), exps)
    return res if dtype is None else res.astype(dtype)


def dsplit(ary, indices_or_sections):
    """split along axis 2."""
    if _npo.asarray(ary).ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _npo.split(ary, indices_or_sections, axis=2)


def diagflat(v, k=0):
    """A 2-D array with the flattened v on its k-th diagonal."""
    return _invoke("diag", _npo.asarray(v).reshape(-1), k=int(k))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal at offset of the (axis1, axis2) planes, as the last axis (empty past the
    edge)."""
    a = _npo.asarray(a)
    ax1, ax2 = _axes_of(axis1, a.ndim)[0], _axes_of(axis2, a.ndim)[0]
    if not -a.shape[ax1] < offset < a.shape[ax2]:
        rest = tuple(d for i, d in enumerate(a.shape) if i not in (ax1, ax2))
        return _zero_size_from(a, rest + (0,))
    return _invoke("diag", a, k=int(offset), axis1=int(axis1), axis2=int(axis2))


def rot90(m, k=1, axes=(0, 1)):
    """m rotated by 90 degrees k times in the plane of axes."""
    m = _npo.asarray(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    a0, a1 = _axes_of(axes[0], m.ndim)[0], _axes_of(axes[1], m.ndim)[0]
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return m.copy()
    if k == 2:
        return _npo.flip(_npo.flip(m, a0), a1)
    order = list(range(m.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return _npo.flip(m, a1).transpose(order)
    return _npo.flip(m.transpose(order), a1)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf (the largest finite value by default), -inf -> neginf."""
    x = _npo.asarray(x)
    if not _is_float(x.dtype):
        return x.copy() if copy else x
    info = _np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    res = _npo.where(_npo.isnan(x), nan, x)
    res = _npo.where(_npo.isposinf(res), posinf, res)
    res = _as_dtype(_npo.where(_npo.isneginf(res), neginf, res), x.dtype)
    if not copy:
        x[...] = res
        return x
    return res


def bincount(x, weights=None, minlength=0):
    """Counts of each value of the non-negative int array x (weighted sums with weights)."""
    xs = _npo.asarray(x)
    if xs.ndim != 1:
        raise ValueError("object too deep for desired array")
    if not _np.issubdtype(xs.dtype, _np.integer):
        raise TypeError("Cannot cast array data from %s to int64" % xs.dtype)
    w = None if weights is None else _npo.asarray(weights).asnumpy()
    res = _np.bincount(xs.asnumpy(), w, minlength)
    return _from_numpy(res if w is not None else res.astype(_np.int64), xs.context)


def average(a, axis=None, weights=None, returned=False, out=None):
    """Weighted mean along axis (weights broadcast along that axis)."""
    a = _npo.asarray(a)
    if weights is None:
        avg = _npo.mean(a, axis=axis)
        scl = _npo.full(avg.shape, a.size / max(avg.size, 1), dtype=avg.dtype)
    else:
        w = _npo.asarray(weights)
        if w.shape != a.shape:
            if axis is None or w.ndim != 1:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            ax = _axes_of(axis, a.ndim)[0]
            w = w.reshape(tuple(w.size if i == ax else 1 for i in range(a.ndim)))
            w = _npo.broadcast_to(w, a.shape)
        scl = _npo.sum(w, axis=axis)
        if _np.any(scl.asnumpy() == 0):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = _binary("true_divide", _npo.sum(_binary("multiply", a, w), axis=axis), scl)
    if out is not None:
        out[...] = avg
        avg = out
    return (avg, scl) if returned else avg


def resize(a, new_shape):
    """a repeated (flattened, cyclically) to fill new_shape."""
    a = _npo.asarray(a)
    new_shape = _shape_tuple(new_shape)
    total = int(_np.prod(new_shape)) if new_shape else 1
    if a.size == 0 or total == 0:
        return _npo.zeros(new_shape, dtype=a.dtype, ctx=a.context)
    idx = _from_numpy(_np.arange(total) % a.size, a.context)
    return _npo.take(a.reshape(-1), idx).reshape(new_shape)


def unravel_index(indices, shape, order="C"):  # pylint: disable=redefined-outer-name
    """Tuple of coordinate arrays of flat indices into an array of shape."""
    idx = indices.asnumpy() if isinstance(indices, NDArray) else _np.asarray(indices)
    res = _np.unravel_index(idx.astype(_np.int64), _shape_tuple(shape), order=order)
    ctx = indices.context if isinstance(indices, NDArray) else None
    return tuple(_from_numpy(_np.asarray(r, dtype=_np.int64), ctx) for r in res)


def diag_indices_from(arr):
    """Indices of the main diagonal of the n-d square array arr."""
    arr = _npo.asarray(arr)
    if arr.ndim < 2 or len(set(arr.shape)) != 1:
        raise ValueError("input array must be at least 2-d and all dimensions equal")
    return tuple(_from_numpy(i.astype(_np.int64), arr.context)
                 for i in _np.diag_indices(arr.shape[0], arr.ndim))


def _int_binary(fn, x1, x2):
    a1 = x1.asnumpy() if isinstance(x1, NDArray) else _np.asarray(x1)
    a2 = x2.asnumpy() if isinstance(x2, NDArray) else _np.asarray(x2)
    ctx = x1.context if isinstance(x1, NDArray) else getattr(x2, "context", None)
    return _from_numpy(_np.asarray(fn(a1, a2)), ctx)


def fabs(x, out=None):
    """Absolute values as floats."""
    x = _npo.asarray(x)
    return _npo.absolute(x if _is_float(x.dtype) else _as_dtype(x, _np.float32), out=out)


def bitwise_not(x, out=None, **kwargs):
    """Element-wise bit inversion of bool and integer arrays (~x == -x - 1 for ints)."""
    _npo._check_ufunc_kwargs("bitwise_not", kwargs)
    x = _npo.asarray(x)
    if x.dtype == _np.bool_:
        res = _npo.logical_not(x)
    elif _np.issubdtype(x.dtype, _np.integer):
        res = _binary("subtract", _npo.negative(x), 1)
    else:
        raise TypeError("ufunc 'invert' not supported for the input types")
    if out is not None:
        out[...] = res
        return out
    return res


invert = bitwise_not


def pad(x, pad_width, mode="constant", constant_values=0, **kwargs):
    """x padded by pad_width (per axis (before, after), or one pair / number for all axes) in
    mode 'constant' (constant_values) or 'edge', built by concatenation so gradients flow."""
    if kwargs:
        raise NotImplementedError("pad: keyword(s) %s are not supported" % list(kwargs))
    x = _npo.asarray(x)
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (x.ndim, 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    if mode not in ("constant", "edge"):
        raise NotImplementedError("pad: mode %r is not supported (constant, edge are)" % (mode,))
    out = x
    for ax in range(x.ndim):
        before, after = int(widths[ax, 0]), int(widths[ax, 1])
        if before == 0 and after == 0:
            continue
        parts = []
        for width, edge in ((before, 0), (None, None), (after, -1)):
            if width is None:
                parts.append(out)
                continue
            if width == 0:
                continue
            shape = out.shape[:ax] + (width,) + out.shape[ax + 1:]
            if mode == "constant":
                parts.append(_npo.full(shape, constant_values, dtype=out.dtype,
                                       ctx=out.context))
            else:
                if out.shape[ax] == 0:
                    raise ValueError("can't extend empty axis %d using modes other than "
                                     "'constant' or 'empty'" % ax)
                key = (slice(None),) * ax + (slice(edge, edge + 1 if edge != -1 else None),)
                parts.append(_npo.broadcast_to(out[key], shape))
        out = _npo.concatenate(parts, axis=ax)
    return out


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation over explicit subscripts ('ij,jk->ik'; without '->' the output is
    the labels seen once, sorted). Each operand's labels are distinct and without '...'. The
    operands broadcast to a common label order, multiply, and the labels not in the output
    are summed (differentiable)."""
    optimize = kwargs.pop("optimize", False)  # pylint: disable=unused-variable
    if kwargs:
        raise TypeError("einsum() got unexpected keyword argument(s) %s" % list(kwargs))
    subscripts = subscripts.replace(" ", "")
    if "..." in subscripts:
        raise NotImplementedError("einsum: '...' (ellipsis) is not supported yet")
    inputs, _, output = subscripts.partition("->")
    in_labels = inputs.split(",")
    if len(in_labels) != len(operands):
        raise ValueError("einsum: %d operands for %d subscripts" % (len(operands),
                                                                      len(in_labels)))
    if not _:
        counts = {}
        for lab in "".join(in_labels):
            counts[lab] = counts.get(lab, 0) + 1
        output = "".join(sorted(l for l, c in counts.items() if c == 1))
    arrays = [_npo.asarray(op) for op in operands]
    order = list(output) + sorted(set("".join(in_labels)) - set(output))
    sizes = {}
    aligned = []
    for labels, a in zip(in_labels, arrays):
        if len(set(labels)) != len(labels):
            raise NotImplementedError("einsum: a label repeated within one operand (%r) is "
                                      "not supported yet" % labels)
        if len(labels) != a.ndim:
            raise ValueError("einsum: operand has %d axes, subscripts %r" % (a.ndim, labels))
        for lab, d in zip(labels, a.shape):
            if sizes.setdefault(lab, d) != d and d != 1 and sizes[lab] != 1:
                raise ValueError("einsum: size of label %r differs (%d, %d)"
                                 % (lab, sizes[lab], d))
            sizes[lab] = max(sizes[lab], d)
        present = [lab for lab in order if lab in labels]
        t = a.transpose([labels.index(lab) for lab in present]) if a.ndim > 1 else a
        aligned.append(t.reshape(tuple(sizes[lab] if lab in labels else 1 for lab in order)
                                 if t.ndim else (1,) * len(order)))
    prod = aligned[0]
    for t in aligned[1:]:
        prod = _binary("multiply", prod, t)
    full = tuple(sizes[lab] for lab in order)
    if prod.shape != full:
        prod = _npo.broadcast_to(prod, full)
    summed = tuple(range(len(output), len(order)))
    return _npo.sum(prod, axis=summed) if summed else prod.copy()


def _window(fn, M, dtype, ctx):
    return _from_numpy(fn(int(M)).astype(_np.float32 if dtype is None else dtype), ctx)


def hanning(M, dtype=None, ctx=None):  # pylint: disable=invalid-name
    """The Hann window of M points (float32 by default)."""
    return _window(_np.hanning, M, dtype, ctx)


def hamming(M, dtype=None, ctx=None):  # pylint: disable=invalid-name
    """The Hamming window of M points (float32 by default)."""
    return _window(_np.hamming, M, dtype, ctx)


def blackman(M, dtype=None, ctx=None):  # pylint: disable=invalid-name
    """The Blackman window of M points (float32 by default)."""
    return _window(_np.blackman, M, dtype, ctx)


def _host_int_op(name, fn):
    def func(x1, x2, out=None, **kwargs):
        _npo._check_ufunc_kwargs(name, kwargs)
        res = _int_binary(fn, x1, x2)
        if out is not None:
            out[...] = res
            return out
        return res
    func.__name__ = name
    func.__doc__ = "Element-wise %s of integer arrays (computed on the host)." % name
    return func


lcm = _host_int_op("lcm", _np.lcm)
gcd = _host_int_op("gcd", _np.gcd)
bitwise_and = _host_int_op("bitwise_and", _np.bitwise_and)
bitwise_or = _host_int_op("bitwise_or", _np.bitwise_or)
bitwise_xor = _host_int_op("bitwise_xor", _np.bitwise_xor)


def polyval(p, x):
    """The polynomial with coefficients p (highest power first) at x, by Horner's rule
    (differentiable in p and x)."""
    p, x = _npo.asarray(p), _npo.asarray(x)
    if p.ndim != 1:
        raise ValueError("polyval: p must be 1-D")
    res = _npo.zeros_like(x, dtype=_npo._promote(p.dtype, x.dtype))
    for i in range(p.shape[0]):
        res = _binary("add", _binary("multiply", res, x), p[i])
    return res


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):
    # pylint: disable=redefined-builtin
    """(counts, bin_edges) as numpy.histogram (computed on the host)."""
    if normed is not None or weights is not None or density is not None:
        raise NotImplementedError("histogram: normed, weights and density are not supported")
    a = _npo.asarray(a)
    b = bins.asnumpy() if isinstance(bins, NDArray) else bins
    counts, edges = _np.histogram(a.asnumpy(), b, range)
    return (_from_numpy(counts.astype(_np.int64), a.context),
            _from_numpy(edges.astype(a.dtype if _is_float(a.dtype) else _np.float32),
                        a.context))


def _host_stat(fn, a, q, axis, interpolation, keepdims):
    a = _npo.asarray(a)
    qs = q.asnumpy() if isinstance(q, NDArray) else q
    res = fn(a.asnumpy(), qs, axis=axis, method=interpolation, keepdims=keepdims)
    return _from_numpy(_np.asarray(res, dtype=a.dtype if _is_float(a.dtype) else _np.float64),
                       a.context)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
             keepdims=False):  # pylint: disable=unused-argument
    """q-th quantiles (q in [0, 1]) along axis (computed on the host)."""
    res = _host_stat(_np.quantile, a, q, axis, interpolation, keepdims)
    if out is not None:
        out[...] = res
        return out
    return res


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
               keepdims=False):  # pylint: disable=unused-argument
    """q-th percentiles (q in [0, 100]) along axis (computed on the host)."""
    res = _host_stat(_np.percentile, a, q, axis, interpolation, keepdims)
    if out is not None:
        out[...] = res
        return out
    return res


__all__ += ["hanning", "hamming", "blackman", "bitwise_and", "bitwise_or", "bitwise_xor",
            "polyval", "histogram", "quantile", "percentile"]
