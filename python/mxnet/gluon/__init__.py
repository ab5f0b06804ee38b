"""Gluon: MXNet's imperative interface for building and training networks."""
from .parameter import *  # noqa: F401,F403
from .block import *  # noqa: F401,F403
from .trainer import *  # noqa: F401,F403
from . import utils  # noqa: F401
from . import data  # noqa: F401
from . import contrib  # noqa: F401
from . import nn  # noqa: F401
from . import loss  # noqa: F401
from . import rnn  # noqa: F401
from . import model_zoo  # noqa: F401
