"""Crop: to h_w at an offset or centred, or to the size of a second input; gradients pad
back with zeros."""
import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError


def test_crop_to_h_w_at_offset_or_centre_and_like_a_second_input():
    x = np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6)
    a = mx.nd.array(x)
    np.testing.assert_array_equal(mx.nd.Crop(a, h_w=(2, 3), offset=(1, 2)).asnumpy(),
                                  x[:, :, 1:3, 2:5])
    np.testing.assert_array_equal(mx.nd.Crop(a, h_w=(2, 3), center_crop=True).asnumpy(),
                                  x[:, :, 1:3, 1:4])
    like = mx.nd.ones((1, 1, 3, 3))
    np.testing.assert_array_equal(mx.nd.Crop(a, like, num_args=2).asnumpy(), x[:, :, :3, :3])
    np.testing.assert_array_equal(mx.nd.Crop(a, like, center_crop=True).asnumpy(),
                                  x[:, :, 1:4, 1:4])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32])
def test_crop_gradient_pads_with_zeros(dtype):
    a = mx.nd.array(np.ones((1, 2, 4, 4)), dtype=dtype)
    like = mx.nd.ones((1, 1, 2, 3), dtype=dtype)
    a.attach_grad()
    like.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Crop(a, like, offset=(1, 1))
    y.backward(mx.nd.full(y.shape, 2, dtype=dtype))
    want = np.zeros((1, 2, 4, 4))
    want[:, :, 1:3, 1:4] = 2
    np.testing.assert_array_equal(a.grad.asnumpy(), want)
    np.testing.assert_array_equal(like.grad.asnumpy(), np.zeros((1, 1, 2, 3)))


def test_bad_arguments():
    a = mx.nd.ones((1, 1, 4, 4))
    with pytest.raises(MXNetError, match=r"Crop.*does not fit"):
        mx.nd.Crop(a, h_w=(3, 3), offset=(2, 0))
    with pytest.raises(MXNetError, match=r"Crop.*h_w"):
        mx.nd.Crop(a)
    with pytest.raises(MXNetError, match=r"Crop.*4 dims"):
        mx.nd.Crop(mx.nd.ones((4, 4)), h_w=(2, 2))
