"""CTCLoss, MakeLoss, IdentityAttachKLSparseReg, hard_sigmoid, moments, the BatchNorm variants
(BatchNorm_v1, SyncBatchNorm, BatchNormWithReLU), Convolution_v1, Pooling_v1,
group_adagrad_update and the _sparse_* update aliases: numpy references, gradients, outputs
of MXNet 1.9.1 (fixtures/mxnet191_losses.npz, from fixtures/make_losses_fixtures.py) and
argument errors."""
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

nd = mx.nd
FIX = np.load(os.path.join(os.path.dirname(__file__), 'fixtures', 'mxnet191_losses.npz'))


def numeric_grad(f, x, eps=1e-6):
    """d sum(f(x) * 1) / dx by central differences (f maps a float64 numpy array to a float)."""
    g = np.zeros_like(x)
    flat, gf = x.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        hi = f(x)
        flat[i] = old - eps
        lo = f(x)
        flat[i] = old
        gf[i] = (hi - lo) / (2 * eps)
    return g


def run_with_grad(op, inputs, head=None, grad_of=(0,), **kwargs):
    """Outputs of op and the gradients of the inputs listed in grad_of."""
    arrs = [nd.array(a, dtype=a.dtype) if isinstance(a, np.ndarray) else a for a in inputs]
    for i in grad_of:
        arrs[i].attach_grad()
    with mx.autograd.record():
        out = op(*arrs, **kwargs)
    first = out[0] if isinstance(out, (list, tuple)) else out
    first.backward(head)
    return out, [arrs[i].grad.asnumpy() for i in grad_of]


