"""gluon.contrib.rnn: convolutional recurrent cells, variational dropout, the projected LSTM
cell and `dynamic_unroll` (MXNet 1.9.1's names, parameters and prefixes)."""
from .conv_rnn_cell import *  # noqa: F401,F403
from .rnn_cell import *  # noqa: F401,F403
from . import conv_rnn_cell  # noqa: F401
from . import rnn_cell  # noqa: F401
