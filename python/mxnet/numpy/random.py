"""mx.np.random: numpy-style samplers on MXNet's generators (seeded by mx.random.seed /
mx.np.random.seed / mx.npx.random.seed alike)."""
import numpy as _np

from ..base import integer_types, numeric_types
from .. import random as _mx_random
from .multiarray import NDArray, _invoke, _binary, _shape_tuple, _ctx, _copy_into, _from_numpy, \
    _as_dtype

__all__ = ["uniform", "normal", "randint", "choice", "shuffle", "seed", "rand", "randn",
           "random_sample", "random", "permutation", "multinomial", "exponential", "gamma",
           "beta"]


def _check_param(name, value, lowest, inclusive=True):
    """ValueError (as numpy) unless value (a scalar or an array, checked on the host) is >=
    lowest (> lowest when inclusive is False)."""
    vals = value.asnumpy() if isinstance(value, NDArray) else _np.asarray(value)
    bad = vals < lowest if inclusive else vals <= lowest
    if _np.any(bad):
        raise ValueError("%s %s %s" % (name, "<" if inclusive else "<=", lowest))


def seed(seed, ctx="all"):  # pylint: disable=redefined-outer-name
    """Seed the random number generators (the same ones mx.random uses)."""
    _mx_random.seed(seed, ctx=ctx)


def _size(size):
    return () if size is None else _shape_tuple(size)


def _finish(res, out):
    return res if out is None else _copy_into(res, out)


def _affine(sample, scale, shift):
    """sample * scale + shift with array or scalar parameters (broadcasting)."""
    return _binary("add", _binary("multiply", sample, scale), shift)


def _param_shape(size, *params):
    if size is not None:
        return _size(size)
    shapes = [p.shape for p in params if isinstance(p, NDArray)]
    return _np.broadcast_shapes(*shapes) if shapes else ()


def _sample(opname, names, p1, p2, size, dtype, ctx, out):
    """Samples of the two-parameter distribution operator opname: scalar parameters go to the
    operator, array ones transform a standard sample (p2 scales, p1 shifts for normal; uniform
    spans [p1, p2))."""
    dtype = _np.dtype(_np.float32 if dtype is None else dtype).name
    shape = _param_shape(size, p1, p2)
    if isinstance(p1, numeric_types) and isinstance(p2, numeric_types):
        res = _invoke(opname, shape=shape, ctx=_ctx(ctx), dtype=dtype,
                      **{names[0]: float(p1), names[1]: float(p2)})
        return _finish(res, out)
    std = {names[0]: 0.0, names[1]: 1.0}
    base = _invoke(opname, shape=shape, ctx=_ctx(ctx), dtype=dtype, **std)
    scale = _binary("subtract", p2, p1) if opname == "_random_uniform" else p2
    return _finish(_affine(base, scale, p1), out)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from the uniform distribution on [low, high) (float32 by default)."""
    return _sample("_random_uniform", ("low", "high"), low, high, size, dtype, ctx, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from the normal distribution N(loc, scale**2) (float32 by default)."""
    _check_param("scale", scale, 0)
    return _sample("_random_normal", ("loc", "scale"), loc, scale, size, dtype, ctx, out)


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    """Integers from [low, high) (or [0, low) without high); int64 by default."""
    if high is None:
        low, high = 0, low
    dtype = _np.dtype(_np.int64 if dtype is None else dtype).name
    if high <= low:
        raise ValueError("low >= high")
    res = _invoke("_random_randint", low=int(low), high=int(high), shape=_size(size),
                  ctx=_ctx(ctx), dtype=dtype)
    return _finish(res, out)


def rand(*size, **kwargs):
    """Uniform samples on [0, 1) of shape size."""
    return uniform(size=size, **kwargs)


def randn(*size, **kwargs):
    """Standard normal samples of shape size."""
    return normal(size=size, **kwargs)


