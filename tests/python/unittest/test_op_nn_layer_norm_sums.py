"""LayerNorm's gamma and beta gradients over many rows keep float32 accuracy (summed in
double on both the oneDNN and the plain path), as MXNet 1.9.1's test_layer_norm demands."""
import numpy as np
import pytest
import mxnet as mx


@pytest.mark.parametrize("axis", [-1, 0])
def test_gamma_beta_gradients_over_many_rows(axis):
    rng = np.random.RandomState(3)
    shape = (4096, 256)
    x = rng.normal(0, 1, shape).astype(np.float32)
    dy = rng.normal(0, 1, shape).astype(np.float32)
    n = shape[axis]
    gamma = rng.normal(0, 1, (n,)).astype(np.float32)
    beta = rng.normal(0, 1, (n,)).astype(np.float32)
    sym = mx.sym.LayerNorm(mx.sym.var('data'), mx.sym.var('gamma'), mx.sym.var('beta'),
                           axis=axis, eps=1e-3)
    ex = sym.simple_bind(mx.cpu(), data=shape, grad_req='write')
    ex.arg_dict['data'][:] = x
    ex.arg_dict['gamma'][:] = gamma
    ex.arg_dict['beta'][:] = beta
    ex.forward(is_train=True)
    ex.backward([mx.nd.array(dy)])
    red = tuple(i for i in range(2) if i != axis % 2)
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    mean = x64.mean(axis=axis, keepdims=True)
    std = np.sqrt(x64.var(axis=axis, keepdims=True) + 1e-3)
    want_beta = dy64.sum(axis=red)
    want_gamma = (dy64 * (x64 - mean) / std).sum(axis=red)
    np.testing.assert_allclose(ex.grad_dict['beta'].asnumpy(), want_beta, rtol=1e-6, atol=1e-5)
    # gamma's also carries the float32 mean and std the forward stored
    np.testing.assert_allclose(ex.grad_dict['gamma'].asnumpy(), want_gamma, rtol=1e-5, atol=1e-4)