# ---------------------------------------------------------------- CTCLoss
def ctc_ref(acts, labels, blank, data_len=None, label_len=None, padding=None):
    """Log-space CTC over logits acts (T, N, C): loss (N,) and its gradient (T, N, C).
    A label the frames cannot hold gives loss 0 and gradient 0 (MXNet's rule)."""
    T, N, C = acts.shape
    acts = acts.astype(np.float64)
    loss, grad = np.zeros(N), np.zeros_like(acts)
    for n in range(N):
        t_n = T if data_len is None else int(data_len[n])
        lab = [int(v) for v in labels[n]]
        if label_len is not None:
            lab = lab[:int(label_len[n])]
        elif padding in lab:
            lab = lab[:lab.index(padding)]
        repeats = sum(a == b for a, b in zip(lab, lab[1:]))
        if t_n == 0 or len(lab) + repeats > t_n:
            continue
        x = acts[:t_n, n]
        lp = x - x.max(1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
        ext = [blank]
        for v in lab:
            ext += [v, blank]
        S = len(ext)
        a = np.full((t_n, S), -np.inf)
        b = np.full((t_n, S), -np.inf)
        a[0, 0] = lp[0, ext[0]]
        if S > 1:
            a[0, 1] = lp[0, ext[1]]
        for t in range(1, t_n):
            for s in range(S):
                v = [a[t - 1, s]] + ([a[t - 1, s - 1]] if s >= 1 else [])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    v.append(a[t - 1, s - 2])
                a[t, s] = np.logaddexp.reduce(v) + lp[t, ext[s]]
        b[t_n - 1, S - 1] = lp[t_n - 1, ext[S - 1]]
        if S > 1:
            b[t_n - 1, S - 2] = lp[t_n - 1, ext[S - 2]]
        for t in range(t_n - 2, -1, -1):
            for s in range(S):
                v = [b[t + 1, s]] + ([b[t + 1, s + 1]] if s + 1 < S else [])
                if s + 2 < S and ext[s] != blank and ext[s] != ext[s + 2]:
                    v.append(b[t + 1, s + 2])
                b[t, s] = np.logaddexp.reduce(v) + lp[t, ext[s]]
        ll = np.logaddexp.reduce(a[t_n - 1, max(S - 2, 0):])
        loss[n] = -ll
        occ = np.full((t_n, C), -np.inf)
        for s in range(S):
            occ[:, ext[s]] = np.logaddexp(occ[:, ext[s]], a[:, s] + b[:, s] - lp[:, ext[s]])
        grad[:t_n, n] = np.exp(lp) - np.exp(occ - ll)
    return loss, grad


CTC_CASES = [
    # kwargs, labels, data lengths, label lengths
    ({}, [[1, 2, 0], [3, 3, 1], [4, 0, 0]], None, None),
    ({'blank_label': 'last'}, [[0, 1, -1], [2, 2, 3], [-1, -1, -1]], None, None),
    ({'use_data_lengths': True}, [[1, 2, 0], [3, 1, 0], [4, 0, 0]], [3, 6, 2], None),
    ({'use_label_lengths': True}, [[1, 2, 3], [3, 3, 1], [4, 2, 2]], None, [2, 3, 0]),
    ({'use_data_lengths': True, 'use_label_lengths': True, 'blank_label': 'last'},
     [[0, 1, 2], [3, 3, 1], [2, 2, 2]], [6, 4, 5], [2, 3, 1]),
]


def ctc_inputs(x, labels, dlen, llen, dtype):
    args = [x.astype(dtype), np.array(labels, dtype)]
    if dlen is not None:
        args.append(np.array(dlen, dtype))
    if llen is not None:
        args.append(np.array(llen, dtype))
    return args


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('case', range(len(CTC_CASES)))
def test_ctc_loss_and_gradient_match_the_log_space_reference(case, dtype):
    kw, labels, dlen, llen = CTC_CASES[case]
    x = np.random.RandomState(case).randn(6, 3, 5)
    head = np.array([1.0, 0.5, 2.0])
    (loss, (dx,)) = run_with_grad(nd.CTCLoss, ctc_inputs(x, labels, dlen, llen, dtype),
                                  head=nd.array(head, dtype=dtype), **kw)
    blank = 0 if kw.get('blank_label', 'first') == 'first' else 4
    padding = 0 if blank == 0 else -1
    ref_loss, ref_grad = ctc_ref(x, labels, blank, dlen, llen if kw.get('use_label_lengths')
                                 else None, padding)
    tol = 1e-5 if dtype == 'float32' else 1e-10
    assert loss.dtype == np.dtype(dtype)
    np.testing.assert_allclose(loss.asnumpy(), ref_loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(dx, ref_grad * head[None, :, None], rtol=tol, atol=tol)


def test_ctc_gradient_is_the_numerical_gradient_of_the_loss():
    x = np.random.RandomState(3).randn(5, 2, 4)
    label = nd.array([[1, 2], [3, 3]])
    (_, (dx,)) = run_with_grad(nd.CTCLoss, [x.copy(), label])
    num = numeric_grad(lambda v: nd.CTCLoss(nd.array(v, dtype='float64'), label)
                       .asnumpy().sum(), x.copy())
    np.testing.assert_allclose(dx, num, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name', ['CTCLoss', 'ctc_loss'])
def test_ctc_aliases_compute_the_same(name):
    x = nd.array(np.random.RandomState(0).randn(4, 2, 3))
    label = nd.array([[1, 2], [2, 0]])
    want = nd.CTCLoss(x, label).asnumpy()
    got = getattr(nd, name)(x, label).asnumpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(nd.contrib.CTCLoss(x, label).asnumpy(), want)
    np.testing.assert_array_equal(nd.contrib.ctc_loss(x, label).asnumpy(), want)


def test_ctc_returns_only_the_loss_and_stays_finite_on_long_sequences():
    T, C = 400, 6
    rng = np.random.RandomState(1)
    x = nd.array(rng.randn(T, 1, C) * 30)  # far from uniform: probabilities underflow
    label = nd.array([rng.randint(1, C, size=50)])
    out = nd.CTCLoss(x, label)
    assert isinstance(out, nd.NDArray) and out.shape == (1,)
    assert np.isfinite(out.asnumpy()).all() and out.asnumpy()[0] > 0


def test_ctc_label_longer_than_the_frames_gives_zero_loss_and_gradient():
    x = np.random.RandomState(2).randn(2, 1, 4)
    (loss, (dx,)) = run_with_grad(nd.CTCLoss, [x, nd.array([[3, 3]])])
    assert loss.asnumpy().tolist() == [0.0]
    assert not dx.any()


def test_ctc_fixtures_from_mxnet_191():
    kwargs = {'ctc_first': {}, 'ctc_last': {'blank_label': 'last'},
              'ctc_lengths': {'use_data_lengths': True, 'use_label_lengths': True},
              'ctc_datalen': {'use_data_lengths': True}}
    for case, kw in kwargs.items():
        args = [FIX[case + '_in_data'], nd.array(FIX[case + '_in_label'])]
        for extra in ('_in_dlen', '_in_llen'):
            if case + extra in FIX:
                args.append(nd.array(FIX[case + extra]))
        (loss, (dx,)) = run_with_grad(nd.CTCLoss, args, head=nd.array([1.0, 0.5, 2.0]), **kw)
        np.testing.assert_allclose(loss.asnumpy(), FIX[case + '_loss'], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(dx, FIX[case + '_grad'], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('call, message', [
    (lambda x: nd.CTCLoss(x, nd.array([[1, 2]])), 'same batch size'),
    (lambda x: nd.CTCLoss(x, nd.ones((2, 7))), 'cannot exceed the sequence length'),
    (lambda x: nd.CTCLoss(x, nd.array([[1, 9], [1, 1]])).asnumpy(), r'label value 9 .*\[0, 3\)'),
    (lambda x: nd.CTCLoss(x, nd.array([[1, -1], [1, 1]])).asnumpy(), 'label value -1'),
    (lambda x: nd.CTCLoss(x, nd.ones((2, 2)), blank_label='mid'), 'blank_label'),
    (lambda x: nd.CTCLoss(x, nd.ones((2, 2)), nd.array([4, 9]), use_data_lengths=True)
     .asnumpy(), r'data_lengths\[1\]=9'),
    (lambda x: nd.CTCLoss(x.astype('int32'), nd.ones((2, 2))), 'float32 or float64'),
    (lambda x: nd.CTCLoss(x.reshape((4, 6)), nd.ones((2, 2))), '3-D'),
])
def test_ctc_bad_arguments_raise(call, message):
    x = nd.ones((4, 2, 3))
    with pytest.raises(MXNetError, match=message):
        call(x)


# ---------------------------------------------------------------- MakeLoss
@pytest.mark.parametrize('kw, scale', [
    ({}, 1.0), ({'grad_scale': 2.5}, 2.5), ({'normalization': 'batch'}, 0.5),
    ({'normalization': 'valid', 'valid_thresh': 0.4}, 1 / 3.0),
    ({'normalization': 'valid', 'valid_thresh': 10, 'grad_scale': 3}, 3.0),
])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_make_loss_is_identity_with_constant_normalized_gradient(kw, scale, dtype):
    x = np.array([[1., -2., 3.], [0.5, 0., -1.]], dtype)
    (y, (dx,)) = run_with_grad(nd.MakeLoss, [x], head=nd.ones((2, 3), dtype=dtype) * 5, **kw)
    np.testing.assert_array_equal(y.asnumpy(), x)
    assert dx.dtype == np.dtype(dtype)
    np.testing.assert_allclose(dx, np.full(x.shape, scale), rtol=1e-6)


def test_make_loss_bad_normalization_raises():
    with pytest.raises(MXNetError, match='normalization'):
        nd.MakeLoss(nd.ones(3), normalization='mean')


def test_sparse_names_of_make_loss_and_stop_gradient():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = nd._internal._sparse_make_loss(x) * 3 + nd._internal._sparse_stop_gradient(x)
    y.backward()
    # make_loss's gradient is one whatever the head gradient (3 here); stop_gradient adds none.
    np.testing.assert_array_equal(x.grad.asnumpy(), [1.0, 1.0])


# ---------------------------------------------------------------- IdentityAttachKLSparseReg
def test_kl_sparse_reg_is_identity_and_adds_the_penalty_gradient():
    rng = np.random.RandomState(0)
    x = rng.uniform(0.05, 0.95, (4, 3))
    avg0 = np.array([0.2, 0.5, 0.7])
    moving = nd.array(avg0, dtype='float64')
    head = rng.randn(4, 3)
    kw = dict(sparseness_target=0.2, penalty=0.01, momentum=0.8)
    (y, (dx,)) = run_with_grad(nd.IdentityAttachKLSparseReg, [x, moving],
                               head=nd.array(head, dtype='float64'), **kw)
    np.testing.assert_array_equal(y.asnumpy(), x)
    mom, rho, pen = (float(np.float32(v)) for v in (0.8, 0.2, 0.01))  # float arguments
    avg = mom * avg0 + (1 - mom) * x.mean(0)
    np.testing.assert_allclose(moving.asnumpy(), avg, rtol=1e-12)
    penalty = pen * (-rho / avg + (1 - rho) / (1 - avg))
    np.testing.assert_allclose(dx, head + penalty[None, :], rtol=1e-12)


@pytest.mark.parametrize('call, message', [
    (lambda: nd.IdentityAttachKLSparseReg(nd.ones((2, 3, 4)), nd.ones(3)), r'\(batch, units\)'),
    (lambda: nd.IdentityAttachKLSparseReg(nd.ones((2, 3)), nd.ones(3), sparseness_target=2),
     'sparseness_target'),
    (lambda: nd.IdentityAttachKLSparseReg(nd.ones((2, 3)), nd.ones(4)), 'moving_avg'),
])
def test_kl_sparse_reg_bad_arguments_raise(call, message):
    with pytest.raises(MXNetError, match=message):
        call()


# ---------------------------------------------------------------- hard_sigmoid, moments
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
def test_hard_sigmoid_and_gradient(dtype):
    x = np.array([-4, -2.5, -1, 0, 1, 2.5, 4], dtype)
    (y, (dx,)) = run_with_grad(nd.hard_sigmoid, [x], head=nd.ones(7, dtype=dtype) * 2)
    lin = 0.2 * x.astype(np.float64) + 0.5
    np.testing.assert_allclose(y.asnumpy(), np.clip(lin, 0, 1), rtol=1e-3)
    np.testing.assert_allclose(dx, np.where((lin > 0) & (lin < 1), 0.4, 0.0), rtol=1e-3)
    x = FIX['hsig_in_data']
    (y, (dx,)) = run_with_grad(nd.hard_sigmoid, [x], head=nd.ones(x.shape) * 2, alpha=0.3,
                               beta=0.4)
    np.testing.assert_allclose(y.asnumpy(), FIX['hsig_out'], rtol=1e-6)
    np.testing.assert_allclose(dx, FIX['hsig_grad'], rtol=1e-6)


def test_hard_sigmoid_refuses_integers():
    with pytest.raises(MXNetError, match='hard_sigmoid'):
        nd.hard_sigmoid(nd.ones(3, dtype='int32'))


@pytest.mark.parametrize('axes, keepdims', [((1,), False), ((-1,), False), ((0, 2), True),
                                             ((0, 1, 2), False)])
def test_moments_match_numpy_with_gradient(axes, keepdims):
    x = np.random.RandomState(0).randn(2, 3, 4)
    (out, (dx,)) = run_with_grad(lambda d: nd.moments(d, axes=axes, keepdims=keepdims), [x])
    m, v = out
    want_m = x.mean(axis=axes, keepdims=keepdims)
    want_v = x.var(axis=axes, keepdims=keepdims)
    if want_m.ndim == 0:
        want_m, want_v = want_m.reshape(1), want_v.reshape(1)
    np.testing.assert_allclose(m.asnumpy(), want_m, rtol=1e-12)
    np.testing.assert_allclose(v.asnumpy(), want_v, rtol=1e-12)
    d = nd.array(x, dtype='float64')
    d.attach_grad()
    with mx.autograd.record():
        m, v = nd.moments(d, axes=axes, keepdims=keepdims)
        loss = (m * 2 + v * 3).sum()
    loss.backward()
    num = numeric_grad(lambda a: 2 * a.mean(axis=axes).sum() + 3 * a.var(axis=axes).sum(),
                       x.copy())
    np.testing.assert_allclose(d.grad.asnumpy(), num, rtol=1e-6, atol=1e-8)


def test_moments_fixture_and_errors():
    d = nd.array(FIX['moments_in_data'])
    d.attach_grad()
    with mx.autograd.record():
        m, v = nd.moments(d, axes=(0, 2), keepdims=True)
        loss = (m * 2 + v * 3).sum()
    loss.backward()
    np.testing.assert_allclose(m.asnumpy(), FIX['moments_mean'], rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), FIX['moments_var'], rtol=1e-5)
    np.testing.assert_allclose(d.grad.asnumpy(), FIX['moments_grad'], rtol=1e-5, atol=1e-6)
    with pytest.raises(MXNetError, match='axes must list at least one axis'):
        nd.moments(d)
    with pytest.raises(MXNetError, match='axes'):
        nd.moments(d, axes=(3,))


# ---------------------------------------------------------------- BatchNorm variants
BN_OPS = {'bnv1': (nd.BatchNorm_v1, {}), 'sync': (nd.contrib.SyncBatchNorm, {'key': 'k'}),
          'bnrelu': (nd.contrib.BatchNormWithReLU, {})}


@pytest.mark.parametrize('name', sorted(BN_OPS))
@pytest.mark.parametrize('fix', [0, 1])
def test_batch_norm_variants_match_mxnet_191(name, fix):
    op, extra = BN_OPS[name]
    case = '%s_fix%d' % (name, fix)
    x, g, b = (nd.array(FIX['bn_in_' + k]) for k in ('data', 'gamma', 'beta'))
    mm, mv = nd.array(FIX['bn_in_mmean']), nd.array(FIX['bn_in_mvar'])
    for a in (x, g, b):
        a.attach_grad()
    with mx.autograd.record():
        out = op(x, g, b, mm, mv, output_mean_var=True, fix_gamma=bool(fix), **extra)
    for i, key in enumerate(('out', 'mean', 'var')):
        np.testing.assert_allclose(out[i].asnumpy(), FIX[case + '_' + key], rtol=1e-5, atol=1e-5)
    out[0].backward(nd.array(FIX['bn_in_ograd']))
    for arr, key in ((x.grad, 'dx'), (g.grad, 'dgamma'), (b.grad, 'dbeta'), (mm, 'mmean'),
                     (mv, 'mvar')):
        np.testing.assert_allclose(arr.asnumpy(), FIX[case + '_' + key], rtol=1e-5, atol=1e-5)
    infer = op(x, g, b, mm, mv, fix_gamma=bool(fix), **extra)
    np.testing.assert_allclose(infer.asnumpy(), FIX[case + '_infer'], rtol=1e-5, atol=1e-5)


def bn_numpy(x, gamma, beta, eps, axis=1):
    red = tuple(i for i in range(x.ndim) if i != axis)
    shp = [1] * x.ndim
    shp[axis] = -1
    mean, var = x.mean(red), x.var(red)
    y = (x - mean.reshape(shp)) / np.sqrt(var.reshape(shp) + eps) * gamma.reshape(shp)
    return y + beta.reshape(shp), mean, var


@pytest.mark.parametrize('name', ['bnv1', 'sync'])
def test_v1_and_sync_batch_norm_output_the_variance_in_float64(name):
    op, extra = BN_OPS[name]
    rng = np.random.RandomState(4)
    x, gamma, beta = rng.randn(5, 3, 2), rng.rand(3) + 0.5, rng.randn(3)
    args = [nd.array(a, dtype='float64') for a in (x, gamma, beta, np.zeros(3), np.ones(3))]
    with mx.autograd.record():
        y, mean, var = op(*args, output_mean_var=True, fix_gamma=False, eps=1e-3, **extra)
    ref, rmean, rvar = bn_numpy(x, gamma, beta, 1e-3)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), rmean, rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), rvar, rtol=1e-6)


def test_batch_norm_with_relu_gradient_is_numerical():
    rng = np.random.RandomState(6)
    x, gamma, beta = rng.randn(4, 3, 2), rng.rand(3) + 0.5, rng.randn(3) * 0.3
    head = rng.randn(4, 3, 2)
    aux = [nd.zeros(3, dtype='float64'), nd.ones(3, dtype='float64')]
    (_, grads) = run_with_grad(nd.contrib.BatchNormWithReLU, [x, gamma, beta] + aux,
                               head=nd.array(head, dtype='float64'), grad_of=(0, 1, 2),
                               fix_gamma=False)

    def loss(xv, gv, bv):
        y = np.maximum(bn_numpy(xv, gv, bv, 1e-3)[0], 0)
        return (y * head).sum()
    nums = [numeric_grad(lambda v: loss(v, gamma, beta), x.copy()),
            numeric_grad(lambda v: loss(x, v, beta), gamma.copy()),
            numeric_grad(lambda v: loss(x, gamma, v), beta.copy())]
    for got, num in zip(grads, nums):
        np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)


