"""mx.contrib.amp: dynamic loss scaling through a Gluon Trainer."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.contrib.amp import amp


def _net_and_trainer(use_amp):
    net = gluon.nn.Dense(2, in_units=4)
    net.initialize(mx.init.Constant(0.5))
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    if use_amp:
        amp.init()
        amp.init_trainer(trainer)
    return net, trainer


def _step(net, trainer, x, use_amp):
    with autograd.record():
        loss = (net(x) ** 2).sum()
        if use_amp:
            with amp.scale_loss(loss, trainer) as scaled:
                autograd.backward(scaled)
        else:
            loss.backward()
    trainer.step(x.shape[0])


def test_scaled_step_equals_plain_step():
    x = mx.nd.array(np.arange(12).reshape(3, 4) / 10.)
    plain, plain_tr = _net_and_trainer(False)
    scaled, scaled_tr = _net_and_trainer(True)
    _step(plain, plain_tr, x, False)
    _step(scaled, scaled_tr, x, True)
    assert scaled_tr._amp_loss_scaler.loss_scale == 2. ** 16
    # the gradient was computed 2**16 times larger and divided back in the update
    assert np.allclose(scaled.weight.grad().asnumpy(), plain.weight.grad().asnumpy() * 2 ** 16)
    assert np.allclose(scaled.weight.data().asnumpy(), plain.weight.data().asnumpy(),
                       rtol=1e-6)


def test_overflow_skips_the_step_and_halves_the_scale():
    net, trainer = _net_and_trainer(True)
    before = net.weight.data().asnumpy().copy()
    _step(net, trainer, mx.nd.full((2, 4), 1e30), True)   # squares overflow float32
    assert np.array_equal(net.weight.data().asnumpy(), before)
    _step(net, trainer, mx.nd.ones((2, 4)), True)
    assert trainer._amp_loss_scaler.loss_scale == 2. ** 15
    assert not np.array_equal(net.weight.data().asnumpy(), before)


def test_unscale_and_errors():
    net, trainer = _net_and_trainer(True)
    x = mx.nd.ones((1, 4))
    with autograd.record():
        with amp.scale_loss(net(x).sum(), trainer) as scaled:
            autograd.backward(scaled)
    amp.unscale(trainer)
    assert np.allclose(net.weight.grad().asnumpy(), 1.0)
    assert trainer._scale == 1.
    with pytest.raises(TypeError, match='Gluon Trainer'):
        amp.init_trainer(mx.optimizer.SGD())
    with pytest.raises(ValueError, match='target_dtype'):
        amp.init('int8')
    with pytest.raises(NotImplementedError, match='convert_symbol'):
        amp.convert_symbol(None)
