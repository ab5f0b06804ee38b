"""Row-sparse keys over the distributed stores (2 workers x 2 servers on 127.0.0.1, jobs as in
test_kvstore_dist.py): pushes of row_sparse gradients move their rows only, servers sum a
sync round's rows and update lazily, row_sparse_pull fetches the rows asked for; gluon's
sparse training over dist_sync; and MXNet 1.9.1's own nightly distributed scripts, run
unmodified from the conformance checkout when it is there."""
import os
import re

import pytest

import mxnet as mx

from dist_job import REPO, launch_script, run_ok

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('DIST_KVSTORE'),
                                reason='built without USE_DIST_KVSTORE')

# Every worker rebuilds every worker's gradients from seeds, so it knows the expected sums.
# (Indented as the job bodies it is put before.)
GRADS = """
        def rsp_grads(shape, dtype, step, rank, devices, density=0.3):
            rng = np.random.RandomState(1000 * step + 10 * rank + shape[0])
            out = []
            for d in range(devices):
                g = rng.randint(-4, 5, size=shape).astype(dtype)
                g[rng.rand(shape[0]) > density] = 0
                out.append(g)
            return out
"""


@pytest.mark.parametrize('kv_type', ['dist_sync', 'dist_sync_device', 'dist_p3'])
def test_row_sparse_pushes_sum_rows_and_pulls_fetch_the_rows_asked_for(tmp_path, kv_type):
    out = run_ok(tmp_path, GRADS + """
        kv = mx.kv.create('%s')
        r = kv.rank
        # 'small' lives on one server; 'big' and 'half' are cut by rows over both (bound 100).
        specs = {'small': ((6, 4), 'float32'), 'big': ((50, 3), 'float32'),
                 'half': ((30, 2, 2), 'float16')}
        names = sorted(specs)
        for k in names:
            shape, dtype = specs[k]
            kv.init(k, mx.nd.ones(shape, dtype=dtype).tostype('row_sparse'))
        for step in range(2):
            for k in names:
                shape, dtype = specs[k]
                mine = rsp_grads(shape, dtype, step, r, 2)
                kv.push(k, [mx.nd.array(g, ctx=mx.cpu(d), dtype=dtype).tostype('row_sparse')
                            for d, g in enumerate(mine)])
                # no optimizer: the round's sum becomes the value (zeros where no row came)
                want = sum(sum(rsp_grads(shape, dtype, step, w, 2)) for w in range(2))
                ids = np.random.RandomState(step).randint(0, shape[0], size=8)
                got = mx.nd.sparse.zeros('row_sparse', shape, dtype=dtype)
                kv.row_sparse_pull(k, out=got, row_ids=mx.nd.array(ids.reshape(4, 2)))
                uniq = np.unique(ids)
                assert np.array_equal(got.indices.asnumpy(), uniq), (k, got.indices, uniq)
                assert got.data.dtype == np.dtype(dtype)
                assert np.array_equal(got.data.asnumpy(), want[uniq]), k
                dense = mx.nd.zeros(shape, dtype=dtype)
                kv.pull(k, out=dense)
                assert np.array_equal(dense.asnumpy(), want), k
                kv.row_sparse_pull(k, out=got, row_ids=mx.nd.array([], dtype='int64'))
                assert got.indices.shape == (0,) and not got.asnumpy().any()
        print('worker %%d done' %% r)
    """ % kv_type, MXNET_KVSTORE_BIGARRAY_BOUND=100)
    assert 'worker 0 done' in out and 'worker 1 done' in out


def test_a_row_sparse_push_sends_only_its_rows(tmp_path):
    # PS_VERBOSE=2 logs every message with its payload bytes: node 9/11 are the workers,
    # type 8 a push, type 11 a reply. Rows of 8 float32 are 32 bytes.
    out = run_ok(tmp_path, """
        kv = mx.kv.create('dist_sync')
        kv.init(0, mx.nd.zeros((1000, 8)).tostype('row_sparse'))
        g = np.zeros((1000, 8), dtype=np.float32)
        g[[3, 500] if kv.rank == 0 else [7, 999]] = 1
        kv.push(0, mx.nd.array(g).tostype('row_sparse'))
        got = mx.nd.sparse.zeros('row_sparse', (1000, 8))
        kv.row_sparse_pull(0, out=got, row_ids=mx.nd.array([999, 3, 3, 42]))
        assert np.array_equal(got.indices.asnumpy(), [3, 42, 999])
        assert np.array_equal(got.data.asnumpy(), [[1] * 8, [0] * 8, [1] * 8])
    """, PS_VERBOSE=2)
    pushes = re.findall(r'node (?:9|11) -> \d+ type 8 key 0 bytes (\d+)', out)
    replies = re.findall(r'node \d+ -> (?:9|11) type 11 key 0 bytes (\d+)', out)
    # worker 0's init (the whole value) and each worker's two rows
    assert sorted(int(b) for b in pushes) == [64, 64, 32000], pushes
    # the pull's answers: three rows each, nothing of the whole value
    assert sorted(int(b) for b in replies if int(b)) == [96, 96], replies


