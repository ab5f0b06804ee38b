"""The fused RNN operator (mx.nd.RNN) against a numpy RNN/LSTM/GRU, numerical gradients,
MXNet 1.9.1 fixtures (tools/make_rnn_fixtures.py), PyTorch when importable, and oneDNN vs the
plain kernels."""
import ast
import glob
import itertools
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

GATES = {'lstm': 4, 'gru': 3, 'rnn_relu': 1, 'rnn_tanh': 1}
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')


# ------------------------------------------------------------------------- numpy reference
def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def param_count(mode, I, H, L, D, P=None):
    G, proj = GATES[mode], P is not None
    P = P or H
    return sum(D * (G * H * ((I if l == 0 else D * P) + P) + (P * H if proj else 0) + 2 * G * H)
               for l in range(L))


def unpack(params, mode, I, H, L, D, P):
    """Per (layer, direction): wx, wh, wr (None without projection), bx, bh."""
    G, proj = GATES[mode], P is not None
    P = P or H
    off, weights = 0, []

    def take(*shape):
        nonlocal off
        n = int(np.prod(shape))
        v = params[off:off + n].reshape(shape)
        off += n
        return v
    for l in range(L):
        for _ in range(D):
            In = I if l == 0 else D * P
            weights.append([take(G * H, In), take(G * H, P), take(P, H) if proj else None])
    for k in range(L * D):
        weights[k] += [take(G * H), take(G * H)]
    assert off == params.size
    return weights


def np_rnn(mode, x, params, h0, c0, H, L, D, P=None, seq=None, clip=None, clip_nan=False):
    T, N, I = x.shape
    W = unpack(params, mode, I, H, L, D, P)
    layer_in, hys, cys = x, [], []
    for l in range(L):
        outs = []
        for d in range(D):
            wx, wh, wr, bx, bh = W[l * D + d]
            h, c = h0[l * D + d], (c0[l * D + d] if mode == 'lstm' else None)
            y = np.zeros((T, N, h.shape[1]))
            for t in (range(T) if d == 0 else reversed(range(T))):
                gx, gh = layer_in[t] @ wx.T + bx, h @ wh.T + bh
                c_new = c
                if mode == 'lstm':
                    i, f, g, o = np.split(gx + gh, 4, axis=1)
                    c_new = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
                    if clip is not None:
                        nan = np.isnan(c_new)
                        c_new = np.clip(c_new, clip[0], clip[1])
                        if clip_nan:
                            c_new[nan] = clip[0]
                    h_new = sigmoid(o) * np.tanh(c_new)
                    if wr is not None:
                        h_new = h_new @ wr.T
                elif mode == 'gru':
                    xr, xz, xn = np.split(gx, 3, axis=1)
                    hr, hz, hn = np.split(gh, 3, axis=1)
                    r, z = sigmoid(xr + hr), sigmoid(xz + hz)
                    n = np.tanh(xn + r * hn)
                    h_new = (1 - z) * n + z * h
                else:
                    a = gx + gh
                    h_new = np.maximum(a, 0) if mode == 'rnn_relu' else np.tanh(a)
                active = np.ones((N, 1), bool) if seq is None else (t < seq)[:, None]
                h = np.where(active, h_new, h)
                if mode == 'lstm':
                    c = np.where(active, c_new, c)
                y[t] = np.where(active, h_new, 0)
            outs.append(y)
            hys.append(h)
            cys.append(c)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, np.stack(hys), (np.stack(cys) if mode == 'lstm' else None)


# ------------------------------------------------------------------------------- helpers
def make_case(mode, L, bidirectional, P=None, seq=False, T=4, N=3, I=5, H=6, seed=0,
              dtype='float64'):
    rng = np.random.RandomState(seed)
    D = 2 if bidirectional else 1
    case = dict(
        data=rng.uniform(-1, 1, (T, N, I)),
        parameters=rng.uniform(-0.5, 0.5, param_count(mode, I, H, L, D, P)),
        state=rng.uniform(-1, 1, (L * D, N, P or H)))
    if mode == 'lstm':
        case['state_cell'] = rng.uniform(-1, 1, (L * D, N, H))
    if seq:
        case['sequence_length'] = np.array([T, 2, 1, 3][:N], dtype=dtype)
    case = {k: v.astype(dtype) for k, v in case.items()}
    kwargs = dict(mode=mode, state_size=H, num_layers=L, bidirectional=bidirectional)
    if P is not None:
        kwargs['projection_size'] = P
    if seq:
        kwargs['use_sequence_length'] = True
    return case, kwargs


