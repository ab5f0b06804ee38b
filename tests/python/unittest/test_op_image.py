"""mx.nd.image operators against numpy references and against MXNet 1.9.1's outputs
(fixtures/image_ops_191.npz, written by fixtures/make_image_fixtures.py)."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), 'fixtures', 'image_ops_191.npz'))


def fixture(key):
    return FIXTURES[key + '/in'], FIXTURES[key + '/out']


def nd(x):
    return mx.nd.array(x, dtype=x.dtype)


def rand_image(shape, dtype='uint8', seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randint(0, 256, shape).astype(dtype)
    return x if dtype == 'uint8' else x + rng.rand(*shape).astype(dtype)


def test_namespace_lists_image_ops_without_prefix():
    names = {'to_tensor', 'normalize', 'flip_left_right', 'flip_top_bottom',
             'random_flip_left_right', 'random_flip_top_bottom', 'crop', 'resize',
             'random_brightness', 'random_contrast', 'random_saturation', 'random_hue',
             'random_color_jitter', 'adjust_lighting', 'random_lighting'}
    assert names <= set(dir(mx.nd.image))
    assert hasattr(mx.nd._internal, '_image_resize')
    assert not hasattr(mx.nd, '_image_resize')


# ---------------------------------------------------------------- to_tensor / normalize
@pytest.mark.parametrize('shape', [(4, 5, 3), (2, 4, 5, 1)])
@pytest.mark.parametrize('dtype', ['uint8', 'float32', 'float64', 'int32'])
def test_to_tensor_moves_channels_first_and_scales(shape, dtype):
    x = rand_image(shape, dtype)
    y = mx.nd.image.to_tensor(nd(x))
    assert y.dtype == np.float32
    axes = (2, 0, 1) if len(shape) == 3 else (0, 3, 1, 2)
    np.testing.assert_allclose(y.asnumpy(), np.transpose(x, axes).astype(np.float32) / 255,
                               rtol=1e-6)


@pytest.mark.parametrize('dtype', ['uint8', 'float32'])
def test_to_tensor_matches_mxnet191(dtype):
    x, ref = fixture('to_tensor/%s' % dtype)
    np.testing.assert_array_equal(mx.nd.image.to_tensor(nd(x)).asnumpy(), ref)


def test_to_tensor_rejects_2d_input():
    with pytest.raises(MXNetError, match='_image_to_tensor.*height, width, channels'):
        mx.nd.image.to_tensor(mx.nd.ones((2, 2))).wait_to_read()


@pytest.mark.parametrize('shape,mean,std', [((3, 4, 5), (0.1, 0.5, 0.9), (0.2, 0.3, 0.4)),
                                            ((2, 3, 4, 5), 0.5, 2.0),
                                            ((1, 4, 5), (0.3,), (0.5,)),
                                            ((2, 1, 2, 2), 0.25, (4,))])
def test_normalize_per_channel(shape, mean, std):
    x = np.random.RandomState(1).rand(*shape).astype('float32')
    c_axis = 0 if len(shape) == 3 else 1
    bshape = [1] * len(shape)
    bshape[c_axis] = shape[c_axis]
    m = np.broadcast_to(np.array(mean, 'float32').reshape(-1), (shape[c_axis],)).reshape(bshape)
    s = np.broadcast_to(np.array(std, 'float32').reshape(-1), (shape[c_axis],)).reshape(bshape)
    y = mx.nd.image.normalize(mx.nd.array(x), mean=mean, std=std)
    np.testing.assert_allclose(y.asnumpy(), (x - m) / s, rtol=1e-6)


def test_normalize_matches_mxnet191():
    x, ref = fixture('normalize')
    y = mx.nd.image.normalize(nd(x), mean=(0.1, 0.5, 0.9), std=(0.2, 0.3, 0.4))
    np.testing.assert_array_equal(y.asnumpy(), ref)


def test_normalize_keeps_integer_dtype_truncating():
    x = np.arange(12).reshape(3, 2, 2).astype('uint8')
    y = mx.nd.image.normalize(nd(x), mean=(1, 2, 3), std=(2,))
    assert y.dtype == np.uint8
    expected = ((x - np.array([1, 2, 3]).reshape(3, 1, 1)) / 2.0).astype('uint8')
    np.testing.assert_array_equal(y.asnumpy()[x >= 3], expected[x >= 3])


def test_normalize_gradient_divides_by_std():
    x = mx.nd.array(np.random.rand(2, 3, 2, 2))
    x.attach_grad()
    og = mx.nd.array(np.random.rand(2, 3, 2, 2))
    with mx.autograd.record():
        y = mx.nd.image.normalize(x, mean=(1, 2, 3), std=(0.5, 2, 4))
    y.backward(og)
    expected = og.asnumpy() / np.array([0.5, 2, 4], 'float32').reshape(1, 3, 1, 1)
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6)


def test_normalize_bad_arguments():
    with pytest.raises(MXNetError, match='mean must have 1 or 3 elements'):
        mx.nd.image.normalize(mx.nd.ones((3, 2, 2))).wait_to_read()  # 4-element default
    with pytest.raises(MXNetError, match='std must have 1 or 3'):
        mx.nd.image.normalize(mx.nd.ones((3, 2, 2)), mean=0, std=(1, 2)).wait_to_read()
    with pytest.raises(MXNetError, match='channel dimension.*1 or 3'):
        mx.nd.image.normalize(mx.nd.ones((4, 2, 2)), mean=0, std=1).wait_to_read()
    with pytest.raises(MXNetError, match='channels, height, width'):
        mx.nd.image.normalize(mx.nd.ones((2, 2)), mean=0, std=1).wait_to_read()


# ---------------------------------------------------------------- flips and crop
@pytest.mark.parametrize('shape', [(4, 6, 3), (5, 7, 1)])
@pytest.mark.parametrize('dtype', ['uint8', 'float32', 'float16', 'int64'])
def test_flips_reverse_columns_and_rows(shape, dtype):
    x = rand_image(shape, dtype)
    np.testing.assert_array_equal(mx.nd.image.flip_left_right(nd(x)).asnumpy(), x[:, ::-1])
    np.testing.assert_array_equal(mx.nd.image.flip_top_bottom(nd(x)).asnumpy(), x[::-1])


@pytest.mark.parametrize('dtype', ['uint8', 'float32'])
def test_flips_match_mxnet191(dtype):
    x, ref = fixture('flip_left_right/%s' % dtype)
    np.testing.assert_array_equal(mx.nd.image.flip_left_right(nd(x)).asnumpy(), ref)
    x, ref = fixture('flip_top_bottom/%s' % dtype)
    np.testing.assert_array_equal(mx.nd.image.flip_top_bottom(nd(x)).asnumpy(), ref)


def test_flip_writes_into_out_argument_in_place():
    x = rand_image((3, 5, 3), 'float32')
    a = mx.nd.array(x)
    mx.nd.image.flip_left_right(a, out=a)
    np.testing.assert_array_equal(a.asnumpy(), x[:, ::-1])


def test_flip_rejects_batches_and_two_channels():
    with pytest.raises(MXNetError, match='height, width, channels'):
        mx.nd.image.flip_left_right(mx.nd.ones((2, 3, 3, 3))).wait_to_read()
    with pytest.raises(MXNetError, match='1 or 3 elements'):
        mx.nd.image.flip_top_bottom(mx.nd.ones((3, 3, 2))).wait_to_read()


@pytest.mark.parametrize('op,view', [('random_flip_left_right', lambda x: x[:, ::-1]),
                                     ('random_flip_top_bottom', lambda x: x[::-1])])
def test_random_flips_give_both_outcomes_and_follow_the_seed(op, view):
    x = rand_image((4, 6, 3), 'float32')
    mx.random.seed(7)
    outs = [getattr(mx.nd.image, op)(mx.nd.array(x)).asnumpy() for _ in range(40)]
    flipped = [np.array_equal(o, view(x)) for o in outs]
    assert all(f or np.array_equal(o, x) for f, o in zip(flipped, outs))
    assert 5 < sum(flipped) < 35
    mx.random.seed(7)
    again = [getattr(mx.nd.image, op)(mx.nd.array(x)).asnumpy() for _ in range(40)]
    assert all(np.array_equal(a, b) for a, b in zip(outs, again))


@pytest.mark.parametrize('shape', [(7, 6, 3), (2, 7, 6, 1)])
def test_crop_takes_the_window(shape):
    x = rand_image(shape, 'float32')
    y = mx.nd.image.crop(mx.nd.array(x), x=1, y=2, width=4, height=3)
    np.testing.assert_array_equal(y.asnumpy(), x[..., 2:5, 1:5, :])


def test_crop_matches_mxnet191():
    x, ref = fixture('crop')
    np.testing.assert_array_equal(mx.nd.image.crop(nd(x), 1, 2, 4, 3).asnumpy(), ref)


def test_crop_gradient_scatters_into_zeros():
    x = mx.nd.array(rand_image((2, 7, 6, 3), 'float32'))
    x.attach_grad()
    og = np.random.rand(2, 3, 4, 3).astype('float32')
    with mx.autograd.record():
        y = mx.nd.image.crop(x, x=1, y=2, width=4, height=3)
    y.backward(mx.nd.array(og))
    expected = np.zeros((2, 7, 6, 3), 'float32')
    expected[:, 2:5, 1:5] = og
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)


def test_crop_bad_windows():
    img = mx.nd.ones((4, 4, 3))
    with pytest.raises(MXNetError, match='x \\+ width must not exceed the input width 4'):
        mx.nd.image.crop(img, 1, 1, 4, 2).wait_to_read()
    with pytest.raises(MXNetError, match='y \\+ height'):
        mx.nd.image.crop(img, 0, 2, 2, 3).wait_to_read()
    with pytest.raises(MXNetError, match='greater than 0'):
        mx.nd.image.crop(img, 0, 0, 0, 2).wait_to_read()
    with pytest.raises(MXNetError, match='non-negative'):
        mx.nd.image.crop(img, -1, 0, 2, 2).wait_to_read()
    with pytest.raises(MXNetError, match='1 or 3 elements'):
        mx.nd.image.crop(mx.nd.ones((4, 4, 2)), 0, 0, 2, 2).wait_to_read()


# ---------------------------------------------------------------- resize
def np_resize_nearest(x, w, h):
    sh, sw = x.shape[:2]
    ys = np.minimum(np.floor(np.arange(h) * (1.0 / (h / sh))).astype(int), sh - 1)
    xs = np.minimum(np.floor(np.arange(w) * (1.0 / (w / sw))).astype(int), sw - 1)
    return x[ys][:, xs]


def np_resize_bilinear(x, w, h):
    """Half-pixel-centre bilinear with edge clamping (OpenCV's INTER_LINEAR), in float64."""
    def axis(s, d):
        f = (np.arange(d) + 0.5) * (s / d) - 0.5
        f = np.clip(f, 0, s - 1)
        i0 = np.floor(f).astype(int)
        i1 = np.minimum(i0 + 1, s - 1)
        return i0, i1, f - i0
    y0, y1, fy = axis(x.shape[0], h)
    x0, x1, fx = axis(x.shape[1], w)
    x = x.astype(np.float64)
    rows = x[y0] * (1 - fy)[:, None, None] + x[y1] * fy[:, None, None]
    return rows[:, x0] * (1 - fx)[None, :, None] + rows[:, x1] * fx[None, :, None]


@pytest.mark.parametrize('src,size', [((7, 9), (13, 11)), ((9, 15), (4, 5)), ((6, 10), (3, 14))])
def test_resize_nearest_picks_source_pixels(src, size):
    x = rand_image(src + (3,), 'uint8')
    y = mx.nd.image.resize(nd(x), size=size, interp=0)
    np.testing.assert_array_equal(y.asnumpy(), np_resize_nearest(x, *size))


@pytest.mark.parametrize('src,size', [((7, 9), (13, 11)), ((9, 15), (4, 5)), ((6, 10), (3, 14))])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_resize_bilinear_float_is_half_pixel_interpolation(src, size, dtype):
    x = rand_image(src + (2,), dtype)
    y = mx.nd.image.resize(nd(x), size=size, interp=1)
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_allclose(y.asnumpy(), np_resize_bilinear(x, *size), rtol=1e-4)


def test_resize_bilinear_uint8_rounds_within_one():
    x = rand_image((9, 7, 3), 'uint8')
    y = mx.nd.image.resize(nd(x), size=(12, 5)).asnumpy().astype(int)
    assert np.abs(y - np_resize_bilinear(x, 12, 5)).max() <= 1


@pytest.mark.parametrize('interp', range(5))
@pytest.mark.parametrize('dtype', ['uint8', 'float32', 'float64'])
@pytest.mark.parametrize('case', range(6))
def test_resize_matches_mxnet191(interp, dtype, case):
    x, ref = fixture('resize/%d/%s/%d' % (interp, dtype, case))
    size = [(13, 11), (4, 5), (14, 4), (6, 4), (3, 4), (5, 5)][case]
    y = mx.nd.image.resize(nd(x), size=size, interp=interp).asnumpy()
    if dtype == 'uint8':
        np.testing.assert_array_equal(y, ref)
    else:  # float sums may differ in the last place (OpenCV's SIMD summation order)
        np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-12)


