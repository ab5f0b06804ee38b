# Random operators (_random_*, _random_*_like, _sample_*, _sample_multinomial, _shuffle):
# distribution moments, seeding, thread-count independence and parameter errors.
import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import assert_almost_equal

nd = mx.nd
_int = mx.nd._internal
N = 100000


def check_moments(x, mean, var, rtol=0.05):
    x = np.asarray(x, dtype=np.float64).ravel()
    sd = np.sqrt(var)
    assert abs(x.mean() - mean) <= 6 * sd / np.sqrt(x.size) + 1e-6, (x.mean(), mean)
    assert abs(x.var() - var) <= rtol * var + 1e-6, (x.var(), var)


# op, kwargs, mean, variance
SCALAR_CASES = [
    (_int._random_uniform, dict(low=-2.0, high=3.0), 0.5, 25 / 12.0),
    (_int._random_normal, dict(loc=1.5, scale=2.0), 1.5, 4.0),
    (_int._random_gamma, dict(alpha=0.5, beta=2.0), 1.0, 2.0),
    (_int._random_gamma, dict(alpha=9.0, beta=0.5), 4.5, 2.25),
    (_int._random_exponential, dict(lam=4.0), 0.25, 1 / 16.0),
    (_int._random_poisson, dict(lam=3.0), 3.0, 3.0),
    (_int._random_poisson, dict(lam=60.0), 60.0, 60.0),
    (_int._random_negative_binomial, dict(k=3, p=0.4), 3 * 0.6 / 0.4, 3 * 0.6 / 0.16),
    (_int._random_generalized_negative_binomial, dict(mu=2.0, alpha=0.3), 2.0, 2.0 + 0.3 * 4),
]


