# Elementwise operators: unary math (exp, log, sin, ...), array-with-scalar ops (_plus_scalar,
# ...), add_n, clip, where and Cast -- forward against numpy, gradients against derivatives.
import math

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import assert_almost_equal, check_numeric_gradient

nd = mx.nd
_int = mx.nd._internal

SHAPES = [(5,), (2, 3, 4), (1, 1)]
FLOAT_TOL = {np.float16: (2e-2, 2e-2), np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-12)}

_erf = np.vectorize(math.erf)
_gamma = np.vectorize(math.gamma)
_lgamma = np.vectorize(math.lgamma)


def _digamma(x):
    h = 1e-6
    return (_lgamma(x + h) - _lgamma(x - h)) / (2 * h)


def _erfinv(y):
    # Newton iterations on erf from a rough start; accurate to double precision here.
    x = np.zeros_like(y, dtype=np.float64)
    for _ in range(60):
        x = x - (_erf(x) - y) / (2 / np.sqrt(np.pi) * np.exp(-x * x))
    return x


# name: (numpy forward, (low, high) of test inputs, derivative d(out)/d(x) from (x, out) or None)
UNARY = {
    "abs": (np.abs, (-2, 2), lambda x, y: np.sign(x)),
    "negative": (np.negative, (-2, 2), lambda x, y: -np.ones_like(x)),
    "reciprocal": (np.reciprocal, (0.5, 2), lambda x, y: -1 / x ** 2),
    "square": (np.square, (-2, 2), lambda x, y: 2 * x),
    "sqrt": (np.sqrt, (0.1, 4), lambda x, y: 0.5 / np.sqrt(x)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 4), lambda x, y: -0.5 * x ** -1.5),
    "cbrt": (np.cbrt, (0.1, 4), lambda x, y: 1 / (3 * np.cbrt(x) ** 2)),
    "rcbrt": (lambda x: 1 / np.cbrt(x), (0.1, 4), lambda x, y: -x ** (-4.0 / 3) / 3),
    "exp": (np.exp, (-5, 5), lambda x, y: np.exp(x)),
    "expm1": (np.expm1, (-1, 1), lambda x, y: np.exp(x)),
    "log": (np.log, (0.1, 5), lambda x, y: 1 / x),
    "log1p": (np.log1p, (-0.5, 3), lambda x, y: 1 / (1 + x)),
    "log2": (np.log2, (0.1, 5), lambda x, y: 1 / (x * np.log(2))),
    "log10": (np.log10, (0.1, 5), lambda x, y: 1 / (x * np.log(10))),
    "sin": (np.sin, (-3, 3), lambda x, y: np.cos(x)),
    "cos": (np.cos, (-3, 3), lambda x, y: -np.sin(x)),
    "tan": (np.tan, (-1.2, 1.2), lambda x, y: 1 + np.tan(x) ** 2),
    "arcsin": (np.arcsin, (-0.9, 0.9), lambda x, y: 1 / np.sqrt(1 - x ** 2)),
    "arccos": (np.arccos, (-0.9, 0.9), lambda x, y: -1 / np.sqrt(1 - x ** 2)),
    "arctan": (np.arctan, (-3, 3), lambda x, y: 1 / (1 + x ** 2)),
    "sinh": (np.sinh, (-2, 2), lambda x, y: np.cosh(x)),
    "cosh": (np.cosh, (-2, 2), lambda x, y: np.sinh(x)),
    "tanh": (np.tanh, (-2, 2), lambda x, y: 1 - np.tanh(x) ** 2),
    "arcsinh": (np.arcsinh, (-3, 3), lambda x, y: 1 / np.sqrt(x ** 2 + 1)),
    "arccosh": (np.arccosh, (1.1, 4), lambda x, y: 1 / np.sqrt(x ** 2 - 1)),
    "arctanh": (np.arctanh, (-0.9, 0.9), lambda x, y: 1 / (1 - x ** 2)),
    "degrees": (np.degrees, (-3, 3), lambda x, y: np.full_like(x, 180 / np.pi)),
    "radians": (np.radians, (-200, 200), lambda x, y: np.full_like(x, np.pi / 180)),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-5, 5),
                lambda x, y: np.exp(-x) / (1 + np.exp(-x)) ** 2),
    "relu": (lambda x: np.maximum(x, 0), (-2, 2), lambda x, y: (x > 0).astype(x.dtype)),
    "softsign": (lambda x: x / (1 + np.abs(x)), (-3, 3), lambda x, y: 1 / (1 + np.abs(x)) ** 2),
    "erf": (_erf, (-2, 2), lambda x, y: 2 / np.sqrt(np.pi) * np.exp(-x ** 2)),
    "erfinv": (_erfinv, (-0.9, 0.9), lambda x, y: np.sqrt(np.pi) / 2 * np.exp(_erfinv(x) ** 2)),
    "gamma": (_gamma, (0.5, 4), lambda x, y: _gamma(x) * _digamma(x)),
    "gammaln": (_lgamma, (0.5, 4), lambda x, y: _digamma(x)),
    "floor": (np.floor, (-3, 3), None),
    "ceil": (np.ceil, (-3, 3), None),
    "round": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-3, 3), None),
    "rint": (np.rint, (-3, 3), None),
    "fix": (np.fix, (-3, 3), None),
    "trunc": (np.trunc, (-3, 3), None),
    "sign": (np.sign, (-2, 2), None),
    "logical_not": (lambda x: (x == 0).astype(x.dtype), (-2, 2), None),
}
DIFFERENTIABLE = sorted(k for k, v in UNARY.items() if v[2] is not None)
NON_DIFFERENTIABLE = sorted(k for k, v in UNARY.items() if v[2] is None)


