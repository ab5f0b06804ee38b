"""mx.random: seeding and the sampling functions of mx.nd.random."""
from . import _ffi
from .base import integer_types
from .context import Context
from .ndarray.random import *  # noqa: F401,F403
from .ndarray.random import __all__ as _nd_random_all

__all__ = ["seed"] + list(_nd_random_all)


def seed(seed_state, ctx="all"):
    """Seed the random number generators.

    With ctx="all" every device is seeded; with a Context only that device. The same seed
    gives the same numbers on every run, whatever the number of threads. seed_state is any
    int (numpy integers too); as in MXNet 1.9 (a C int) and the C API (MXRandomSeed), only its
    low 32 bits count, so -1 and 2**32 - 1 seed alike."""
    if isinstance(seed_state, bool) or not isinstance(seed_state, integer_types):
        raise ValueError("seed_state must be int, given %r" % (seed_state,))
    seed_state = int(seed_state) & 0xFFFFFFFF
    if ctx == "all":
        _ffi.seed(seed_state, -1, 0)
    elif isinstance(ctx, Context):
        _ffi.seed(seed_state, ctx.device_typeid, ctx.device_id)
    else:
        raise ValueError("ctx must be 'all' or a Context, given %r" % (ctx,))
