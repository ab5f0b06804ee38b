"""gluon.data.vision.transforms: composition, each transform's output, and MXNet 1.9.1's
outputs for deterministic pipelines (fixtures/image_ops_191.npz)."""
import os
import random

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.gluon import Block, HybridBlock
from mxnet.gluon.data.vision import transforms as T

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), 'fixtures', 'image_ops_191.npz'))


def fixture(key):
    return FIXTURES[key + '/in'], FIXTURES[key + '/out']


def uint8_image(shape, seed=0):
    return np.random.RandomState(seed).randint(0, 256, shape).astype('uint8')


def test_vision_package_exports_transforms():
    from mxnet.gluon.data import vision
    assert vision.transforms is T
    for name in T.__all__:
        assert hasattr(T, name)


def test_compose_groups_consecutive_hybrid_blocks():
    t = T.Compose([T.Resize(20), T.CenterCrop(16), T.ToTensor(), T.Normalize()])
    assert repr(t) == ('Compose(\n  (0): Resize(\n  \n  )\n  (1): CenterCrop(\n  \n  )\n'
                       '  (2): HybridSequential(\n    (0): ToTensor(\n    \n    )\n'
                       '    (1): Normalize(\n    \n    )\n  )\n)')
    children = list(t._children.values())
    assert isinstance(children[0], T.Resize) and isinstance(children[1], T.CenterCrop)
    assert isinstance(children[2], HybridBlock) and len(children[2]._children) == 2


def test_compose_keeps_a_lone_hybrid_block_ungrouped():
    t = T.Compose([T.ToTensor(), T.CenterCrop(4)])
    assert [type(c) for c in t._children.values()] == [T.ToTensor, T.CenterCrop]


def test_pipeline_matches_mxnet191():
    x, ref = fixture('transforms/pipeline')
    t = T.Compose([T.Resize(20, keep_ratio=True), T.CenterCrop((16, 12)), T.ToTensor(),
                   T.Normalize((0.4, 0.5, 0.6), (0.2, 0.25, 0.3))])
    y = t(mx.nd.array(x, dtype='uint8'))
    assert y.shape == (3, 12, 16) and y.dtype == np.float32
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-6, atol=1e-6)


def test_center_crop_upsamples_small_images_like_mxnet191():
    x, ref = fixture('transforms/center_crop_upsample')
    y = T.CenterCrop(50)(mx.nd.array(x, dtype='uint8'))
    np.testing.assert_array_equal(y.asnumpy(), ref)


def test_center_crop_takes_the_middle():
    x = uint8_image((10, 12, 3))
    y = T.CenterCrop((4, 6))(mx.nd.array(x, dtype='uint8'))
    np.testing.assert_array_equal(y.asnumpy(), x[2:8, 4:8])


def test_random_resized_crop_follows_python_random_like_mxnet191():
    x, ref = fixture('transforms/random_resized_crop')
    random.seed(5)
    t = T.RandomResizedCrop((10, 8))
    ys = [t(mx.nd.array(x, dtype='uint8')).asnumpy() for _ in range(3)]
    np.testing.assert_array_equal(np.stack(ys), ref)


def test_crop_resize_on_a_batch_matches_mxnet191():
    x, ref = fixture('transforms/crop_resize')
    y = T.CropResize(2, 3, 10, 8, size=(5, 4), interpolation=2)(mx.nd.array(x, dtype='uint8'))
    np.testing.assert_array_equal(y.asnumpy(), ref)


def test_crop_resize_without_size_only_crops():
    x = uint8_image((6, 7, 3))
    y = T.CropResize(1, 2, 3, 4)(mx.nd.array(x, dtype='uint8'))
    np.testing.assert_array_equal(y.asnumpy(), x[2:6, 1:4])


@pytest.mark.parametrize('kwargs,shape', [(dict(size=5), (5, 5)), (dict(size=(6, 4)), (4, 6)),
                                          (dict(size=4, keep_ratio=True), (4, 6))])
def test_resize_output_shape(kwargs, shape):
    y = T.Resize(**kwargs)(mx.nd.array(uint8_image((8, 12, 3)), dtype='uint8'))
    assert y.shape == shape + (3,)


