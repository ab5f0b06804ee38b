"""mx.test_utils: helpers for testing operators and random generators (MXNet 1.9 names and
signatures; the generator checks live in _test_stats.py, downloads and datasets in
_test_data.py). Like MXNet 1.9's module it has no __all__: `from mxnet.test_utils import *`
gives every public name below, the imported modules (np, mx, os, ...) included."""
# pylint: disable=unused-import
import bz2
import errno
import gzip
import json
import logging
import numbers
import os
import platform
import struct
import sys
import time
import traceback
import zipfile
from collections import OrderedDict
from contextlib import contextmanager

import numpy as np
import numpy.random as rnd
import numpy.testing as npt

import mxnet as mx
from .base import MXNetError
from .context import Context, current_context
from .ndarray import array
from .ndarray.ndarray import NDArray
from .symbol import Symbol
from .util import use_np, getenv, setenv, get_cuda_compute_capability
from .runtime import Features
from . import ndarray as nd
from . import autograd
from ._test_np import check_gluon_hybridize_consistency  # noqa: E402,F401
from ._test_stats import (gen_buckets_probs_with_ppf, mean_check, var_check, chi_square_check,
                          verify_generator)
from ._test_sparse import (rand_sparse_ndarray, create_sparse_array, create_sparse_array_zd,
                           shuffle_csr_column_indices)
from ._test_data import (list_gpus, download, get_zip_data, get_bz2_data, get_mnist_pkl,
                         get_mnist_ubyte, get_cifar10, get_mnist, get_im2rec_path)
# pylint: enable=unused-import


# ----------------------------------------------------------------------------- defaults
def default_context():
    """The context tests run on: the default context of this thread."""
    return current_context()


def set_default_context(ctx):
    """Make ctx the default context of this thread (what mx.current_context() returns)."""
    Context._default_ctx.value = ctx


def default_dtype():
    """The dtype random test data gets (float32)."""
    return np.float32


def default_rtols():
    """Default relative tolerance of comparisons, per dtype (0 for exact types)."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4,
            np.dtype(np.float64): 1e-5, np.dtype(np.bool_): 0, np.dtype(np.int8): 0,
            np.dtype(np.uint8): 0, np.dtype(np.int32): 0, np.dtype(np.uint32): 0,
            np.dtype(np.int64): 0, np.dtype(np.uint64): 0}


def default_atols():
    """Default absolute tolerance of comparisons, per dtype (0 for exact types)."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
            np.dtype(np.float64): 1e-20, np.dtype(np.bool_): 0, np.dtype(np.int8): 0,
            np.dtype(np.uint8): 0, np.dtype(np.int32): 0, np.dtype(np.uint32): 0,
            np.dtype(np.int64): 0, np.dtype(np.uint64): 0}


def default_numeric_eps():
    """Finite-difference step per dtype (powers of two: no bits lost in x + eps)."""
    return {np.dtype(np.float16): 1.0 / 2**6, np.dtype(np.float32): 1.0 / 2**9,
            np.dtype(np.float64): 1.0 / 2**14}


def effective_dtype(dat):
    """The dtype whose tolerance fits comparisons of dat: float16 for float32 data on a GPU
    of compute capability 8.0 or more with TF32 on (its GEMMs round inputs to 10 bits),
    else dat's own dtype."""
    ctx = getattr(dat, "ctx", None)
    dtype = np.dtype(dat.dtype)
    if dtype == np.dtype(np.float32) and ctx is not None and ctx.device_type == "gpu":
        try:
            if (get_cuda_compute_capability(ctx) >= 80
                    and os.environ.get("NVIDIA_TF32_OVERRIDE") != "0"):
                return np.dtype(np.float16)
        except (MXNetError, ValueError):
            pass
    return dtype


