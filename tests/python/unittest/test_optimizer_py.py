"""mx.optimizer and mx.lr_scheduler: each optimizer against a numpy transcription of MXNet
1.9.1's update rule over several steps (wd, rescale_grad, clip_gradient, lr_mult/wd_mult,
float16 with a float32 master copy), aggregated against one-by-one updates, the schedulers'
values as MXNet 1.9.1 gives them, Updater state round trips and the registry."""
import base64
import math
import pickle
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.test_utils import environment

SHAPES = [(3, 4), (5,)]
STEPS = 3


def _clip(g, c):
    return g if c is None else np.clip(g, -c, c)


def _run_mx(opt, weights, grads_per_step, indices=None, dtype='float32'):
    """Runs `opt` through an Updater, one weight at a time; returns weights and states."""
    updater = mx.optimizer.get_updater(opt)
    ws = [mx.nd.array(w, dtype=dtype) for w in weights]
    indices = indices or list(range(len(ws)))
    for grads in grads_per_step:
        for i, w, g in zip(indices, ws, grads):
            updater(i, mx.nd.array(g, dtype=dtype), w)
    return [w.asnumpy() for w in ws], updater


def _random_problem(seed, shapes=SHAPES, steps=STEPS):
    rng = np.random.RandomState(seed)
    weights = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    grads = [[rng.uniform(-2, 2, s).astype(np.float32) for s in shapes] for _ in range(steps)]
    return weights, grads


# numpy references: step(w, g, state, t, lr, wd, hp) -> new w; `state` is a dict it updates