def test_to_tensor_and_normalize():
    x = uint8_image((4, 5, 3))
    y = T.ToTensor()(mx.nd.array(x, dtype='uint8'))
    np.testing.assert_allclose(y.asnumpy(), x.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    z = T.Normalize(mean=(0.5, 0.4, 0.3), std=0.5)(y)
    expected = (x.transpose(2, 0, 1) / 255.0 - np.array([0.5, 0.4, 0.3])[:, None, None]) / 0.5
    np.testing.assert_allclose(z.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_cast():
    y = T.Cast('float16')(mx.nd.array(uint8_image((2, 2, 3)), dtype='uint8'))
    assert y.dtype == np.float16
    assert T.Cast()(mx.nd.ones((1,), dtype='uint8')).dtype == np.float32


def test_random_flips_keep_or_flip():
    x = uint8_image((4, 6, 3))
    nx = mx.nd.array(x, dtype='uint8')
    outs = [T.RandomFlipLeftRight()(nx).asnumpy() for _ in range(20)]
    assert all(np.array_equal(o, x) or np.array_equal(o, x[:, ::-1]) for o in outs)
    outs = [T.RandomFlipTopBottom()(nx).asnumpy() for _ in range(20)]
    assert all(np.array_equal(o, x) or np.array_equal(o, x[::-1]) for o in outs)


@pytest.mark.parametrize('block', [T.RandomBrightness(0.3), T.RandomContrast(0.3),
                                   T.RandomSaturation(0.3), T.RandomHue(0.3),
                                   T.RandomColorJitter(0.1, 0.1, 0.1, 0.1), T.RandomLighting(0.1)])
def test_color_transforms_keep_shape_and_dtype(block):
    x = mx.nd.array(uint8_image((5, 6, 3)), dtype='uint8')
    y = block(x)
    assert y.shape == (5, 6, 3) and y.dtype == np.uint8


def test_random_enhance_factor_ranges():
    assert T.RandomBrightness(0.3)._args == (0.7, 1.3)
    assert T.RandomContrast(1.5)._args == (0, 2.5)


def test_random_apply_applies_with_probability_p():
    x = mx.nd.ones((2, 2, 3))
    never = T.RandomApply(T.RandomBrightness(0.5), p=0)
    np.testing.assert_array_equal(never(x).asnumpy(), 1)
    always = T.RandomApply(T.Cast('float64'), p=1)
    assert always(x).dtype == np.float64
    assert isinstance(always, Block)


def test_random_rotation_checks_arguments():
    with pytest.raises(ValueError, match='ordered'):
        T.RandomRotation((10, -10))
    with pytest.raises(ValueError, match='between 0 and 1'):
        T.RandomRotation((-10, 10), rotate_with_proba=2)
    x = mx.nd.ones((2, 2, 3))
    assert T.RandomRotation((-10, 10), rotate_with_proba=0)(x) is x


def test_bad_inputs_raise_mxnet_errors():
    with pytest.raises(MXNetError, match='_image_crop'):
        T.CropResize(0, 0, 10, 10)(mx.nd.ones((4, 4, 3))).wait_to_read()
    with pytest.raises(MXNetError, match='_image_normalize'):
        T.Normalize(mean=(1, 2))(mx.nd.ones((3, 2, 2))).wait_to_read()


needs_sampler = pytest.mark.skipif(not hasattr(mx.nd, 'BilinearSampler'),
                                   reason='rotation samples with the BilinearSampler op')


@needs_sampler
def test_rotate_half_turn_and_tiny_random_rotation():
    x = np.random.RandomState(0).rand(3, 5, 6).astype('float32')
    y = T.Rotate(180)(mx.nd.array(x))
    np.testing.assert_allclose(y.asnumpy(), x[:, ::-1, ::-1], atol=1e-4)
    z = T.RandomRotation((-1e-4, 1e-4))(mx.nd.array(x))
    np.testing.assert_allclose(z.asnumpy(), x, atol=1e-3)


def test_rotate_needs_float32():
    with pytest.raises(TypeError, match='float32'):
        T.Rotate(10)(mx.nd.ones((3, 4, 4), dtype='uint8'))
