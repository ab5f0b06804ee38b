"""mx.contrib: the contrib operator namespace and MXNet's first autograd interface."""
import numpy as np

import mxnet as mx
from mxnet.contrib import autograd as old_autograd


def test_contrib_ndarray_is_the_contrib_operator_namespace():
    assert mx.contrib.nd.ctc_loss is mx.nd.contrib.ctc_loss
    assert 'BilinearResize2D' in mx.contrib.ndarray.__all__


def test_grad_and_loss_returns_gradients_and_output():
    x = mx.nd.array([1., 2., 3.])
    grads, out = old_autograd.grad_and_loss(lambda a: (a * a).sum())(x)
    np.testing.assert_allclose(grads[0].asnumpy(), [2., 4., 6.])
    assert out.asscalar() == 14
    only = old_autograd.grad(lambda a, b: (a * b).sum(), argnum=1)(x, x * 2)
    np.testing.assert_allclose(only[0].asnumpy(), [1., 2., 3.])


def test_sections_switch_recording_and_training_together():
    with old_autograd.train_section():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with old_autograd.test_section():
            assert not mx.autograd.is_recording() and not mx.autograd.is_training()
    assert not mx.autograd.is_recording()
