"""gluon.Trainer on the KVStore: store creation rules, update_on_kvstore, 2-bit compression
and optimizer states kept in the store (values checked against MXNet 1.9.1)."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.base import MXNetError

CTXS = [mx.cpu(0), mx.cpu(1)]


def _train(kvstore='device', update_on_kvstore=None, compression=None, steps=3, ctxs=CTXS):
    p = gluon.Parameter('w', shape=(3, 7), init=mx.init.Constant(0.5))
    p.initialize(ctx=ctxs)
    trainer = gluon.Trainer([p], 'sgd', {'learning_rate': 0.1, 'momentum': 0.9},
                            kvstore=kvstore, update_on_kvstore=update_on_kvstore,
                            compression_params=compression)
    rng = np.random.RandomState(1)
    for _ in range(steps):
        for c in ctxs:
            coef = mx.nd.array(rng.uniform(-1, 1, size=(3, 7)), ctx=c)
            with autograd.record():
                y = (p.data(c) * coef).sum()
            y.backward()
        trainer.step(len(ctxs))
    return p, trainer


def test_store_is_made_at_first_step_for_several_contexts():
    p, trainer = _train('device')
    assert isinstance(trainer._kvstore, mx.kv.KVStore)
    assert trainer._kvstore.type == 'device'
    assert trainer._update_on_kvstore is True
    # MXNet 1.9.1 gives these weights for the same script
    np.testing.assert_allclose(p.data(CTXS[1]).asnumpy().ravel()[:4],
                               [0.46428093, 0.53022915, 0.6161635, 0.36477196], rtol=1e-6)
    for copy in p.list_data():
        np.testing.assert_array_equal(copy.asnumpy(), p.data(CTXS[0]).asnumpy())
    _, single = _train('device', ctxs=[mx.cpu(0)])
    assert single._kvstore is None and single._update_on_kvstore is None


@pytest.mark.parametrize('kvstore', ['device', 'local'])
def test_update_in_the_store_or_per_context_give_the_same_weights(kvstore):
    a, ta = _train(kvstore, update_on_kvstore=True)
    b, tb = _train(kvstore, update_on_kvstore=False)
    assert ta._update_on_kvstore and not tb._update_on_kvstore
    np.testing.assert_array_equal(a.data(CTXS[1]).asnumpy(), b.data(CTXS[1]).asnumpy())
    with pytest.raises(AssertionError, match='update_on_kvstore'):
        ta.allreduce_grads()
    with pytest.raises(AssertionError, match='update_on_kvstore'):
        ta.update(1)


def test_compression_params_reach_the_store():
    p, trainer = _train('device', compression={'type': '2bit', 'threshold': 0.3})
    # MXNet 1.9.1 gives these weights for the same script
    np.testing.assert_allclose(p.data(CTXS[1]).asnumpy().ravel()[:4],
                               [0.45935002, 0.5, 0.52849996, 0.4415], rtol=1e-6)
    with pytest.raises(Exception, match='not supported for this type'):
        _train('local', compression={'type': '2bit'})


def test_a_kvstore_instance_is_used_as_given():
    kv = mx.kv.create('local')
    p, trainer = _train(kv)
    assert trainer._kvstore is kv
    assert kv._updater is not None  # the optimizer runs in the store


def test_states_live_in_the_store_and_round_trip(tmp_path):
    _, trainer = _train('device')
    fname = str(tmp_path / 't.states')
    trainer.save_states(fname)
    saved = trainer._kvstore._updater.states[0].asnumpy()
    _, fresh = _train('device', steps=1)
    fresh.load_states(fname)
    np.testing.assert_array_equal(fresh._kvstore._updater.states[0].asnumpy(), saved)
    assert fresh._optimizer is fresh._kvstore._updater.optimizer


def test_set_data_resets_the_store_and_weights_are_pushed_again():
    p, trainer = _train('device', steps=1)
    old = trainer._kvstore
    p.set_data(mx.nd.ones((3, 7)))
    assert trainer._kvstore is None
    for c in CTXS:
        with autograd.record():
            y = p.data(c).sum()
        y.backward()
    trainer.step(2)
    assert trainer._kvstore is not None and trainer._kvstore is not old
    # fresh store and optimizer state: w = 1 - 0.1 * (2 / 2)
    np.testing.assert_allclose(p.data(CTXS[0]).asnumpy(), np.full((3, 7), 0.9), rtol=1e-6)


def test_dist_kvstore_fails_at_first_step_with_the_reason():
    p = gluon.Parameter('w', shape=(2,), init=mx.init.One())
    p.initialize(ctx=CTXS)
    trainer = gluon.Trainer([p], 'sgd', kvstore='dist_sync')
    for c in CTXS:
        with autograd.record():
            y = p.data(c).sum()
        y.backward()
    with pytest.raises(MXNetError, match='parameter server'):
        trainer.step(1)
