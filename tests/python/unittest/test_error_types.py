"""MXNetError subclasses from the message (as MXNet 1.9.1's mxnet.error): an operator error
whose clause starts with IndexError: / ValueError: / ... is also that builtin."""
import numpy as np
import pytest
import mxnet as mx
from mxnet.base import MXNetError


def test_out_of_bounds_gather_nd_is_an_index_error():
    data = mx.nd.array([[0, 1, 2], [3, 4, 5]])
    indices = mx.nd.array([[0, 0, 0], [0, 1, 3]])
    with pytest.raises(IndexError) as info:
        mx.nd.gather_nd(data, indices).asnumpy()
    assert isinstance(info.value, MXNetError)
    assert "IndexError" in str(info.value)


def test_plain_errors_stay_mxnet_errors_only():
    with pytest.raises(MXNetError) as info:
        mx.nd.ones((2, 3)) + mx.nd.ones((4, 5))
    assert not isinstance(info.value, (IndexError, ValueError, TypeError))


def test_typed_error_classes_are_reused():
    data = mx.nd.array([[0, 1, 2]])
    kinds = set()
    for _ in range(2):
        try:
            mx.nd.gather_nd(data, mx.nd.array([[5]])).asnumpy()
        except IndexError as e:
            kinds.add(type(e))
    assert len(kinds) == 1
    assert issubclass(kinds.pop(), MXNetError)
