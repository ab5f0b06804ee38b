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


def test_cpu_pinned_and_shared_inputs_mix_with_cpu_and_give_cpu_outputs():
    shared = mx.nd.ones((2, 3), ctx=mx.Context("cpu_shared", 0))
    pinned = mx.nd.ones((2, 3), ctx=mx.cpu_pinned(0))
    plain = mx.nd.ones((2, 3))
    assert (shared + plain).context == mx.cpu(0)
    assert (pinned + pinned).context == mx.cpu(0)
    assert mx.nd.relu(shared).context == mx.cpu(0)
    assert (mx.nd.ones((2,), ctx=mx.cpu(3)) + mx.nd.ones((2,))).context == mx.cpu(3)
    out = mx.nd.empty((2, 2, 3), ctx=mx.Context("cpu_shared", 0))
    mx.nd.stack(plain, pinned, out=out)
    assert out.context == mx.Context("cpu_shared", 0) and out.asnumpy().sum() == 12


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


def test_unknown_keyword_argument_raises_for_ops_with_arguments():
    # ops without arguments ignore keyword arguments, as in MXNet 1.9.1
    assert mx.nd.exp(mx.nd.ones((2,)), bogus=1).shape == (2,)
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


def test_abs_builtin_calls_abs_op():
    a = mx.nd.array([-1.5, 2.0, -3.0])
    assert same(abs(a).asnumpy(), np.array([1.5, 2.0, 3.0], dtype=np.float32))


def test_pickle_round_trip_keeps_values_dtype_and_shape():
    import pickle
    for dtype in (np.float32, np.int64, np.float16):
        a = mx.nd.array(np.arange(24).reshape(2, 3, 4) - 5, dtype=dtype)
        b = pickle.loads(pickle.dumps(a))
        assert b.dtype == dtype and b.shape == (2, 3, 4)
        assert same(a.asnumpy(), b.asnumpy())


def test_getstate_is_mxnet_raw_bytes():
    state = mx.nd.array([7.0]).__getstate__()
    assert set(state) == {"handle"}
    # One V2 record: magic, dense stype, ndim 1, dim 1, cpu(0), float32, then the value.
    assert bytes(state["handle"]) == (b"\xc9\xfa\x93\xf9" + b"\x00" * 4 + b"\x01\x00\x00\x00" +
                                      b"\x01" + b"\x00" * 7 + b"\x01\x00\x00\x00" + b"\x00" * 4 +
                                      b"\x00" * 4 + np.float32(7).tobytes())


def test_setstate_loads_gpu_saved_state_on_cpu():
    # State MXNet 1.9.1 writes for mx.nd.arange(1, ctx=mx.gpu()): it loads on the CPU here.
    state = {"handle": bytearray(b"\xc9\xfa\x93\xf9" + b"\x00" * 4 + b"\x01\x00\x00\x00" +
                                 b"\x01" + b"\x00" * 7 + b"\x02\x00\x00\x00" + b"\x00" * 8 +
                                 np.float32(3).tobytes())}
    a = mx.nd.zeros((5, 5))
    a.__setstate__(state)
    assert a.shape == (1,) and a.context == mx.cpu()
    assert a.asscalar() == 3


def test_setstate_rejects_truncated_bytes():
    state = mx.nd.array([1.0, 2.0]).__getstate__()
    with pytest.raises(mx.MXNetError):
        mx.nd.zeros((1,)).__setstate__({"handle": state["handle"][:-3]})


def test_fluent_methods_cover_mxnet_1x_list():
    names = ["zeros_like", "ones_like", "broadcast_axes", "repeat", "pad", "swapaxes", "split",
             "split_v2", "slice", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort",
             "topk", "argsort", "argmax", "argmax_channel", "argmin", "clip", "abs", "sign",
             "flatten", "shape_array", "size_array", "expand_dims", "tile", "transpose", "flip",
             "depth_to_space", "space_to_depth", "diag", "sum", "nansum", "prod", "nanprod",
             "mean", "max", "min", "norm", "round", "rint", "fix", "floor", "ceil", "trunc",
             "sin", "cos", "tan", "arcsin", "arccos", "arctan", "degrees", "radians", "sinh",
             "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log", "log10",
             "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "reciprocal", "relu",
             "sigmoid", "softmax", "log_softmax", "softmin", "squeeze", "broadcast_to",
             "broadcast_like", "reshape_like", "slice_assign", "slice_assign_scalar"]
    for name in names:
        assert callable(getattr(mx.nd.NDArray, name)), name
        # The softmax family are NN operators (registered with the nn/ operators).
        if name not in ("slice_assign", "slice_assign_scalar", "softmax", "log_softmax",
                        "softmin"):
            assert hasattr(mx.nd, name), name


