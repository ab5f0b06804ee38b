"""mx.nd.save / mx.nd.load: bit-compatibility with MXNet 1.9.1 files and corrupt-file errors."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
MXNET191_PYTHON = os.environ.get("MXNET191_PYTHON", "/root/mxnet191-venv/bin/python")


def _expected():
    return np.load(os.path.join(FIXTURES, "mxnet191_expected.npz"))


def test_loads_list_written_by_mxnet_191():
    exp = _expected()
    arrays = mx.nd.load(os.path.join(FIXTURES, "mxnet191_list.nd"))
    assert isinstance(arrays, list)
    keys = sorted((k for k in exp.files if k.startswith("list_")), key=lambda k: int(k[5:]))
    assert len(arrays) == len(keys)
    for a, k in zip(arrays, keys):
        want = exp[k]
        assert a.shape == want.shape and a.dtype == want.dtype, k
        assert a.asnumpy().tobytes() == want.tobytes(), k


def test_loads_dict_written_by_mxnet_191():
    exp = _expected()
    params = mx.nd.load(os.path.join(FIXTURES, "mxnet191_dict.params"))
    assert isinstance(params, dict)
    names = [k[5:] for k in exp.files if k.startswith("dict_")]
    assert sorted(params) == sorted(names)
    for name in names:
        assert params[name].asnumpy().tobytes() == exp["dict_" + name].tobytes(), name
    assert list(params)[0].startswith("arg:")


def test_loads_numpy_shape_records_with_scalars():
    exp = _expected()
    path = os.path.join(FIXTURES, "mxnet191_npshape.nd")
    with pytest.raises(mx.MXNetError, match="saved with numpy-shape semantics"):
        mx.nd.load(path)
    with mx.np_shape():
        arrays = mx.nd.load(path)
    keys = sorted((k for k in exp.files if k.startswith("npshape_")), key=lambda k: int(k[8:]))
    for a, k in zip(arrays, keys):
        assert a.shape == exp[k].shape and a.asnumpy().tobytes() == exp[k].tobytes(), k


def test_save_reproduces_mxnet_191_bytes(tmp_path):
    src = os.path.join(FIXTURES, "mxnet191_dict.params")
    params = mx.nd.load(src)
    out = tmp_path / "resaved.params"
    mx.nd.save(str(out), params)
    with open(src, "rb") as f:
        assert out.read_bytes() == f.read()
    src = os.path.join(FIXTURES, "mxnet191_list.nd")
    arrays = mx.nd.load(src)
    out = tmp_path / "resaved.nd"
    mx.nd.save(str(out), arrays)
    with open(src, "rb") as f:
        assert out.read_bytes() == f.read()


def test_round_trip_every_dtype(tmp_path):
    data = {"f32": mx.nd.array(np.arange(6).reshape(2, 3)),
            "f16": mx.nd.array([1.5, -2], dtype=np.float16),
            "i64": mx.nd.array([2 ** 40], dtype=np.int64),
            "u8": mx.nd.array([255, 0], dtype=np.uint8),
            "b": mx.nd.array([True, False], dtype=np.bool_),
            "empty": mx.nd.array(np.zeros((0, 3), dtype=np.float32))}
    path = str(tmp_path / "x.params")
    mx.nd.save(path, data)
    back = mx.nd.load(path)
    for k, v in data.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape
        assert np.array_equal(back[k].asnumpy(), v.asnumpy())
    mx.nd.save(path, mx.nd.ones((2,)))
    assert len(mx.nd.load(path)) == 1


def test_views_save_their_compact_contents(tmp_path):
    a = mx.nd.array(np.arange(12).reshape(4, 3))
    path = str(tmp_path / "v.nd")
    mx.nd.save(path, [a[1:3]])
    assert np.array_equal(mx.nd.load(path)[0].asnumpy(), np.arange(3, 9).reshape(2, 3))


@pytest.mark.skipif(not os.path.exists(MXNET191_PYTHON), reason="MXNet 1.9.1 venv not installed "
                    "(tools/setup_baselines.sh)")
def test_file_written_here_loads_in_mxnet_191(tmp_path):
    values = {"arg:w": np.arange(12, dtype=np.float32).reshape(3, 4),
              "arg:b": np.array([1.5, -2.25], dtype=np.float64),
              "aux:m": np.array([[1, 2]], dtype=np.int64)}
    path = str(tmp_path / "ours.params")
    mx.nd.save(path, {k: mx.nd.array(v, dtype=v.dtype) for k, v in values.items()})
    npz = str(tmp_path / "want.npz")
    np.savez(npz, **{"dict_" + k: v for k, v in values.items()})
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MXNET_LIBRARY_PATH")}
    r = subprocess.run([MXNET191_PYTHON, os.path.join(FIXTURES, "check_load_in_mxnet191.py"),
                        path, npz, "--strict-bytes"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_missing_truncated_and_corrupt_files_raise(tmp_path):
    with pytest.raises(mx.MXNetError, match="cannot open"):
        mx.nd.load(str(tmp_path / "nope.params"))
    with open(os.path.join(FIXTURES, "mxnet191_list.nd"), "rb") as f:
        good = f.read()
    for cut in (0, 7, 30, 60, len(good) // 2, len(good) - 3):
        p = tmp_path / ("cut%d" % cut)
        p.write_bytes(good[:cut])
        with pytest.raises(mx.MXNetError, match="Invalid NDArray file format"):
            mx.nd.load(str(p))
    bad_magic = tmp_path / "magic"
    bad_magic.write_bytes(b"\x00" * 64)
    with pytest.raises(mx.MXNetError, match="magic"):
        mx.nd.load(str(bad_magic))


def _unchecked_offsets(buf):
    """Bytes of a file of dense V2 records (the fixtures) whose corruption the format cannot
    detect: array elements, and the dims of a zero-size array (any dims give 0 bytes)."""
    itemsize = {0: 4, 1: 8, 2: 2, 3: 1, 4: 4, 5: 1, 6: 8, 7: 1}
    pos, unchecked = 24, set()
    for _ in range(int.from_bytes(buf[16:24], "little")):
        ndim = int.from_bytes(buf[pos + 8:pos + 12], "little")
        dims = [int.from_bytes(buf[pos + 12 + 8 * i:pos + 20 + 8 * i], "little")
                for i in range(ndim)]
        if 0 in dims:
            unchecked.update(range(pos + 12, pos + 12 + 8 * ndim))
        pos += 12 + 8 * ndim + 8
        size = int(np.prod(dims)) * itemsize[int.from_bytes(buf[pos:pos + 4], "little")]
        unchecked.update(range(pos + 4, pos + 4 + size))
        pos += 4 + size
    return unchecked


# Runs in a subprocess: a crash there fails the test instead of killing the test run.
_FLIP_SCRIPT = r"""
import sys
import numpy as np
import mxnet as mx
sys.path.insert(0, sys.argv[2])
from test_ndarray_io import _unchecked_offsets

