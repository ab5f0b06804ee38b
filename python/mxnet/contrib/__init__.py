"""mx.contrib: experimental interfaces of MXNet 1.x (contrib operators, the old autograd API)."""
from . import ndarray  # noqa: F401
from . import ndarray as nd  # noqa: F401
from . import autograd  # noqa: F401
from . import text  # noqa: F401
from . import io  # noqa: F401