def test_resize_batch_with_keep_ratio_matches_mxnet191():
    x, ref = fixture('resize/batch_keep_ratio')
    y = mx.nd.image.resize(nd(x), size=4, keep_ratio=True)
    assert y.shape == (2, 4, 6, 3)
    np.testing.assert_array_equal(y.asnumpy(), ref)


@pytest.mark.parametrize('src,kwargs,out', [((4, 6), dict(size=3, keep_ratio=True), (3, 4)),
                                            ((7, 6), dict(size=3, keep_ratio=True), (3, 3)),
                                            ((7, 6), dict(size=(3, 2), keep_ratio=True), (2, 3)),
                                            ((7, 6), dict(size=5), (5, 5)),
                                            ((7, 6), dict(size=(4, 9)), (9, 4))])
def test_resize_output_sizes(src, kwargs, out):
    y = mx.nd.image.resize(mx.nd.ones(src + (3,)), **kwargs)
    assert y.shape == out + (3,)
    np.testing.assert_allclose(y.asnumpy(), 1, rtol=1e-6)


def test_resize_same_size_is_a_copy():
    x = rand_image((5, 6, 3), 'float32')
    for interp in range(5):
        np.testing.assert_array_equal(mx.nd.image.resize(nd(x), size=(6, 5),
                                                         interp=interp).asnumpy(), x)


