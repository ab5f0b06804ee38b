"""mx.optimizer: weight-update rules by name (mx.optimizer.create('sgd', ...)), the Updater
that keeps their states, and the contrib optimizers."""
from . import optimizer, contrib
from .optimizer import Optimizer, Updater, create, get_updater, register, Test
from .sgd import SGD, ccSGD, NAG, Signum, LBSGD, DCASGD, SGLD
from .lars import LARS
from .adaptive import Adam, Adamax, Nadam, AdaGrad, AdaDelta, RMSProp, Ftrl, FTML
from .lamb import LAMB
from ..ndarray import abs as NDabs  # noqa: F401  (exported by MXNet 1.x's optimizer module)

_CORE = [SGD, ccSGD, NAG, Signum, LBSGD, DCASGD, SGLD, LARS, Adam, Adamax, Nadam, AdaGrad,
         AdaDelta, RMSProp, Ftrl, FTML, LAMB]

# MXNet 1.x defines all of these in mxnet.optimizer.optimizer, and pickles (Updater states
# saved with the optimizer, Trainer.save_states) name them there: give them that home so
# files move both ways between the two frameworks.
for _klass in _CORE:
    _klass.__module__ = optimizer.__name__
    setattr(optimizer, _klass.__name__, _klass)
optimizer.NDabs = NDabs
del _klass

__all__ = ['AdaDelta', 'AdaGrad', 'Adam', 'Adamax', 'DCASGD', 'FTML', 'Ftrl', 'LARS', 'LBSGD',
           'NAG', 'NDabs', 'Nadam', 'Optimizer', 'RMSProp', 'SGD', 'SGLD', 'Signum', 'LAMB',
           'Test', 'Updater', 'ccSGD', 'create', 'get_updater', 'register', 'contrib']
