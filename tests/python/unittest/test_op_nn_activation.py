# Neural-network activations and loss layers: Activation, LeakyReLU, softmax / log_softmax /
# softmin, SoftmaxActivation, SoftmaxOutput, the regression outputs, SVMOutput, smooth_l1 and
# softmax_cross_entropy -- forward against numpy, gradients against derivatives.
import math

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient

nd = mx.nd
TOL = {np.float16: (2e-2, 2e-2), np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-12)}
FLOATS = [np.float16, np.float32, np.float64]
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946
_erf = np.vectorize(math.erf)


def _rand(shape, low=-3, high=3, dtype=np.float64, seed=0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def _grad(fn, inputs, head, grad_of=(0,), train=True):
    """Gradients of fn(*inputs) for the inputs in grad_of, with head gradient head."""
    arrays = [x.copy() for x in inputs]
    for i in grad_of:
        arrays[i].attach_grad()
    with mx.autograd.record(train_mode=train):
        y = fn(*arrays)
    y.backward(head)
    return [arrays[i].grad.asnumpy() for i in grad_of]


# ------------------------------------------------------------------------------ Activation
ACTIVATIONS = {
    # name: (forward, derivative from x)
    "relu": (lambda x: np.maximum(x, 0), lambda x: (x > 0).astype(x.dtype)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
    "tanh": (np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    "softrelu": (lambda x: np.log1p(np.exp(x)), lambda x: 1 / (1 + np.exp(-x))),
    "softsign": (lambda x: x / (1 + np.abs(x)), lambda x: 1 / (1 + np.abs(x)) ** 2),
}


@pytest.mark.parametrize("act_type", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", FLOATS)
def test_activation_forward_and_gradient_match_numpy(act_type, dtype):
    fwd, slope = ACTIVATIONS[act_type]
    x = _rand((2, 3, 4), dtype=dtype)
    rtol, atol = TOL[dtype]
    y = nd.Activation(nd.array(x, dtype=dtype), act_type=act_type)
    assert y.dtype == dtype
    assert_almost_equal(y.asnumpy(), fwd(x.astype(np.float64)), rtol=rtol, atol=atol)
    head = _rand((2, 3, 4), seed=1, dtype=dtype)
    g, = _grad(lambda a: nd.Activation(a, act_type=act_type), [nd.array(x, dtype=dtype)],
               nd.array(head, dtype=dtype))
    expected = head.astype(np.float64) * slope(x.astype(np.float64))
    assert_almost_equal(g, expected, rtol=max(rtol, 1e-4) if dtype != np.float64 else 1e-10,
                        atol=max(atol, 1e-5) if dtype != np.float64 else 1e-10)


@pytest.mark.parametrize("act_type", ["sigmoid", "tanh", "softrelu", "softsign"])
def test_activation_numeric_gradient(act_type):
    check_numeric_gradient(lambda a: nd.Activation(a, act_type=act_type), [_rand((3, 4))],
                           rtol=1e-5, atol=1e-7)


def test_activation_softrelu_is_linear_for_large_inputs():
    y = nd.Activation(nd.array([30.0, 100.0, -100.0]), act_type="softrelu").asnumpy()
    assert_almost_equal(y, np.array([30.0, 100.0, 0.0]), rtol=1e-6, atol=1e-30)


def test_activation_bad_arguments_raise():
    x = nd.ones((2, 3))
    with pytest.raises(MXNetError, match="act_type"):
        nd.Activation(x)
    with pytest.raises(MXNetError, match="foo"):
        nd.Activation(x, act_type="foo")
    with pytest.raises(MXNetError, match="Activation.*int32"):
        nd.Activation(nd.ones((2,), dtype="int32"), act_type="relu")


# ------------------------------------------------------------------------------- LeakyReLU
LEAKY = {
    # name: (forward(x, slope), derivative(x, slope))
    "leaky": (lambda x, s: np.where(x > 0, x, s * x), lambda x, s: np.where(x > 0, 1, s)),
    "elu": (lambda x, s: np.where(x > 0, x, s * np.expm1(x)),
            lambda x, s: np.where(x > 0, 1, s * np.exp(x))),
    "selu": (lambda x, s: SELU_LAMBDA * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
             lambda x, s: SELU_LAMBDA * np.where(x > 0, 1, SELU_ALPHA * np.exp(x))),
    "gelu": (lambda x, s: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
             lambda x, s: 0.5 * (1 + _erf(x / np.sqrt(2))) + x * np.exp(-x * x / 2) /
             np.sqrt(2 * np.pi)),
}


@pytest.mark.parametrize("act_type", sorted(LEAKY))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("slope", [0.25, 0.1])
def test_leaky_relu_family_matches_numpy(act_type, dtype, slope):
    fwd, der = LEAKY[act_type]
    s32 = float(np.float32(slope))  # slope is a float32 argument, as in MXNet
    x = _rand((2, 3, 4), dtype=dtype)
    x64 = x.astype(np.float64)
    rtol, atol = TOL[dtype]
    rtol, atol = (rtol, atol) if dtype == np.float64 else (max(rtol, 1e-5), max(atol, 1e-5))
    y = nd.LeakyReLU(nd.array(x, dtype=dtype), act_type=act_type, slope=slope)
    assert_almost_equal(y.asnumpy(), fwd(x64, s32), rtol=rtol, atol=atol)
    head = _rand((2, 3, 4), seed=2, dtype=dtype)
    g, = _grad(lambda a: nd.LeakyReLU(a, act_type=act_type, slope=slope),
               [nd.array(x, dtype=dtype)], nd.array(head, dtype=dtype))
    assert_almost_equal(g, head.astype(np.float64) * der(x64, s32),
                        rtol=max(rtol, 1e-9), atol=max(atol, 1e-9))


@pytest.mark.parametrize("act_type", ["leaky", "elu", "selu", "gelu"])
def test_leaky_relu_numeric_gradient(act_type):
    x = _rand((3, 4))
    x[np.abs(x) < 1e-2] = 0.5  # away from the kink
    check_numeric_gradient(lambda a: nd.LeakyReLU(a, act_type=act_type), [x], rtol=1e-5,
                           atol=1e-7)


def test_leaky_relu_selu_gradient_is_the_derivative():
    # MXNet 1.9.1 gives lambda * (alpha + y) for x < 0, which is not the derivative (negative
    # at x = -5); this is lambda * alpha * exp(x).
    g, = _grad(lambda a: nd.LeakyReLU(a, act_type="selu"),
               [nd.array([-5.0, -1.0], dtype="float64")], nd.ones((2,), dtype="float64"))
    assert_almost_equal(g, SELU_LAMBDA * SELU_ALPHA * np.exp([-5.0, -1.0]), rtol=1e-12, atol=0)


def test_gelu_float32_is_accurate_in_the_tails():
    x = np.linspace(-12, 12, 20001).astype(np.float32)
    y = nd.LeakyReLU(nd.array(x), act_type="gelu").asnumpy().astype(np.float64)
    erfc = np.vectorize(math.erfc)
    x64 = x.astype(np.float64)
    exact = 0.5 * x64 * erfc(-x64 / np.sqrt(2))
    keep = np.abs(exact) > 1e-30
    assert (np.abs(y - exact)[keep] / np.abs(exact[keep])).max() < 2e-5


@pytest.mark.parametrize("gamma_shape", [(3,), (1,), (2, 3), (2, 1), (1, 3)])
def test_prelu_broadcasts_gamma_over_axes_0_and_1(gamma_shape):
    x = _rand((2, 3, 4))
    gamma = _rand(gamma_shape, 0, 1, seed=3)
    g_full = gamma.reshape(gamma_shape + (1,) * (3 - len(gamma_shape))) if len(gamma_shape) == 2 \
        else gamma.reshape((1,) + gamma_shape + (1,))
    y = nd.LeakyReLU(nd.array(x, dtype="float64"), nd.array(gamma, dtype="float64"),
                     act_type="prelu")
    assert_almost_equal(y.asnumpy(), np.where(x > 0, x, g_full * x), rtol=1e-12, atol=1e-12)
    head = _rand((2, 3, 4), seed=4)
    gx, gg = _grad(lambda a, b: nd.LeakyReLU(a, b, act_type="prelu"),
                   [nd.array(x, dtype="float64"), nd.array(gamma, dtype="float64")],
                   nd.array(head, dtype="float64"), grad_of=(0, 1))
    assert_almost_equal(gx, head * np.where(x > 0, 1, g_full), rtol=1e-12, atol=1e-12)
    full = head * np.where(x > 0, 0, x)
    expected_gamma = np.broadcast_to(full, (2, 3, 4))
    axes = tuple(i for i in range(3) if i >= 2 or g_full.shape[i] == 1)
    assert_almost_equal(gg, expected_gamma.sum(axis=axes).reshape(gamma_shape), rtol=1e-12,
                        atol=1e-12)


def test_prelu_infers_gamma_and_rejects_mismatched_gamma():
    x = nd.ones((2, 3, 4))
    with pytest.raises(MXNetError, match="gamma.*cannot be broadcast"):
        nd.LeakyReLU(x, nd.ones((4,)), act_type="prelu")
    with pytest.raises(MXNetError, match="expects 1 input"):
        nd.LeakyReLU(x, nd.ones((3,)), act_type="leaky")


def test_rrelu_inference_uses_mean_slope_and_returns_mask():
    x = nd.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]])
    out = nd.LeakyReLU(x, act_type="rrelu")
    assert isinstance(out, list) and len(out) == 2
    slope = (0.125 + 0.334) / 2
    # MXNet 1.9.1: [[-0.2295, 2, -0.6885], [4, -1.1475, 6]]
    assert_almost_equal(out[0].asnumpy(), np.where(x.asnumpy() > 0, x.asnumpy(),
                                                   slope * x.asnumpy()), rtol=1e-6, atol=1e-7)
    assert_almost_equal(out[1].asnumpy(), np.full((2, 3), slope), rtol=1e-6, atol=1e-7)


def test_rrelu_training_draws_slopes_in_bounds_and_backprops_them():
    x = nd.array(_rand((50, 40)))
    x.attach_grad()
    with mx.autograd.record():
        y, mask = nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.1, upper_bound=0.3)
    y.backward()
    m = mask.asnumpy()
    assert m.min() >= 0.1 and m.max() < 0.3 and m.std() > 0.03
    xn = x.asnumpy()
    assert_almost_equal(y.asnumpy(), np.where(xn > 0, xn, m * xn), rtol=1e-6, atol=1e-7)
    assert_almost_equal(x.grad.asnumpy(), np.where(xn > 0, 1, m), rtol=1e-6, atol=1e-7)


