# Optimizer update operators (sgd/adam/rmsprop/ftrl/ftml/adagrad/lamb/... updates, their
# mixed-precision and multi-weight forms, multi_sum_sq, multi_lars, all_finite, reset_arrays):
# results against numpy references written in MXNet's order of operations, in-place updates of
# the weight (out=weight) and of the optimizer states, and errors on bad arguments.
import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

nd = mx.nd
_int = mx.nd._internal

DTYPES = [np.float32, np.float64, np.float16]
TOL = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-12}
SHAPE = (4, 5)


def _rand(seed, dtype, shape=SHAPE, positive=False):
    a = np.random.RandomState(seed).uniform(-1, 1, size=shape)
    return (np.abs(a) if positive else a).astype(dtype)


def _f(x, dtype):
    """A float argument as the op sees it: float32, then the compute dtype."""
    return dtype(np.float32(x))


def _clip(x, c):
    return np.clip(x, -c, c) if c >= 0 else x


def _close(actual, expected, dtype):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64),
                               np.asarray(expected, dtype=np.float64),
                               rtol=TOL[dtype], atol=TOL[dtype])


# ---------------------------------------------------------------- numpy references
def ref_sgd(w, g, lr, wd=0, rescale_grad=1, clip_gradient=-1):
    t = w.dtype.type
    lr, wd, rs, c = (_f(x, t) for x in (lr, wd, rescale_grad, clip_gradient))
    if c >= 0:
        return [(1 - lr * wd) * w - lr * _clip(rs * g, c)]
    return [(1 - lr * wd) * w - (lr * rs) * g]


def ref_sgd_mom(w, g, mom, lr, momentum=0, wd=0, rescale_grad=1, clip_gradient=-1):
    t = w.dtype.type
    lr, m, wd, rs, c = (_f(x, t) for x in (lr, momentum, wd, rescale_grad, clip_gradient))
    if c >= 0:
        mom = m * mom - (lr * wd) * w - lr * _clip(rs * g, c)
    else:
        mom = m * mom - (lr * wd) * w - (lr * rs) * g
    return [w + mom, mom]


def ref_nag(w, g, mom, lr, momentum=0, wd=0, rescale_grad=1, clip_gradient=-1, inplace=True):
    t = w.dtype.type
    lr, m, wd, rs, c = (_f(x, t) for x in (lr, momentum, wd, rescale_grad, clip_gradient))
    grad = _clip(rs * g, c)
    mom = m * mom
    new_w = w - mom + (m + 1) * (mom - lr * (grad + wd * w))
    # MXNet's momentum reads the weight after writing the output: the new one when out=weight
    decay_w = new_w if inplace else w
    return [new_w, mom - lr * (grad + wd * decay_w)]


def ref_signsgd(w, g, lr, wd=0, rescale_grad=1, clip_gradient=-1):
    t = w.dtype.type
    lr, wd = _f(lr, t), _f(wd, t)
    return [(1 - lr * wd) * w - lr * np.sign(g)]


def ref_signum(w, g, mom, lr, momentum=0, wd=0, rescale_grad=1, clip_gradient=-1, wd_lh=0):
    t = w.dtype.type
    lr, m, wd, rs, c, lh = (_f(x, t) for x in (lr, momentum, wd, rescale_grad, clip_gradient,
                                                wd_lh))
    mom = m * mom - (1 - m) * wd * w - (1 - m) * _clip(rs * g, c)
    return [(1 - lr * lh) * w + lr * np.sign(mom), mom]


def ref_adam(w, g, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0, rescale_grad=1,
             clip_gradient=-1):
    t = w.dtype.type
    lr, b1, b2, eps, wd, rs, c = (_f(x, t) for x in (lr, beta1, beta2, epsilon, wd,
                                                     rescale_grad, clip_gradient))
    grad = _clip(g * rs + w * wd, c)
    mean = b1 * mean + (1 - b1) * grad
    var = b2 * var + (1 - b2) * grad * grad
    return [w - lr * mean / (np.sqrt(var) + eps), mean, var]


def ref_adamw(w, g, mean, var, lr, eta, rescale_grad, beta1=0.9, beta2=0.999, epsilon=1e-8,
              wd=0, clip_gradient=-1):
    t = w.dtype.type
    lr, eta, b1, b2, eps, wd, rs, c = (_f(x, t) for x in (lr, eta, beta1, beta2, epsilon, wd,
                                                          rescale_grad, clip_gradient))
    grad = _clip(rs * g, c)
    mean = b1 * mean + (1 - b1) * grad
    var = b2 * var + (1 - b2) * grad * grad
    return [w - eta * (lr * mean / (np.sqrt(var) + eps) + wd * w), mean, var]


def ref_rmsprop(w, g, n, lr, gamma1=0.95, epsilon=1e-8, wd=0, rescale_grad=1, clip_gradient=-1,
                clip_weights=-1):
    t = w.dtype.type
    lr, g1, eps, wd, rs, c, cw = (_f(x, t) for x in (lr, gamma1, epsilon, wd, rescale_grad,
                                                     clip_gradient, clip_weights))
    grad = _clip(rs * g + wd * w, c)
    n = (1 - g1) * (grad * grad) + g1 * n
    return [_clip(w - lr * (grad / np.sqrt(n + eps)), cw), n]


