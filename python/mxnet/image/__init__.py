"""mx.image: image decoding, resizing, cropping, rotation, augmenters and ImageIter (MXNet
1.9.1's names)."""
from . import image
from .image import *  # noqa: F401,F403
from . import codec
from .codec import *  # noqa: F401,F403
from .codec import imdecode_np, imencode_np  # noqa: F401  (mx.recordio without cv2)
from . import augmenters
from .augmenters import *  # noqa: F401,F403
from . import image_iter
from .image_iter import *  # noqa: F401,F403
from . import detection
from . import detection as det
from .detection import *  # noqa: F401,F403
