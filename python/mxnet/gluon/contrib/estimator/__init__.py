"""gluon.contrib.estimator: a training loop (Estimator.fit / evaluate) driven by event
handlers at train, epoch and batch boundaries, as in MXNet 1.9.1."""
from .estimator import *  # noqa: F401,F403
from .event_handler import *  # noqa: F401,F403
from .batch_processor import *  # noqa: F401,F403
from . import estimator, event_handler, batch_processor  # noqa: F401
