"""gluon.data.vision: image datasets and transforms."""
from .datasets import *  # noqa: F401,F403
from .image_datasets import *  # noqa: F401,F403
from . import datasets, image_datasets  # noqa: F401
from . import transforms  # noqa: F401
