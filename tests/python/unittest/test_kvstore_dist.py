"""The distributed KVStore on this machine: jobs of a scheduler, 2 servers and 2 workers on
127.0.0.1, started with tools/launch.py --launcher local (or by hand where a test kills a
node; dist_job.py). Every job has a wall-clock limit, so a hang fails the test instead of
stalling CI."""
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import mxnet as mx

from dist_job import PRELUDE, REPO, job_env as _env, launch, run_ok

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('DIST_KVSTORE'),
                                reason='built without USE_DIST_KVSTORE')


@pytest.mark.parametrize('kv_type', ['dist_sync', 'dist_device_sync'])
def test_dist_sync_sums_every_workers_push(tmp_path, kv_type):
    out = run_ok(tmp_path, """
        kv = mx.kv.create('%s')
        assert kv.type == '%s' and kv.num_workers == 2 and kv.rank in (0, 1)
        r, n = kv.rank, kv.num_workers
        # 7 and 'w': small keys (one server each); 9: 350 elements > the bound, split.
        kv.init([7, 9], [mx.nd.ones((2, 3)), mx.nd.zeros((50, 7))])
        for step in range(3):
            # two devices per worker: summed here, then over the workers on the servers
            kv.push(7, [mx.nd.ones((2, 3), ctx=mx.cpu(i)) * (r + 1) for i in range(2)])
            kv.push(9, mx.nd.arange(350).reshape((50, 7)) * (r + 1 + step))
            a, b = mx.nd.zeros((2, 3)), mx.nd.zeros((50, 7))
            kv.pull(7, out=a)
            kv.pull(9, out=b)
            assert np.all(a.asnumpy() == 2 * (1 + 2)), a
            want = np.arange(350).reshape((50, 7)) * (1 + step + 2 + step)
            assert np.array_equal(b.asnumpy(), want), (b, want)
        out = mx.nd.zeros((2, 3))
        kv.pushpull(7, mx.nd.ones((2, 3)) * 10, out=out)
        assert np.all(out.asnumpy() == 20)
        kv._barrier()
        try:
            mx.kv.create('dist_sync')
            raise AssertionError('a second store in one worker was accepted')
        except mx.MXNetError as e:
            assert 'already has a distributed store' in str(e)
        print('worker %%d done' %% r)
    """ % (kv_type, kv_type), MXNET_KVSTORE_BIGARRAY_BOUND=100)
    assert 'worker 0 done' in out and 'worker 1 done' in out


def test_string_keys_and_dtypes(tmp_path):
    run_ok(tmp_path, """
        kv = mx.kv.create('dist_sync')
        kv.init(['a', 'b'], [mx.nd.zeros((4,), dtype='float64'), mx.nd.zeros((3,), dtype='int32')])
        kv.push(['a', 'b'], [mx.nd.ones((4,), dtype='float64') * 0.25,
                             mx.nd.ones((3,), dtype='int32') * (kv.rank + 1)])
        a, b = mx.nd.zeros((4,), dtype='float64'), mx.nd.zeros((3,), dtype='int32')
        kv.pull(['a', 'b'], out=[a, b])
        assert a.dtype == np.float64 and np.all(a.asnumpy() == 0.5)
        assert b.dtype == np.int32 and np.all(b.asnumpy() == 3)
    """)


def test_optimizer_runs_on_the_servers(tmp_path):
    run_ok(tmp_path, """
        kv = mx.kv.create('dist_sync')
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
        w0 = np.linspace(-1, 1, 600).reshape((20, 30)).astype(np.float32)
        kv.init(3, mx.nd.array(w0))
        w, mom = w0.copy(), np.zeros_like(w0)
        for step in range(3):
            grads = [np.cos(w0 * (k + 1) + step).astype(np.float32) for k in range(2)]
            kv.push(3, mx.nd.array(grads[kv.rank]))
            out = mx.nd.zeros(w0.shape)
            kv.pull(3, out=out)
            g = grads[0] + grads[1]
            mom = 0.9 * mom - 0.1 * g
            w = w + mom
            np.testing.assert_allclose(out.asnumpy(), w, rtol=1e-5, atol=1e-6)
    """, MXNET_KVSTORE_BIGARRAY_BOUND=256)