def test_batch_norm_variant_arguments():
    x, c = nd.ones((2, 3)), nd.ones(3)
    with pytest.raises(MXNetError, match='key'):
        nd.contrib.SyncBatchNorm(x, c, c, c, c)
    with pytest.raises(MXNetError, match='axis'):
        nd.BatchNorm_v1(x, c, c, c, c, axis=0)
    y = nd.contrib.SyncBatchNorm(x, c, c, c, c, key='k', ndev=4)
    assert y.shape == (2, 3)
    with pytest.raises(MXNetError, match='float32, float64 or float16'):
        nd.contrib.BatchNormWithReLU(x.astype('int32'), c, c, c, c)


# ---------------------------------------------------------------- Convolution_v1, Pooling_v1
def test_convolution_v1_is_convolution():
    x, w, b = (FIX['conv1_in_' + k] for k in ('data', 'weight', 'bias'))
    kw = dict(kernel=(3, 3), num_filter=6, num_group=2, stride=(2, 1), pad=(1, 0))
    (y, grads) = run_with_grad(nd.Convolution_v1, [x.astype('float64'), w.astype('float64'),
                                                   b.astype('float64')], grad_of=(0, 1, 2), **kw)
    (y2, grads2) = run_with_grad(nd.Convolution, [x.astype('float64'), w.astype('float64'),
                                                  b.astype('float64')], grad_of=(0, 1, 2), **kw)
    np.testing.assert_array_equal(y.asnumpy(), y2.asnumpy())
    for g1, g2 in zip(grads, grads2):
        np.testing.assert_array_equal(g1, g2)
    got = nd.Convolution_v1(nd.array(x), nd.array(w), nd.array(b), **kw).asnumpy()
    np.testing.assert_allclose(got, FIX['conv1_out'], rtol=1e-4, atol=1e-4)
    nobias = nd.Convolution_v1(nd.array(x), nd.array(w), kernel=(3, 3), num_filter=6,
                               num_group=2, no_bias=True)
    assert nobias.shape == (2, 6, 5, 4)