ORDER = ['data', 'parameters', 'state', 'state_cell', 'sequence_length']


def nd(v):
    return mx.nd.array(v, dtype=v.dtype)


def run_op(case, kwargs, state_outputs=True, heads=None, dtype=None):
    arrs = {k: mx.nd.array(v, dtype=dtype or v.dtype) for k, v in case.items()}
    for k, a in arrs.items():
        if k != 'sequence_length':
            a.attach_grad()
    args = [arrs[k] for k in ORDER if k in arrs]
    with mx.autograd.record():
        outs = mx.nd.RNN(*args, state_outputs=state_outputs, **kwargs)
    outs = outs if isinstance(outs, list) else [outs]
    if heads is not None:
        mx.autograd.backward(outs, [mx.nd.array(h, dtype=outs[0].dtype) for h in heads])
    grads = {k: a.grad.asnumpy() for k, a in arrs.items() if k != 'sequence_length'}
    return [o.asnumpy() for o in outs], grads


def reference(case, kwargs, **extra):
    D = 2 if kwargs['bidirectional'] else 1
    return np_rnn(kwargs['mode'], case['data'].astype(np.float64),
                  case['parameters'].astype(np.float64), case['state'].astype(np.float64),
                  case.get('state_cell'), kwargs['state_size'], kwargs['num_layers'], D,
                  kwargs.get('projection_size'), case.get('sequence_length'), **extra)


# ------------------------------------------------------------------------------- forward
FORWARD_CASES = [
    (mode, L, bi, P, so, seq)
    for mode, L, bi, so, seq in itertools.product(GATES, (1, 2), (False, True), (False, True),
                                                  (False, True))
    for P in ((None, 4) if mode == 'lstm' else (None,))]


@pytest.mark.parametrize('mode,L,bi,P,state_outputs,seq', FORWARD_CASES)
def test_forward_matches_numpy(mode, L, bi, P, state_outputs, seq):
    case, kwargs = make_case(mode, L, bi, P, seq)
    outs, _ = run_op(case, kwargs, state_outputs)
    out, hy, cy = reference(case, kwargs)
    expected = [out] + ([hy] + ([cy] if mode == 'lstm' else []) if state_outputs else [])
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize('mode', list(GATES))
def test_float32_forward_matches_numpy(mode):
    case, kwargs = make_case(mode, 2, True, seed=3, dtype='float32')
    outs, _ = run_op(case, kwargs)
    for got, want in zip(outs, reference(case, kwargs)):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_padded_steps_give_zero_output_and_last_valid_state():
    case, kwargs = make_case('gru', 1, True, seq=True)
    (out, hy), _ = run_op(case, kwargs)
    lens = case['sequence_length'].astype(int)
    for n, ln in enumerate(lens):
        assert np.all(out[ln:, n] == 0)
        np.testing.assert_allclose(hy[0, n], out[ln - 1, n, :6], rtol=1e-12)  # forward dir
        np.testing.assert_allclose(hy[1, n], out[0, n, 6:], rtol=1e-12)  # reverse dir


def test_lstm_state_clipping_matches_numpy():
    case, kwargs = make_case('lstm', 2, True, seed=5)
    case['state_cell'] *= 4
    kwargs.update(lstm_state_clip_min=-0.3, lstm_state_clip_max=0.2)
    outs, _ = run_op(case, kwargs)
    for got, want in zip(outs, reference(case, kwargs, clip=(-0.3, 0.2))):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    assert outs[2].max() <= 0.2 and outs[2].min() >= -0.3


