"""mx.kv: the in-process KVStore ('local', 'device'): push/pull/pushpull/broadcast with int
and string keys, updaters and optimizers on the store, 2-bit gradient compression checked
against a numpy transcription of MXNet 1.9.1's scheme, and the errors of unavailable types."""
import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet import _ffi

SHAPE = (4, 5)


def _ones(val=1.0, ctx=None):
    return mx.nd.ones(SHAPE, ctx=ctx or mx.cpu()) * val


@pytest.mark.parametrize('kv_type', ['local', 'device', 'local_allreduce_cpu',
                                     'local_allreduce_device', 'local_update_cpu'])
def test_types_and_group(kv_type):
    kv = mx.kv.create(kv_type)
    assert kv.type == kv_type
    assert (kv.rank, kv.num_workers) == (0, 1)
    assert kv.is_capable('optimizer')
    kv._barrier()
    assert isinstance(kv, mx.kvstore.KVStoreBase)


def test_unavailable_types_raise_clear_errors():
    with pytest.raises(MXNetError, match='parameter server'):
        mx.kv.create('dist_sync')
    with pytest.raises(MXNetError, match='parameter server'):
        mx.kv.create('dist_async_device')
    if mx.context.num_gpus() == 0 or not mx.runtime.Features().is_enabled('NCCL'):
        with pytest.raises(MXNetError, match='nccl'):
            mx.kv.create('nccl')
    with pytest.raises(MXNetError, match="unknown type 'devcie'"):
        mx.kv.create('devcie')
    with pytest.raises(TypeError):
        mx.kv.create(3)


@pytest.mark.parametrize('kv_type', ['local', 'device'])
@pytest.mark.parametrize('keys', [[3, 5, 9], ['a', 'b', 'c']])
def test_push_sums_devices_and_pull_fills_every_output(kv_type, keys):
    kv = mx.kv.create(kv_type)
    kv.init(keys, [mx.nd.zeros(SHAPE)] * len(keys))
    devs = [mx.cpu(i) for i in range(3)]
    vals = [[_ones(j + 1 + 10 * i, d) for j, d in enumerate(devs)] for i in range(len(keys))]
    kv.push(keys, vals)
    outs = [[mx.nd.empty(SHAPE, d) for d in devs] for _ in keys]
    kv.pull(keys, out=outs)
    for i, row in enumerate(outs):
        for o in row:
            np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 6 + 30 * i))
    # a single key with a single value replaces the stored value
    kv.push(keys[0], _ones(7))
    out = mx.nd.empty(SHAPE)
    kv.pull(keys[0], out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 7))


def test_init_copies_and_keys_are_checked():
    kv = mx.kv.create()
    v = _ones(4)
    kv.init(3, v)
    v[:] = 0  # the store kept a copy
    out = mx.nd.empty(SHAPE)
    kv.pull(3, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 4))
    with pytest.raises(MXNetError, match='duplicate init of key 3'):
        kv.init(3, v)
    with pytest.raises(MXNetError, match='Mixed key types'):
        kv.init('a', v)
    with pytest.raises(MXNetError, match='key 8 has not been initialized'):
        kv.push(8, v)
    with pytest.raises(MXNetError, match='shape'):
        kv.push(3, mx.nd.ones((2, 2)))
    with pytest.raises(MXNetError, match='shape'):
        kv.pull(3, out=mx.nd.ones((2, 2)))
    skv = mx.kv.create()
    skv.init('w', v)
    with pytest.raises(MXNetError, match="key x doesn't exist"):
        skv.pull('x', out=out)
    with pytest.raises(MXNetError, match='Mixed key types'):
        skv.push(1, v)


def test_pushpull_in_place_and_into_out():
    kv = mx.kv.create('device')
    kv.init('g', mx.nd.zeros(SHAPE))
    vals = [_ones(1, mx.cpu(i)) for i in range(4)]
    outs = [mx.nd.empty(SHAPE, mx.cpu(i)) for i in range(4)]
    kv.pushpull('g', vals, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 4))
    kv.pushpull('g', vals)
    for v in vals:
        np.testing.assert_array_equal(v.asnumpy(), np.full(SHAPE, 4))


def test_broadcast_initializes_and_copies_out():
    kv = mx.kv.create('device')
    outs = [mx.nd.empty(SHAPE, mx.cpu(i)) for i in range(3)]
    kv.broadcast(11, _ones(2), out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 2))
    with pytest.raises(MXNetError, match='duplicate init'):
        kv.broadcast(11, _ones(2), out=outs)