def ref_rmspropalex(w, g, n, gs, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8, wd=0,
                    rescale_grad=1, clip_gradient=-1, clip_weights=-1):
    t = w.dtype.type
    lr, g1, g2, eps, wd, rs, c, cw = (_f(x, t) for x in (lr, gamma1, gamma2, epsilon, wd,
                                                         rescale_grad, clip_gradient,
                                                         clip_weights))
    grad = _clip(rs * g + wd * w, c)
    n = (1 - g1) * grad * grad + g1 * n
    gs = (1 - g1) * grad + g1 * gs
    delta = g2 * delta - lr * grad / np.sqrt(n - gs * gs + eps)
    return [_clip(w + delta, cw), n, gs, delta]


def ref_ftrl(w, g, z, n, lr, lamda1=0.01, beta=1, wd=0, rescale_grad=1, clip_gradient=-1):
    t = w.dtype.type
    lr, l1, beta, wd, rs, c = (_f(x, t) for x in (lr, lamda1, beta, wd, rescale_grad,
                                                  clip_gradient))
    grad = _clip(g * rs, c)
    z = z + (grad - (np.sqrt(n + grad * grad) - np.sqrt(n)) * w / lr)
    n = n + grad * grad
    out = (np.sign(z) * l1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > l1)
    return [out, z, n]


def ref_ftml(w, g, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0, rescale_grad=1,
             clip_grad=-1):
    dt = w.dtype.type
    lr, b1, b2, wd, rs, c = (_f(x, dt) for x in (lr, beta1, beta2, wd, rescale_grad, clip_grad))
    eps, t = dt(epsilon), dt(t)
    grad = _clip(rs * g + wd * w, c)
    v = b2 * v + (1 - b2) * grad * grad
    d_t = (1 - b1 ** t) / lr * (np.sqrt(v / (1 - b2 ** t)) + eps)
    z = b1 * z + (1 - b1) * grad - (d_t - b1 * d) * w
    return [-z / d_t, d_t, v, z]


def ref_adagrad(w, g, h, lr, epsilon=1e-7, wd=0, rescale_grad=1, clip_gradient=-1):
    t = w.dtype.type
    lr, eps, rs, c = (_f(x, t) for x in (lr, epsilon, rescale_grad, clip_gradient))
    grad = _clip(g * rs, c)
    h = h + grad * grad
    return [w - grad / np.sqrt(h + eps) * lr, h]


def ref_lamb1(w, g, mean, var, t, wd, beta1=0.9, beta2=0.999, epsilon=1e-6,
              bias_correction=True, rescale_grad=1, clip_gradient=-1):
    dt = w.dtype.type
    b1, b2, eps, wd, rs, c = (_f(x, dt) for x in (beta1, beta2, epsilon, wd, rescale_grad,
                                                  clip_gradient))
    grad = _clip(g * rs, c)
    mean = b1 * mean + (1 - b1) * grad
    var = b2 * var + (1 - b2) * grad * grad
    if bias_correction:
        # MXNet raises beta to the t in double, then rounds to the dtype
        m_hat = mean / (1 - dt(np.float64(np.float32(beta1)) ** t))
        v_hat = var / (1 - dt(np.float64(np.float32(beta2)) ** t))
        return [m_hat / (np.sqrt(v_hat) + eps) + wd * w, mean, var]
    return [mean / (np.sqrt(var) + eps) + wd * w, mean, var]


def ref_lamb2(w, g, r1, r2, lr, lower_bound=-1, upper_bound=-1):
    t = w.dtype.type
    lr, lb, ub = (_f(x, t) for x in (lr, lower_bound, upper_bound))
    r1, r2 = t(r1[0]), t(r2[0])
    if lb >= 0:
        r1 = max(r1, lb)
    if ub >= 0:
        r1 = min(r1, ub)
    if r1 != 0 and r2 != 0:
        lr = lr * r1 / r2
    return [w - lr * g]


# name, op, number of inputs, inputs to draw positive (second moments), reference,
# argument sets (each changes the code path: plain, decay + rescale, clipping)
BASE = [dict(lr=0.1), dict(lr=0.05, wd=0.01, rescale_grad=0.5),
        dict(lr=0.1, wd=0.001, rescale_grad=3.0, clip_gradient=0.4)]