def _uniform(shape, low, high, dtype, seed=0):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


# ---------------------------------------------------------------- unary forward
@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_unary_forward_matches_numpy(name, dtype):
    fn, (low, high), _ = UNARY[name]
    rtol, atol = FLOAT_TOL[dtype]
    for shape in SHAPES:
        x = _uniform(shape, low, high, dtype)
        out = getattr(nd, name)(nd.array(x, dtype=dtype))
        assert out.dtype == dtype
        assert out.shape == shape
        ref = fn(x.astype(np.float64))
        assert_almost_equal(out.asnumpy().astype(np.float64), ref, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
@pytest.mark.parametrize("name", ["abs", "square", "sqrt", "exp", "log", "sign", "floor", "relu",
                                  "logical_not", "sin", "reciprocal"])
def test_unary_on_integers_keeps_dtype_and_truncates(name, dtype):
    fn = UNARY[name][0]
    x = np.array([0, 1, 2, 3, 4], dtype=dtype) if name != "log" and name != "reciprocal" \
        else np.array([1, 2, 3, 4], dtype=dtype)
    out = getattr(nd, name)(nd.array(x, dtype=dtype))
    assert out.dtype == dtype
    with np.errstate(all="ignore"):
        ref = fn(x.astype(np.float64))
    np.testing.assert_array_equal(out.asnumpy(), np.trunc(ref).astype(dtype))


def test_rounding_ops_treat_halves_as_mxnet():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], dtype=np.float32)
    a = nd.array(x)
    np.testing.assert_array_equal(nd.round(a).asnumpy(), [-3, -2, -1, 1, 2, 3])
    np.testing.assert_array_equal(nd.rint(a).asnumpy(), np.rint(x))
    np.testing.assert_array_equal(nd.fix(a).asnumpy(), [-2, -1, 0, 0, 1, 2])
    np.testing.assert_array_equal(nd.floor(a).asnumpy(), np.floor(x))
    np.testing.assert_array_equal(nd.ceil(a).asnumpy(), np.ceil(x))


def test_exp_float32_is_accurate_over_the_whole_range():
    x = np.linspace(-103, 88.5, 400001, dtype=np.float32)
    out = nd.exp(nd.array(x)).asnumpy()
    ref = np.exp(x.astype(np.float64))
    # within about one float32 ulp, subnormal results included
    assert np.all(np.abs(out - ref) <= 2.5e-7 * ref + 1.5e-45)
    edge = np.array([89, 100, np.inf, -105, -200, -np.inf, 0, -0.0, np.nan], dtype=np.float32)
    out = nd.exp(nd.array(edge)).asnumpy()
    np.testing.assert_array_equal(out[:8], [np.inf] * 3 + [0] * 3 + [1, 1])
    assert np.isnan(out[8])


