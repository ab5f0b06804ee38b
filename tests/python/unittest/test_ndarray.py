"""NDArray: creation, properties, views, indexing, arithmetic and error paths."""
import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import assert_almost_equal, same

ALL_DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.int8, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_array_round_trips_every_dtype(dtype):
    src = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    a = mx.nd.array(src, dtype=dtype)
    assert a.dtype == dtype
    assert a.shape == (3, 4) and a.size == 12 and a.ndim == 2
    assert a.asnumpy().dtype == np.dtype(dtype)
    assert same(a.asnumpy(), src)


def test_array_defaults_to_float32_like_mxnet():
    assert mx.nd.array([1, 2, 3]).dtype == np.float32
    assert mx.nd.array(np.arange(3, dtype=np.int64)).dtype == np.float32
    assert mx.nd.array(np.arange(3), dtype=np.int64).dtype == np.int64


def test_copyto_between_dtypes_converts():
    a = mx.nd.array([1.7, -2.2, 3.0])
    b = mx.nd.zeros((3,), dtype=np.int32)
    a.copyto(b)
    assert same(b.asnumpy(), np.array([1, -2, 3], np.int32))


def test_creation_functions_match_numpy():
    assert same(mx.nd.zeros((2, 3)).asnumpy(), np.zeros((2, 3), np.float32))
    assert same(mx.nd.ones((4,), dtype="int32").asnumpy(), np.ones(4, np.int32))
    assert same(mx.nd.full((2, 2), 7.5).asnumpy(), np.full((2, 2), 7.5, np.float32))
    assert same(mx.nd.arange(2, 11, 3).asnumpy(), np.arange(2, 11, 3, dtype=np.float32))
    assert same(mx.nd.eye(3, 4, 1).asnumpy(), np.eye(3, 4, 1, dtype=np.float32))
    assert_almost_equal(mx.nd.linspace(0, 1, 5).asnumpy(), np.linspace(0, 1, 5))
    assert mx.nd.empty((2, 5)).shape == (2, 5)


def test_context_and_default_context_scope():
    a = mx.nd.zeros((2,))
    assert a.context == mx.cpu(0) and a.ctx == mx.cpu()
    with mx.Context("cpu", 0):
        assert mx.current_context() == mx.cpu(0)
    b = mx.nd.zeros((2,), ctx=mx.cpu_pinned())
    assert b.context == mx.cpu_pinned(0)
    assert same(b.as_in_context(mx.cpu()).asnumpy(), np.zeros(2, np.float32))


def test_gpu_context_raises_clear_error_without_cuda():
    with pytest.raises(mx.MXNetError, match="gpu"):
        mx.nd.zeros((2,), ctx=mx.gpu(0)).asnumpy()


def test_asscalar_and_python_scalars():
    a = mx.nd.array([3.5])
    assert a.asscalar() == np.float32(3.5)
    assert float(a) == 3.5 and int(mx.nd.array([2])) == 2
    with pytest.raises(ValueError):
        mx.nd.array([1, 2]).asscalar()


def test_reshape_special_values():
    a = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    assert a.reshape((4, -1)).shape == (4, 6)
    assert a.reshape((0, -1)).shape == (2, 12)
    assert a.reshape((-2,)).shape == (2, 3, 4)
    assert a.reshape((-3, 4)).shape == (6, 4)
    assert a.reshape((-4, 1, 2, -2)).shape == (1, 2, 3, 4)
    assert a.reshape((0, -4, -1, 3, 4)).shape == (2, 1, 3, 4)
    assert a.reshape(6, 4).shape == (6, 4)
    assert mx.nd.zeros((10, 5, 4)).reshape((-1, 0), reverse=True).shape == (50, 4)
    with pytest.raises(ValueError):  # (5, 4): fewer elements, ValueError as in MXNet 1.9.1
        a.reshape((5, -1))


