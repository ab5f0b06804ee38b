"""mx.recordio: RecordIO files byte-compatible with MXNet 1.9.1 both ways, indexed access,
IRHeader packing, and corrupt files failing with MXNetError."""
import os
import pickle
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')
sys.path.insert(0, FIXTURES)
from recordio_fixture_records import MAGIC, recordio_fixture_records  # noqa: E402

MX191 = '/root/mxnet191-venv/bin/python'
FIX_REC = os.path.join(FIXTURES, 'recordio_mxnet191.rec')
FIX_IDX = os.path.join(FIXTURES, 'recordio_mxnet191.idx')


def _write_indexed(tmp_path, records):
    idx, rec = str(tmp_path / 'w.idx'), str(tmp_path / 'w.rec')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    for key, payload in records:
        writer.write_idx(key, payload)
    writer.close()
    return idx, rec


def test_reads_mxnet191_file_in_order():
    expected = recordio_fixture_records(mx.recordio.pack)
    reader = mx.recordio.MXRecordIO(FIX_REC, 'r')
    for _, payload in expected:
        assert reader.read() == payload
    assert reader.read() is None
    reader.reset()
    assert reader.read() == expected[0][1]
    reader.close()


def test_reads_mxnet191_file_by_key_in_any_order():
    expected = dict(recordio_fixture_records(mx.recordio.pack))
    reader = mx.recordio.MXIndexedRecordIO(FIX_IDX, FIX_REC, 'r')
    assert sorted(reader.keys) == sorted(expected)
    for key in reversed(reader.keys):
        assert reader.read_idx(key) == expected[key]
    # a seek after reading past the end reads again
    while reader.read() is not None:
        pass
    assert reader.read_idx(3) == expected[3]


def test_writes_the_same_bytes_as_mxnet191(tmp_path):
    idx, rec = _write_indexed(tmp_path, recordio_fixture_records(mx.recordio.pack))
    with open(rec, 'rb') as a, open(FIX_REC, 'rb') as b:
        assert a.read() == b.read()
    with open(idx) as a, open(FIX_IDX) as b:
        assert a.read() == b.read()


def test_record_layout_magic_length_and_padding(tmp_path):
    path = str(tmp_path / 'one.rec')
    writer = mx.recordio.MXRecordIO(path, 'w')
    writer.write(b'hello')
    assert writer.tell() == 16  # 4 magic + 4 length + 5 payload + 3 padding
    writer.close()
    data = open(path, 'rb').read()
    magic, lrec = struct.unpack('<II', data[:8])
    assert magic == 0xced7230a
    assert lrec >> 29 == 0 and lrec & ((1 << 29) - 1) == 5
    assert data[8:13] == b'hello' and data[13:] == b'\0\0\0'


def test_records_holding_the_magic_are_split_with_continuation_flags(tmp_path):
    path = str(tmp_path / 'm.rec')
    writer = mx.recordio.MXRecordIO(path, 'w')
    writer.write(b'abcd' + MAGIC + b'ef')  # the magic at an aligned offset of the payload
    writer.write(b'ab' + MAGIC + b'cd')    # unaligned: written as it is
    writer.close()
    data = open(path, 'rb').read()
    # the same bytes MXNet 1.9.1 writes: 'abcd' with cflag 1, then 'ef' with cflag 3
    assert data[:24] == (MAGIC + struct.pack('<I', (1 << 29) | 4) + b'abcd' +
                         MAGIC + struct.pack('<I', (3 << 29) | 2) + b'ef\0\0')
    assert struct.unpack('<I', data[28:32])[0] == 8
    reader = mx.recordio.MXRecordIO(path, 'r')
    assert reader.read() == b'abcd' + MAGIC + b'ef'
    assert reader.read() == b'ab' + MAGIC + b'cd'


@pytest.mark.skipif(not os.path.exists(MX191), reason='MXNet 1.9.1 venv not present')
def test_mxnet191_reads_files_written_here(tmp_path):
    records = recordio_fixture_records(mx.recordio.pack)
    idx, rec = _write_indexed(tmp_path, records)
    script = (
        "import sys, mxnet as mx\n"
        "sys.path.insert(0, %r)\n"
        "from recordio_fixture_records import recordio_fixture_records\n"
        "exp = dict(recordio_fixture_records(mx.recordio.pack))\n"
        "r = mx.recordio.MXIndexedRecordIO(%r, %r, 'r')\n"
        "assert sorted(r.keys) == sorted(exp)\n"
        "for k in r.keys[::-1]:\n"
        "    assert r.read_idx(k) == exp[k], k\n"
        "h, s = mx.recordio.unpack(r.read_idx(len(exp) - 2))\n"
        "assert h.flag == 5 and list(h.label) == [0, .25, .5, .75, 1.], h\n"
        "print('ok')\n" % (FIXTURES, idx, rec))
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    out = subprocess.run([MX191, '-c', script], capture_output=True, text=True, timeout=120,
                         env=env, cwd=str(tmp_path))
    assert out.stdout.strip().endswith('ok'), out.stderr[-2000:]