@pytest.mark.parametrize('clip_nan', [False, True])
def test_lstm_clip_nan_stops_or_propagates_nan(clip_nan):
    case, kwargs = make_case('lstm', 1, False, seed=6)
    case['state_cell'][0, 1, 2] = np.nan
    kwargs.update(lstm_state_clip_min=-0.5, lstm_state_clip_max=0.5,
                  lstm_state_clip_nan=clip_nan)
    outs, _ = run_op(case, kwargs)
    want = reference(case, kwargs, clip=(-0.5, 0.5), clip_nan=clip_nan)
    for got, w in zip(outs, want):
        np.testing.assert_allclose(got, w, rtol=1e-10, atol=1e-10)
    assert np.isnan(outs[2][0, 1, 2]) != clip_nan


def test_dropout_only_in_training_between_layers():
    case, kwargs = make_case('lstm', 2, False, seed=7)
    base, _ = run_op(case, kwargs)
    with mx.autograd.predict_mode():
        args = [nd(case[k]) for k in ORDER if k in case]
        pred = mx.nd.RNN(*args, p=0.5, state_outputs=True, **kwargs)
    for a, b in zip(pred, base):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-12)
    # p = 1 drops the whole first layer output: layer 2 then sees zeros, and no gradient of
    # the output reaches data.
    heads = [np.ones(base[0].shape)] + [np.zeros(o.shape) for o in base[1:]]
    arrs = {k: mx.nd.array(v, dtype=v.dtype) for k, v in case.items()}
    for a in arrs.values():
        a.attach_grad()
    with mx.autograd.record(train_mode=True):
        outs = mx.nd.RNN(*[arrs[k] for k in ORDER if k in arrs], p=1.0, state_outputs=True,
                         **kwargs)
    mx.autograd.backward(outs, [mx.nd.array(h) for h in heads])
    second = dict(case, data=np.zeros((4, 3, 6)))
    n0 = param_count('lstm', 5, 6, 1, 1) - 2 * 24
    w1 = case['parameters'][n0:n0 + 24 * 12]
    b1 = case['parameters'][-48:]
    second.update(parameters=np.concatenate([w1, b1]), state=case['state'][1:],
                  state_cell=case['state_cell'][1:])
    out2, _, _ = reference(second, dict(kwargs, num_layers=1))
    np.testing.assert_allclose(outs[0].asnumpy(), out2, rtol=1e-10, atol=1e-12)
    assert np.all(arrs['data'].grad.asnumpy() == 0)


def test_dropout_mask_follows_the_seed():
    case, kwargs = make_case('gru', 3, True, seed=8)
    args = [nd(case[k]) for k in ORDER if k in case]
    res = []
    for _ in range(2):
        mx.random.seed(42)
        with mx.autograd.train_mode():
            res.append(mx.nd.RNN(*args, p=0.4, **kwargs).asnumpy())
    np.testing.assert_array_equal(res[0], res[1])
    with mx.autograd.train_mode():
        other = mx.nd.RNN(*args, p=0.4, **kwargs).asnumpy()
    assert not np.array_equal(res[0], other)


def test_state_outputs_false_returns_one_array():
    case, kwargs = make_case('lstm', 1, False)
    out = mx.nd.RNN(*[nd(case[k]) for k in ORDER if k in case], **kwargs)
    assert isinstance(out, mx.nd.NDArray) and out.shape == (4, 3, 6)


# ------------------------------------------------------------------------------ gradients
def numeric_grads(case, kwargs, heads, eps=1e-6):
    def loss(c):
        outs = reference(c, kwargs)
        return sum(float((o * h).sum()) for o, h in zip(outs, heads) if o is not None)
    grads = {}
    for k in case:
        if k == 'sequence_length':
            continue
        g = np.zeros_like(case[k])
        flat = case[k].reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            up = loss(case)
            flat[i] = old - eps
            down = loss(case)
            flat[i] = old
            g.reshape(-1)[i] = (up - down) / (2 * eps)
        grads[k] = g
    return grads