def test_reshape_accepts_ints_a_tuple_or_the_shape_keyword():
    a = mx.nd.array(np.arange(30).reshape(2, 3, 5))
    for r in (a.reshape(6, 5), a.reshape((6, 5)), a.reshape([6, 5]), a.reshape(shape=(6, 5)),
              a.reshape(shape=(-1, 5)), a.reshape(-3, 5)):
        assert r.shape == (6, 5)
        assert same(r.asnumpy(), np.arange(30).reshape(6, 5).astype(np.float32))
    assert a.reshape(shape=30).shape == (30,)
    assert a.reshape((-1, 0), reverse=True).shape == (6, 5)
    assert a.reshape(shape=(-1, 0), reverse=False).shape == (10, 3)
    with pytest.raises(TypeError):
        a.reshape((6, 5), order="F")


def test_reshape_to_fewer_elements_raises_value_error_and_more_mxnet_error():
    a = mx.nd.arange(30).reshape(2, 3, 5)
    with pytest.raises(ValueError, match="size 30"):
        a.reshape((2, 3))
    with pytest.raises(mx.MXNetError, match="Reshape"):
        a.reshape((7, 5))
    with pytest.raises(mx.MXNetError, match="only one dimension can be -1"):
        a.reshape((-1, -1))


def test_reshape_method_and_operator_share_one_rule():
    a = mx.nd.array(np.arange(120).reshape(2, 3, 4, 5))
    specs = [((-1,), False), ((0, -1), False), ((-2,), False), ((-3, -2), False),
             ((0, -4, 1, -1, 0, 0), False), ((-4, 2, 1, -2), False), ((-1, 0), True),
             ((0, 0, -3), False), ((-3, -3), False), ((4, -1, 0), True)]
    for spec, reverse in specs:
        view = a.reshape(spec, reverse=reverse)
        op = mx.nd.reshape(a, shape=spec, reverse=reverse)
        assert view.shape == op.shape, (spec, reverse)
        assert same(view.asnumpy(), op.asnumpy())


def test_reshape_of_one_element_array_to_zero_dims():
    a = mx.nd.array([7.0])
    assert a.reshape(()).shape == ()
    assert mx.nd.reshape(a, shape=()).shape == ()
    assert float(a.reshape(()).asnumpy()) == 7.0


def test_reshape_and_basic_slices_are_views():
    a = mx.nd.zeros((4, 3))
    v = a.reshape((12,))
    v[:] = 1
    assert same(a.asnumpy(), np.ones((4, 3), np.float32))
    row = a[1]
    row[:] = 5
    assert same(a.asnumpy()[1], np.full(3, 5, np.float32))
    part = a[2:4]
    part[:] = 7
    assert same(a.asnumpy()[2:], np.full((2, 3), 7, np.float32))


def test_getitem_basic_and_advanced_match_numpy():
    src = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    a = mx.nd.array(src)
    for key in [1, -1, slice(1, 3), (1, 2), (slice(None), 1), (Ellipsis, 2), (0, slice(1, 4, 2)),
                (slice(None, None, -1),), (None, 1), (1, None, slice(0, 2))]:
        assert same(a[key].asnumpy(), src[key]), key
    assert same(a[[0, 2]].asnumpy(), src[[0, 2]])
    assert same(a[mx.nd.array([2, 0])].asnumpy(), src[[2, 0]])
    assert same(a[[0, 1], [1, 2]].asnumpy(), src[[0, 1], [1, 2]])
    mask = np.array([True, False, True])
    assert same(a[mask].asnumpy(), src[mask])
    assert same(a[:, [3, 0]].asnumpy(), src[:, [3, 0]])
    with pytest.raises(IndexError):
        a[3]


def test_setitem_matches_numpy():
    src = np.zeros((3, 4), np.float32)
    a = mx.nd.array(src)
    cases = [(1, 2.0), ((slice(None), 1), 3.0), ((0, slice(1, 3)), np.array([4, 5])),
             (slice(1, 3), mx.nd.ones((2, 4)) * 6), ((slice(None), slice(None, None, 2)), 8.0),
             (([0, 2], [1, 3]), 9.0)]
    for key, val in cases:
        a[key] = val
        src[key] = val.asnumpy() if isinstance(val, mx.nd.NDArray) else val
        assert same(a.asnumpy(), src), key


