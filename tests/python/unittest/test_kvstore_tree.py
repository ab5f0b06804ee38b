# Tests of the tree 'device' KVStore (MXNET_KVSTORE_USETREE=1) over several mx.cpu(i)
# contexts: sums and pulls equal the plain 'device' store's and numpy's, keys cut over the
# trees (MXNET_KVSTORE_TREE_ARRAY_BOUND), MXNET_KVSTORE_LOGTREE's output, updaters, gradient
# compression, row_sparse pushes and a gluon Trainer.
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon

BOUND = 20  # MXNET_KVSTORE_TREE_ARRAY_BOUND in these tests: keys above 20 elements are cut


def _setenv(name, value):
    old = mx.util.getenv(name)
    mx.util.setenv(name, value)
    return old


@pytest.fixture
def tree_env():
    """Yields a function making a store with (tree=True) or without the tree."""
    saved = {n: mx.util.getenv(n) for n in ('MXNET_KVSTORE_USETREE', 'MXNET_KVSTORE_LOGTREE',
                                            'MXNET_KVSTORE_TREE_ARRAY_BOUND')}
    mx.util.setenv('MXNET_KVSTORE_TREE_ARRAY_BOUND', str(BOUND))

    def create(tree, log=False):
        mx.util.setenv('MXNET_KVSTORE_USETREE', '1' if tree else '0')
        mx.util.setenv('MXNET_KVSTORE_LOGTREE', '1' if log else '0')
        return mx.kv.create('device')

    yield create
    for name, value in saved.items():
        mx.util.setenv(name, value)


def _values(shape, dtype, n, seed):
    # Small integers: every summation order gives the same result in every dtype.
    rng = np.random.RandomState(seed)
    return [rng.randint(-8, 9, size=shape).astype(dtype) for _ in range(n)]


def _push_pull(kv, shape, dtype, n, seed, mode):
    ctxs = [mx.cpu(i) for i in range(n)]
    data = _values(shape, dtype, n, seed)
    kv.init('w', mx.nd.zeros(shape, dtype=dtype))
    vals = [mx.nd.array(d, ctx=c, dtype=dtype) for d, c in zip(data, ctxs)]
    outs = [mx.nd.zeros(shape, ctx=c, dtype=dtype) for c in ctxs]
    if mode == 'pushpull':
        kv.pushpull('w', vals, out=outs)
    else:
        kv.push('w', vals)
        kv.pull('w', out=outs)
    return [o.asnumpy() for o in outs], sum(d.astype(np.float64) for d in data).astype(dtype)


@pytest.mark.parametrize('n', [2, 3, 4, 5])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'int32', 'int64'])
@pytest.mark.parametrize('shape', [(7,), (3, 5), (16, 3), (17, 2), (2, 30)],
                         ids=['small', 'matrix', 'cut', 'cut_uneven', 'big_few_rows'])
def test_tree_sums_equal_the_device_store_and_numpy(tree_env, n, dtype, shape):
    for mode in ('push_pull', 'pushpull'):
        got, expected = _push_pull(tree_env(True), shape, dtype, n, 1, mode)
        plain, _ = _push_pull(tree_env(False), shape, dtype, n, 1, mode)
        for g, p in zip(got, plain):
            assert g.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(g, expected)
            np.testing.assert_array_equal(g, p)


def test_repeated_pushes_replace_the_value(tree_env):
    kv = tree_env(True)
    ctxs = [mx.cpu(i) for i in range(4)]
    kv.init(0, mx.nd.zeros((12, 3)))  # cut: 36 elements > BOUND, 12 rows >= 2 * 4
    kv.init(1, mx.nd.zeros((5,)))
    for step in range(3):
        kv.push([0, 1], [[mx.nd.ones((12, 3), ctx=c) * (i + step) for i, c in enumerate(ctxs)],
                         [mx.nd.ones((5,), ctx=c) * step for c in ctxs]])
        outs = [mx.nd.zeros((12, 3), ctx=c) for c in ctxs]
        small = [mx.nd.zeros((5,), ctx=c) for c in ctxs]
        kv.pull([0, 1], out=[outs, small])
        for o in outs:
            np.testing.assert_array_equal(o.asnumpy(), np.full((12, 3), 6 + 4 * step))
        for o in small:
            np.testing.assert_array_equal(o.asnumpy(), np.full((5,), 4 * step))


