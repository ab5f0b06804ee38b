"""Statistical checks of random generators for mx.test_utils: chi-square bucket tests, mean
and variance bounds (MXNet 1.9 names and signatures)."""
import numpy as np

__all__ = ["gen_buckets_probs_with_ppf", "mean_check", "var_check", "chi_square_check",
           "verify_generator"]


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """nbuckets equiprobable buckets [(ppf(i/n), ppf((i+1)/n))] and their probabilities, for
    chi_square_check of a continuous distribution with quantile function ppf."""
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets)))
               for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """True when the mean of generator(nsamples) lies within mu +- 3 sigma / sqrt(nsamples)."""
    samples = np.array(generator(nsamples))
    sample_mean = samples.mean()
    return bool(mu - 3 * sigma / np.sqrt(nsamples) < sample_mean
                < mu + 3 * sigma / np.sqrt(nsamples))


def var_check(generator, sigma, nsamples=1000000):
    """True when the sample variance of generator(nsamples) lies within
    sigma^2 +- 3 sqrt(2 sigma^4 / (nsamples - 1))."""
    samples = np.array(generator(nsamples))
    sample_var = samples.var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - bound < sample_var < sigma ** 2 + bound)


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of generator(nsamples) against bucket probabilities.

    buckets: ascending, disjoint (low, high) ranges for a continuous distribution, or the
    possible values of a discrete one. Returns (p value, observed counts, expected counts).
    Needs scipy (imported here, not with mxnet: it costs most of `import mxnet`'s time)."""
    try:
        import scipy.stats as ss
    except ImportError:
        raise ImportError("chi_square_check needs scipy, which is not installed") from None
    assert isinstance(buckets, list)
    samples = generator(nsamples)
    assert len(probs) == len(buckets)
    continuous_dist = isinstance(buckets[0], (list, tuple))
    if continuous_dist:
        edges = np.zeros((len(buckets) * 2,), dtype=np.float32)
        for i, (low, high) in enumerate(buckets):
            assert low <= high
            if i < len(buckets) - 1:
                assert high <= buckets[i + 1][0]
            edges[2 * i], edges[2 * i + 1] = low, high
        sample_bucket_ids = np.searchsorted(edges, samples, side="right") // 2
    else:
        sample_bucket_ids = np.array(samples)
    expected_freq = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    obs_freq = np.zeros(shape=len(buckets), dtype=np.int64)
    for i, bucket in enumerate(buckets):
        obs_freq[i] = (sample_bucket_ids == (i if continuous_dist else bucket)).sum()
    _, p = ss.chisquare(f_obs=obs_freq, f_exp=expected_freq)
    return p, obs_freq, expected_freq


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2,
                     alpha=0.05):
    """Repeat chi_square_check nrepeat times; raise AssertionError when fewer than
    nrepeat * success_rate runs have p > alpha. Returns the p values."""
    cs_ret_l, obs_freq_l, expected_freq_l = [], [], []
    for _ in range(nrepeat):
        cs_ret, obs_freq, expected_freq = chi_square_check(generator=generator, buckets=buckets,
                                                           probs=probs, nsamples=nsamples)
        cs_ret_l.append(cs_ret)
        obs_freq_l.append(obs_freq)
        expected_freq_l.append(expected_freq)
    success_num = (np.array(cs_ret_l) > alpha).sum()
    if success_num < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=%s, "
                             "expected_freq=%s.\nbuckets=%s, probs=%s"
                             % (cs_ret_l, obs_freq_l, expected_freq_l, buckets, probs))
    return cs_ret_l