def test_arithmetic_with_scalars_and_broadcasting():
    x = np.random.uniform(1, 2, (3, 4)).astype(np.float32)
    y = np.random.uniform(1, 2, (1, 4)).astype(np.float32)
    a, b = mx.nd.array(x), mx.nd.array(y)
    assert_almost_equal((a + b).asnumpy(), x + y)
    assert_almost_equal((a - b).asnumpy(), x - y)
    assert_almost_equal((a * b).asnumpy(), x * y)
    assert_almost_equal((a / b).asnumpy(), x / y)
    assert_almost_equal((a ** 2).asnumpy(), x ** 2)
    assert_almost_equal((2 ** a).asnumpy(), 2 ** x)
    assert_almost_equal((1 - a).asnumpy(), 1 - x)
    assert_almost_equal((3 / a).asnumpy(), 3 / x)
    assert_almost_equal((a % 0.3).asnumpy(), np.mod(x, 0.3), atol=1e-5)
    assert_almost_equal((-a).asnumpy(), -x)
    assert same((a > b).asnumpy(), (x > y).astype(np.float32))
    assert same((a == a).asnumpy(), np.ones_like(x))
    assert same((a <= 1.5).asnumpy(), (x <= 1.5).astype(np.float32))
    assert_almost_equal(mx.nd.maximum(a, 1.5).asnumpy(), np.maximum(x, 1.5))
    assert_almost_equal(mx.nd.minimum(a, b).asnumpy(), np.minimum(x, y))


def test_inplace_operators_write_into_the_same_array():
    a = mx.nd.ones((2, 2))
    chunk = a._chunk_id
    a += 1
    a *= 3
    a -= mx.nd.ones((2, 2))
    a /= 5
    assert a._chunk_id == chunk
    assert_almost_equal(a.asnumpy(), np.ones((2, 2)))


def test_incompatible_broadcast_raises():
    with pytest.raises(mx.MXNetError, match="broadcast"):
        mx.nd.ones((2, 3)) + mx.nd.ones((4, 3))


def test_copy_copyto_astype_and_T():
    a = mx.nd.array(np.arange(6).reshape(2, 3))
    b = a.copy()
    b[:] = 0
    assert a.asnumpy().sum() == 15
    c = mx.nd.zeros((2, 3))
    a.copyto(c)
    assert same(c.asnumpy(), a.asnumpy())
    assert a.astype("int32").dtype == np.int32
    assert same(a.T.asnumpy(), a.asnumpy().T)
    with pytest.raises(mx.MXNetError):
        a.copyto(mx.nd.zeros((3, 2)))


def test_repr_and_iteration():
    a = mx.nd.array([[1, 2], [3, 4]])
    assert "<NDArray 2x2 @cpu(0)>" in repr(a)
    rows = [r.asnumpy().tolist() for r in a]
    assert rows == [[1, 2], [3, 4]] and len(a) == 2
    assert a.stype == "default"


def test_waitall_and_wait_to_read():
    a = mx.nd.ones((100, 100))
    b = a * 2
    b.wait_to_read()
    mx.nd.waitall()
    assert b.asnumpy()[0, 0] == 2


def test_kernel_error_surfaces_at_wait_and_engine_recovers():
    bad = mx.nd.random.normal(0, -1, shape=(3,))
    with pytest.raises(mx.MXNetError, match="scale"):
        bad.asnumpy()
    ok = mx.nd.ones((2,)) + 1
    assert same(ok.asnumpy(), np.full(2, 2, np.float32))


def test_waitall_raises_deferred_error_once():
    mx.nd.random.normal(0, -1, shape=(3,))
    with pytest.raises(mx.MXNetError):
        mx.nd.waitall()
    mx.nd.waitall()


def test_out_argument_writes_into_given_array():
    a = mx.nd.array([1, 2, 3])
    out = mx.nd.zeros((3,))
    r = mx.nd.exp(a, out=out)
    assert r is out
    assert_almost_equal(out.asnumpy(), np.exp([1, 2, 3]))
    with pytest.raises(mx.MXNetError):
        mx.nd.exp(a, out=mx.nd.zeros((4,)))


