"""C API: the C example built and run against libmxnet.so, and direct ctypes calls."""
import ctypes
import os
import re
import shutil
import subprocess
import threading

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
EXAMPLE = os.path.join(REPO, "example", "c_api", "train_linear.c")

NDArrayHandle = ctypes.c_void_p
c_int_p = ctypes.POINTER(ctypes.c_int)


def _lib():
    lib = mx.base._LIB  # the very library the Python extension uses
    lib.MXGetLastError.restype = ctypes.c_char_p
    return lib


LIB = _lib()


def last_error():
    return LIB.MXGetLastError().decode()


def check(ret):
    assert ret == 0, last_error()


def _h(handle):
    """A c_void_p for a handle given as c_void_p or as an integer address (Python's .handle)."""
    return handle if isinstance(handle, ctypes.c_void_p) else NDArrayHandle(handle)


def shape_of(handle):
    ndim = ctypes.c_int()
    pdata = c_int_p()
    check(LIB.MXNDArrayGetShapeEx(_h(handle), ctypes.byref(ndim), ctypes.byref(pdata)))
    return tuple(pdata[i] for i in range(ndim.value))


def create(shape, dtype=0, dev_type=1, delay_alloc=0):
    arr = (ctypes.c_uint * len(shape))(*shape)
    out = NDArrayHandle()
    check(LIB.MXNDArrayCreateEx(arr, len(shape), dev_type, 0, delay_alloc, dtype, ctypes.byref(out)))
    return out


def from_numpy(values):
    values = np.ascontiguousarray(values, dtype=np.float32)
    h = create(values.shape)
    check(LIB.MXNDArraySyncCopyFromCPU(h, values.ctypes.data_as(ctypes.c_void_p),
                                       ctypes.c_size_t(values.size)))
    return h


def to_numpy(handle, dtype=np.float32):
    out = np.empty(shape_of(handle), dtype=dtype)
    check(LIB.MXNDArraySyncCopyToCPU(_h(handle), out.ctypes.data_as(ctypes.c_void_p),
                                     ctypes.c_size_t(out.size)))
    return out


def free(*handles):
    for h in handles:
        check(LIB.MXNDArrayFree(h))


def op_handle(name):
    h = ctypes.c_void_p()
    check(LIB.NNGetOpHandle(name.encode(), ctypes.byref(h)))
    return h


def invoke(name, inputs, params=None, outputs=None):
    """MXImperativeInvoke; returns the list of output handles (new ones when outputs is None)."""
    params = params or {}
    ins = (NDArrayHandle * len(inputs))(*[_h(i) for i in inputs])
    keys = (ctypes.c_char_p * len(params))(*[k.encode() for k in params])
    vals = (ctypes.c_char_p * len(params))(*[str(v).encode() for v in params.values()])
    if outputs is None:
        num_out = ctypes.c_int(0)
        outs = ctypes.POINTER(NDArrayHandle)()
    else:
        num_out = ctypes.c_int(len(outputs))
        arr = (NDArrayHandle * len(outputs))(*[_h(o) for o in outputs])
        outs = ctypes.cast(arr, ctypes.POINTER(NDArrayHandle))
    ret = LIB.MXImperativeInvoke(op_handle(name), len(inputs), ins, ctypes.byref(num_out),
                                 ctypes.byref(outs), len(params), keys, vals)
    if ret != 0:
        raise mx.base.MXNetError(last_error())
    return [NDArrayHandle(outs[i]) for i in range(num_out.value)]


# ------------------------------------------------------------------ the C example


def _compiler():
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


