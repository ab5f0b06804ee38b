# Array-creating operators: _zeros, _ones, _full, _arange, _eye, _linspace, zeros_like and
# ones_like -- values, shapes, dtypes, ctx and argument errors as MXNet 1.9.
import numpy as np
import pytest

import mxnet as mx

nd = mx.nd
_int = mx.nd._internal

DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.int8, np.int32, np.int64]


@pytest.mark.parametrize("dtype", DTYPES + [np.bool_])
@pytest.mark.parametrize("shape", [(3,), (2, 3, 4), (0, 5), ()])
def test_zeros_and_ones_fill_shape_and_dtype(dtype, shape):
    # a 0 dim, and the shape (), are unknown outside numpy-shape semantics (MXNet 1.9.1)
    with mx.np_shape(0 in shape or shape == ()):
        z = nd.zeros(shape, dtype=dtype)
        o = nd.ones(shape, dtype=dtype)
    assert z.shape == shape and o.shape == shape
    assert z.dtype == dtype and o.dtype == dtype
    np.testing.assert_array_equal(z.asnumpy(), np.zeros(shape, dtype=dtype))
    np.testing.assert_array_equal(o.asnumpy(), np.ones(shape, dtype=dtype))


def test_zeros_takes_an_int_shape_and_large_sizes():
    np.testing.assert_array_equal(nd.zeros(4).asnumpy(), np.zeros(4))
    big = nd.ones((1 << 20,), dtype=np.int32)
    assert int(big.asnumpy().sum()) == 1 << 20


@pytest.mark.parametrize("make, shape", [
    (lambda: nd.ones((1 << 32, 1 << 32)), r"\(4294967296,4294967296\)"),
    (lambda: nd.zeros((1 << 62, 4)), r"\(4611686018427387904,4\)"),
    (lambda: nd.full((1 << 40, 1 << 40, 1 << 40), 1), r"\(1099511627776,"),
    (lambda: nd.empty((1 << 31, 1 << 31, 4)), r"\(2147483648,2147483648,4\)"),
    # numpy's product of these dims wraps to 0, the size of the array: only the C++ check sees it
    (lambda: nd.array(np.zeros((0,))).reshape((1 << 32, 1 << 32)), r"\(4294967296,4294967296\)"),
])
def test_shapes_whose_size_overflows_raise_naming_the_shape(make, shape):
    with pytest.raises(mx.base.MXNetError, match="shape " + shape + ".* too large"):
        make()


def test_internal_zeros_accepts_ctx_and_shape_texts():
    a = _int._zeros(shape="(2, 3)", ctx="cpu(0)", dtype="float64")
    assert a.shape == (2, 3) and a.dtype == np.float64 and a.context == mx.cpu(0)
    assert _int._ones(shape="[4]").shape == (4,)
    assert _int._ones(shape="(4,)").shape == (4,)
    assert _int._ones(shape="5").shape == (5,)
    assert nd.zeros((2,), ctx=mx.cpu(0)).context == mx.cpu(0)


@pytest.mark.parametrize("bad", ["(2,,3)", "abc", "(2.5,)", "(2,-3)"])
def test_zeros_rejects_bad_shapes(bad):
    with pytest.raises(mx.base.MXNetError, match="shape"):
        _int._zeros(shape=bad).asnumpy()


def test_zeros_rejects_unknown_dtype():
    with pytest.raises(mx.base.MXNetError, match="complex64"):
        _int._zeros(shape=(2,), dtype="complex64").asnumpy()


@pytest.mark.parametrize("dtype", DTYPES)
def test_full_fills_value_converted_to_dtype(dtype):
    out = nd.full((2, 3), 7.9, dtype=dtype)
    assert out.dtype == dtype and out.shape == (2, 3)
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 7.9).astype(dtype))