GRAD_CASES = [(m, L, bi, None, seq) for m in GATES for L, bi, seq in
              ((1, True, False), (2, False, True), (2, True, True))] + \
             [('lstm', 2, True, 2, False), ('lstm', 1, False, 3, True)]


@pytest.mark.parametrize('mode,L,bi,P,seq', GRAD_CASES)
def test_gradients_match_numerical_differences(mode, L, bi, P, seq):
    case, kwargs = make_case(mode, L, bi, P, seq, T=3, N=3, I=3, H=3, seed=11)
    outs = reference(case, kwargs)
    rng = np.random.RandomState(1)
    heads = [rng.uniform(-1, 1, o.shape) for o in outs if o is not None]
    _, grads = run_op(case, kwargs, heads=heads)
    want = numeric_grads(case, kwargs, heads)
    for k, g in want.items():
        np.testing.assert_allclose(grads[k], g, rtol=1e-5, atol=1e-7, err_msg=k)


def test_gradient_without_state_outputs_uses_output_only():
    case, kwargs = make_case('gru', 2, True, T=3, N=2, I=3, H=3, seed=12)
    out, hy, _ = reference(case, kwargs)
    head = np.random.RandomState(2).uniform(-1, 1, out.shape)
    _, grads = run_op(case, kwargs, state_outputs=False, heads=[head])
    want = numeric_grads(case, kwargs, [head, np.zeros(hy.shape)])
    for k, g in want.items():
        np.testing.assert_allclose(grads[k], g, rtol=1e-5, atol=1e-7, err_msg=k)


def test_gradients_accumulate_with_grad_req_add():
    case, kwargs = make_case('lstm', 1, True)
    arrs = [nd(case[k]) for k in ORDER if k in case]
    for a in arrs:
        a.attach_grad(grad_req='add')
    for _ in range(2):
        with mx.autograd.record():
            out = mx.nd.RNN(*arrs, **kwargs)
        out.backward()
    _, once = run_op(case, kwargs, state_outputs=False, heads=[np.ones((4, 3, 12))])
    for a, k in zip(arrs, ORDER):
        np.testing.assert_allclose(a.grad.asnumpy(), 2 * once[k], rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------------ MXNet 1.9.1
def load_fixtures():
    return sorted(glob.glob(os.path.join(FIXTURES, 'rnn_*.npz')))


@pytest.mark.parametrize('path', load_fixtures(), ids=os.path.basename)
def test_matches_mxnet191(path):
    z = np.load(path)
    kwargs = ast.literal_eval(str(z['kwargs']))
    case = {k: z[k] for k in ORDER if k in z}
    heads = [z['head%d' % i] for i in range(3) if 'head%d' % i in z]
    outs, grads = run_op(case, kwargs, heads=heads)
    # 1.9.1's CPU kernels ignore sequence_length (its GPU honours it, as this op does), so
    # with variable lengths only sample 0, whose length is the full T, can agree.
    part = (slice(None), slice(0, 1)) if 'sequence_length' in case else (slice(None),)
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o[part], z['out%d' % i][part], rtol=1e-5, atol=1e-5)
    for k in ('data', 'state', 'state_cell', 'parameters'):
        if 'grad_' + k in z and (k != 'parameters' or 'sequence_length' not in case):
            np.testing.assert_allclose(grads[k][part], z['grad_' + k][part], rtol=1e-4,
                                       atol=1e-5, err_msg=k)