def test_updater_int_keys_and_string_keys_as_bytes():
    seen = []

    def updater(key, recv, local):
        seen.append(key)
        local += recv * 2

    kv = mx.kv.create()
    kv._set_updater(updater)
    kv.init(5, _ones(1))
    for _ in range(3):
        kv.push(5, [_ones(1, mx.cpu(i)) for i in range(2)])
    out = mx.nd.empty(SHAPE)
    kv.pull(5, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 1 + 3 * 4))
    assert seen == [5, 5, 5]

    skv = mx.kv.create('device')
    skv._set_updater(updater)
    skv.init('w', _ones(0))
    skv.push('w', _ones(1))
    assert seen[-1] == b'w'


def test_updater_exception_is_raised_by_push():
    def updater(key, recv, local):
        raise ValueError('bad update %d' % key)

    kv = mx.kv.create()
    kv._set_updater(updater)
    kv.init(1, _ones(1))
    with pytest.raises(ValueError, match='bad update 1'):
        kv.push(1, _ones(1))


def test_set_optimizer_updates_on_the_store_and_states_round_trip(tmp_path):
    kv = mx.kv.create('local')
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    kv.init(0, _ones(1))
    grads = [_ones(0.5, mx.cpu(i)) for i in range(2)]
    kv.push(0, grads)
    kv.push(0, grads)
    w = mx.nd.empty(SHAPE)
    kv.pull(0, out=w)
    # momentum SGD on the summed gradient 1.0: m1 = -0.1, w1 = 0.9; m2 = -0.19, w2 = 0.71
    np.testing.assert_allclose(w.asnumpy(), np.full(SHAPE, 0.71), rtol=1e-6)
    fname = str(tmp_path / 'kv.states')
    kv.save_optimizer_states(fname)
    kv2 = mx.kv.create('local')
    kv2.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    kv2.load_optimizer_states(fname)
    np.testing.assert_allclose(kv2._updater.states[0].asnumpy(), np.full(SHAPE, -0.19),
                               rtol=1e-6)


def test_row_sparse_pull_needs_sparse_storage():
    kv = mx.kv.create()
    kv.init(1, _ones(1))
    with pytest.raises(MXNetError, match='sparse'):
        kv.row_sparse_pull(1, out=_ones(0), row_ids=mx.nd.array([0]))


def test_gradient_compression_only_for_device_types():
    with pytest.raises(Exception, match='not supported for this type'):
        mx.kv.create('local').set_gradient_compression({'type': '2bit'})
    kv = mx.kv.create('device')
    with pytest.raises(MXNetError, match='threshold must be greater than 0'):
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0})
    with pytest.raises(MXNetError, match="Unknown type"):
        kv.set_gradient_compression({'type': '1bit'})


# ---- numpy transcription of MXNet 1.9.1's 2-bit scheme --------------------------------
_POS = [0xc0, 0x30, 0x0c, 0x03]
_NEG = [0x80, 0x20, 0x08, 0x02]