def random_sample(size=None, ctx=None):
    """Uniform samples on [0, 1)."""
    return uniform(size=size, ctx=ctx)


random = random_sample  # pylint: disable=invalid-name


def exponential(scale=1.0, size=None, ctx=None, out=None):
    """Samples from the exponential distribution with the given scale (1 / rate); an array
    scale broadcasts (and gets gradients)."""
    _check_param("scale", scale, 0)
    if isinstance(scale, numeric_types):
        res = _invoke("_random_exponential", lam=1.0 / float(scale), shape=_size(size),
                      ctx=_ctx(ctx))
        return _finish(res, out)
    e = _binary("multiply", _invoke("log", _std_uniform(size, (scale,), ctx)), -1.0)
    return _finish(_binary("multiply", e, scale), out)


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    # pylint: disable=redefined-outer-name
    """Samples from the gamma distribution."""
    _check_param("shape", shape, 0, inclusive=False)
    _check_param("scale", scale, 0, inclusive=False)
    dtype = _np.dtype(_np.float32 if dtype is None else dtype).name
    if isinstance(shape, numeric_types) and isinstance(scale, numeric_types):
        res = _invoke("_random_gamma", alpha=float(shape), beta=float(scale), shape=_size(size),
                      ctx=_ctx(ctx), dtype=dtype)
        return _finish(res.reshape(_size(size)), out)
    # array parameters: one sample per element of their broadcast (or of size)
    target = _param_shape(size, shape, scale)
    from ._op import broadcast_to, asarray
    alpha = broadcast_to(asarray(shape, dtype=dtype), target).reshape(-1)
    beta_ = broadcast_to(asarray(scale, dtype=dtype), target).reshape(-1)
    if alpha.size == 0:
        return _finish(_invoke("_zeros", shape=target, dtype=dtype, ctx=_ctx(ctx)), out)
    res = _invoke("_sample_gamma", alpha, beta_, shape=(), dtype=dtype)
    return _finish(res.reshape(target), out)


def beta(a, b, size=None, dtype=None, ctx=None):
    """Samples from the beta distribution (as the ratio of two gamma samples)."""
    x = gamma(a, 1.0, size, dtype, ctx)
    y = gamma(b, 1.0, size, dtype, ctx)
    return _binary("true_divide", x, _binary("add", x, y))


