"""Autograd: recording scopes, backward, grad_req, autograd.grad with higher order, Function."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.test_utils import assert_almost_equal


def test_record_and_pause_scopes_set_state():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
        with autograd.predict_mode():
            assert not autograd.is_training()
    with autograd.train_mode():
        assert autograd.is_training() and not autograd.is_recording()
    assert not autograd.is_recording()
    with autograd.record(train_mode=False):
        assert autograd.is_recording() and not autograd.is_training()


def test_backward_of_polynomial():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = x * x * x + 2 * x
    y.backward()
    assert_almost_equal(x.grad.asnumpy(), 3 * np.array([1, 4, 9.0]) + 2)


def test_backward_with_broadcast_reduces_gradient_to_input_shape():
    a = mx.nd.ones((3, 4))
    b = mx.nd.array([[1.0, 2.0, 3.0, 4.0]])
    a.attach_grad()
    b.attach_grad()
    with autograd.record():
        c = a * b
    c.backward()
    assert_almost_equal(a.grad.asnumpy(), np.tile([1, 2, 3, 4.0], (3, 1)))
    assert_almost_equal(b.grad.asnumpy(), np.full((1, 4), 3.0))


def test_head_gradient_scales_result():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = 3 * x
    y.backward(mx.nd.array([10.0, 100.0]))
    assert_almost_equal(x.grad.asnumpy(), [30.0, 300.0])


def test_grad_req_add_accumulates_and_write_overwrites():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    for _ in range(3):
        with autograd.record():
            y = x * x
        y.backward()
    assert_almost_equal(x.grad.asnumpy(), 3 * 2 * np.array([1.0, 2.0]))
    x.attach_grad(grad_req="write")
    for _ in range(2):
        with autograd.record():
            y = x * x
        y.backward()
    assert_almost_equal(x.grad.asnumpy(), 2 * np.array([1.0, 2.0]))


def test_second_backward_without_retain_graph_raises():
    x = mx.nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(mx.MXNetError, match="retain_graph"):
        y.backward()


def test_backward_of_unrecorded_array_raises():
    with pytest.raises(mx.MXNetError, match="computational graph"):
        mx.nd.ones((2,)).backward()


def test_grad_returns_gradients_without_touching_buffers():
    x = mx.nd.array([0.5, 1.5])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.exp(x) * x
    g, = autograd.grad(y, x)  # a list, also for one NDArray variable (as MXNet 1.9.1)
    expected = np.exp([0.5, 1.5]) * (1 + np.array([0.5, 1.5]))
    assert_almost_equal(g.asnumpy(), expected, rtol=1e-5)
    assert_almost_equal(x.grad.asnumpy(), [0.0, 0.0])


def test_second_order_gradient_with_create_graph():
    x = mx.nd.array([0.3, 0.7, 1.1])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.sin(x) * x
        dy, = autograd.grad(y, x, create_graph=True)
    dy.backward()
    xs = np.array([0.3, 0.7, 1.1])
    # d/dx (cos x * x + sin x) = -sin x * x + 2 cos x
    assert_almost_equal(x.grad.asnumpy(), -np.sin(xs) * xs + 2 * np.cos(xs), rtol=1e-5)


def test_third_order_gradient():
    x = mx.nd.array([2.0])
    x.attach_grad()
    with autograd.record():
        y = x ** 4
        g1 = autograd.grad(y, x, create_graph=True)
        g2, = autograd.grad(g1, x, create_graph=True)
    g2.backward()
    assert_almost_equal(x.grad.asnumpy(), [24 * 2.0])


def test_mark_variables_with_explicit_gradient_buffers():
    x = mx.nd.array([1.0, 2.0])
    gx = mx.nd.zeros((2,))
    autograd.mark_variables([x], [gx])
    with autograd.record():
        y = x * 5
    autograd.backward([y])
    assert_almost_equal(gx.asnumpy(), [5.0, 5.0])
    with pytest.raises(ValueError):
        autograd.mark_variables([x], [gx], grad_reqs="bogus")


def test_detach_stops_gradient():
    x = mx.nd.array([3.0])
    x.attach_grad()
    with autograd.record():
        y = x * x.detach()
    y.backward()
    assert_almost_equal(x.grad.asnumpy(), [3.0])


def test_custom_function_forward_and_backward():
    class Sigmoid(autograd.Function):
        def forward(self, x):
            y = 1 / (1 + mx.nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            y, = self.saved_tensors
            return dy * y * (1 - y)

    x = mx.nd.array([-1.0, 0.0, 2.0])
    x.attach_grad()
    with autograd.record():
        z = Sigmoid()(x) * 2
    z.backward()
    s = 1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0])))
    assert_almost_equal(x.grad.asnumpy(), 2 * s * (1 - s), rtol=1e-5)


def test_custom_function_instance_is_single_use():
    class Identity(autograd.Function):
        def forward(self, x):
            return x * 1

        def backward(self, dy):
            return dy

    f = Identity()
    f(mx.nd.ones((1,)))
    with pytest.raises(RuntimeError):
        f(mx.nd.ones((1,)))


def test_non_differentiable_path_gives_zero_gradient():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = (x > 1.5) * 3 + x * 0
    y.backward()
    assert_almost_equal(x.grad.asnumpy(), [0.0, 0.0])


def test_reshape_under_record_is_a_view_and_records_the_op():
    x = mx.nd.array(np.arange(6, dtype=np.float32))
    x.attach_grad()
    with autograd.record():
        y = x.reshape((2, 3))
        z = (y * y).sum()
    assert y._chunk_id == x._chunk_id  # no copy, also when recorded
    z.backward()
    assert_almost_equal(x.grad.asnumpy(), 2 * np.arange(6, dtype=np.float32))


def test_reshape_under_record_takes_the_same_arguments_as_outside():
    x = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    x.attach_grad()
    outside = x.reshape((-1, 0), reverse=True).shape
    with autograd.record():
        inside = x.reshape((-1, 0), reverse=True)
        s = mx.nd.sum(inside * 3)
    assert inside.shape == outside == (6, 4)
    s.backward()
    assert_almost_equal(x.grad.asnumpy(), np.full((2, 3, 4), 3, np.float32))
    with autograd.record():
        with pytest.raises(ValueError):
            x.reshape((2, 3))


def test_indexing_a_recorded_vector_to_a_scalar_keeps_the_gradient():
    # x[0] of a 1-d array is a reshape to () of a one-element slice; recorded, it used to fail
    # with "Operator Reshape: argument shape is required".
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = x[1] * 5
    y.backward()
    assert_almost_equal(x.grad.asnumpy(), np.array([0, 5, 0], np.float32))


def test_grad_of_one_variable_is_a_list_and_differentiates_again():
    xs = np.array([0.5, 1.0, 1.5], np.float32)
    x = mx.nd.array(xs)
    x.attach_grad()
    with autograd.record():
        y = mx.nd.sin(x)
        grads = autograd.grad(heads=y, variables=x, create_graph=True, retain_graph=True)
        assert isinstance(grads, list) and len(grads) == 1
        g2 = autograd.grad(heads=grads[0], variables=x, create_graph=True, retain_graph=True)[0]
    assert g2.shape == (3,)
    assert_almost_equal(g2.asnumpy(), -np.sin(xs), rtol=1e-5, atol=1e-6)


def test_grad_returns_a_list_even_for_one_variable():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
    g = autograd.grad(y, x)
    assert isinstance(g, list) and len(g) == 1
    assert_almost_equal(g[0].asnumpy(), [2.0, 4.0])


def test_grad_of_unreachable_variable_raises():
    x, z = mx.nd.ones((2,)), mx.nd.ones((2,))
    x.attach_grad()
    z.attach_grad()
    with autograd.record():
        y = x * 2
    with pytest.raises(mx.MXNetError, match="unreachable"):
        autograd.grad(y, [z])


def test_assigning_into_array_in_recorded_graph_raises():
    x = mx.nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = x * 2
        with pytest.raises(mx.MXNetError, match="already in a computational graph"):
            x += 1
        with pytest.raises(mx.MXNetError, match="already in a computational graph"):
            y *= x
    assert np.array_equal(x.asnumpy(), np.ones(2)) and np.array_equal(y.asnumpy(), np.full(2, 2.0))
    y.backward()
    assert np.array_equal(x.grad.asnumpy(), np.full(2, 2.0))
    y += 1  # backward released y's node: y is a constant again
    with autograd.record():
        z = y * x
    z.backward()
    assert np.array_equal(x.grad.asnumpy(), np.full(2, 3.0))


def test_inplace_update_of_own_input_while_recording_raises():
    x, w = mx.nd.ones((2, 3)), mx.nd.ones((3,))
    w.attach_grad()
    with autograd.record():
        with pytest.raises(mx.MXNetError, match="Inplace operations"):
            x += w
        with pytest.raises(mx.MXNetError, match="Inplace operations"):
            x[0] = w * 2
        x[:] = w * 3  # whole-array assignment is recorded as a copy, as in MXNet
        loss = x.sum()
    loss.backward()
    assert np.array_equal(w.grad.asnumpy(), np.full(3, 6.0))


def test_fresh_grad_tracks_backward_writes():
    x, y = mx.nd.ones((2, 2)), mx.nd.ones((2, 2))
    autograd.mark_variables([x, y], [mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2))])
    assert x._fresh_grad is False and y._fresh_grad is False
    with autograd.record():
        out = (x + 2).detach() + y
    out.backward()
    assert y._fresh_grad is True and x._fresh_grad is False
    y._fresh_grad = False
    assert y._fresh_grad is False
    with pytest.raises(mx.MXNetError):
        mx.nd.ones((1,))._fresh_grad = True


def test_relu_gradient_propagates_nan_like_mxnet():
    x = mx.nd.array([-1.0, 0.0, 2.0, np.nan, np.inf])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.relu(x)
    y.backward()
    np.testing.assert_equal(x.grad.asnumpy(), np.array([0, 0, 1, np.nan, 1], dtype=np.float32))


def test_second_order_gradient_of_linear_op_is_zero_not_unreachable():
    x = mx.nd.array([0.5, 1.0])
    x.attach_grad()
    with autograd.record():
        y = mx.nd.radians(x)
        g = autograd.grad(y, [x], create_graph=True, retain_graph=True)[0]
        gg = autograd.grad(g, [x], create_graph=True, retain_graph=True)[0]
    assert_almost_equal(g.asnumpy(), np.full(2, np.pi / 180))
    assert_almost_equal(gg.asnumpy(), np.zeros(2))
