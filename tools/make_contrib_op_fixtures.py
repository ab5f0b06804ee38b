#!/usr/bin/env python
"""Writes tests/python/unittest/fixtures/contrib_ops_mxnet191.npz: MXNet 1.9.1's khatri_rao,
contrib.round_ste / sign_ste, contrib.hawkesll (log likelihood, final state, and the
gradients 1.9.1 gives for lda, alpha and beta), and the detection operators box_iou,
bipartite_matching, box_encode, box_decode and MultiBoxPrior, on random inputs.

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
    detection(rng, res)
    np.savez_compressed(OUT, **res)
    print('wrote %s (%d arrays)' % (OUT, len(res)))


def detection(rng, res):
    def boxes(*shape):
        xy = rng.uniform(0, 10, shape + (2,))
        wh = rng.uniform(0.5, 6, shape + (2,))
        return np.concatenate([xy, xy + wh], axis=-1).astype(np.float32)

    a, b = boxes(2, 3), boxes(4)
    res['iou/a'], res['iou/b'] = a, b
    res['iou/corner'] = mx.nd.contrib.box_iou(mx.nd.array(a), mx.nd.array(b)).asnumpy()
    res['iou/center'] = mx.nd.contrib.box_iou(mx.nd.array(a), mx.nd.array(b),
                                              format='center').asnumpy()

    scores = rng.uniform(0, 1, (2, 5, 4)).astype(np.float32)
    res['match/scores'] = scores
    for name, kw in (('desc', dict(threshold=0.3)), ('asc', dict(threshold=0.6, is_ascend=True))):
        x, y = mx.nd.contrib.bipartite_matching(mx.nd.array(scores), **kw)
        res['match/%s_rows' % name], res['match/%s_cols' % name] = x.asnumpy(), y.asnumpy()

    anchors, refs = boxes(2, 5), boxes(2, 3)
    samples = rng.choice([-1, 0, 1], (2, 5)).astype(np.float32)
    matches = rng.randint(0, 3, (2, 5)).astype(np.float32)
    means = np.array([0.1, -0.1, 0.05, 0.0], dtype=np.float32)
    stds = np.array([0.1, 0.1, 0.2, 0.2], dtype=np.float32)
    t, m = mx.nd.contrib.box_encode(*[mx.nd.array(v) for v in
                                      (samples, matches, anchors, refs, means, stds)])
    res.update({'encode/anchors': anchors, 'encode/refs': refs, 'encode/samples': samples,
                'encode/matches': matches, 'encode/means': means, 'encode/stds': stds,
                'encode/targets': t.asnumpy(), 'encode/masks': m.asnumpy()})

    data = rng.uniform(-1, 1, (2, 5, 4)).astype(np.float32)
    dec_anchors = boxes(1, 5)
    res['decode/data'], res['decode/anchors'] = data, dec_anchors
    for name, kw in (('corner', dict(format='corner')),
                     ('center_clip', dict(format='center', clip=0.3, std0=0.1, std1=0.2,
                                          std2=0.3, std3=0.4))):
        res['decode/' + name] = mx.nd.contrib.box_decode(
            mx.nd.array(data), mx.nd.array(dec_anchors), **kw).asnumpy()

    fmap = mx.nd.zeros((1, 2, 3, 5))
    res['prior/default'] = mx.nd.contrib.MultiBoxPrior(fmap).asnumpy()
    res['prior/custom'] = mx.nd.contrib.MultiBoxPrior(
        fmap, sizes=(0.7, 0.3), ratios=(1.5, 2, 0.5), steps=(0.2, 0.1),
        offsets=(0.25, 0.75), clip=True).asnumpy()


if __name__ == '__main__':
    main()