# -------------------------------------------------------------------- softmax and relatives
def _np_softmax(x, axis=-1, t=1.0):
    z = x / t
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


SOFTMAXES = {
    "softmax": lambda x, axis, t: _np_softmax(x, axis, t),
    "log_softmax": lambda x, axis, t: np.log(_np_softmax(x, axis, t)),
    "softmin": lambda x, axis, t: _np_softmax(-x, axis, t),
}


@pytest.mark.parametrize("op", sorted(SOFTMAXES))
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("temperature", [None, 2.5])
def test_softmax_family_forward_and_numeric_gradient(op, axis, temperature):
    x = _rand((2, 3, 4))
    kw = {"axis": axis}
    if temperature is not None:
        kw["temperature"] = temperature
    y = getattr(nd, op)(nd.array(x, dtype="float64"), **kw)
    assert_almost_equal(y.asnumpy(), SOFTMAXES[op](x, axis, temperature or 1.0), rtol=1e-12,
                        atol=1e-12)
    check_numeric_gradient(lambda a: getattr(nd, op)(a, **kw), [x], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("op", sorted(SOFTMAXES))
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_family_dtypes(op, dtype):
    x = _rand((3, 5), dtype=dtype)
    y = getattr(nd, op)(nd.array(x, dtype=dtype))
    assert y.dtype == dtype
    rtol, atol = TOL[dtype]
    assert_almost_equal(y.asnumpy(), SOFTMAXES[op](x.astype(np.float64), -1, 1.0),
                        rtol=max(rtol, 1e-5), atol=max(atol, 1e-6))


@pytest.mark.parametrize("op", sorted(SOFTMAXES))
def test_softmax_dtype_argument_sets_output_dtype_and_gradient_keeps_input_dtype(op):
    x = _rand((2, 5), dtype=np.float16)
    y = getattr(nd, op)(nd.array(x, dtype="float16"), dtype="float64")
    assert y.dtype == np.float64
    assert_almost_equal(y.asnumpy(), SOFTMAXES[op](x.astype(np.float64), -1, 1.0), rtol=1e-6,
                        atol=1e-7)
    a = nd.array(x, dtype="float16")
    a.attach_grad()
    with mx.autograd.record():
        out = getattr(nd, op)(a, dtype="float32")
    out.backward(nd.ones((2, 5), dtype="float32"))
    assert a.grad.dtype == np.float16


def test_softmax_with_length_masks_the_tail_of_each_row():
    x = _rand((2, 3, 4))
    length = np.array([[1, 4, 0], [2, 3, 4]], dtype=np.int32)
    y = nd.softmax(nd.array(x, dtype="float64"), nd.array(length, dtype="int32"),
                   use_length=True).asnumpy()
    for i in range(2):
        for j in range(3):
            n = length[i, j]
            expected = np.zeros(4)
            if n:
                expected[:n] = _np_softmax(x[i, j, :n])
            assert_almost_equal(y[i, j], expected, rtol=1e-12, atol=1e-12)
    # The gradient inside each row's length is softmax's, zero after it; length gets none.
    head = _rand((2, 3, 4), seed=5)
    gx, gl = _grad(lambda a, l: nd.softmax(a, l, use_length=True),
                   [nd.array(x, dtype="float64"), nd.array(length, dtype="int32")],
                   nd.array(head, dtype="float64"), grad_of=(0, 1))
    for i in range(2):
        for j in range(3):
            n = length[i, j]
            s = y[i, j, :n]
            expected = np.zeros(4)
            expected[:n] = s * (head[i, j, :n] - (head[i, j, :n] * s).sum())
            assert_almost_equal(gx[i, j], expected, rtol=1e-10, atol=1e-12)
    assert not gl.any()


def test_softmax_with_length_along_axis_0_and_int64_length():
    x = _rand((3, 2))
    y = nd.softmax(nd.array(x, dtype="float64"), nd.array([2, 3], dtype="int64"),
                   use_length=True, axis=0).asnumpy()
    assert_almost_equal(y[:, 0], np.append(_np_softmax(x[:2, 0]), 0), rtol=1e-12, atol=1e-12)
    assert_almost_equal(y[:, 1], _np_softmax(x[:, 1]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", sorted(SOFTMAXES))
def test_softmax_along_a_strided_axis_wider_than_a_tile(op):
    # 150 positions after the axis: the kernel works on them in blocks of 64.
    x = _rand((2, 3, 150))
    y = getattr(nd, op)(nd.array(x, dtype="float64"), axis=1)
    assert_almost_equal(y.asnumpy(), SOFTMAXES[op](x, 1, 1.0), rtol=1e-12, atol=1e-12)
    head = _rand((2, 3, 150), seed=10)
    g, = _grad(lambda a: getattr(nd, op)(a, axis=1), [nd.array(x, dtype="float64")],
               nd.array(head, dtype="float64"))
    s = _np_softmax(-x if op == "softmin" else x, 1)
    if op == "log_softmax":
        expected = head - s * head.sum(1, keepdims=True)
    else:
        expected = s * (head - (head * s).sum(1, keepdims=True))
        expected = -expected if op == "softmin" else expected
    assert_almost_equal(g, expected, rtol=1e-10, atol=1e-12)


def test_softmax_float_length_binds_and_fails_when_run():
    # MXNet 1.9.1 infers types without the length, so simple_bind's float32 default binds
    sym = mx.sym.softmax(mx.sym.var("data"), mx.sym.var("length"), axis=1, use_length=True)
    ex = sym.simple_bind(mx.cpu(), data=(2, 3), length=(2,), grad_req="null")
    assert ex.arg_dict["length"].dtype == np.float32
    with pytest.raises(MXNetError, match="int32 or int64"):
        ex.forward()
        mx.nd.waitall()


def test_softmax_bad_arguments_raise():
    x = nd.ones((2, 3))
    with pytest.raises(MXNetError, match="axis"):
        nd.softmax(x, axis=2)
    with pytest.raises(MXNetError, match="length.*int32 or int64"):  # checked as it runs
        nd.softmax(x, nd.array([1, 2]), use_length=True).asnumpy()
    with pytest.raises(MXNetError, match="length"):
        nd.softmax(x, nd.array([1, 2, 3], dtype="int32"), use_length=True)
    with pytest.raises(MXNetError, match="float16, float32 or float64"):
        nd.softmax(nd.ones((2, 3), dtype="int32"))
    with pytest.raises(MXNetError, match="use_length=True is supported by softmax only"):
        nd.log_softmax(x, use_length=True)


def test_softmax_is_stable_for_large_inputs():
    y = nd.softmax(nd.array([[1e4, 1e4 - 1, -1e4]])).asnumpy()
    assert_almost_equal(y, _np_softmax(np.array([[1e4, 1e4 - 1, -1e4]])), rtol=1e-6, atol=1e-7)
    assert np.isfinite(nd.log_softmax(nd.array([[1e4, -1e4]])).asnumpy()).all()


@pytest.mark.parametrize("mode,axis", [("instance", -1), ("channel", 1)])
def test_softmax_activation_modes(mode, axis):
    x = _rand((2, 3, 4))
    y = nd.SoftmaxActivation(nd.array(x, dtype="float64"), mode=mode)
    assert_almost_equal(y.asnumpy(), _np_softmax(x, axis), rtol=1e-12, atol=1e-12)
    check_numeric_gradient(lambda a: nd.SoftmaxActivation(a, mode=mode), [x], rtol=1e-5,
                           atol=1e-7)


def test_softmax_activation_channel_needs_3_dims():
    with pytest.raises(MXNetError, match="channel.*at least 3"):
        nd.SoftmaxActivation(nd.ones((2, 3)), mode="channel")


# ---------------------------------------------------------------------------- SoftmaxOutput
def _one_hot(label, n):
    return np.eye(n)[label.astype(int)]


def test_softmax_output_gradient_is_the_loss_gradient_whatever_the_head():
    x = np.array([[1.0, 2, 3, 4], [2, 2, 2, 2], [3, 1, 3, 0.5]])
    label = np.array([1.0, 0, 2])
    y = nd.SoftmaxOutput(nd.array(x), nd.array(label)).asnumpy()
    assert_almost_equal(y, _np_softmax(x), rtol=1e-6, atol=1e-7)
    g, = _grad(lambda a, l: nd.SoftmaxOutput(a, l), [nd.array(x), nd.array(label)],
               nd.ones((3, 4)) * 3)
    assert_almost_equal(g, _np_softmax(x) - _one_hot(label, 4), rtol=1e-5, atol=1e-6)
    assert nd.Softmax(nd.array(x), nd.array(label)).shape == (3, 4)  # the old alias


def test_softmax_output_out_grad_multiplies_by_the_head_gradient():
    # MXNet 1.9.1 multiplies by the softmax output instead of the head gradient here.
    x, label = _rand((3, 4)), np.array([1.0, 0, 3])
    head = _rand((3, 4), seed=6)
    g, = _grad(lambda a, l: nd.SoftmaxOutput(a, l, out_grad=True, grad_scale=0.5),
               [nd.array(x, dtype="float64"), nd.array(label, dtype="float64")],
               nd.array(head, dtype="float64"))
    assert_almost_equal(g, 0.5 * head * (_np_softmax(x) - _one_hot(label, 4)), rtol=1e-10,
                        atol=1e-12)


@pytest.mark.parametrize("normalization", ["null", "batch", "valid"])
@pytest.mark.parametrize("use_ignore", [False, True])
def test_softmax_output_normalization_and_ignore(normalization, use_ignore):
    x = _rand((6, 5))
    label = np.array([0.0, 1, 2, 2, 4, 2])
    kw = dict(normalization=normalization, grad_scale=1.5)
    if use_ignore:
        kw.update(use_ignore=True, ignore_label=2)
    g, = _grad(lambda a, l: nd.SoftmaxOutput(a, l, **kw),
               [nd.array(x, dtype="float64"), nd.array(label, dtype="float64")],
               nd.ones((6, 5), dtype="float64"))
    expected = _np_softmax(x) - _one_hot(label, 5)
    if use_ignore:
        expected[label == 2] = 0
    # 'valid' counts labels other than ignore_label (default -1) even without use_ignore.
    ignore = 2 if use_ignore else -1
    divisor = {"null": 1, "batch": 6, "valid": (label != ignore).sum()}[normalization]
    assert_almost_equal(g, expected * 1.5 / divisor, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("normalization", ["null", "batch", "valid"])
def test_softmax_output_multi_output(normalization):
    x = _rand((2, 3, 2, 2))
    label = np.array([[[0.0, 1], [2, 1]], [[2, 2], [1, 0]]])
    kw = dict(multi_output=True, normalization=normalization, use_ignore=True, ignore_label=1)
    y = nd.SoftmaxOutput(nd.array(x, dtype="float64"), nd.array(label, dtype="float64"), **kw)
    assert_almost_equal(y.asnumpy(), _np_softmax(x, 1), rtol=1e-12, atol=1e-12)
    g, = _grad(lambda a, l: nd.SoftmaxOutput(a, l, **kw),
               [nd.array(x, dtype="float64"), nd.array(label, dtype="float64")],
               nd.ones(x.shape, dtype="float64"))
    expected = _np_softmax(x, 1) - _one_hot(label, 3).transpose(0, 3, 1, 2)
    expected *= (label != 1)[:, None]
    # As MXNet: null and batch also divide by the number of positions (here 4).
    divisor = {"null": 4, "batch": 2 * 4, "valid": (label != 1).sum()}[normalization]
    assert_almost_equal(g, expected / divisor, rtol=1e-10, atol=1e-12)
    # The label may also come as (n, positions) or with a kept axis 1.
    for shape in [(2, 4), (2, 1, 2, 2)]:
        assert nd.SoftmaxOutput(nd.array(x), nd.array(label.reshape(shape)), **kw).shape == x.shape


def test_softmax_output_smoothing_preserve_shape_and_probability_labels():
    x = _rand((2, 3, 4))
    label = np.array([[0.0, 3, 1], [2, 2, 0]])
    g, = _grad(lambda a, l: nd.SoftmaxOutput(a, l, preserve_shape=True, smooth_alpha=0.3),
               [nd.array(x, dtype="float64"), nd.array(label, dtype="float64")],
               nd.ones(x.shape, dtype="float64"))
    alpha = float(np.float32(0.3))  # a float32 argument
    target = _one_hot(label, 4) * (1 - alpha) + (1 - _one_hot(label, 4)) * alpha / 3
    assert_almost_equal(g, _np_softmax(x) - target, rtol=1e-10, atol=1e-12)
    prob = _np_softmax(_rand((2, 3, 4), seed=7))
    g, = _grad(lambda a, l: nd.SoftmaxOutput(a, l, grad_scale=2.0),
               [nd.array(x, dtype="float64"), nd.array(prob, dtype="float64")],
               nd.ones(x.shape, dtype="float64"))
    # Default (not preserve_shape): softmax over everything after axis 0.
    flat = _np_softmax(x.reshape(2, 12)).reshape(2, 3, 4)
    assert_almost_equal(g, 2.0 * (flat - prob), rtol=1e-10, atol=1e-12)


def test_softmax_output_bad_label_shape_raises():
    with pytest.raises(MXNetError, match="label"):
        nd.SoftmaxOutput(nd.ones((2, 3)), nd.ones((3,)))
    with pytest.raises(MXNetError, match="label"):
        nd.SoftmaxOutput(nd.ones((2, 3, 4)), nd.ones((3, 4)), multi_output=True)
    with pytest.raises(MXNetError, match="smooth_alpha"):
        nd.SoftmaxOutput(nd.ones((2, 3)), nd.ones((2,)), smooth_alpha=1.5)


# ------------------------------------------------------------------ regression and SVM outputs
REGRESSIONS = {
    "LinearRegressionOutput": (lambda x: x, lambda y, l: y - l),
    "LogisticRegressionOutput": (lambda x: 1 / (1 + np.exp(-x)), lambda y, l: y - l),
    "MAERegressionOutput": (lambda x: x, lambda y, l: np.where(y > l, 1.0, -1.0)),
}


@pytest.mark.parametrize("op", sorted(REGRESSIONS))
def test_regression_outputs(op):
    fwd, grad = REGRESSIONS[op]
    x, label = _rand((4, 5)), _rand((4, 5), -1, 1, seed=8)
    y = getattr(nd, op)(nd.array(x, dtype="float64"), nd.array(label, dtype="float64"),
                        grad_scale=3.0)
    assert_almost_equal(y.asnumpy(), fwd(x), rtol=1e-12, atol=1e-12)
    g, = _grad(lambda a, l: getattr(nd, op)(a, l, grad_scale=3.0),
               [nd.array(x, dtype="float64"), nd.array(label, dtype="float64")],
               nd.ones((4, 5), dtype="float64") * 7)  # the head gradient is not used
    assert_almost_equal(g, grad(fwd(x), label) * 3.0 / 5, rtol=1e-10, atol=1e-12)
    # A (n, 1) output takes a 1-D label.
    assert getattr(nd, op)(nd.ones((4, 1)), nd.ones((4,))).shape == (4, 1)
    with pytest.raises(MXNetError, match="label"):
        getattr(nd, op)(nd.ones((4, 5)), nd.ones((5, 4)))


@pytest.mark.parametrize("use_linear", [False, True])
def test_svm_output_hinge_gradients(use_linear):
    x = _rand((4, 5), -1.5, 1.5)
    label = np.array([1.0, 0, 4, 2])
    margin, reg = 0.5, 2.0
    kw = dict(margin=margin, regularization_coefficient=reg, use_linear=use_linear)
    y = nd.SVMOutput(nd.array(x, dtype="float64"), nd.array(label, dtype="float64"), **kw)
    assert_almost_equal(y.asnumpy(), x, rtol=0, atol=0)
    g, = _grad(lambda a, l: nd.SVMOutput(a, l, **kw),
               [nd.array(x, dtype="float64"), nd.array(label, dtype="float64")],
               nd.ones((4, 5), dtype="float64"))
    hot = _one_hot(label, 5).astype(bool)
    if use_linear:
        expected = np.where(hot, -(margin > x).astype(float) * reg, (margin > -x) * reg)
    else:
        expected = np.where(hot, np.where(margin > x, -2 * (margin - x) * reg, 0),
                            np.where(margin > -x, 2 * (margin + x) * reg, 0))
    assert_almost_equal(g, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("scalar", [1.0, 2.0, 0.5])
def test_smooth_l1(scalar):
    x = _rand((4, 5))
    s2 = scalar * scalar
    y = nd.smooth_l1(nd.array(x, dtype="float64"), scalar=scalar)
    expected = np.where(np.abs(x) < 1 / s2, 0.5 * s2 * x * x, np.abs(x) - 0.5 / s2)
    assert_almost_equal(y.asnumpy(), expected, rtol=1e-12, atol=1e-12)
    x[np.abs(np.abs(x) - 1 / s2) < 1e-2] = 0.0  # away from the kinks
    check_numeric_gradient(lambda a: nd.smooth_l1(a, scalar=scalar), [x], rtol=1e-5, atol=1e-7)
    # MXNet's own example; integers compute in double and truncate back, as in MXNet.
    assert_almost_equal(nd.smooth_l1(nd.array([1, 2, 3, 4])).asnumpy(),
                        np.array([0.5, 1.5, 2.5, 3.5]), rtol=1e-7, atol=0)
    ints = nd.smooth_l1(nd.array([1, 2, -3], dtype="int32"), scalar=1.0)
    assert ints.dtype == np.int32 and ints.asnumpy().tolist() == [0, 1, 2]


def test_softmax_cross_entropy():
    x = np.array([[1.0, 2, 3], [11, 7, 5]])
    label = np.array([2.0, 0])
    y = nd.softmax_cross_entropy(nd.array(x, dtype="float64"), nd.array(label, dtype="float64"))
    assert y.shape == (1,)
    expected = -np.log(_np_softmax(x)[[0, 1], [2, 0]]).sum()
    assert_almost_equal(y.asnumpy(), np.array([expected]), rtol=1e-12, atol=1e-12)
    g, = _grad(lambda a, l: nd.softmax_cross_entropy(a, l),
               [nd.array(x, dtype="float64"), nd.array(label, dtype="float64")],
               nd.array([2.0], dtype="float64"))
    assert_almost_equal(g, 2.0 * (_np_softmax(x) - _one_hot(label, 3)), rtol=1e-10, atol=1e-12)
    with pytest.raises(MXNetError, match="2-D"):
        nd.softmax_cross_entropy(nd.ones((2, 3, 1)), nd.ones((2,)))


# ------------------------------------------------------------------ dtypes and accumulation
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_output_and_regression_dtypes(dtype):
    x, label = _rand((3, 4), dtype=dtype), np.array([1.0, 0, 3]).astype(dtype)
    rtol, atol = (1e-2, 1e-3) if dtype == np.float16 else (1e-5, 1e-6)
    g, = _grad(lambda a, l: nd.SoftmaxOutput(a, l),
               [nd.array(x, dtype=dtype), nd.array(label, dtype=dtype)],
               nd.ones((3, 4), dtype=dtype))
    x64 = x.astype(np.float64)
    assert_almost_equal(g, _np_softmax(x64) - _one_hot(label, 4), rtol=rtol, atol=atol)
    g, = _grad(lambda a, l: nd.LogisticRegressionOutput(a, l),
               [nd.array(x, dtype=dtype), nd.array(x * 0, dtype=dtype)],
               nd.ones((3, 4), dtype=dtype))
    assert_almost_equal(g, 1 / (1 + np.exp(-x64)) / 4, rtol=rtol, atol=atol)


@pytest.mark.parametrize("fn", [
    lambda a: nd.softmax(a, axis=0),
    lambda a: nd.log_softmax(a),
    lambda a: nd.LeakyReLU(a, act_type="elu"),
    lambda a: nd.Activation(a, act_type="tanh"),
])
def test_gradients_accumulate_with_grad_req_add(fn):
    x = nd.array(_rand((3, 4)), dtype="float64")
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            y = fn(x)
        y.backward(nd.array(_rand((3, 4), seed=9), dtype="float64"))
    once = nd.array(_rand((3, 4)), dtype="float64")
    once.attach_grad()
    with mx.autograd.record():
        y = fn(once)
    y.backward(nd.array(_rand((3, 4), seed=9), dtype="float64"))
    assert_almost_equal(x.grad.asnumpy(), 2 * once.grad.asnumpy(), rtol=1e-12, atol=1e-12)