def test_servers_update_only_the_pushed_rows_lazily(tmp_path):
    run_ok(tmp_path, GRADS + """
        kv = mx.kv.create('dist_sync')
        lr, mom_f, wd = 0.1, 0.9, 0.01
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=lr, momentum=mom_f, wd=wd,
                                          lazy_update=True))
        start = {'rsp': np.linspace(-1, 1, 60).reshape((20, 3)).astype(np.float32),
                 'dense': np.linspace(-1, 1, 27).reshape((9, 3)).astype(np.float32)}
        # 'rsp' (60 elements) is cut over both servers by rows; 'dense' (27) is a dense key on
        # one server that takes row_sparse gradients: both update only the rows pushed.
        kv.init(['rsp', 'dense'], [mx.nd.array(start['rsp']).tostype('row_sparse'),
                                   mx.nd.array(start['dense'])])
        for k in ('rsp', 'dense'):
            w0 = start[k]
            w, mom = w0.copy(), np.zeros_like(w0)
            for step in range(3):
                grads = [rsp_grads(w0.shape, 'float32', step, x, 1, 0.15)[0] for x in range(2)]
                kv.push(k, mx.nd.array(grads[kv.rank]).tostype('row_sparse'))
                g = grads[0] + grads[1]
                rows = np.unique(np.nonzero(np.abs(grads[0]) + np.abs(grads[1]))[0])
                mom[rows] = mom_f * mom[rows] - lr * (g[rows] + wd * w[rows])
                w[rows] += mom[rows]
                out = mx.nd.sparse.zeros('row_sparse', w0.shape)
                kv.row_sparse_pull(k, out=out, row_ids=mx.nd.arange(w0.shape[0]))
                np.testing.assert_allclose(out.asnumpy(), w, rtol=1e-5, atol=1e-6)
            untouched = np.nonzero((w == w0).all(axis=1))[0]
            assert len(untouched) > 0, k  # rows no push brought keep their value (no decay)
    """, MXNET_KVSTORE_BIGARRAY_BOUND=30)


def test_dist_async_applies_each_row_sparse_push(tmp_path):
    run_ok(tmp_path, """
        kv = mx.kv.create('dist_async')
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
        kv.init(5, mx.nd.zeros((40, 2)).tostype('row_sparse'))
        rows = [1, 5, 30] if kv.rank == 0 else [5, 39]
        g = np.zeros((40, 2), dtype=np.float32)
        g[rows] = kv.rank + 1
        for step in range(4):
            kv.push(5, mx.nd.array(g).tostype('row_sparse'))
        out = mx.nd.sparse.zeros('row_sparse', (40, 2))
        kv.row_sparse_pull(5, out=out, row_ids=mx.nd.arange(40))
        out.wait_to_read()
        kv._barrier()
        kv.row_sparse_pull(5, out=out, row_ids=mx.nd.arange(40))
        want = np.zeros((40, 2), dtype=np.float32)
        want[[1, 30]] = -0.5 * 4 * 1
        want[5] = -0.5 * 4 * (1 + 2)
        want[39] = -0.5 * 4 * 2
        assert np.array_equal(out.asnumpy(), want), out.asnumpy()
    """, MXNET_KVSTORE_BIGARRAY_BOUND=50)