def get_tolerance(dat, tol, default_tol):
    """tol itself when a number; else tol's (a dict dtype -> float) or default_tol's entry for
    dat's effective dtype (0 for a dtype neither lists that is not floating point)."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    if dtype in tol:
        return tol[dtype]
    if dtype in default_tol:
        return default_tol[dtype]
    return default_tol[np.dtype(np.float32)] if dtype.kind == "f" else 0


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing x and y: the given ones, or the larger default of the two
    dtypes."""
    if not hasattr(x, "dtype"):  # a number or a list
        x = np.asarray(x)
    if not hasattr(y, "dtype"):
        y = np.asarray(y)
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """atol, or the default absolute tolerance of dtype."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """rtol, or the default relative tolerance of dtype."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """etol, or the default tolerated error rate (0)."""
    return 0 if etol is None else etol


# ----------------------------------------------------------------------------- random data
def random_arrays(*shapes):
    """Standard-normal numpy arrays of default_dtype(), one per shape (one array for one shape)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0 else
              np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, **kwargs):
    """Uniform numpy arrays in [low, high) (keywords low=0, high=1, dtype), always a list."""
    low = kwargs.pop("low", 0.0)
    high = kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if kwargs:
        raise TypeError("random_uniform_arrays: unexpected arguments %s" % sorted(kwargs))
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """k elements of the list population in random order (without repetition)."""
    assert 0 <= k <= len(population)
    population_copy = population[:]
    np.random.shuffle(population_copy)
    return population_copy[0:k]


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray: standard-normal values (as random_arrays) of dtype (float32 when
    None) on ctx (default_context()); for stype 'row_sparse' or 'csr' a random sparse array
    (rand_sparse_ndarray) of that density."""
    ctx = ctx if ctx else default_context()
    if stype != "default":
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, modifier_func=modifier_func,
                                     dtype=dtype, shuffle_csr_indices=shuffle_csr_indices,
                                     distribution=distribution, ctx=ctx)
        return arr
    return nd.array(random_arrays(shape), dtype=dtype, ctx=ctx)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape, each dim in [1, dim] ([0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape, each dim in [1, dim] ([0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1), rnd.randint(low, dim2 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape of num_dim dims, each in [1, dim] ([0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return tuple(rnd.randint(low, dim + 1, size=num_dim).tolist())


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random int64 point (x, y) with x in [x_low, x_high) and y in [y_low, y_high)."""
    x = np.random.randint(x_low, x_high, dtype=np.int64)
    y = np.random.randint(y_low, y_high, dtype=np.int64)
    return x, y


def assign_each(the_input, function):
    """numpy array of function(x) for each element x of the_input (a copy when function is
    None)."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[np.float64])(the_input).reshape(np.shape(the_input))


def assign_each2(input1, input2, function):
    """numpy array of function(x, y) over the elements of two same-shaped arrays (a copy of
    input1 when function is None)."""
    if function is None:
        return np.array(input1)
    assert np.shape(input1) == np.shape(input2)
    return np.vectorize(function, otypes=[np.float64])(input1, input2).reshape(np.shape(input1))


def create_2d_tensor(rows, columns, dtype=np.int64):
    """NDArray whose row i holds the value i (rows x columns), for large-tensor tests."""
    a = mx.nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return mx.nd.broadcast_to(a, shape=(a.shape[0], columns))


def create_vector(size, dtype=np.int64):
    """NDArray [0, 1, ..., size-1], for large-vector tests."""
    return mx.nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """size x size identity NDArray."""
    return mx.nd.eye(size)


def get_identity_mat_batch(size):
    """A batch of two size x size identity NDArrays."""
    eye = mx.nd.eye(size).reshape(1, size, size)
    return mx.nd.concat(eye, eye, dim=0)


def new_matrix_with_real_eigvals_2d(n):
    """A well-conditioned n x n matrix with real eigenvalues in [-10, 10]."""
    shape = (n, n)
    while True:
        d = np.diag(np.random.uniform(-1.0, 1.0, n))
        v = np.random.uniform(-1., 1., n).reshape(n, 1)
        v = v / np.linalg.norm(v, axis=-2, keepdims=True)
        q = np.matmul(np.eye(n).reshape(shape) - 2 * np.matmul(v, v.T), d)
        if np.linalg.cond(q, 2) < 3:
            break
    d = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(np.linalg.inv(q), d), q)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of new_matrix_with_real_eigvals_2d matrices of the given shape (..., n, n)."""
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


def new_orthonormal_matrix_2d(n):
    """A random n x n orthonormal matrix."""
    x = np.random.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric n x n matrix with eigenvalues in [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    d = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(q.T, d), q)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of new_sym_matrix_with_real_eigvals_2d matrices of the given shape."""
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(n)]).reshape(shape)


# ----------------------------------------------------------------------------- numpy helpers
def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """numpy_reduce_func (np.sum, np.max...) applied over axis (int, list or None for all)
    one axis at a time, keeping reduced dims as 1 when keepdims."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        keepdims_shape = list(dat.shape)
        for i in axis:
            keepdims_shape[i] = 1
        ret = ret.reshape(tuple(keepdims_shape))
    return ret