def test_pulls_to_other_contexts_and_before_any_push(tree_env):
    kv = tree_env(True)
    init = np.arange(24, dtype=np.float32).reshape(12, 2)
    kv.init('k', mx.nd.array(init))
    # Before any push there are no trees yet.
    before = [mx.nd.zeros((12, 2), ctx=mx.cpu(i)) for i in range(3)]
    kv.pull('k', out=before)
    for o in before:
        np.testing.assert_array_equal(o.asnumpy(), init)
    kv.push('k', [mx.nd.ones((12, 2), ctx=mx.cpu(i)) * (i + 1) for i in range(3)])
    # One output, two outputs on one context, a context the trees do not know.
    for outs in ([mx.nd.zeros((12, 2))],
                 [mx.nd.zeros((12, 2), ctx=mx.cpu(1)), mx.nd.zeros((12, 2), ctx=mx.cpu(1))],
                 [mx.nd.zeros((12, 2), ctx=mx.cpu(7))]):
        kv.pull('k', out=outs)
        for o in outs:
            np.testing.assert_array_equal(o.asnumpy(), np.full((12, 2), 6.))
    # A push from other contexts than the planned ones is summed without the trees.
    kv.push('k', [mx.nd.ones((12, 2), ctx=mx.cpu(i)) for i in (0, 5)])
    out = mx.nd.zeros((12, 2))
    kv.pull('k', out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full((12, 2), 2.))


def test_logtree_prints_the_trees(tree_env, capfd):
    kv = tree_env(True, log=True)
    kv.init(3, mx.nd.zeros((4,)))
    kv.push(3, [mx.nd.ones((4,), ctx=mx.cpu(i)) for i in range(4)])
    mx.nd.waitall()
    err = capfd.readouterr().err
    assert 'Using Kernighan-Lin to generate trees' in err
    assert 'Using Tree' in err
    for i in range(4):
        assert 'Tree %d:' % i in err
    assert 'W:' in err and 'Links:' in err
    # Four devices, all linked alike: tree 0 as MXNet 1.9.1 plans it, indented as it prints it.
    assert '     0\n' in err and '   0   2\n' in err and ' 0 1 2 3\n' in err

    kv = tree_env(True, log=False)
    kv.init(3, mx.nd.zeros((4,)))
    kv.push(3, [mx.nd.ones((4,), ctx=mx.cpu(i)) for i in range(4)])
    mx.nd.waitall()
    err = capfd.readouterr().err
    assert 'Using Tree' in err and 'Tree 0:' not in err


def test_backtracking_option_plans_and_sums(tree_env, capfd):
    old = _setenv('MXNET_KVSTORE_TREE_BACKTRACK', '1')
    try:
        got, expected = _push_pull(tree_env(True), (16, 3), 'float32', 4, 2, 'push_pull')
    finally:
        mx.util.setenv('MXNET_KVSTORE_TREE_BACKTRACK', old)
    assert 'Using Backtracking to generate trees' in capfd.readouterr().err
    for g in got:
        np.testing.assert_array_equal(g, expected)


@pytest.mark.parametrize('shape', [(5,), (16, 2)], ids=['whole', 'cut'])
def test_updater_gets_the_tree_sum(tree_env, shape):
    def run(tree):
        kv = tree_env(tree)
        seen = []

        def updater(key, grad, weight):
            seen.append(grad.asnumpy())
            weight[:] = weight - 0.5 * grad
        kv._set_updater(updater)
        kv.init(0, mx.nd.ones(shape))
        for step in range(2):
            kv.push(0, [mx.nd.ones(shape, ctx=mx.cpu(i)) * (i + step) for i in range(3)])
        outs = [mx.nd.zeros(shape, ctx=mx.cpu(i)) for i in range(3)]
        kv.pull(0, out=outs)
        return seen, [o.asnumpy() for o in outs]

    seen, outs = run(True)
    plain_seen, plain_outs = run(False)
    np.testing.assert_array_equal(seen[0], np.full(shape, 3.))
    np.testing.assert_array_equal(seen[1], np.full(shape, 6.))
    for s, p in zip(seen, plain_seen):
        np.testing.assert_array_equal(s, p)
    for o, p in zip(outs, plain_outs):
        np.testing.assert_array_equal(o, np.full(shape, 1 - 0.5 * 9))
        np.testing.assert_array_equal(o, p)


def test_gradient_compression_sums_like_the_device_store(tree_env):
    def run(tree):
        kv = tree_env(tree)
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        kv.init('g', mx.nd.zeros((16, 2)))
        rng = np.random.RandomState(0)
        results = []
        for _ in range(3):
            kv.push('g', [mx.nd.array(rng.uniform(-1, 1, (16, 2)), ctx=mx.cpu(i))
                          for i in range(3)])
            outs = [mx.nd.zeros((16, 2), ctx=mx.cpu(i)) for i in range(3)]
            kv.pull('g', out=outs)
            results.append([o.asnumpy() for o in outs])
        return results

    for got, plain in zip(run(True), run(False)):
        for g, p in zip(got, plain):
            np.testing.assert_array_equal(g, p)
            assert set(np.unique(g)) <= {-1.5, -1., -0.5, 0., 0.5, 1., 1.5}