def test_resize_bad_arguments():
    img = mx.nd.ones((4, 4, 3))
    with pytest.raises(MXNetError, match='size must have 1 or 2 elements'):
        mx.nd.image.resize(img).wait_to_read()
    with pytest.raises(MXNetError, match='size must have 1 or 2 elements'):
        mx.nd.image.resize(img, size=(2, 3, 4)).wait_to_read()
    with pytest.raises(MXNetError, match='positive'):
        mx.nd.image.resize(img, size=(0, 3)).wait_to_read()
    with pytest.raises(MXNetError, match='interp=7'):
        mx.nd.image.resize(img, size=3, interp=7).wait_to_read()
    with pytest.raises(MXNetError, match='uint8, float32 or float64, given float16'):
        mx.nd.image.resize(img.astype('float16'), size=3).wait_to_read()
    with pytest.raises(MXNetError, match='height, width, channels'):
        mx.nd.image.resize(mx.nd.ones((4, 4)), size=3).wait_to_read()


# ---------------------------------------------------------------- color
GRAY = np.array([0.299, 0.587, 0.114], 'float32')


def saturate(v, dtype):
    v = v.astype('float32')
    return np.clip(v, 0, 255).astype('uint8') if dtype == 'uint8' else v.astype(dtype)


@pytest.mark.parametrize('dtype', ['uint8', 'float32'])
def test_brightness_scales_values(dtype):
    x = rand_image((4, 5, 3), dtype)
    y = mx.nd.image.random_brightness(nd(x), 1.7, 1.7)
    np.testing.assert_allclose(y.asnumpy(), saturate(x.astype('float32') * np.float32(1.7), dtype),
                               rtol=1e-6)