def collapse_sum_like(a, shape):
    """Sum of numpy array a over the axes that broadcasting shape to a.shape added or
    stretched, with the result in shape (the gradient of a broadcast)."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    ndim_diff = len(a.shape) - len(shape)
    axes = list(range(ndim_diff))
    for i, s in enumerate(shape):
        if s != a.shape[i + ndim_diff]:
            assert s == 1, "collapse_sum_like: shape %s does not broadcast to %s" % (shape, a.shape)
            axes.append(i + ndim_diff)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


# ----------------------------------------------------------------------------- comparisons
def _as_numpy(a):
    if isinstance(a, NDArray):
        return a.asnumpy()
    return a


def same(a, b):
    """True when a and b (numpy arrays or NDArrays) have the same shape and elements."""
    return np.array_equal(_as_numpy(a), _as_numpy(b))


def checkShapes(a, b):  # pylint: disable=invalid-name
    """Raise AssertionError unless a and b have the same shape."""
    if a.shape != b.shape:
        raise AssertionError(npt.build_err_msg(
            [a, b], err_msg="a.shape = {} and b.shape = {} are not equal".format(a.shape, b.shape)))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """True when |a - b| <= atol + rtol * |b| everywhere (None tolerances: float64's)."""
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast:
        checkShapes(a, b)
    return np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan)


def _find_max_violation(a, b, rtol, atol):
    """(index, ratio) of the element whose |a - b| exceeds its tolerance the most."""
    absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
    violation = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    idx = tuple(int(i) for i in np.unravel_index(np.argmax(violation), violation.shape))
    return idx, np.max(violation)


def locationError(a, b, index, names, maxError=False):  # pylint: disable=invalid-name
    """One line locating a mismatch: index and both values."""
    return "Location of %serror: %s, %s=%.8f, %s=%.8f" % (
        "maximum " if maxError else "", str(index), names[0], a[index], names[1], b[index])


