"""The KVStores on GPUs: the 'nccl' and 'device' stores against numpy sums, and 2-bit
compression on a GPU against the CPU's bytes. Every test needs a GPU and a USE_CUDA build
(the nccl ones USE_NCCL too) and skips, saying why, where there is none."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import _ffi
from mxnet.base import MXNetError

NUM_GPUS = mx.context.num_gpus()
HAS_NCCL = mx.runtime.Features().is_enabled('NCCL')
needs_gpu = pytest.mark.skipif(NUM_GPUS == 0, reason='no GPU visible (mx.context.num_gpus() == 0)')
needs_nccl = pytest.mark.skipif(NUM_GPUS == 0 or not HAS_NCCL,
                                reason='needs a GPU and a USE_NCCL=ON build')
SHAPES = [(4, 5), (1000,), (3, 17, 33)]


def _devices(n_values, distinct):
    """n_values GPU contexts: distinct GPUs (nccl), or cycling over the GPUs there are."""
    if distinct:
        return [mx.gpu(i) for i in range(min(n_values, NUM_GPUS))]
    return [mx.gpu(i % NUM_GPUS) for i in range(n_values)]


def _push_pull_rounds(kv, devs, dtype=np.float32):
    rng = np.random.RandomState(len(devs))
    for k, shape in enumerate(SHAPES):
        kv.init(k, mx.nd.array(np.zeros(shape), ctx=devs[0], dtype=dtype))
    for _ in range(3):
        vals = {k: [rng.randint(-50, 50, size=shape).astype(dtype) for _ in devs]
                for k, shape in enumerate(SHAPES)}
        keys = list(vals)
        kv.push(keys, [[mx.nd.array(v, ctx=d, dtype=dtype) for v, d in zip(vals[k], devs)]
                       for k in keys])
        outs = [[mx.nd.array(np.zeros(SHAPES[k]), ctx=d, dtype=dtype) for d in devs]
                for k in keys]
        kv.pull(keys, out=outs)
        for k in keys:
            expected = np.sum(vals[k], axis=0)
            for o in outs[k]:
                np.testing.assert_array_equal(o.asnumpy(), expected)


@needs_nccl
def test_nccl_store_push_pull_sums_over_gpus():
    kv = mx.kv.create('nccl')
    assert (kv.type, kv.rank, kv.num_workers) == ('nccl', 0, 1)
    _push_pull_rounds(kv, _devices(4, distinct=True))


@needs_nccl
@pytest.mark.parametrize('dtype', [np.float64, np.float16, np.int32])
def test_nccl_store_dtypes(dtype):
    _push_pull_rounds(mx.kv.create('nccl'), _devices(2, distinct=True), dtype)


@needs_nccl
def test_nccl_store_pushpull_and_broadcast():
    devs = _devices(4, distinct=True)
    kv = mx.kv.create('nccl')
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    outs = [mx.nd.array(np.zeros((3, 4)), ctx=d) for d in devs]
    kv.broadcast('w', mx.nd.array(base, ctx=devs[0]), out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), base)
    grads = [mx.nd.array(base * (i + 1), ctx=d) for i, d in enumerate(devs)]
    kv.pushpull('w', grads, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), base * sum(range(1, len(devs) + 1)))


@needs_nccl
def test_nccl_store_refuses_what_mxnet_refuses():
    kv = mx.kv.create('nccl')
    # (Python refuses it before the library, as MXNet 1.9.1's front does.)
    with pytest.raises(Exception, match='Gradient compression is not supported'):
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    with pytest.raises(MXNetError, match='sparse'):
        kv.init('s', mx.nd.sparse.zeros('row_sparse', (4, 2)))
    kv.init('d', mx.nd.array(np.ones((4, 2)), ctx=mx.gpu(0)))
    with pytest.raises(MXNetError, match='ignore_sparse=False'):
        kv.pull('d', out=mx.nd.array(np.zeros((4, 2)), ctx=mx.gpu(0)), ignore_sparse=False)


@needs_gpu
@pytest.mark.parametrize('n_values', [1, 3, 5])
def test_device_store_sums_on_gpus(n_values):
    _push_pull_rounds(mx.kv.create('device'), _devices(n_values, distinct=False))


@needs_gpu
def test_device_store_float16_sums_as_the_cpu():
    devs = _devices(5, distinct=False)
    rng = np.random.RandomState(3)
    vals = [rng.uniform(-4, 4, size=(257,)).astype(np.float16) for _ in devs]
    results = []
    for ctxs in (devs, [mx.cpu(0)] * len(devs)):
        kv = mx.kv.create('device')
        kv.init(0, mx.nd.array(np.zeros(257), ctx=ctxs[0], dtype=np.float16))
        kv.push(0, [mx.nd.array(v, ctx=c, dtype=np.float16) for v, c in zip(vals, ctxs)])
        out = mx.nd.array(np.zeros(257), dtype=np.float16)
        kv.pull(0, out=out)
        results.append(out.asnumpy())
    np.testing.assert_array_equal(results[0], results[1])


@needs_gpu
@pytest.mark.parametrize('n', [1, 16, 37, 5003])
def test_two_bit_on_gpu_gives_the_cpu_bytes(n):
    t = 0.5
    rng = np.random.RandomState(n)
    words = (n + 15) // 16
    state = {}
    for ctx in (mx.cpu(), mx.gpu(0)):
        state[ctx.device_type] = (mx.nd.array(np.zeros(n), ctx=ctx),
                                  mx.nd.array(np.zeros(words), ctx=ctx))
    for _ in range(3):
        g = rng.uniform(-1.5 * t, 1.5 * t, size=n).astype(np.float32)
        got = {}
        for name, (residual, out) in state.items():
            ctx = residual.context
            _ffi._kvstore_quantize_2bit(mx.nd.array(g, ctx=ctx), residual, out, t)
            back = mx.nd.array(np.zeros(n), ctx=ctx)
            _ffi._kvstore_dequantize_2bit(out, back, t)
            got[name] = (out.asnumpy().view(np.uint8).tobytes(), residual.asnumpy(),
                         back.asnumpy())
        assert got['gpu'][0] == got['cpu'][0]
        np.testing.assert_array_equal(got['gpu'][1], got['cpu'][1])
        np.testing.assert_array_equal(got['gpu'][2], got['cpu'][2])


@needs_gpu
def test_device_store_compression_on_gpus_equals_cpus():
    t, shape = 0.5, (7, 9)
    devs = _devices(3, distinct=False)
    rng = np.random.RandomState(0)
    grads = [[rng.uniform(-1, 1, size=shape).astype(np.float32) for _ in devs] for _ in range(4)]
    results = []
    for ctxs in (devs, [mx.cpu(i) for i in range(len(devs))]):
        kv = mx.kv.create('device')
        kv.set_gradient_compression({'type': '2bit', 'threshold': t})
        kv.init('w', mx.nd.array(np.zeros(shape), ctx=ctxs[0]))
        out = mx.nd.array(np.zeros(shape))
        rounds = []
        for g in grads:
            kv.push('w', [mx.nd.array(x, ctx=c) for x, c in zip(g, ctxs)])
            kv.pull('w', out=out)
            rounds.append(out.asnumpy())
        results.append(rounds)
    for gpu_round, cpu_round in zip(*results):
        np.testing.assert_array_equal(gpu_round, cpu_round)


@pytest.mark.skipif(mx.runtime.Features().is_enabled('CUDA'), reason='a USE_CUDA=ON build')
def test_without_cuda_gpu_arrays_and_nccl_raise_and_the_process_lives():
    # In a subprocess: the failure this pins down was an abort (a gpu array's destructor).
    import subprocess
    import sys
    code = '''
import mxnet as mx
from mxnet.base import MXNetError
for make in (lambda: mx.nd.array([1, 2], ctx=mx.gpu(0)),
             lambda: mx.nd.array([1, 2]).copyto(mx.gpu(0)).wait_to_read(),
             lambda: mx.kv.create('nccl')):
    try:
        make()
        raise SystemExit('no error')
    except MXNetError as e:
        print(str(e).splitlines()[0])
print('alive')
'''
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1] == 'alive'
    assert 'USE_CUDA' in lines[0] and 'USE_CUDA=ON' in lines[1] and 'USE_NCCL=ON' in lines[2]
