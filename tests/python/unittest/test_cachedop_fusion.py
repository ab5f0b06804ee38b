"""What a hybridized graph (CachedOp) runs differently from the ops one by one:
- an output its op declares equal to its input (FInplaceIdentity: elemwise_add's gradient
  _backward_add, identity) is that input's array, not a copy (MXNET_EXEC_ENABLE_INPLACE);
- BatchNorm followed by ReLU runs as one _contrib_BatchNormWithReLU node (MXNET_FUSE_BN_RELU),
  whose kernels fold the ReLU into the normalization's passes, forward and backward.
Results agree with the imperative run (not bit for bit: the engine may run an operator on
another thread count, which rounds differently)."""
import json

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon

nn = gluon.nn


@pytest.fixture(autouse=True)
def restore_env():
    yield
    mx.util.setenv("MXNET_FUSE_BN_RELU", "1")
    mx.util.setenv("MXNET_EXEC_ENABLE_INPLACE", "1")


def _operators_run(fn):
    """The operator names the profiler saw while fn() ran."""
    mx.nd.waitall()
    mx.profiler.set_config(profile_all=True, aggregate_stats=True)
    mx.profiler.set_state("run")
    mx.profiler.dumps(reset=True)
    try:
        fn()
        mx.nd.waitall()
    finally:
        mx.profiler.set_state("stop")
    stats = json.loads(mx.profiler.dumps(format="json", reset=True))
    return set(stats["Time"].get("operator", {}))


class Residual(gluon.HybridBlock):
    def __init__(self, channels, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.c1 = nn.Conv2D(channels, 3, padding=1, in_channels=channels)
            self.bn1 = nn.BatchNorm(in_channels=channels)
            self.c2 = nn.Conv2D(channels, 3, padding=1, in_channels=channels)
            self.bn2 = nn.BatchNorm(in_channels=channels)

    def hybrid_forward(self, F, x):
        y = F.Activation(self.bn1(self.c1(x)), act_type="relu")
        return F.relu(self.bn2(self.c2(y)) + x)


def _net(channels, blocks=2):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(channels, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"))
        for _ in range(blocks):
            net.add(Residual(channels))
        net.add(nn.GlobalAvgPool2D(), nn.Dense(3))
    return net


def _train_steps(channels, hybridize, dtype="float32", steps=2, seed=0):
    """Outputs, input and parameter gradients and moving statistics after a few steps."""
    mx.random.seed(seed)
    net = _net(channels)
    net.initialize(mx.init.Xavier())
    net.cast(dtype)
    rng = np.random.RandomState(seed)
    x = mx.nd.array(rng.uniform(-1, 1, (4, 3, 8, 8)), dtype=dtype)
    net(x)  # shapes the deferred parameters
    for p in net.collect_params().values():  # BatchNorms with gamma, beta away from 1, 0
        if p.name.endswith("gamma"):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape), dtype=dtype))
        elif p.name.endswith("beta"):
            p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape), dtype=dtype))
    if hybridize:
        net.hybridize(static_alloc=True, static_shape=True)
    x.attach_grad()
    for _ in range(steps):
        with autograd.record():
            y = net(x)
            loss = (y * y).sum()
        loss.backward()
    params = net.collect_params().values()
    out = [y.asnumpy(), x.grad.asnumpy()]
    out += [p.grad().asnumpy() for p in params if p.grad_req != "null"]
    out += [p.data().asnumpy() for p in params if p.grad_req == "null"]  # moving statistics
    with autograd.predict_mode():
        out.append(net(x).asnumpy())
    return out


def _assert_all_close(got, want, rtol, atol):
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="result %d" % i)


@pytest.mark.parametrize("inplace", ["1", "0"])
@pytest.mark.parametrize("channels", [16, 6])
def test_shared_identity_gradients_equal_imperative(inplace, channels):
    mx.util.setenv("MXNET_FUSE_BN_RELU", "0")
    mx.util.setenv("MXNET_EXEC_ENABLE_INPLACE", inplace)
    want = _train_steps(channels, hybridize=False)
    got = _train_steps(channels, hybridize=True)
    # not bit for bit: the engine may run a convolution on another thread count
    _assert_all_close(got, want, rtol=1e-5, atol=1e-6)


def test_backward_add_gives_the_head_gradient_to_both_inputs():
    a = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    b = mx.nd.array([[5.0, 6.0], [7.0, 8.0]])
    a.attach_grad()
    b.attach_grad(grad_req="add")
    b.grad[:] = 1
    og = mx.nd.array([[0.5, -1.0], [2.0, 3.0]])
    with autograd.record():
        y = mx.nd.elemwise_add(a, b)
    y.backward(og)
    np.testing.assert_array_equal(a.grad.asnumpy(), og.asnumpy())
    np.testing.assert_array_equal(b.grad.asnumpy(), og.asnumpy() + 1)
    g = mx.nd.array([1.0, -2.0, 3.0])
    outs = mx.nd._internal._backward_add(g)
    assert len(outs) == 2
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), g.asnumpy())


