"""mx.test_utils: tolerances, comparisons, random data, statistical checks, environment,
download retries and the names its star import gives."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import mxnet as mx
from mxnet import test_utils as tu


def test_star_import_gives_mxnet_1_9_public_names():
    ns = {}
    exec("from mxnet.test_utils import *", ns)  # pylint: disable=exec-used
    for name in ("mx", "np", "os", "Context", "current_context", "array", "Symbol",
                 "use_np", "getenv", "setenv", "Features", "assert_almost_equal",
                 "verify_generator", "gen_buckets_probs_with_ppf", "retry", "rand_ndarray",
                 "default_context", "set_default_context", "environment", "download",
                 "check_consistency", "np_reduce", "collapse_sum_like", "rnd", "npt"):
        assert name in ns, name
    assert ns["np"] is np and ns["mx"] is mx and ns["rnd"] is np.random
    assert not [n for n in ns if n.startswith("_") and n != "__builtins__"]


def test_autograd_star_import_gives_mxnet_1_9_names():
    ns = {}
    exec("from mxnet.autograd import *", ns)  # pylint: disable=exec-used
    for name in ("record", "pause", "train_mode", "predict_mode", "backward", "grad",
                 "mark_variables", "set_recording", "set_training", "is_recording",
                 "is_training", "Function", "get_symbol", "NDArray", "Symbol", "check_call",
                 "NDArrayHandle", "c_array"):
        assert name in ns, name
    assert ns["NDArray"] is mx.nd.NDArray


def test_tolerances_follow_the_dtype_and_explicit_values_win():
    f16, f64 = np.ones(2, np.float16), np.ones(2, np.float64)
    assert tu.get_tols(f16, f64, None, None) == (1e-2, 1e-1)  # the larger of the two
    assert tu.get_tols(f64, f64, 0.5, 0.25) == (0.5, 0.25)
    assert tu.get_tolerance(np.ones(1, np.int32), None, tu.default_rtols()) == 0
    assert tu.get_tolerance(f16, {np.dtype(np.float16): 3.0}, tu.default_rtols()) == 3.0
    assert tu.get_rtol() == 1e-5 and tu.get_atol(None, np.float32) == 1e-3
    assert tu.get_etol() == 0 and tu.effective_dtype(mx.nd.ones(1)) == np.float32


def test_assert_almost_equal_reports_the_worst_element():
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    tu.assert_almost_equal(a, mx.nd.array(a + 1e-5))
    with pytest.raises(AssertionError, match=r"Location of maximum error: \(2,\)"):
        tu.assert_almost_equal(a, np.array([1.0, 2.1, 4.0], dtype=np.float32), names=("x", "y"))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([True]), np.array([False]))
    with pytest.raises(AssertionError, match="shape"):
        tu.assert_almost_equal(np.ones((2, 1)), np.ones((2,)), use_broadcast=False)
    tu.assert_almost_equal(np.ones((2, 3)), np.ones((3,)))  # broadcasting allowed by default


def test_ignore_nan_and_error_rate_variants():
    a = np.array([np.nan, 1.0, 2.0])
    tu.assert_almost_equal_ignore_nan(a, np.array([5.0, 1.0, 2.0]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(a, np.array([5.0, 1.0, 2.0]))
    b = np.array([1.0, 2.0, 3.0, 4.0])
    tu.assert_almost_equal_with_err(b, b + np.array([0, 0, 0, 1.0]), etol=0.3)
    with pytest.raises(AssertionError, match="error rate"):
        tu.assert_almost_equal_with_err(b, b + np.array([0, 0, 1.0, 1.0]), etol=0.3)
    tu.assert_allclose(b, b)


def test_almost_equal_and_same():
    assert tu.almost_equal(np.ones(3), np.ones(3) + 1e-7)
    assert not tu.almost_equal(np.ones(3), np.ones(3) + 1e-3)
    assert tu.same(mx.nd.ones(2), np.ones(2)) and not tu.same(np.ones(2), np.ones(3))
    x = mx.nd.ones((4,))
    assert tu.same_array(x, x[:]) and not tu.same_array(x, x.copy())


def test_assert_exception_fails_when_nothing_is_raised():
    tu.assert_exception(int, ValueError, "x")
    with pytest.raises(AssertionError):
        tu.assert_exception(int, ValueError, "3")


def test_retry_reruns_until_success_and_reraises_the_last_failure():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 2

    flaky()
    assert len(calls) == 2

    @tu.retry(2)
    def always():
        calls.append(1)
        raise AssertionError("always")

    with pytest.raises(AssertionError, match="always"):
        always()


def test_random_data_helpers_shapes_and_ranges():
    assert tu.random_arrays((2, 3)).shape == (2, 3)
    a, b = tu.random_arrays((1,), ())
    assert a.dtype == np.float32 and b.shape == ()
    (u,) = tu.random_uniform_arrays((1000,), low=2, high=3)
    assert u.min() >= 2 and u.max() < 3
    with pytest.raises(TypeError):
        tu.random_uniform_arrays((2,), bad=1)
    assert sorted(tu.random_sample(list(range(5)), 5)) == list(range(5))
    for _ in range(20):
        s = tu.rand_shape_nd(4, dim=3)
        assert len(s) == 4 and all(1 <= d <= 3 for d in s)
        assert all(0 <= d <= 2 for d in tu.rand_shape_3d(2, 2, 2, allow_zero_size=True))
        assert all(1 <= d <= 2 for d in tu.rand_shape_2d(2, 2))
        x, y = tu.rand_coord_2d(0, 4, 10, 12)
        assert 0 <= x < 4 and 10 <= y < 12
    arr = tu.rand_ndarray((3, 4), dtype=np.float64)
    assert arr.shape == (3, 4) and arr.dtype == np.float64 and arr.context == mx.cpu()
    csr = tu.rand_ndarray((3, 4), stype="csr", density=0.5)
    assert csr.stype == "csr" and csr.shape == (3, 4)


def test_np_reduce_and_collapse_sum_like():
    x = np.arange(24).reshape(2, 3, 4)
    assert tu.np_reduce(x, (0, 2), True, np.sum).shape == (1, 3, 1)
    assert (tu.np_reduce(x, 1, False, np.max) == x.max(axis=1)).all()
    assert (tu.np_reduce(x, None, False, np.sum) == x.sum()).all()
    g = tu.collapse_sum_like(np.ones((2, 3, 4)), (3, 1))
    assert g.shape == (3, 1) and (g == 8).all()
    assert tu.collapse_sum_like(np.ones((0, 3)), (3,)).shape == (3,)


def test_statistical_checks_accept_right_and_reject_wrong_generators():
    ss = pytest.importorskip("scipy.stats")
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: ss.norm.ppf(q, 0, 1), 5)
    assert len(buckets) == 5 and probs == [0.2] * 5 and buckets[0][0] == -np.inf
    good = lambda n: np.random.normal(0, 1, size=n)
    assert len(tu.verify_generator(good, buckets, probs, nsamples=20000, nrepeat=3)) == 3
    with pytest.raises(AssertionError, match="Generator test fails"):
        tu.verify_generator(lambda n: np.random.normal(0.5, 1, size=n), buckets, probs,
                            nsamples=20000, nrepeat=3)
    p, obs, exp = tu.chi_square_check(lambda n: np.random.randint(0, 3, size=n), [0, 1, 2],
                                      [1 / 3.0] * 3, nsamples=30000)
    assert obs.sum() == 30000 and len(exp) == 3 and 0 <= p <= 1
    assert tu.mean_check(good, 0, 1, nsamples=100000)
    assert not tu.mean_check(lambda n: np.random.normal(1, 1, size=n), 0, 1, nsamples=100000)
    assert tu.var_check(good, 1, nsamples=100000)
    assert not tu.var_check(lambda n: np.random.normal(0, 2, size=n), 1, nsamples=100000)


def test_default_context_is_per_thread():
    seen = []

    def worker():
        tu.set_default_context(mx.cpu(7))
        seen.append(tu.default_context())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [mx.cpu(7)] and tu.default_context() == mx.cpu(0)


def test_check_consistency_compares_dtypes_and_gradients():
    ctx_list = [{"ctx": mx.cpu(0), "x": (3, 4), "type_dict": {"x": np.float64}},
                {"ctx": mx.cpu(0), "x": (3, 4), "type_dict": {"x": np.float32}},
                {"ctx": mx.cpu(0), "x": (3, 4), "type_dict": {"x": np.float16}}]
    gt = tu.check_consistency(lambda x: mx.nd.tanh(x) * 2, ctx_list)
    assert gt["out0"].dtype == np.float64 and gt["grad_x"].shape == (3, 4)

    def bad(x):  # differs by dtype: float16 run is far off
        return x * (3.0 if x.dtype == np.float16 else 1.0)
    with pytest.raises(AssertionError):
        tu.check_consistency(bad, ctx_list)
    tu.check_consistency(bad, ctx_list, raise_on_err=False)


def test_symbol_checkers_run_through_bind():
    x = mx.sym.var("x")
    with mx.name.NameManager():  # fresh automatic names: _mulscalar0
        s = mx.sym.FullyConnected(x, num_hidden=3, name="fc") * 2
    a, w, b = np.random.rand(2, 4), np.random.rand(3, 4), np.random.rand(3)
    tu.check_symbolic_forward(s, [a, w, b], [2 * (a @ w.T + b)], rtol=1e-4, atol=1e-5)
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(s, [a, w, b], [a @ w.T + b], rtol=1e-4, atol=1e-5)
    og = np.ones((2, 3))
    tu.check_symbolic_backward(s, [a, w, b], [og], [2 * og @ w, 2 * og.T @ a, 2 * og.sum(0)],
                               rtol=1e-4, atol=1e-5)
    tu.check_numeric_gradient(s, [a, w, b], numeric_eps=1e-3, rtol=1e-2, atol=1e-3)
    ctx = {"ctx": mx.cpu(), "x": (2, 4)}
    gt = tu.check_consistency(s, [dict(ctx, type_dict={"x": np.float32}),
                                  dict(ctx, type_dict={"x": np.float64})])
    assert sorted(gt) == ["_mulscalar0_output", "fc_bias", "fc_weight", "x"]
    assert tu.simple_forward(mx.sym.exp(x), x=np.zeros((2,))).tolist() == [1.0, 1.0]


def test_download_retries_then_raises(tmp_path, capsys):
    with pytest.raises(Exception):
        tu.download("http://doesnotexist.invalid/file.txt", dirname=str(tmp_path), retries=2)
    assert capsys.readouterr().out.count("download failed, retrying") == 2


def test_download_keeps_an_existing_file(tmp_path):
    f = tmp_path / "kept.txt"
    f.write_text("here")
    assert tu.download("http://doesnotexist.invalid/kept.txt", fname=str(f)) == str(f)
    assert f.read_text() == "here"


def test_discard_stderr_silences_file_descriptor_2():
    code = ("import os, mxnet.test_utils as tu\n"
            "with tu.discard_stderr():\n    os.write(2, b'hidden')\n"
            "os.write(2, b'shown')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
                           os.path.abspath(mx.__file__)))), timeout=120)
    assert r.returncode == 0, r.stderr
    assert b"hidden" not in r.stderr and b"shown" in r.stderr


def test_build_checks():
    assert tu.is_op_runnable()
    assert tu.has_tvm_ops() is False
    with tu.environment("CD_JOB", "1"):
        assert tu.is_cd_run()
    assert not tu.is_cd_run() or os.environ.get("CD_JOB") == "1"
    assert list(tu.list_gpus()) == list(range(mx.context.num_gpus()))
    assert tu.set_env_var("MXNET_TEST_UTILS_SET", "a", "none") == "none"
    assert tu.set_env_var("MXNET_TEST_UTILS_SET", "b") == "a"
    del os.environ["MXNET_TEST_UTILS_SET"]


def test_bz2_and_zip_helpers_use_files_already_present(tmp_path):
    import bz2 as bz2mod
    (tmp_path / "data.bz2").write_bytes(bz2mod.compress(b"line1\nline2\n"))
    tu.get_bz2_data(str(tmp_path), "data.txt", "http://doesnotexist.invalid/data.bz2", "data.bz2")
    assert (tmp_path / "data.txt").read_bytes() == b"line1\nline2\n"
    assert not (tmp_path / "data.bz2").exists()
    tu.get_bz2_data(str(tmp_path), "data.txt", "http://doesnotexist.invalid/x.bz2", "x.bz2")
    (tmp_path / "d.zip").write_bytes(b"")
    tu.get_zip_data(str(tmp_path), "http://doesnotexist.invalid/d.zip", "d.zip")  # present


def test_get_mnist_reads_idx_files_already_downloaded(tmp_path, monkeypatch):
    import gzip as gz
    import struct as st
    monkeypatch.chdir(tmp_path)
    images = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    for prefix in ("train", "t10k"):
        with gz.open(tmp_path / ("%s-labels-idx1-ubyte.gz" % prefix), "wb") as f:
            f.write(st.pack(">II", 2049, 2) + bytes([3, 7]))
        with gz.open(tmp_path / ("%s-images-idx3-ubyte.gz" % prefix), "wb") as f:
            f.write(st.pack(">IIII", 2051, 2, 28, 28) + images.tobytes())
    data = tu.get_mnist()
    assert data["train_label"].tolist() == [3, 7]
    assert data["test_data"].shape == (2, 1, 28, 28)
    assert data["train_data"][1, 0, 0, 0] == np.float32(images[1, 0, 0]) / 255


def test_same_symbol_structure_compares_operators():
    x = mx.nd.ones((2,))
    x.attach_grad()
    with mx.autograd.record():
        a = mx.nd.exp(x) * 2
        b = mx.nd.exp(x) * 3
        c = mx.nd.log(x) * 2
    sa, sb, sc = (mx.autograd.get_symbol(v) for v in (a, b, c))
    assert tu.same_symbol_structure(sa, sb)
    assert not tu.same_symbol_structure(sa, sc)


def test_dataset_helpers_keep_files_already_present(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("data/cifar")
    for name in ("mnist.pkl.gz", "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", "cifar/train.rec",
                 "cifar/test.rec", "cifar/train.lst", "cifar/test.lst"):
        (tmp_path / "data" / name).write_text("x")
    tu.get_mnist_pkl()  # no network here: each would fail if it tried to download
    tu.get_mnist_ubyte()
    tu.get_cifar10()
    os.remove("data/mnist.pkl.gz")
    with pytest.raises(Exception):
        tu.get_mnist_pkl()