@pytest.mark.parametrize("op,kw,mean,var", SCALAR_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_scalar_samplers_have_the_distribution_moments(op, kw, mean, var):
    x = op(shape=(N,), **kw)
    assert x.dtype == np.float32 and x.shape == (N,)
    check_moments(x.asnumpy(), mean, var)


def test_uniform_stays_in_half_open_interval_for_every_dtype():
    for dtype in ["float16", "float32", "float64"]:
        x = nd.random.uniform(1, 2, shape=(1000,), dtype=dtype)
        assert x.dtype == np.dtype(dtype)
        v = x.asnumpy()
        assert (v >= 1).all() and (v < 2).all()
    # float16 has 10 fraction bits: a narrow range right below a power of two rounds up often.
    v = nd.random.uniform(2047, 2048, shape=(N,), dtype="float16").asnumpy()
    assert (v >= 2047).all() and (v < 2048).all()
    lo, hi = nd.array([1.0, 2047.0], dtype="float16"), nd.array([2.0, 2048.0], dtype="float16")
    v = _int._sample_uniform(lo, hi, shape=(1000,), dtype="float16").asnumpy()
    assert (v[0] < 2).all() and (v[1] < 2048).all() and (v[1] >= 2047).all()


def test_discrete_samplers_return_whole_numbers():
    for x in [_int._random_poisson(lam=5.0, shape=(1000,)),
              _int._random_negative_binomial(k=2, p=0.5, shape=(1000,)),
              _int._random_generalized_negative_binomial(mu=3.0, alpha=0.5, shape=(1000,))]:
        v = x.asnumpy()
        assert (v == np.round(v)).all() and (v >= 0).all()


def test_randint_range_dtype_and_moments():
    x = nd.random.randint(-3, 7, shape=(N,))
    assert x.dtype == np.int32
    v = x.asnumpy()
    assert v.min() == -3 and v.max() == 6
    check_moments(v, 1.5, (10 ** 2 - 1) / 12.0)
    big = _int._random_randint(low=-2 ** 40, high=2 ** 40, shape=(1000,), dtype="int64")
    assert big.dtype == np.int64 and np.abs(big.asnumpy()).max() > 2 ** 31


def test_default_shape_dtype_and_out_argument():
    x = nd.random.uniform()
    assert x.shape == (1,) and x.dtype == np.float32
    out = nd.zeros((3, 4), dtype="float64")
    nd.random.normal(0, 1, out=out)
    assert out.dtype == np.float64 and (out.asnumpy() != 0).all()
    assert nd.random.normal(0, 1, shape=(2, 3), dtype="float64").dtype == np.float64


def test_like_samplers_take_shape_and_dtype_of_data():
    data = nd.zeros((300, 200), dtype="float64")
    x = _int._random_uniform_like(data, low=2.0, high=4.0)
    assert x.shape == (300, 200) and x.dtype == np.float64
    check_moments(x.asnumpy(), 3.0, 4 / 12.0)
    y = _int._random_normal_like(nd.zeros((N,)), loc=-1.0, scale=0.5)
    check_moments(y.asnumpy(), -1.0, 0.25)


# op, parameter arrays, mean(params), var(params)
ARRAY_CASES = [
    (_int._sample_uniform, [[0.0, 2.0], [1.0, 5.0]], lambda l, h: (l + h) / 2, lambda l, h: (h - l) ** 2 / 12),
    (_int._sample_normal, [[0.0, -3.0], [1.0, 0.5]], lambda m, s: m, lambda m, s: s ** 2),
    (_int._sample_gamma, [[0.7, 4.0], [1.0, 0.5]], lambda a, b: a * b, lambda a, b: a * b * b),
    (_int._sample_exponential, [[1.0, 5.0]], lambda l: 1 / l, lambda l: 1 / l ** 2),
    (_int._sample_poisson, [[2.0, 30.0]], lambda l: l, lambda l: l),
    (_int._sample_negative_binomial, [[2.0, 5.0], [0.5, 0.7]],
     lambda k, p: k * (1 - p) / p, lambda k, p: k * (1 - p) / p ** 2),
    (_int._sample_generalized_negative_binomial, [[1.0, 4.0], [0.0, 0.25]],
     lambda m, a: m, lambda m, a: m + a * m * m),
]


@pytest.mark.parametrize("op,params,mean,var", ARRAY_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_array_samplers_draw_from_each_parameter_set(op, params, mean, var):
    arrays = [nd.array(p) for p in params]
    x = op(*arrays, shape=(N // 2,))
    assert x.shape == (2, N // 2) and x.dtype == np.float32
    v = x.asnumpy()
    for i in range(2):
        args = [p[i] for p in params]
        check_moments(v[i], mean(*args), var(*args))


def test_array_samplers_shape_and_dtype_arguments():
    mu, sigma = nd.zeros((2, 3)), nd.ones((2, 3))
    assert _int._sample_normal(mu, sigma).shape == (2, 3)
    x = _int._sample_normal(mu, sigma, shape=(4, 5), dtype="float64")
    assert x.shape == (2, 3, 4, 5) and x.dtype == np.float64
    assert nd.random.normal(mu, sigma, shape=2).shape == (2, 3, 2)


def test_sample_ops_pass_no_gradient_to_their_parameters():
    mu, sigma = nd.ones((3,)), nd.ones((3,))
    mu.attach_grad()
    with mx.autograd.record():
        y = _int._sample_normal(mu, sigma, shape=(2,))
    y.backward()
    assert (mu.grad.asnumpy() == 0).all()


def test_multinomial_frequencies_and_log_probabilities():
    probs = np.array([[0.0, 0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25, 0.0]])
    s, logp = nd.random.multinomial(nd.array(probs), shape=(N // 2,), get_prob=True)
    assert s.shape == (2, N // 2) and s.dtype == np.int32 and logp.dtype == np.float32
    sv = s.asnumpy()
    for i in range(2):
        freq = np.bincount(sv[i], minlength=5) / sv.shape[1]
        assert_almost_equal(freq, probs[i], rtol=0, atol=0.01)
        assert (probs[i][sv[i]] > 0).all()  # zero-probability outcomes never drawn
    assert_almost_equal(logp.asnumpy(), np.log(probs[np.arange(2)[:, None], sv]), rtol=1e-5,
                        atol=1e-6)
    one = _int._sample_multinomial(nd.array([0.2, 0.8]))
    assert one.shape == (1,)
    assert _int._sample_multinomial(nd.array([0.2, 0.8]), shape=(3, 2), dtype="float32").shape == (3, 2)


def test_multinomial_gradient_flows_through_log_probability():
    probs = nd.array([[0.2, 0.3, 0.5]])
    probs.attach_grad()
    with mx.autograd.record():
        s, logp = _int._sample_multinomial(probs, shape=(6,), get_prob=True)
    head = np.arange(1, 7, dtype=np.float32).reshape(1, 6)
    logp.backward(nd.array(head))
    expect = np.zeros((1, 3))
    for j, c in enumerate(s.asnumpy()[0].astype(int)):
        expect[0, c] += head[0, j] / probs.asnumpy()[0, c]
    assert_almost_equal(probs.grad.asnumpy(), expect, rtol=1e-5, atol=1e-6)


def test_shuffle_permutes_rows_along_first_axis():
    x = np.arange(60, dtype=np.float32).reshape(20, 3)
    y = nd.random.shuffle(nd.array(x)).asnumpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x))  # rows intact, a permutation
    assert not (y == x).all()
    v = nd.random.shuffle(nd.arange(1000)).asnumpy() if hasattr(nd, "arange") else None
    if v is not None:
        assert sorted(v) == list(range(1000))
    ints = nd.array(np.arange(10), dtype="int64")
    assert sorted(_int._shuffle(ints).asnumpy()) == list(range(10))


def test_seed_reproduces_every_sampler():
    def draw():
        return [nd.random.uniform(shape=(50,)).asnumpy(),
                nd.random.normal(shape=(50,)).asnumpy(),
                nd.random.gamma(2.0, 1.0, shape=(50,)).asnumpy(),
                nd.random.poisson(20.0, shape=(50,)).asnumpy(),
                nd.random.randint(0, 100, shape=(50,)).asnumpy(),
                nd.random.multinomial(nd.array([0.3, 0.7]), shape=(50,)).asnumpy(),
                nd.random.shuffle(nd.array(np.arange(50))).asnumpy()]

    mx.random.seed(42)
    a = draw()
    mx.random.seed(42)
    b = draw()
    mx.random.seed(43)
    c = draw()
    for x, y, z in zip(a, b, c):
        assert (x == y).all()
        assert not (x == z).all()
    # Successive calls draw fresh numbers.
    assert not (a[0] == draw()[0]).all()


_THREAD_SCRIPT = r"""
import hashlib, numpy as np, mxnet as mx
nd, _int = mx.nd, mx.nd._internal
mx.random.seed(7)
n = 100000
outs = [nd.random.uniform(shape=(n,)), nd.random.normal(shape=(n,), dtype='float64'),
        nd.random.gamma(0.5, 2.0, shape=(n,)), nd.random.poisson(40.0, shape=(n,)),
        nd.random.exponential(2.0, shape=(n,)), nd.random.randint(0, 1000, shape=(n,)),
        _int._random_negative_binomial(k=3, p=0.3, shape=(n,)),
        _int._sample_normal(nd.zeros((4,)), nd.ones((4,)), shape=(n // 4,)),
        nd.random.multinomial(nd.array([[0.1, 0.2, 0.7]] * 4), shape=(n // 4,)),
        nd.random.shuffle(nd.array(np.arange(n)))]
print(hashlib.sha1(b"".join(o.asnumpy().tobytes() for o in outs)).hexdigest())
"""


def test_results_do_not_depend_on_the_number_of_threads():
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    digests = []
    for threads in ["1", "2", "4"]:
        env = dict(os.environ, OMP_NUM_THREADS=threads,
                   PYTHONPATH=pkg + os.pathsep + os.environ.get("PYTHONPATH", ""))
        out = subprocess.run([sys.executable, "-c", _THREAD_SCRIPT], env=env, check=True,
                             capture_output=True, text=True, timeout=120)
        digests.append(out.stdout.strip())
    assert digests[0] == digests[1] == digests[2] and len(digests[0]) == 40


BAD_SCALAR = [
    (nd.random.normal, (0, -1)),
    (nd.random.uniform, (2, 1)),
    (nd.random.gamma, (0.0, 1.0)),
    (nd.random.gamma, (1.0, -1.0)),
    (nd.random.exponential, (-1.0,)),  # scale -1: rate -1
    (nd.random.poisson, (-1.0,)),
    (nd.random.negative_binomial, (2, 1.5)),
    (nd.random.generalized_negative_binomial, (-1.0, 0.5)),
    (nd.random.randint, (5, 5)),
]


@pytest.mark.parametrize("fn,args", BAD_SCALAR, ids=lambda v: getattr(v, "__name__", ""))
def test_invalid_parameters_raise_at_the_wait_not_at_the_call(fn, args):
    out = fn(*args, shape=(2,))  # returns at once: the check runs inside the kernel
    with pytest.raises(mx.base.MXNetError):
        out.asnumpy()


def test_zero_rate_exponential_raises():
    out = _int._random_exponential(lam=0.0, shape=(2,))
    with pytest.raises(mx.base.MXNetError):
        out.asnumpy()


def test_invalid_array_parameters_raise():
    with pytest.raises(mx.base.MXNetError):
        _int._sample_normal(nd.zeros((2,)), nd.array([1.0, -1.0])).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        _int._sample_uniform(nd.array([1.0]), nd.array([0.0])).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        _int._sample_multinomial(nd.array([0.5, -0.1])).asnumpy()
    with pytest.raises(mx.base.MXNetError):
        _int._sample_normal(nd.zeros((2,)), nd.ones((3,))).asnumpy()


def test_invalid_arguments_raise():
    with pytest.raises(mx.base.MXNetError):
        _int._random_uniform(shape=(2,), dtype="int32")
    with pytest.raises(mx.base.MXNetError):
        _int._random_uniform(shape="(2,x)")
    with pytest.raises(mx.base.MXNetError):
        _int._random_uniform_like(nd.zeros((2,), dtype="int32"))


def test_like_samplers_are_generated_into_nd_random():
    data = mx.nd.zeros((50, 40), dtype="float64")
    for name in ("uniform_like", "normal_like", "gamma_like", "exponential_like",
                 "poisson_like", "negative_binomial_like", "generalized_negative_binomial_like"):
        out = getattr(mx.nd.random, name)(data)
        assert out.shape == (50, 40) and out.dtype == np.float64, name
    mx.random.seed(5)
    a = mx.nd.random.uniform_like(data, low=2, high=3).asnumpy()
    mx.random.seed(5)
    b = mx.nd.random.uniform_like(data, low=2, high=3).asnumpy()
    assert (a == b).all() and a.min() >= 2 and a.max() < 3
    # the hand-written samplers keep their names
    assert mx.nd.random.uniform.__module__ == "mxnet.ndarray.random"


def test_sample_unique_zipfian_rows_are_distinct_and_count_their_draws():
    mx.random.seed(11)
    classes, trials = mx.nd._internal._sample_unique_zipfian(793472, shape=(4, 8192))
    assert classes.dtype == np.int64 and trials.dtype == np.int64
    assert classes.shape == (4, 8192) and trials.shape == (4,)
    c = classes.asnumpy()
    for row, n in zip(c, trials.asnumpy()):
        assert np.unique(row).size == 8192 and row.min() >= 0 and row.max() < 793472
        assert 14500 < n < 17000  # the expected number of draws for these sizes
    mx.random.seed(11)
    again, _ = mx.nd._internal._sample_unique_zipfian(793472, shape=(4, 8192))
    assert (again.asnumpy() == c).all()
    # small classes are far more likely than large ones
    small, _ = mx.nd._internal._sample_unique_zipfian(1000, shape=(200, 5))
    assert np.median(small.asnumpy()) < 100


def test_sample_unique_zipfian_rejects_more_samples_than_classes():
    with pytest.raises(mx.MXNetError, match="range_max=5"):
        mx.nd._internal._sample_unique_zipfian(5, shape=(1, 6))[0].wait_to_read()
    with pytest.raises(mx.MXNetError, match="2-D"):
        mx.nd._internal._sample_unique_zipfian(5, shape=(6,))


def test_rand_zipfian_expected_counts_follow_the_log_uniform_law():
    mx.random.seed(3)
    true = mx.nd.array([0, 3, 19], dtype="int32")
    sampled, exp_true, exp_sampled = mx.nd.contrib.rand_zipfian(true, 1000, 20)
    assert sampled.dtype == np.int64 and sampled.shape == (1000,)
    s = sampled.asnumpy()
    assert s.min() >= 0 and s.max() < 20
    law = lambda k: np.log((k + 2.0) / (k + 1.0)) / np.log(21) * 1000
    assert_almost_equal(exp_true.asnumpy(), law(np.array([0, 3, 19])))
    assert_almost_equal(exp_sampled.asnumpy(), law(s.astype(np.float64)))
    freq0 = (s == 0).mean()
    assert abs(freq0 - law(0) / 1000) < 0.05


def test_seed_takes_any_int_and_keeps_its_low_32_bits():
    def draw(seed):
        mx.random.seed(seed)
        return mx.nd.random.uniform(shape=(8,)).asnumpy()
    assert (draw(-1) == draw(2**32 - 1)).all()
    assert (draw(np.int64(-123456789)) == draw(-123456789)).all()
    assert (draw(2**32 + 5) == draw(5)).all()
    assert not (draw(1) == draw(2)).all()
    with pytest.raises(ValueError, match="int"):
        mx.random.seed(1.5)