def test_tanh_float32_is_accurate_and_odd():
    x = np.concatenate([np.linspace(-20, 20, 400001),
                        [1e-30, 1e-8, 0.6249999, 0.625, 0.6250001, 9.0, 90.0, 1e30]])
    x = np.concatenate([x, -x]).astype(np.float32)
    out = nd.tanh(nd.array(x)).asnumpy()
    ref = np.tanh(x.astype(np.float64))
    # within two float32 ulp of the exact value everywhere, both branches of the kernel
    assert np.all(np.abs(out - ref) <= 2 * np.spacing(np.abs(ref).astype(np.float32)))
    np.testing.assert_array_equal(out[:len(x) // 2], -out[len(x) // 2:])
    edge = nd.tanh(nd.array([np.inf, -np.inf, -0.0, np.nan], dtype=np.float32)).asnumpy()
    np.testing.assert_array_equal(edge[:3], [1, -1, 0])
    assert np.signbit(edge[2]) and np.isnan(edge[3])


def test_sigmoid_float32_saturates_without_nan():
    x = nd.array([-1000, -90, 0, 90, 1000], dtype=np.float32)
    np.testing.assert_allclose(nd.sigmoid(x).asnumpy(), [0, 0, 0.5, 1, 1], atol=1e-30)


def test_relu_keeps_nan_and_sign_maps_nan_to_zero():
    x = nd.array([np.nan, -1, 2], dtype=np.float32)
    out = nd.relu(x).asnumpy()
    assert np.isnan(out[0]) and out[1] == 0 and out[2] == 2
    np.testing.assert_array_equal(nd.sign(x).asnumpy(), [0, -1, 1])


def test_erfinv_inverts_erf_and_hits_infinity_at_one():
    y = np.array([-0.999999, -0.5, 0, 0.25, 0.9999], dtype=np.float64)
    x = nd.erfinv(nd.array(y, dtype=np.float64)).asnumpy()
    assert_almost_equal(_erf(x), y, rtol=1e-12, atol=1e-14)
    edge = nd.erfinv(nd.array([1, -1, 2], dtype=np.float64)).asnumpy()
    assert edge[0] == np.inf and edge[1] == -np.inf and np.isnan(edge[2])


def test_math_ops_refuse_bool_arrays():
    b = nd.array([1, 0], dtype=np.bool_)
    with pytest.raises(mx.base.MXNetError, match="exp"):
        nd.exp(b).asnumpy()


def test_subtract_refuses_bool_arrays_like_mxnet_191():
    b = nd.array([1, 0], dtype=np.bool_)
    for f in (lambda: b - b, lambda: nd.elemwise_sub(b, b),
              lambda: nd.broadcast_sub(b, nd.array([[1], [0]], dtype=np.bool_))):
        with pytest.raises(mx.base.MXNetError, match="sub.* does not support boolean"):
            f()
    # Only subtraction is refused; addition keeps working on bool.
    np.testing.assert_array_equal((b + b).asnumpy(), [True, False])


def test_negative_and_abs_on_signed_integers():
    x = nd.array([-3, 0, 5], dtype=np.int32)
    np.testing.assert_array_equal(nd.negative(x).asnumpy(), [3, 0, -5])
    np.testing.assert_array_equal(nd.abs(x).asnumpy(), [3, 0, 5])
    np.testing.assert_array_equal(nd.sqrt(nd.array([16, 17], dtype=np.int64)).asnumpy(), [4, 4])


def test_identity_ops_accept_bool_and_alias_names():
    b = nd.array([1, 0, 1], dtype=np.bool_)
    for f in (nd.identity, _int._copy, nd.BlockGrad, nd.stop_gradient, nd.make_loss):
        out = f(b)
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out.asnumpy(), [True, False, True])
    np.testing.assert_array_equal(nd.logical_not(b).asnumpy(), [False, True, False])


def test_unary_with_out_argument_writes_in_place():
    x = nd.array([0.0, 1.0, 2.0])
    nd.exp(x, out=x)
    assert_almost_equal(x.asnumpy(), np.exp([0.0, 1.0, 2.0]), rtol=1e-6)


# ---------------------------------------------------------------- unary gradients
def _grad(f, x, head):
    x.attach_grad()
    with mx.autograd.record():
        y = f(x)
    y.backward(head)
    return y, x.grad


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_unary_gradient_matches_derivative(name):
    fn, (low, high), deriv = UNARY[name]
    x = _uniform((3, 4), low, high, np.float64, seed=1)
    head = _uniform((3, 4), -1, 1, np.float64, seed=2)
    y, g = _grad(getattr(nd, name), nd.array(x, dtype=np.float64), nd.array(head, dtype=np.float64))
    assert g.dtype == np.float64
    assert_almost_equal(g.asnumpy(), head * deriv(x, y.asnumpy()), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", NON_DIFFERENTIABLE + ["BlockGrad", "stop_gradient"])
def test_rounding_comparison_and_blockgrad_have_zero_gradient(name):
    x = nd.array(_uniform((6,), 0.1, 3, np.float32))
    _, g = _grad(getattr(nd, name), x, nd.ones((6,)))
    np.testing.assert_array_equal(g.asnumpy(), np.zeros(6))


def test_make_loss_gradient_is_ones_whatever_the_head():
    x = nd.array([1.0, -2.0, 3.0])
    _, g = _grad(nd.make_loss, x, nd.array([5.0, 5.0, 5.0]))
    np.testing.assert_array_equal(g.asnumpy(), [1, 1, 1])


def test_identity_gradient_passes_head_through():
    x = nd.array([1.0, -2.0, 3.0])
    _, g = _grad(nd.identity, x, nd.array([4.0, 5.0, 6.0]))
    np.testing.assert_array_equal(g.asnumpy(), [4, 5, 6])


@pytest.mark.parametrize("name", ["sin", "exp", "log", "tanh", "sigmoid", "sqrt", "erf"])
def test_unary_gradient_against_finite_differences(name):
    low, high = UNARY[name][1]
    x = _uniform((2, 3), low, high, np.float64, seed=3)
    check_numeric_gradient(getattr(nd, name), [x], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name,second", [
    ("sin", lambda x: -np.sin(x)),
    ("exp", np.exp),
    ("log", lambda x: -1 / x ** 2),
    ("tanh", lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    ("square", lambda x: 2 * np.ones_like(x)),
    ("gammaln", None),
])
def test_unary_second_derivative_through_autograd(name, second):
    x_np = _uniform((5,), 0.5, 2.0, np.float64, seed=4)
    x = nd.array(x_np, dtype=np.float64)
    x.attach_grad()
    with mx.autograd.record():
        y = getattr(nd, name)(x)
        dy = mx.autograd.grad(y, [x], create_graph=True)[0]
    dy.backward()
    if second is None:  # d2 lgamma = trigamma, checked by finite differences of digamma
        h = 1e-4
        expected = (_digamma(x_np + h) - _digamma(x_np - h)) / (2 * h)
        assert_almost_equal(x.grad.asnumpy(), expected, rtol=1e-4, atol=1e-6)
    else:
        assert_almost_equal(x.grad.asnumpy(), second(x_np), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- scalar ops
# name: (alias, numpy forward f(x, s), derivative f'(x) from (x, s) or None)
SCALAR = {
    "_plus_scalar": ("_PlusScalar", lambda x, s: x + s, lambda x, s: np.ones_like(x)),
    "_minus_scalar": ("_MinusScalar", lambda x, s: x - s, lambda x, s: np.ones_like(x)),
    "_rminus_scalar": ("_RMinusScalar", lambda x, s: s - x, lambda x, s: -np.ones_like(x)),
    "_mul_scalar": ("_MulScalar", lambda x, s: x * s, lambda x, s: np.full_like(x, s)),
    "_div_scalar": ("_DivScalar", lambda x, s: x / s, lambda x, s: np.full_like(x, 1 / s)),
    "_rdiv_scalar": ("_RDivScalar", lambda x, s: s / x, lambda x, s: -s / x ** 2),
    "_mod_scalar": ("_ModScalar", np.mod, lambda x, s: np.ones_like(x)),
    "_rmod_scalar": ("_RModScalar", lambda x, s: np.mod(s, x), lambda x, s: -np.floor(s / x)),
    "_power_scalar": ("_PowerScalar", np.power, lambda x, s: s * x ** (s - 1)),
    "_rpower_scalar": ("_RPowerScalar", lambda x, s: np.power(s, x),
                       lambda x, s: np.power(s, x) * np.log(s)),
    "_maximum_scalar": ("_MaximumScalar", np.maximum, lambda x, s: (x >= s).astype(x.dtype)),
    "_minimum_scalar": ("_MinimumScalar", np.minimum, lambda x, s: (x <= s).astype(x.dtype)),
    "_hypot_scalar": ("_HypotScalar", np.hypot, lambda x, s: x / np.hypot(x, s)),
    "_equal_scalar": ("_EqualScalar", lambda x, s: x == s, None),
    "_not_equal_scalar": ("_NotEqualScalar", lambda x, s: x != s, None),
    "_greater_scalar": ("_GreaterScalar", lambda x, s: x > s, None),
    "_greater_equal_scalar": ("_GreaterEqualScalar", lambda x, s: x >= s, None),
    "_lesser_scalar": ("_LesserScalar", lambda x, s: x < s, None),
    "_lesser_equal_scalar": ("_LesserEqualScalar", lambda x, s: x <= s, None),
    "_logical_and_scalar": ("_LogicalAndScalar", lambda x, s: np.logical_and(x, s), None),
    "_logical_or_scalar": ("_LogicalOrScalar", lambda x, s: np.logical_or(x, s), None),
    "_logical_xor_scalar": ("_LogicalXorScalar", lambda x, s: np.logical_xor(x, s), None),
}


@pytest.mark.parametrize("name", sorted(SCALAR))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scalar_op_forward_matches_numpy(name, dtype):
    _, fn, _ = SCALAR[name]
    x = np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]], dtype=dtype)
    for s in (1.5, 2.0, 0.0 if "mod" not in name and "div" not in name and "rpower" not in name
              else 3.0):
        out = getattr(_int, name)(nd.array(x, dtype=dtype), scalar=s)
        assert out.dtype == dtype
        with np.errstate(all="ignore"):
            ref = np.asarray(fn(x.astype(np.float64), s), dtype=np.float64)
        assert_almost_equal(out.asnumpy().astype(np.float64), ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_scalar_op_alias_gives_same_result(name):
    alias = SCALAR[name][0]
    x = nd.array([[0.5, 1.0, 4.0]])
    a = getattr(_int, name)(x, scalar=2.0).asnumpy()
    b = getattr(_int, alias)(x, scalar=2.0).asnumpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(k for k, v in SCALAR.items() if v[2] is not None))
