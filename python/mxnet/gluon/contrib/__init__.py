"""gluon.contrib: layers and data utilities outside the core API."""
from . import data  # noqa: F401
from . import nn  # noqa: F401
from . import rnn  # noqa: F401
from . import cnn  # noqa: F401
from . import estimator  # noqa: F401