def test_row_sparse_pushes_sum_like_the_device_store(tree_env):
    def run(tree):
        kv = tree_env(tree)
        kv.init('e', mx.nd.zeros((6, 2)).tostype('row_sparse'))
        vals = []
        for i in range(3):
            dense = np.zeros((6, 2), dtype=np.float32)
            dense[i] = i + 1
            dense[5] = 1
            vals.append(mx.nd.array(dense, ctx=mx.cpu(i)).tostype('row_sparse'))
        kv.push('e', vals)
        out = mx.nd.zeros((6, 2), ctx=mx.cpu(1)).tostype('row_sparse')
        kv.row_sparse_pull('e', out=out, row_ids=mx.nd.array([0, 2, 5], ctx=mx.cpu(1)))
        return out.asnumpy()

    got = run(True)
    np.testing.assert_array_equal(got, run(False))
    np.testing.assert_array_equal(got[:, 0], [1, 0, 3, 0, 0, 3])


@pytest.mark.parametrize('update_on_kvstore', [True, False])
def test_gluon_trainer_trains_the_same_with_the_tree(tree_env, update_on_kvstore):
    ctxs = [mx.cpu(i) for i in range(3)]

    def train(tree):
        old = _setenv('MXNET_KVSTORE_USETREE', '1' if tree else '0')
        try:
            mx.random.seed(7)
            net = gluon.nn.HybridSequential()
            net.add(gluon.nn.Dense(16, activation='relu'), gluon.nn.Dense(3))
            net.initialize(mx.init.Xavier(), ctx=ctxs)
            trainer = gluon.Trainer(net.collect_params(), 'sgd',
                                    {'learning_rate': 0.1, 'momentum': 0.9}, kvstore='device',
                                    update_on_kvstore=update_on_kvstore)
            loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
            rng = np.random.RandomState(3)
            for _ in range(4):
                x = rng.uniform(-1, 1, (12, 5)).astype(np.float32)
                y = rng.randint(0, 3, (12,)).astype(np.float32)
                with autograd.record():
                    losses = [loss_fn(net(mx.nd.array(x[4 * i:4 * i + 4], ctx=c)),
                                      mx.nd.array(y[4 * i:4 * i + 4], ctx=c))
                              for i, c in enumerate(ctxs)]
                for l in losses:
                    l.backward()
                trainer.step(12)
            return [p.data(c).asnumpy() for p in net.collect_params().values() for c in ctxs]
        finally:
            mx.util.setenv('MXNET_KVSTORE_USETREE', old)

    with_tree, without = train(True), train(False)
    assert len(with_tree) == len(without) == 12
    for a, b in zip(with_tree, without):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not mx.runtime.Features().is_enabled('DIST_KVSTORE'),
                    reason='built without USE_DIST_KVSTORE')
def test_dist_device_sync_sums_each_workers_devices_along_the_trees(tmp_path):
    from dist_job import run_ok
    out = run_ok(tmp_path, """
        kv = mx.kv.create('dist_device_sync')
        r = kv.rank
        ctxs = [mx.cpu(i) for i in range(3)]
        kv.init(['small', 'cut'], [mx.nd.zeros((4,)), mx.nd.zeros((12, 4))])
        for step in range(2):
            kv.push('small', [mx.nd.ones((4,), ctx=c) * (i + r) for i, c in enumerate(ctxs)])
            kv.push('cut', [mx.nd.ones((12, 4), ctx=c) * (step + r) for c in ctxs])
            small = [mx.nd.zeros((4,), ctx=c) for c in ctxs]
            cut = [mx.nd.zeros((12, 4), ctx=c) for c in ctxs]
            kv.pull('small', out=small)
            kv.pull('cut', out=cut)
            for o in small:  # worker 0: 0+1+2, worker 1: 1+2+3
                assert np.all(o.asnumpy() == 3 + 6), o
            for o in cut:
                assert np.all(o.asnumpy() == 3 * step + 3 * (step + 1)), o
        print('worker %d done' % r)
    """, MXNET_KVSTORE_USETREE=1, MXNET_KVSTORE_TREE_ARRAY_BOUND=BOUND)
    assert 'worker 0 done' in out and 'worker 1 done' in out
    assert 'Using Tree' in out