def test_full_special_values_and_bool():
    np.testing.assert_array_equal(nd.full((2,), float("inf")).asnumpy(), [np.inf, np.inf])
    assert np.all(np.isnan(nd.full((2,), float("nan")).asnumpy()))
    np.testing.assert_array_equal(_int._full(shape=(3,), value=2, dtype="bool").asnumpy(),
                                  [True] * 3)
    with pytest.raises(mx.base.MXNetError, match="value"):
        _int._full(shape=(2,)).asnumpy()


# ---------------------------------------------------------------- arange
@pytest.mark.parametrize("args", [
    dict(start=5), dict(start=2, stop=9), dict(start=1, stop=2, step=0.25),
    dict(start=10, stop=0, step=-3), dict(start=-1.5, stop=1.5, step=0.5),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arange_matches_numpy(args, dtype):
    out = nd.arange(dtype=dtype, **args)
    start, stop = (0, args["start"]) if "stop" not in args else (args["start"], args["stop"])
    ref = np.arange(start, stop, args.get("step", 1), dtype=np.float64).astype(dtype)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-6)


def test_arange_repeat_and_integer_dtype():
    out = nd.arange(0, 3, repeat=2)
    np.testing.assert_array_equal(out.asnumpy(), [0, 0, 1, 1, 2, 2])
    out = nd.arange(3, 12, step=3, dtype=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.asnumpy(), [3, 6, 9])
    out = nd.arange(0, 1e6, dtype=np.int64)
    assert out.shape == (1000000,) and int(out.asnumpy()[-1]) == 999999


def test_arange_rejects_empty_range_zero_step_and_bad_repeat():
    with pytest.raises(mx.base.MXNetError, match="range"):
        nd.arange(5, 2).asnumpy()
    with pytest.raises(mx.base.MXNetError, match="step"):
        nd.arange(0, 5, step=0).asnumpy()
    with pytest.raises(mx.base.MXNetError, match="repeat"):
        nd.arange(0, 5, repeat=0).asnumpy()


# ---------------------------------------------------------------- eye
@pytest.mark.parametrize("N,M,k", [(3, 0, 0), (3, 5, 1), (4, 2, -1), (3, 3, 5), (0, 0, 0),
                                   (2, 4, -3)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float16])
def test_eye_matches_numpy(N, M, k, dtype):
    out = nd.eye(N, M, k, dtype=dtype)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.eye(N, M if M > 0 else N, k, dtype=dtype))


def test_eye_rejects_negative_sizes():
    with pytest.raises(mx.base.MXNetError, match="N"):
        nd.eye(-1).asnumpy()


# ---------------------------------------------------------------- linspace
@pytest.mark.parametrize("num", [0, 1, 2, 7, 50])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_matches_numpy(num, endpoint):
    out = nd.linspace(-1.5, 3.0, num, endpoint=endpoint)
    assert out.shape == (num,) and out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), np.linspace(-1.5, 3.0, num, endpoint=endpoint),
                               rtol=1e-6, atol=1e-6)


def test_linspace_integer_dtype_truncates_and_rejects_negative_num():
    out = nd.linspace(0, 10, 4, dtype=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.asnumpy(), [0, 3, 6, 10])
    with pytest.raises(mx.base.MXNetError, match="num"):
        nd.linspace(0, 1, -2).asnumpy()


# ---------------------------------------------------------------- zeros_like / ones_like
@pytest.mark.parametrize("dtype", DTYPES + [np.bool_])
def test_zeros_like_and_ones_like_keep_shape_and_dtype(dtype):
    x = nd.array(np.arange(6).reshape(2, 3) % 2, dtype=dtype)
    z = nd.zeros_like(x)
    o = nd.ones_like(x)
    assert z.dtype == dtype and o.dtype == dtype and z.shape == (2, 3) and o.shape == (2, 3)
    np.testing.assert_array_equal(z.asnumpy(), np.zeros((2, 3), dtype=dtype))
    np.testing.assert_array_equal(o.asnumpy(), np.ones((2, 3), dtype=dtype))


def test_zeros_like_and_ones_like_pass_no_gradient():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = nd.add_n(nd.ones_like(x), nd.zeros_like(x))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 0])
