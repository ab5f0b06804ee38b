"""FInplaceIdentity in the executor's memory plan: an op whose output is its input (Reshape,
Flatten, expand_dims, _copy, BlockGrad, ...) shares the input's storage even while other
nodes still read the input, as MXNet 1.9.1's PlanMemory; values stay right."""
import numpy as np
import pytest
import mxnet as mx

SHAPE = (1024, 2048)  # 8 MB of float32: debug_str counts whole MB


def _planned_mb(ex):
    line = [l for l in ex.debug_str().splitlines() if l.endswith(" MB allocated")][-1]
    return int(line.split()[1])


def _graph(view):
    # y stays an output, so view(y) cannot take y's block by plain in-place reuse
    x = mx.sym.Variable('x')
    y = mx.sym.exp(x, name='y')
    return mx.sym.Group([mx.sym.softmax(view(y), name='sm'), y])


VIEWS = {
    'Flatten': lambda v: mx.sym.Flatten(v),
    'Reshape': lambda v: mx.sym.reshape(v, shape=(-1,)),
    'expand_dims': lambda v: mx.sym.expand_dims(v, axis=0),
    'identity': lambda v: mx.sym.identity(v),
    'BlockGrad': lambda v: mx.sym.BlockGrad(v),
    'reshape_like': lambda v: mx.sym.reshape_like(v, mx.sym.zeros((2048, 1024))),
    'Cast': lambda v: mx.sym.Cast(v, dtype='float32'),
    'amp_cast': lambda v: mx.sym.amp_cast(v, dtype='float32'),
    'amp_multicast': lambda v: mx.sym.amp_multicast(v, num_outputs=1)[0],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_identity_ops_share_their_input_block(name):
    ex = _graph(VIEWS[name]).simple_bind(mx.cpu(), x=SHAPE, grad_req='null')
    # y and the view in one block, softmax's output in a second (MXNet 1.9.1 plans the same)
    assert _planned_mb(ex) == 16
    x = np.random.RandomState(0).uniform(-1, 1, SHAPE).astype(np.float32)
    ex.arg_dict['x'][:] = x
    sm, y = [o.asnumpy() for o in ex.forward()]
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    want = np.exp(x).reshape(sm.shape)
    want = np.exp(want - want.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(sm, want / want.sum(axis=-1, keepdims=True), rtol=1e-5, atol=1e-9)


def test_an_op_that_is_no_identity_gets_its_own_block():
    ex = _graph(lambda v: mx.sym.sin(v)).simple_bind(mx.cpu(), x=SHAPE, grad_req='null')
    assert _planned_mb(ex) == 24


def test_a_cast_to_another_dtype_is_no_identity():
    x = mx.sym.Variable('x')
    y = mx.sym.exp(x)
    g = mx.sym.Group([mx.sym.Cast(y, dtype='int32'), y])
    ex = g.simple_bind(mx.cpu(), x=SHAPE, grad_req='null')
    assert _planned_mb(ex) == 16  # two blocks: the int32 values cannot alias the float32 ones
    xv = np.random.RandomState(0).uniform(0, 3, SHAPE).astype(np.float32)
    ex.arg_dict['x'][:] = xv
    c, yv = [o.asnumpy() for o in ex.forward()]
    np.testing.assert_array_equal(c, yv.astype(np.int32))


def test_inplace_disabled_turns_identity_sharing_off(monkeypatch):
    import os, subprocess, sys
    code = ("import mxnet as mx\n"
            "x = mx.sym.Variable('x'); y = mx.sym.exp(x)\n"
            "g = mx.sym.Group([mx.sym.softmax(mx.sym.Flatten(y)), y])\n"
            "ex = g.simple_bind(mx.cpu(), x=(1024, 2048), grad_req='null')\n"
            "print([l for l in ex.debug_str().splitlines() if 'MB' in l][0])\n")
    env = dict(os.environ, MXNET_EXEC_ENABLE_INPLACE="0",
               PYTHONPATH=os.path.dirname(os.path.dirname(mx.__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "Total 24 MB allocated"


def test_a_later_inplace_writer_does_not_clobber_the_shared_block():
    # r = Flatten(y) aliases y; relu(r) may not write over the block while y is still read
    x = mx.sym.Variable('x')
    y = mx.sym.exp(x, name='y')
    r = mx.sym.relu(mx.sym.Flatten(y) - 1.5)
    out = mx.sym.elemwise_add(r, mx.sym.sin(y))
    ex = out.simple_bind(mx.cpu(), x=(4, 5), grad_req='write')
    xv = np.random.RandomState(1).uniform(-1, 1, (4, 5)).astype(np.float32)
    ex.arg_dict['x'][:] = xv
    got = ex.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(got, np.maximum(np.exp(xv) - 1.5, 0) + np.sin(np.exp(xv)),
                               rtol=1e-5)
    ex.backward([mx.nd.ones((4, 5))])
    e = np.exp(xv)
    want = (e > 1.5) * e + np.cos(e) * e
    np.testing.assert_allclose(ex.grad_dict['x'].asnumpy(), want, rtol=1e-5)


def test_two_outputs_never_alias():
    # repeated outputs read through _copy nodes (an identity): still separate arrays
    a = mx.sym.Variable('a')
    y = mx.sym.exp(a)
    ex = mx.sym.Group([y, mx.sym.identity(y)]).simple_bind(mx.cpu(), a=(3,), grad_req='null')
    out = ex.forward()
    out[0][:] = -1
    assert out[1].asnumpy()[0] == pytest.approx(1.0)


def test_both_outputs_of_the_add_gradient_share_the_head_gradient_block():
    # _backward_add's two outputs equal its input: both may take its block, and the values
    # stay right (48 MB when the add's gradient was two _reduce_to_like copies)
    x = mx.sym.Variable('x')
    ex = mx.sym.exp(mx.sym.sin(x) + mx.sym.cos(x)).simple_bind(mx.cpu(), x=SHAPE)
    assert _planned_mb(ex) == 32
    xv = np.random.RandomState(0).uniform(-1, 1, SHAPE).astype(np.float32)
    ex.arg_dict['x'][:] = xv
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones(SHAPE))
    want = np.exp(np.sin(xv) + np.cos(xv)) * (np.cos(xv) - np.sin(xv))
    np.testing.assert_allclose(ex.grad_dict['x'].asnumpy(), want, rtol=1e-5, atol=1e-6)
