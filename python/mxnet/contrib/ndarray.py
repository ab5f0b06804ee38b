"""mx.contrib.ndarray: the contrib operators (the same functions as mx.nd.contrib)."""
from ..ndarray.contrib import *  # noqa: F401,F403
from ..ndarray import contrib as _contrib

__all__ = [name for name in dir(_contrib) if not name.startswith('_')]
globals().update({name: getattr(_contrib, name) for name in __all__})