@pytest.fixture(scope="module")
def example_output(tmp_path_factory):
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler")
    libdir = os.path.dirname(mx.libinfo.find_lib_path()[0])
    include = mx.libinfo.find_include_path()
    exe = str(tmp_path_factory.mktemp("c_api") / "train_linear")
    subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "-pedantic", "-I" + include, EXAMPLE,
                    "-L" + libdir, "-lmxnet", "-Wl,-rpath," + libdir, "-o", exe],
                   check=True, capture_output=True, text=True)
    env = dict(os.environ)
    env.pop("MXNET_LIBRARY_PATH", None)
    proc = subprocess.run([exe], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_header_is_valid_c99():
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler")
    src = "#include <mxnet/c_api.h>\nint main(void) { return 0; }\n"
    proc = subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                           "-fsyntax-only", "-I" + mx.libinfo.find_include_path(), "-x", "c", "-"],
                          input=src, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_example_reports_version(example_output):
    assert "version 10901" in example_output.splitlines()
    assert "x shape (8,2) ndim 2" in example_output


def test_example_first_gradient_is_exact(example_output):
    # At w = 0, b = 0: dL/dw = -(2/N) X^T y = (-6, 9), dL/db = -(2/N) sum(y) = -1, L = 19.75.
    assert "initial loss 19.750000" in example_output
    assert "initial grad w0=-6.000000 w1=9.000000 b=-1.000000" in example_output


def test_example_fits_the_true_weights(example_output):
    m = re.search(r"final w0=(\S+) w1=(\S+) b=(\S+)", example_output)
    assert m, example_output
    w0, w1, b = map(float, m.groups())
    assert abs(w0 - 2.0) < 1e-4 and abs(w1 + 3.0) < 1e-4 and abs(b - 0.5) < 1e-4
    losses = [float(v) for v in re.findall(r"step \d+ loss (\S+)", example_output)]
    assert losses[0] == pytest.approx(19.75) and losses[-1] < 1e-8


def test_example_unknown_op_error_message(example_output):
    assert ("expected error: NNGetOpHandle: operator 'no_such_op' is not registered"
            in example_output)
    assert example_output.splitlines()[-1] == "done"


# ------------------------------------------------------------------ runtime


def test_version_is_10901():
    v = ctypes.c_int()
    check(LIB.MXGetVersion(ctypes.byref(v)))
    assert v.value == 10901


def test_null_out_pointer_fails_with_message():
    assert LIB.MXGetVersion(None) == -1
    assert "MXGetVersion" in last_error() and "out is NULL" in last_error()


def test_lib_info_features_match_python_runtime():
    class LibFeature(ctypes.Structure):
        _fields_ = [("name", ctypes.c_char_p), ("enabled", ctypes.c_bool)]

    ptr = ctypes.POINTER(LibFeature)()
    size = ctypes.c_size_t()
    check(LIB.MXLibInfoFeatures(ctypes.byref(ptr), ctypes.byref(size)))
    feats = {ptr[i].name.decode(): ptr[i].enabled for i in range(size.value)}
    assert "CUDA" in feats and "OPENMP" in feats
    expected = {name: bool(on) for name, on in mx._ffi.features()}
    assert feats == expected


def test_gpu_count_bulk_size_omp_and_seed():
    n = ctypes.c_int(-1)
    check(LIB.MXGetGPUCount(ctypes.byref(n)))
    assert n.value == mx._ffi.gpu_count()
    prev = ctypes.c_int(-1)
    check(LIB.MXEngineSetBulkSize(7, ctypes.byref(prev)))
    old = prev.value
    check(LIB.MXEngineSetBulkSize(old, ctypes.byref(prev)))
    assert prev.value == 7
    assert LIB.MXEngineSetBulkSize(-1, None) == -1 and "bulk_size" in last_error()
    check(LIB.MXSetNumOMPThreads(os.cpu_count() or 1))
    assert LIB.MXSetNumOMPThreads(0) == -1 and "thread_num" in last_error()
    check(LIB.MXRandomSeed(11))
    check(LIB.MXRandomSeedContext(11, 1, 0))
    assert LIB.MXRandomSeedContext(11, 9, 0) == -1 and "dev_type" in last_error()


def test_random_seed_makes_sampling_repeatable():
    def draw():
        (h,) = invoke("_random_uniform", [], {"shape": "(5,)"})
        v = to_numpy(h)
        free(h)
        return v
    check(LIB.MXRandomSeed(3))
    a = draw()
    check(LIB.MXRandomSeed(3))
    np.testing.assert_array_equal(a, draw())


