"""mx.image functions: resizing and crops against numpy, rotation against MXNet 1.9.1's
outputs (fixtures/image_ops_191.npz)."""
import os
import random

import numpy as np
import pytest

import mxnet as mx

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), 'fixtures', 'image_ops_191.npz'))
needs_sampler = pytest.mark.skipif(not hasattr(mx.nd, 'BilinearSampler'),
                                   reason='imrotate samples with the BilinearSampler op')


def uint8_image(shape, seed=0):
    return mx.nd.array(np.random.RandomState(seed).randint(0, 256, shape), dtype='uint8')


def test_img_is_an_alias():
    assert mx.img is mx.image


@pytest.mark.parametrize('interp', [0, 1, 2, 3, 4])
def test_imresize_is_the_resize_op_with_w_and_h(interp):
    x = uint8_image((7, 9, 3))
    a = mx.image.imresize(x, 5, 11, interp=interp)
    b = mx.nd.image.resize(x, size=(5, 11), interp=interp)
    assert a.shape == (11, 5, 3)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_scale_down_keeps_the_ratio_inside_the_source():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((640, 480), (300, 600)) == (240, 480)
    assert mx.image.scale_down((640, 480), (300, 200)) == (300, 200)


@pytest.mark.parametrize('shape,size,out', [((10, 20, 3), 5, (5, 10)), ((20, 10, 3), 5, (10, 5))])
def test_resize_short(shape, size, out):
    assert mx.image.resize_short(uint8_image(shape), size).shape == out + (3,)


def test_fixed_and_center_crop():
    x = uint8_image((10, 12, 3))
    np.testing.assert_array_equal(mx.image.fixed_crop(x, 2, 3, 4, 5).asnumpy(),
                                  x.asnumpy()[3:8, 2:6])
    out, box = mx.image.center_crop(x, (6, 4))
    assert box == (3, 3, 6, 4)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy()[3:7, 3:9])
    out, box = mx.image.center_crop(x, (24, 20))  # too big: largest fitting box, resized up
    assert box == (0, 0, 12, 10) and out.shape == (20, 24, 3)


def test_fixed_crop_resizes_with_interp_chosen_by_direction():
    x = uint8_image((10, 12, 3))
    out = mx.image.fixed_crop(x, 0, 0, 8, 8, size=(4, 4), interp=9)  # shrink: area
    expected = mx.nd.image.resize(x[0:8, 0:8], size=(4, 4), interp=3)
    np.testing.assert_array_equal(out.asnumpy(), expected.asnumpy())
    with pytest.raises(ValueError, match='Unknown interp method 7'):
        mx.image.fixed_crop(x, 0, 0, 8, 8, size=(4, 4), interp=7)


def test_random_crops_stay_inside_and_follow_python_random():
    x = uint8_image((10, 12, 3))
    random.seed(1)
    boxes = [mx.image.random_crop(x, (5, 4))[1] for _ in range(10)]
    assert all(0 <= x0 <= 7 and 0 <= y0 <= 6 and (w, h) == (5, 4) for x0, y0, w, h in boxes)
    assert len(set(boxes)) > 1
    random.seed(1)
    assert boxes == [mx.image.random_crop(x, (5, 4))[1] for _ in range(10)]
    out, (x0, y0, w, h) = mx.image.random_size_crop(x, (6, 6), 0.3, (0.75, 1.33))
    assert out.shape == (6, 6, 3) and x0 + w <= 12 and y0 + h <= 10 and w * h >= 0.3 * 120 - 12


def test_color_normalize_in_place():
    x = mx.nd.array([[[10.0, 20.0, 30.0]]])
    y = mx.image.color_normalize(x, mx.nd.array([1.0, 2.0, 3.0]), mx.nd.array([3.0, 2.0, 1.0]))
    np.testing.assert_allclose(y.asnumpy(), [[[3.0, 9.0, 27.0]]])


@needs_sampler
@pytest.mark.parametrize('key,angles,kwargs', [('single', 30, {}),
                                               ('batch_zoom_in', [-20, 45], dict(zoom_in=True)),
                                               ('batch_zoom_out', [10, 75], dict(zoom_out=True))])
def test_imrotate_matches_mxnet191(key, angles, kwargs):
    x, ref = FIXTURES['imrotate/%s/in' % key], FIXTURES['imrotate/%s/out' % key]
    if not isinstance(angles, int):
        angles = mx.nd.array(angles)
    y = mx.image.imrotate(mx.nd.array(x), angles, **kwargs)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-5, atol=1e-5)


@needs_sampler
def test_imrotate_half_turn_reverses_both_axes():
    x = np.random.RandomState(0).rand(3, 5, 6).astype('float32')
    y = mx.image.imrotate(mx.nd.array(x), 180)
    np.testing.assert_allclose(y.asnumpy(), x[:, ::-1, ::-1], atol=1e-4)
    np.testing.assert_allclose(mx.image.imrotate(mx.nd.array(x), 0).asnumpy(), x, atol=1e-5)


def test_imrotate_bad_arguments():
    x = mx.nd.ones((3, 4, 4))
    with pytest.raises(ValueError, match='cannot be both True'):
        mx.image.imrotate(x, 10, zoom_in=True, zoom_out=True)
    with pytest.raises(TypeError, match='float32'):
        mx.image.imrotate(x.astype('float64'), 10)
    with pytest.raises(TypeError, match='scalar'):
        mx.image.imrotate(x, mx.nd.array([10]))
    with pytest.raises(ValueError, match='number of images'):
        mx.image.imrotate(mx.nd.ones((2, 3, 4, 4)), mx.nd.array([1, 2, 3]))
    with pytest.raises(ValueError, match='3D and 4D'):
        mx.image.imrotate(mx.nd.ones((4, 4)), 10)