def test_scalar_op_gradient_matches_derivative(name):
    _, _, deriv = SCALAR[name]
    s = 1.7
    x = np.array([0.4, 0.9, 1.3, 2.2, 3.1], dtype=np.float64)
    head = np.array([0.3, -1.0, 2.0, 0.5, -0.7])
    _, g = _grad(lambda a: getattr(_int, name)(a, scalar=s), nd.array(x, dtype=np.float64),
                 nd.array(head, dtype=np.float64))
    assert_almost_equal(g.asnumpy(), head * deriv(x, s), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_scalar_op_on_integers_keeps_dtype_when_is_int(dtype):
    x = np.array([1, 2, 3, 10], dtype=dtype)
    a = nd.array(x, dtype=dtype)
    out = _int._plus_scalar(a, scalar=2)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), x + 2)
    # a fractional scalar is truncated to the integer dtype, as MXNet 1.9 does
    np.testing.assert_array_equal(_int._mul_scalar(a, scalar=2.9).asnumpy(), x * 2)
    np.testing.assert_array_equal(_int._div_scalar(a, scalar=2).asnumpy(), x // 2)
    np.testing.assert_array_equal(_int._greater_scalar(a, scalar=2).asnumpy(),
                                  (x > 2).astype(dtype))


def test_scalar_op_integer_input_with_float_scalar_gives_float64():
    a = nd.array([1, 2, 3], dtype=np.int32)
    out = _int._plus_scalar(a, scalar=0.5, is_int=False)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.asnumpy(), [1.5, 2.5, 3.5])
    out = _int._rdiv_scalar(a, scalar=1.0, is_int=False)
    assert_almost_equal(out.asnumpy(), [1.0, 0.5, 1.0 / 3])