# ------------------------------------------------------------------ NDArray


def test_create_ex_reports_shape_dtype_and_context():
    h = create((2, 3, 4), dtype=6)
    try:
        assert shape_of(h) == (2, 3, 4)
        dtype = ctypes.c_int()
        check(LIB.MXNDArrayGetDType(h, ctypes.byref(dtype)))
        assert dtype.value == 6
        dev_type, dev_id = ctypes.c_int(), ctypes.c_int()
        check(LIB.MXNDArrayGetContext(h, ctypes.byref(dev_type), ctypes.byref(dev_id)))
        assert (dev_type.value, dev_id.value) == (1, 0)
    finally:
        free(h)


def test_create_scalar_and_delay_alloc_arrays():
    h = create((), delay_alloc=1)
    assert shape_of(h) == ()
    check(LIB.MXNDArraySyncCopyFromCPU(h, (ctypes.c_float * 1)(2.5), ctypes.c_size_t(1)))
    assert to_numpy(h) == np.float32(2.5)
    free(h)


def test_create_none_reports_empty_shape_and_dtype_minus_one():
    h = NDArrayHandle()
    check(LIB.MXNDArrayCreateNone(ctypes.byref(h)))
    assert shape_of(h) == ()
    dtype = ctypes.c_int()
    check(LIB.MXNDArrayGetDType(h, ctypes.byref(dtype)))
    assert dtype.value == -1
    data = ctypes.c_void_p(1)
    check(LIB.MXNDArrayGetData(h, ctypes.byref(data)))
    assert data.value is None
    free(h)


def test_bad_dtype_returns_minus_one_and_names_it():
    out = NDArrayHandle()
    shape = (ctypes.c_uint * 1)(3)
    assert LIB.MXNDArrayCreateEx(shape, 1, 1, 0, 0, 42, ctypes.byref(out)) == -1
    assert "MXNDArrayCreateEx" in last_error() and "dtype" in last_error() and "42" in last_error()
    assert out.value is None


def test_bad_device_type_and_null_shape_fail():
    out = NDArrayHandle()
    shape = (ctypes.c_uint * 1)(3)
    assert LIB.MXNDArrayCreateEx(shape, 1, 7, 0, 0, 0, ctypes.byref(out)) == -1
    assert "dev_type" in last_error() and "7" in last_error()
    assert LIB.MXNDArrayCreateEx(None, 2, 1, 0, 0, 0, ctypes.byref(out)) == -1
    assert "shape is NULL" in last_error()


def test_gpu_array_without_gpu_fails_cleanly():
    if mx._ffi.gpu_count() > 0:
        pytest.skip("a GPU is present")
    out = NDArrayHandle()
    shape = (ctypes.c_uint * 1)(3)
    assert LIB.MXNDArrayCreateEx(shape, 1, 2, 0, 0, 0, ctypes.byref(out)) == -1
    assert "gpu" in last_error().lower()


def test_null_handle_returns_minus_one_with_message():
    ndim, pdata = ctypes.c_int(), c_int_p()
    assert LIB.MXNDArrayGetShapeEx(None, ctypes.byref(ndim), ctypes.byref(pdata)) == -1
    assert "MXNDArrayGetShapeEx" in last_error() and "handle is NULL" in last_error()
    assert LIB.MXNDArrayWaitToRead(None) == -1
    assert LIB.MXNDArraySyncCopyToCPU(None, None, 0) == -1
    assert LIB.MXNDArrayFree(None) == 0  # like free(NULL)


def test_error_message_is_per_thread_and_kept_until_next_failure():
    assert LIB.MXNDArrayWaitToRead(None) == -1
    msg = last_error()
    v = ctypes.c_int()
    check(LIB.MXGetVersion(ctypes.byref(v)))
    assert last_error() == msg


def test_error_message_is_thread_local():
    assert LIB.MXNDArrayWaitToRead(None) == -1
    main_msg = last_error()
    seen = []

    def other():
        seen.append(last_error())
        seen.append(LIB.MXGetVersion(None))
        seen.append(last_error())
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen[0] == "" and seen[1] == -1 and "MXGetVersion" in seen[2]
    assert last_error() == main_msg