MOM = [dict(a, momentum=0.9) for a in BASE]
SINGLE_OPS = [
    ("sgd_update", 2, (), ref_sgd, BASE),
    ("sgd_mom_update", 3, (), ref_sgd_mom, MOM),
    ("nag_mom_update", 3, (), ref_nag, MOM),
    ("signsgd_update", 2, (), ref_signsgd, BASE),
    ("signum_update", 3, (), ref_signum, [dict(a, momentum=0.9, wd_lh=0.01) for a in BASE]),
    ("adam_update", 4, (3,), ref_adam,
     [dict(a, beta1=0.8, beta2=0.99, epsilon=1e-6) for a in BASE]),
    ("rmsprop_update", 3, (2,), ref_rmsprop,
     BASE + [dict(lr=0.1, clip_weights=0.5, gamma1=0.9)]),
    ("rmspropalex_update", 5, (2,), ref_rmspropalex,
     BASE + [dict(lr=0.1, clip_weights=0.5, gamma1=0.9, gamma2=0.8)]),
    ("ftrl_update", 4, (3,), ref_ftrl, BASE + [dict(lr=0.1, lamda1=0.001, beta=2.0)]),
    ("ftml_update", 5, (3,), ref_ftml,
     [dict(lr=0.1, t=1), dict(lr=0.05, t=3, wd=0.01, rescale_grad=0.5, beta1=0.5),
      dict(lr=0.1, t=2, clip_grad=0.3, epsilon=1e-6)]),
    ("_sparse_adagrad_update", 3, (2,), ref_adagrad,
     [dict(lr=0.1), dict(lr=0.1, rescale_grad=0.5, clip_gradient=0.2, epsilon=1e-5)]),
]
# Which inputs each op updates in place (the weight through out=weight).
MUTATED = {"sgd_update": [], "signsgd_update": [], "sgd_mom_update": [2], "nag_mom_update": [2],
           "signum_update": [2], "adam_update": [2, 3], "rmsprop_update": [2],
           "rmspropalex_update": [2, 3, 4], "ftrl_update": [2, 3], "ftml_update": [2, 3, 4],
           "_sparse_adagrad_update": [2]}


def _op(name):
    return getattr(nd, name, None) or getattr(_int, name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,nin,positive,ref,arg_sets", SINGLE_OPS,
                         ids=[o[0] for o in SINGLE_OPS])
def test_update_matches_numpy_and_writes_states_in_place(name, nin, positive, ref, arg_sets,
                                                         dtype):
    for k, args in enumerate(arg_sets):
        data = [_rand(10 * k + i, dtype, positive=i in positive) for i in range(nin)]
        if name == "rmspropalex_update":  # keep n - g**2 positive
            data[3] = (data[3] * dtype(0.1)).astype(dtype)
        arrays = [nd.array(a, dtype=dtype) for a in data]
        ret = _op(name)(*arrays, out=arrays[0], **args)
        expected = ref(*data, **args)
        assert ret is arrays[0] or np.array_equal(ret.asnumpy(), arrays[0].asnumpy())
        assert np.all(np.isfinite(arrays[0].asnumpy()))
        _close(arrays[0].asnumpy(), expected[0], dtype)
        for state, exp in zip(MUTATED[name], expected[1:]):
            _close(arrays[state].asnumpy(), exp, dtype)
        # the gradient (input 1) is only read
        np.testing.assert_array_equal(arrays[1].asnumpy(), data[1])


def test_update_without_out_returns_new_weight_and_keeps_input_weight():
    w, g, mom = (_rand(i, np.float32) for i in range(3))
    W, G, M = nd.array(w), nd.array(g), nd.array(mom)
    new = nd.sgd_mom_update(W, G, M, lr=0.1, momentum=0.9)
    np.testing.assert_array_equal(W.asnumpy(), w)
    expected = ref_sgd_mom(w, g, mom, lr=0.1, momentum=0.9)
    _close(new.asnumpy(), expected[0], np.float32)
    _close(M.asnumpy(), expected[1], np.float32)


def test_nag_momentum_reads_the_written_weight_like_mxnet():
    w, g, mom = (_rand(i, np.float32) for i in range(3))
    args = dict(lr=0.1, momentum=0.9, wd=0.5)
    for inplace in (True, False):
        W, G, M = nd.array(w), nd.array(g), nd.array(mom)
        out = W if inplace else nd.zeros(SHAPE)
        nd.nag_mom_update(W, G, M, out=out, **args)
        new_w, new_mom = ref_nag(w, g, mom, inplace=inplace, **args)
        _close(out.asnumpy(), new_w, np.float32)
        _close(M.asnumpy(), new_mom, np.float32)


def test_float16_updates_round_every_operation_like_mxnet():
    # Bit patterns observed from MXNet 1.9.1, whose float16 kernels round after each
    # operation; computing in float32 and rounding once gives [11587 47581 13671 15107] and
    # [11360 47578 13769 15090].
    w = nd.array([0.1, -0.7, 0.33, 0.9], dtype="float16")
    g = nd.array([0.25, 0.5, -0.125, 0.3], dtype="float16")
    nd.sgd_update(w, g, lr=0.1, wd=0.03, rescale_grad=0.7, out=w)
    assert w.asnumpy().view(np.uint16).tolist() == [11586, 47582, 13672, 15107]
    w = nd.array([0.1, -0.7, 0.33, 0.9], dtype="float16")
    mean, var = nd.zeros(4, dtype="float16"), nd.zeros(4, dtype="float16")
    nd.adam_update(w, g, mean, var, lr=0.01, wd=0.1, out=w)
    assert w.asnumpy().view(np.uint16).tolist() == [11353, 47580, 13771, 15089]


