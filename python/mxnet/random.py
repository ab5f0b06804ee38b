"""mx.random: seeding and the sampling functions of mx.nd.random."""
from . import _ffi
from .context import Context
from .ndarray.random import *  # noqa: F401,F403
from .ndarray.random import __all__ as _nd_random_all

__all__ = ["seed"] + list(_nd_random_all)


def seed(seed_state, ctx="all"):
    """Seed the random number generators.

    With ctx="all" every device is seeded; with a Context only that device. The same seed
    gives the same numbers on every run, whatever the number of threads."""
    if not isinstance(seed_state, int):
        raise ValueError("seed_state must be int")
    if seed_state < 0:
        raise ValueError("seed_state must be non-negative, given %d" % seed_state)
    if ctx == "all":
        _ffi.seed(seed_state, -1, 0)
    elif isinstance(ctx, Context):
        _ffi.seed(seed_state, ctx.device_typeid, ctx.device_id)
    else:
        raise ValueError("ctx must be 'all' or a Context, given %r" % (ctx,))