def test_pack_unpack_scalar_and_vector_labels():
    header, payload = mx.recordio.unpack(mx.recordio.pack(mx.recordio.IRHeader(3, 2.5, 7, 1), b'x'))
    assert header == mx.recordio.IRHeader(0, 2.5, 7, 1) and payload == b'x'
    label = np.array([1.5, -3, 4], dtype=np.float32)
    packed = mx.recordio.pack((0, label, 9, 0), b'body')
    assert len(packed) == 24 + 12 + 4
    assert struct.unpack('<IfQQ', packed[:24]) == (3, 0.0, 9, 0)
    header, payload = mx.recordio.unpack(packed)
    assert header.flag == 3 and np.array_equal(header.label, label) and payload == b'body'


def test_unpack_rejects_short_records():
    with pytest.raises(ValueError, match='IRHeader'):
        mx.recordio.unpack(b'short')
    with pytest.raises(ValueError, match='float32 labels'):
        mx.recordio.unpack(struct.pack('<IfQQ', 4, 0, 0, 0) + b'abc')


def test_reader_and_writer_pickle_and_reopen(tmp_path):
    path = str(tmp_path / 'p.rec')
    writer = mx.recordio.MXRecordIO(path, 'w')
    writer.write(b'one')
    writer = pickle.loads(pickle.dumps(writer))  # reopening a writer truncates, as in 1.9.1
    writer.write(b'two')
    writer.close()
    reader = pickle.loads(pickle.dumps(mx.recordio.MXRecordIO(path, 'r')))
    assert reader.read() == b'two' and reader.read() is None
    idx = mx.recordio.MXIndexedRecordIO(FIX_IDX, FIX_REC, 'r')
    again = pickle.loads(pickle.dumps(idx))
    assert again.read_idx(5) == bytes(range(5))


def test_missing_file_raises_naming_it(tmp_path):
    missing = str(tmp_path / 'nope.rec')
    with pytest.raises(MXNetError, match='nope.rec'):
        mx.recordio.MXRecordIO(missing, 'r')
    with pytest.raises(MXNetError, match='cannot open'):
        mx.recordio.MXRecordIO(str(tmp_path / 'no_dir' / 'x.rec'), 'w')


def test_truncated_record_raises_naming_file_and_position(tmp_path):
    path = str(tmp_path / 't.rec')
    shutil.copy(FIX_REC, path)
    size = os.path.getsize(path)
    with open(path, 'r+b') as f:
        f.truncate(size - 10)
    reader = mx.recordio.MXRecordIO(path, 'r')
    with pytest.raises(MXNetError, match=r"t\.rec"):
        while reader.read() is not None:
            pass


def test_garbage_file_raises_not_crashes(tmp_path):
    path = str(tmp_path / 'g.rec')
    rng = np.random.RandomState(0)
    with open(path, 'wb') as f:
        f.write(rng.randint(0, 256, size=4096).astype(np.uint8).tobytes())
    reader = mx.recordio.MXRecordIO(path, 'r')
    with pytest.raises(MXNetError, match='byte 0'):
        reader.read()


def test_bad_magic_in_the_middle_names_its_position(tmp_path):
    path = str(tmp_path / 'b.rec')
    writer = mx.recordio.MXRecordIO(path, 'w')
    for payload in (b'aaaa', b'bbbb', b'cccc'):
        writer.write(payload)
    writer.close()
    data = bytearray(open(path, 'rb').read())
    data[12] ^= 0xff  # second record's magic
    open(path, 'wb').write(bytes(data))
    reader = mx.recordio.MXRecordIO(path, 'r')
    assert reader.read() == b'aaaa'
    with pytest.raises(MXNetError, match='byte 12'):
        reader.read()


def test_seek_to_unaligned_position_raises():
    reader = mx.recordio.MXIndexedRecordIO(FIX_IDX, FIX_REC, 'r')
    reader.idx['bad'] = 6
    with pytest.raises(MXNetError, match='not a record start'):
        reader.read_idx('bad')


def test_invalid_flag():
    with pytest.raises(ValueError):
        mx.recordio.MXRecordIO(FIX_REC, 'x')


def test_record_file_dataset_reads_by_position(tmp_path):
    records = [(10 + i, b'r%d' % i) for i in range(7)]
    _, rec = _write_indexed(tmp_path, records)
    ds = mx.gluon.data.RecordFileDataset(rec)
    assert len(ds) == 7
    assert [ds[i] for i in (6, 0, 3)] == [b'r6', b'r0', b'r3']
    loader = mx.gluon.data.DataLoader(ds.transform(lambda r: int(r[1:])), batch_size=3,
                                      num_workers=2)
    got = np.concatenate([b.asnumpy() for b in loader])
    assert sorted(got.tolist()) == list(range(7))