def test_gradients_of_graph_inputs_are_separate_arrays():
    # a + b inside a graph: both gradients are the head gradient, but the caller gets two
    # arrays, never one shared with the other or with the head gradient
    class Add(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a + b

    net = Add()
    net.hybridize(static_alloc=True, static_shape=True)
    a = mx.nd.ones((2, 3))
    b = mx.nd.ones((2, 3))
    a.attach_grad()
    b.attach_grad()
    og = mx.nd.full((2, 3), 2.0)
    with autograd.record():
        y = net(a, b)
    y.backward(og)
    a.grad[:] = 7
    np.testing.assert_array_equal(b.grad.asnumpy(), np.full((2, 3), 2.0))
    np.testing.assert_array_equal(og.asnumpy(), np.full((2, 3), 2.0))


def test_a_value_an_operator_writes_is_not_shared():
    # BatchNorm with fix_gamma writes ones into its gamma input: an identity feeding it must
    # not hand it the array another node still reads
    x = mx.sym.var("x")
    g = mx.sym.var("g")
    doubled = g * 2
    bn = mx.sym.BatchNorm(x, gamma=mx.sym.identity(doubled), fix_gamma=True, name="bn")
    sym = mx.sym.Group([bn, doubled + 0])
    names = sym.list_inputs()
    values = {"x": np.ones((2, 3, 2, 2)), "g": np.full(3, 5.0), "bn_beta": np.zeros(3),
              "bn_moving_mean": np.zeros(3), "bn_moving_var": np.ones(3)}
    op = mx.nd.CachedOp(sym, [("static_alloc", True)])
    outs = op(*[mx.nd.array(values[n]) for n in names])
    np.testing.assert_array_equal(outs[1].asnumpy(), np.full(3, 10.0))


def test_elemwise_add_gradient_runs_no_copy_when_hybridized():
    mx.util.setenv("MXNET_FUSE_BN_RELU", "0")
    net = _net(16)
    net.initialize()
    net.hybridize(static_alloc=True, static_shape=True)
    x = mx.nd.ones((2, 3, 8, 8))

    def step():
        with autograd.record():
            y = net(x)
        y.backward()

    step()
    assert "_backward_add" not in _operators_run(step)
    mx.util.setenv("MXNET_EXEC_ENABLE_INPLACE", "0")  # read when a graph is made
    net.hybridize(static_alloc=True, static_shape=True)
    step()
    assert "_backward_add" in _operators_run(step)


def test_batchnorm_then_relu_runs_as_one_node_when_hybridized():
    net = _net(16)
    net.initialize()
    x = mx.nd.ones((2, 3, 8, 8))

    def step():
        with autograd.record():
            y = net(x)
        y.backward()

    ops = _operators_run(step)
    assert "_contrib_BatchNormWithReLU" not in ops and "BatchNorm" in ops
    net.hybridize(static_alloc=True, static_shape=True)
    step()
    ops = _operators_run(step)
    # the first BatchNorm and each block's first one are fused; the second one of each block
    # is read by the sum, not by a ReLU
    assert "_contrib_BatchNormWithReLU" in ops
    assert "_backward_contrib_BatchNormWithReLU" in ops
    assert "BatchNorm" in ops
    mx.util.setenv("MXNET_FUSE_BN_RELU", "0")  # read when a graph is made
    net.hybridize(static_alloc=True, static_shape=True)
    step()
    ops = _operators_run(step)
    assert "_contrib_BatchNormWithReLU" not in ops


def test_batchnorm_read_by_more_than_the_relu_is_not_fused():
    data = mx.sym.var("data")
    bn = mx.sym.BatchNorm(data, name="bn")
    relu = mx.sym.Activation(bn, act_type="relu", name="relu")
    arg_shapes, _, aux_shapes = bn.infer_shape(data=(2, 4, 3, 3))
    shapes = dict(zip(bn.list_arguments() + bn.list_auxiliary_states(), arg_shapes + aux_shapes))
    arrays = [mx.nd.array(np.random.RandomState(0).uniform(-1, 1, shapes[n]))
              for n in bn.list_inputs()]
    for sym, fused in [(relu, True), (mx.sym.Group([relu, bn]), False),
                       (relu + bn, False)]:
        op = mx.nd.CachedOp(sym, [("static_alloc", True)])
        ops = _operators_run(lambda: op(*arrays))
        assert ("_contrib_BatchNormWithReLU" in ops) == fused, sym.list_outputs()
        assert ("BatchNorm" in ops) != fused


@pytest.mark.parametrize("channels", [16, 6])  # 16: the blocked layout's kernels; 6: NCHW
@pytest.mark.parametrize("dtype,rtol", [("float32", 1e-5), ("float64", 1e-10)])
def test_fused_training_agrees_with_imperative(channels, dtype, rtol):
    want = _train_steps(channels, hybridize=False, dtype=dtype)
    got = _train_steps(channels, hybridize=True, dtype=dtype)
    _assert_all_close(got, want, rtol=rtol, atol=rtol)
    mx.util.setenv("MXNET_FUSE_BN_RELU", "0")
    unfused = _train_steps(channels, hybridize=True, dtype=dtype)
    _assert_all_close(got, unfused, rtol=rtol, atol=rtol)


def _bn_relu_reference(x, gamma, beta, mean, invstd, og):
    """relu(BatchNorm(x)) over axis 1 with batch statistics, and its gradients."""
    axes = (0, 2, 3)
    shape = (1, -1, 1, 1)
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    y = np.maximum(gamma.reshape(shape) * xhat + beta.reshape(shape), 0)
    g = np.where(y > 0, og, 0)
    n = x.size / x.shape[1]
    dbeta = g.sum(axis=axes)
    dgamma = (g * xhat).sum(axis=axes)
    dx = gamma.reshape(shape) * invstd.reshape(shape) / n * (
        n * g - dbeta.reshape(shape) - xhat * dgamma.reshape(shape))
    return y, dx, dgamma, dbeta


@pytest.mark.parametrize("shape", [(4, 5, 3, 3), (2, 16, 4, 4)])
def test_batchnorm_with_relu_against_numpy(shape):
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, shape)
    gamma = rng.uniform(0.5, 1.5, shape[1])
    beta = rng.uniform(-0.3, 0.3, shape[1])
    og = rng.uniform(-1, 1, shape)
    args = [mx.nd.array(v, dtype="float64") for v in (x, gamma, beta)]
    mm = mx.nd.zeros(shape[1], dtype="float64")
    mv = mx.nd.ones(shape[1], dtype="float64")
    for a in args:
        a.attach_grad()
    with autograd.record():
        y, mean, invstd = mx.nd.contrib.BatchNormWithReLU(*args, mm, mv, fix_gamma=False,
                                                          output_mean_var=True, eps=1e-5)
    y.backward(mx.nd.array(og, dtype="float64"))
    want_mean = x.mean(axis=(0, 2, 3))
    want_invstd = 1 / np.sqrt(x.var(axis=(0, 2, 3)) + 1e-5)
    np.testing.assert_allclose(mean.asnumpy(), want_mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(invstd.asnumpy(), want_invstd, rtol=1e-10)
    ry, rdx, rdgamma, rdbeta = _bn_relu_reference(x, gamma, beta, want_mean, want_invstd, og)
    np.testing.assert_allclose(y.asnumpy(), ry, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(args[0].grad.asnumpy(), rdx, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(args[1].grad.asnumpy(), rdgamma, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(args[2].grad.asnumpy(), rdbeta, rtol=1e-8, atol=1e-10)
    # the moving statistics move towards the batch's in backward (momentum 0.9)
    np.testing.assert_allclose(mm.asnumpy(), 0.1 * want_mean, rtol=1e-6, atol=1e-12)


def test_batchnorm_with_relu_global_stats_gradient_is_the_masked_scale():
    rng = np.random.RandomState(4)
    x = rng.uniform(-1, 1, (2, 3, 4, 4))
    gamma = np.array([1.5, 0.5, 2.0])
    beta = np.array([0.1, -0.2, 0.0])
    mean = np.array([0.1, -0.1, 0.2])
    var = np.array([0.5, 1.5, 1.0])
    args = [mx.nd.array(v) for v in (x, gamma, beta, mean, var)]
    args[0].attach_grad()
    with autograd.record():
        y = mx.nd.contrib.BatchNormWithReLU(*args, fix_gamma=False, use_global_stats=True,
                                            eps=1e-3)
    y.backward()
    scale = (gamma / np.sqrt(var + 1e-3)).reshape(1, -1, 1, 1)
    pre = (x - mean.reshape(1, -1, 1, 1)) * scale + beta.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(y.asnumpy(), np.maximum(pre, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(args[0].grad.asnumpy(), np.where(pre > 0, scale, 0), rtol=1e-5)
