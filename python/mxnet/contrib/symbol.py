"""mx.contrib.symbol: the contrib operators as symbols (the same functions as mx.sym.contrib)."""
from ..symbol.contrib import *  # noqa: F401,F403
from ..symbol import contrib as _contrib

__all__ = [name for name in dir(_contrib) if not name.startswith('_')]
globals().update({name: getattr(_contrib, name) for name in __all__})