def test_split_v2_splits_at_sections_or_indices():
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    a = mx.nd.array(x)
    for parts, ref in ((a.split_v2(3, axis=1), np.split(x, 3, axis=1)),
                       (mx.nd.split_v2(a, (1, 4), axis=1), np.split(x, (1, 4), axis=1))):
        assert len(parts) == len(ref)
        for p, r in zip(parts, ref):
            assert same(p.asnumpy(), r)
    assert [p.shape for p in mx.nd.split_v2(a, 2, squeeze_axis=True)] == [(6,), (6,)]
    with pytest.raises(ValueError):
        mx.nd.split_v2(a, 4, axis=1)


def test_fluent_method_accepts_out():
    a = mx.nd.array([[1.0, -2.0], [3.0, -4.0]])
    out = mx.nd.zeros((2, 2))
    r = a.abs(out=out)
    assert r is out
    assert same(out.asnumpy(), np.abs(a.asnumpy()))


def test_flatten_expand_dims_squeeze_inplace_return_views():
    a = mx.nd.arange(6).reshape((2, 1, 3))
    for view in (a.flatten(inplace=True), a.expand_dims(axis=-1, inplace=True),
                 a.squeeze(axis=1, inplace=True), a.squeeze(inplace=True)):
        view[:] = 7
        assert (a.asnumpy() == 7).all()
        a[:] = 0
    assert a.flatten(inplace=True).shape == (2, 3)
    assert a.expand_dims(axis=-1, inplace=True).shape == (2, 1, 3, 1)
    assert a.squeeze(axis=1, inplace=True).shape == (2, 3)
    copy = a.flatten()
    copy[:] = 5
    assert (a.asnumpy() == 0).all()
    with pytest.raises(mx.MXNetError):
        a.squeeze(axis=0, inplace=True)


def test_slice_assign_methods_write_in_place():
    a = mx.nd.zeros((2, 3))
    assert a.slice_assign_scalar(4, (0, 1), (2, 3), (None, None)) is a
    a.slice_assign(mx.nd.ones((1, 1)), (1, 0), (2, 1), (None, None))
    assert same(a.asnumpy(), np.array([[0, 4, 4], [1, 4, 4]], dtype=np.float32))


def test_moveaxis_accepts_lists_of_axes():
    x = np.arange(24).reshape(2, 3, 4)
    a = mx.nd.array(x)
    for src, dst in ((0, -1), ([0, 1], [-1, -2]), ((2, 0), (0, 1))):
        assert same(mx.nd.moveaxis(a, src, dst).asnumpy(), np.moveaxis(x, src, dst))
    with pytest.raises(ValueError):
        mx.nd.moveaxis(a, [0, 1], [0])
    with pytest.raises(ValueError):
        mx.nd.moveaxis(a, 3, 0)


def test_numpy_arrays_and_ints_are_accepted_as_shape_arguments():
    a = mx.nd.ones((1, 3))
    out = mx.nd.broadcast_to(a, shape=np.array([2, 3]))
    assert out.shape == (2, 3)
    assert mx.nd.zeros(np.array([2, 2])).shape == (2, 2)
    assert mx.nd.ones((np.int64(2), np.int32(3))).shape == (2, 3)
    assert mx.nd.transpose(mx.nd.zeros((2, 3, 4)), axes=np.array([2, 0, 1])).shape == (4, 2, 3)


def test_broadcast_to_method_pads_leading_axes_and_rejects_mismatch():
    a = mx.nd.array([1.0, 2.0, 3.0])
    assert same(a.broadcast_to((2, 3)).asnumpy(), np.broadcast_to(a.asnumpy(), (2, 3)))
    with pytest.raises(ValueError):
        a.broadcast_to((3, 2))


def test_choose_element_0index_picks_one_per_row():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([3, 0, 2])
    out = mx.nd.choose_element_0index(mx.nd.array(x), mx.nd.array(idx))
    assert same(out.asnumpy(), x[np.arange(3), idx])
    with pytest.raises(mx.MXNetError):
        mx.nd.choose_element_0index(mx.nd.array(x), mx.nd.array([1, 2])).wait_to_read()
    with pytest.raises(mx.MXNetError):
        mx.nd.choose_element_0index(mx.nd.array(x), mx.nd.array([0, 4, 1])).asnumpy()