def pool_v1_ref(x, kernel, stride, pad, pool_type, convention):
    """Pooling_v1 in numpy: the input padded with zeros; 'full' windows may run past the
    padded end (clipped); avg divides by the whole kernel."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    rnd = np.floor if convention == 'valid' else np.ceil
    oh = int(rnd((h + 2 * pad[0] - kernel[0]) / stride[0])) + 1
    ow = int(rnd((w + 2 * pad[1] - kernel[1]) / stride[1])) + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * stride[0]:i * stride[0] + kernel[0],
                     j * stride[1]:j * stride[1] + kernel[1]]
            if pool_type == 'max':
                out[:, :, i, j] = win.max((2, 3))
            elif pool_type == 'sum':
                out[:, :, i, j] = win.sum((2, 3))
            else:
                out[:, :, i, j] = win.sum((2, 3)) / (kernel[0] * kernel[1])
    return out


@pytest.mark.parametrize('pool_type', ['max', 'avg', 'sum'])
@pytest.mark.parametrize('convention', ['valid', 'full'])
def test_pooling_v1_matches_reference_and_mxnet_191(pool_type, convention):
    x = FIX['conv1_in_data']
    kw = dict(kernel=(3, 2), stride=(2, 2), pad=(1, 0), pool_type=pool_type,
              pooling_convention=convention)
    got = nd.Pooling_v1(nd.array(x), **kw).asnumpy()
    np.testing.assert_allclose(got, pool_v1_ref(x, (3, 2), (2, 2), (1, 0), pool_type,
                                                convention), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, FIX['pool1_%s_%s_out' % (pool_type, convention)],
                               rtol=1e-5, atol=1e-6)


def test_pooling_v1_max_gradient_skips_windows_the_zero_padding_wins():
    x = -np.random.RandomState(8).rand(1, 1, 4, 4) - 0.1  # all negative
    x[0, 0, 2, 2] = 0.5
    (y, (dx,)) = run_with_grad(nd.Pooling_v1, [x], kernel=(2, 2), stride=(2, 2), pad=(1, 1))
    num = numeric_grad(lambda v: pool_v1_ref(v, (2, 2), (2, 2), (1, 1), 'max', 'valid').sum(),
                       x.copy())
    np.testing.assert_allclose(dx, num, atol=1e-6)
    assert dx.sum() == 1.0  # only the window holding 0.5 passes a gradient


def test_pooling_v1_global_and_bad_arguments():
    x = FIX['conv1_in_data']
    got = nd.Pooling_v1(nd.array(x), kernel=(1, 1), global_pool=True, pool_type='avg')
    np.testing.assert_allclose(got.asnumpy(), FIX['pool1_global_out'], rtol=1e-5)
    with pytest.raises(MXNetError, match='pool_type'):
        nd.Pooling_v1(nd.array(x), kernel=(2, 2), pool_type='lp')
    with pytest.raises(MXNetError, match='pooling_convention'):
        nd.Pooling_v1(nd.array(x), kernel=(2, 2), pooling_convention='same')
    with pytest.raises(MXNetError, match='layout'):
        nd.Convolution_v1(nd.array(x), nd.ones((2, 4, 3)), kernel=(3,), num_filter=2,
                          no_bias=True, layout='NCW')


# ---------------------------------------------------------------- optimizer updates
def test_group_adagrad_update_matches_reference_and_mxnet_191():
    w, g = FIX['gadagrad_in_weight'], FIX['gadagrad_in_grad']
    for hist_shape in [(4,), (4, 1)]:
        weight = nd.array(w)
        hist = nd.array(np.array([0.1, 0.2, 0.3, 0.4]).reshape(hist_shape))
        nd.contrib.group_adagrad_update(weight, nd.array(g), hist, lr=0.1, rescale_grad=2.0,
                                        clip_gradient=1.5, out=weight)
        np.testing.assert_allclose(weight.asnumpy(), FIX['gadagrad_weight'], rtol=1e-6)
        np.testing.assert_allclose(hist.asnumpy().reshape(-1), FIX['gadagrad_history'],
                                   rtol=1e-6)
    # numpy, float64, no clipping
    h0 = np.array([0.5, 0.1, 0.0, 2.0])
    weight, hist = nd.array(w, dtype='float64'), nd.array(h0, dtype='float64')
    out = nd.contrib.group_adagrad_update(weight, nd.array(g, dtype='float64'), hist, lr=0.2)
    h = h0 + (g.astype(np.float64) ** 2).mean(1)
    np.testing.assert_allclose(hist.asnumpy(), h, rtol=1e-12)
    np.testing.assert_allclose(out.asnumpy(), w - 0.2 * g / np.sqrt(h + 1e-5)[:, None],
                               rtol=1e-6)
    with pytest.raises(MXNetError, match='one value per row'):
        nd.contrib.group_adagrad_update(nd.ones((4, 3)), nd.ones((4, 3)), nd.ones(3), lr=0.1)


@pytest.mark.parametrize('name, inputs, kw', [
    ('sgd_update', 2, dict(lr=0.1, wd=0.01, lazy_update=False)),
    ('sgd_mom_update', 3, dict(lr=0.1, momentum=0.9, lazy_update=True)),
    ('adam_update', 4, dict(lr=0.1, lazy_update=False)),
    ('ftrl_update', 4, dict(lr=0.1)),
])
def test_sparse_update_names_compute_the_dense_update(name, inputs, kw):
    rng = np.random.RandomState(0)
    arrays = [rng.rand(3, 2) for _ in range(inputs)]
    dense = getattr(nd, name)(*[nd.array(a) for a in arrays], **kw)
    sparse = getattr(nd._internal, '_sparse_' + name)(*[nd.array(a) for a in arrays], **kw)
    np.testing.assert_array_equal(sparse.asnumpy(), dense.asnumpy())


@pytest.mark.parametrize('name', sorted(BN_OPS))
def test_batch_norm_variants_take_float16_data_with_float32_statistics(name):
    op, extra = BN_OPS[name]
    rng = np.random.RandomState(9)
    x = rng.randn(6, 3, 2)
    c, z = nd.ones(3), nd.zeros(3)
    y16, m16, v16 = op(nd.array(x, dtype='float16'), c, z, z.copy(), c.copy(),
                       output_mean_var=True, **extra)
    y32, m32, v32 = op(nd.array(x), c, z, z.copy(), c.copy(), output_mean_var=True, **extra)
    assert y16.dtype == np.float16 and m16.dtype == np.float32 and v16.dtype == np.float32
    np.testing.assert_allclose(y16.asnumpy(), y32.asnumpy(), rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(v16.asnumpy(), v32.asnumpy(), rtol=1e-2)