@pytest.mark.parametrize('dtype', ['uint8', 'float32'])
def test_contrast_blends_with_mean_gray(dtype):
    x = rand_image((4, 5, 3), dtype)
    f = np.float32(0.6)
    mean_gray = (x.astype('float32') * GRAY).sum() / 20
    expected = saturate(x.astype('float32') * f + (1 - f) * mean_gray, dtype)
    y = mx.nd.image.random_contrast(nd(x), 0.6, 0.6).asnumpy()
    np.testing.assert_allclose(y.astype('float32'), expected.astype('float32'),
                               atol=1 if dtype == 'uint8' else 1e-3)


@pytest.mark.parametrize('dtype', ['uint8', 'float32'])
@pytest.mark.parametrize('key,call', [
    ('brightness', lambda x: mx.nd.image.random_brightness(x, 1.7, 1.7)),
    ('contrast', lambda x: mx.nd.image.random_contrast(x, 0.6, 0.6)),
    ('saturation', lambda x: mx.nd.image.random_saturation(x, 1.4, 1.4)),
    ('hue', lambda x: mx.nd.image.random_hue(x, 0.3, 0.3)),
    ('adjust_lighting', lambda x: mx.nd.image.adjust_lighting(x, alpha=(0.05, -0.1, 0.2)))])
def test_color_ops_match_mxnet191(key, call, dtype):
    x, ref = fixture('%s/%s' % (key, dtype))
    y = call(nd(x)).asnumpy()
    if dtype == 'uint8':
        np.testing.assert_array_equal(y, ref)
    else:
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-4)


def test_hue_by_a_full_turn_keeps_the_image():
    x = rand_image((3, 4, 3), 'float32')
    y = mx.nd.image.random_hue(mx.nd.array(x), 1.0, 1.0)
    np.testing.assert_allclose(y.asnumpy(), x, rtol=1e-4, atol=1e-3)