def test_fill_element_0index_returns_filled_copy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    src = mx.nd.array(x)
    out = mx.nd.fill_element_0index(src, mx.nd.array([-1, -2, -3]), mx.nd.array([1, 3, 0]))
    ref = x.copy()
    ref[np.arange(3), [1, 3, 0]] = [-1, -2, -3]
    assert same(out.asnumpy(), ref)
    assert same(src.asnumpy(), x)


def test_onehot_encode_writes_into_out():
    out = mx.nd.full((3, 4), 9.0)
    r = mx.nd.onehot_encode(mx.nd.array([2, 0, 3]), out=out)
    assert r is out
    assert same(out.asnumpy(), np.eye(4, dtype=np.float32)[[2, 0, 3]])


def test_contrib_isinf_isfinite_isnan():
    x = np.array([1.0, np.inf, -np.inf, np.nan, 0.0], dtype=np.float32)
    a = mx.nd.array(x)
    assert same(mx.nd.contrib.isinf(a).asnumpy(), np.isinf(x).astype(np.float32))
    assert same(mx.nd.contrib.isfinite(a).asnumpy(), np.isfinite(x).astype(np.float32))
    assert same(mx.nd.contrib.isnan(a).asnumpy(), np.isnan(x).astype(np.float32))


def test_basic_indexing_contiguity_rule_matches_numpy():
    x = np.arange(4 * 5 * 6).reshape(4, 5, 6)
    is_contiguous = mx.nd.NDArray._basic_indexing_slice_is_contiguous
    for key in [(slice(None),) * 3, (slice(1, 3), slice(None), slice(None)),
                (slice(1, 2), slice(2, 4), slice(None)), (slice(1, 3), slice(2, 4), slice(None)),
                (slice(None), slice(None), slice(None, None, 2)), (slice(0, 1),) * 3,
                (slice(None, None, -1), slice(0, 1), slice(0, 1)),
                (slice(3, None, -2), slice(None), slice(None))]:
        assert is_contiguous(key, x.shape) == x[key].flags.c_contiguous, key
    key = (slice(1, 2), slice(2, 4), slice(None))
    begin, end = mx.nd.NDArray._basic_indexing_contiguous_flat_begin_end(key, x.shape)
    assert (begin, end) == (x[key].ravel()[0], x[key].ravel()[-1] + 1)


def test_contiguous_basic_indexing_returns_view():
    a = mx.nd.zeros((4, 5, 6))
    v = a[1, 2:4]
    assert v.shape == (2, 6)
    v[:] = 3
    assert (a.asnumpy()[1, 2:4] == 3).all() and a.asnumpy().sum() == 36
    c = a[:, 1]  # not contiguous: a copy
    c[:] = 5
    assert a.asnumpy().sum() == 36


def test_setitem_drops_leading_unit_axes_of_value():
    a = mx.nd.zeros((3, 3))
    a[0] = mx.nd.ones((1, 1, 1, 3))
    a[1:] = np.full((1, 2, 3), 2.0)
    assert same(a.asnumpy(), np.array([[1, 1, 1], [2, 2, 2], [2, 2, 2]], dtype=np.float32))
    with pytest.raises(ValueError):
        a[0] = mx.nd.ones((2, 3))


def test_broadcast_like_rejects_empty_axes():
    lhs, rhs = mx.nd.ones((1, 2)), mx.nd.ones((3, 2))
    with pytest.raises(mx.MXNetError, match="at least one axis"):
        mx.nd.broadcast_like(lhs, rhs, lhs_axes=(), rhs_axes=())
    assert mx.nd.broadcast_like(lhs, rhs, lhs_axes=(0,), rhs_axes=(0,)).shape == (3, 2)


def test_empty_ndarray_from_none_raises_instead_of_crashing():
    a = mx.nd.NDArray(None)
    with pytest.raises(mx.MXNetError, match="empty"):
        a.asnumpy()
    with pytest.raises(mx.MXNetError, match="empty"):
        a.wait_to_read()
    a.__setstate__(mx.nd.array([4.0]).__getstate__())
    assert a.asscalar() == 4.0
