"""gluon Parameter, ParameterDict, Block and HybridBlock: naming, initialization, deferred
shapes, hooks, parameter files."""
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.base import MXNetError


class Lin(gluon.HybridBlock):
    """y = x W^T with W (units, in_units); in_units may be left to the first forward."""

    def __init__(self, units, in_units=0, **kwargs):
        super(Lin, self).__init__(**kwargs)
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(units, in_units),
                                          allow_deferred_init=True)

    def infer_shape(self, x):
        self.weight.shape = (self.weight.shape[0], x.shape[1])

    def hybrid_forward(self, F, x, weight):
        return F.dot(x, weight, transpose_b=True)


class Net(gluon.Block):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.a = Lin(4)
            self.b = Lin(2, prefix='bb_')

    def forward(self, x):
        return self.b(mx.nd.relu(self.a(x)))


def test_prefixes_follow_mxnet_naming():
    with mx.name.NameManager():
        net = Net()
        other = Net()
    assert net.prefix == 'net0_' and other.prefix == 'net1_' and net.name == 'net0'
    assert list(net.collect_params().keys()) == ['net0_lin0_weight', 'net0_bb_weight']
    assert list(net.collect_params('.*bb.*').keys()) == ['net0_bb_weight']
    assert Lin(3, prefix='').prefix == ''


def test_repr_strings_match_mxnet():
    param = gluon.Parameter('w', shape=(2, 3))
    assert repr(param) == "Parameter w (shape=(2, 3), dtype=<class 'numpy.float32'>)"
    params = gluon.ParameterDict('x_')
    params.get('a', shape=(2, 3))
    assert repr(params) == \
        "x_ (\n  Parameter x_a (shape=(2, 3), dtype=<class 'numpy.float32'>)\n)"
    assert repr(gluon.Constant('c', [1, 2])) == \
        "Constant c (shape=(2,), dtype=<class 'numpy.float32'>)"
    assert repr(Net()).startswith('Net(\n  (a): Lin(\n')


def test_parameter_initialize_data_grad_and_contexts():
    param = gluon.Parameter('w', shape=(2, 3), init=mx.init.One())
    with pytest.raises(RuntimeError, match='has not been initialized'):
        param.data()
    param.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert param.list_ctx() == [mx.cpu(0), mx.cpu(1)]
    np.testing.assert_array_equal(param.data(mx.cpu(1)).asnumpy(), np.ones((2, 3)))
    assert param.grad(mx.cpu(0)).shape == (2, 3)
    with pytest.raises(RuntimeError, match='not initialized on context cpu\\(2\\)'):
        param.data(mx.cpu(2))
    with pytest.warns(UserWarning, match='already initialized'):
        param.initialize()
    param.set_data(mx.nd.full((2, 3), 5))
    assert all((d.asnumpy() == 5).all() for d in param.list_data())
    param.grad_req = 'null'
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        param.grad()
    param.reset_ctx(mx.cpu(3))
    assert param.list_ctx() == [mx.cpu(3)] and param.data().asnumpy()[0, 0] == 5


def test_parameter_rejects_bad_configuration_with_mxnet_errors():
    with pytest.raises(MXNetError, match="grad_req must be one of"):
        gluon.Parameter('w', grad_req='sometimes')
    with pytest.raises(MXNetError, match="invalid shape"):
        gluon.Parameter('w', shape=(0, 3)).initialize()
    params = gluon.ParameterDict('x_')
    params.get('a', shape=(2, 3))
    with pytest.raises(AssertionError, match="desired '\\(2, 4\\)' vs stored '\\(2, 3\\)'"):
        params.get('a', shape=(2, 4))
    assert params.get('a', shape=(0, 3)).shape == (2, 3)


def test_deferred_initialization_happens_at_the_first_forward():
    # seeded: with x all ones, an unlucky init leaves every relu unit off (1 in 16) and the
    # first layer's gradient zero
    mx.random.seed(3)
    net = Net()
    net.initialize(mx.init.Xavier())
    with pytest.raises(gluon.DeferredInitializationError):
        net.a.weight.data()
    x = mx.nd.ones((3, 5))
    with autograd.record():
        y = net(x)
    y.backward()
    assert y.shape == (3, 2)
    assert net.a.weight.shape == (4, 5) and net.b.weight.shape == (2, 4)
    assert net.a.weight.grad().abs().sum().asscalar() > 0