def _sgd(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    if hp.get('momentum', 0) == 0:
        return w - lr * (g + wd * w)
    s['mom'] = hp['momentum'] * s.get('mom', 0) - lr * (g + wd * w)
    return w + s['mom']


def _nag(w, g, s, t, lr, wd, hp):
    # what nag_mom_update computes: the lr sits inside the momentum buffer, and MXNet's
    # momentum decays with the weight it has just written (out=weight)
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    m = hp['momentum'] * s.get('mom', 0)
    new_w = w - m + (hp['momentum'] + 1) * (m - lr * (g + wd * w))
    s['mom'] = m - lr * (g + wd * new_w)
    return new_w


def _adam(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g + wd * w, hp['clip_gradient'])
    b1, b2 = hp['beta1'], hp['beta2']
    s['m'] = b1 * s.get('m', 0) + (1 - b1) * g
    s['v'] = b2 * s.get('v', 0) + (1 - b2) * g * g
    lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return w - lr_t * s['m'] / (np.sqrt(s['v']) + hp['epsilon'])


def _rmsprop(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g + wd * w, hp['clip_gradient'])
    g1 = hp['gamma1']
    s['n'] = (1 - g1) * g * g + g1 * s.get('n', 0)
    if hp['centered']:
        s['g'] = (1 - g1) * g + g1 * s.get('g', 0)
        s['delta'] = hp['gamma2'] * s.get('delta', 0) - \
            lr * g / np.sqrt(s['n'] - s['g'] ** 2 + hp['epsilon'])
        w = w + s['delta']
    else:
        w = w - lr * g / np.sqrt(s['n'] + hp['epsilon'])
    return _clip(w, hp['clip_weights'])


def _adagrad(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    s['h'] = s.get('h', 0) + g * g
    return w - lr * (g / np.sqrt(s['h'] + hp['eps']) + wd * w)


def _adadelta(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    rho, eps = hp['rho'], hp['epsilon']
    s['ag'] = rho * s.get('ag', 0) + (1 - rho) * g * g
    delta = np.sqrt(s.get('ad', 0) + eps) / np.sqrt(s['ag'] + eps) * g
    s['ad'] = rho * s.get('ad', 0) + (1 - rho) * delta * delta
    return w - (delta + wd * w)


def _adamax(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g + wd * w, hp['clip_gradient'])
    b1 = hp['beta1']
    s['m'] = b1 * s.get('m', 0) + (1 - b1) * g
    s['u'] = np.maximum(hp['beta2'] * s.get('u', 0), np.abs(g))
    return w - lr / (1 - b1 ** t) * s['m'] / s['u']


def _nadam(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g + wd * w, hp['clip_gradient'])
    b1, b2, decay = hp['beta1'], hp['beta2'], hp['schedule_decay']
    mom_t = b1 * (1 - 0.5 * 0.96 ** (t * decay))
    mom_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * decay))
    shared = s['shared']  # MXNet keeps one momentum-schedule product for all weights
    shared['sched'] = shared.get('sched', 1.0) * mom_t
    s['m'] = b1 * s.get('m', 0) + (1 - b1) * g
    s['v'] = b2 * s.get('v', 0) + (1 - b2) * g * g
    m_bar = (1 - mom_t) * g / (1 - shared['sched']) + \
        mom_next * s['m'] / (1 - shared['sched'] * mom_next)
    v_hat = s['v'] / (1 - b2 ** t)
    return w - lr * m_bar / (np.sqrt(v_hat) + hp['epsilon'])


def _ftrl(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    n = s.get('n', 0)
    s['z'] = s.get('z', 0) + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
    s['n'] = n + g * g
    z, l1 = s['z'], hp['lamda1']
    return (np.sign(z) * l1 - z) / ((hp['beta'] + np.sqrt(s['n'])) / lr + wd) * (np.abs(z) > l1)


def _ftml(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g + wd * w, hp['clip_gradient'])
    b1, b2 = hp['beta1'], hp['beta2']
    s['v'] = b2 * s.get('v', 0) + (1 - b2) * g * g
    d = (1 - b1 ** t) / lr * (np.sqrt(s['v'] / (1 - b2 ** t)) + hp['epsilon'])
    s['z'] = b1 * s.get('z', 0) + (1 - b1) * g - (d - b1 * s.get('d', 0)) * w
    s['d'] = d
    return -s['z'] / d


def _signum(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    if hp['momentum'] == 0:
        return (1 - lr * wd) * w - lr * np.sign(g)
    mom = hp['momentum']
    s['mom'] = mom * s.get('mom', 0) - (1 - mom) * (g + wd * w)
    return (1 - lr * hp['wd_lh']) * w + lr * np.sign(s['mom'])


def _lamb(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    b1, b2 = hp['beta1'], hp['beta2']
    s['m'] = b1 * s.get('m', 0) + (1 - b1) * g
    s['v'] = b2 * s.get('v', 0) + (1 - b2) * g * g
    m, v = s['m'], s['v']
    if hp['bias_correction']:
        m, v = m / (1 - b1 ** t), v / (1 - b2 ** t)
    step = m / (np.sqrt(v) + hp['epsilon']) + wd * w
    r1, r2 = np.linalg.norm(w), np.linalg.norm(step)
    if hp['lower_bound']:
        r1 = max(r1, hp['lower_bound'])
    if hp['upper_bound']:
        r1 = min(r1, hp['upper_bound'])
    ratio = r1 / r2 if r1 > 0 and r2 > 0 else 1.0
    return w - lr * ratio * step


def _dcasgd(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    prev = s.get('prev', w)
    step = -lr * (g + wd * w + hp['lamda'] * g * g * (w - prev))
    s['mom'] = hp['momentum'] * s.get('mom', 0) + step if hp['momentum'] else step
    s['prev'] = w
    return w + s['mom']


def _groupadagrad(w, g, s, t, lr, wd, hp):
    g = _clip(hp['rescale_grad'] * g, hp['clip_gradient'])
    s['h'] = s.get('h', 0) + np.mean(g * g, axis=1, keepdims=True)
    return w - lr * g / np.sqrt(s['h'] + hp['eps'])


COMMON = dict(rescale_grad=0.8, clip_gradient=0.9)
CASES = [
    ('sgd', _sgd, dict(learning_rate=0.1, wd=0.05)),
    ('sgd', _sgd, dict(learning_rate=0.1, wd=0.05, momentum=0.9)),
    ('nag', _nag, dict(learning_rate=0.1, wd=0.05, momentum=0.8)),
    ('adam', _adam, dict(learning_rate=0.05, wd=0.05, beta1=0.9, beta2=0.999, epsilon=1e-8)),
    ('rmsprop', _rmsprop, dict(learning_rate=0.05, wd=0.05, gamma1=0.9, gamma2=0.9,
                               epsilon=1e-8, centered=False, clip_weights=None)),
    ('rmsprop', _rmsprop, dict(learning_rate=0.05, wd=0.05, gamma1=0.95, gamma2=0.8,
                               epsilon=1e-8, centered=True, clip_weights=0.7)),
    ('adagrad', _adagrad, dict(learning_rate=0.1, wd=0.05, eps=1e-7)),
    ('adadelta', _adadelta, dict(wd=0.05, rho=0.9, epsilon=1e-5)),
    ('adamax', _adamax, dict(learning_rate=0.02, wd=0.05, beta1=0.9, beta2=0.999)),
    ('nadam', _nadam, dict(learning_rate=0.01, wd=0.05, beta1=0.9, beta2=0.999, epsilon=1e-8,
                           schedule_decay=0.004)),
    ('ftrl', _ftrl, dict(learning_rate=0.1, wd=0.05, lamda1=0.01, beta=1.0)),
    ('ftml', _ftml, dict(learning_rate=0.02, wd=0.05, beta1=0.6, beta2=0.999, epsilon=1e-8)),
    ('signum', _signum, dict(learning_rate=0.01, wd=0.05, momentum=0.9, wd_lh=0.02)),
    ('signum', _signum, dict(learning_rate=0.01, wd=0.05, momentum=0.0, wd_lh=0.0)),
    ('lamb', _lamb, dict(learning_rate=0.01, wd=0.05, beta1=0.9, beta2=0.999, epsilon=1e-6,
                         lower_bound=None, upper_bound=None, bias_correction=True)),
    ('lamb', _lamb, dict(learning_rate=0.01, wd=0.05, beta1=0.9, beta2=0.99, epsilon=1e-6,
                         lower_bound=0.5, upper_bound=1.5, bias_correction=False)),
    ('dcasgd', _dcasgd, dict(learning_rate=0.1, wd=0.05, momentum=0.0, lamda=0.04)),
    ('dcasgd', _dcasgd, dict(learning_rate=0.1, wd=0.05, momentum=0.9, lamda=0.04)),
]
# optimizers whose learning rate is unused (AdaDelta) still get lr_mult; index 1 has
# lr_mult 0.5 and index 0 wd_mult 2
LR_MULT, WD_MULT = {1: 0.5}, {0: 2.0}


def _reference(step, weights, grads_per_step, hp):
    ws = [w.astype(np.float64) for w in weights]
    shared = {}
    states = [{'shared': shared} for _ in ws]
    base_lr = hp.get('learning_rate', 0.01)
    for t, grads in enumerate(grads_per_step, start=1):
        for i, g in enumerate(grads):
            lr = base_lr * LR_MULT.get(i, 1.0)
            wd = hp.get('wd', 0.0) * WD_MULT.get(i, 1.0)
            ws[i] = step(ws[i], g.astype(np.float64), states[i], t, lr, wd, hp)
    return ws


def _make(name, hp, **extra):
    kwargs = {k: v for k, v in hp.items() if k not in ('rescale_grad', 'clip_gradient')}
    kwargs.update(extra)
    opt = mx.optimizer.create(name, rescale_grad=hp['rescale_grad'],
                              clip_gradient=hp['clip_gradient'], **kwargs)
    opt.set_lr_mult(dict(LR_MULT))
    opt.set_wd_mult(dict(WD_MULT))
    return opt


@pytest.mark.parametrize('name,step,hp', CASES,
                         ids=['%s-%d' % (c[0], i) for i, c in enumerate(CASES)])
def test_optimizer_follows_reference_rule(name, step, hp):
    hp = dict(COMMON, **hp)
    weights, grads = _random_problem(len(name))
    got, _ = _run_mx(_make(name, hp), weights, grads)
    want = _reference(step, weights, grads, hp)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_optimizers_without_clipping_or_rescale():
    hp = dict(rescale_grad=1.0, clip_gradient=None, learning_rate=0.1, wd=0.0, momentum=0.9)
    weights, grads = _random_problem(3)
    got, _ = _run_mx(_make('sgd', hp), weights, grads)
    for g, w in zip(got, _reference(_sgd, weights, grads, hp)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_adagrad_argument_is_named_eps():
    hp = dict(COMMON, learning_rate=0.1, wd=0.0, eps=1e-3)
    weights, grads = _random_problem(4)
    opt = mx.optimizer.AdaGrad(eps=1e-3, learning_rate=0.1, **COMMON)
    opt.set_lr_mult(dict(LR_MULT))
    got, _ = _run_mx(opt, weights, grads)
    for g, w in zip(got, _reference(_adagrad, weights, grads, hp)):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_group_adagrad_updates_rows_with_one_rate_each():
    hp = dict(COMMON, learning_rate=0.1, eps=1e-5)
    weights, grads = _random_problem(5, shapes=[(4, 3)])
    opt = mx.optimizer.create('groupadagrad', learning_rate=0.1, **COMMON)
    got, updater = _run_mx(opt, weights, grads)
    assert updater.states[0].shape == (4, 1)
    np.testing.assert_allclose(got[0], _reference(_groupadagrad, weights, grads, hp)[0],
                               rtol=2e-5, atol=2e-6)
    assert mx.optimizer.contrib.GroupAdaGrad is type(opt)


def test_group_adagrad_refuses_weight_decay():
    opt = mx.optimizer.contrib.GroupAdaGrad(wd=0.1)
    w = mx.nd.ones((2, 2))
    with pytest.raises(AssertionError, match='Weight decay'):
        opt.update(0, w, mx.nd.ones((2, 2)), opt.create_state(0, w))


def test_sgld_is_half_sgd_step_plus_seeded_noise():
    w0 = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    g = np.array([1.0, 2.0, -3.0], dtype=np.float32)
    opt = mx.optimizer.SGLD(learning_rate=0.04, wd=0.1, rescale_grad=0.5)
    w = mx.nd.array(w0)
    mx.random.seed(7)
    opt.update(0, w, mx.nd.array(g), None)
    mx.random.seed(7)
    noise = mx.random.normal(0, math.sqrt(0.04), shape=(3,)).asnumpy()
    want = w0 - 0.04 / 2 * (0.5 * g + 0.1 * w0) + noise
    np.testing.assert_allclose(w.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_test_optimizer_adds_rescaled_gradient_and_copies_weight_to_state():
    opt = mx.optimizer.create('test', rescale_grad=2.0)
    w = mx.nd.array([1.0, 2.0])
    state = opt.create_state(0, w)
    opt.update(0, w, mx.nd.array([0.5, -1.0]), state)
    np.testing.assert_array_equal(w.asnumpy(), [2.0, 0.0])
    np.testing.assert_array_equal(state.asnumpy(), [2.0, 0.0])


def test_lars_scales_weights_but_not_biases():
    w0 = np.array([[3.0, 4.0]], dtype=np.float32)
    b0 = np.array([1.0, -1.0], dtype=np.float32)
    g = np.array([[0.6, 0.8]], dtype=np.float32)
    gb = np.array([0.5, 0.5], dtype=np.float32)
    opt = mx.optimizer.LARS(learning_rate=0.1, eta=0.01, wd=0.0,
                            param_idx2name={0: 'fc_weight', 1: 'fc_bias'})
    w, b = mx.nd.array(w0), mx.nd.array(b0)
    opt.update(0, w, mx.nd.array(g), None)
    opt.update(1, b, mx.nd.array(gb), None)
    # |w| = 5, |g| = 1: the layer rate is 0.1 * 0.01 * 5 / 1
    np.testing.assert_allclose(w.asnumpy(), w0 - 0.1 * 0.01 * 5 * g, rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), b0 - 0.1 * gb, rtol=1e-6)


# ---- multi-precision ----

MP_CASES = [('sgd', dict(momentum=0.9)), ('sgd', {}), ('nag', dict(momentum=0.9)),
            ('adam', {}), ('lamb', {}), ('lars', dict(momentum=0.9)), ('rmsprop', {}),
            ('signum', {})]


@pytest.mark.parametrize('name,kwargs', MP_CASES,
                         ids=['%s-%d' % (c[0], i) for i, c in enumerate(MP_CASES)])
def test_multi_precision_updates_float32_master_and_casts_back(name, kwargs):
    weights, grads = _random_problem(11)
    kwargs = dict(kwargs, learning_rate=0.05, wd=0.01)
    mp_opt = mx.optimizer.create(name, multi_precision=True, **kwargs)
    w16, updater = _run_mx(mp_opt, weights, [[g.astype(np.float16) for g in gs]
                                             for gs in grads], dtype='float16')
    # the master copy follows the float32 optimizer fed the float16 values upcast
    ref_opt = mx.optimizer.create(name, **kwargs)
    w16_start = [w.astype(np.float16).astype(np.float32) for w in weights]
    w32, _ = _run_mx(ref_opt, w16_start, [[g.astype(np.float16).astype(np.float32) for g in gs]
                                          for gs in grads])
    for i, (got, want) in enumerate(zip(w16, w32)):
        assert got.dtype == np.float16
        state = updater.states[i]
        master = state[1] if name in ('sgd', 'nag', 'lars') else state[0]
        assert master.dtype == np.float32
        np.testing.assert_allclose(master.asnumpy(), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(got, master.asnumpy().astype(np.float16))


def test_float16_without_multi_precision_warns():
    opt = mx.optimizer.SGD(momentum=0.9)
    with pytest.warns(UserWarning, match='multi_precision'):
        state = opt.create_state_multi_precision(0, mx.nd.ones((2,), dtype='float16'))
    assert state.dtype == np.float16


# ---- aggregation ----

@pytest.mark.parametrize('name,kwargs', [
    ('sgd', dict(momentum=0.9)), ('sgd', {}), ('sgd', dict(momentum=0.9, multi_precision=True)),
    ('lars', dict(momentum=0.9)), ('lars', {}), ('lamb', {}), ('lamb', dict(multi_precision=True))])
def test_aggregated_update_equals_one_by_one(name, kwargs):
    shapes = [(3, 4), (5,), (2, 2), (6,), (4, 1)]
    weights, grads = _random_problem(21, shapes=shapes)
    dtype = 'float16' if kwargs.get('multi_precision') else 'float32'
    names = {0: 'a_weight', 1: 'a_bias', 2: 'b_weight', 3: 'b_gamma', 4: 'c_weight'}
    results = []
    for size in ('3', '0'):
        with environment('MXNET_OPTIMIZER_AGGREGATION_SIZE', size):
            opt = mx.optimizer.create(name, learning_rate=0.1, wd=0.01, rescale_grad=0.7,
                                      clip_gradient=1.5, param_idx2name=names, **kwargs)
        assert opt.aggregate_num == (int(size) if name != 'lamb' else max(1, int(size)))
        updater = mx.optimizer.get_updater(opt)
        ws = [mx.nd.array(w, dtype=dtype) for w in weights]
        for step_grads in grads:
            updater(list(range(len(ws))), [mx.nd.array(g, dtype=dtype) for g in step_grads], ws)
        results.append([w.asnumpy() for w in ws])
    tolerance = dict(rtol=1e-3, atol=1e-3) if dtype == 'float16' else dict(rtol=1e-5, atol=1e-6)
    for aggregated, single in zip(*results):
        np.testing.assert_allclose(aggregated, single, **tolerance)


def test_lamb_multi_precision_one_weight_path_keeps_master_copy_current():
    # MXNet 1.9.1 left the float32 master copy at its first value on this path, so every
    # step restarted from the initial weights; its first step is kept bit for bit.
    with environment('MXNET_OPTIMIZER_AGGREGATION_SIZE', '1'):
        opt = mx.optimizer.LAMB(learning_rate=0.1, multi_precision=True)
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.array([0.5, -0.25, 1.0, 0.75], dtype='float16')
    g = mx.nd.array([0.4, 0.1, -0.9, 0.2], dtype='float16')
    seen = []
    for _ in range(2):
        updater(0, g, w)
        seen.append(w.asnumpy().view(np.uint16).tolist())
        master = updater.states[0][0]
        np.testing.assert_array_equal(master.asnumpy().astype(np.float16), w.asnumpy())
    assert seen[0] == [14056, 46360, 15430, 14708]  # MXNet 1.9.1's first step
    assert seen[1] != seen[0]


def test_aggregation_size_defaults():
    with environment('MXNET_OPTIMIZER_AGGREGATION_SIZE', None):
        assert mx.optimizer.SGD().aggregate_num == 4
        assert mx.optimizer.LARS().aggregate_num == 4
        assert mx.optimizer.LAMB().aggregate_num == 45
        assert mx.optimizer.Adam().aggregate_num == 0
    with environment('MXNET_OPTIMIZER_AGGREGATION_SIZE', '100'):
        assert mx.optimizer.LAMB().aggregate_num == 45


def test_updater_groups_aggregated_updates_by_dtype():
    opt = mx.optimizer.SGD(learning_rate=1.0, multi_precision=True)
    updater = mx.optimizer.get_updater(opt)
    ws = [mx.nd.ones((2,)), mx.nd.ones((2,), dtype='float16'), mx.nd.ones((3,))]
    gs = [mx.nd.ones((2,)) * 0.5, mx.nd.ones((2,), dtype='float16'), mx.nd.ones((3,)) * 2]
    updater([0, 1, 2], gs, ws)
    np.testing.assert_array_equal(ws[0].asnumpy(), [0.5, 0.5])
    np.testing.assert_array_equal(ws[1].asnumpy(), [0.0, 0.0])
    np.testing.assert_array_equal(ws[2].asnumpy(), [-1.0, -1.0, -1.0])


# ---- learning rate, multipliers, counts ----

def test_learning_rate_defaults_and_scheduler_override():
    assert mx.optimizer.SGD().learning_rate == 0.01
    assert mx.optimizer.Adam().learning_rate == 0.001
    assert mx.optimizer.Ftrl().learning_rate == 0.1
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(lr_scheduler=sched)
    assert opt.learning_rate == 1.0
    opt = mx.optimizer.SGD(learning_rate=0.3, lr_scheduler=sched)
    assert sched.base_lr == 0.3
    with pytest.raises(UserWarning):
        opt.set_learning_rate(0.1)
    plain = mx.optimizer.SGD(learning_rate=0.2)
    plain.set_learning_rate(0.4)
    assert plain.learning_rate == 0.4 and plain.lr == 0.4


def test_scheduler_follows_num_update():
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(lr_scheduler=sched)
    w = mx.nd.zeros((1,))
    lrs = []
    for _ in range(5):
        opt.update(0, w, mx.nd.ones((1,)), None)
        lrs.append(opt.learning_rate)
    assert opt.num_update == 5
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25]
    np.testing.assert_allclose(w.asnumpy(), [-(1.0 + 1.0 + 0.5 + 0.5 + 0.25)])


def test_update_counts_per_index_and_begin_num_update():
    opt = mx.optimizer.SGD(begin_num_update=10)
    opt._update_count(0)
    opt._update_count([0, 1])
    assert opt._index_update_count == {0: 12, 1: 11}
    assert opt.num_update == 12
    opt._set_current_context(1)
    opt._update_count(0)
    assert opt._index_update_count == {0: 11}
    assert opt.num_update == 12


def test_idx2name_turns_off_wd_for_biases_and_names_work_as_mult_keys():
    names = {0: 'fc_weight', 1: 'fc_bias', 2: 'bn_gamma', 3: 'bn_beta'}
    opt = mx.optimizer.SGD(wd=0.1, learning_rate=1.0, param_idx2name=names)
    assert opt._get_wds([0, 1, 2, 3]) == [0.1, 0.0, 0.1, 0.0]
    opt.set_lr_mult({'fc_weight': 0.5, 3: 4.0})
    assert opt._get_lrs([0, 1, 3]) == [0.5, 1.0, 4.0]
    lars = mx.optimizer.LARS(wd=0.1, param_idx2name=names)
    assert lars._get_wds([0, 2]) == [0.1, 0.0]


class _FakeSymbol(object):
    def attr_dict(self):
        return {'fc_weight': {'__lr_mult__': '2.0'}, 'fc_bias': {'__wd_mult__': '3.0'}}

    def list_arguments(self):
        return ['data', 'fc_weight', 'fc_bias']


def test_symbol_attributes_give_multipliers():
    opt = mx.optimizer.SGD(wd=0.1, sym=_FakeSymbol(),
                           param_idx2name={0: 'fc_weight', 1: 'fc_bias'})
    assert opt.lr_mult == {'fc_weight': 2.0}
    assert opt.wd_mult == {'fc_bias': 3.0}
    assert opt._get_wds([1]) == [pytest.approx(0.3)]


class _Param(object):
    lr_mult, wd_mult = 3.0, 0.0


def test_param_dict_multipliers_win_and_are_not_pickled():
    opt = mx.optimizer.SGD(learning_rate=1.0, wd=0.5, param_dict={0: _Param()})
    opt.set_lr_mult({0: 10.0})
    assert opt._get_lrs([0]) == [3.0] and opt._get_wds([0]) == [0.0]
    restored = pickle.loads(pickle.dumps(opt))
    assert restored.param_dict == {}
    assert restored._get_lrs([0]) == [10.0]


# ---- registry ----

def test_registry_lists_mxnet_1_9_optimizers_case_insensitively():
    expected = {'adadelta', 'adagrad', 'adam', 'adamax', 'ccsgd', 'dcasgd', 'ftml', 'ftrl',
                'groupadagrad', 'lamb', 'lars', 'lbsgd', 'nadam', 'nag', 'rmsprop', 'sgd',
                'sgld', 'signum', 'test'}
    assert expected <= set(mx.optimizer.Optimizer.opt_registry)
    assert type(mx.optimizer.create('AdaM')) is mx.optimizer.Adam
    assert type(mx.optimizer.Optimizer.create_optimizer('SGD', momentum=0.5)).__name__ == 'SGD'


def test_unknown_optimizer_name_raises_mxnet_error():
    with pytest.raises(MXNetError, match='Cannot find optimizer nosuchopt'):
        mx.optimizer.create('nosuchopt')
    with pytest.raises(ValueError):
        mx.optimizer.create('nosuchopt')


def test_register_custom_optimizer_and_override_warning():
    @mx.optimizer.register
    class MyPlainStep(mx.optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            weight[:] -= self._get_lr(index) * grad

    try:
        opt = mx.optimizer.create('myplainstep', learning_rate=0.5)
        w = mx.nd.ones((2,))
        opt.update(0, w, mx.nd.ones((2,)), None)
        np.testing.assert_array_equal(w.asnumpy(), [0.5, 0.5])
        with pytest.warns(UserWarning, match='overriding'):
            mx.optimizer.register(MyPlainStep)
    finally:
        del mx.optimizer.Optimizer.opt_registry['myplainstep']


# ---- Updater states ----

def test_updater_states_round_trip_with_and_without_optimizer():
    opt = mx.optimizer.Adam(learning_rate=0.1)
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.array([1.0, 2.0])
    updater(0, mx.nd.array([0.1, -0.2]), w)
    updater(0, mx.nd.array([0.3, 0.1]), w)
    blob = updater.get_states()
    other = mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=0.1))
    other.set_states(blob)
    assert other.states_synced == {0: False}
    for a, b in zip(updater.states[0], other.states[0]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    full = mx.optimizer.get_updater(mx.optimizer.SGD())
    full.set_states(updater.get_states(dump_optimizer=True))
    assert type(full.optimizer) is mx.optimizer.Adam
    assert full.optimizer._index_update_count == {0: 2}
    # continuing from the loaded states gives what continuing the original gives
    w2 = w.copy()
    updater(0, mx.nd.array([0.5, 0.5]), w)
    full(0, mx.nd.array([0.5, 0.5]), w2)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())


def test_optimizers_pickle_under_mxnet_1_x_module_path():
    for name in ('SGD', 'Adam', 'LAMB', 'LARS', 'RMSProp', 'Nadam', 'Test'):
        klass = getattr(mx.optimizer, name)
        assert klass.__module__ == 'mxnet.optimizer.optimizer'
        assert getattr(mx.optimizer.optimizer, name) is klass
        assert type(pickle.loads(pickle.dumps(klass()))) is klass


# Updater(SGD(momentum=0.5, learning_rate=0.1)) after one update of weight [1, 2, 3] by
# gradient [0.5, -0.5, 1], saved with get_states(dump_optimizer=True) by MXNet 1.9.1
_MXNET_191_SGD_STATES = (
    'gASV+QEAAAAAAAB9lEsAjBVteG5ldC5uZGFycmF5Lm5kYXJyYXmUjAdOREFycmF5lJOUToWUUpR9lIwGaGFu'
    'ZGxllIwIYnVpbHRpbnOUjAlieXRlYXJyYXmUk5RDLMn6k/kAAAAAAQAAAAMAAAAAAAAAAQAAAAAAAAAAAAAA'
    'zcxMvc3MTD3NzMy9lIWUUpRzYnOMGW14bmV0Lm9wdGltaXplci5vcHRpbWl6ZXKUjANTR0SUk5QpgZR9lCiM'
    'DHJlc2NhbGVfZ3JhZJRHP/AAAAAAAACMDGxyX3NjaGVkdWxlcpROjAJscpRHP7mZmZmZmZqMAndklEcAAAAA'
    'AAAAAIwHbHJfbXVsdJR9lIwHd2RfbXVsdJR9lIwQYmVnaW5fbnVtX3VwZGF0ZZRLAIwKbnVtX3VwZGF0ZZRL'
    'AYwYX2FsbF9pbmRleF91cGRhdGVfY291bnRzlH2USwB9lEsASwFzc4wTX2luZGV4X3VwZGF0ZV9jb3VudJRo'
    'H4wNY2xpcF9ncmFkaWVudJROjA9tdWx0aV9wcmVjaXNpb26UiYwNYWdncmVnYXRlX251bZRLBIwIaWR4Mm5h'
    'bWWUfZSMCHN5bV9pbmZvlCmMDmFsbG93X25wX2FycmF5lImMCG1vbWVudHVtlEc/4AAAAAAAAIwLbGF6eV91'
    'cGRhdGWUiHVihpQu')


def test_states_saved_by_mxnet_1_9_load_and_continue():
    updater = mx.optimizer.get_updater(mx.optimizer.Adam())
    updater.set_states(base64.b64decode(_MXNET_191_SGD_STATES))
    opt = updater.optimizer
    assert type(opt) is mx.optimizer.SGD and opt.momentum == 0.5 and opt.lr == 0.1
    np.testing.assert_allclose(updater.states[0].asnumpy(), [-0.05, 0.05, -0.1], rtol=1e-6)
    w = mx.nd.array([0.95, 2.05, 2.9])
    updater(0, mx.nd.array([0.5, -0.5, 1.0]), w)
    # mom = 0.5 * mom - 0.1 * g; w += mom
    np.testing.assert_allclose(w.asnumpy(), [0.95 - 0.075, 2.05 + 0.075, 2.9 - 0.15], rtol=1e-6)
    assert opt._index_update_count == {0: 2}


# ---- exact results of MXNet 1.9.1 ----
# Weights [[0.5, -0.25, 1], [0.75, -1, 0.125]] and [0.3, -0.6] after three aggregated Updater
# steps with the gradients below, printed by MXNet 1.9.1 as float32 (float16) bit patterns.
_GOLDEN_W0 = [[[0.5, -0.25, 1.0], [0.75, -1.0, 0.125]], [0.3, -0.6]]
_GOLDEN_GRADS = [[[[0.4, 0.1, -0.9], [0.2, -0.3, 0.8]], [0.7, -0.2]],
                 [[[-0.5, 0.6, 0.3], [0.9, 0.1, -0.4]], [-0.1, 0.5]],
                 [[[0.2, -0.7, 0.5], [-0.6, 0.4, 0.2]], [0.3, 0.8]]]
_GOLDEN = [
    ('sgd', {'momentum': 0.9, 'wd': 0.01, 'clip_gradient': 0.6, 'rescale_grad': 0.5},
     [[1056899177, 3196174211, 1065405917, 1061013287, 3212808754, 1039099047],
      [1049911400, 3206221668]]),
    ('nag', {'momentum': 0.9, 'wd': 0.01},
     [[1056816789, 3196267463, 1065458118, 1060815580, 3212823308, 1037427400],
      [1049337847, 3206484832]]),
    ('adam', {'learning_rate': 0.01, 'wd': 0.01, 'clip_gradient': 0.6},
     [[1056652151, 3196682011, 1065439152, 1060822175, 3212642614, 1038273011],
      [1049514549, 3206147237]]),
    ('rmsprop', {'centered': True, 'wd': 0.01, 'clip_weights': 0.9},
     [[1056786491, 3196493930, 1063675494, 1060931017, 3211136833, 1039248673],
      [1049932085, 3206117801]]),
    ('lamb', {'wd': 0.01, 'learning_rate': 0.01},
     [[1056713134, 3196576236, 1065441524, 1060737380, 3212799624, 1037311402],
      [1049768545, 3206197380]]),
    ('lars', {'momentum': 0.9,
 'wd': 0.01,
 'learning_rate': 0.1,
 'param_idx2name': {0: 'a_weight', 1: 'a_bias'}},
     [[1056963026, 3196062293, 1065354524, 1061155408, 3212836394, 1040159667],
      [1036737998, 3208152666]]),
    ('ftml', {'wd': 0.01},
     [[1056768113, 3196463234, 1065377409, 1060926234, 3212824692, 1039113735],
      [1049842322, 3206217946]]),
    ('adamax', {'wd': 0.01},
     [[1056902430, 3196164240, 1065374394, 1061098705, 3212799515, 1039801196],
      [1050131962, 3206120170]]),
    ('nadam', {'wd': 0.01},
     [[1056941552, 3196101049, 1065356091, 1061134158, 3212835602, 1040059328],
      [1050215667, 3206141583]]),
    ('adagrad', {'wd': 0.01},
     [[1056786048, 3196470274, 1065368932, 1060915151, 3212842808, 1039147744],
      [1049831621, 3206250154]]),
    ('adadelta', {'wd': 0.01},
     [[1056321536, 3196093459, 1064818562, 1060576814, 3212450577, 1038760440],
      [1049496557, 3206152625]]),
    ('ftrl', {'wd': 0.01},
     [[1040656535, 3171058810, 1056318691, 1035377746, 3195444258, 1018026944],
      [1032887753, 3189725508]]),
    ('signum', {'wd': 0.01, 'wd_lh': 0.01},
     [[1056624064, 3196392575, 1065434560, 1060651871, 3212664109, 1036156230],
      [1049244171, 3206290746]]),
    ('sgd', {'momentum': 0.9, 'multi_precision': True, 'learning_rate': 0.1},
     [[14199, 46371, 15500, 14510, 48082, 43156], [11867, 47556]]),
]


@pytest.mark.parametrize('name,kwargs,bits', _GOLDEN,
                         ids=['%s-%d' % (g[0], i) for i, g in enumerate(_GOLDEN)])
def test_results_equal_mxnet_1_9_bit_for_bit(name, kwargs, bits):
    dtype = 'float16' if kwargs.get('multi_precision') else 'float32'
    with environment('MXNET_OPTIMIZER_AGGREGATION_SIZE', '4'):
        updater = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    ws = [mx.nd.array(w, dtype=dtype) for w in _GOLDEN_W0]
    for grads in _GOLDEN_GRADS:
        updater([0, 1], [mx.nd.array(g, dtype=dtype) for g in grads], ws)
    view = np.uint16 if dtype == 'float16' else np.uint32
    assert [w.asnumpy().ravel().view(view).tolist() for w in ws] == bits


# ---- schedulers (values printed by MXNet 1.9.1 for the same arguments) ----

def test_factor_scheduler_values():
    s = mx.lr_scheduler.FactorScheduler(3, 0.5, stop_factor_lr=0.02, base_lr=0.2,
                                        warmup_steps=2, warmup_begin_lr=0.05)
    assert [s(n) for n in range(14)] == [0.05, 0.125, 0.2, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05,
                                         0.05, 0.025, 0.025, 0.025, 0.02]


def test_multifactor_scheduler_values():
    s = mx.lr_scheduler.MultiFactorScheduler([2, 5, 9], 0.5, base_lr=0.4, warmup_steps=1,
                                             warmup_mode='constant', warmup_begin_lr=0.1)
    assert [s(n) for n in range(12)] == [0.1, 0.4, 0.4, 0.2, 0.2, 0.2, 0.1, 0.1, 0.1, 0.1,
                                         0.05, 0.05]


def test_poly_scheduler_values():
    s = mx.lr_scheduler.PolyScheduler(10, base_lr=0.5, pwr=2, final_lr=0.1, warmup_steps=2)
    assert [s(n) for n in range(13)] == [0.0, 0.25, 0.5, 0.40625, 0.325, 0.25625, 0.2, 0.15625,
                                         0.125, 0.10625000000000001, 0.1, 0.1, 0.1]


def test_cosine_scheduler_values():
    s = mx.lr_scheduler.CosineScheduler(10, base_lr=0.5, final_lr=0.1, warmup_steps=2,
                                        warmup_begin_lr=0.3)
    assert [s(n) for n in range(13)] == [
        0.3, 0.4, 0.5, 0.4847759065022573, 0.4414213562373095, 0.37653668647301797,
        0.30000000000000004, 0.22346331352698207, 0.1585786437626905, 0.11522409349774265,
        0.1, 0.1, 0.1]


@pytest.mark.parametrize('make,message', [
    (lambda: mx.lr_scheduler.FactorScheduler(0), 'step'),
    (lambda: mx.lr_scheduler.FactorScheduler(2, factor=1.5), 'Factor'),
    (lambda: mx.lr_scheduler.MultiFactorScheduler([3, 2]), 'increasing'),
    (lambda: mx.lr_scheduler.MultiFactorScheduler([0, 2]), 'step'),
    (lambda: mx.lr_scheduler.PolyScheduler(0), 'strictly positive'),
    (lambda: mx.lr_scheduler.CosineScheduler(0), 'strictly positive'),
    (lambda: mx.lr_scheduler.LRScheduler(base_lr=0.1, warmup_begin_lr=0.2), 'warmup_begin_lr'),
    (lambda: mx.lr_scheduler.LRScheduler(warmup_steps=-1), 'warmup_steps'),
    (lambda: mx.lr_scheduler.LRScheduler(warmup_mode='cubic'), 'warmup_mode'),
])
def test_scheduler_bad_arguments_raise_value_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_base_scheduler_must_be_overridden():
    with pytest.raises(NotImplementedError):
        mx.lr_scheduler.LRScheduler()(0)
