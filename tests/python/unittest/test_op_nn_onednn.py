"""The oneDNN paths of BatchNorm (channel-last axis), softmax / log_softmax / softmin,
Activation and LeakyReLU: each against a numpy reference, and oneDNN (MXNET_ONEDNN_ENABLED=1)
against the plain kernels (=0) on the same inputs, for every argument that changes the path;
MXNET_ONEDNN_ENABLED=0 runs no oneDNN primitive at all."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

# Arrays at least this large take the oneDNN eltwise and softmax kernels (smaller ones the
# plain loops, measured faster there).
BIG = 40000


@pytest.fixture(autouse=True)
def restore_onednn():
    yield
    mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")


def run_both(fn):
    """fn() with oneDNN enabled and disabled; the two results (lists of numpy arrays)."""
    out = []
    for flag in ("1", "0"):
        mx.util.setenv("MXNET_ONEDNN_ENABLED", flag)
        out.append([np.asarray(v) for v in fn()])
    mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")
    return out


def assert_agree(a, b, rtol=1e-5, atol=1e-5):
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg="result %d" % i)


def forward_backward(op, inputs, head, grad_req="write", train=True):
    """op(*inputs) under autograd, backward with head; (output, input gradients)."""
    arrs = [mx.nd.array(v) for v in inputs]
    for a in arrs:
        a.attach_grad(grad_req=grad_req)
    for _ in range(2 if grad_req == "add" else 1):
        with mx.autograd.record(train_mode=train):
            y = op(*arrs)
        y.backward(mx.nd.array(head))
    return [y.asnumpy()] + [a.grad.asnumpy() for a in arrs]


# ------------------------------------------------------------------------------ BatchNorm
def ref_batchnorm(x, gamma, beta, mean, var, eps, fix_gamma, axis):
    shape = [1] * x.ndim
    shape[axis] = -1
    g = np.ones_like(gamma) if fix_gamma else gamma
    return ((x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * g.reshape(shape)
            + beta.reshape(shape))


def batchnorm_run(x, gamma, beta, head, axis, fix_gamma, use_global_stats, train, grad_req):
    c = x.shape[axis]
    mm = mx.nd.array(np.linspace(-0.2, 0.2, c))
    mv = mx.nd.array(np.linspace(0.5, 1.5, c))
    arrs = [mx.nd.array(v) for v in (x, gamma, beta)]
    for a in arrs:
        a.attach_grad(grad_req=grad_req)
    for _ in range(2 if grad_req == "add" else 1):
        with mx.autograd.record(train_mode=train):
            y, mean, invstd = mx.nd.BatchNorm(*arrs, mm, mv, axis=axis, fix_gamma=fix_gamma,
                                              use_global_stats=use_global_stats, eps=1e-3,
                                              momentum=0.8, output_mean_var=True)
        y.backward(mx.nd.array(head))
    return [y, mean, invstd] + [a.grad for a in arrs] + [mm, mv]


BN_SHAPES = [((64, 8), 1), ((64, 8), -1), ((4, 5, 6, 16), 3), ((2, 3, 4, 5, 24), -1),
             ((3000, 16), 1)]


@pytest.mark.parametrize("shape,axis", BN_SHAPES)
@pytest.mark.parametrize("fix_gamma", [True, False])
@pytest.mark.parametrize("use_global_stats", [True, False])
@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_channel_last_onednn_matches_plain_and_numpy(shape, axis, fix_gamma,
                                                               use_global_stats, train):
    rng = np.random.RandomState(3)
    x = rng.uniform(-2, 3, shape).astype(np.float32)
    c = shape[axis]
    gamma = rng.uniform(0.5, 1.5, c).astype(np.float32)
    beta = rng.uniform(-1, 1, c).astype(np.float32)
    head = rng.uniform(-1, 1, shape).astype(np.float32)
    dnn, plain = run_both(lambda: [v.asnumpy() for v in batchnorm_run(
        x, gamma, beta, head, axis, fix_gamma, use_global_stats, train, "write")])
    assert_agree(dnn, plain, rtol=2e-4, atol=2e-4)
    ax = axis % x.ndim
    red = tuple(i for i in range(x.ndim) if i != ax)
    batch = train and not use_global_stats
    mean = x.mean(axis=red) if batch else np.linspace(-0.2, 0.2, c)
    var = x.var(axis=red) if batch else np.linspace(0.5, 1.5, c)
    np.testing.assert_allclose(dnn[0], ref_batchnorm(x, gamma, beta, mean, var, 1e-3, fix_gamma,
                                                     ax), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dnn[1], mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dnn[2], 1 / np.sqrt(var + 1e-3), rtol=1e-4)
    # beta's gradient is the head summed per channel; gamma's is 0 under fix_gamma.
    np.testing.assert_allclose(dnn[5], head.sum(axis=red), rtol=1e-4, atol=1e-3)
    if fix_gamma:
        assert not dnn[4].any()
    # moving statistics: folded with momentum only after a training batch
    mm0, mv0 = np.linspace(-0.2, 0.2, c), np.linspace(0.5, 1.5, c)
    if batch:
        np.testing.assert_allclose(dnn[6], 0.8 * mm0 + 0.2 * mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dnn[7], 0.8 * mv0 + 0.2 * var, rtol=1e-4, atol=1e-6)
    else:
        np.testing.assert_allclose(dnn[6], mm0, rtol=1e-6)
        np.testing.assert_allclose(dnn[7], mv0, rtol=1e-6)


def test_batchnorm_channel_last_data_gradient_matches_numerical():
    rng = np.random.RandomState(5)
    x = rng.uniform(-1, 1, (6, 4)).astype(np.float64)
    gamma = rng.uniform(0.5, 1.5, 4)
    beta = rng.uniform(-1, 1, 4)
    head = rng.uniform(-1, 1, (6, 4))
    grads = batchnorm_run(x.astype(np.float32), gamma.astype(np.float32),
                          beta.astype(np.float32), head.astype(np.float32), -1, False, False,
                          True, "write")
    dx, dgamma = grads[3].asnumpy(), grads[4].asnumpy()

    def f(xv, gv):
        m, v = xv.mean(axis=0), xv.var(axis=0)
        return (ref_batchnorm(xv, gv, beta, m, v, 1e-3, False, 1) * head).sum()
    eps = 1e-6
    for idx in [(0, 0), (3, 2), (5, 3)]:
        p, m = x.copy(), x.copy()
        p[idx] += eps
        m[idx] -= eps
        np.testing.assert_allclose(dx[idx], (f(p, gamma) - f(m, gamma)) / (2 * eps),
                                   rtol=1e-3, atol=1e-4)
    for k in range(4):
        p, m = gamma.copy(), gamma.copy()
        p[k] += eps
        m[k] -= eps
        np.testing.assert_allclose(dgamma[k], (f(x, p) - f(x, m)) / (2 * eps), rtol=1e-3,
                                   atol=1e-4)


def test_batchnorm_grad_req_add_accumulates_on_both_paths():
    rng = np.random.RandomState(8)
    x = rng.uniform(-1, 1, (50, 16)).astype(np.float32)
    g, b = np.ones(16, np.float32), np.zeros(16, np.float32)
    head = rng.uniform(-1, 1, x.shape).astype(np.float32)
    once, twice = [run_both(lambda: [v.asnumpy() for v in batchnorm_run(
        x, g, b, head, -1, False, True, True, req)])[0] for req in ("write", "add")]
    for k in (3, 4, 5):
        np.testing.assert_allclose(twice[k], 2 * once[k], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------ softmax
def ref_softmax(x, axis, t=1.0, log=False, negate=False):
    z = (-x if negate else x) / t
    z = z - z.max(axis=axis, keepdims=True)
    if log:
        return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


SOFTMAX_CASES = [
    # (op, shape, axis, temperature)
    ("softmax", (64, 1000), -1, None),
    ("softmax", (64, 1000), -1, 2.5),
    ("softmax", (10, 20, 300), 2, None),
    ("softmax", (64, 1000), 0, None),        # strided axis: plain on both runs
    ("softmax", (4, 9), -1, None),           # small: plain on both runs
    ("log_softmax", (64, 1000), -1, None),
    ("log_softmax", (64, 1000), 1, 0.5),
    ("softmin", (64, 1000), -1, None),
    ("softmin", (64, 1000), -1, 3.0),
]


@pytest.mark.parametrize("op,shape,axis,temperature", SOFTMAX_CASES)
def test_softmax_onednn_matches_plain_and_numpy(op, shape, axis, temperature):
    rng = np.random.RandomState(1)
    x = rng.uniform(-4, 4, shape).astype(np.float32)
    head = rng.uniform(-1, 1, shape).astype(np.float32)
    kw = {"axis": axis}
    if temperature is not None:
        kw["temperature"] = temperature
    fn = getattr(mx.nd, op)
    dnn, plain = run_both(lambda: forward_backward(lambda a: fn(a, **kw), [x], head))
    assert_agree(dnn, plain, rtol=1e-4, atol=1e-5)  # log_softmax cancels: absolute
    t = temperature or 1.0
    ref = ref_softmax(x.astype(np.float64), axis, t, log=op == "log_softmax",
                      negate=op == "softmin")
    np.testing.assert_allclose(dnn[0], ref, rtol=1e-4, atol=1e-6)
    # gradient: J^T head, J of softmax(s * x) with s = sign / t
    s = (-1.0 if op == "softmin" else 1.0) / t
    if op == "log_softmax":
        grad = s * (head - np.exp(ref) * head.sum(axis=axis, keepdims=True))
    else:
        grad = s * ref * (head - (head * ref).sum(axis=axis, keepdims=True))
    np.testing.assert_allclose(dnn[1], grad, rtol=1e-3, atol=1e-5)


def test_softmax_grad_req_add_and_length_keep_the_plain_kernel_results():
    rng = np.random.RandomState(2)
    x = rng.uniform(-1, 1, (8, 1000)).astype(np.float32)
    head = rng.uniform(-1, 1, x.shape).astype(np.float32)
    once = forward_backward(lambda a: mx.nd.softmax(a), [x], head)
    twice = forward_backward(lambda a: mx.nd.softmax(a), [x], head, grad_req="add")
    np.testing.assert_allclose(twice[1], 2 * once[1], rtol=1e-5, atol=1e-7)
    length = mx.nd.array([500, 1000, 3, 0, 999, 1, 2, 1000], dtype="int32")
    dnn, plain = run_both(lambda: [mx.nd.softmax(mx.nd.array(x), length, use_length=True,
                                                 axis=-1).asnumpy()])
    assert_agree(dnn, plain)
    assert not dnn[0][0, 500:].any()


# ------------------------------------------------------------------------------ eltwise
def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


ELTWISE = {
    # name: (op kwargs maker, forward reference, derivative reference)
    "relu": (lambda: ("Activation", {"act_type": "relu"}),
             lambda x: np.maximum(x, 0), lambda x: (x > 0).astype(np.float64)),
    "sigmoid": (lambda: ("Activation", {"act_type": "sigmoid"}),
                lambda x: 1 / (1 + np.exp(-x)),
                lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
    "tanh": (lambda: ("Activation", {"act_type": "tanh"}), np.tanh,
             lambda x: 1 - np.tanh(x) ** 2),
    "softrelu": (lambda: ("Activation", {"act_type": "softrelu"}),
                 lambda x: np.log1p(np.exp(x)), lambda x: 1 / (1 + np.exp(-x))),
    "softsign": (lambda: ("Activation", {"act_type": "softsign"}),
                 lambda x: x / (1 + np.abs(x)), lambda x: 1 / (1 + np.abs(x)) ** 2),
    "leaky": (lambda: ("LeakyReLU", {"act_type": "leaky", "slope": 0.3}),
              lambda x: np.where(x > 0, x, 0.3 * x), lambda x: np.where(x > 0, 1, 0.3)),
    "elu": (lambda: ("LeakyReLU", {"act_type": "elu", "slope": 0.7}),
            lambda x: np.where(x > 0, x, 0.7 * np.expm1(x)),
            lambda x: np.where(x > 0, 1, 0.7 * np.exp(x))),
    "gelu": (lambda: ("LeakyReLU", {"act_type": "gelu"}), gelu,
             lambda x: 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
             + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)),
    "selu": (lambda: ("LeakyReLU", {"act_type": "selu"}),
             lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
             lambda x: 1.0507009873554805 * np.where(x > 0, 1, 1.6732632423543772 * np.exp(x))),
}


@pytest.mark.parametrize("name", sorted(ELTWISE))
@pytest.mark.parametrize("size", [BIG, 100])
def test_activation_onednn_matches_plain_and_numpy(name, size):
    make, fwd, slope = ELTWISE[name]
    op_name, kw = make()
    rng = np.random.RandomState(4)
    x = rng.uniform(-5, 5, size).astype(np.float32)
    x[np.abs(x) < 1e-3] = 0.5  # keep relu's kink out of the comparison
    head = rng.uniform(-1, 1, size).astype(np.float32)
    op = getattr(mx.nd, op_name)
    dnn, plain = run_both(lambda: forward_backward(lambda a: op(a, **kw), [x], head))
    assert_agree(dnn, plain, rtol=2e-5, atol=2e-6)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(dnn[0], fwd(xd), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dnn[1], head * slope(xd), rtol=1e-4, atol=1e-6)


def test_leaky_negative_slope_and_grad_req_add_keep_mxnet_semantics():
    rng = np.random.RandomState(6)
    x = rng.uniform(-1, 1, BIG).astype(np.float32)
    head = np.ones(BIG, np.float32)
    dnn, plain = run_both(lambda: forward_backward(
        lambda a: mx.nd.LeakyReLU(a, act_type="leaky", slope=-0.5), [x], head))
    assert_agree(dnn, plain)
    dnn, plain = run_both(lambda: forward_backward(
        lambda a: mx.nd.Activation(a, act_type="tanh"), [x], head, grad_req="add"))
    assert_agree(dnn, plain)
    np.testing.assert_allclose(dnn[1], 2 * (1 - np.tanh(x.astype(np.float64)) ** 2), rtol=1e-5)


def test_inplace_output_on_onednn():
    x = mx.nd.array(np.linspace(-3, 3, BIG))
    mx.nd.Activation(x, act_type="relu", out=x)
    np.testing.assert_array_equal(x.asnumpy(), np.maximum(np.linspace(-3, 3, BIG), 0)
                                  .astype(np.float32))


# ------------------------------------------------------------------------------ the switch
SWITCH_SCRIPT = r'''
import numpy as np, mxnet as mx
x = mx.nd.array(np.random.uniform(-1, 1, (64, 1000)))
x.attach_grad()
with mx.autograd.record():
    y = mx.nd.softmax(mx.nd.Activation(x, act_type="tanh"))
    z = mx.nd.BatchNorm(y, mx.nd.ones(1000), mx.nd.zeros(1000), mx.nd.zeros(1000),
                        mx.nd.ones(1000), axis=-1)
z.backward()
mx.nd.waitall()
'''


def verbose_run(script, **env_vars):
    """The primitives oneDNN's verbose log lists as run by script, in a child with env_vars
    set: one list of fields per primitive."""
    env = dict(os.environ, DNNL_VERBOSE="1", **env_vars)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(mx.__path__[0]),
                                                    env.get("PYTHONPATH", "")] if p)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [line.split(",") for line in out.stdout.splitlines()
            if line.startswith("onednn_verbose,exec")]


@pytest.mark.parametrize("enabled", ["1", "0"])
def test_onednn_enabled_zero_runs_no_onednn_primitive(enabled):
    executed = {fields[3] for fields in verbose_run(SWITCH_SCRIPT, MXNET_ONEDNN_ENABLED=enabled)}
    if enabled == "1":
        assert {"eltwise", "softmax_v2", "batch_normalization"} <= executed, executed
    else:
        assert not executed, executed


# ------------------------------------------------------------------------------ FullyConnected
@pytest.mark.parametrize("no_bias", [True, False])
@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_fully_connected_matmul_matches_plain_and_numpy(no_bias, grad_req):
    rng = np.random.RandomState(9)
    x = rng.uniform(-1, 1, (7, 2, 13)).astype(np.float32)  # flattened to (7, 26)
    w = rng.uniform(-1, 1, (9, 26)).astype(np.float32)
    b = rng.uniform(-1, 1, 9).astype(np.float32)
    head = rng.uniform(-1, 1, (7, 9)).astype(np.float32)
    inputs = [x, w] if no_bias else [x, w, b]
    dnn, plain = run_both(lambda: forward_backward(
        lambda *a: mx.nd.FullyConnected(*a, num_hidden=9, no_bias=no_bias), inputs, head,
        grad_req=grad_req))
    assert_agree(dnn, plain, rtol=1e-5, atol=1e-5)
    x2 = x.reshape(7, 26).astype(np.float64)
    times = 2 if grad_req == "add" else 1
    np.testing.assert_allclose(dnn[0], x2 @ w.T + (0 if no_bias else b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dnn[1], times * (head @ w).reshape(x.shape), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dnn[2], times * head.T @ x2, rtol=1e-5, atol=1e-5)
    if not no_bias:
        np.testing.assert_allclose(dnn[3], times * head.sum(axis=0), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------ Convolution
def test_convolution_reuses_reordered_weights_only_while_they_are_unchanged():
    rng = np.random.RandomState(10)
    x = mx.nd.array(rng.uniform(-1, 1, (2, 16, 9, 9)))
    w = mx.nd.array(rng.uniform(-1, 1, (32, 16, 3, 3)))
    other = mx.nd.array(rng.uniform(-1, 1, (32, 16, 3, 3)))

    def conv(weight):
        return mx.nd.Convolution(x, weight, kernel=(3, 3), num_filter=32, no_bias=True)

    def plain(weight):
        mx.util.setenv("MXNET_ONEDNN_ENABLED", "0")
        try:
            return conv(weight).asnumpy()
        finally:
            mx.util.setenv("MXNET_ONEDNN_ENABLED", "1")

    first = conv(w).asnumpy()
    np.testing.assert_allclose(first, plain(w), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(conv(other).asnumpy(), plain(other), rtol=1e-4, atol=1e-4)
    w[:] = w * 2 - 0.5  # the same array, changed in place
    np.testing.assert_allclose(conv(w).asnumpy(), plain(w), rtol=1e-4, atol=1e-4)
    w[0, 0, 0, 0] = 7.0  # one element
    np.testing.assert_allclose(conv(w).asnumpy(), plain(w), rtol=1e-4, atol=1e-4)
    assert not np.allclose(conv(w).asnumpy(), first)


# ------------------------------------------------------------------------------ LayerNorm
@pytest.mark.parametrize("shape,axis", [((64, 300), -1), ((4, 5, 64), 2), ((4, 5, 64), 1)])
@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_layernorm_onednn_matches_plain_and_numpy(shape, axis, grad_req):
    rng = np.random.RandomState(12)
    x = rng.uniform(-2, 3, shape).astype(np.float32)
    n = shape[axis]
    gamma = rng.uniform(0.5, 1.5, n).astype(np.float32)
    beta = rng.uniform(-1, 1, n).astype(np.float32)
    head = rng.uniform(-1, 1, shape).astype(np.float32)

    def run():
        arrs = [mx.nd.array(v) for v in (x, gamma, beta)]
        for a in arrs:
            a.attach_grad(grad_req=grad_req)
        for _ in range(2 if grad_req == "add" else 1):
            with mx.autograd.record():
                y, mean, std = mx.nd.LayerNorm(*arrs, axis=axis, eps=1e-4, output_mean_var=True)
            y.backward(mx.nd.array(head))
        return [v.asnumpy() for v in [y, mean, std] + [a.grad for a in arrs]]
    dnn, plain = run_both(run)
    assert_agree(dnn, plain, rtol=1e-4, atol=1e-4)
    axis = axis % x.ndim
    xd = x.astype(np.float64)
    mean = xd.mean(axis=axis, keepdims=True)
    std = np.sqrt(xd.var(axis=axis, keepdims=True) + 1e-4)
    shp = [1] * x.ndim
    shp[axis] = n
    xhat = (xd - mean) / std
    np.testing.assert_allclose(dnn[0], xhat * gamma.reshape(shp) + beta.reshape(shp),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dnn[1], mean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dnn[2], std, rtol=1e-5)
    times = 2 if grad_req == "add" else 1
    red = tuple(i for i in range(x.ndim) if i != axis)
    np.testing.assert_allclose(dnn[4], times * (head * xhat).sum(axis=red), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(dnn[5], times * head.sum(axis=red), rtol=1e-4, atol=1e-3)
    g = head * gamma.reshape(shp)
    dx = (g - g.mean(axis=axis, keepdims=True)
          - xhat * (g * xhat).mean(axis=axis, keepdims=True)) / std
    np.testing.assert_allclose(dnn[3], times * dx, rtol=1e-3, atol=1e-4)


# ------------------------------------------------------------------------------ PyTorch
# PyTorch's results (float64) for the same inputs, from fixtures/make_torch_nn_fixtures.py
# (the test interpreter has no torch): a second reference, on both kernel paths.
TORCH = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                             "torch_nn_reference.npz"))

TORCH_CASES = {
    "conv": lambda x, w, b: mx.nd.Convolution(x, w, b, kernel=(3, 3), stride=(1, 2), pad=(1, 0),
                                              num_filter=4),
    "conv_group": lambda x, w: mx.nd.Convolution(x, w, kernel=(3, 3), pad=(2, 2), dilate=(2, 2),
                                                 num_group=2, num_filter=6, no_bias=True),
    "deconv": lambda x, w, b: mx.nd.Deconvolution(x, w, b, kernel=(3, 3), stride=(2, 2),
                                                  pad=(1, 1), adj=(1, 1), num_filter=3,
                                                  no_bias=False),
    "maxpool": lambda x: mx.nd.Pooling(x, kernel=(3, 2), stride=(2, 2), pad=(1, 0),
                                       pool_type="max"),
    "avgpool": lambda x: mx.nd.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                       pool_type="avg", count_include_pad=True),
}


@pytest.mark.parametrize("name", sorted(TORCH_CASES))
@pytest.mark.parametrize("enabled", ["1", "0"])
def test_conv_deconv_pool_match_pytorch(name, enabled):
    n = sum(1 for k in TORCH.files if k.startswith(name + "/in"))
    inputs = [TORCH["%s/in%d" % (name, i)] for i in range(n)]
    mx.util.setenv("MXNET_ONEDNN_ENABLED", enabled)
    got = forward_backward(TORCH_CASES[name], inputs, TORCH[name + "/head"])
    np.testing.assert_allclose(got[0], TORCH[name + "/out"], rtol=1e-4, atol=1e-5)
    for i in range(n):
        np.testing.assert_allclose(got[1 + i], TORCH["%s/grad%d" % (name, i)], rtol=1e-4,
                                   atol=1e-4, err_msg="gradient %d" % i)


@pytest.mark.parametrize("name", ["bn", "bn_last"])
@pytest.mark.parametrize("enabled", ["1", "0"])
def test_batchnorm_training_matches_pytorch(name, enabled):
    x, g, b = [TORCH["%s/in%d" % (name, i)] for i in range(3)]
    c = g.shape[0]
    mm, mv = mx.nd.zeros(c), mx.nd.ones(c)
    mx.util.setenv("MXNET_ONEDNN_ENABLED", enabled)
    got = forward_backward(lambda *a: mx.nd.BatchNorm(*a, mm, mv, fix_gamma=False, eps=1e-3,
                                                      momentum=0.9),
                           [x, g, b], TORCH[name + "/head"])
    np.testing.assert_allclose(got[0], TORCH[name + "/out"], rtol=1e-4, atol=1e-4)
    for i in range(3):
        np.testing.assert_allclose(got[1 + i], TORCH["%s/grad%d" % (name, i)], rtol=1e-4,
                                   atol=1e-4, err_msg="gradient %d" % i)
    # torch's momentum 0.1 is MXNet's 0.9 (torch's running_var is unbiased, MXNet's is not)
    np.testing.assert_allclose(mm.asnumpy(), TORCH[name + "/running_mean"], rtol=1e-5,
                               atol=1e-6)


# ------------------------------------------------------------------- blocked layout in graphs
REORDER_SCRIPT = r'''
import mxnet as mx
net = mx.gluon.nn.HybridSequential()
net.add(mx.gluon.nn.Conv2D(16, 3, padding=1), mx.gluon.nn.Conv2D(16, 3, padding=1),
        mx.gluon.nn.MaxPool2D(2), mx.gluon.nn.Conv2D(32, 1))
net.initialize()
net.hybridize(static_alloc=True, static_shape=True)
x = mx.nd.ones((7, 16, 8, 8))
net(x).wait_to_read()
net(x).wait_to_read()
'''


def activation_reorders(flag):
    """How many reorders of batch-7 values (activations, not weights) one run of a hybridized
    conv, conv, pool, conv chain makes (the script runs it twice)."""
    runs = verbose_run(REORDER_SCRIPT, MXNET_ONEDNN_BLOCKED_LAYOUT=flag)
    return len([f for f in runs if f[3] == "reorder" and f[-2].startswith("7x")]) / 2


def test_blocked_layout_leaves_the_reorders_of_the_graph_input_and_output():
    blocked = activation_reorders("1")
    plain = activation_reorders("0")
    if mx.runtime.Features().is_enabled("ONEDNN"):
        assert blocked == 2, blocked                 # the input in, the output back to NCHW
        assert plain >= 6, plain                     # in and out of every convolution
