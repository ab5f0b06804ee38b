"""gluon.contrib.data: extra samplers and the WikiText language-model datasets."""
from .sampler import *  # noqa: F401,F403
from . import sampler  # noqa: F401
from . import text  # noqa: F401