def test_dense_keys_cut_over_servers_take_row_sparse_gradients(tmp_path):
    # With the bound at 100, (99, 7) is cut over both servers on whole rows (and words): its
    # parts take rows and update lazily. (3, 41) has too few rows for such a cut: it is cut
    # inside a row, and its parts take the dense gradient (every row decays: a standard
    # update).
    run_ok(tmp_path, """
        kv = mx.kv.create('dist_sync')
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, wd=0.5))
        kv.init([1, 2], [mx.nd.ones((99, 7)), mx.nd.ones((3, 41))])
        g = np.zeros((99, 7), dtype=np.float32)
        g[kv.rank * 50] = 1
        kv.push(1, mx.nd.array(g).tostype('row_sparse'))
        g2 = np.zeros((3, 41), dtype=np.float32)
        g2[kv.rank] = 1
        kv.push(2, mx.nd.array(g2).tostype('row_sparse'))
        out, out2 = mx.nd.zeros((99, 7)), mx.nd.zeros((3, 41))
        kv.pull([1, 2], out=[out, out2])
        want = np.ones((99, 7), dtype=np.float32)
        want[[0, 50]] = 1 - (1 + 0.5)
        assert np.array_equal(out.asnumpy(), want), out.asnumpy()
        want2 = np.full((3, 41), 0.5, dtype=np.float32)
        want2[[0, 1]] = -0.5
        assert np.array_equal(out2.asnumpy(), want2), out2.asnumpy()
        rsp = mx.nd.sparse.zeros('row_sparse', (99, 7))
        kv.row_sparse_pull(1, out=rsp, row_ids=mx.nd.array([50, 2, 98]))
        assert np.array_equal(rsp.indices.asnumpy(), [2, 50, 98])
        assert np.array_equal(rsp.data.asnumpy(), want[[2, 50, 98]])
        rsp2 = mx.nd.sparse.zeros('row_sparse', (3, 41))
        kv.row_sparse_pull(2, out=rsp2, row_ids=mx.nd.array([2, 1]))
        assert np.array_equal(rsp2.indices.asnumpy(), [1, 2])
        assert np.array_equal(rsp2.data.asnumpy(), want2[[1, 2]])
    """, MXNET_KVSTORE_BIGARRAY_BOUND=100)


def test_row_sparse_misuse_raises_errors_naming_it(tmp_path):
    run_ok(tmp_path, """
        kv = mx.kv.create('dist_sync')
        kv.init(['w', 'd'], [mx.nd.ones((4, 3)).tostype('row_sparse'), mx.nd.ones((4, 3))])
        def raises(fn, text):
            try:
                fn()
            except mx.MXNetError as e:
                assert text in str(e), str(e)
                return
            raise AssertionError('no error: ' + text)
        rsp = mx.nd.sparse.zeros('row_sparse', (4, 3))
        raises(lambda: kv.pull('w', out=rsp, ignore_sparse=False), 'ignore_sparse=False')
        raises(lambda: kv.row_sparse_pull('w', out=mx.nd.zeros((4, 3)), row_ids=mx.nd.array([1])),
               'row_sparse')
        def pull_row_4():
            out = mx.nd.sparse.zeros('row_sparse', (4, 3))
            kv.row_sparse_pull('w', out=out, row_ids=mx.nd.array([4]))
            out.asnumpy()  # the pull fails in the engine: the error comes at the wait
        raises(pull_row_4, 'is not a row of its 4 rows')
        raises(lambda: kv.push('w', mx.nd.ones((5, 3)).tostype('row_sparse')), 'shape')
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        raises(lambda: kv.push('w', mx.nd.ones((4, 3)).tostype('row_sparse')),
               'compression for row sparse')
        raises(lambda: kv.push('d', mx.nd.ones((4, 3)).tostype('row_sparse')),
               'compression for row sparse')
        raises(lambda: kv.push('w', mx.nd.ones((4, 3))), 'initialized row_sparse')
        # the store still works
        kv.push('d', mx.nd.ones((4, 3)))
        out = mx.nd.zeros((4, 3))
        kv.pull('d', out=out)
        assert np.all(out.asnumpy() == 2 * 0.5)
    """)


