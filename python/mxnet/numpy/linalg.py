"""mx.np.linalg: norm, and the decompositions MXNet's linalg operators give."""
import numpy as _np

from .multiarray import _invoke, _binary, _as_dtype, _is_float
from . import _op as _npo
from . import function_base as _fb

__all__ = ["norm", "det", "inv", "slogdet", "cholesky"]


def norm(x, ord=None, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Frobenius / 2-norm (ord None or 'fro' or 2 for vectors), 1-norm or inf-norm of vectors."""
    x = _npo.asarray(x)
    if not _is_float(x.dtype):
        x = _as_dtype(x, _np.float32)
    if ord in (None, "fro", 2) and (ord != 2 or axis is None and x.ndim == 1 or
                                    isinstance(axis, int)):
        return _invoke("sqrt", _npo.sum(_binary("multiply", x, x), axis=axis, keepdims=keepdims))
    if ord == 1 and (x.ndim == 1 or isinstance(axis, int)):
        return _npo.sum(_invoke("abs", x), axis=axis, keepdims=keepdims)
    if ord in (_np.inf, "inf") and (x.ndim == 1 or isinstance(axis, int)):
        return _npo.max(_invoke("abs", x), axis=axis, keepdims=keepdims)
    raise NotImplementedError("norm: ord=%r with axis=%r is not supported" % (ord, axis))


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
    sym = _fb.tril(a) if UPLO == "L" else _fb.triu(a)
    diag_part = _fb.tril(_fb.triu(a))
    full = sym + _npo.swapaxes(sym, -1, -2) - diag_part
    u, w = _invoke("_linalg_syevd", full)
    return w, _npo.swapaxes(u, -1, -2)


def eigvalsh(a, UPLO="L"):  # pylint: disable=invalid-name
    """Eigenvalues (ascending) of symmetric matrices."""
    return eigh(a, UPLO)[0]


__all__ += ["solve", "eigh", "eigvalsh"]