def test_copy_size_mismatch_fails():
    h = create((2, 2))
    buf = (ctypes.c_float * 3)()
    assert LIB.MXNDArraySyncCopyFromCPU(h, buf, ctypes.c_size_t(3)) == -1
    assert "expected 4 elements" in last_error() and "given 3" in last_error()
    assert LIB.MXNDArraySyncCopyToCPU(h, buf, ctypes.c_size_t(3)) == -1
    free(h)


def test_python_handle_works_in_c_api():
    a = mx.nd.array(np.arange(12).reshape(3, 4), dtype="int32")
    assert shape_of(a.handle) == (3, 4)
    dtype = ctypes.c_int()
    check(LIB.MXNDArrayGetDType(NDArrayHandle(a.handle), ctypes.byref(dtype)))
    assert dtype.value == 4
    np.testing.assert_array_equal(to_numpy(a.handle, np.int32), np.arange(12).reshape(3, 4))
    new = np.full((3, 4), 7, dtype=np.int32)
    check(LIB.MXNDArraySyncCopyFromCPU(NDArrayHandle(a.handle),
                                       new.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(12)))
    np.testing.assert_array_equal(a.asnumpy(), new)


def test_python_arrays_as_operator_inputs():
    a = mx.nd.array([1.0, 2.0, 3.0])
    b = mx.nd.array([10.0, 20.0, 30.0])
    (c,) = invoke("broadcast_add", [a.handle, b.handle])
    np.testing.assert_array_equal(to_numpy(c), [11, 22, 33])
    free(c)
    invoke("broadcast_mul", [a.handle, b.handle], outputs=[a.handle])  # in place into Python's a
    np.testing.assert_array_equal(a.asnumpy(), [10, 40, 90])


def test_get_data_after_wait_sees_values():
    h = from_numpy([[1, 2], [3, 4]])
    (d,) = invoke("_mul_scalar", [h], {"scalar": 3})
    check(LIB.MXNDArrayWaitToRead(d))
    ptr = ctypes.c_void_p()
    check(LIB.MXNDArrayGetData(d, ctypes.byref(ptr)))
    vals = ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float))
    assert [vals[i] for i in range(4)] == [3, 6, 9, 12]
    check(LIB.MXNDArrayWaitToWrite(d))
    check(LIB.MXNDArrayWaitAll())
    free(h, d)


def test_slice_at_and_reshape_are_views():
    h = from_numpy(np.arange(24).reshape(4, 6))
    s, row, r = NDArrayHandle(), NDArrayHandle(), NDArrayHandle()
    check(LIB.MXNDArraySlice(h, 1, 3, ctypes.byref(s)))
    assert shape_of(s) == (2, 6)
    np.testing.assert_array_equal(to_numpy(s), np.arange(6, 18).reshape(2, 6))
    check(LIB.MXNDArrayAt(h, 2, ctypes.byref(row)))
    assert shape_of(row) == (6,)
    np.testing.assert_array_equal(to_numpy(row), np.arange(12, 18))
    dims = (ctypes.c_int64 * 3)(0, -1, 2)  # 0 copies 2, -1 infers 3
    check(LIB.MXNDArrayReshape64(s, 3, dims, False, ctypes.byref(r)))
    assert shape_of(r) == (2, 3, 2)
    # Writing through a view changes the base array.
    check(LIB.MXNDArraySyncCopyFromCPU(row, (ctypes.c_float * 6)(*([-1] * 6)), ctypes.c_size_t(6)))
    np.testing.assert_array_equal(to_numpy(h)[2], [-1] * 6)
    np.testing.assert_array_equal(to_numpy(r).reshape(2, 6)[1], [-1] * 6)
    free(r, row, s, h)


