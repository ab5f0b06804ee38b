"""numpy-shape semantics: mx.set_np_shape / mx.np_shape switch, scalars and zero-size arrays."""
import threading

import numpy as np
import pytest

import mxnet as mx


@pytest.fixture(autouse=True)
def _shape_semantics_off():
    mx.set_np_shape(False)
    yield
    mx.set_np_shape(False)


def test_off_by_default_and_set_returns_previous_state():
    assert mx.is_np_shape() is False
    assert mx.set_np_shape(True) is False
    assert mx.is_np_shape() is True
    assert mx.set_np_shape(False) is True
    assert mx.is_np_shape() is False


def test_scope_restores_previous_state_even_on_error():
    with mx.np_shape():
        assert mx.is_np_shape()
        with mx.np_shape(False):
            assert not mx.is_np_shape()
        assert mx.is_np_shape()
    assert not mx.is_np_shape()
    with pytest.raises(ZeroDivisionError):
        with mx.np_shape(True):
            1 / 0
    assert not mx.is_np_shape()


def test_use_np_shape_decorates_functions_and_classes():
    @mx.use_np_shape
    def inside():
        return mx.is_np_shape()

    @mx.use_np_shape
    class Block:
        def state(self):
            return mx.is_np_shape()

    assert inside() and Block().state()
    assert not mx.is_np_shape()
    with pytest.raises(TypeError):
        mx.use_np_shape(3)


def test_thread_local_switch_does_not_leak_to_other_threads():
    mx.set_np_shape(True)
    seen = []
    t = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
    t.start()
    t.join()
    assert seen == [False]


def test_global_switch_reaches_new_threads_and_off_clears_it():
    mx.set_np_shape(2)
    out = []

    def work():
        out.append(mx.is_np_shape())
        out.append(mx.nd.ones((0, 1, 2)).shape)
        out.append(mx.nd.ones(()).asnumpy())

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert out[0] is True and out[1] == (0, 1, 2)
    assert out[2].shape == () and out[2] == 1
    mx.set_np_shape(0)
    t = threading.Thread(target=lambda: out.append(mx.is_np_shape()))
    t.start()
    t.join()
    assert out[-1] is False


def test_set_np_shape_rejects_unknown_values():
    with pytest.raises(mx.MXNetError, match="active"):
        mx.set_np_shape(3)


def test_zero_size_creation_rejected_outside_np_shape():
    for make in (lambda: mx.nd.zeros((0, 3)), lambda: mx.nd.ones((2, 0)),
                 lambda: mx.nd.full((0,), 7)):
        with pytest.raises(mx.MXNetError, match=r"argument shape \(.*\) has unknown dims.*0 "
                           r"outside numpy-shape"):
            make()


def test_zero_size_inputs_rejected_by_operators_outside_np_shape():
    # Arrays copied from numpy may be zero-size in either mode; operators may not use them.
    a = mx.nd.array(np.zeros((0, 3), dtype=np.float32))
    assert a.shape == (0, 3) and a.asnumpy().shape == (0, 3)
    with pytest.raises(mx.MXNetError, match=r"input 0 has shape \(0,3\)"):
        mx.nd.exp(a)


def test_zero_size_results_of_arguments_allowed_outside_np_shape():
    # As in MXNet 1.9.1, only given shapes treat 0 as unknown; sizes computed from other
    # arguments may be 0.
    assert mx.nd.one_hot(mx.nd.ones((2,)), depth=0).shape == (2, 0)
    assert mx.nd.eye(0).shape == (0, 0)


def test_zero_size_arrays_through_operators_in_np_shape():
    with mx.np_shape():
        z = mx.nd.zeros((0, 3))
        assert z.shape == (0, 3) and z.asnumpy().shape == (0, 3)
        assert (z + 1).shape == (0, 3)
        assert mx.nd.broadcast_add(z, mx.nd.ones((1, 3))).shape == (0, 3)
        assert mx.nd.exp(z).asnumpy().shape == (0, 3)
        assert mx.nd.sum(z, axis=0).asnumpy().tolist() == [0, 0, 0]
        assert mx.nd.sum(z, axis=1).shape == (0,)
        assert mx.nd.reshape(z, shape=(0, 1, 3)).shape == (0, 1, 3)  # 0 copies the input dim
        assert mx.nd.slice_axis(z, axis=1, begin=0, end=2).shape == (0, 2)


def test_scalar_arrays_in_np_shape():
    with mx.np_shape():
        s = mx.nd.ones(())
        assert s.shape == () and s.ndim == 0 and s.size == 1
        assert (s * 3).asnumpy() == 3
        assert mx.nd.exp(mx.nd.zeros(())).asscalar() == 1


def test_save_writes_numpy_shape_records_only_in_np_shape(tmp_path):
    path = str(tmp_path / "a.nd")
    mx.nd.save(path, [mx.nd.ones((2,))])
    with open(path, "rb") as f:
        assert f.read()[24:28] == bytes.fromhex("c9fa93f9")  # V2 record
    with mx.np_shape():
        mx.nd.save(path, [mx.nd.ones((2,)), mx.nd.ones(()), mx.nd.zeros((0, 2))])
        with open(path, "rb") as f:
            assert f.read()[24:28] == bytes.fromhex("cafa93f9")  # V3 record
        back = mx.nd.load(path)
        assert [a.shape for a in back] == [(2,), (), (0, 2)]
        assert back[1].asscalar() == 1


def test_load_requires_the_semantics_the_file_was_saved_with(tmp_path):
    legacy, numpy_shape = str(tmp_path / "legacy.nd"), str(tmp_path / "np.nd")
    mx.nd.save(legacy, [mx.nd.ones((2,))])
    with mx.np_shape():
        mx.nd.save(numpy_shape, [mx.nd.ones((2,))])
    with pytest.raises(mx.MXNetError, match="saved with numpy-shape semantics"):
        mx.nd.load(numpy_shape)
    with mx.np_shape():
        with pytest.raises(mx.MXNetError, match="saved without numpy-shape semantics"):
            mx.nd.load(legacy)
    # The global switch reads both, as in MXNet 1.9.1.
    mx.set_np_shape(2)
    assert mx.nd.load(legacy)[0].shape == (2,) and mx.nd.load(numpy_shape)[0].shape == (2,)


def test_zero_size_arrays_round_trip_outside_np_shape(tmp_path):
    path = str(tmp_path / "z.nd")
    arrays = [mx.nd.array(np.zeros(s, dtype=np.float32)) for s in [(2, 0, 1), (0,), (3, 0, 0)]]
    mx.nd.save(path, arrays)
    assert [a.shape for a in mx.nd.load(path)] == [(2, 0, 1), (0,), (3, 0, 0)]
