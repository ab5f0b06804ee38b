"""gluon.contrib: layers and data utilities outside the core API."""
from . import data  # noqa: F401