def test_reshape64_reverse_and_errors():
    h = create((10, 5, 4))
    out = NDArrayHandle()
    dims = (ctypes.c_int64 * 2)(-1, 0)
    check(LIB.MXNDArrayReshape64(h, 2, dims, True, ctypes.byref(out)))
    assert shape_of(out) == (50, 4)
    free(out)
    bad = (ctypes.c_int64 * 2)(3, 7)
    assert LIB.MXNDArrayReshape64(h, 2, bad, False, ctypes.byref(out)) == -1
    assert "Reshape" in last_error()
    free(h)


def test_slice_and_at_out_of_range_fail():
    h = create((3, 2))
    out = NDArrayHandle()
    assert LIB.MXNDArraySlice(h, 2, 5, ctypes.byref(out)) == -1
    assert "slice" in last_error()
    assert LIB.MXNDArrayAt(h, 3, ctypes.byref(out)) == -1
    assert "out of bounds" in last_error()
    free(h)


def test_save_load_roundtrip_with_names_and_python(tmp_path):
    fname = str(tmp_path / "arrays.params").encode()
    a = from_numpy([[1, 2], [3, 4]])
    b = from_numpy([5, 6, 7])
    args = (NDArrayHandle * 2)(a, b)
    keys = (ctypes.c_char_p * 2)(b"arg:a", b"arg:b")
    check(LIB.MXNDArraySave(fname, 2, args, keys))
    loaded = mx.nd.load(fname.decode())
    np.testing.assert_array_equal(loaded["arg:b"].asnumpy(), [5, 6, 7])

    n, n_names = ctypes.c_uint(), ctypes.c_uint()
    arrs = ctypes.POINTER(NDArrayHandle)()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check(LIB.MXNDArrayLoad(fname, ctypes.byref(n), ctypes.byref(arrs), ctypes.byref(n_names),
                            ctypes.byref(names)))
    assert n.value == 2 and n_names.value == 2
    got = {names[i].decode(): NDArrayHandle(arrs[i]) for i in range(n.value)}
    np.testing.assert_array_equal(to_numpy(got["arg:a"]), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(to_numpy(got["arg:b"]), [5, 6, 7])
    free(a, b, *got.values())

    assert LIB.MXNDArrayLoad(str(tmp_path / "missing.params").encode(), ctypes.byref(n),
                             ctypes.byref(arrs), ctypes.byref(n_names), ctypes.byref(names)) == -1
    assert "missing.params" in last_error()


def test_save_unnamed_list_loads_without_names(tmp_path):
    fname = str(tmp_path / "list.nd").encode()
    a = from_numpy([1, 2])
    check(LIB.MXNDArraySave(fname, 1, (NDArrayHandle * 1)(a), None))
    n, n_names = ctypes.c_uint(), ctypes.c_uint(9)
    arrs = ctypes.POINTER(NDArrayHandle)()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check(LIB.MXNDArrayLoad(fname, ctypes.byref(n), ctypes.byref(arrs), ctypes.byref(n_names),
                            ctypes.byref(names)))
    assert n.value == 1 and n_names.value == 0
    loaded = NDArrayHandle(arrs[0])
    np.testing.assert_array_equal(to_numpy(loaded), [1, 2])
    free(a, loaded)


# ------------------------------------------------------------------ operators


def test_list_all_op_names_contains_broadcast_add():
    n = ctypes.c_uint()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check(LIB.MXListAllOpNames(ctypes.byref(n), ctypes.byref(names)))
    all_names = {names[i].decode() for i in range(n.value)}
    assert {"broadcast_add", "sum", "_mul_scalar", "Reshape"} <= all_names
    assert all_names == set(mx._ffi.list_op_names())


def test_unknown_op_name_fails_with_message():
    h = ctypes.c_void_p()
    assert LIB.NNGetOpHandle(b"no_such_op", ctypes.byref(h)) == -1
    assert "no_such_op" in last_error() and "not registered" in last_error()


def _op_info(name):
    out_name, desc, key_var = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
    ret_type = ctypes.c_char_p(b"x")
    n = ctypes.c_uint()
    arg_names = ctypes.POINTER(ctypes.c_char_p)()
    arg_types = ctypes.POINTER(ctypes.c_char_p)()
    arg_descs = ctypes.POINTER(ctypes.c_char_p)()
    check(LIB.MXSymbolGetAtomicSymbolInfo(op_handle(name), ctypes.byref(out_name),
                                          ctypes.byref(desc), ctypes.byref(n),
                                          ctypes.byref(arg_names), ctypes.byref(arg_types),
                                          ctypes.byref(arg_descs), ctypes.byref(key_var),
                                          ctypes.byref(ret_type)))
    args = [(arg_names[i].decode(), arg_types[i].decode(), arg_descs[i].decode())
            for i in range(n.value)]
    return out_name.value.decode(), desc.value.decode(), args, key_var.value.decode(), ret_type.value


def test_atomic_symbol_info_returns_doc_and_args():
    name, desc, args, key_var, ret_type = _op_info("broadcast_add")
    info = mx._ffi.op_info("broadcast_add")
    assert name == "broadcast_add" and desc == info["description"] and desc
    assert [a[0] for a in args] == ["lhs", "rhs"]
    assert args[0][1] == "NDArray-or-Symbol"
    assert key_var == "" and ret_type is None
    _, _, sum_args, _, _ = _op_info("sum")
    assert [a[0] for a in sum_args][:3] == ["data", "axis", "keepdims"]
    assert _op_info("concat")[3] == "num_args"


def test_bad_creator_handle_is_rejected():
    junk = ctypes.c_int(5)
    n = ctypes.c_uint()
    assert LIB.MXSymbolGetAtomicSymbolInfo(ctypes.byref(junk), None, None, ctypes.byref(n),
                                           None, None, None, None, None) == -1
    assert "not an operator handle" in last_error()
    num_out = ctypes.c_int(0)
    outs = ctypes.POINTER(NDArrayHandle)()
    assert LIB.MXImperativeInvoke(None, 0, None, ctypes.byref(num_out), ctypes.byref(outs),
                                  0, None, None) == -1
    assert "creator is NULL" in last_error()


def test_imperative_invoke_allocates_outputs_in_thread_local_storage():
    a = from_numpy([[1, 2, 3], [4, 5, 6]])
    (s,) = invoke("sum", [a], {"axis": 1})
    np.testing.assert_array_equal(to_numpy(s), [6, 15])
    (t,) = invoke("sum", [a], {"axis": "(0,1)", "keepdims": "True"})
    assert shape_of(t) == (1, 1)
    free(a, s, t)


def test_imperative_invoke_with_no_inputs_and_variadic_op():
    (z,) = invoke("_ones", [], {"shape": "(2,3)"})
    np.testing.assert_array_equal(to_numpy(z), np.ones((2, 3)))
    (c,) = invoke("concat", [z, z], {"dim": 0})  # num_args defaults to the number of inputs
    assert shape_of(c) == (4, 3)
    free(z, c)


def test_imperative_invoke_writes_into_given_and_none_outputs():
    a = from_numpy([1, 2, 3])
    out = create((3,))
    invoke("_plus_scalar", [a], {"scalar": 1}, outputs=[out])
    np.testing.assert_array_equal(to_numpy(out), [2, 3, 4])
    none = NDArrayHandle()
    check(LIB.MXNDArrayCreateNone(ctypes.byref(none)))
    invoke("_mul_scalar", [a], {"scalar": 2}, outputs=[none])
    assert shape_of(none) == (3,)
    np.testing.assert_array_equal(to_numpy(none), [2, 4, 6])
    free(a, out, none)


def test_imperative_invoke_wrong_number_of_inputs_fails():
    a = from_numpy([1, 2])
    with pytest.raises(mx.base.MXNetError, match=r"broadcast_add expects 2 input\(s\), given 1"):
        invoke("broadcast_add", [a])
    free(a)


def test_imperative_invoke_bad_parameter_and_shapes_fail():
    a = from_numpy([1, 2])
    b = from_numpy([1, 2, 3])
    with pytest.raises(mx.base.MXNetError, match="sum"):
        invoke("sum", [a], {"no_such_param": 1})
    with pytest.raises(mx.base.MXNetError, match="broadcast_add"):
        invoke("broadcast_add", [a, b])
    out = create((5,))
    with pytest.raises(mx.base.MXNetError, match="shape"):
        invoke("_plus_scalar", [a], {"scalar": 1}, outputs=[out])
    with pytest.raises(mx.base.MXNetError, match="given 2 output arrays"):
        invoke("_plus_scalar", [a], {"scalar": 1}, outputs=[out, out])
    free(a, b, out)


# ------------------------------------------------------------------ autograd


def test_autograd_flags_round_trip():
    prev = ctypes.c_int(-1)
    cur = ctypes.c_bool()
    check(LIB.MXAutogradSetIsRecording(1, ctypes.byref(prev)))
    try:
        assert prev.value == 0 and autograd.is_recording()
        check(LIB.MXAutogradIsRecording(ctypes.byref(cur)))
        assert cur.value
    finally:
        check(LIB.MXAutogradSetIsRecording(0, None))
    check(LIB.MXAutogradSetIsTraining(1, ctypes.byref(prev)))
    try:
        check(LIB.MXAutogradIsTraining(ctypes.byref(cur)))
        assert cur.value and autograd.is_training()
    finally:
        check(LIB.MXAutogradSetIsTraining(0, None))
    assert not autograd.is_recording() and not autograd.is_training()


def test_numpy_shape_flag_round_trip_and_is_shared_with_python():
    prev, cur = ctypes.c_int(-1), ctypes.c_int(-1)
    check(LIB.MXSetIsNumpyShape(1, ctypes.byref(prev)))
    try:
        assert prev.value == 0 and mx.is_np_shape()
        check(LIB.MXIsNumpyShape(ctypes.byref(cur)))
        assert cur.value == 1
        check(LIB.MXSetIsNumpyShape(2, ctypes.byref(prev)))
        check(LIB.MXIsNumpyShape(ctypes.byref(cur)))
        assert prev.value == 1 and cur.value == 2
        assert LIB.MXSetIsNumpyShape(5, None) == -1 and "active" in last_error()
    finally:
        check(LIB.MXSetIsNumpyShape(0, None))
    check(LIB.MXIsNumpyShape(ctypes.byref(cur)))
    assert cur.value == 0 and not mx.is_np_shape()
    assert LIB.MXIsNumpyShape(None) == -1


def _record(fn):
    check(LIB.MXAutogradSetIsRecording(1, None))
    try:
        return fn()
    finally:
        check(LIB.MXAutogradSetIsRecording(0, None))


def test_mark_variables_and_backward_into_buffers():
    x = from_numpy([1, 2, 3])
    gx = create((3,))
    reqs = (ctypes.c_uint * 1)(1)
    check(LIB.MXAutogradMarkVariables(1, (NDArrayHandle * 1)(x), reqs, (NDArrayHandle * 1)(gx)))

    def fwd():
        (sq,) = invoke("broadcast_mul", [x, x])
        (y,) = invoke("sum", [sq])
        free(sq)
        return y
    y = _record(fwd)
    check(LIB.MXAutogradBackwardEx(1, (NDArrayHandle * 1)(y), None, 0, None, 0, 0, 1, None, None))
    np.testing.assert_array_equal(to_numpy(gx), [2, 4, 6])
    g = NDArrayHandle()
    check(LIB.MXNDArrayGetGrad(x, ctypes.byref(g)))
    np.testing.assert_array_equal(to_numpy(g), [2, 4, 6])
    # Backward again without retain_graph fails with MXNet's message.
    assert LIB.MXAutogradBackwardEx(1, (NDArrayHandle * 1)(y), None, 0, None, 0, 0, 1,
                                    None, None) == -1
    assert "retain_graph" in last_error()
    free(y, g, x, gx)


def test_backward_returns_gradients_of_given_variables_with_head_grad():
    x = from_numpy([1, 2, 3])
    gx = create((3,))
    check(LIB.MXAutogradMarkVariables(1, (NDArrayHandle * 1)(x), (ctypes.c_uint * 1)(1),
                                      (NDArrayHandle * 1)(gx)))
    y = _record(lambda: invoke("_mul_scalar", [x], {"scalar": 5})[0])
    head = from_numpy([1, 10, 100])
    grads = ctypes.POINTER(NDArrayHandle)()
    stypes = c_int_p()
    check(LIB.MXAutogradBackwardEx(1, (NDArrayHandle * 1)(y), (NDArrayHandle * 1)(head), 1,
                                   (NDArrayHandle * 1)(x), 0, 0, 1, ctypes.byref(grads),
                                   ctypes.byref(stypes)))
    g = NDArrayHandle(grads[0])
    assert stypes[0] == 0
    np.testing.assert_array_equal(to_numpy(g), [5, 50, 500])
    free(g, y, head, x, gx)


def test_c_api_marks_python_array_and_python_sees_grad():
    x = mx.nd.array([1.0, -2.0])
    g = mx.nd.zeros((2,))
    check(LIB.MXAutogradMarkVariables(1, (NDArrayHandle * 1)(x.handle), (ctypes.c_uint * 1)(1),
                                      (NDArrayHandle * 1)(g.handle)))
    with autograd.record():
        y = (x * x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2, -4])
    np.testing.assert_array_equal(g.asnumpy(), [2, -4])


