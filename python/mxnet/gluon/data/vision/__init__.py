"""gluon.data.vision: image datasets."""
from .datasets import *  # noqa: F401,F403
from . import datasets  # noqa: F401
