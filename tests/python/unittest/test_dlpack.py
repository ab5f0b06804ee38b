"""DLPack: sharing memory with numpy and PyTorch both ways."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import mxnet as mx


def test_numpy_from_dlpack_shares_memory():
    a = mx.nd.array([1.0, 2.0, 3.0])
    n = np.from_dlpack(a)
    assert n.tolist() == [1.0, 2.0, 3.0]
    a[:] = 7
    a.wait_to_read()
    assert n.tolist() == [7.0, 7.0, 7.0]


def test_dlpack_device_is_cpu():
    assert mx.nd.ones((2,)).__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.uint8,
                                   np.int32, np.int64, np.bool_])
def test_from_dlpack_of_numpy_shares_memory(dtype):
    n = (np.arange(6).reshape(2, 3) % 2).astype(dtype)
    a = mx.nd.from_dlpack(n.__dlpack__())
    assert a.dtype == dtype and a.shape == (2, 3)
    assert np.array_equal(a.asnumpy(), n)
    n[0, 0] = 1
    assert a.asnumpy()[0, 0] == 1


def test_to_dlpack_for_read_and_write_round_trip():
    a = mx.nd.array(np.arange(4, dtype=np.float32))
    b = mx.nd.from_dlpack(a.to_dlpack_for_write())
    b += 1
    assert np.array_equal(a.asnumpy(), np.arange(1, 5, dtype=np.float32))
    c = mx.nd.from_dlpack(a.to_dlpack_for_read())
    assert np.array_equal(c.asnumpy(), a.asnumpy())


def test_consumed_capsule_cannot_be_reused():
    cap = mx.nd.ones((2,)).to_dlpack_for_read()
    mx.nd.from_dlpack(cap)
    with pytest.raises(ValueError):
        mx.nd.from_dlpack(cap)


def test_array_outlives_exporter():
    n = np.arange(5, dtype=np.float32)
    a = mx.nd.from_dlpack(n.__dlpack__())
    del n
    assert a.asnumpy().tolist() == [0, 1, 2, 3, 4]


def test_reimported_export_stays_ordered_with_the_original():
    a = mx.nd.zeros((1000,))
    for _ in range(20):
        b = mx.nd.from_dlpack(a.to_dlpack_for_write())
        b += 1
        assert a.asnumpy()[0] == b.asnumpy()[0]
    assert a.asnumpy()[-1] == 20


TORCH_PYTHON = os.environ.get("TORCH_PYTHON", "/usr/bin/python3")
TORCH_CHECK = """
import torch, mxnet as mx
a = mx.nd.array([1, 2, 3])
t = torch.from_dlpack(a)
a[:] = 5
a.wait_to_read()
assert t.tolist() == [5.0, 5.0, 5.0], t
t2 = torch.arange(4, dtype=torch.float32)
b = mx.nd.from_dlpack(t2)
t2 += 10
assert b.asnumpy().tolist() == [10.0, 11.0, 12.0, 13.0]
print("ok")
"""


def _torch_available():
    if not os.path.exists(TORCH_PYTHON):
        return False
    r = subprocess.run([TORCH_PYTHON, "-c", "import torch"], capture_output=True, timeout=120)
    return r.returncode == 0


@pytest.mark.skipif(not _torch_available(), reason="PyTorch (Debian python3-torch) not installed")
def test_torch_shares_memory_both_ways(tmp_path):
    # Only the mxnet package is put on the path, so torch keeps the numpy it was built with.
    shutil.copytree(os.path.dirname(os.path.abspath(mx.__file__)), str(tmp_path / "mxnet"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MXNET_LIBRARY_PATH")}
    env["PYTHONPATH"] = str(tmp_path)
    r = subprocess.run([TORCH_PYTHON, "-c", TORCH_CHECK], capture_output=True, text=True,
                       env=env, timeout=300)
    if r.returncode != 0 and "numpy" in r.stderr and "ABI" in r.stderr:
        pytest.skip("the torch interpreter's numpy cannot load this build: " + r.stderr[-200:])
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_from_numpy_zero_copy_makes_the_source_read_only():
    src = np.arange(6, dtype=np.float32).reshape(3, 2)
    arr = mx.nd.from_numpy(src)
    with pytest.raises(ValueError):
        src[2, 1] = 0
    arr[2, 1] = 100
    arr.wait_to_read()
    assert src[2, 1] == 100
    again = mx.nd.from_numpy(src)  # a read-only source shared before can be shared again
    assert again.asnumpy()[2, 1] == 100 and not src.flags["WRITEABLE"]
    with pytest.raises(ValueError, match="C-contiguous"):
        mx.nd.from_numpy(np.ones((2, 3), dtype=np.float32).T)
    copied = np.ones(3, dtype=np.float32)
    mx.nd.from_numpy(copied, zero_copy=False)
    copied[0] = 5  # a copy leaves the source writable


def test_from_numpy_scalar_and_zero_size_arrays():
    for src in (np.array(3.0, dtype=np.float32), np.zeros((1, 0, 2), dtype=np.float32)):
        for zero_copy in (False, True):
            out = mx.nd.from_numpy(src.copy(), zero_copy=zero_copy)
            assert out.shape == src.shape and out.asnumpy().shape == src.shape


# ---- the DLPack functions of the C API (MXNDArrayToDLPack / FromDLPack / CallDLPackDeleter)
def _capi():
    import ctypes
    lib = mx.base._LIB
    lib.MXNDArrayToDLPack.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.MXNDArrayFromDLPack.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.MXNDArrayFromDLPackEx.argtypes = [ctypes.c_void_p, ctypes.c_bool,
                                          ctypes.POINTER(ctypes.c_void_p)]
    lib.MXNDArrayCallDLPackDeleter.argtypes = [ctypes.c_void_p]
    return ctypes, lib


def test_c_api_from_dlpack_of_our_capsule_gives_back_the_same_array():
    ctypes, lib = _capi()
    x = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    capsule = mx.nd.to_dlpack_for_read(x)
    pyapi = ctypes.pythonapi
    pyapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
    pyapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    pyapi.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
    pyapi.PyCapsule_SetDestructor.argtypes = [ctypes.py_object, ctypes.c_void_p]
    ptr = pyapi.PyCapsule_GetPointer(capsule, b"dltensor")
    handle = mx.base.NDArrayHandle()
    mx.base.check_call(lib.MXNDArrayFromDLPack(ptr, ctypes.byref(handle)))
    pyapi.PyCapsule_SetName(capsule, b"used_dltensor")
    pyapi.PyCapsule_SetDestructor(capsule, None)
    y = mx.nd.NDArray(handle=handle)  # a ctypes handle, as MXNet 1.9 code passes it
    assert y.asnumpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    x[:] = 0  # the same array: writes are seen, in order
    assert y.asnumpy().sum() == 0


def test_c_api_to_dlpack_and_deleter_release_the_export():
    ctypes, lib = _capi()
    x = mx.nd.ones((4,))
    t = ctypes.c_void_p()
    mx.base.check_call(lib.MXNDArrayToDLPack(x.handle, ctypes.byref(t)))
    assert t.value
    mx.base.check_call(lib.MXNDArrayCallDLPackDeleter(t))
    mx.base.check_call(lib.MXNDArrayCallDLPackDeleter(None))  # NULL is a no-op
    assert x.asnumpy().tolist() == [1, 1, 1, 1]


def test_c_api_from_dlpack_rejects_null():
    ctypes, lib = _capi()
    handle = ctypes.c_void_p()
    assert lib.MXNDArrayFromDLPack(None, ctypes.byref(handle)) == -1
    assert b"dlpack" in lib.MXGetLastError()


def test_c_api_transient_import_leaves_the_tensor_to_its_producer():
    ctypes, lib = _capi()
    src = mx.nd.array([1.0, 2.0])
    t = ctypes.c_void_p()
    mx.base.check_call(lib.MXNDArrayToDLPack(src.handle, ctypes.byref(t)))
    handle = ctypes.c_void_p()
    mx.base.check_call(lib.MXNDArrayFromDLPackEx(t, True, ctypes.byref(handle)))
    y = mx.nd.NDArray(handle=handle)
    mx.base.check_call(lib.MXNDArrayCallDLPackDeleter(t))  # still the producer's to free
    assert y.asnumpy().tolist() == [1.0, 2.0]
