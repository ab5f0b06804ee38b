"""mx.image decoding through the library's OpenCV (imdecode, imread, copyMakeBorder) against
MXNet 1.9.1's results, and mx.recordio.pack_img/unpack_img without Python's cv2."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')
REF = np.load(os.path.join(FIXTURES, 'image_codec_mxnet191.npz'))

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('OPENCV'),
                                reason='built without OpenCV')


@pytest.mark.parametrize('fmt', ['png', 'jpg'])
def test_imdecode_matches_mxnet191(fmt):
    buf = REF[fmt].tobytes()
    rgb = mx.image.imdecode(buf)
    assert rgb.dtype == np.uint8 and rgb.shape == (37, 53, 3)
    tol = 0 if fmt == 'png' else 2  # JPEG: libjpeg-turbo versions may round differently
    assert np.abs(rgb.asnumpy().astype(int) - REF[fmt + '_rgb']).max() <= tol
    bgr = mx.image.imdecode(bytearray(buf), to_rgb=False).asnumpy()
    assert np.abs(bgr.astype(int) - REF[fmt + '_bgr']).max() <= tol
    gray = mx.image.imdecode(np.frombuffer(buf, np.uint8), flag=0)
    assert gray.shape == (37, 53, 1)
    assert np.abs(gray.asnumpy().astype(int) - REF[fmt + '_gray']).max() <= tol


def test_imread_reads_a_file(tmp_path):
    path = str(tmp_path / 'x.png')
    with open(path, 'wb') as f:
        f.write(REF['png'].tobytes())
    assert np.array_equal(mx.image.imread(path).asnumpy(), REF['png_rgb'])
    assert np.array_equal(mx.image.imread(path, flag=0).asnumpy(), REF['png_gray'])


def test_bad_image_bytes_raise_mxnet_error(tmp_path):
    with pytest.raises(MXNetError, match='not a valid image'):
        mx.image.imdecode(b'\xff\xd8\xff garbage jpeg')
    with pytest.raises(MXNetError, match='not a valid image'):
        mx.image.imdecode(REF['jpg'].tobytes()[:40])
    with pytest.raises(MXNetError, match='uint8'):
        mx.image.imdecode(mx.nd.zeros((10,)))
    with pytest.raises(MXNetError, match='missing.jpg'):
        mx.image.imread(str(tmp_path / 'missing.jpg'))
    with pytest.raises(ValueError):
        mx.image.imdecode('a str')


@pytest.mark.parametrize('border', range(5))
def test_copy_make_border_matches_mxnet191(border):
    src = mx.nd.array(_raw_corner(), dtype='uint8')
    out = mx.image.copyMakeBorder(src, 2, 3, 4, 7, type=border, values=(10, 20, 30))
    assert np.array_equal(out.asnumpy(), REF['border%d' % border])


def _raw_corner():
    """The 5x6 corner of the fixture's source image, in the channel order it was encoded."""
    return mx.image.imdecode(REF['png'].tobytes(), to_rgb=False).asnumpy()[:5, :6]


@pytest.mark.parametrize('border,mode', [(1, 'edge'), (2, 'symmetric'), (3, 'wrap'),
                                         (4, 'reflect')])
def test_copy_make_border_large_pads_follow_numpy(border, mode):
    src = np.arange(3 * 4 * 2, dtype=np.float32).reshape(3, 4, 2)
    out = mx.image.copyMakeBorder(mx.nd.array(src), 5, 1, 9, 0, type=border).asnumpy()
    assert np.array_equal(out, np.pad(src, ((5, 1), (9, 0), (0, 0)), mode=mode))


def test_pack_img_unpack_img_round_trip_png():
    rng = np.random.RandomState(1)
    img = rng.randint(0, 256, size=(9, 11, 3)).astype(np.uint8)
    packed = mx.recordio.pack_img(mx.recordio.IRHeader(0, [1, 2], 5, 0), img, quality=3,
                                  img_fmt='.png')
    header, back = mx.recordio.unpack_img(packed)
    assert header.flag == 2 and header.id == 5
    assert np.array_equal(back, img)
    _, gray = mx.recordio.unpack_img(packed, iscolor=0)
    assert gray.shape == (9, 11)
    _, as_stored = mx.recordio.unpack_img(mx.recordio.pack_img((0, 1, 0, 0), img[:, :, 0],
                                                               img_fmt='.png'))
    assert np.array_equal(as_stored, img[:, :, 0])


def test_pack_img_jpeg_quality_changes_size():
    yy, xx = np.mgrid[0:64, 0:64]
    img = np.stack([xx * 4, yy * 4, (xx + yy) * 2], axis=2).astype(np.uint8)
    small = mx.recordio.pack_img((0, 0, 0, 0), img, quality=20)
    big = mx.recordio.pack_img((0, 0, 0, 0), img, quality=98)
    assert len(small) < len(big)
    _, back = mx.recordio.unpack_img(big)
    assert np.abs(back.astype(int) - img).mean() < 2
    with pytest.raises(ValueError, match='img_fmt'):
        mx.recordio.pack_img((0, 0, 0, 0), img, img_fmt='.gif')


def test_features_say_opencv():
    assert mx.runtime.Features().is_enabled('OPENCV')
