"""Image transforms (gluon.data.vision.transforms) as in MXNet 1.9.1: Blocks over the
mx.nd.image operators and mx.image functions, composable with Compose."""
import random

import numpy as np

from ...block import Block, HybridBlock
from .... import image
from ....base import numeric_types

try:
    from ...nn import Sequential, HybridSequential
except ImportError:
    Sequential = None
if not isinstance(Sequential, type):  # gluon.nn not here yet: containers that behave alike
    from ...utils import _indent

    class _Children(object):
        """add() and the children listing of the Sequential containers."""

        def add(self, *blocks):
            for block in blocks:
                self.register_child(block)

        def __repr__(self):
            children = '\n'.join('  ({}): {}'.format(key, _indent(repr(block), 2))
                                 for key, block in self._children.items())
            return '{}(\n{}\n)'.format(type(self).__name__, children)

    class Sequential(_Children, Block):
        """Runs its children one after the other."""

        def forward(self, x):
            for block in self._children.values():
                x = block(x)
            return x

    class HybridSequential(_Children, HybridBlock):
        """Runs its (hybrid) children one after the other."""

        def hybrid_forward(self, F, x):
            for block in self._children.values():
                x = block(x)
            return x

__all__ = ['Compose', 'Cast', 'ToTensor', 'Normalize', 'Rotate', 'RandomRotation',
           'RandomResizedCrop', 'CropResize', 'CenterCrop', 'Resize', 'RandomFlipLeftRight',
           'RandomFlipTopBottom', 'RandomBrightness', 'RandomContrast', 'RandomSaturation',
           'RandomHue', 'RandomColorJitter', 'RandomLighting', 'RandomApply']


# ---------------------------------------------------------------- containers
class Compose(Sequential):
    """Sequentially composes multiple transforms; runs of consecutive HybridBlocks are
    grouped into a hybridized HybridSequential.

    Parameters
    ----------
    transforms : list of transform Blocks.
    """

    def __init__(self, transforms):
        super(Compose, self).__init__()
        transforms.append(None)
        hybrid = []
        for i in transforms:
            if isinstance(i, HybridBlock):
                hybrid.append(i)
                continue
            elif len(hybrid) == 1:
                self.add(hybrid[0])
                hybrid = []
            elif len(hybrid) > 1:
                hblock = HybridSequential()
                for j in hybrid:
                    hblock.add(j)
                hblock.hybridize()
                self.add(hblock)
                hybrid = []
            if i is not None:
                self.add(i)


class RandomApply(Sequential):
    """Applies `transforms` with probability p, else passes the input through.

    Parameters
    ----------
    transforms : Block
    p : float, default 0.5
    """

    def __init__(self, transforms, p=0.5):
        super(RandomApply, self).__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)


# ---------------------------------------------------------------- conversions
class Cast(HybridBlock):
    """Casts the input to dtype (default 'float32')."""

    def __init__(self, dtype='float32'):
        super(Cast, self).__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """Converts an (H x W x C) or (N x H x W x C) image in [0, 255] to a float32
    (C x H x W) or (N x C x H x W) tensor in [0, 1]."""

    def __init__(self):
        super(ToTensor, self).__init__()

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """Normalizes a (C x H x W) or (N x C x H x W) tensor: (x[c] - mean[c]) / std[c]; a
    scalar mean or std applies to every channel."""

    def __init__(self, mean=0.0, std=1.0):
        super(Normalize, self).__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, self._mean, self._std)


# ---------------------------------------------------------------- geometry
class Rotate(Block):
    """Rotates float32 (C x H x W) or (N x C x H x W) images by rotation_degrees, keeping the
    shape."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super(Rotate, self).__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. "
                            "Consider calling it after ToTensor")
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotates float32 images by an angle drawn from angle_limits, with probability
    rotate_with_proba."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super(RandomRotation, self).__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple")
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. "
                            "Consider calling it after ToTensor")
        return image.random_rotate(x, *self._args)


class RandomResizedCrop(Block):
    """Crops a random window (area fraction in scale, aspect ratio in ratio) of an
    (H x W x C) image and resizes it to size=(w, h) (an int means square)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0/4.0, 4.0/3.0), interpolation=1):
        super(RandomResizedCrop, self).__init__()
        if isinstance(size, numeric_types):
            size = (size, size)
        self._args = (size, scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class CropResize(HybridBlock):
    """Crops the (x, y, width, height) window of (H x W x C) or (N x H x W x C) images,
    then resizes it to size if given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super(CropResize, self).__init__()
        self._x = x
        self._y = y
        self._width = width
        self._height = height
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            out = F.image.resize(out, self._size, False, self._interpolation)
        return out


class CenterCrop(Block):
    """Crops the center of an (H x W x C) image to size=(w, h) (an int means square),
    resizing up when the image is smaller."""

    def __init__(self, size, interpolation=1):
        super(CenterCrop, self).__init__()
        if isinstance(size, numeric_types):
            size = (size, size)
        self._args = (size, interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class Resize(HybridBlock):
    """Resizes (H x W x C) or (N x H x W x C) images to size=(w, h), or with an int size to
    a square, or with keep_ratio=True the short edge to size."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super(Resize, self).__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, self._size, self._keep, self._interpolation)


class RandomFlipLeftRight(HybridBlock):
    """Flips an (H x W x C) image left to right with probability 0.5."""

    def __init__(self):
        super(RandomFlipLeftRight, self).__init__()

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Flips an (H x W x C) image top to bottom with probability 0.5."""

    def __init__(self):
        super(RandomFlipTopBottom, self).__init__()

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


# ---------------------------------------------------------------- color
class _RandomEnhance(HybridBlock):
    """A color jitter whose factor is drawn from [max(0, 1 - amount), 1 + amount]."""
    _op = None

    def __init__(self, amount):
        super(_RandomEnhance, self).__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self._op)(x, *self._args)


class RandomBrightness(_RandomEnhance):
    """Jitters brightness by a factor drawn from [max(0, 1 - brightness), 1 + brightness]."""
    _op = 'random_brightness'

    def __init__(self, brightness):
        super(RandomBrightness, self).__init__(brightness)


class RandomContrast(_RandomEnhance):
    """Jitters contrast by a factor drawn from [max(0, 1 - contrast), 1 + contrast]."""
    _op = 'random_contrast'

    def __init__(self, contrast):
        super(RandomContrast, self).__init__(contrast)


class RandomSaturation(_RandomEnhance):
    """Jitters saturation by a factor drawn from [max(0, 1 - saturation), 1 + saturation]."""
    _op = 'random_saturation'

    def __init__(self, saturation):
        super(RandomSaturation, self).__init__(saturation)


class RandomHue(_RandomEnhance):
    """Jitters hue by a factor drawn from [max(0, 1 - hue), 1 + hue]."""
    _op = 'random_hue'

    def __init__(self, hue):
        super(RandomHue, self).__init__(hue)


class RandomColorJitter(HybridBlock):
    """Jitters brightness, contrast, saturation and hue, in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super(RandomColorJitter, self).__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """Adds AlexNet-style PCA-based lighting noise of standard deviation alpha."""

    def __init__(self, alpha):
        super(RandomLighting, self).__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, self._alpha)
