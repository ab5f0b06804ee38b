"""Image functions of mx.image on (H, W, C) NDArrays: OpenCV-compatible resizing
(_cvimresize), crops with optional resizing, color normalization and rotation by bilinear
sampling. Decoding is in codec.py, the Augmenter classes in augmenters.py, ImageIter in
image_iter.py."""
import random
from numbers import Number

import numpy as np

from .. import ndarray as nd
from ..ndarray import _internal

__all__ = ['imresize', 'scale_down', 'resize_short', 'fixed_crop', 'random_crop',
           'center_crop', 'color_normalize', 'random_size_crop', 'imrotate', 'random_rotate']


def _get_interp_method(interp, sizes=()):
    """The OpenCV interpolation code (0-4) for interp: 0-4 are themselves; 9 picks by the
    resize direction given sizes=(old_h, old_w, new_h, new_w) (cubic to enlarge both sides,
    area to shrink both, else bilinear; cubic without sizes); 10 picks one of 0-4 at random."""
    if interp == 9:
        if not sizes:
            return 2
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError('Unknown interp method %d' % interp)
    return interp


def imresize(src, w, h, *args, **kwargs):
    """Resizes an (H, W, C) image to (h, w, C); interp as OpenCV's codes (default 1)."""
    return _internal._cvimresize(src, w, h, *args, **kwargs)


def scale_down(src_size, size):
    """Shrinks a crop size (w, h), keeping its ratio, until it fits in src_size (w, h)."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def resize_short(src, size, interp=2):
    """Resizes the shorter edge to size, the longer one in proportion (rounded down)."""
    h, w, _ = src.shape
    new_h, new_w = (size * h // w, size) if h > w else (size, size * w // h)
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The (x0, y0, w, h) window of src, resized to size=(w, h) when given and different."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != size:
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """A window of size (scaled down to fit) at a random position; returns (out, box)."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centered window of size (scaled down to fit, then resized up to size); returns
    (out, (x0, y0, w, h))."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = int((w - new_w) / 2), int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """(src - mean) / std, in place on src."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A window of random area fraction (area: min or (min, max)) and aspect ratio (ratio:
    (min, max), drawn log-uniformly), resized to size; after 10 misses, the center crop.
    Returns (out, (x0, y0, w, h))."""
    h, w, _ = src.shape
    if 'min_area' in kwargs:
        area = kwargs.pop('min_area')
    if kwargs:
        raise TypeError("unexpected keyword arguments for `random_size_crop`: %s" % list(kwargs))
    if isinstance(area, Number):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * h * w
        new_ratio = np.exp(random.uniform(np.log(ratio[0]), np.log(ratio[1])))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotates float32 (C, H, W) images, or (N, C, H, W) batches with one angle per image,
    about their centers by bilinear sampling (zeros outside). zoom_in scales so no padding
    shows; zoom_out so that the whole rotated image fits."""
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if src.dtype is not np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, Number):
            raise TypeError("When a single image is passed the rotation angle is "
                            "required to be a scalar.")
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError("Only 3D and 4D are supported by this function")
    ctx = src.context
    if isinstance(rotation_degrees, Number):
        rotation_degrees = nd.array([rotation_degrees] * len(src), ctx=ctx)
    if len(src) != len(rotation_degrees):
        raise ValueError("The number of images must be equal to the number of rotation angles")
    theta = (rotation_degrees.as_in_context(ctx) * (np.pi / 180)).reshape((-1, 1, 1))
    _, _, h, w = src.shape
    half_h, half_w = float(h - 1) / 2, float(w - 1) / 2
    # pixel coordinates relative to the center, each (1, h, w)
    ys = nd.broadcast_to(nd.arange(h, ctx=ctx).reshape((1, h, 1)) - half_h, shape=(1, h, w))
    xs = nd.broadcast_to(nd.arange(w, ctx=ctx).reshape((1, 1, w)) - half_w, shape=(1, h, w))
    cos, sin = nd.cos(theta), nd.sin(theta)
    # rotate first, then normalize each axis to [-1, 1] (keeps the aspect ratio)
    grid_x = (xs * cos - ys * sin) / half_w
    grid_y = (xs * sin + ys * cos) / half_h
    scale = 1
    if zoom_in or zoom_out:
        hh, ww = nd.array([h], ctx=ctx), nd.array([w], ctx=ctx)
        radius = nd.sqrt(hh * hh + ww * ww)
        corner = nd.arctan(hh / ww)
        turn = nd.abs(theta)
        extent_x = nd.maximum(nd.abs(radius * nd.cos(corner + turn)),
                              nd.abs(radius * nd.cos(corner - turn)))
        extent_y = nd.maximum(nd.abs(radius * nd.sin(corner + turn)),
                              nd.abs(radius * nd.sin(corner - turn)))
        if zoom_out:
            scale = nd.maximum(extent_x / ww, extent_y / hh)
        else:
            scale = nd.minimum(ww / extent_x, hh / extent_y)
        scale = scale.expand_dims(axis=3)
    grid = nd.concat(grid_x.expand_dims(axis=1), grid_y.expand_dims(axis=1), dim=1) * scale
    out = nd.BilinearSampler(src, grid)
    return out[0] if single else out


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """imrotate by angles drawn uniformly from angle_limits=(low, high) (one per image)."""
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)


# Decoding lives in codec.py; MXNet 1.9.1 users also reach it as mx.image.image.imread.
from .codec import imread, imdecode, copyMakeBorder  # noqa: E402,F401  pylint: disable=wrong-import-position
__all__ += ['imread', 'imdecode', 'copyMakeBorder']
