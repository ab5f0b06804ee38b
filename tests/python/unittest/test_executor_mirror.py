"""Backward mirroring (MXNET_BACKWARD_DO_MIRROR, force_mirroring): cheap forward values are
recomputed in backward instead of kept. It must save memory and never change a result: outputs,
gradients and BatchNorm's moving statistics are bit-for-bit those of a run without it."""
import numpy as np
import pytest
import mxnet as mx
from mxnet import autograd, gluon, util


@pytest.fixture
def mirror_env():
    """Yields a function that sets MXNET_BACKWARD_DO_MIRROR (None unsets); unset afterwards.
    Operators keep one OpenMP thread count meanwhile: oneDNN's GEMMs round differently for
    another count, and the runs are compared bit for bit."""
    def set_mirror(value):
        util.setenv("MXNET_BACKWARD_DO_MIRROR", value)
    util.setenv("MXNET_ENFORCE_DETERMINISM", "1")
    yield set_mirror
    util.setenv("MXNET_BACKWARD_DO_MIRROR", None)
    util.setenv("MXNET_ENFORCE_DETERMINISM", None)


def _sym_net(dropout=True):
    x = mx.sym.var("data")
    h = mx.sym.FullyConnected(x, num_hidden=48, name="fc1")
    h = mx.sym.BatchNorm(h, fix_gamma=False, name="bn1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.exp(mx.sym.tanh(h) * 0.5, name="ew") + mx.sym.sigmoid(h, name="sig") * h
    if dropout:
        h = mx.sym.Dropout(h, p=0.3, name="drop")
    h = mx.sym.FullyConnected(h, num_hidden=32, name="fc2")
    h = mx.sym.BatchNorm(h, fix_gamma=True, name="bn2")  # also writes 1 into its gamma
    h = mx.sym.Activation(h, act_type="tanh", name="tanh2")
    h = mx.sym.Reshape(h, shape=(-1, 2, 4, 4), name="rs")
    h = mx.sym.Pooling(h, kernel=(2, 2), pool_type="avg", name="pool")
    h = mx.sym.LeakyReLU(h, act_type="elu", slope=0.3, name="elu")
    return mx.sym.SoftmaxOutput(mx.sym.flatten(h), mx.sym.var("label"), name="softmax")


def _bind_and_step(sym, batch=16, steps=2):
    """Two training steps (forward, backward) of sym; returns outputs, grads and aux states."""
    mx.random.seed(7)
    rng = np.random.RandomState(0)
    shapes, _, aux_shapes = sym.infer_shape(data=(batch, 20), label=(batch,))
    names = sym.list_arguments()
    args = {n: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for n, s in zip(names, shapes)}
    args["label"] = mx.nd.array(rng.randint(0, 8, (batch,)))
    grads = {n: mx.nd.zeros(s) for n, s in zip(names, shapes) if n not in ("data", "label")}
    aux = {n: mx.nd.array(rng.uniform(0.5, 1.5, s))
           for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    ex = sym.bind(mx.cpu(), args, args_grad=grads, aux_states=aux)
    outs = []
    for _ in range(steps):
        ex.forward(is_train=True)
        ex.backward()
        outs.append(ex.outputs[0].asnumpy())
    result = {"out%d" % i: o for i, o in enumerate(outs)}
    result.update({"grad_" + k: v.asnumpy() for k, v in grads.items()})
    result.update({"aux_" + k: v.asnumpy() for k, v in aux.items()})
    result.update({"arg_" + k: v.asnumpy() for k, v in args.items()})  # bn2_gamma is set to 1
    return result, ex.debug_str()


def _assert_identical(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def test_executor_results_identical_with_mirroring(mirror_env):
    base, plan_off = _bind_and_step(_sym_net())
    mirror_env("1")
    got, plan_on = _bind_and_step(_sym_net())
    _assert_identical(base, got)
    assert "_mirror" not in plan_off
    # Activations, elementwise ops, reshape, pooling and BatchNorm (its copy writes its moving
    # statistics to scratch copies: they match above) are recomputed; FullyConnected, Dropout
    # (random) and SoftmaxOutput are not.
    for name in ("bn1_mirror", "bn2_mirror", "relu1_mirror", "sig_mirror", "tanh2_mirror", "pool_mirror",
                 "elu_mirror"):
        assert "Name=" + name + "\n" in plan_on, name
    for name in ("fc1_mirror", "drop_mirror", "fc2_mirror", "softmax_mirror"):
        assert "Name=" + name not in plan_on, name


def _planned_mb(plan):
    line = [l for l in plan.splitlines() if l.endswith(" MB allocated")][-1]
    return int(line.split()[1])


def test_executor_plans_less_memory_with_mirroring(mirror_env):
    x = mx.sym.var("data")
    h = mx.sym.FullyConnected(x, num_hidden=1024, name="fc0")
    for i in range(6):  # activations of 256 x 1024 floats: 1 MB each
        h = mx.sym.Activation(h, act_type="sigmoid", name="sig%d" % i)
        h = mx.sym.Activation(h, act_type="tanh", name="tanh%d" % i)
        h = mx.sym.FullyConnected(h, num_hidden=1024, name="fc%d" % (i + 1))
    net = mx.sym.sum(mx.sym.square(h))
    plans = []
    for value in (None, "1"):
        mirror_env(value)
        ex = net.simple_bind(mx.cpu(), data=(256, 64), grad_req="write")
        plans.append(_planned_mb(ex.debug_str()))
    assert plans[1] < plans[0], plans


def test_force_mirroring_attribute_without_the_variable(mirror_env):
    x = mx.sym.var("data")
    h = mx.sym.FullyConnected(x, num_hidden=8, name="fc")
    with mx.AttrScope(force_mirroring="True"):
        h = mx.sym.Activation(h, act_type="sigmoid", name="sig")
    h = mx.sym.Activation(h, act_type="tanh", name="tanh")
    net = mx.sym.sum(mx.sym.FullyConnected(h, num_hidden=4, name="fc_out"))
    plan = net.simple_bind(mx.cpu(), data=(2, 3)).debug_str()
    assert "Name=sig_mirror\n" in plan
    assert "Name=tanh_mirror" not in plan


def _gluon_net():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(64, in_units=20), gluon.nn.BatchNorm(in_channels=64),
            gluon.nn.Activation("relu"), gluon.nn.Dropout(0.25), gluon.nn.Dense(64, in_units=64),
            gluon.nn.Activation("sigmoid"), gluon.nn.LeakyReLU(0.1), gluon.nn.Dense(8, in_units=64))
    net.initialize(mx.init.Xavier(rnd_type="gaussian"))
    return net


def _gluon_step(static_alloc):
    mx.random.seed(11)
    net = _gluon_net()
    net.hybridize(static_alloc=static_alloc)
    rng = np.random.RandomState(3)
    x = mx.nd.array(rng.randn(32, 20))
    # A first step lets the temp-space copies grow to what this net asks, so that the
    # measured step allocates only what the recorded graph keeps.
    for step in range(2):
        mx.nd.waitall()
        before = mx._ffi.storage_stats(1, 0)["bytes_in_use"]
        with autograd.record():
            y = net(x)
            loss = (mx.nd.tanh(y) * y).sum()
        mx.nd.waitall()
        kept = mx._ffi.storage_stats(1, 0)["bytes_in_use"] - before
        loss.backward()
    result = {"y": y.asnumpy()}
    for i, p in enumerate(net.collect_params().values()):  # names differ per instance
        result["param%d" % i] = p.data().asnumpy()
        if p.grad_req != "null":
            result["grad%d" % i] = p.grad().asnumpy()
    return result, kept


@pytest.mark.parametrize("static_alloc", [False, True])
def test_hybridized_block_results_identical_with_mirroring(mirror_env, static_alloc):
    base, kept_off = _gluon_step(static_alloc)
    mirror_env("1")
    got, kept_on = _gluon_step(static_alloc)
    _assert_identical(base, got)
    # Between forward and backward the recorded graph holds fewer forward values.
    assert kept_on < kept_off, (kept_on, kept_off)


def test_malformed_force_mirroring_names_the_node():
    x = mx.sym.var("data")
    with mx.AttrScope(force_mirroring="sometimes"):
        h = mx.sym.Activation(x, act_type="relu", name="act")
    with pytest.raises(RuntimeError, match="act.*sometimes"):  # simple_bind wraps errors
        mx.sym.sum(h).simple_bind(mx.cpu(), data=(2, 3))


def _resnet_step(path):
    mx.random.seed(5)
    net = gluon.model_zoo.vision.resnet18_v1(classes=4)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(1).rand(8, 3, 64, 64))
    net(x)  # shapes of the parameters
    if path == "executor":
        sym = mx.sym.make_loss(mx.sym.sum(net(mx.sym.var("data"))))
        ex = sym.simple_bind(mx.cpu(), data=x.shape)
        params = net.collect_params()
        for name, arr in list(ex.arg_dict.items()) + list(ex.aux_dict.items()):
            if name != "data":
                params[name].data().copyto(arr)
        ex.arg_dict["data"][:] = x
        ex.forward(is_train=True)
        ex.backward()
        result = {"plan": _planned_mb(ex.debug_str())}
        # Names carry a per-instance prefix: compare in argument order.
        result.update({"g%d" % i: v.asnumpy() for i, v in enumerate(ex.grad_arrays)})
        result.update({"a%d" % i: v.asnumpy() for i, v in enumerate(ex.aux_arrays)})
        return result
    net.hybridize(static_alloc=True)
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    result = {}
    for i, p in enumerate(net.collect_params().values()):
        result["p%d" % i] = p.data().asnumpy()
        if p.grad_req != "null":
            result["g%d" % i] = p.grad().asnumpy()
    return result


@pytest.mark.parametrize("path", ["executor", "hybridized"])
def test_resnet18_step_identical_with_mirroring(mirror_env, path):
    # Convolution -> BatchNorm -> relu blocks with residual adds: BatchNorm and relu are
    # recomputed from the kept convolution outputs.
    base = _resnet_step(path)
    mirror_env("1")
    got = _resnet_step(path)
    if path == "executor":
        assert got.pop("plan") < base.pop("plan")
    _assert_identical(base, got)