def multinomial(n, pvals, size=None):
    """Counts of n draws over the categories of pvals (a list or array of probabilities)."""
    pv = pvals.asnumpy() if isinstance(pvals, NDArray) else _np.asarray(pvals, dtype=_np.float64)
    if pv.ndim != 1:
        raise ValueError("object too deep for desired array")
    if _np.any(pv < 0) or pv[:-1].sum() > 1.0 + 1e-6:
        raise ValueError("pvals < 0, pvals > 1 or sum(pvals[:-1]) > 1")
    shape = _size(size)
    if pv.size == 0:
        return _invoke("_zeros", shape=shape + (0,), dtype="int64", ctx=_ctx(None))
    probs = _from_numpy(pv.astype(_np.float32).reshape(1, -1), None)
    draws = _invoke("_sample_multinomial", probs, shape=shape + (int(n),), dtype="int32")
    counts = [(_binary("equal", draws, k)).astype(_np.int64).sum(axis=-1)
              for k in range(pv.size)]
    from ._op import stack
    return stack(counts, axis=-1).reshape(shape + (pv.size,))


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Samples from a (an int n means arange(n)), with or without replacement, optionally with
    probabilities p."""
    if isinstance(a, integer_types):
        n, values = int(a), None
    else:
        values = a if isinstance(a, NDArray) else _from_numpy(_np.asarray(a), ctx)
        n = values.shape[0]
    if n <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    shape = _size(size)
    count = int(_np.prod(shape)) if shape else 1
    if p is not None:
        probs = p if isinstance(p, NDArray) else _from_numpy(_np.asarray(p, _np.float32), ctx)
        probs = _as_dtype(probs, _np.float32)
        if replace:
            idx = _as_dtype(_invoke("_sample_multinomial", probs.reshape(1, -1),
                                    shape=(count,), dtype="int32"), _np.int64).reshape(shape)
        else:
            # without replacement: Gumbel-top-k over log p
            u = uniform(1e-20, 1.0, size=(n,), ctx=ctx)
            keys = _binary("subtract", _invoke("log", probs),
                           _invoke("log", _binary("multiply", _invoke("log", u), -1.0)))
            if count > n:
                raise ValueError("Cannot take a larger sample than population when "
                                 "'replace=False'")
            idx = _invoke("topk", keys, k=count, ret_typ="indices", dtype="int64").reshape(shape)
    elif replace:
        idx = randint(0, n, size=shape, ctx=ctx)
    else:
        if count > n:
            raise ValueError("Cannot take a larger sample than population when 'replace=False'")
        perm = _invoke("_shuffle", _invoke("_arange", start=0, stop=n, step=1, repeat=1,
                                           infer_range=False, ctx=_ctx(ctx), dtype="int64"))
        idx = perm[:count].reshape(shape)
    res = idx if values is None else values[idx]
    return _finish(res, out)


def permutation(x):
    """A shuffled copy of x (arange(x) for an int)."""
    if isinstance(x, integer_types):
        return choice(int(x), size=(int(x),), replace=False)
    return _invoke("_shuffle", x)


def shuffle(x):
    """Shuffle x in place along its first axis."""
    res = _invoke("_shuffle", x)
    _copy_into(res, x)


def _std_uniform(size, params, ctx):
    """Uniform samples on (0, 1] shaped by size or the broadcast of the array params."""
    shape = _param_shape(size, *params)
    u = _invoke("_random_uniform", low=0.0, high=1.0, shape=shape, ctx=_ctx(ctx), dtype="float32")
    return _binary("subtract", 1.0, u)  # (0, 1]: log() stays finite


def _recip(a, num):
    """num / a for a scalar or an array a."""
    return num / a if isinstance(a, numeric_types) else _binary("true_divide", num, a)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    """exp of normal(mean, sigma) samples."""
    return _finish(_invoke("exp", normal(mean, sigma, size, dtype, ctx)), out)


def weibull(a, size=None, ctx=None, out=None):
    """Weibull samples with shape a: (-log U) ** (1 / a)."""
    _check_param("a", a, 0)
    e = _binary("multiply", _invoke("log", _std_uniform(size, (a,), ctx)), -1.0)
    return _finish(_binary("power", e, _recip(a, 1.0)), out)


def pareto(a, size=None, ctx=None, out=None):
    """Pareto II (Lomax) samples with shape a, as numpy: U ** (-1 / a) - 1."""
    _check_param("a", a, 0, inclusive=False)
    u = _std_uniform(size, (a,), ctx)
    return _finish(_binary("subtract", _binary("power", u, _recip(a, -1.0)), 1.0), out)


def rayleigh(scale=1.0, size=None, ctx=None, out=None):
    """Rayleigh samples: scale * sqrt(-2 log U)."""
    _check_param("scale", scale, 0)
    u = _std_uniform(size, (scale,), ctx)
    r = _invoke("sqrt", _binary("multiply", _invoke("log", u), -2.0))
    return _finish(_binary("multiply", r, scale), out)


def chisquare(df, size=None, dtype=None, ctx=None):
    """Chi-square samples with df degrees of freedom (gamma(df / 2, 2))."""
    _check_param("df", df, 0, inclusive=False)
    half = df / 2.0 if isinstance(df, numeric_types) else _binary("true_divide", df, 2.0)
    return gamma(half, 2.0, size, dtype, ctx)


__all__ += ["lognormal", "weibull", "pareto", "rayleigh", "chisquare"]
