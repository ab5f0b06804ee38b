"""mx.test_utils: helpers for testing operators (MXNet 1.9 names and signatures)."""
import contextlib
import os

import numpy as np

from .context import Context, current_context
from . import ndarray as nd
from . import autograd

_default_ctx = [None]


def default_context():
    """The context tests run on (cpu(0) unless set_default_context was called)."""
    return _default_ctx[0] if _default_ctx[0] is not None else current_context()


def set_default_context(ctx):
    _default_ctx[0] = ctx


def default_dtype():
    return np.float32


_RTOL = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5}
_ATOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20}


def _as_numpy(a):
    if isinstance(a, nd.NDArray):
        return a.asnumpy()
    return np.asarray(a)


def get_tolerance(a, tol, default):
    if tol is not None:
        return tol
    dt = np.dtype(getattr(a, "dtype", np.float32))
    return default.get(dt, 0.0 if dt.kind in "iub" else default[np.dtype(np.float32)])


def same(a, b):
    """True when a and b have equal shape and every element is equal."""
    a, b = _as_numpy(a), _as_numpy(b)
    return a.shape == b.shape and np.array_equal(a, b)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """True when |a - b| <= atol + rtol * |b| everywhere."""
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    rtol = get_tolerance(a, rtol, _RTOL)
    atol = get_tolerance(a, atol, _ATOL)
    return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Raise AssertionError (with the worst mismatches) unless a and b are almost equal."""
    a_np, b_np = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a_np.shape != b_np.shape:
        raise AssertionError("shape mismatch: %s %s vs %s %s" % (names[0], a_np.shape, names[1], b_np.shape))
    rtol = get_tolerance(a_np, rtol, _RTOL)
    atol = get_tolerance(a_np, atol, _ATOL)
    if np.allclose(a_np, b_np, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a64 = a_np.astype(np.float64)
    b64 = np.broadcast_to(b_np.astype(np.float64), a64.shape) if use_broadcast else b_np.astype(np.float64)
    err = np.abs(a64 - b64) / (atol + rtol * np.abs(b64))
    err = np.where(np.isnan(err), np.inf, err)
    worst = np.argsort(err.ravel())[::-1][:mismatches[0]]
    lines = ["Items are not equal (rtol=%g, atol=%g):" % (rtol, atol),
             "Error %f exceeds tolerance" % float(err.ravel()[worst[0]])]
    for i in worst:
        idx = np.unravel_index(i, a64.shape)
        lines.append("  Location %s: %s=%r %s=%r" % (idx, names[0], a64[idx], names[1], b64[idx]))
    raise AssertionError("\n".join(lines))


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that f(*args, **kwargs) raises exception_type."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s was not raised" % exception_type.__name__)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape of num_dim dims, each in [1, dim] (or [0, dim])."""
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, dim + 1, size=num_dim).tolist())


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return (np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1))


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return (np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1),
            np.random.randint(low, dim2 + 1))


def random_arrays(*shapes):
    """Random float32 numpy arrays of the given shapes (a single array for one shape)."""
    arrays = [np.array(np.random.randn(), dtype=np.float32) if len(s) == 0 else
              np.random.randn(*s).astype(np.float32) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random dense NDArray (uniform in [0, 1) unless modifier_func changes it)."""
    if stype != "default":
        raise ValueError("only stype='default' is supported, given %r" % (stype,))
    dtype = np.float32 if dtype is None else dtype
    data = np.random.uniform(size=shape).astype(dtype)
    if modifier_func is not None:
        data = np.asarray(modifier_func(data), dtype=dtype)
    return nd.array(data, ctx=ctx or default_context(), dtype=dtype)


def _call(sym, arrays):
    out = sym(*arrays)
    return out if isinstance(out, nd.NDArray) else out[0]


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

    sym is a callable taking NDArrays and returning an NDArray (the Symbol form of MXNet
    1.9 arrives with the Symbol API). location is a list (or dict, in argument order) of
    numpy arrays or NDArrays."""
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


@contextlib.contextmanager
def environment(*args):
    """Temporarily set environment variables: environment('NAME', 'value') or
    environment({'A': '1', 'B': None}) (None unsets). Note: the library reads most variables
    once, so this mainly affects subprocesses and Python-level readers."""
    if len(args) == 2:
        updates = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        updates = args[0]
    else:
        raise ValueError("environment() takes (name, value) or a dict")
    saved = {k: os.environ.get(k) for k in updates}
    try:
        for k, v in updates.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