def test_dist_async_applies_each_push(tmp_path):
    run_ok(tmp_path, """
        kv = mx.kv.create('dist_async')
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0))
        kv.init(0, mx.nd.zeros((10,)))
        for step in range(5):
            kv.push(0, mx.nd.ones((10,)) * (kv.rank + 1))
        out = mx.nd.zeros((10,))
        kv.pull(0, out=out)
        out.wait_to_read()
        kv._barrier()
        kv.pull(0, out=out)
        # every push of both workers applied once: -(5 * 1 + 5 * 2)
        assert np.all(out.asnumpy() == -15.0), out
    """)


def _quantize_reference(grad, residual, threshold):
    """What a worker sends for grad with 2-bit compression (dequantized), and the new residual,
    through the local quantizer."""
    from mxnet import _ffi
    g = mx.nd.array(grad)
    res = mx.nd.array(residual)
    codes = mx.nd.zeros(((grad.size + 15) // 16,))
    _ffi._kvstore_quantize_2bit(g, res, codes, threshold)
    out = mx.nd.zeros(grad.shape)
    _ffi._kvstore_dequantize_2bit(codes, out, threshold)
    return out.asnumpy(), res.asnumpy()


@pytest.mark.parametrize('bound', [1000000, 40])
def test_2bit_compression_matches_the_local_quantizer(tmp_path, bound):
    grads = [[np.sin(np.arange(100, dtype=np.float32) * (r + 1) + s) * 0.8 for s in range(3)]
             for r in range(2)]
    np.save(str(tmp_path / 'grads.npy'), np.array(grads))
    expected, residual = [], [np.zeros(100, np.float32) for _ in range(2)]
    for s in range(3):
        total = np.zeros(100, np.float32)
        for r in range(2):
            sent, residual[r] = _quantize_reference(grads[r][s], residual[r], 0.5)
            total += sent
        expected.append(total)
    np.save(str(tmp_path / 'expected.npy'), np.array(expected))
    run_ok(tmp_path, """
        here = os.path.dirname(os.path.abspath(__file__))
        grads, expected = np.load(here + '/grads.npy'), np.load(here + '/expected.npy')
        kv = mx.kv.create('dist_sync')
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        kv.init(5, mx.nd.zeros((100,)))
        for s in range(3):
            kv.push(5, mx.nd.array(grads[kv.rank][s]))
            out = mx.nd.zeros((100,))
            kv.pull(5, out=out)
            assert np.array_equal(out.asnumpy(), expected[s]), (s, out, expected[s])
    """, MXNET_KVSTORE_BIGARRAY_BOUND=bound)


def test_compressed_pushes_right_after_set_gradient_compression(tmp_path):
    # No barrier between the setting and the pushes: each worker's setting reaches the
    # servers before its first compressed push (worker 0's alone could arrive after worker
    # 1's push). Workers that disagree on the setting get an error naming both.
    run_ok(tmp_path, """
        kv = mx.kv.create('dist_sync')
        kv.init(3, mx.nd.zeros((40,)))
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        for _ in range(3):
            kv.push(3, mx.nd.ones((40,)))
        out = mx.nd.zeros((40,))
        kv.pull(3, out=out)
        # each worker's push sends +0.5 (its residual grows); each round's sum replaces the value
        assert np.all(out.asnumpy() == 2 * 0.5), out
        try:  # worker 0 asks for another threshold: refused; worker 1 repeats the setting
            kv.set_gradient_compression({'type': '2bit', 'threshold': 0.25 * (kv.rank + 1)})
            raised = ''
        except mx.MXNetError as e:
            raised = str(e)
        assert bool(raised) == (kv.rank == 0), raised
        if raised:
            assert 'different gradient compressions' in raised, raised
        kv.push(3, mx.nd.ones((40,)))  # both still send +0.5
        kv.pull(3, out=out)
        assert np.all(out.asnumpy() == 2 * 0.5), out
    """)


def test_gluon_trainer_dist_sync_trains_like_one_process_with_two_devices(tmp_path):
    def make_net(ctxs):
        mx.random.seed(7)
        # A prefix and name scope: parameter names must not depend on how many Dense layers
        # earlier tests of this process made.
        net = mx.gluon.nn.HybridSequential(prefix='net_')
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(8, activation='tanh'), mx.gluon.nn.Dense(2))
        net.initialize(mx.init.Xavier(), ctx=ctxs)
        return net

    rng = np.random.RandomState(0)
    data = rng.randn(4, 16, 5).astype(np.float32)   # 4 steps x 16 samples
    label = rng.randn(4, 16, 2).astype(np.float32)
    np.save(str(tmp_path / 'data.npy'), data)
    np.save(str(tmp_path / 'label.npy'), label)
    # One process, two contexts, one half of each batch per context.
    ctxs = [mx.cpu(0), mx.cpu(1)]
    net = make_net(ctxs)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd',
                               {'learning_rate': 0.1, 'momentum': 0.5}, kvstore='local')
    loss_fn = mx.gluon.loss.L2Loss()
    for step in range(4):
        with mx.autograd.record():
            losses = [loss_fn(net(mx.nd.array(data[step, 8 * i:8 * (i + 1)], ctx=c)),
                              mx.nd.array(label[step, 8 * i:8 * (i + 1)], ctx=c))
                      for i, c in enumerate(ctxs)]
        mx.autograd.backward(losses)
        trainer.step(16)
    local = {k: v.data(ctxs[0]).asnumpy() for k, v in net.collect_params().items()}

    run_ok(tmp_path, """
        here = os.path.dirname(os.path.abspath(__file__))
        data, label = np.load(here + '/data.npy'), np.load(here + '/label.npy')
        mx.random.seed(7)
        net = mx.gluon.nn.HybridSequential(prefix='net_')
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(8, activation='tanh'), mx.gluon.nn.Dense(2))
        net.initialize(mx.init.Xavier())
        trainer = mx.gluon.Trainer(net.collect_params(), 'sgd',
                                   {'learning_rate': 0.1, 'momentum': 0.5}, kvstore='dist_sync')
        loss_fn = mx.gluon.loss.L2Loss()
        r = int(os.environ['DMLC_WORKER_ID'])
        for step in range(4):
            x = mx.nd.array(data[step, 8 * r:8 * (r + 1)])
            y = mx.nd.array(label[step, 8 * r:8 * (r + 1)])
            with mx.autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(16)
        params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
        np.savez(here + '/dist_%d.npz' % r, **params)
    """)
    for r in range(2):
        dist = np.load(str(tmp_path / ('dist_%d.npz' % r)))
        assert sorted(dist.keys()) == sorted(local.keys())
        for k in local:
            np.testing.assert_allclose(dist[k], local[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_uneven_steps_fail_the_longer_worker_and_launch_ends_the_job(tmp_path):
    start = time.time()
    status, out = launch(tmp_path, """
        kv = mx.kv.create('dist_sync')
        kv.init(0, mx.nd.zeros((4,)))
        if kv.rank == 1:
            raise SystemExit(3)
        while True:  # worker 0 runs more steps than worker 1
            kv.push(0, mx.nd.ones((4,)))
            out = mx.nd.zeros((4,))
            kv.pull(0, out=out)
            out.asnumpy()
    """, timeout=60)
    assert status != 0, out
    assert 'exited with status' in out
    assert 'worker rank 1 left the job' in out, out
    assert time.time() - start < 45


def _read_until(proc, text, timeout):
    """What proc printed up to and including the first line containing text."""
    import select
    seen, deadline = '', time.time() + timeout
    while text not in seen:
        left = deadline - time.time()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            pytest.fail('no %r from the worker within %d s:\n%s' % (text, timeout, seen))
        line = proc.stdout.readline()
        if not line:
            pytest.fail('the worker ended before %r:\n%s' % (text, seen))
        seen += line
    return seen


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def test_a_killed_worker_is_an_error_on_every_other_node_not_a_hang(tmp_path):
    script = tmp_path / 'node.py'
    script.write_text(PRELUDE + textwrap.dedent("""
        import signal
        kv = mx.kv.create('dist_sync')
        kv.init(0, mx.nd.zeros((4,)))
        if kv.rank == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        try:
            for _ in range(1000):
                kv.push(0, mx.nd.ones((4,)))
                out = mx.nd.zeros((4,))
                kv.pull(0, out=out)
                out.asnumpy()
        except mx.MXNetError as e:
            print('ERROR SEEN:', str(e).splitlines()[0][:300])
            sys.stdout.flush()
            os._exit(17)
        os._exit(0)
    """))
    port = _free_port()
    base = _env(DMLC_PS_ROOT_URI='127.0.0.1', DMLC_PS_ROOT_PORT=port, DMLC_NUM_SERVER=1,
                DMLC_NUM_WORKER=2, PS_HEARTBEAT_TIMEOUT=5)
    procs = {}
    for name, role in [('scheduler', 'scheduler'), ('server', 'server'), ('worker0', 'worker'),
                       ('worker1', 'worker')]:
        procs[name] = subprocess.Popen([sys.executable, str(script)],
                                       env=dict(base, DMLC_ROLE=role), stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
    start = time.time()
    outs = {}
    try:
        for name, p in procs.items():
            outs[name] = p.communicate(timeout=60)[0]
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    elapsed = time.time() - start
    codes = {name: p.returncode for name, p in procs.items()}
    # ranks go by arrival, so either process may be rank 1, the one that kills itself
    killed, alive = (('worker0', 'worker1') if codes['worker0'] == -signal.SIGKILL
                     else ('worker1', 'worker0'))
    assert codes[killed] == -signal.SIGKILL and codes[alive] == 17, (codes, outs)
    assert 'worker rank 1' in outs[alive] and 'PS_HEARTBEAT_TIMEOUT' in outs[alive], outs
    assert codes['server'] != 0 and codes['scheduler'] != 0, (codes, outs)
    assert elapsed < 40, elapsed


@pytest.mark.parametrize('victim,named', [('server', 'server rank 0'),
                                           ('scheduler', 'the scheduler')])
def test_a_killed_server_or_scheduler_is_an_error_on_every_worker(tmp_path, victim, named):
    script = tmp_path / 'node.py'
    script.write_text(PRELUDE + textwrap.dedent("""
        import time
        kv = mx.kv.create('dist_sync')
        kv.init(0, mx.nd.zeros((4,)))
        print('PUSHING')
        sys.stdout.flush()
        try:
            for _ in range(3000):
                kv.push(0, mx.nd.ones((4,)))
                out = mx.nd.zeros((4,))
                kv.pull(0, out=out)
                out.asnumpy()
                time.sleep(0.01)
        except mx.MXNetError as e:
            print('ERROR SEEN:', str(e).splitlines()[0][:300])
            sys.stdout.flush()
            os._exit(17)
        os._exit(0)
    """))
    port = _free_port()
    base = _env(DMLC_PS_ROOT_URI='127.0.0.1', DMLC_PS_ROOT_PORT=port, DMLC_NUM_SERVER=1,
                DMLC_NUM_WORKER=2, PS_HEARTBEAT_TIMEOUT=5)
    procs = {}
    for name in ['scheduler', 'server', 'worker0', 'worker1']:
        role = name.rstrip('01')
        procs[name] = subprocess.Popen([sys.executable, str(script)],
                                       env=dict(base, DMLC_ROLE=role), stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
    # the job met and both workers push (each left the init barrier)
    early = {w: _read_until(procs[w], 'PUSHING', 90) for w in ('worker0', 'worker1')}
    procs[victim].kill()
    start = time.time()
    outs = {}
    try:
        for name, p in procs.items():
            outs[name] = p.communicate(timeout=60)[0]
        for w, text in early.items():
            outs[w] = text + outs[w]
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    codes = {name: p.returncode for name, p in procs.items()}
    for w in ('worker0', 'worker1'):
        assert codes[w] == 17, (codes, outs[w][-2000:])
        assert 'ERROR SEEN' in outs[w] and named in outs[w], outs[w]
    for other in {'scheduler', 'server'} - {victim}:
        assert codes[other] not in (0, None), (codes, outs)
    assert time.time() - start < 30


def test_missing_settings_and_busy_port_are_clear_errors(tmp_path):
    script = tmp_path / 'n.py'
    script.write_text("import mxnet as mx\nmx.kv.create('dist_sync')\n")
    r = subprocess.run([sys.executable, str(script)], env=_env(DMLC_ROLE='worker'),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and 'DMLC_PS_ROOT_URI is not set' in r.stderr, r.stderr
    with socket.socket() as busy:
        busy.bind(('0.0.0.0', 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = subprocess.run([sys.executable, '-c', 'import mxnet'],
                           env=_env(DMLC_ROLE='scheduler', DMLC_PS_ROOT_URI='127.0.0.1',
                                    DMLC_PS_ROOT_PORT=port, DMLC_NUM_SERVER=1,
                                    DMLC_NUM_WORKER=1),
                           capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and 'port %d' % port in r.stderr and 'in use' in r.stderr, r.stderr


def test_launch_builds_ssh_commands(tmp_path):
    sys.path.insert(0, os.path.join(REPO, 'tools'))
    try:
        import launch
    finally:
        sys.path.pop(0)
    hosts = tmp_path / 'hosts'
    hosts.write_text('nodeA\nnodeB:2222  # second machine\n')
    args = launch.parse_args(['-n', '2', '-H', str(hosts), '--launcher', 'ssh',
                              '--sync-dst-dir', '/tmp/job', '--env', 'FOO:bar',
                              '--env-worker', 'OMP_NUM_THREADS:3', 'python', 'train.py'])
    assert args.num_servers == 2
    _, procs = launch.plan(args)
    names = [p[0] for p in procs]
    assert names == ['scheduler', 'server 0', 'server 1', 'worker 0', 'worker 1']
    assert procs[0][2]['DMLC_ROLE'] == 'scheduler'   # runs here
    ssh_server1 = procs[2][1]
    assert ssh_server1[:2] == ['ssh', '-o'] and 'nodeB' in ssh_server1
    assert ssh_server1[ssh_server1.index('-p') + 1] == '2222'
    remote = ssh_server1[-1]
    assert 'export DMLC_ROLE=server;' in remote and 'export FOO=bar;' in remote
    assert 'export DMLC_NODE_HOST=nodeB;' in remote and 'cd /tmp/job;' in remote
    assert 'OMP_NUM_THREADS' not in remote
    assert 'export OMP_NUM_THREADS=3;' in procs[3][1][-1]
    # mpi: the scheduler here, one mpirun per role with the DMLC_* variables passed on
    args = launch.parse_args(['-n', '3', '-s', '2', '-H', str(hosts), '--launcher', 'mpi',
                              'python', 'train.py'])
    for flavour, flag in (('openmpi', '-x'), ('mpich', '-env')):
        _, procs = launch.plan_mpi(args, flavour)
        assert [p[0] for p in procs] == ['scheduler', 'servers', 'workers']
        servers, workers = procs[1][1], procs[2][1]
        assert servers[:5] == ['mpirun', '-n', '2', '--hostfile', str(hosts)]
        assert workers[:3] == ['mpirun', '-n', '3'] and workers[-2:] == ['python', 'train.py']
        role = ('DMLC_ROLE=worker' if flavour == 'openmpi' else 'worker')
        assert flag in workers and role in workers
        assert 'DMLC_WORKER_ID' not in ' '.join(workers)


def test_a_node_with_the_wrong_secret_is_rejected_and_logged(tmp_path):
    port = _free_port()
    base = _env(DMLC_PS_ROOT_URI='127.0.0.1', DMLC_PS_ROOT_PORT=port, DMLC_NUM_SERVER=1,
                DMLC_NUM_WORKER=1, PS_CONNECT_TIMEOUT=4, DMLC_PS_SECRET='right')
    script = tmp_path / 'n.py'
    script.write_text("import mxnet as mx\nmx.kv.create('dist_sync')\n")
    sched = subprocess.Popen([sys.executable, str(script)], env=dict(base, DMLC_ROLE='scheduler'),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    worker = subprocess.run([sys.executable, str(script)],
                            env=dict(base, DMLC_ROLE='worker', DMLC_PS_SECRET='wrong'),
                            capture_output=True, text=True, timeout=60)
    try:
        sched_out = sched.communicate(timeout=60)[0]
    finally:
        if sched.poll() is None:
            sched.kill()
    assert worker.returncode != 0 and 'PS_CONNECT_TIMEOUT' in worker.stderr, worker.stderr
    assert 'DMLC_PS_SECRET' in sched_out and 'rejected' in sched_out, sched_out
    assert sched.returncode != 0 and '0 of 2 arrived' in sched_out, sched_out


def test_bandwidth_measure_checks_what_it_pulls():
    sys.path.insert(0, os.path.join(REPO, 'tools', 'bandwidth'))
    try:
        import measure
    finally:
        sys.path.pop(0)
    args = measure.parse_args(['--network', 'resnet', '--num-layers', '18', '--kv-store',
                               'device', '--num-batches', '2', '--optimizer', 'sgd'])
    res = measure.run(**vars(args))
    assert [r.iter for r in res] == [1, 2]
    assert all(r.error == 0 and r.bandwidth > 0 for r in res), res


def test_dist_p3_slices_keys_and_sums_like_dist_sync(tmp_path):
    # 100-element slices over 2 servers, at most 2 slice requests in flight: keys of 1 to
    # 10 slices, pushed and pulled with the Trainer's priorities (-index).
    out = run_ok(tmp_path, """
        kv = mx.kv.create('dist_p3')
        assert kv.type == 'dist_p3' and kv.num_workers == 2
        r = kv.rank
        shapes = [(50, 7), (3,), (1000,), (20, 30)]
        kv.init(list(range(4)), [mx.nd.ones(s) * k for k, s in enumerate(shapes)])
        outs = [mx.nd.zeros(s) for s in shapes]
        kv.pull(list(range(4)), out=outs)
        for k, o in enumerate(outs):
            assert np.all(o.asnumpy() == k), (k, o)
        for step in range(3):
            for k, s in enumerate(shapes):
                base = np.arange(np.prod(s)).reshape(s)
                kv.push(k, mx.nd.array(base * (r + 1 + step)), priority=-k)
            for k in range(len(shapes)):
                kv.pull(k, out=outs[k], priority=-k)
            for k, s in enumerate(shapes):
                want = np.arange(np.prod(s)).reshape(s) * (3 + 2 * step)
                assert np.array_equal(outs[k].asnumpy(), want), (k, step)
        # The optimizer runs on the servers, as with dist_sync.
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
        kv.init(10, mx.nd.ones((250,)))
        kv.push(10, mx.nd.ones((250,)) * (r + 1))
        w = mx.nd.zeros((250,))
        kv.pull(10, out=w)
        assert np.allclose(w.asnumpy(), 1 - 0.5 * 3), w
        for call in (lambda: kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5}),
                     lambda: kv._set_updater(lambda key, g, w: None)):
            try:
                call()
                raise AssertionError('dist_p3 accepted it')
            except mx.MXNetError as e:  # MXNetError, as MXNet 1.9.1 raises it
                assert 'NotImplementedError' in str(e) and 'dist_p3' in str(e), e
        print('worker %d done' % r)
    """, MXNET_KVSTORE_SLICE_THRESHOLD=100, DMLC_PS_WATER_MARK=2)
    assert 'worker 0 done' in out and 'worker 1 done' in out


def test_dist_p3_sends_the_higher_priority_key_first(tmp_path):
    # One slice request in flight: key 1 (priority 0, one slice) is issued after key 0
    # (priority -10, 40 slices), yet its push and pull pass key 0's waiting slices. Sent in
    # order of issue, key 0's pull (issued first, once its push is done) would finish first.
    out = run_ok(tmp_path, """
        import threading, time
        kv = mx.kv.create('dist_p3')
        kv.init([0, 1], [mx.nd.zeros((4000,)), mx.nd.zeros((50,))])
        for step in range(2):
            kv._barrier()
            kv.push(0, mx.nd.ones((4000,)) * (kv.rank + 1), priority=-10)
            kv.push(1, mx.nd.ones((50,)) * (kv.rank + 1), priority=0)
            a, b = mx.nd.zeros((4000,)), mx.nd.zeros((50,))
            kv.pull(0, out=a, priority=-10)
            kv.pull(1, out=b, priority=0)
            done = {}
            t = threading.Thread(target=lambda: (a.wait_to_read(),
                                                 done.setdefault('a', time.perf_counter())))
            t.start()
            b.wait_to_read()
            done['b'] = time.perf_counter()
            t.join()
            assert np.all(a.asnumpy() == 3) and np.all(b.asnumpy() == 3)
            assert done['b'] < done['a'], done
        print('worker %d done' % kv.rank)
    """, MXNET_KVSTORE_SLICE_THRESHOLD=100, DMLC_PS_WATER_MARK=1)
    assert 'worker 0 done' in out and 'worker 1 done' in out


def test_resend_completes_a_job_whose_nodes_drop_messages(tmp_path):
    # Every node drops 15% of what it receives (PS_DROP_MSG, as ps-lite's): without
    # PS_RESEND the job would stall; with it every push, pull and barrier completes.
    out = run_ok(tmp_path, """
        kv = mx.kv.create('dist_sync')
        r = kv.rank
        kv.init([3, 4], [mx.nd.zeros((40,)), mx.nd.zeros((500,))])
        for step in range(8):
            kv.push([3, 4], [mx.nd.ones((40,)) * (r + step), mx.nd.ones((500,)) * r])
            a, b = mx.nd.zeros((40,)), mx.nd.zeros((500,))
            kv.pull([3, 4], out=[a, b])
            assert np.all(a.asnumpy() == 1 + 2 * step) and np.all(b.asnumpy() == 1), step
            kv._barrier()
        print('worker %d done' % r)
    """, PS_RESEND=1, PS_RESEND_TIMEOUT=100, PS_DROP_MSG=15,
        MXNET_KVSTORE_BIGARRAY_BOUND=100, timeout=150)
    assert 'worker 0 done' in out and 'worker 1 done' in out


def _launch_module():
    sys.path.insert(0, os.path.join(REPO, 'tools'))
    try:
        import launch
    finally:
        sys.path.pop(0)
    return launch


def test_launch_builds_the_sge_array_job(tmp_path, monkeypatch):
    launch = _launch_module()
    monkeypatch.chdir(tmp_path)
    args = launch.parse_args(['-n', '3', '-s', '2', '--launcher', 'sge', '--queue', 'gpu.q',
                              '--host-ip', '10.1.2.3', '--env', 'FOO:bar', '--p3',
                              'python', 'train.py', '--lr', '0.1'])
    root, procs = launch.plan_sge(args)
    assert root == '10.1.2.3'
    assert [p[0] for p in procs] == ['scheduler', 'qsub']
    sched = procs[0][2]
    assert sched['DMLC_ROLE'] == 'scheduler' and sched['DMLC_PS_ROOT_URI'] == '10.1.2.3'
    qsub = procs[1][1]
    logdir = str(tmp_path / 'dmlc3.python.log')
    script = os.path.join(logdir, 'rundmlc.sh')
    assert qsub[:6] == ['qsub', '-cwd', '-t', '1-5', '-S', '/bin/bash']
    assert qsub[qsub.index('-q') + 1] == 'gpu.q' and qsub[qsub.index('-N') + 1] == 'dmlc3.python'
    assert qsub[qsub.index('-e') + 1] == logdir and qsub[qsub.index('-o') + 1] == logdir
    assert qsub[qsub.index('-pe') + 1:qsub.index('-pe') + 3] == ['orte', '1']
    passed = dict(kv.split('=', 1) for kv in qsub[qsub.index('-v') + 1].split(','))
    assert passed['DMLC_NUM_SERVER'] == '2' and passed['DMLC_NUM_WORKER'] == '3'
    assert passed['DMLC_PS_ROOT_URI'] == '10.1.2.3'
    assert passed['DMLC_PS_ROOT_PORT'] == sched['DMLC_PS_ROOT_PORT']
    assert passed['DMLC_PS_SECRET'] == sched['DMLC_PS_SECRET'] and passed['FOO'] == 'bar'
    assert passed['DMLC_PS_WATER_MARK'] == '10'
    assert 'DMLC_ROLE' not in passed
    assert qsub[-5:] == [script, 'python', 'train.py', '--lr', '0.1']
    # The run script gives tasks 1..2 the server role and 3..5 the worker role.
    for task, role, rank in ((1, 'server', 0), (2, 'server', 1), (3, 'worker', 0),
                             (5, 'worker', 2)):
        r = subprocess.run(['bash', script, 'bash', '-c',
                            'echo $DMLC_ROLE $DMLC_SERVER_ID$DMLC_WORKER_ID $DMLC_TASK_ID'],
                           env=dict(os.environ, SGE_TASK_ID=str(task), HOME=str(tmp_path)),
                           capture_output=True, text=True, check=True)
        assert r.stdout.split() == [role, str(rank), str(task)], r.stdout
    # Without qsub on PATH: a clear error, nothing submitted.
    monkeypatch.setenv('PATH', str(tmp_path))
    with pytest.raises(RuntimeError, match='qsub'):
        launch.plan(args)


def test_launch_builds_the_yarn_submission(tmp_path, monkeypatch):
    launch = _launch_module()
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'train.py').write_text('print(1)\n')
    app = tmp_path / 'yarnapp'
    app.mkdir()
    args = launch.parse_args(['-n', '2', '--launcher', 'yarn', '--yarn-app-dir', str(app),
                              '--host-ip', '10.0.0.9', '--worker-memory', '2g',
                              '--server-memory', '512m', '--queue', 'prod',
                              'python', 'train.py', '--epochs', '1'])
    with pytest.raises(RuntimeError, match='dmlc-yarn.jar'):
        launch.plan_yarn(args, '/opt/hadoop/bin/hadoop')
    (app / 'dmlc-yarn.jar').write_bytes(b'PK')
    root, procs = launch.plan_yarn(args, '/opt/hadoop/bin/hadoop')
    assert root == '10.0.0.9' and [p[0] for p in procs] == ['scheduler', 'yarn']
    argv, env = procs[1][1], procs[1][2]
    jar = str(app / 'dmlc-yarn.jar')
    assert argv[:4] == ['/opt/hadoop/bin/hadoop', 'jar', jar, 'org.apache.hadoop.yarn.dmlc.Client']
    shipped = [argv[i + 1] for i, a in enumerate(argv) if a == '-file']
    assert sorted(shipped) == sorted([jar, str(tmp_path / 'train.py')])
    assert argv[argv.index('-jobname') + 1] == 'DMLC[nworker=2,nsever=2]:python'
    assert argv[argv.index('-tempdir') + 1] == '/tmp' and argv[argv.index('-queue') + 1] == 'prod'
    assert argv[-4:] == ['python', './train.py', '--epochs', '1']
    assert env['DMLC_NUM_WORKER'] == '2' and env['DMLC_NUM_SERVER'] == '2'
    assert env['DMLC_WORKER_MEMORY_MB'] == '2048' and env['DMLC_SERVER_MEMORY_MB'] == '512'
    assert env['DMLC_JOB_CLUSTER'] == 'yarn' and env['DMLC_PS_ROOT_URI'] == '10.0.0.9'
    assert '-env' in argv and 'DMLC_PS_ROOT_PORT=%s' % env['DMLC_PS_ROOT_PORT'] in argv
    # Without Hadoop: a clear error.
    monkeypatch.delenv('HADOOP_HOME', raising=False)
    monkeypatch.setenv('PATH', str(tmp_path))
    with pytest.raises(RuntimeError, match='HADOOP_HOME'):
        launch.plan(args)
