"""Gluon: MXNet's imperative interface for building and training networks."""
from . import utils  # noqa: F401
from . import data  # noqa: F401
from . import contrib  # noqa: F401