def test_scalar_op_bool_input_promotes_to_int64_or_float64():
    b = nd.array([True, False, True], dtype=np.bool_)
    out = _int._mul_scalar(b, scalar=3)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.asnumpy(), [3, 0, 3])
    out = _int._plus_scalar(b, scalar=0.5, is_int=False)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.asnumpy(), [1.5, 0.5, 1.5])


def test_scalar_integer_division_and_modulo_by_zero_give_zero():
    a = nd.array([5, -7, 0], dtype=np.int32)
    np.testing.assert_array_equal(_int._div_scalar(a, scalar=0).asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(_int._mod_scalar(a, scalar=0).asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(_int._mod_scalar(a, scalar=3).asnumpy(), np.mod([5, -7, 0], 3))


def test_scalar_float16_computes_in_float():
    x = np.array([1.0, 2.0, 3.0], dtype=np.float16)
    out = _int._mul_scalar(nd.array(x, dtype=np.float16), scalar=0.1)
    assert out.dtype == np.float16
    assert_almost_equal(out.asnumpy().astype(np.float32), (x * np.float16(0.1)).astype(np.float32),
                        rtol=1e-3, atol=1e-3)


def test_scalar_op_rejects_bad_scalar_text():
    with pytest.raises(mx.base.MXNetError, match="scalar"):
        _int._plus_scalar(nd.ones((2,)), scalar="two")


# ---------------------------------------------------------------- add_n
@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.uint8])
def test_add_n_sums_all_inputs(n, dtype):
    arrays = [np.random.RandomState(i).randint(0, 10, size=(3, 4)).astype(dtype) for i in range(n)]
    out = nd.add_n(*[nd.array(a, dtype=dtype) for a in arrays])
    assert out.dtype == dtype
    ref = sum(a.astype(np.float64) for a in arrays).astype(dtype)
    np.testing.assert_array_equal(out.asnumpy(), ref)
    alias = nd.ElementWiseSum(*[nd.array(a, dtype=dtype) for a in arrays])
    np.testing.assert_array_equal(alias.asnumpy(), out.asnumpy())


