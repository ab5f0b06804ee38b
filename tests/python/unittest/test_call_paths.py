"""The C-level call paths: NDArray arithmetic slots and the generated mx.nd.<op> callables.

Both bypass pybind11's dispatcher for common operand types and must behave exactly as the
pybind11 definitions they stand in front of (which still serve every other case)."""
import inspect
import operator
import pickle
import pydoc

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

BINARY = [("add", operator.add, operator.iadd), ("sub", operator.sub, operator.isub),
          ("mul", operator.mul, operator.imul), ("truediv", operator.truediv, operator.itruediv),
          ("mod", operator.mod, operator.imod)]


@pytest.mark.parametrize("name,op,iop", BINARY)
def test_array_and_scalar_operands_match_the_pybind11_operators(name, op, iop):
    x = np.array([[1.5, -2.0, 3.0], [4.0, 5.5, -6.0]], dtype=np.float32)
    y = np.array([2.0, -3.0, 4.5], dtype=np.float32)
    a, b = mx.nd.array(x), mx.nd.array(y)
    dunder = getattr(mx.nd.NDArray, "__%s__" % name)
    rdunder = getattr(mx.nd.NDArray, "__r%s__" % name)
    for got, want in [(op(a, b), dunder(a, b)), (op(a, 2.5), dunder(a, 2.5)),
                      (op(a, 3), dunder(a, 3)), (op(4.0, a), rdunder(a, 4.0)),
                      (op(7, a), rdunder(a, 7))]:
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    np.testing.assert_allclose(op(a, b).asnumpy(), op(x, y), rtol=1e-6)
    np.testing.assert_allclose(op(10, a).asnumpy(), op(np.float32(10), x), rtol=1e-6)
    c = a.copy()
    same = c
    c = iop(c, b)
    assert c is same, "an in-place operator returns the same array"
    np.testing.assert_allclose(c.asnumpy(), op(x, y), rtol=1e-6)
    c = iop(c, 2)
    np.testing.assert_allclose(c.asnumpy(), op(op(x, y), np.float32(2)), rtol=1e-6)


def test_other_operand_types_take_the_generic_path():
    a = mx.nd.array([1.0, 2.0])
    np.testing.assert_allclose((a + np.float32(1.5)).asnumpy(), [2.5, 3.5])
    np.testing.assert_allclose((np.float64(2) * a).asnumpy(), [2.0, 4.0])
    np.testing.assert_allclose((a + True).asnumpy(), [2.0, 3.0])
    with pytest.raises(TypeError):
        a + "x"
    with pytest.raises(TypeError):
        "x" - a
    # An int too large for a double is refused the way the pybind11 operator refuses it.
    with pytest.raises((TypeError, OverflowError)):
        a + (1 << 2000)


def test_subclass_overriding_an_operator_is_respected():
    class Tagged(mx.nd.NDArray):
        pass
    # A subclass instance is not an exact NDArray: the generic path serves it, result intact.
    a = mx.nd.array([1.0, 2.0])
    assert type(a + a) is mx.nd.NDArray


def test_errors_are_mxnet_errors_and_leave_the_operand_intact():
    a = mx.nd.ones((2, 3))
    with pytest.raises(MXNetError, match="broadcast"):
        a + mx.nd.ones((4,))
    with pytest.raises(MXNetError):
        a += mx.nd.ones((4,))
    np.testing.assert_array_equal(a.asnumpy(), np.ones((2, 3)))
    b = mx.nd.array([True, False], dtype=np.bool_)
    with pytest.raises(MXNetError):
        b - b


def test_recorded_arithmetic_gives_gradients():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x + 3 * x - 1.0) / 2 % 100
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), (2 * np.array([1.0, 2.0, 3.0]) + 3) / 2)


def test_op_function_has_name_doc_module_and_shows_in_help():
    f = mx.nd.exp
    assert f.__name__ == "exp" and f.__qualname__ == "exp"
    assert f.__module__ == "mxnet.ndarray"
    assert mx.nd.contrib.isinf.__module__ == "mxnet.ndarray.contrib"
    assert "exponential" in f.__doc__
    assert repr(f).startswith("<function exp at ")
    assert callable(f) and inspect.isroutine(f)
    assert "exponential" in pydoc.render_doc(f)


def test_op_function_arguments_out_and_errors():
    a = mx.nd.array([[1.0, -2.0], [3.0, -4.0]])
    np.testing.assert_allclose(mx.nd.relu(a).asnumpy(), [[1, 0], [3, 0]])
    np.testing.assert_allclose(mx.nd.relu(data=a).asnumpy(), [[1, 0], [3, 0]])
    np.testing.assert_allclose(mx.nd.sum(a, 1).asnumpy(), [-1, -1])
    np.testing.assert_allclose(mx.nd.sum(a, axis=0, keepdims=True).asnumpy(), [[4, -6]])
    out = mx.nd.zeros((2, 2))
    assert mx.nd.abs(a, out=out) is out
    np.testing.assert_allclose(out.asnumpy(), [[1, 2], [3, 4]])
    np.testing.assert_allclose(mx.nd.concat(a, a, dim=0).shape, (4, 2))
    np.testing.assert_allclose(mx.nd.add_n(*[a, a, a]).asnumpy(), 3 * a.asnumpy())
    with pytest.raises(MXNetError, match="axis"):
        mx.nd.sum(a, axis=5)
    with pytest.raises(TypeError, match="multiple values"):
        mx.nd.sum(a, 1, axis=1)
    with pytest.raises(MXNetError, match="bogus"):
        mx.nd.sum(a, bogus=1)
    # an op without arguments ignores keyword arguments, as MXNet 1.9.1 does
    np.testing.assert_allclose(mx.nd.relu(a, bogus=1).asnumpy(), np.maximum(a.asnumpy(), 0))
    with pytest.raises(TypeError, match="inputs must be NDArray"):
        mx.nd.concat([a, 1], dim=0)


def test_op_function_binds_like_a_static_method():
    class Holder:
        relu = mx.nd.relu
    a = mx.nd.array([-1.0, 2.0])
    np.testing.assert_allclose(Holder().relu(a).asnumpy(), [0, 2])
    np.testing.assert_allclose(Holder.relu(a).asnumpy(), [0, 2])


def test_call_op_by_index():
    from mxnet import _ffi
    a = mx.nd.array([-1.0, 2.0])
    np.testing.assert_allclose(_ffi.call_op(_ffi.op_index("relu"), a).asnumpy(), [0, 2])
    with pytest.raises(TypeError):
        _ffi.call_op("relu", a)
    with pytest.raises(ValueError):
        _ffi.call_op(1 << 30, a)


def test_small_ops_run_at_once_and_large_ones_still_order_correctly():
    # A chain mixing small (inline) and large (queued) ops on shared arrays.
    small = mx.nd.ones((4,))
    large = mx.nd.ones((100000,))
    for _ in range(20):
        large = large * 1.01
        small = small + large[0:4]
        large[0:4] = small
    want_small, want_large = np.ones(4), np.ones(100000)
    for _ in range(20):
        want_large = want_large * np.float32(1.01)
        want_small = want_small + want_large[0:4]
        want_large[0:4] = want_small
    np.testing.assert_allclose(small.asnumpy(), want_small, rtol=1e-5)
    np.testing.assert_allclose(large.asnumpy(), want_large, rtol=1e-5)
