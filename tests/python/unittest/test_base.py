"""mx.base, mx.util and mx.context: C API helpers, data_dir, the process environment as the
library sees it, thread-local default context, and the binding variables read at import."""
import ctypes
import os
import shutil
import subprocess
import sys
import threading
import warnings

import pytest

import mxnet as mx
from mxnet import base, util
from mxnet.context import Context
from mxnet.test_utils import environment

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))


def run_py(code, env=None, pythonpath=PYTHON_DIR):
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["PYTHONPATH"] = pythonpath
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, timeout=120)


def test_handles_are_ctypes_void_pointers():
    for name in ("NDArrayHandle", "SymbolHandle", "CachedOpHandle", "ExecutorHandle",
                 "KVStoreHandle", "DataIterHandle", "RecordIOHandle", "ProfileHandle",
                 "OpHandle", "DLPackHandle"):
        assert getattr(base, name) is ctypes.c_void_p, name
    assert base.mx_uint is ctypes.c_uint and base.mx_float is ctypes.c_float


def test_c_array_helpers_build_ctypes_arrays():
    arr = base.c_array(base.mx_float, [1, 2, 3])
    assert len(arr) == 3 and arr[1] == 2.0
    strs = base.c_str_array(["a", "bc"])
    assert [s for s in strs] == [b"a", b"bc"]
    x, y = mx.nd.ones((2,)), mx.nd.zeros((3,))
    handles = base.c_handle_array([x, y])
    assert handles[0] == x.handle and handles[1] == y.handle
    import array as pyarray
    buf = pyarray.array("i", [4, 5, 6])
    view = base.c_array_buf(ctypes.c_int, buf)
    buf[0] = 9
    assert view[0] == 9  # no copy


def test_check_call_raises_mxnet_error_with_the_library_message():
    handle = base.NDArrayHandle()
    with pytest.raises(mx.MXNetError, match="NULL"):
        base.check_call(base._LIB.MXNDArrayWaitToRead(handle))


def test_data_dir_follows_mxnet_home():
    with environment("MXNET_HOME", None):
        assert base.data_dir() == os.path.join(os.path.expanduser("~"), ".mxnet")
    with environment("MXNET_HOME", "/tmp/mxnet_data_here"):
        assert base.data_dir() == "/tmp/mxnet_data_here"


def test_setenv_is_seen_by_the_library_and_unset_by_none():
    name = "MXNET_TEST_BASE_SETENV"
    util.setenv(name, "42")
    try:
        assert util.getenv(name) == "42"
        assert name not in os.environ  # only the C runtime's environment changed
    finally:
        util.setenv(name, None)
    assert util.getenv(name) is None


def test_environment_sets_python_and_library_and_restores_after_an_error():
    name1, name2 = "MXNET_TEST_BASE_ENV_1", "MXNET_TEST_BASE_ENV_2"
    with environment(name1, "7"):
        assert os.environ[name1] == "7" and util.getenv(name1) == "7"
    assert name1 not in os.environ and util.getenv(name1) is None
    with pytest.raises(KeyError):
        with environment({name1: "1", name2: "2"}):
            assert util.getenv(name2) == "2"
            raise KeyError("inside")
    assert util.getenv(name1) is None and util.getenv(name2) is None
    with pytest.raises(ValueError):
        with environment("only-a-name"):
            pass


def test_context_default_ctx_is_thread_local():
    seen = []

    def worker():
        mx.test_utils.set_default_context(mx.gpu(3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            seen.append(Context.default_ctx)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [mx.gpu(3)]
    with pytest.warns(DeprecationWarning):
        assert Context.default_ctx == mx.cpu(0)
    assert mx.current_context() == mx.cpu(0)


def test_with_context_sets_the_default_for_this_thread_only():
    inner = []
    with mx.cpu(5):
        t = threading.Thread(target=lambda: inner.append(mx.current_context()))
        t.start()
        t.join()
        assert mx.current_context() == mx.cpu(5)
    assert inner == [mx.cpu(0)]


def test_gpu_queries_fail_clearly_without_a_gpu():
    if mx.context.num_gpus() > 0:
        pytest.skip("a GPU is present")
    with pytest.raises(mx.MXNetError, match="gpu"):
        mx.context.gpu_memory_info(0)
    with pytest.raises(ValueError, match="gpu context"):
        util.get_cuda_compute_capability(mx.cpu())


def test_np_array_flag_is_thread_local_and_scoped():
    assert not mx.is_np_array()
    with mx.np_array(True):
        assert mx.is_np_array()
        other = []
        t = threading.Thread(target=lambda: other.append(mx.is_np_array()))
        t.start()
        t.join()
        assert other == [False]
    assert not mx.is_np_array()

    @mx.use_np_array
    def inside():
        return mx.is_np_array()
    assert inside() and not mx.is_np_array()


def test_set_np_turns_both_semantics_on_and_reset_np_off():
    with pytest.raises(ValueError):
        util.set_np(shape=False, array=True)
    assert not mx.is_np_array()
    util.set_np(shape=True, array=True)
    try:
        assert mx.is_np_array() and mx.is_np_shape()
        with pytest.raises(ValueError):  # shape off while array is on: refused (MXNet 1.9.1)
            util.set_np_shape(False)
    finally:
        util.reset_np()
    assert not mx.is_np_array() and not mx.is_np_shape()


def test_enable_cython_zero_warns_that_the_extension_is_used():
    r = run_py("import mxnet", {"MXNET_ENABLE_CYTHON": "0"})
    assert r.returncode == 0, r.stderr
    assert "MXNET_ENABLE_CYTHON=0 is ignored" in r.stderr


def test_enforce_cython_names_itself_when_the_extension_cannot_load(tmp_path):
    pkg = tmp_path / "mxnet"
    src = os.path.dirname(os.path.abspath(mx.__file__))
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    os.symlink(os.path.join(src, "libmxnet.so"), pkg / "libmxnet.so")
    ext = [f for f in os.listdir(src) if f.startswith("_ffi") and f.endswith(".so")][0]
    (pkg / ext).write_bytes(b"not a shared object")
    r = run_py("import mxnet", {"MXNET_ENFORCE_CYTHON": "1"}, pythonpath=str(tmp_path))
    assert r.returncode != 0
    assert "MXNET_ENFORCE_CYTHON=1" in r.stderr and "mxnet._ffi" in r.stderr
    r = run_py("import mxnet", {"MXNET_ENFORCE_CYTHON": "0"}, pythonpath=str(tmp_path))
    assert r.returncode != 0 and "MXNET_ENFORCE_CYTHON" not in r.stderr


def test_not_available_errors_name_the_function_and_operator():
    def clip():
        pass
    err = base.NotImplementedForSymbol(clip, "_clip", mx.nd.ones(1))
    assert isinstance(err, mx.MXNetError)
    assert str(err) == ('Function clip (namely operator "_clip") with arguments '
                        "(<class 'mxnet.ndarray.NDArray'>) is not implemented for Symbol and "
                        "only available in NDArray.")
    with pytest.raises(mx.MXNetError, match="not supported for SparseNDArray"):
        raise base.NotSupportedForSparseNDArray(clip, None)