good = open(sys.argv[1], "rb").read()
want = mx.nd.load(sys.argv[1])
items = lambda r: sorted(r.items()) if isinstance(r, dict) else list(enumerate(r))
unchecked = _unchecked_offsets(good)
raised = same = 0
for pos in range(len(good)):
    if pos in unchecked:
        continue
    # Inverting a byte also turns any ASCII name byte into invalid UTF-8.
    for mask in (0xFF,):
        b = bytearray(good)
        b[pos] ^= mask
        try:
            got = mx.nd.load_frombuffer(bytes(b))
        except mx.MXNetError:
            raised += 1
            continue
        assert type(got) is type(want), (pos, mask)
        for (k1, a1), (k2, a2) in zip(items(got), items(want)):
            assert k1 == k2 and a1.dtype == a2.dtype and a1.shape == a2.shape, (pos, mask)
            assert a1.asnumpy().tobytes() == a2.asnumpy().tobytes(), (pos, mask)
        assert len(items(got)) == len(items(want)), (pos, mask)
        same += 1
print(raised, same)
"""


@pytest.mark.parametrize("fixture", ["mxnet191_list.nd", "mxnet191_dict.params"])
def test_corrupt_headers_and_names_raise_or_load_the_original(fixture):
    # Invert each byte the format can check (magic, storage type, shapes, dtype, context,
    # counts, names): the load must raise MXNetError or return exactly the original arrays
    # (inverting the reserved word or the ignored dev_id changes nothing).
    r = subprocess.run([sys.executable, "-c", _FLIP_SCRIPT, os.path.join(FIXTURES, fixture),
                        os.path.dirname(__file__)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stdout + r.stderr
    raised, same = map(int, r.stdout.split())
    assert raised > 0 and same > 0


def test_name_that_is_not_utf8_raises_naming_the_file(tmp_path):
    path = tmp_path / "names.params"
    mx.nd.save(str(path), {"w\u00e9": mx.nd.ones((1,))})
    raw = bytearray(path.read_bytes())
    raw[-1] = 0xFF  # the second byte of "\u00e9" (c3 a9) becomes an invalid continuation
    path.write_bytes(bytes(raw))
    with pytest.raises(mx.MXNetError, match=r"not valid UTF-8.*names\.params"):
        mx.nd.load(str(path))
    with pytest.raises(mx.MXNetError, match="not valid UTF-8"):
        mx.nd.load_frombuffer(bytes(raw))


def test_save_rejects_bad_arguments(tmp_path):
    with pytest.raises(TypeError):
        mx.nd.save(str(tmp_path / "x"), {1: mx.nd.ones((1,))})
    with pytest.raises(TypeError):
        mx.nd.save(str(tmp_path / "x"), [np.ones(2)])
    with pytest.raises(mx.MXNetError, match="cannot open"):
        mx.nd.save(str(tmp_path / "no_such_dir" / "x"), [mx.nd.ones((1,))])


def test_load_frombuffer():
    with open(os.path.join(FIXTURES, "mxnet191_dict.params"), "rb") as f:
        d = mx.nd.load_frombuffer(f.read())
    assert isinstance(d, dict) and len(d) == 7