def test_recorded_views_carry_gradients():
    x = from_numpy([[1, 2], [3, 4], [5, 6]])
    gx = create((3, 2))
    check(LIB.MXAutogradMarkVariables(1, (NDArrayHandle * 1)(x), (ctypes.c_uint * 1)(1),
                                      (NDArrayHandle * 1)(gx)))

    def fwd():
        row, s, r = NDArrayHandle(), NDArrayHandle(), NDArrayHandle()
        check(LIB.MXNDArrayAt(x, 1, ctypes.byref(row)))                  # [3, 4]
        check(LIB.MXNDArraySlice(x, 2, 3, ctypes.byref(s)))              # [[5, 6]]
        check(LIB.MXNDArrayReshape64(s, 1, (ctypes.c_int64 * 1)(-1), False, ctypes.byref(r)))
        (p,) = invoke("_mul_scalar", [row], {"scalar": 2})
        (q,) = invoke("broadcast_add", [p, r])
        (y,) = invoke("sum", [q])
        free(row, s, r, p, q)
        return y
    y = _record(fwd)
    check(LIB.MXAutogradBackwardEx(1, (NDArrayHandle * 1)(y), None, 0, None, 0, 0, 1, None, None))
    np.testing.assert_array_equal(to_numpy(gx), [[0, 0], [2, 2], [1, 1]])
    free(y, x, gx)