def test_deferred_shape_comes_from_the_traced_graph():
    class Opaque(gluon.HybridBlock):
        def __init__(self):
            super(Opaque, self).__init__()
            self.w = self.params.get('w', shape=(0,), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return x * w
    block = Opaque()
    block.initialize()
    assert block(mx.nd.ones((2,))).shape == (2,)
    assert block.w.shape == (2,)


def test_deferred_shape_that_cannot_be_inferred_raises_clearly():
    class Opaque(gluon.HybridBlock):
        def __init__(self):
            super(Opaque, self).__init__()
            self.w = self.params.get('w', shape=(0,), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.broadcast_add(x, F.sum(w))
    block = Opaque()
    block.initialize()
    with pytest.raises(ValueError, match="Deferred initialization failed because shape"):
        block(mx.nd.ones((2,)))


def test_save_and_load_parameters_round_trip(tmp_path):
    net = Net()
    net.initialize(mx.init.Normal())
    x = mx.nd.array(np.random.rand(3, 5))
    y = net(x)
    path = str(tmp_path / 'net.params')
    net.save_parameters(path)
    assert sorted(mx.nd.load(path).keys()) == ['a.weight', 'b.weight']
    fresh = Net()
    fresh.load_parameters(path)
    np.testing.assert_allclose(fresh(x).asnumpy(), y.asnumpy(), rtol=1e-6)


def test_load_parameters_missing_and_extra(tmp_path):
    path = str(tmp_path / 'part.params')
    mx.nd.save(path, {'a.weight': mx.nd.ones((4, 5))})
    with pytest.raises(MXNetError, match="Parameter 'b.weight' is missing in file"):
        Net().load_parameters(path)
    net = Net()
    net.load_parameters(path, allow_missing=True)
    assert net.a.weight.data().shape == (4, 5)
    mx.nd.save(path, {'a.weight': mx.nd.ones((4, 5)), 'b.weight': mx.nd.ones((2, 4)),
                      'c.weight': mx.nd.ones(1)})
    with pytest.raises(MXNetError, match="'c.weight' .* is not present"):
        Net().load_parameters(path)
    Net().load_parameters(path, ignore_extra=True)


def test_load_parameters_checks_shape_and_dtype(tmp_path):
    path = str(tmp_path / 'p.params')
    mx.nd.save(path, {'a.weight': mx.nd.ones((4, 6)), 'b.weight': mx.nd.ones((2, 4))})
    net = Net()
    net.a.weight.shape = (4, 5)
    with pytest.raises(MXNetError, match='shape incompatible expected \\(4, 5\\) vs saved'):
        net.load_parameters(path)
    mx.nd.save(path, {'a.weight': mx.nd.ones((4, 5), dtype='float64'),
                      'b.weight': mx.nd.ones((2, 4))})
    with pytest.raises(MXNetError, match='dtype incompatible'):
        Net().load_parameters(path)
    cast = Net()
    cast.load_parameters(path, cast_dtype=True)
    assert cast.a.weight.data().dtype == np.float32


def test_legacy_prefixed_parameter_files_load(tmp_path):
    net = Net()
    net.initialize()
    net(mx.nd.ones((1, 5)))
    path = str(tmp_path / 'legacy.params')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        net.save_params(path)
    assert sorted(mx.nd.load(path).keys()) == ['bb_weight', 'lin0_weight']
    fresh = Net(prefix=net.prefix)
    fresh.load_parameters(path)
    np.testing.assert_array_equal(fresh.a.weight.data().asnumpy(), net.a.weight.data().asnumpy())


def test_hooks_apply_cast_and_hybridize():
    net = Net()
    net.initialize()
    seen = []
    handle = net.register_forward_pre_hook(lambda block, args: seen.append('pre'))
    net.register_forward_hook(lambda block, args, out: seen.append(out.shape))
    net(mx.nd.ones((2, 5)))
    handle.detach()
    net(mx.nd.ones((2, 5)))
    assert seen == ['pre', (2, 2), (2, 2)]
    names = []
    net.apply(lambda block: names.append(type(block).__name__))
    assert names == ['Lin', 'Lin', 'Net']
    net.cast('float64')
    assert net.a.weight.data().dtype == np.float64
    net.hybridize()
    assert net.b._active
    assert net(mx.nd.ones((2, 5), dtype='float64')).dtype == np.float64


def test_hybrid_block_children_must_be_hybrid():
    class Holder(gluon.HybridBlock):
        pass
    with pytest.raises(ValueError, match='Children of HybridBlock must also be HybridBlock'):
        Holder().child = Net()


def test_zero_grad_and_setattr():
    net = Net()
    net.initialize()
    with autograd.record():
        y = net(mx.nd.ones((2, 5)))
    y.backward()
    params = net.collect_params()
    params.zero_grad()
    assert all(p.grad().abs().sum().asscalar() == 0 for p in params.values())
    params.setattr('lr_mult', 0.5)
    assert all(p.lr_mult == 0.5 for p in params.values())


def test_block_save_and_load_restore_names_and_values(tmp_path):
    class Chain(gluon.Block):
        def __init__(self, **kwargs):
            super(Chain, self).__init__(**kwargs)

        def add(self, block):
            self._children[block.name + str(len(self._children))] = block

        def forward(self, x):
            for block in self._children.values():
                x = block(x)
            return x

    def build():
        inner = Chain()
        inner.add(Lin(4))
        outer = Chain()
        outer.add(inner)
        outer.add(Lin(2))
        return outer
    net = build()
    net.initialize(mx.init.Normal())
    x = mx.nd.array(np.random.rand(3, 5))
    y = net(x)
    prefix = str(tmp_path / 'model')
    net.save(prefix)
    import json
    with open(prefix + '-model.json') as f:
        tree = json.load(f)
    (root,) = tree.values()
    assert root['orig_name'] == net.name and len(root['children']) == 2
    other = build()  # created later, so its blocks have other names
    other.load(prefix)
    assert other.name == net.name
    np.testing.assert_allclose(other(x).asnumpy(), y.asnumpy(), rtol=1e-6)
