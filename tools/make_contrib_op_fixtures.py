#!/usr/bin/env python
"""Writes tests/python/unittest/fixtures/contrib_ops_mxnet191.npz: MXNet 1.9.1's khatri_rao,
contrib.round_ste / sign_ste and contrib.hawkesll (log likelihood, final state, and the
gradients 1.9.1 gives for lda, alpha and beta) on random inputs.

    /root/mxnet191-venv/bin/python tools/make_contrib_op_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), '..', 'tests', 'python', 'unittest', 'fixtures',
                   'contrib_ops_mxnet191.npz')


def main():
    rng = np.random.RandomState(42)
    res = {}
    mats = [rng.uniform(-2, 2, (m, 3)).astype(np.float32) for m in (2, 4, 3)]
    for i, m in enumerate(mats):
        res['krprod/in%d' % i] = m
    res['krprod/out'] = mx.nd.khatri_rao(*[mx.nd.array(m) for m in mats]).asnumpy()

    x = rng.uniform(-3, 3, (20,)).astype(np.float32)
    x[:4] = [0.5, -0.5, 1.5, -2.5]
    res['ste/x'] = x
    res['ste/round'] = mx.nd.contrib.round_ste(mx.nd.array(x)).asnumpy()
    res['ste/sign'] = mx.nd.contrib.sign_ste(mx.nd.array(x)).asnumpy()

    N, T, K = 3, 6, 2
    lda = rng.uniform(0.5, 2, (N, K))
    alpha = rng.uniform(0.1, 0.6, (K,))
    beta = rng.uniform(0.5, 2, (K,))
    state = rng.uniform(0, 1, (N, K))
    lags = rng.uniform(0.1, 2, (N, T))
    marks = rng.randint(0, K, (N, T)).astype(np.int32)
    valid_length = np.array([6, 3, 5], dtype=np.float64)
    max_time = lags.sum(axis=1) + 1.5
    arrays = dict(lda=lda, alpha=alpha, beta=beta, state=state, lags=lags,
                  valid_length=valid_length, max_time=max_time)
    nds = {k: mx.nd.array(v, dtype='float64') for k, v in arrays.items()}
    nds['marks'] = mx.nd.array(marks, dtype='int32')
    for k in ('lda', 'alpha', 'beta'):
        nds[k].attach_grad()
    head = rng.uniform(-1, 1, (N,))
    with mx.autograd.record():
        ll, out_state = mx.nd.contrib.hawkesll(nds['lda'], nds['alpha'], nds['beta'],
                                               nds['state'], nds['lags'], nds['marks'],
                                               nds['valid_length'], nds['max_time'])
    ll.backward(mx.nd.array(head, dtype='float64'))
    for k, v in arrays.items():
        res['hawkes/' + k] = v
    res['hawkes/marks'] = marks
    res['hawkes/head'] = head
    res['hawkes/ll'] = ll.asnumpy()
    res['hawkes/out_state'] = out_state.asnumpy()
    for k in ('lda', 'alpha', 'beta'):
        res['hawkes/grad_' + k] = nds[k].grad.asnumpy()
    np.savez_compressed(OUT, **res)
    print('wrote %s (%d arrays)' % (OUT, len(res)))


if __name__ == '__main__':
    main()