# ---------------------------------------------------------------- mixed precision
MP_OPS = [
    ("mp_sgd_update", ref_sgd, BASE, []),
    ("mp_sgd_mom_update", ref_sgd_mom, MOM, ["mom"]),
    ("mp_nag_mom_update", None, MOM, ["mom"]),
]


@pytest.mark.parametrize("name,ref,arg_sets,states", MP_OPS, ids=[o[0] for o in MP_OPS])
def test_mixed_precision_update_computes_in_float32_master_weight(name, ref, arg_sets, states):
    for k, args in enumerate(arg_sets):
        w32 = _rand(k, np.float32)
        g16 = _rand(k + 1, np.float16)
        mom = _rand(k + 2, np.float32)
        W, G, W32 = nd.array(w32, dtype="float16"), nd.array(g16, dtype="float16"), nd.array(w32)
        inputs = [W, G] + ([nd.array(mom)] if states else []) + [W32]
        getattr(nd, name)(*inputs, out=W, **args)
        g32 = g16.astype(np.float32)
        if name == "mp_nag_mom_update":
            t = np.float32
            lr, m, wd, rs, c = (_f(args.get(a, d), t) for a, d in
                                (("lr", 0), ("momentum", 0), ("wd", 0), ("rescale_grad", 1),
                                 ("clip_gradient", -1)))
            grad = _clip(rs * g32, c)
            mm = m * mom
            new_w = w32 - mm + (m + 1) * (mm - lr * (grad + wd * w32))
            expected = [new_w, mm - lr * (grad + wd * new_w)]
        elif states:
            expected = ref(w32, g32, mom, **args)
        else:
            expected = ref(w32, g32, **args)
        _close(W32.asnumpy(), expected[0], np.float32)
        np.testing.assert_array_equal(W.asnumpy(), W32.asnumpy().astype(np.float16))
        if states:
            _close(inputs[2].asnumpy(), expected[1], np.float32)


def test_mixed_precision_requires_float32_master_weight():
    w = nd.zeros(3, dtype="float16")
    with pytest.raises(MXNetError, match=r"mp_sgd_update: argument weight32 expected float32, "
                                         r"given float16"):
        nd.mp_sgd_update(w, w, w, lr=0.1)
    with pytest.raises(MXNetError, match=r"argument mom expected float32"):
        nd.mp_sgd_mom_update(w, w, w, nd.zeros(3), lr=0.1)


# ---------------------------------------------------------------- adamw
@pytest.mark.parametrize("dtype", DTYPES)
def test_adamw_update_takes_rescale_grad_as_array(dtype):
    w, g, mean = (_rand(i, dtype) for i in range(3))
    var = _rand(3, dtype, positive=True)
    for args in (dict(lr=0.1, eta=1.0), dict(lr=0.1, eta=0.5, wd=0.01, clip_gradient=0.3)):
        W, G, M, V = (nd.array(a, dtype=dtype) for a in (w, g, mean, var))
        _int._adamw_update(W, G, M, V, nd.array([0.5]), out=W, **args)
        expected = ref_adamw(w, g, mean, var, rescale_grad=0.5, **args)
        for arr, exp in zip((W, M, V), expected):
            _close(arr.asnumpy(), exp, dtype)
        np.testing.assert_array_equal(G.asnumpy(), g)


@pytest.mark.parametrize("scale", [0.0, np.nan, np.inf])
def test_adamw_update_is_skipped_for_zero_or_non_finite_rescale(scale):
    w, g, mean, var = (_rand(i, np.float32, positive=True) for i in range(4))
    W, G, M, V = (nd.array(a) for a in (w, g, mean, var))
    nd.contrib.adamw_update(W, G, M, V, rescale_grad=scale, lr=0.1, eta=1.0, out=W)
    for arr, a in zip((W, M, V), (w, mean, var)):
        np.testing.assert_array_equal(arr.asnumpy(), a)
    fresh = nd.contrib.adamw_update(W, G, M, V, rescale_grad=scale, lr=0.1, eta=1.0)
    np.testing.assert_array_equal(fresh.asnumpy(), w)


def test_contrib_adamw_wrappers_accept_a_number():
    w, g, mean, var = (_rand(i, np.float32, positive=True) for i in range(4))
    W, G, M, V = (nd.array(a) for a in (w, g, mean, var))
    nd.contrib.adamw_update(W, G, M, V, rescale_grad=2.0, lr=0.1, eta=0.5, wd=0.1, out=W)
    _close(W.asnumpy(), ref_adamw(w, g, mean, var, lr=0.1, eta=0.5, wd=0.1,
                                  rescale_grad=2.0)[0], np.float32)
    # Values observed from MXNet 1.9.1.
    W = nd.array([1, 2, 3])
    G = nd.array([0.1, 0.2, 0.3])
    M, V = nd.zeros(3), nd.zeros(3)
    nd.contrib.adamw_update(W, G, M, V, rescale_grad=2.0, lr=0.1, eta=1.0, out=W)
    np.testing.assert_allclose(W.asnumpy(), [0.6837706, 1.6837704, 2.6837702], rtol=1e-7)
    # mixed precision
    w16 = nd.array(w, dtype="float16")
    W32, M, V = nd.array(w16.asnumpy().astype(np.float32)), nd.array(mean), nd.array(var)
    expected = ref_adamw(W32.asnumpy(), g.astype(np.float16).astype(np.float32), mean, var,
                         lr=0.1, eta=1.0, rescale_grad=0.5)
    nd.contrib.mp_adamw_update(w16, nd.array(g, dtype="float16"), M, V, W32,
                               rescale_grad=nd.array([0.5]), lr=0.1, eta=1.0, out=w16)
    _close(W32.asnumpy(), expected[0], np.float32)
    np.testing.assert_array_equal(w16.asnumpy(), W32.asnumpy().astype(np.float16))


