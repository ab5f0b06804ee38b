"""gluon.nn: the neural network layers (Dense, convolutions, pooling, normalization, ...)."""
from ..block import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from .activations import *  # noqa: F401,F403