def test_op_rejects_bad_inputs_with_names():
    with pytest.raises(mx.MXNetError, match="Operator"):
        mx.nd.broadcast_add(mx.nd.ones((2,)))
    with pytest.raises(TypeError):
        mx.nd.broadcast_add(mx.nd.ones((2,)), [1, 2])


def test_unknown_keyword_argument_raises():
    with pytest.raises(mx.MXNetError, match="bogus"):
        mx.nd.exp(mx.nd.ones((2,)), bogus=1)
    with pytest.raises(mx.MXNetError, match="bogus"):
        mx.nd.sum(mx.nd.ones((2,)), bogus=1)


def test_advanced_setitem_with_arrays_and_broadcast_values():
    src = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = mx.nd.array(src)
    cases = [([1, 3], 0.5), ((slice(None), [0, 5]), np.array([[1], [2], [3], [4]])),
             ((mx.nd.array([0, 2]), mx.nd.array([1, 1])), mx.nd.array([7, 8])),
             (np.array([True, False, True, False]), -1.0)]
    for key, val in cases:
        a[key] = val
        np_key = tuple(k.asnumpy().astype(np.int64) if isinstance(k, mx.nd.NDArray) else k
                       for k in key) if isinstance(key, tuple) else key
        src[np_key] = val.asnumpy() if isinstance(val, mx.nd.NDArray) else val
        assert same(a.asnumpy(), src), key


def test_bad_argument_value_names_the_argument():
    with pytest.raises(mx.MXNetError, match="argument dtype='complex64'"):
        mx.nd.ones((2,), dtype="complex64")
    with pytest.raises(mx.MXNetError, match="argument axis"):
        mx.nd.sum(mx.nd.ones((2,)), axis="x")


def test_dtype_table_comes_from_the_library():
    rows = mx._ffi.dtype_table()
    assert [r[0] for r in rows] == list(range(8))
    for flag, name, numpy_name, size in rows:
        assert np.dtype(numpy_name).itemsize == size
        assert mx.base.dtype_flag(numpy_name) == flag
        assert mx.nd.zeros((2,), dtype=numpy_name).dtype == np.dtype(numpy_name)
    assert set(mx.base._NP_DTYPE_FLAGS.values()) == set(range(8))
    with pytest.raises(TypeError, match="float32, float64, float16, uint8, int32, int8, int64, bool"):
        mx.base.dtype_flag(np.complex64)


def test_int_scalar_and_float_of_opposite_sign_do_not_share_cached_attrs():
    x = mx.nd.array([10.0, 20.0])
    plus_int = mx._ffi.invoke_scalar("_plus_scalar", x, 3.0, True)
    plus_neg_float = mx._ffi.invoke_scalar("_plus_scalar", x, -3.0, False)
    assert same(plus_int.asnumpy(), np.array([13.0, 23.0], np.float32))
    assert same(plus_neg_float.asnumpy(), np.array([7.0, 17.0], np.float32))
    # and the other way round, on a fresh pair of values
    minus_float = mx._ffi.invoke_scalar("_minus_scalar", x, -5.0, False)
    minus_int = mx._ffi.invoke_scalar("_minus_scalar", x, 5.0, True)
    assert same(minus_float.asnumpy(), np.array([15.0, 25.0], np.float32))
    assert same(minus_int.asnumpy(), np.array([5.0, 15.0], np.float32))


def test_explicit_invoke_fills_num_args_from_the_inputs():
    a, b, c = mx.nd.ones((2,)), mx.nd.ones((2,)) * 2, mx.nd.ones((2,)) * 3
    out = mx._ffi.invoke(mx._ffi.op_index("add_n"), [a, b, c], None, None)
    assert same(out.asnumpy(), np.full((2,), 6, np.float32))
    dst = mx.nd.zeros((2,))
    mx._ffi.invoke(mx._ffi.op_index("add_n"), [a, b], None, dst)
    assert same(dst.asnumpy(), np.full((2,), 3, np.float32))