def _np_quantize(grad, residual, t):
    """(packed bytes, new residual) as MXNet's quantize_2bit kernel computes them."""
    grad = grad.ravel().astype(np.float32)
    residual = residual.ravel().astype(np.float32).copy()
    n = grad.size
    out = np.zeros(((n + 15) // 16) * 4, dtype=np.uint8)
    for i in range(n):
        residual[i] = np.float32(residual[i] + grad[i])
        byte = (i // 16) * 4 + (i % 16) // 4
        if residual[i] >= t:
            out[byte] |= _POS[i % 4]
            residual[i] = np.float32(residual[i] - np.float32(t))
        elif residual[i] <= -t:
            out[byte] |= _NEG[i % 4]
            residual[i] = np.float32(residual[i] + np.float32(t))
    return out, residual


def _np_dequantize(packed, n, t):
    out = np.zeros(n, dtype=np.float32)
    for i in range(n):
        byte = packed[(i // 16) * 4 + (i % 16) // 4]
        masked = byte & _POS[i % 4]
        out[i] = t if masked == _POS[i % 4] else (-t if masked == _NEG[i % 4] else 0)
    return out


@pytest.mark.parametrize('n,t', [(1, 0.5), (16, 0.25), (37, 0.5), (100, 1.0), (2500, 0.5)])
def test_quantize_bytes_match_the_transcription(n, t):
    rng = np.random.RandomState(n)
    residual = mx.nd.zeros((n,))
    out = mx.nd.zeros(((n + 15) // 16,))
    np_res = np.zeros(n, dtype=np.float32)
    for _ in range(3):
        g = rng.uniform(-1.5 * t, 1.5 * t, size=n).astype(np.float32)
        _ffi._kvstore_quantize_2bit(mx.nd.array(g), residual, out, t)
        expected, np_res = _np_quantize(g, np_res, np.float32(t))
        assert out.asnumpy().view(np.uint8).tobytes() == expected.tobytes()
        np.testing.assert_array_equal(residual.asnumpy(), np_res)
        back = mx.nd.zeros((n,))
        _ffi._kvstore_dequantize_2bit(out, back, t)
        np.testing.assert_array_equal(back.asnumpy(), _np_dequantize(expected, n, t))


def test_device_store_with_compression_matches_the_transcription():
    t = 0.5
    n_dev, shape = 3, (7, 9)
    n = int(np.prod(shape))
    rng = np.random.RandomState(0)
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': t})
    kv.init('w', mx.nd.zeros(shape))
    residuals = [np.zeros(n, dtype=np.float32) for _ in range(n_dev)]
    out = mx.nd.empty(shape)
    for _ in range(4):
        grads = [rng.uniform(-1, 1, size=shape).astype(np.float32) for _ in range(n_dev)]
        kv.push('w', [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(grads)])
        kv.pull('w', out=out)
        total = np.zeros(n, dtype=np.float32)
        for i, g in enumerate(grads):
            packed, residuals[i] = _np_quantize(g, residuals[i], np.float32(t))
            total += _np_dequantize(packed, n, t)
        np.testing.assert_array_equal(out.asnumpy().ravel(), total)


def test_register_a_python_store():
    @mx.kv.KVStoreBase.register
    class MyStore(mx.kv.KVStoreBase):  # pylint: disable=unused-variable
        def broadcast(self, key, value, out, priority=0):
            out[:] = value * 3

        @property
        def type(self):
            return 'mystore'

    kv = mx.kv.create('MyStore')
    out = mx.nd.empty(SHAPE)
    kv.broadcast(0, _ones(1), out)
    assert kv.type == 'mystore'
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 3))
    del mx.kv.KVStoreBase.kv_registry['mystore']


def test_kvstore_server_has_no_server_loop():
    server = mx.kvstore.KVStoreServer(mx.kv.create('local'))
    with pytest.raises(MXNetError, match="'local' store has no server"):
        server.run()


@pytest.mark.parametrize('dtype', ['float16', 'float64', 'int32', 'uint8'])
def test_sum_keeps_the_dtype_and_pull_converts(dtype):
    kv = mx.kv.create('local')
    kv.init(0, mx.nd.zeros(SHAPE, dtype=dtype))
    vals = [mx.nd.ones(SHAPE, ctx=mx.cpu(i), dtype=dtype) * (i + 1) for i in range(3)]
    kv.push(0, vals)
    same = mx.nd.empty(SHAPE, dtype=dtype)
    as_f32 = [mx.nd.empty(SHAPE), mx.nd.empty(SHAPE)]
    kv.pull(0, out=[same] + as_f32)
    assert same.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(same.asnumpy(), np.full(SHAPE, 6, dtype=dtype))
    for o in as_f32:
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 6, dtype=np.float32))


def test_pull_into_the_same_output_twice_and_big_arrays_in_threads():
    kv = mx.kv.create('device')
    big = (1100, 1000)  # above MXNET_KVSTORE_BIGARRAY_BOUND (1e6): summed by several threads
    kv.init('w', mx.nd.zeros(big))
    rng = np.random.RandomState(3)
    host = [rng.uniform(-1, 1, size=big).astype(np.float32) for _ in range(3)]
    kv.push('w', [mx.nd.array(h, ctx=mx.cpu(i)) for i, h in enumerate(host)])
    out = mx.nd.empty(big)
    kv.pull('w', out=[out, out])
    np.testing.assert_array_equal(out.asnumpy(), host[0] + (host[1] + host[2]))


@pytest.mark.parametrize('kv_type', ['local', 'device'])
def test_values_of_another_dtype_are_converted_into_the_sum(kv_type):
    kv = mx.kv.create(kv_type)
    kv.init(0, mx.nd.zeros(SHAPE))
    kv.push(0, [mx.nd.ones(SHAPE, dtype='float16') * 2, mx.nd.ones(SHAPE, ctx=mx.cpu(1)) * 3])
    out = mx.nd.empty(SHAPE)
    kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 5))


def test_push_reads_the_values_as_they_are_when_pushed():
    # push and pull are queued engine work: a later write to a pushed array waits for the
    # sum to read it, and a pull's output is written in order with later reads
    kv = mx.kv.create('local')
    kv.init(0, mx.nd.zeros(SHAPE))
    a, b = _ones(1, mx.cpu(0)), _ones(2, mx.cpu(1))
    kv.push(0, [a, b])
    a += 10
    b *= 0
    out = mx.nd.zeros(SHAPE)
    kv.pull(0, out=out)
    snapshot = out * 1
    kv.push(0, [a, b])
    kv.pull(0, out=out)
    np.testing.assert_array_equal(snapshot.asnumpy(), np.full(SHAPE, 3))
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 11))
