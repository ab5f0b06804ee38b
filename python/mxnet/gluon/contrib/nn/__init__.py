"""gluon.contrib.nn: containers and layers outside the core nn API."""
from . import basic_layers
from .basic_layers import *  # noqa: F401,F403

__all__ = basic_layers.__all__
