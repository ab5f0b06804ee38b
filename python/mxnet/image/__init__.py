"""mx.image: image decoding, resizing, cropping and rotation functions (MXNet 1.9.1's names)."""
from . import image
from .image import *  # noqa: F401,F403
from . import codec
from .codec import *  # noqa: F401,F403
from .codec import imdecode_np, imencode_np  # noqa: F401  (mx.recordio without cv2)
