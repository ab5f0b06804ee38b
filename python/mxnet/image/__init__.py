"""mx.image: image resizing, cropping and rotation functions (MXNet 1.9.1's names)."""
from . import image
from .image import *  # noqa: F401,F403