def _mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches):
    """The AssertionError text of assert_almost_equal: worst element, mismatch share and the
    first mismatches[0] worst locations."""
    a = np.asarray(a, dtype=np.float64) if a.dtype.kind != "f" else a
    b = np.asarray(b, dtype=np.float64) if b.dtype.kind != "f" else b
    b = np.broadcast_to(b, a.shape) if b.shape != a.shape and b.size <= a.size else b
    a = np.broadcast_to(a, b.shape) if a.shape != b.shape else a
    index, rel = _find_max_violation(a, b, rtol, atol)
    if index == ():
        return "Error %f exceeds tolerance rtol=%e, atol=%e.\n" % (rel, rtol, atol), a, b
    lines = []
    a_tmp, b_tmp = a.copy(), b.copy()
    worst_index, worst = index, rel
    count = 1
    while count <= a.size:
        if count <= mismatches[0]:
            lines.append("%3d: Error %f  %s" % (count, rel, locationError(a, b, index, names)))
        a_tmp[index] = b_tmp[index] = 0
        if np.allclose(a_tmp, b_tmp, rtol=rtol, atol=atol, equal_nan=equal_nan):
            break
        count += 1
        if count <= mismatches[1] or mismatches[1] <= 0:
            index, rel = _find_max_violation(a_tmp, b_tmp, rtol, atol)
        else:
            break
    degree = "at least " if mismatches[1] > 0 and count > mismatches[1] else ""
    msg = ("Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %s%f%%).\n%s\n%s" % (
        worst, rtol, atol, degree, 100.0 * count / a.size,
        locationError(a, b, worst_index, names, maxError=True), "\n".join(lines)))
    return msg, a, b


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Raise AssertionError unless |a - b| <= atol + rtol * |b| everywhere.

    a, b: numpy arrays, NDArrays or numbers. rtol/atol: a number, a dict dtype -> number,
    or None for the larger default of the two dtypes (get_tols). Bool arrays must be equal.
    The message names the worst element and the first mismatches[0] mismatches."""
    if not use_broadcast:
        checkShapes(_as_numpy(a), _as_numpy(b))
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = np.asarray(_as_numpy(a)), np.asarray(_as_numpy(b))
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    msg, a, b = _mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches)
    raise AssertionError(npt.build_err_msg([a, b], err_msg=msg))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """numpy.testing.assert_allclose's defaults through assert_almost_equal."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"),
                                 equal_nan=False, mismatches=(10, 10)):
    """As assert_almost_equal, but tolerates a share etol of mismatching elements."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan,
                            mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = np.asarray(_as_numpy(a)), np.asarray(_as_numpy(b))
    equals = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    err = 1 - np.count_nonzero(equals) / equals.size
    if err > etol:
        msg, a, b = _mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches)
        raise AssertionError(npt.build_err_msg(
            [a, b], err_msg="error rate %f exceeds etol=%f. %s" % (err, etol, msg)))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """assert_almost_equal after zeroing every position where a or b is NaN."""
    a = np.copy(_as_numpy(a))
    b = np.copy(_as_numpy(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f, exception_type, *args, **kwargs):
    """Raise AssertionError unless f(*args, **kwargs) raises exception_type."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s" % (getattr(f, "__name__", f),
                                                  exception_type.__name__))


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """assert_almost_equal over (nested) tuples of arrays; None on either side is skipped."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def _optimizer_input(shape, dtype, stype, density=None):
    """A random optimizer input and its dense copy: (for opt1, for opt2)."""
    if stype == 'default':
        x = mx.random.uniform(shape=shape, ctx=default_context(), dtype=dtype)
        return x.copyto(default_context()), x
    if stype in ('row_sparse', 'csr'):
        x = rand_ndarray(shape, stype, density=density, dtype=dtype)
        return x.copyto(default_context()).tostype('default'), x
    raise Exception("type not supported yet")


def compare_optimizer(opt1, opt2, shape, dtype, w_stype='default', g_stype='default',
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """One update by opt1 and by opt2 from the same random weight and gradient, then their
    states and weights compared. With a list of shapes, opt2 updates the `ntensors` weights
    in one (aggregated) call and opt1 one at a time."""
    if not isinstance(shape, list):
        assert ntensors == 1
        w1, w2 = _optimizer_input(shape, dtype, w_stype, density=1)
        g1, g2 = _optimizer_input(shape, dtype, g_stype)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(mx.random.uniform(shape=s, ctx=default_context(), dtype=dtype) for s in shape)
    g1 = tuple(mx.random.uniform(shape=s, ctx=default_context(), dtype=dtype) for s in shape)
    w2 = tuple(w.copy() for w in w1)
    g2 = tuple(g.copy() for g in g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def same_array(array1, array2):
    """True when two NDArrays share memory (a change through one shows in the other)."""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def retry(n):
    """Decorator for stochastic tests: run up to n times, failing only if every run raises
    AssertionError (the last one is re-raised)."""
    assert n > 0

    def decorate(f):
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    f(*args, **kwargs)
                    return
                except AssertionError:
                    if i == n - 1:
                        raise
                    mx.nd.waitall()
        wrapper.__name__ = f.__name__
        wrapper.__doc__ = f.__doc__
        return wrapper
    return decorate


# ----------------------------------------------------------------------------- gradients
def _call(sym, arrays):
    out = sym(*arrays)
    return out if isinstance(out, NDArray) else out[0]


def _require_callable(fn_name, sym):
    if not callable(sym):
        raise MXNetError("%s: argument sym expected a callable over NDArrays (or a Symbol), "
                         "given %s" % (fn_name, type(sym).__name__))


def numeric_grad(f, inputs, eps=1e-4, head=None):
    """Central-difference gradients of sum(f(*inputs) * head) with respect to each input."""
    base = [x.asnumpy().astype(np.float64) for x in inputs]
    dtype = inputs[0].dtype
    grads = []
    for k, x0 in enumerate(base):
        g = np.zeros_like(x0)
        flat = x0.reshape(-1)
        for i in range(flat.size):
            vals = []
            for sign in (1, -1):
                pert = flat.copy()
                pert[i] += sign * eps
                arrays = [nd.array(b if j != k else pert.reshape(x0.shape), dtype=dtype)
                          for j, b in enumerate(base)]
                y = _call(f, arrays).asnumpy().astype(np.float64)
                vals.append((y * (1.0 if head is None else head)).sum())
            g.reshape(-1)[i] = (vals[0] - vals[1]) / (2 * eps)
        grads.append(g)
    return grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=None):
    """Compare autograd gradients of sym with central differences at location.

    sym is a Symbol (checked through bind, as MXNet 1.9.1 does: _test_symbolic) or a
    callable taking NDArrays and returning an NDArray (checked with autograd). location is a
    list (or dict, in argument order) of numpy arrays or NDArrays."""
    if _symbolic.is_symbolic(sym):
        return _symbolic.check_numeric_gradient(
            sym, location, aux_states, numeric_eps, rtol, atol, grad_nodes, use_forward_train,
            ctx, grad_stype_dict, np.float32 if dtype is None else dtype)
    _require_callable("check_numeric_gradient", sym)
    if isinstance(location, dict):
        location = list(location.values())
    dtype = dtype or np.float64
    arrays = [nd.array(_as_numpy(x), ctx=ctx or default_context(), dtype=dtype) for x in location]
    eps = numeric_eps if numeric_eps is not None else (1e-4 if np.dtype(dtype) == np.float64 else 1e-2)
    for a in arrays:
        a.attach_grad()
    with autograd.record(train_mode=use_forward_train):
        out = _call(sym, arrays)
    head = np.random.uniform(-1, 1, size=out.shape)
    out.backward(nd.array(head, ctx=out.context, dtype=out.dtype))
    expected = numeric_grad(sym, arrays, eps=eps, head=head)
    rtol = 1e-2 if rtol is None else rtol
    atol = 1e-4 if atol is None else atol
    for i, (a, g) in enumerate(zip(arrays, expected)):
        if grad_nodes is not None and i not in grad_nodes:
            continue
        assert_almost_equal(a.grad.asnumpy(), g, rtol=rtol, atol=atol,
                            names=("autograd_%d" % i, "numeric_%d" % i))


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None,
                      aux_params=None, tol=None, raise_on_err=True, ground_truth=None,
                      equal_nan=False, use_uniform=False, rand_type=np.float64, **kwargs):
    """Run one computation on several contexts/dtypes and check that outputs and gradients
    agree with the most precise run.

    sym: a Python callable over NDArrays returning an NDArray or a list of them.
    ctx_list: dicts {'ctx': Context, name: shape, ..., 'type_dict': {name: dtype}}; the
    callable gets the inputs in the order the names appear. arg_params: initial values by
    name (else normal * scale, or uniform with use_uniform). grad_req 'null' skips
    gradients. tol: a number or a dict dtype -> tolerance. Returns the ground-truth
    outputs and gradients as a dict of numpy arrays ('out<i>', 'grad_<name>'). A Symbol (or a
    list, one per context) is checked through simple_bind as MXNet 1.9.1 does (_test_symbolic)."""
    if _symbolic.is_symbolic(sym):
        return _symbolic.check_consistency(sym, ctx_list, scale, grad_req, arg_params, aux_params,
                                           tol, raise_on_err, ground_truth, equal_nan,
                                           use_uniform, rand_type, **kwargs)
    if kwargs:
        raise TypeError("check_consistency got unexpected arguments %s" % sorted(kwargs))
    _require_callable("check_consistency", sym)
    if not ctx_list:
        raise MXNetError("check_consistency: argument ctx_list is empty")
    default_tol = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
                   np.dtype(np.float64): 1e-5, np.dtype(np.uint8): 0, np.dtype(np.int32): 0,
                   np.dtype(np.int64): 0}
    if tol is None:
        tol = default_tol
    elif isinstance(tol, numbers.Number):
        tol = {dt: tol for dt in default_tol}
    names = [k for k in ctx_list[0] if k not in ("ctx", "type_dict")]
    arg_params = dict(arg_params or {})
    for name in names:
        if name not in arg_params:
            shape = ctx_list[0][name]
            arg_params[name] = (np.random.uniform(-scale, scale, size=shape) if use_uniform
                                else np.random.normal(size=shape, scale=scale)).astype(rand_type)

    results = []
    for spec in ctx_list:
        types = spec.get("type_dict", {})
        dtypes = [np.dtype(types.get(n, np.float32)) for n in names]
        arrays = [nd.array(arg_params[n], ctx=spec["ctx"], dtype=dt)
                  for n, dt in zip(names, dtypes)]
        if grad_req != "null":
            for a in arrays:
                a.attach_grad()
        with autograd.record():
            outs = sym(*arrays)
        outs = [outs] if isinstance(outs, NDArray) else list(outs)
        if grad_req != "null":
            autograd.backward(outs)
        res = {"out%d" % i: o.asnumpy() for i, o in enumerate(outs)}
        if grad_req != "null":
            res.update(("grad_" + n, a.grad.asnumpy()) for n, a in zip(names, arrays))
        results.append((max(dtypes, key=lambda d: d.itemsize), res))

    if ground_truth is None:
        gt_index = max(range(len(results)), key=lambda i: results[i][0].itemsize)
        ground_truth = results[gt_index][1]
    for i, (dtype, res) in enumerate(results):
        for key, value in res.items():
            t = tol.get(dtype, default_tol.get(dtype, 0))
            try:
                assert_almost_equal(value, ground_truth[key], rtol=t, atol=t, equal_nan=equal_nan,
                                    names=("%s of ctx_list[%d]" % (key, i), "ground truth"))
            except AssertionError:
                if raise_on_err:
                    raise
                logging.error("check_consistency: %s of ctx_list[%d] (%s) differs from the "
                              "ground truth\n%s", key, i, dtype, traceback.format_exc())
    return ground_truth


# ----------------------------------------------------------------------------- environment
@contextmanager
def environment(*args):
    """Set environment variables for the body of a `with`, in os.environ and in the library's
    process environment (mx.util.setenv), restoring both afterwards even on exceptions:
    environment('NAME', 'value') or environment({'A': '1', 'B': None}) (None unsets)."""
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = args[0]
    elif len(args) == 2:
        env_vars = {args[0]: args[1]}
    else:
        raise ValueError("environment() takes a dict or two arguments (name, value), given %d "
                         "arguments" % len(args))
    snapshot = {name: os.environ.get(name) for name in env_vars}
    _set_environ(env_vars)
    try:
        yield
    finally:
        mx.nd.waitall()
        _set_environ(snapshot)


def _set_environ(env_vars):
    for name, value in env_vars.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
        # always through the library, whose cached reads of its variables this resets
        setenv(name, value)
        if getenv(name) != value:
            raise RuntimeError("Could not set env var {}={} within C Runtime".format(name, value))


def set_env_var(key, val, default_val=""):
    """Set os.environ[key] = val and return the previous value (default_val when unset)."""
    prev_val = os.environ.get(key, default_val)
    os.environ[key] = val
    return prev_val


@contextmanager
def discard_stderr():
    """Send the process's stderr (file descriptor 2, C++ logging included) to /dev/null in
    the body of a `with`."""
    with open(os.devnull, "w") as bit_bucket:
        try:
            stderr_fileno = sys.stderr.fileno()
        except (AttributeError, OSError, ValueError):
            # stderr is not a real file (a pytest capture, an IDE console): nothing to redirect
            yield
            return
        old_stderr = os.dup(stderr_fileno)
        try:
            os.dup2(bit_bucket.fileno(), stderr_fileno)
            yield
        finally:
            os.dup2(old_stderr, stderr_fileno)
            os.close(old_stderr)


# ----------------------------------------------------------------------------- graphs
def same_symbol_structure(sym1, sym2):
    """True when two symbols' graphs have the same operator at every node position."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(n1["op"] == n2["op"] for n1, n2 in zip(nodes1, nodes2))


