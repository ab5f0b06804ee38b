"""Image decoding and padding of mx.image through the library's OpenCV operators
(_cvimread, _cvimdecode, _cvcopyMakeBorder), and the numpy-level decode/encode that
mx.recordio and tools/im2rec.py use when Python's cv2 is not installed."""
import numpy as np

from .. import ndarray as nd
from ..ndarray import _internal

__all__ = ['imread', 'imdecode', 'copyMakeBorder']


def imread(filename, *args, **kwargs):
    """Reads and decodes an image file to an (H, W, C) uint8 NDArray.

    flag: 1 (default) three-channel color, 0 grayscale; to_rgb: True (default) RGB order,
    False OpenCV's BGR."""
    return _internal._cvimread(filename, *args, **kwargs)


def imdecode(buf, *args, **kwargs):
    """Decodes an encoded image (bytes, bytearray, numpy uint8 array or NDArray) to an
    (H, W, C) uint8 NDArray; flag and to_rgb as for imread."""
    if not isinstance(buf, nd.NDArray):
        if not isinstance(buf, (bytes, bytearray, np.ndarray)):
            raise ValueError('buf must be of type bytes, bytearray or numpy.ndarray,'
                             'if you would like to input type str, please convert to bytes')
        buf = nd.array(np.frombuffer(buf, dtype=np.uint8), dtype=np.uint8)
    return _internal._cvimdecode(buf, *args, **kwargs)


def copyMakeBorder(src, top, bot, left, right, *args, **kwargs):
    """Pads an (H, W, C) image: type 0 constant (value/values), 1 replicate, 2 reflect,
    3 wrap, 4 reflect_101 (OpenCV's border types)."""
    return _internal._cvcopyMakeBorder(src, top, bot, left, right, *args, **kwargs)


def imdecode_np(buf, iscolor=-1):
    """cv2.imdecode's contract on numpy: BGR order, iscolor 0 gray (H, W), 1 color, -1 as
    stored (gray stays 2-D). Uses the library's OpenCV decoder."""
    raw = np.frombuffer(buf, dtype=np.uint8)
    if iscolor == 0:
        return imdecode(raw, flag=0).asnumpy()[:, :, 0]
    img = imdecode(raw, flag=1, to_rgb=False).asnumpy()
    if iscolor < 0:
        gray = imdecode(raw, flag=0).asnumpy()[:, :, 0]
        # decoded as color, a gray source has three equal channels: give it back 2-D
        if (img[:, :, 0] == img[:, :, 1]).all() and (img[:, :, 1] == img[:, :, 2]).all() \
                and (img[:, :, 0] == gray).all():
            return gray
    return img


def imencode_np(img, img_fmt='.jpg', quality=95):
    """cv2.imencode's contract on numpy: an (H, W[, C]) uint8 image in OpenCV's channel order
    to .jpg/.png bytes (quality: JPEG quality or PNG compression)."""
    arr = nd.array(np.ascontiguousarray(img, dtype=np.uint8), dtype=np.uint8)
    return _internal._cvimencode(arr, img_fmt=img_fmt, quality=quality).asnumpy().tobytes()
