"""mx.contrib.amp: automatic mixed precision's dynamic loss scaling for Gluon Trainers
(init, init_trainer, scale_loss, unscale). Graph conversion to float16/bfloat16 is not
available in this build: operators keep computing in float32."""
from . import amp
from .amp import *  # noqa: F401,F403
from .loss_scaler import LossScaler  # noqa: F401