def test_add_n_large_array_and_gradient_reaches_every_input():
    a = nd.array(np.arange(100000, dtype=np.float32))
    b = nd.ones((100000,))
    np.testing.assert_array_equal(nd.add_n(a, b, a).asnumpy(), 2 * np.arange(100000) + 1)
    xs = [nd.array([1.0, 2.0]), nd.array([3.0, 4.0]), nd.array([5.0, 6.0])]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = nd.add_n(*xs)
    y.backward(nd.array([0.5, -2.0]))
    for x in xs:
        np.testing.assert_array_equal(x.grad.asnumpy(), [0.5, -2.0])


def test_add_n_rejects_mismatched_shapes():
    with pytest.raises(mx.base.MXNetError, match="add_n"):
        nd.add_n(nd.ones((2, 3)), nd.ones((3, 2))).asnumpy()


# ---------------------------------------------------------------- clip
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int8])
def test_clip_limits_values(dtype):
    x = np.array([-5, -1, 0, 2, 3, 7], dtype=dtype)
    out = nd.clip(nd.array(x, dtype=dtype), a_min=-1, a_max=3)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.clip(x, -1, 3))


def test_clip_passes_nan_and_gradient_inside_bounds_inclusive():
    out = nd.clip(nd.array([np.nan, 0.5]), a_min=0, a_max=1).asnumpy()
    assert np.isnan(out[0]) and out[1] == 0.5
    x = nd.array([-2.0, 0.0, 0.5, 1.0, 3.0])
    _, g = _grad(lambda a: nd.clip(a, a_min=0.0, a_max=1.0), x, nd.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    np.testing.assert_array_equal(g.asnumpy(), [0, 2, 3, 4, 0])


def test_clip_requires_bounds():
    with pytest.raises(mx.base.MXNetError, match="a_max"):
        nd.clip(nd.ones((2,)), a_min=0).asnumpy()


# ---------------------------------------------------------------- where
@pytest.mark.parametrize("cond_dtype", [np.float32, np.int32, np.bool_, np.uint8])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16])
def test_where_picks_from_x_where_condition_is_nonzero(cond_dtype, dtype):
    rs = np.random.RandomState(5)
    cond = rs.randint(0, 2, size=(3, 4)).astype(cond_dtype)
    x = rs.randint(0, 50, size=(3, 4)).astype(dtype)
    y = rs.randint(50, 100, size=(3, 4)).astype(dtype)
    out = nd.where(nd.array(cond, dtype=cond_dtype), nd.array(x, dtype=dtype),
                   nd.array(y, dtype=dtype))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.where(cond != 0, x, y))


