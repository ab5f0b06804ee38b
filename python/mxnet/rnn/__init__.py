"""mx.rnn: symbolic recurrent cells, their checkpoints and bucketed sentence data (the
MXNet 1.x API that BucketingModule models use)."""
from . import rnn_cell, rnn, io
from .rnn_cell import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .io import *  # noqa: F401,F403