def test_gluon_sparse_training_over_dist_sync_updates_rows_lazily(tmp_path):
    run_ok(tmp_path, """
        from mxnet import autograd, gluon
        kv = mx.kv.create('dist_sync')
        lr, mom_f, wd = 0.1, 0.5, 0.1
        opt = {'learning_rate': lr, 'momentum': mom_f, 'wd': wd}
        ids = {0: [[1, 1, 4], [2, 4, 4], [7]], 1: [[4, 9], [9, 9], [1]]}  # per worker, step
        # Embedding(sparse_grad=True): a dense weight, row_sparse gradients, updated on the
        # servers (1.9.1's rule for dist stores) and pulled back whole.
        net = gluon.nn.Embedding(10, 3, sparse_grad=True)
        net.initialize(mx.init.Constant(1.0))
        # A row_sparse weight: lives on the servers, read through row_sparse_data.
        p = gluon.Parameter('emb', shape=(10, 3), stype='row_sparse', grad_stype='row_sparse')
        p.initialize(init=mx.init.Constant(1.0))
        trainer = gluon.Trainer(list(net.collect_params().values()) + [p], 'sgd', opt,
                                kvstore=kv)
        w, mom = np.ones((10, 3), np.float32), np.zeros((10, 3), np.float32)
        for step in range(3):
            x = mx.nd.array(ids[kv.rank][step])
            with autograd.record():
                y = net(x).sum()
                z = mx.nd.sparse.Embedding(x, p.row_sparse_data(x), 10, 3,
                                           sparse_grad=True).sum()
            y.backward()
            z.backward()
            trainer.step(1)
            g = np.zeros((10, 3), np.float32)
            for i in ids[0][step] + ids[1][step]:
                g[i] += 1
            rows = np.unique(ids[0][step] + ids[1][step])
            mom[rows] = mom_f * mom[rows] - lr * (g[rows] + wd * w[rows])
            w[rows] += mom[rows]
            np.testing.assert_allclose(net.weight.data().asnumpy(), w, rtol=1e-5)
            got = p.row_sparse_data(mx.nd.arange(10)).asnumpy()
            np.testing.assert_allclose(got, w, rtol=1e-5)
        assert trainer._update_on_kvstore
        assert (w[[0, 3, 5, 6, 8]] == 1).all()  # never seen: not decayed
    """)


NIGHTLY = os.path.join(REPO, '..', 'shared', 'conformance', 'mxnet-1.9.1', 'tests', 'nightly')

# dist_device_sync_kvstore.py asks for mx.gpu(0) and mx.gpu(1): the job runs it on CPU
# contexts through this sitecustomize (the script itself stays as MXNet ships it).
GPU_AS_CPU = '''
import importlib.abc, importlib.machinery, sys

class _GpuAsCpu(importlib.abc.MetaPathFinder):
    """After `import mxnet`, mx.gpu(i) and mx.context.gpu(i) give mx.cpu(i)."""
    def find_spec(self, name, path, target=None):
        if name != 'mxnet':
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            cpu = module.cpu
            module.gpu = module.context.gpu = lambda device_id=0: cpu(device_id)
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _GpuAsCpu())
'''


@pytest.mark.skipif(not os.path.isdir(NIGHTLY), reason='no MXNet 1.9.1 conformance checkout')
@pytest.mark.parametrize('script,args', [
    # MXNet's CI runs these with its defaults (7 repeats); fewer keep CI time modest.
    ('dist_sync_kvstore.py', ['--nrepeat', '2']),
    ('dist_sync_kvstore.py', ['--nrepeat', '2', '--no-multiprecision']),
    ('dist_sync_kvstore.py', ['--type=compressed_cpu', '--nrepeat', '1']),
    ('dist_sync_kvstore.py', ['--type=invalid_cpu']),
    ('dist_sync_kvstore.py', ['--type=gluon_type_cpu']),
    ('dist_sync_kvstore.py', ['--type=gluon_step_cpu']),
    ('dist_sync_kvstore.py', ['--type=gluon_sparse_step_cpu']),
    ('dist_async_kvstore.py', []),
    ('dist_device_sync_kvstore.py', []),
])
def test_mxnet_nightly_dist_script_passes_unmodified(tmp_path, script, args):
    """MXNet 1.9.1's tests/nightly scripts, as its CI runs them (launch.py --launcher local),
    with 2 workers and 2 servers, from a scratch folder (they write files there); the
    scripts import their neighbour test_kvstore.py from the checkout."""
    site = tmp_path / 'site'
    site.mkdir()
    (site / 'sitecustomize.py').write_text(GPU_AS_CPU)
    status, out = launch_script(os.path.join(NIGHTLY, script), args, timeout=180, cwd=tmp_path,
                                pythonpath=[str(site)], PYTHONDONTWRITEBYTECODE=1,
                                MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0)
    assert status == 0, out
    assert 'Traceback' not in out, out