# ---------------------------------------------------------------- lamb
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lamb_phases_match_numpy(dtype):
    w, g, mean = (_rand(i, dtype) for i in range(3))
    var = _rand(3, dtype, positive=True)
    for args in (dict(t=1, wd=0.01), dict(t=3, wd=0.0, bias_correction=False, rescale_grad=0.5,
                                          clip_gradient=0.3)):
        W, G, M, V = (nd.array(a, dtype=dtype) for a in (w, g, mean, var))
        direction = nd.lamb_update_phase1(W, G, M, V, **args)
        expected = ref_lamb1(w, g, mean, var, **args)
        for arr, exp in zip((direction, M, V), expected):
            _close(arr.asnumpy(), exp, dtype)
    gdir = _rand(5, dtype)
    for r1, r2 in [(2.0, 3.0), (0.0, 3.0), (2.0, 0.0)]:
        for lb, ub in [(-1, -1), (2.5, -1), (-1, 1.5)]:
            R1, R2 = nd.array([r1], dtype=dtype), nd.array([r2], dtype=dtype)
            out = nd.lamb_update_phase2(nd.array(w, dtype=dtype), nd.array(gdir, dtype=dtype),
                                        R1, R2, lr=0.1, lower_bound=lb, upper_bound=ub)
            _close(out.asnumpy(), ref_lamb2(w, gdir, [r1], [r2], 0.1, lb, ub)[0], dtype)


def test_mixed_precision_lamb_phases():
    w32 = _rand(0, np.float32)
    g16 = _rand(1, np.float16)
    mean, var = _rand(2, np.float32), _rand(3, np.float32, positive=True)
    W, G = nd.array(w32, dtype="float16"), nd.array(g16, dtype="float16")
    M, V, W32 = nd.array(mean), nd.array(var), nd.array(w32)
    direction = nd.mp_lamb_update_phase1(W, G, M, V, W32, t=2, wd=0.01)
    assert direction.dtype == np.float32
    expected = ref_lamb1(w32, g16.astype(np.float32), mean, var, t=2, wd=0.01)
    _close(direction.asnumpy(), expected[0], np.float32)
    _close(M.asnumpy(), expected[1], np.float32)
    new = nd.mp_lamb_update_phase2(W, direction, nd.array([2.0]), nd.array([4.0]), W32, lr=0.1)
    assert new.dtype == np.float16
    np.testing.assert_array_equal(
        new.asnumpy(), (w32 - np.float32(0.05) * direction.asnumpy()).astype(np.float16))
    # as in MXNet, phase 2 leaves weight32 as it was
    np.testing.assert_array_equal(W32.asnumpy(), w32)


def test_lamb_phase2_requires_single_value_norms():
    w = nd.ones(3)
    with pytest.raises(MXNetError, match=r"lamb_update_phase2: argument r1 expected shape"):
        nd.lamb_update_phase2(w, w, nd.ones(2), nd.ones(1), lr=0.1)
    with pytest.raises(MXNetError, match=r"mp_lamb_update_phase1: argument weight expected "
                                         r"float16, given float32"):
        nd.mp_lamb_update_phase1(w, w, w, w, w, t=1, wd=0)


# ---------------------------------------------------------------- multi-weight sgd
SHAPES3 = [(4, 3), (7,), (2, 2, 2)]
LRS, WDS = (0.1, 0.05, 0.2), (0.0, 0.01, 0.001)


def _multi_case(seed, mp, mom, dtype):
    groups = []
    for k, s in enumerate(SHAPES3):
        w32 = _rand(seed + 10 * k, np.float32, s)
        g = _rand(seed + 10 * k + 1, dtype, s)
        m = _rand(seed + 10 * k + 2, np.float32 if mp else dtype, s)
        group = [w32.astype(dtype), g] + ([m] if mom else []) + ([w32] if mp else [])
        groups.append(group)
    return groups