def test_mark_variables_rejects_bad_input():
    x = create((2,))
    g = create((3,))
    reqs = (ctypes.c_uint * 1)(1)
    assert LIB.MXAutogradMarkVariables(1, (NDArrayHandle * 1)(x), reqs,
                                       (NDArrayHandle * 1)(g)) == -1
    assert "shape" in last_error()
    g2 = create((2,))
    assert LIB.MXAutogradMarkVariables(1, (NDArrayHandle * 1)(x), (ctypes.c_uint * 1)(2),
                                       (NDArrayHandle * 1)(g2)) == -1
    assert "reqs_array[0]" in last_error()
    assert LIB.MXAutogradMarkVariables(1, None, reqs, None) == -1
    assert "var_handles is NULL" in last_error()
    free(x, g, g2)


def test_handle_from_c_api_becomes_python_ndarray():
    lib = ctypes.CDLL(mx.libinfo.find_lib_path()[0])
    handle = ctypes.c_void_p()
    shape = (ctypes.c_int * 2)(2, 3)
    assert lib.MXNDArrayCreateEx(shape, 2, 1, 0, 0, 0, ctypes.byref(handle)) == 0
    arr = mx.nd.NDArray(handle.value)  # Python now owns the handle
    arr[:] = 4
    assert arr.shape == (2, 3) and arr.asnumpy().sum() == 24