# ----------------------------------------------------------------------------- build checks
def is_cd_run():
    """True when running in a continuous-delivery job (CD_JOB=1)."""
    return os.environ.get("CD_JOB", 0) == "1"


def is_aarch64_run():
    """True on an aarch64 machine."""
    return platform.machine() == "aarch64"


_features = Features()


def has_tvm_ops():
    """True when the library has TVM-generated operators (and, on a GPU context, the GPU is
    sm_53 or newer)."""
    built_with_tvm_op = _features.is_enabled("TVM_OP")
    ctx = current_context()
    if ctx.device_type == "gpu":
        try:
            cc = get_cuda_compute_capability(ctx)
        except (MXNetError, ValueError):
            return False
        return built_with_tvm_op and cc >= 53
    return built_with_tvm_op


def is_op_runnable():
    """True for every CPU test; on a GPU context, unless TVM operators need sm_53 or newer
    and the GPU is older."""
    ctx = current_context()
    if ctx.device_type == "gpu" and _features.is_enabled("TVM_OP"):
        try:
            return get_cuda_compute_capability(ctx) >= 53
        except (MXNetError, ValueError):
            return False
    return True


# The Symbol forms (need this module's helpers, so imported last).
from . import _test_symbolic as _symbolic  # noqa: E402
from ._test_symbolic import (check_symbolic_forward, check_symbolic_backward,  # noqa: E402,F401
                             simple_forward, check_speed)


from .io.io import DataIter as _DataIter  # noqa: E402  (test_utils loads before mx.io)


class DummyIter(_DataIter):
    """An iterator that returns the first batch of real_iter forever (benchmarking without
    data loading costs; MXNet 1.9.1's test_utils.DummyIter)."""

    def __init__(self, real_iter):
        super(DummyIter, self).__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        """The same first batch, every time."""
        return self.the_batch

    __next__ = next
