"""gluon.Trainer without a KVStore: updates, multi-context reduction, stale gradients, states."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.base import MXNetError


def _param(ctx, init=1.0):
    p = gluon.Parameter('w', shape=(3,), init=mx.init.Constant(init))
    p.initialize(ctx=ctx)
    return p


def _backward(p, ctx, coef):
    with autograd.record():
        y = (p.data(ctx) * mx.nd.array(coef, ctx=ctx)).sum()
    y.backward()


def test_step_applies_sgd_with_batch_rescaling():
    p = _param(mx.cpu())
    trainer = gluon.Trainer([p], 'sgd', {'learning_rate': 0.5, 'wd': 0.1})
    _backward(p, mx.cpu(), [1., 2., 3.])
    trainer.step(4)
    w = np.ones(3)
    expected = w - 0.5 * (np.array([1., 2., 3.]) / 4 + 0.1 * w)
    np.testing.assert_allclose(p.data().asnumpy(), expected, rtol=1e-6)


def test_multi_context_gradients_are_summed_and_copies_stay_equal():
    ctxs = [mx.cpu(0), mx.cpu(1)]
    p = _param(ctxs)
    trainer = gluon.Trainer([p], 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    for _ in range(2):
        for c in ctxs:
            _backward(p, c, [1., 2., 3.])
        trainer.step(2)
    # values MXNet 1.9.1 gives for the same script (kvstore='device')
    for copy in p.list_data():
        np.testing.assert_allclose(copy.asnumpy(), [0.71, 0.42, 0.13], rtol=1e-5)


def test_allreduce_then_update_equals_step():
    ctxs = [mx.cpu(0), mx.cpu(1)]
    a, b = _param(ctxs), _param(ctxs)
    ta = gluon.Trainer([a], 'adam', {'learning_rate': 0.01})
    # allreduce_grads/update need the update outside the KVStore (MXNet 1.9.1's rule)
    tb = gluon.Trainer([b], 'adam', {'learning_rate': 0.01}, update_on_kvstore=False)
    for p in (a, b):
        for i, c in enumerate(ctxs):
            _backward(p, c, [1. + i, 2., -3.])
    ta.step(3)
    tb.allreduce_grads()
    tb.update(3)
    np.testing.assert_allclose(a.data(ctxs[1]).asnumpy(), b.data(ctxs[1]).asnumpy(), rtol=1e-6)


def test_stale_gradient_is_reported_or_skipped():
    used, unused = _param(mx.cpu()), gluon.Parameter('v', shape=(3,), init=mx.init.One())
    unused.initialize()
    trainer = gluon.Trainer([used, unused], 'sgd', {'learning_rate': 1.0})
    _backward(used, mx.cpu(), [1., 1., 1.])
    with pytest.raises(UserWarning, match='Parameter `v` .* has not been updated by backward'):
        trainer.step(1)
    _backward(used, mx.cpu(), [1., 1., 1.])
    trainer.step(1, ignore_stale_grad=True)
    np.testing.assert_array_equal(unused.data().asnumpy(), np.ones(3))
    np.testing.assert_array_equal(used.data().asnumpy(), np.zeros(3))


def test_learning_rate_and_states_round_trip(tmp_path):
    p = _param(mx.cpu())
    trainer = gluon.Trainer({'w': p}, 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    _backward(p, mx.cpu(), [1., 2., 3.])
    trainer.step(1)
    path = str(tmp_path / 'trainer.states')
    trainer.save_states(path)
    trainer.set_learning_rate(0.2)
    assert trainer.learning_rate == 0.2
    fresh = gluon.Trainer([p], 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    fresh.load_states(path)
    assert fresh.learning_rate == 0.1
    state = fresh._updaters[0].states[0]  # pylint: disable=protected-access
    np.testing.assert_allclose(state.asnumpy(), [-0.1, -0.2, -0.3], rtol=1e-6)


def test_bad_arguments_raise_clear_errors():
    p = _param(mx.cpu())
    with pytest.raises(ValueError, match='list or dict of Parameters'):
        gluon.Trainer(p, 'sgd')
    with pytest.raises(MXNetError, match='[Uu]nknown|not registered|sgdd'):
        gluon.Trainer([p], 'sgdd')
    with pytest.raises(MXNetError, match='optimizer_params must be None'):
        gluon.Trainer([p], mx.optimizer.SGD(), {'learning_rate': 1})
    q = _param([mx.cpu(0), mx.cpu(1)])
    with pytest.raises(MXNetError, match='same set of contexts'):
        gluon.Trainer([p, q], 'sgd')
    # as in MXNet 1.9.1 the store is made at the first step; dist needs the parameter server
    trainer = gluon.Trainer([p], 'sgd', kvstore='dist_sync')
    _backward(p, mx.cpu(), [1., 1., 1.])
    with pytest.raises(MXNetError, match="parameter server"):
        trainer.step(1)