@pytest.mark.parametrize("preloaded", [False, True])
@pytest.mark.parametrize("mp", [False, True])
@pytest.mark.parametrize("mom", [False, True])
def test_multi_sgd_updates_every_weight_in_place(mom, mp, preloaded):
    name = ("preloaded_" if preloaded else "") + "multi_" + ("mp_" if mp else "") + "sgd_" + \
        ("mom_" if mom else "") + "update"
    dtype = np.float16 if mp else np.float32
    for args in (dict(), dict(rescale_grad=3.0, clip_gradient=0.4)):
        if mom:
            args = dict(args, momentum=0.9)
        groups = _multi_case(7, mp, mom, dtype)
        arrays = [[nd.array(a, dtype=a.dtype) for a in grp] for grp in groups]
        flat = [a for grp in arrays for a in grp]
        kwargs = dict(args, num_weights=3)
        if preloaded:
            flat += [nd.array(LRS), nd.array(WDS)]
        else:
            kwargs.update(lrs=LRS, wds=WDS)
        outs = getattr(nd, name)(*flat, out=[grp[0] for grp in arrays], **kwargs)
        assert len(outs) == 3
        for k, (grp, arrs) in enumerate(zip(groups, arrays)):
            w = grp[-1] if mp else grp[0]
            g = grp[1].astype(np.float32) if mp else grp[1]
            m = grp[2] if mom else np.zeros_like(w)
            new_w, new_m = ref_sgd_mom(w, g, m, lr=LRS[k], wd=WDS[k], **args)
            if mp:
                _close(arrs[-1].asnumpy(), new_w, np.float32)
                np.testing.assert_array_equal(arrs[0].asnumpy(),
                                              arrs[-1].asnumpy().astype(np.float16))
            else:
                _close(arrs[0].asnumpy(), new_w, dtype)
            if mom:
                _close(arrs[2].asnumpy(), new_m, np.float32)


