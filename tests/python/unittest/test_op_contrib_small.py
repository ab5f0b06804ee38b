"""khatri_rao, contrib.round_ste / sign_ste and contrib.hawkesll: results equal MXNet 1.9.1's
(fixtures/contrib_ops_mxnet191.npz, from tools/make_contrib_op_fixtures.py), gradients against
numpy transcriptions and finite differences, and errors that name the operator."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd
from mxnet.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), 'fixtures',
                               'contrib_ops_mxnet191.npz'))


def case(prefix):
    return {k.split('/', 1)[1]: FIXTURE[k] for k in FIXTURE.files if k.startswith(prefix + '/')}


def test_khatri_rao_matches_mxnet191_and_has_gradients():
    f = case('krprod')
    mats = [mx.nd.array(f['in%d' % i]) for i in range(3)]
    for m in mats:
        m.attach_grad()
    with autograd.record():
        out = mx.nd.khatri_rao(*mats)
    np.testing.assert_allclose(out.asnumpy(), f['out'], rtol=1e-6)
    head = np.random.RandomState(0).uniform(-1, 1, out.shape).astype(np.float32)
    out.backward(mx.nd.array(head))
    a, b, c = (f['in%d' % i].astype(np.float64) for i in range(3))
    h = head.reshape(2, 4, 3, 3)
    np.testing.assert_allclose(mats[0].grad.asnumpy(), np.einsum('ijkn,jn,kn->in', h, b, c),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mats[1].grad.asnumpy(), np.einsum('ijkn,in,kn->jn', h, a, c),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mats[2].grad.asnumpy(), np.einsum('ijkn,in,jn->kn', h, a, b),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mx.nd.khatri_rao(mats[0]).asnumpy(), f['in0'])
    with pytest.raises(MXNetError, match='khatri_rao.*columns'):
        mx.nd.khatri_rao(mats[0], mx.nd.ones((2, 4))).wait_to_read()


@pytest.mark.parametrize('op', ['round', 'sign'])
def test_straight_through_estimators(op):
    f = case('ste')
    x = mx.nd.array(f['x'])
    x.attach_grad()
    with autograd.record():
        y = getattr(mx.nd.contrib, op + '_ste')(x)
    np.testing.assert_array_equal(y.asnumpy(), f[op])
    np.testing.assert_array_equal(y.asnumpy(), getattr(mx.nd, op)(x).asnumpy())
    head = np.arange(20, dtype=np.float32)
    y.backward(mx.nd.array(head))
    np.testing.assert_array_equal(x.grad.asnumpy(), head)


def np_hawkes(lda, alpha, beta, state, lags, marks, valid_length, max_time):
    """Log likelihood and final state, as the operator defines them."""
    N, K = lda.shape
    ll = np.zeros(N)
    out_state = np.zeros((N, K))
    for i in range(N):
        s = state[i].astype(np.float64).copy()
        last = np.zeros(K)
        t = 0.0
        for j in range(int(valid_length[i])):
            k = marks[i, j]
            t += lags[i, j]
            d = t - last[k]
            e = np.exp(-beta[k] * d)
            ll[i] += np.log(lda[i, k] + alpha[k] * beta[k] * s[k] * e) - \
                (lda[i, k] * d + alpha[k] * s[k] * (1 - e))
            s[k] = 1 + s[k] * e
            last[k] = t
        for k in range(K):
            d = max_time[i] - last[k]
            e = np.exp(-beta[k] * d)
            ll[i] -= lda[i, k] * d + alpha[k] * s[k] * (1 - e)
            out_state[i, k] = s[k] * e
    return ll, out_state


HAWKES_ARGS = ('lda', 'alpha', 'beta', 'state', 'lags', 'marks', 'valid_length', 'max_time')


def run_hawkes(f, head_ll, head_state, dtype='float64'):
    nds = {k: mx.nd.array(f[k], dtype='int32' if k == 'marks' else dtype) for k in HAWKES_ARGS}
    for k in ('lda', 'alpha', 'beta', 'state'):
        nds[k].attach_grad()
    with autograd.record():
        ll, out_state = mx.nd.contrib.hawkesll(*[nds[k] for k in HAWKES_ARGS])
    autograd.backward([ll, out_state], [mx.nd.array(head_ll, dtype=dtype),
                                         mx.nd.array(head_state, dtype=dtype)])
    return ll.asnumpy(), out_state.asnumpy(), {k: nds[k].grad.asnumpy()
                                               for k in ('lda', 'alpha', 'beta', 'state')}


def test_hawkesll_matches_mxnet191():
    f = case('hawkes')
    ll, out_state, grads = run_hawkes(f, f['head'], np.zeros_like(f['out_state']))
    np.testing.assert_allclose(ll, f['ll'], rtol=1e-5)
    np.testing.assert_allclose(out_state, f['out_state'], rtol=1e-5)
    ref, ref_state = np_hawkes(*[f[k] for k in HAWKES_ARGS])
    np.testing.assert_allclose(ll, ref, rtol=1e-10)
    np.testing.assert_allclose(out_state, ref_state, rtol=1e-10)
    for k in ('lda', 'alpha', 'beta'):
        np.testing.assert_allclose(grads[k], f['grad_' + k], rtol=1e-4, atol=1e-6, err_msg=k)
    ll32, _, _ = run_hawkes(f, f['head'], np.zeros_like(f['out_state']), dtype='float32')
    np.testing.assert_allclose(ll32, f['ll'], rtol=1e-5)


def test_hawkesll_gradients_of_both_outputs_match_finite_differences():
    f = {k: v.copy() for k, v in case('hawkes').items()}
    rng = np.random.RandomState(3)
    head_state = rng.uniform(-1, 1, f['out_state'].shape)
    _, _, grads = run_hawkes(f, f['head'], head_state)

    def objective(**changed):
        args = dict(f)
        args.update(changed)
        ll, st = np_hawkes(*[args[k] for k in HAWKES_ARGS])
        return (ll * f['head']).sum() + (st * head_state).sum()

    eps = 1e-6
    for k in ('lda', 'alpha', 'beta', 'state'):
        flat = f[k].reshape(-1)
        for idx in range(flat.size):
            plus, minus = flat.copy(), flat.copy()
            plus[idx] += eps
            minus[idx] -= eps
            numeric = (objective(**{k: plus.reshape(f[k].shape)})
                       - objective(**{k: minus.reshape(f[k].shape)})) / (2 * eps)
            assert abs(grads[k].reshape(-1)[idx] - numeric) < 1e-5 * max(1, abs(numeric)), \
                (k, idx, grads[k].reshape(-1)[idx], numeric)


def test_hawkesll_errors_name_the_input():
    f = case('hawkes')
    nds = {k: mx.nd.array(f[k], dtype='int32' if k == 'marks' else 'float64')
           for k in HAWKES_ARGS}
    bad_marks = f['marks'].copy()
    bad_marks[0, 0] = 7
    nds['marks'] = mx.nd.array(bad_marks, dtype='int32')
    with pytest.raises(MXNetError, match=r'hawkesll.*marks\[0, 0\] = 7'):
        mx.nd.contrib.hawkesll(*[nds[k] for k in HAWKES_ARGS])[0].wait_to_read()
    nds['marks'] = mx.nd.array(f['marks'], dtype='int32')
    nds['lags'].attach_grad()
    with pytest.raises(MXNetError, match='no gradient with respect to lags'):
        with autograd.record():
            ll, _ = mx.nd.contrib.hawkesll(*[nds[k] for k in HAWKES_ARGS])
        ll.backward()
        nds['lags'].grad.wait_to_read()
    with pytest.raises(MXNetError, match='alpha'):
        mx.nd.contrib.hawkesll(nds['lda'], mx.nd.ones((5,), dtype='float64'),
                               *[nds[k] for k in HAWKES_ARGS[2:]])[0].wait_to_read()


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64'])
def test_quadratic_and_gradient_multiplier(dtype):
    x_np = np.random.RandomState(1).randn(3, 4).astype(dtype)
    x = mx.nd.array(x_np, dtype=dtype)
    x.attach_grad()
    with autograd.record():
        y = mx.nd.contrib.quadratic(x, a=0.5, b=-2, c=3)
        z = mx.nd.contrib.gradientmultiplier(y, scalar=-0.25)
    tol = 1e-2 if dtype == 'float16' else 1e-6
    np.testing.assert_allclose(z.asnumpy(), 0.5 * x_np ** 2 - 2 * x_np + 3, rtol=tol, atol=tol)
    z.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), (x_np - 2) * -0.25, rtol=tol, atol=tol)
    # the gradient is a graph of registered operators, so it differentiates again
    x = mx.nd.array(x_np.astype(np.float64))
    x.attach_grad()
    with autograd.record():
        y = mx.nd.contrib.quadratic(x, a=1.5, b=1, c=0)
        (g,) = autograd.grad(y, [x], create_graph=True)
    g.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.full(x.shape, 3.0))
