"""DLPack: sharing memory with numpy both ways."""
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
