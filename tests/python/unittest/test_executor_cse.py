"""Common-expression elimination at bind time (MXNET_ELIMINATE_COMMON_EXPR)."""
import numpy as np
import pytest
import mxnet as mx
from mxnet.test_utils import environment


def _bind(sym, cse, grad_req='write', **shapes):
    with environment({'MXNET_ELIMINATE_COMMON_EXPR': '1' if cse else '0'}):
        return sym.simple_bind(mx.cpu(), grad_req=grad_req, **shapes)


def _nodes(ex):
    return ex.get_optimized_symbol().get_internals().list_outputs()


def test_same_expression_is_computed_once():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    sym = (a + b) * (a + b)
    assert len(_nodes(_bind(sym, False, a=(2, 3), b=(2, 3)))) == 5
    assert len(_nodes(_bind(sym, True, a=(2, 3), b=(2, 3)))) == 4


def test_default_is_on():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    with environment({'MXNET_ELIMINATE_COMMON_EXPR': None}):
        ex = ((a + b) + (a + b)).simple_bind(mx.cpu(), a=(2,), b=(2,))
    assert len(_nodes(ex)) == 4


def test_different_attributes_stay_apart():
    a = mx.sym.var('a')
    ex = _bind((a + 1) + (a + 2), True, a=(3,))
    assert len(_nodes(ex)) == 4


def test_chains_merge_repeatedly():
    a, b, c = mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')
    sym = ((a + b) + c) + ((a + b) + c)
    shapes = dict(a=(2, 2), b=(2, 2), c=(2, 2))
    assert len(_nodes(_bind(sym, False, **shapes))) == len(_nodes(_bind(sym, True, **shapes))) + 2


def test_repeated_outputs_get_copies_and_own_arrays():
    a = mx.sym.var('a')
    d = a + 1
    sym = mx.sym.Group([a * d, a * d])
    ex = _bind(sym, True, a=(4,))
    names = _nodes(ex)
    assert any(n.endswith('_0_copy_output') for n in names), names
    assert len(ex.outputs) == 2
    ex.arg_dict['a'][:] = np.arange(4)
    out = ex.forward(is_train=True)
    want = np.arange(4) * (np.arange(4) + 1)
    np.testing.assert_allclose(out[0].asnumpy(), want)
    np.testing.assert_allclose(out[1].asnumpy(), want)
    out[0][:] = -1
    assert ex.outputs[1].asnumpy()[1] == want[1]


@pytest.mark.parametrize('grad_req', ['write', 'add'])
def test_values_and_gradients_match_without_merging(grad_req):
    a, b = mx.sym.var('a'), mx.sym.var('b')
    sym = mx.sym.Group([mx.sym.sin(a * b) + mx.sym.sin(a * b), a * b])
    rng = np.random.RandomState(1)
    va, vb = rng.randn(3, 4), rng.randn(3, 4)
    res = []
    for cse in (False, True):
        ex = _bind(sym, cse, grad_req=grad_req, a=(3, 4), b=(3, 4))
        ex.arg_dict['a'][:] = va
        ex.arg_dict['b'][:] = vb
        for g in ex.grad_arrays:
            g[:] = 0.5
        outs = ex.forward(is_train=True)
        ex.backward([mx.nd.ones_like(o) for o in outs])
        res.append([o.asnumpy() for o in outs] + [g.asnumpy() for g in ex.grad_arrays])
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def test_random_ops_are_not_merged():
    a = mx.sym.var('a')
    for sym in (mx.sym.Dropout(a, p=0.5) + mx.sym.Dropout(a, p=0.5),
                mx.sym.random.uniform_like(a) + mx.sym.random.uniform_like(a)):
        assert len(_nodes(_bind(sym, True, a=(100,)))) == len(_nodes(_bind(sym, False, a=(100,))))


def test_argument_order_is_kept():
    a, b, c = mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')
    sym = (c * (a + b)) + (c * (a + b))
    ex = _bind(sym, True, a=(2,), b=(2,), c=(2,))
    assert ex.get_optimized_symbol().list_arguments() == sym.list_arguments()
