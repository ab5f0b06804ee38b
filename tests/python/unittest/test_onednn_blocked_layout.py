"""Hybridized graphs keep values passed only between oneDNN operators in oneDNN's blocked
layout (MXNET_ONEDNN_BLOCKED_LAYOUT): results equal the imperative run and the run with the
layout off, graph outputs are NCHW, mixed channel counts and the plain fallback of a marked
operator agree (that the reorders between the operators are gone: test_op_nn_onednn.py)."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon

nn = gluon.nn


@pytest.fixture(autouse=True)
def restore_env():
    yield
    mx.util.setenv("MXNET_ONEDNN_BLOCKED_LAYOUT", "1")
    mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")


def _randomize_bn(net):
    for p in net.collect_params().values():
        if p.name.endswith("running_var"):
            p.set_data(mx.nd.random.uniform(0.5, 1.5, shape=p.shape))
        elif p.name.endswith(("running_mean", "beta", "gamma")):
            p.set_data(mx.nd.random.uniform(-0.5, 0.5, shape=p.shape))


class Residual(gluon.HybridBlock):
    """conv-bn-relu, conv-bn, + shortcut (a 1x1 strided conv when the shape changes), relu."""

    def __init__(self, channels, stride, cin, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(channels, 3, stride, 1, use_bias=False, in_channels=cin),
                          nn.BatchNorm(), nn.Activation("relu"),
                          nn.Conv2D(channels, 3, 1, 1, use_bias=False), nn.BatchNorm())
            self.down = None
            if stride != 1 or cin != channels:
                self.down = nn.HybridSequential()
                self.down.add(nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=cin),
                              nn.BatchNorm())

    def hybrid_forward(self, F, x):
        r = x if self.down is None else self.down(x)
        return F.Activation(self.body(x) + r, act_type="relu")


def _small_resnet(first=16, second=32):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(first, 3, 1, 1, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
            nn.MaxPool2D(3, 2, 1), Residual(first, 1, first), Residual(second, 2, first),
            nn.GlobalAvgPool2D(), nn.Dense(5))
    return net


def _hybrid_outputs(net, x, **kwargs):
    net.hybridize(static_alloc=True, static_shape=True, **kwargs)
    out = [net(x).asnumpy(), net(x).asnumpy()]  # the second run reuses the cached graph
    np.testing.assert_array_equal(out[0], out[1])
    return out[1]


@pytest.mark.parametrize("backend", [None, "ONEDNN"])
@pytest.mark.parametrize("channels", [(16, 32), (12, 32), (16, 24)])
def test_hybridized_resnet_matches_imperative_and_layout_off(backend, channels):
    mx.random.seed(1)
    net = _small_resnet(*channels)
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(-1, 1, shape=(4, 3, 16, 16))
    net(x)
    _randomize_bn(net)
    want = net(x).asnumpy()
    kwargs = {"backend": backend} if backend else {}
    got = _hybrid_outputs(net, x, **kwargs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    mx.util.setenv("MXNET_ONEDNN_BLOCKED_LAYOUT", "0")
    plain = _hybrid_outputs(net, x, **kwargs)
    # the same primitives on the same numbers: the layout changes no result
    np.testing.assert_allclose(got, plain, rtol=1e-6, atol=1e-7)


def test_intermediate_values_that_are_graph_outputs_are_nchw():
    data = mx.sym.var("data")
    c1 = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=16, name="c1")
    c2 = mx.sym.Convolution(c1, kernel=(3, 3), pad=(1, 1), num_filter=16, name="c2")
    p = mx.sym.Pooling(c2, kernel=(2, 2), stride=(2, 2), pool_type="max", name="p")
    c3 = mx.sym.Convolution(p, kernel=(1, 1), num_filter=16, name="c3")
    sym = mx.sym.Group([c3, c1, p])
    rng = np.random.RandomState(0)
    args = {"data": rng.uniform(-1, 1, (2, 16, 8, 8))}
    for name, shape in zip(sym.list_arguments(), sym.infer_shape(data=(2, 16, 8, 8))[0]):
        args.setdefault(name, rng.uniform(-1, 1, shape))
    arrays = [mx.nd.array(args[n]) for n in sym.list_inputs()]
    op = mx.nd.CachedOp(sym, [("static_alloc", True), ("static_shape", True)])
    got = [o.asnumpy() for o in op(*arrays)]
    ex = sym.bind(mx.cpu(), {n: mx.nd.array(v) for n, v in args.items()})
    want = [o.asnumpy() for o in ex.forward()]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_marked_pooling_without_a_onednn_kernel_runs_on_plain_copies():
    # avg pooling counting the padding, 'full' convention past the input: oneDNN does not
    # take it, so the marked node converts its blocked input and output around the plain kernel
    data = mx.sym.var("data")
    c1 = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=16, name="c1")
    p = mx.sym.Pooling(c1, kernel=(3, 3), stride=(2, 2), pool_type="avg",
                       pooling_convention="full", name="p")
    sym = mx.sym.Convolution(p, kernel=(1, 1), num_filter=16, name="c2")
    rng = np.random.RandomState(1)
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(2, 16, 8, 8))[0]))
    arrays = [mx.nd.array(rng.uniform(-1, 1, shapes[n])) for n in sym.list_inputs()]
    op = mx.nd.CachedOp(sym, [("static_alloc", True)])
    got = op(*arrays).asnumpy()
    want = sym.bind(mx.cpu(), dict(zip(sym.list_inputs(), arrays))).forward()[0].asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_training_forward_and_backward_agree_with_layout_off():
    mx.random.seed(2)
    net = _small_resnet()
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(-1, 1, shape=(4, 3, 16, 16))
    results = []
    for flag in ("1", "0"):
        mx.util.setenv("MXNET_ONEDNN_BLOCKED_LAYOUT", flag)  # read when the graph is made
        net.hybridize(static_alloc=True, static_shape=True)
        with mx.autograd.record():
            y = net(x)
        y.backward()
        grads = [p.grad().asnumpy() for p in net.collect_params().values()
                 if p.grad_req != "null"]
        results.append([y.asnumpy()] + grads)
    # the same kernels on the same numbers (BatchNorm's sums walk the blocked layout in the
    # order they take on NCHW): the layout changes no result
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("backend", [None, "ONEDNN"])
def test_marked_graph_run_with_onednn_off_takes_plain_copies(backend):
    # marks are chosen when the graph is made; switched off afterwards, every marked kernel
    # (convolution, fused convolution, pooling and their gradients) runs plain on plain copies
    mx.random.seed(3)
    net = _small_resnet()
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(-1, 1, shape=(4, 3, 16, 16))
    net(x)
    _randomize_bn(net)
    results = []
    for hybrid in (False, True):
        if hybrid:
            kwargs = {"backend": backend} if backend else {}
            net.hybridize(static_alloc=True, static_shape=True, **kwargs)
            net(x).wait_to_read()  # the graph is made with oneDNN on
        mx.util.setenv("MXNET_ONEDNN_ENABLED", "0")
        try:
            if backend:  # inference only: the fused operators have no gradient
                results.append([net(x).asnumpy()])
            else:
                with mx.autograd.record():
                    y = net(x)
                y.backward()
                results.append([y.asnumpy()] + [p.grad().asnumpy() for p in
                                                 net.collect_params().values()
                                                 if p.grad_req != "null"])
            mx.nd.waitall()
        finally:
            mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
