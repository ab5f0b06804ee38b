"""mx.nd.random: sampling functions dispatching to _random_* (scalar parameters) or _sample_*
(array parameters) exactly as MXNet 1.9 does."""
from ..base import numeric_types
from ..context import current_context
from . import _internal
from .ndarray import NDArray

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint"]


def _random_helper(random, sampler, params, shape, dtype, ctx, out, kwargs):
    if isinstance(params[0], NDArray):
        for i in params[1:]:
            if not isinstance(i, NDArray):
                raise ValueError("Distribution parameters must all have the same type, but got "
                                 "both %s and %s." % (type(params[0]), type(i)))
        if shape is not None and shape != ():
            kwargs["shape"] = shape
        return sampler(*params, dtype=dtype, out=out, **kwargs)
    if isinstance(params[0], numeric_types):
        if ctx is None:
            ctx = current_context()
        for i in params[1:]:
            if not isinstance(i, numeric_types):
                raise ValueError("Distribution parameters must all have the same type, but got "
                                 "both %s and %s." % (type(params[0]), type(i)))
        if shape is not None:
            kwargs["shape"] = shape
        elif out is not None:
            kwargs["shape"] = out.shape
        names = _PARAM_NAMES[random.__name__]
        kwargs.update(zip(names, params))
        return random(dtype=dtype, ctx=ctx, out=out, **kwargs)
    raise ValueError("Distribution parameters must be either NDArray or numbers, but got %s."
                     % type(params[0]))


_PARAM_NAMES = {
    "_random_uniform": ("low", "high"), "_random_normal": ("loc", "scale"),
    "_random_poisson": ("lam",), "_random_exponential": ("lam",),
    "_random_gamma": ("alpha", "beta"), "_random_negative_binomial": ("k", "p"),
    "_random_generalized_negative_binomial": ("mu", "alpha"), "_random_randint": ("low", "high"),
}


def _shape(shape):
    if shape is None:
        return None
    return (shape,) if isinstance(shape, int) else tuple(shape)


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a uniform distribution on [low, high)."""
    return _random_helper(_internal._random_uniform, _internal._sample_uniform, [low, high],
                          _shape(shape),
                          dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a normal distribution."""
    return _random_helper(_internal._random_normal, _internal._sample_normal, [loc, scale],
                          _shape(shape),
                          dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Standard normal samples of the given shape (loc/scale keywords allowed)."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", None)
    ctx = kwargs.pop("ctx", None)
    out = kwargs.pop("out", None)
    return normal(loc, scale, shape, dtype, ctx, out, **kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a Poisson distribution."""
    return _random_helper(_internal._random_poisson, _internal._sample_poisson, [lam],
                          _shape(shape),
                          dtype, ctx, out, kwargs)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from an exponential distribution with the given scale (1/lambda)."""
    if isinstance(scale, NDArray):
        return _internal._sample_exponential(1.0 / scale, shape=_shape(shape) or (), dtype=dtype,
                                             out=out, **kwargs)
    return _random_helper(_internal._random_exponential, None, [1.0 / scale], _shape(shape),
                          dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a gamma distribution (shape alpha, scale beta)."""
    return _random_helper(_internal._random_gamma, _internal._sample_gamma, [alpha, beta],
                          _shape(shape),
                          dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a negative binomial distribution."""
    return _random_helper(_internal._random_negative_binomial,
                          _internal._sample_negative_binomial, [k, p],
                          _shape(shape),
                          dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None,
                                  **kwargs):
    """Samples from a generalized negative binomial distribution."""
    return _random_helper(_internal._random_generalized_negative_binomial,
                          _internal._sample_generalized_negative_binomial, [mu, alpha],
                          _shape(shape),
                          dtype, ctx, out, kwargs)


def multinomial(data, shape=(), get_prob=False, out=None, dtype="int32", **kwargs):
    """Samples from multinomial distributions whose probabilities are the last axis of data."""
    return _internal._sample_multinomial(data, shape=_shape(shape) or (), get_prob=get_prob,
                                         out=out, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """A copy of data shuffled along the first axis."""
    return _internal._shuffle(data, **kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers sampled uniformly from [low, high)."""
    return _random_helper(_internal._random_randint, None, [low, high], _shape(shape), dtype,
                          ctx, out, kwargs)