def test_adjust_lighting_adds_pca_offsets():
    eig = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                    [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                    [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]])
    alpha = np.array([0.05, -0.1, 0.2])
    x = rand_image((3, 4, 3), 'float32')
    y = mx.nd.image.adjust_lighting(mx.nd.array(x), alpha=tuple(alpha))
    np.testing.assert_allclose(y.asnumpy(), x + eig.dot(alpha), rtol=1e-5)


def test_single_channel_images_pass_saturation_hue_lighting_unchanged():
    x = rand_image((3, 4, 1), 'float32')
    for y in (mx.nd.image.random_saturation(mx.nd.array(x), 0.3, 0.3),
              mx.nd.image.random_hue(mx.nd.array(x), 0.3, 0.3),
              mx.nd.image.adjust_lighting(mx.nd.array(x), alpha=(1, 1, 1))):
        np.testing.assert_array_equal(y.asnumpy(), x)


def test_random_color_factors_stay_in_range_and_follow_the_seed():
    x = np.full((2, 2, 3), 100, 'float32')
    mx.random.seed(3)
    vals = [mx.nd.image.random_brightness(mx.nd.array(x), 0.5, 1.5).asnumpy()[0, 0, 0]
            for _ in range(30)]
    assert min(vals) >= 50 and max(vals) <= 150 and len(set(vals)) > 20
    mx.random.seed(3)
    again = [mx.nd.image.random_brightness(mx.nd.array(x), 0.5, 1.5).asnumpy()[0, 0, 0]
             for _ in range(30)]
    assert vals == again


def test_color_jitter_with_zero_ranges_and_lighting_with_zero_std_copy_the_input():
    x = rand_image((3, 4, 3), 'float32')
    np.testing.assert_array_equal(
        mx.nd.image.random_color_jitter(mx.nd.array(x), 0, 0, 0, 0).asnumpy(), x)
    np.testing.assert_array_equal(
        mx.nd.image.random_lighting(mx.nd.array(x), alpha_std=0).asnumpy(), x)


def test_color_jitter_brightness_only_stays_in_range():
    x = np.full((2, 2, 3), 100, 'float32')
    for _ in range(10):
        v = mx.nd.image.random_color_jitter(mx.nd.array(x), 0.2, 0, 0, 0).asnumpy()
        assert 80 <= v.min() and v.max() <= 120 and np.all(v == v[0, 0, 0])


def test_random_lighting_varies_per_call():
    x = rand_image((3, 4, 3), 'float32')
    a = mx.nd.image.random_lighting(mx.nd.array(x), alpha_std=0.5).asnumpy()
    b = mx.nd.image.random_lighting(mx.nd.array(x), alpha_std=0.5).asnumpy()
    assert not np.array_equal(a, b)


def test_color_bad_arguments():
    img = mx.nd.ones((3, 3, 3))
    with pytest.raises(MXNetError, match='min_factor'):
        mx.nd.image.random_brightness(img, -1.0, 1.0).wait_to_read()
    with pytest.raises(MXNetError, match='alpha must have 3 elements'):
        mx.nd.image.adjust_lighting(img, alpha=(1, 2)).wait_to_read()
    with pytest.raises(MXNetError, match='1 or 3 elements'):
        mx.nd.image.random_contrast(mx.nd.ones((3, 3, 4)), 1, 1).wait_to_read()


def test_augmenter_gradient_passes_head_gradient_through():
    x = mx.nd.array(rand_image((2, 2, 3), 'float32'))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.image.random_brightness(x, 2, 2)
    y.backward(mx.nd.ones_like(y) * 3)
    np.testing.assert_array_equal(x.grad.asnumpy(), 3)


@pytest.mark.parametrize('interp', range(5))
def test_cvimresize_is_image_resize_with_w_and_h(interp):
    x = rand_image((7, 9, 3), 'uint8')
    a = mx.nd._internal._cvimresize(nd(x), 5, 11, interp=interp)
    b = mx.nd.image.resize(nd(x), size=(5, 11), interp=interp)
    assert a.shape == (11, 5, 3)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_cvimresize_bad_arguments():
    with pytest.raises(MXNetError, match='w'):
        mx.nd._internal._cvimresize(mx.nd.ones((4, 4, 3)), 0, 3).wait_to_read()
    with pytest.raises(MXNetError, match='height, width, channels'):
        mx.nd._internal._cvimresize(mx.nd.ones((2, 4, 4, 3)), 3, 3).wait_to_read()
