"""Every gluon.model_zoo.vision network gives the same outputs hybridized and imperatively
(and, for a few, the same parameter gradients), and round-trips through export/imports."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon.model_zoo import vision


def _input_size(name):
    """The smallest input each head accepts: global pooling takes 32; fixed pooling
    windows need the full size."""
    if name.startswith('inception'):
        return 299
    if name.startswith('densenet') or name.startswith('squeezenet'):
        return 224
    if name == 'alexnet':
        return 64
    return 32


NAMES = sorted(vision._models.keys())


@pytest.mark.parametrize('name', NAMES)
def test_hybridized_forward_equals_imperative(name):
    mx.random.seed(1)
    net = vision.get_model(name, classes=10)
    net.initialize(mx.init.Xavier())
    size = _input_size(name)
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, size=(1, 3, size, size))
                    .astype(np.float32))
    expected = net(x).asnumpy()
    net.hybridize(static_alloc=True, static_shape=True)
    got = net(x).asnumpy()
    assert got.shape == (1, 10)
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize('name', ['resnet18_v1', 'resnet18_v2', 'mobilenetv2_0.25',
                                  'squeezenet1.1'])
def test_hybridized_gradients_equal_imperative(name):
    size = _input_size(name)
    x = mx.nd.array(np.random.RandomState(2).uniform(-1, 1, size=(2, 3, size, size))
                    .astype(np.float32))
    results = []
    for hybrid in (False, True):
        mx.random.seed(4)
        net = vision.get_model(name, classes=5)
        net.initialize(mx.init.Xavier())
        net(x)
        if hybrid:
            net.hybridize()
        with autograd.record():
            out = net(x)
            loss = (out * out).sum()
        loss.backward()
        grads = {k[len(net.prefix):]: p.grad().asnumpy()
                 for k, p in net.collect_params().items() if p.grad_req != 'null'}
        results.append((out.asnumpy(), grads))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-4, atol=1e-5)
    for key, grad in results[0][1].items():
        np.testing.assert_allclose(results[1][1][key], grad, rtol=1e-3, atol=1e-4,
                                   err_msg=key)


@pytest.mark.parametrize('name', ['resnet18_v1', 'mobilenet0.25', 'vgg11_bn'])
def test_hybridize_before_first_forward_infers_deferred_shapes(name):
    net = vision.get_model(name, classes=4)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((1, 3, 32, 32))
    out = net(x).asnumpy()
    net.hybridize(False)
    np.testing.assert_allclose(net(x).asnumpy(), out, rtol=1e-4, atol=1e-5)


def test_resnet_export_imports_round_trip(tmp_path):
    net = vision.resnet18_v1(classes=10)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(3).uniform(size=(2, 3, 32, 32)).astype(np.float32))
    with autograd.record():
        net(x)
    expected = net(x).asnumpy()
    path = str(tmp_path / 'resnet18')
    net.export(path, epoch=1)
    loaded = gluon.SymbolBlock.imports(path + '-symbol.json', 'data', path + '-0001.params')
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-4, atol=1e-5)