def test_multi_sgd_without_out_returns_one_array_per_weight():
    w, g = nd.array([1.0, 2.0]), nd.array([0.5, 0.5])
    outs = nd.multi_sgd_update(w, g, nd.ones(3), nd.ones(3), lrs=(0.1, 0.2), wds=(0, 0),
                               num_weights=2)
    np.testing.assert_allclose(outs[0].asnumpy(), [0.95, 1.95], rtol=1e-6)
    np.testing.assert_allclose(outs[1].asnumpy(), [0.8, 0.8, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(w.asnumpy(), [1.0, 2.0])


def test_multi_sgd_checks_rates_and_shapes():
    w = nd.ones(3)
    with pytest.raises(MXNetError, match=r"multi_sgd_update: argument lrs expected 2 learning "
                                         r"rates"):
        nd.multi_sgd_update(w, w, w, w, lrs=(0.1,), wds=(0.0, 0.0), num_weights=2)
    with pytest.raises(MXNetError, match=r"argument grad_1 has shape"):
        nd.multi_sgd_update(w, w, w, nd.ones(4), lrs=(0.1, 0.1), wds=(0.0, 0.0),
                            num_weights=2)
    with pytest.raises(MXNetError, match=r"preloaded_multi_sgd_update: argument lrs expected 2"):
        nd.preloaded_multi_sgd_update(w, w, w, w, nd.ones(3), nd.ones(2), num_weights=2)


# ---------------------------------------------------------------- multi-array helpers
@pytest.mark.parametrize("dtype", DTYPES)
def test_multi_sum_sq_gives_float32_sums_per_array(dtype):
    xs = [_rand(k, dtype, s) * 3 for k, s in enumerate([(100,), (3, 50), (1,)])]
    out = nd.multi_sum_sq(*[nd.array(x, dtype=dtype) for x in xs], num_arrays=3)
    assert out.dtype == np.float32 and out.shape == (3,)
    expected = [float(np.sum((x * x).astype(np.float64))) for x in xs]
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5 if dtype != np.float16 else 1e-3)


def test_multi_lars_scales_learning_rates():
    lrs, wss, gss, wds = [.1, .2, .3, .4], [4., 0, 2, 9], [1., 1, 0, 2], [.1, .2, .3, 0]
    out = nd.multi_lars(*(nd.array(a) for a in (lrs, wss, gss, wds)), eta=0.01, eps=1e-8,
                        rescale_grad=0.5)
    w_norm, g_norm = np.sqrt(np.float32(wss)), np.sqrt(np.float32(gss))
    expected = np.where((w_norm > 0) & (g_norm > 0),
                        np.float32(lrs) * 0.01 * w_norm /
                        (g_norm * 0.5 + np.float32(wds) * w_norm + 1e-8), lrs)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    with pytest.raises(MXNetError, match=r"multi_lars: argument lrs expected float32"):
        nd.multi_lars(*(nd.array(a, dtype="float64") for a in (lrs, wss, gss, wds)), eta=0.01,
                      eps=1e-8)


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_finite_flags_inf_and_nan(dtype):
    ok, inf, nan = (nd.array(a, dtype=dtype) for a in ([1, 2], [1, np.inf], [np.nan, 0]))
    assert nd.all_finite(ok).asnumpy().tolist() == [1.0]
    assert nd.all_finite(inf).asnumpy().tolist() == [0.0]
    assert nd.multi_all_finite(ok, nan, num_arrays=2).asnumpy().tolist() == [0.0]
    assert nd.multi_all_finite(ok, ok, num_arrays=2).asnumpy().tolist() == [1.0]
    flag = nd.zeros(1)
    nd.all_finite(ok, init_output=False, out=flag)
    assert flag.asnumpy().tolist() == [0.0]  # kept: only a non-finite value writes


def test_reset_arrays_zeroes_inputs_in_place():
    a, b = nd.ones((2, 3)), nd.array([1.0, 2.0], dtype="float16")
    assert nd.reset_arrays(a, b, num_arrays=2) == []
    assert a.asnumpy().sum() == 0 and b.asnumpy().sum() == 0


# ---------------------------------------------------------------- errors
def test_bad_arguments_raise_mxnet_errors_naming_the_operator():
    w, g = nd.ones(3), nd.ones(3)
    with pytest.raises(MXNetError, match=r"sgd_update.*lr"):
        nd.sgd_update(w, g)
    with pytest.raises(MXNetError, match=r"sgd_update.*foo"):
        nd.sgd_update(w, g, lr=0.1, foo=1)
    with pytest.raises(MXNetError, match=r"sgd_update: argument grad has shape"):
        nd.sgd_update(w, nd.ones(4), lr=0.1)
    with pytest.raises(MXNetError, match=r"adam_update: argument weight expected float32, "
                                         r"float64 or float16, given int32"):
        ints = nd.ones(3, dtype="int32")
        nd.adam_update(ints, ints, ints, ints, lr=0.1)
    with pytest.raises(MXNetError, match=r"ftml_update.*beta1"):
        nd.ftml_update(w, g, w, w, w, lr=0.1, t=1, beta1=1.5)
    with pytest.raises(MXNetError, match=r"_sparse_adagrad_update: argument wd expected 0"):
        _int._sparse_adagrad_update(w, g, nd.zeros(3), lr=0.1, wd=0.1)
    with pytest.raises(MXNetError, match=r"sgd_update.*lazy_update"):
        nd.sgd_update(w, g, lr=0.1, lazy_update="yes")


def test_update_ops_are_listed_with_mxnet_signatures():
    doc = nd.sgd_mom_update.__doc__
    for arg in ("weight", "grad", "mom", "lr", "momentum", "wd", "rescale_grad",
                "clip_gradient", "lazy_update"):
        assert arg in doc
    assert "t : int, required" in nd.ftml_update.__doc__
    assert "num_weights : int, optional, default='1'" in nd.multi_sgd_update.__doc__ or \
        "num_weights : int, optional, default=1" in nd.multi_sgd_update.__doc__


# ---------------------------------------------------------------- multi-tensor lamb
def _ref_multi_lamb(w, g, mean, var, step, lr, wd, lower_bound=-1, upper_bound=-1, **kw):
    direction, mean, var = ref_lamb1(w, g, mean, var, t=step, wd=wd, **kw)
    r1 = np.sqrt(np.sum(w.astype(np.float64) ** 2))
    r2 = np.sqrt(np.sum(direction.astype(np.float64) ** 2))
    if lower_bound >= 0:
        r1 = max(r1, lower_bound)
    if upper_bound >= 0:
        r1 = min(r1, upper_bound)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return [w - lr * ratio * direction, mean, var]


@pytest.mark.parametrize("mp", [False, True])
def test_multi_lamb_update_matches_per_tensor_lamb(mp):
    dtype = np.float16 if mp else np.float64
    steps, lrs, wds = (1, 3, 5), (0.1, 0.05, 0.2), (0.0, 0.01, 0.1)
    for kw in (dict(), dict(rescale_grad=0.5, clip_gradient=0.3, bias_correction=False),
               dict(lower_bound=0.5, upper_bound=1.0), dict(lower_bound=5.0)):
        w32 = [_rand(k, np.float32, s) for k, s in enumerate(SHAPES3)]
        g = [_rand(10 + k, dtype, s) for k, s in enumerate(SHAPES3)]
        sd = np.float32 if mp else dtype
        mean = [_rand(20 + k, sd, s) for k, s in enumerate(SHAPES3)]
        var = [_rand(30 + k, sd, s, positive=True) for k, s in enumerate(SHAPES3)]
        W = [nd.array(a, dtype=dtype) for a in w32]
        G = [nd.array(a, dtype=dtype) for a in g]
        M, V = [nd.array(a, dtype=sd) for a in mean], [nd.array(a, dtype=sd) for a in var]
        args = dict(step_count=steps, lrs=lrs, wds=wds, out=W, **kw)
        if mp:
            W32 = [nd.array(a) for a in w32]
            nd.contrib.multi_mp_lamb_update(W, G, M, V, W32, **args)
        else:
            nd.contrib.multi_lamb_update(W, G, M, V, **args)
        for k in range(3):
            master = w32[k].astype(dtype).astype(sd) if not mp else w32[k]
            expected = _ref_multi_lamb(master, g[k].astype(sd), mean[k], var[k], steps[k],
                                       lrs[k], wds[k], **kw)
            if mp:
                # r1 is the norm of the float16 weight, as in MXNet
                _close(W32[k].asnumpy(), expected[0], np.float16)
                np.testing.assert_array_equal(W[k].asnumpy(),
                                              W32[k].asnumpy().astype(np.float16))
            else:
                # the direction and the norms pass through float32, as in MXNet
                np.testing.assert_allclose(W[k].asnumpy(), expected[0], rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(M[k].asnumpy(), expected[1], rtol=1e-6)
            np.testing.assert_allclose(V[k].asnumpy(), expected[2], rtol=1e-6)


def test_multi_lamb_update_checks_counts():
    w = nd.ones(3)
    with pytest.raises(MXNetError, match=r"_multi_lamb_update: argument step_count expected 2 "
                                         r"values"):
        _int._multi_lamb_update(w, w, w, w, w, w, w, w, num_tensors=2, step_count=(1,),
                                learning_rates=(0.1, 0.1), wds=(0, 0))


# ---------------------------------------------------------------- multi-weight adamw
@pytest.mark.parametrize("mp,dtype", [(False, np.float32), (False, np.float64),
                                      (True, np.float16)])
def test_multi_adamw_update_matches_per_weight_adamw(mp, dtype):
    # (MXNet 1.9.1 copies lrs, wds and etas into float16/float64 arrays bit for bit, which
    # garbles them for those dtypes; float32 and the mixed-precision form agree with it.)
    lrs, wds, etas = (0.1, 0.05, 0.2), (0.0, 0.01, 0.1), (1.0, 0.5, 2.0)
    sd = np.float32 if mp else dtype
    for kw in (dict(), dict(clip_gradient=0.3, beta1=0.8, epsilon=1e-4)):
        w32 = [_rand(k, np.float32, s) for k, s in enumerate(SHAPES3)]
        g = [_rand(10 + k, dtype, s) for k, s in enumerate(SHAPES3)]
        mean = [_rand(20 + k, sd, s) for k, s in enumerate(SHAPES3)]
        var = [_rand(30 + k, sd, s, positive=True) for k, s in enumerate(SHAPES3)]
        W = [nd.array(a, dtype=dtype) for a in w32]
        M, V = [nd.array(a, dtype=sd) for a in mean], [nd.array(a, dtype=sd) for a in var]
        args = dict(lrs=lrs, wds=wds, etas=etas, out=W, **kw)
        G = [nd.array(a, dtype=dtype) for a in g]
        if mp:
            W32 = [nd.array(a) for a in w32]
            nd.contrib.multi_mp_adamw_update(W, G, M, V, W32, 0.5, **args)
        else:
            nd.contrib.multi_adamw_update(W, G, M, V, nd.array([0.5], dtype=dtype), **args)
        for k in range(3):
            master = w32[k] if mp else w32[k].astype(dtype)
            expected = ref_adamw(master, g[k].astype(sd), mean[k], var[k], lr=lrs[k],
                                 eta=etas[k], wd=wds[k], rescale_grad=0.5, **kw)
            _close((W32 if mp else W)[k].asnumpy(), expected[0], sd)
            _close(M[k].asnumpy(), expected[1], sd)
            _close(V[k].asnumpy(), expected[2], sd)
            if mp:
                np.testing.assert_array_equal(W[k].asnumpy(),
                                              W32[k].asnumpy().astype(np.float16))


def test_multi_adamw_update_is_skipped_for_zero_rescale():
    W, G, M, V = ([nd.array(_rand(i, np.float32, s)) for s in SHAPES3] for i in range(4))
    before = [a.asnumpy() for a in W + M + V]
    nd.contrib.multi_adamw_update(W, G, M, V, 0.0, lrs=(0.1,) * 3, wds=(0,) * 3,
                                  etas=(1,) * 3, out=W)
    for a, b in zip(W + M + V, before):
        np.testing.assert_array_equal(a.asnumpy(), b)


@pytest.mark.parametrize("name", ["sgd_mom_update", "multi_sgd_mom_update"])
def test_decaying_momentum_flushes_to_zero_below_the_normal_range(name):
    # A weight whose gradient stays 0 has its momentum shrink by 0.9 per step; results below
    # float32's smallest normal (1.18e-38) become 0 instead of denormals (slow to compute with),
    # every other element is computed as usual. 40000 elements: several blocks, split across
    # the OpenMP threads where there are two.
    n = 40000
    tiny = np.float32(1.17549435e-38)  # the smallest normal float32
    w = np.linspace(-1, 1, n).astype(np.float32)
    g = np.zeros(n, np.float32)
    g[::2] = 0.25
    m = np.full(n, tiny, np.float32)
    m[1::4] = 1e-3
    weight, grad, mom = nd.array(w), nd.array(g), nd.array(m)
    kwargs = dict(momentum=0.9)
    if name == "multi_sgd_mom_update":
        nd.multi_sgd_mom_update(weight, grad, mom, out=[weight], lrs=(0.1,), wds=(0.0,),
                                num_weights=1, **kwargs)
    else:
        nd.sgd_mom_update(weight, grad, mom, out=weight, lr=0.1, wd=0.0, **kwargs)
    expect_m = np.float32(0.9) * m - np.float32(0.1) * g
    expect_m[np.abs(expect_m) < tiny] = 0
    got_m = mom.asnumpy()
    np.testing.assert_array_equal(got_m, expect_m)
    assert (got_m[3::4] == 0).all()  # 0.9 * tiny with no gradient: flushed, not denormal
    np.testing.assert_allclose(weight.asnumpy(), w + expect_m, rtol=1e-6, atol=0)