def test_where_vector_condition_selects_rows():
    cond = nd.array([1, 0, 1])
    x = nd.array(np.arange(12).reshape(3, 2, 2))
    y = nd.array(-np.arange(12).reshape(3, 2, 2))
    out = nd.where(cond, x, y).asnumpy()
    ref = np.where(np.array([1, 0, 1])[:, None, None] != 0, x.asnumpy(), y.asnumpy())
    np.testing.assert_array_equal(out, ref)


def test_where_gradient_goes_to_the_chosen_input():
    cond = nd.array([1, 0, 0, 1])
    x = nd.array([1.0, 2.0, 3.0, 4.0])
    y = nd.array([5.0, 6.0, 7.0, 8.0])
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        out = nd.where(cond, x, y)
    out.backward(nd.array([10.0, 20.0, 30.0, 40.0]))
    np.testing.assert_array_equal(x.grad.asnumpy(), [10, 0, 0, 40])
    np.testing.assert_array_equal(y.grad.asnumpy(), [0, 20, 30, 0])


def test_where_rejects_bad_condition_shape_and_mixed_dtypes():
    x = nd.ones((3, 2))
    with pytest.raises(mx.base.MXNetError, match="condition"):
        nd.where(nd.ones((2,)), x, x).asnumpy()
    with pytest.raises(mx.base.MXNetError, match="where"):
        nd.where(nd.ones((3, 2)), x, nd.ones((3, 2), dtype=np.float64)).asnumpy()


# ---------------------------------------------------------------- Cast
ALL_DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.int8, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_cast_converts_between_every_dtype_pair(src, dst):
    x = np.array([0, 1, 2, 5, 100], dtype=np.float64).astype(src)
    out = nd.Cast(nd.array(x, dtype=src), dtype=np.dtype(dst).name)
    assert out.dtype == dst
    np.testing.assert_array_equal(out.asnumpy(), x.astype(dst))


def test_cast_truncates_floats_and_alias_cast_works():
    x = nd.array([-1.7, -0.2, 0.0, 0.9, 2.5])
    np.testing.assert_array_equal(nd.cast(x, dtype="int32").asnumpy(), [-1, 0, 0, 0, 2])
    np.testing.assert_array_equal(nd.Cast(x, dtype="bool").asnumpy(),
                                  [True, True, False, True, True])


def test_cast_gradient_returns_in_input_dtype():
    x = nd.array([1.5, 2.5], dtype=np.float64)
    x.attach_grad()
    with mx.autograd.record():
        y = nd.Cast(x, dtype="float32")
    y.backward(nd.array([0.25, 3.0], dtype=np.float32))
    assert x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad.asnumpy(), [0.25, 3.0])


def test_cast_rejects_unknown_dtype():
    with pytest.raises(mx.base.MXNetError, match="float128"):
        nd.Cast(nd.ones((2,)), dtype="float128")


def test_errors_name_inputs_by_their_declared_arguments():
    # Ops declare their inputs once (add_argument "NDArray-or-Symbol"); messages read the names
    # from there when no FListInputNames is given.
    b = mx.nd.array([1, 0], dtype="bool")
    with pytest.raises(mx.MXNetError, match="Operator sin: argument data expected a numeric dtype"):
        mx.nd.sin(b)
    with pytest.raises(mx.MXNetError, match="argument rhs has shape"):
        mx.nd.elemwise_add(mx.nd.ones((2,)), mx.nd.ones((3,)))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_mod_gradients_are_zero_for_integer_dtypes(dtype):
    # As MXNet 1.9.1 defines mod's gradients: 1 and -floor(a / b) for floating point, 0 for
    # integers (an integer head gradient of 1 must not leak through).
    a = mx.nd.array([[7, 9, -5]], dtype=dtype)
    b = mx.nd.array([[2], [4]], dtype=dtype)
    for x in (a, b):
        x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.broadcast_mod(a, b) + (a % 3) + (11 % b)
    y.backward(mx.nd.ones(y.shape, dtype=dtype))
    if dtype.startswith("int"):
        assert not a.grad.asnumpy().any() and not b.grad.asnumpy().any()
    else:
        an, bn = a.asnumpy(), b.asnumpy()
        np.testing.assert_allclose(a.grad.asnumpy(), 2 * np.ones_like(an) + 2)
        np.testing.assert_allclose(b.grad.asnumpy(),
                                   -np.floor(an / bn).sum(axis=1, keepdims=True) * 1
                                   - 3 * np.floor(11 / bn))
