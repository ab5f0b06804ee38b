"""mx.sym: symbolic graphs, every registered operator as a function building a graph node."""
import sys as _sys

from . import _internal, contrib, image, linalg, op, random
from . import symbol as _symbol_mod
from .register import populate as _populate
from .symbol import *  # noqa: F401,F403
from .symbol import Symbol, var, Variable, Group, load, load_json

_this = _sys.modules[__name__]
_populate(_this, _internal, contrib, random, linalg, image, op)
_symbol_mod._internal = _internal
_symbol_mod.op = op
random._internal = _internal
# the functions written in symbol.py win over generated ones of the same name
for _name in _symbol_mod.__all__:
    setattr(_this, _name, getattr(_symbol_mod, _name))
op.__all__ = sorted(n for n in dir(op) if not n.startswith("_"))
from . import sparse  # noqa: E402
sparse._populate(_this, _internal)
from .numpy import np, npx  # noqa: E402  (placeholders: see symbol/numpy.py)

__all__ = op.__all__ + _symbol_mod.__all__ + ["contrib", "linalg", "random", "image", "sparse"]
