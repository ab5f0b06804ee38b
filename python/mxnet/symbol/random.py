"""mx.sym.random: samplers that build _random_* nodes (scalar parameters) or _sample_* nodes
(Symbol parameters), as MXNet 1.9's mx.sym.random does."""
from ..base import _Null, numeric_types
from .symbol import Symbol

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint"]

_internal = None  # set by mxnet.symbol's __init__


def _random_helper(random, sampler, params, shape, dtype, kwargs):
    if isinstance(params[0], Symbol):
        for p in params[1:]:
            if not isinstance(p, Symbol):
                raise ValueError("Distribution parameters must all have the same type, but got "
                                 "both %s and %s." % (type(params[0]), type(p)))
        return getattr(_internal, sampler)(*params, shape=shape, dtype=dtype, **kwargs)
    if isinstance(params[0], numeric_types):
        for p in params[1:]:
            if not isinstance(p, numeric_types):
                raise ValueError("Distribution parameters must all have the same type, but got "
                                 "both %s and %s." % (type(params[0]), type(p)))
        return getattr(_internal, random)(*params, shape=shape, dtype=dtype, **kwargs)
    raise ValueError("Distribution parameters must be either Symbol or numbers, but got %s."
                     % type(params[0]))


def uniform(low=0, high=1, shape=_Null, dtype=_Null, **kwargs):
    """Samples from U[low, high)."""
    return _random_helper("_random_uniform", "_sample_uniform", [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, **kwargs):
    """Samples from N(loc, scale**2)."""
    return _random_helper("_random_normal", "_sample_normal", [loc, scale], shape, dtype, kwargs)


def randn(*shape, **kwargs):
    """Samples from N(loc, scale**2) with the shape given positionally."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", _Null)
    return _random_helper("_random_normal", "_sample_normal", [loc, scale], shape, dtype, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, **kwargs):
    """Samples from Poisson(lam)."""
    return _random_helper("_random_poisson", "_sample_poisson", [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=_Null, dtype=_Null, **kwargs):
    """Samples from Exp(1/scale)."""
    return _random_helper("_random_exponential", "_sample_exponential", [1.0 / scale], shape,
                          dtype, kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, **kwargs):
    """Samples from Gamma(alpha, beta)."""
    return _random_helper("_random_gamma", "_sample_gamma", [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, **kwargs):
    """Samples from NB(k, p)."""
    return _random_helper("_random_negative_binomial", "_sample_negative_binomial", [k, p],
                          shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null, **kwargs):
    """Samples from GNB(mu, alpha)."""
    return _random_helper("_random_generalized_negative_binomial",
                          "_sample_generalized_negative_binomial", [mu, alpha], shape, dtype,
                          kwargs)


def multinomial(data, shape=_Null, get_prob=True, dtype="int32", **kwargs):
    """Samples from the categorical distributions given by data's last axis."""
    return _internal._sample_multinomial(data, shape, get_prob, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """data with its first axis shuffled."""
    return _internal._shuffle(data, **kwargs)


def randint(low, high, shape=_Null, dtype=_Null, **kwargs):
    """Integers from U[low, high)."""
    return _random_helper("_random_randint", None, [low, high], shape, dtype, kwargs)
