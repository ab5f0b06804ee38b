"""mx.np.linalg: norm, and the decompositions MXNet's linalg operators give."""
import numpy as _np

from .multiarray import _invoke, _binary, _as_dtype, _is_float
from . import _op as _npo
from . import function_base as _fb

__all__ = ["norm", "det", "inv", "slogdet", "cholesky"]


def norm(x, ord=None, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Vector norms (ord None/2, 1, inf, -inf, 0, or any p over one axis) and matrix norms
    (ord None/'fro', 1, -1, inf, -inf over two axes); the 2-norm of the flattened array for
    ord=None and axis=None."""
    x = _npo.asarray(x)
    if not _is_float(x.dtype):
        x = _as_dtype(x, _np.float32)
    if axis is None and ord is None:
        return _invoke("sqrt", _npo.sum(_binary("multiply", x, x), keepdims=keepdims))
    if axis is None:
        axis = tuple(range(x.ndim)) if x.ndim <= 2 else None
        if axis is None:
            raise ValueError("Improper number of dimensions to norm.")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    absx = _invoke("abs", x)
    if len(axes) == 1:
        if ord in (None, 2):
            return _invoke("sqrt", _npo.sum(_binary("multiply", x, x), axis=axes,
                                            keepdims=keepdims))
        if ord in (_np.inf, "inf"):
            return _npo.max(absx, axis=axes, keepdims=keepdims)
        if ord in (-_np.inf, "-inf"):
            return _npo.min(absx, axis=axes, keepdims=keepdims)
        if ord == 0:
            return _npo.sum(_as_dtype(_binary("not_equal", x, 0), x.dtype), axis=axes,
                            keepdims=keepdims)
        if isinstance(ord, str):
            raise ValueError("Invalid norm order '%s' for vectors" % ord)
        p = float(ord)
        return _binary("power", _npo.sum(_binary("power", absx, p), axis=axes,
                                         keepdims=keepdims), 1.0 / p)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = (a % x.ndim for a in axes)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord in (None, "fro"):
        return _invoke("sqrt", _npo.sum(_binary("multiply", x, x), axis=axes, keepdims=keepdims))
    if ord in (1, -1, _np.inf, -_np.inf):
        sum_axis, pick_axis = (row, col) if ord in (1, -1) else (col, row)
        sums = _npo.sum(absx, axis=sum_axis, keepdims=True)
        pick = _npo.max if ord in (1, _np.inf) else _npo.min
        res = pick(sums, axis=pick_axis, keepdims=True)
        if not keepdims:
            res = _npo.squeeze(res, axis=(row, col))
        return res
    raise NotImplementedError("norm: ord=%r for matrices is not supported (None, 'fro', 1, "
                              "-1, inf, -inf are)" % (ord,))


def det(a):
    """Determinant of (a stack of) square matrices."""
    a = _npo.asarray(a)
    return _invoke("_linalg_det", a).reshape(a.shape[:-2])


def inv(a):
    """Inverse of (a stack of) square matrices."""
    return _invoke("_linalg_inverse", a)


def slogdet(a):
    """(sign, log|det|) of (a stack of) square matrices."""
    a = _npo.asarray(a)
    return tuple(r.reshape(a.shape[:-2]) for r in _invoke("_linalg_slogdet", a))


def cholesky(a):
    """Lower Cholesky factor of (a stack of) symmetric positive-definite matrices."""
    return _invoke("_linalg_potrf", a)


def solve(a, b):
    """x with a @ x = b (through the inverse of a; b a vector or a stack of matrices)."""
    a, b = _npo.asarray(a), _npo.asarray(b)
    inv_a = inv(a)
    if b.ndim == a.ndim - 1:
        return _npo.matmul(inv_a, _npo.expand_dims(b, -1))[..., 0]
    return _npo.matmul(inv_a, b)


def eigh(a, UPLO="L"):  # pylint: disable=invalid-name
    """(eigenvalues ascending, eigenvectors as columns) of symmetric matrices (the lower
    triangle is read, or the upper one with UPLO='U')."""
    a = _npo.asarray(a)
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    if a.dtype == _np.float16:  # the eigensolver takes float32 / float64
        w, v = eigh(_as_dtype(a, _np.float32), UPLO)
        return _as_dtype(w, _np.float16), _as_dtype(v, _np.float16)
    if not _is_float(a.dtype):  # integer input: float32 results (MXNet 1.9.1)
        return eigh(_as_dtype(a, _np.float32), UPLO)
    sym = _fb.tril(a) if UPLO == "L" else _fb.triu(a)
    diag_part = _fb.tril(_fb.triu(a))
    full = sym + _npo.swapaxes(sym, -1, -2) - diag_part
    u, w = _invoke("_linalg_syevd", full)
    return w, _npo.swapaxes(u, -1, -2)


def eigvalsh(a, UPLO="L"):  # pylint: disable=invalid-name
    """Eigenvalues (ascending) of symmetric matrices."""
    return eigh(a, UPLO)[0]


__all__ += ["solve", "eigh", "eigvalsh"]