# ------------------------------------------------------------------------------- PyTorch
@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_matches_pytorch(mode):
    torch = pytest.importorskip('torch')
    T, N, I, H, L = 5, 3, 4, 6, 2
    case, kwargs = make_case(mode, L, True, T=T, N=N, I=I, H=H, seed=13, dtype='float64')
    cls = torch.nn.LSTM if mode == 'lstm' else torch.nn.GRU
    net = cls(I, H, L, bidirectional=True).double()
    W = unpack(case['parameters'], mode, I, H, L, 2, None)
    with torch.no_grad():
        for l in range(L):
            for d in range(2):
                sfx = '_l%d%s' % (l, '_reverse' if d else '')
                wx, wh, _, bx, bh = W[l * 2 + d]
                for name, v in (('weight_ih', wx), ('weight_hh', wh), ('bias_ih', bx),
                                ('bias_hh', bh)):
                    getattr(net, name + sfx).copy_(torch.from_numpy(v))
    x = torch.from_numpy(case['data'])
    h0 = torch.from_numpy(case['state'])
    out, st = net(x, (h0, torch.from_numpy(case['state_cell'])) if mode == 'lstm' else h0)
    outs, _ = run_op(case, kwargs)
    np.testing.assert_allclose(outs[0], out.detach().numpy(), rtol=1e-10, atol=1e-10)
    hy = st[0] if mode == 'lstm' else st
    np.testing.assert_allclose(outs[1], hy.detach().numpy(), rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------- oneDNN vs plain
@pytest.mark.parametrize('mode', list(GATES))
def test_onednn_and_plain_kernels_agree(mode, monkeypatch):
    case, kwargs = make_case(mode, 2, True, P=3 if mode == 'lstm' else None, seq=True, seed=14,
                             dtype='float32')
    heads = [np.random.RandomState(3).uniform(-1, 1, o.shape)
             for o in reference(case, kwargs) if o is not None]
    results = []
    for enabled in ('1', '0'):
        monkeypatch.setenv('MXNET_ONEDNN_ENABLED', enabled)
        results.append(run_op(case, kwargs, heads=heads))
    (o1, g1), (o0, g0) = results
    for a, b in zip(o1, o0):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for k in g1:
        np.testing.assert_allclose(g1[k], g0[k], rtol=1e-4, atol=1e-5, err_msg=k)


# ---------------------------------------------------------------------------- bad input
def call(case, **kwargs):
    return mx.nd.RNN(*[nd(case[k]) for k in ORDER if k in case], **kwargs).asnumpy()


def test_wrong_parameter_size_names_expected_shape():
    case, kwargs = make_case('lstm', 1, False)
    case['parameters'] = np.zeros(1000)
    with pytest.raises(MXNetError, match=r'RNN.*parameters.*\(1000,\).*\(312,\)'):
        call(case, **kwargs)


def test_wrong_state_shape_is_reported():
    case, kwargs = make_case('gru', 1, False)
    case['state'] = np.zeros((2, 3, 6))
    with pytest.raises(MXNetError, match=r'RNN.*state.*\(2,3,6\).*\(1,3,6\)'):
        call(case, **kwargs)


def test_unknown_mode_is_rejected():
    case, kwargs = make_case('gru', 1, False)
    with pytest.raises(MXNetError, match=r'mode'):
        call(case, **dict(kwargs, mode='lstmx'))


def test_projection_needs_lstm():
    case, kwargs = make_case('gru', 1, False)
    with pytest.raises(MXNetError, match=r"RNN.*projection_size.*mode='lstm'.*gru"):
        call(case, **dict(kwargs, projection_size=3))


def test_clip_needs_both_bounds_and_lstm():
    case, kwargs = make_case('lstm', 1, False)
    with pytest.raises(MXNetError, match=r'RNN.*lstm_state_clip_min and lstm_state_clip_max'):
        call(case, **dict(kwargs, lstm_state_clip_min=-1.0))
    case, kwargs = make_case('gru', 1, False)
    with pytest.raises(MXNetError, match=r"RNN.*lstm_state_clip.*gru"):
        call(case, **dict(kwargs, lstm_state_clip_min=-1.0, lstm_state_clip_max=1.0))


def test_float16_is_rejected_like_mxnet191_cpu():
    case, kwargs = make_case('lstm', 1, False, dtype='float16')
    with pytest.raises(MXNetError, match=r'RNN.*float32 or float64.*float16'):
        call(case, **kwargs)


def test_data_must_be_3d():
    case, kwargs = make_case('rnn_tanh', 1, False)
    case['data'] = case['data'][0]
    with pytest.raises(MXNetError, match=r'RNN.*data must be 3-D'):
        call(case, **kwargs)
