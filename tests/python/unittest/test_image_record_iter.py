"""ImageRecordIter (C++): decoding, cropping, normalization, labels, shuffling, sharding,
reset, determinism across thread counts, bad input, and MXNet 1.9.1's results on one file."""
import os
import subprocess
import struct

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

MX191 = '/root/mxnet191-venv/bin/python'
pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('OPENCV'),
                                reason='built without OpenCV')
N = 23


def _image(i):
    """A smooth (h, w, 3) RGB image whose content depends on i."""
    h, w = 10 + i % 5, 12 + (i * 3) % 7
    yy, xx = np.mgrid[0:h, 0:w]
    return np.stack([(xx * 9 + i * 11) % 256, (yy * 13 + i) % 256, (xx + yy + 7 * i) % 256],
                    axis=2).astype(np.uint8)


def _write_rec(path, n=N, label_of=lambda i: float(i), fmt='.png'):
    idx = os.path.splitext(path)[0] + '.idx'
    rec = mx.recordio.MXIndexedRecordIO(idx, path, 'w')
    for i in range(n):
        rgb = _image(i)
        rec.write_idx(i, mx.recordio.pack_img(mx.recordio.IRHeader(0, label_of(i), i, 0),
                                              rgb[:, :, ::-1], quality=95 if fmt == '.jpg' else 3,
                                              img_fmt=fmt))
    rec.close()
    return path, idx


@pytest.fixture(scope='module')
def rec_file(tmp_path_factory):
    return _write_rec(str(tmp_path_factory.mktemp('imgrec') / 'data.rec'))


def _center_crop_chw(img, h, w):
    y, x = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
    return img[y:y + h, x:x + w].transpose(2, 0, 1).astype(np.float32)


def _epoch(it):
    it.reset()
    data, labels, index = [], [], []
    for batch in it:
        keep = batch.data[0].shape[0] - batch.pad
        data.append(batch.data[0].asnumpy()[:keep])
        labels.append(batch.label[0].asnumpy()[:keep])
        index.append(np.asarray(batch.index)[:keep])
    return np.concatenate(data), np.concatenate(labels), np.concatenate(index)


def test_center_crop_rgb_chw_labels_and_pad(rec_file):
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 9), batch_size=5,
                               preprocess_threads=2)
    assert it.provide_data[0].shape == (5, 3, 8, 9)
    assert it.provide_label[0].shape == (5,)
    batches = list(it)
    assert len(batches) == 5 and [b.pad for b in batches] == [0, 0, 0, 0, 2]
    data, labels, index = _epoch(it)
    assert list(index) == list(range(N)) and list(labels) == list(range(N))
    for i in range(N):
        np.testing.assert_array_equal(data[i], _center_crop_chw(_image(i), 8, 9))
    it.reset()
    again, _, _ = _epoch(it)
    np.testing.assert_array_equal(again, data)


def test_mean_std_scale_normalization(rec_file):
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=4,
                               mean_r=10, mean_g=20, mean_b=30, std_r=2, std_g=4, std_b=8,
                               scale=0.5)
    data, _, _ = _epoch(it)
    mean = np.array([10, 20, 30], np.float32).reshape(3, 1, 1)
    std = np.array([2, 4, 8], np.float32).reshape(3, 1, 1)
    for i in range(N):
        want = (_center_crop_chw(_image(i), 8, 8) - mean) * 0.5 / std
        np.testing.assert_allclose(data[i], want, rtol=1e-6, atol=1e-6)


def test_uint8_and_int8_iterators(rec_file):
    it = mx.io.ImageRecordUInt8Iter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=N)
    batch = next(iter(it))
    assert batch.data[0].dtype == np.uint8
    np.testing.assert_array_equal(batch.data[0].asnumpy()[3], _center_crop_chw(_image(3), 8, 8))
    it = mx.io.ImageRecordInt8Iter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=N,
                                   mean_r=100.4, mean_g=0, mean_b=200)
    got = next(iter(it)).data[0].asnumpy()
    assert got.dtype == np.int8
    want = _center_crop_chw(_image(3), 8, 8) - np.array([100, 0, 200]).reshape(3, 1, 1)
    np.testing.assert_array_equal(got[3], np.clip(want, -128, 127))
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=N,
                               dtype='uint8')
    assert next(iter(it)).data[0].dtype == np.uint8


def test_gray_output_and_resize(rec_file):
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(1, 6, 6), batch_size=N,
                               resize=7)
    data = next(iter(it)).data[0].asnumpy()
    assert data.shape == (N, 1, 6, 6)
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 9, 9), batch_size=N,
                               resize=9, inter_method=1)
    data = next(iter(it)).data[0].asnumpy()
    img = _image(0)  # 10x12: shorter edge 10 -> 9, longer 12 -> 10
    resized = mx.image.imresize(mx.nd.array(img, dtype='uint8'), 10, 9, interp=1).asnumpy()
    np.testing.assert_allclose(data[0], _center_crop_chw(resized, 9, 9), atol=1)


def test_shuffle_is_a_seeded_permutation_that_changes_per_epoch(rec_file):
    def order(seed, epochs=2):
        it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8),
                                   batch_size=N, shuffle=True, seed=seed)
        return [list(_epoch(it)[2]) for _ in range(epochs)]
    a, b = order(1), order(1)
    assert a == b
    assert sorted(a[0]) == list(range(N)) and a[0] != list(range(N))
    assert a[0] != a[1]
    assert order(2)[0] != a[0]


@pytest.mark.parametrize('num_parts', [2, 3, 5])
def test_parts_hold_every_record_exactly_once(rec_file, num_parts):
    seen = []
    for part in range(num_parts):
        it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=3,
                                   num_parts=num_parts, part_index=part, round_batch=False)
        seen += list(_epoch(it)[2])
    assert sorted(seen) == list(range(N))


def test_shuffle_chunk_seed_changes_the_order_only_with_a_chunk_size(rec_file):
    def order(**kw):
        it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=N,
                                   shuffle=True, seed=4, verbose=False, **kw)
        return list(next(iter(it)).label[0].asnumpy())
    base = order()
    assert sorted(base) == list(range(N))
    assert order(shuffle_chunk_seed=9) == base
    assert order(shuffle_chunk_size=64, shuffle_chunk_seed=9) != base
    assert order(shuffle_chunk_size=64, shuffle_chunk_seed=9) == \
        order(shuffle_chunk_size=8, shuffle_chunk_seed=9)


def test_aug_seq_applies_the_default_augmenter_in_turn(rec_file):
    def batch(**kw):
        it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=N,
                                   verbose=False, **kw)
        return next(iter(it)).data[0].asnumpy()
    # a second center crop of a data_shape image changes nothing; a second resize does
    np.testing.assert_array_equal(batch(aug_seq='aug_default, aug_default'), batch())
    twice = batch(aug_seq='aug_default,aug_default', resize=12)
    assert twice.shape == (N, 3, 8, 8) and (twice != batch(resize=12)).any()
    for bad in ('', 'aug_default,det_aug_default', 'foo'):
        with pytest.raises(MXNetError, match='aug_seq'):
            batch(aug_seq=bad)


def _part_ids(rec, idx, num_parts):
    """The records (their labels) of each part, as this package cuts the file."""
    out = []
    for part in range(num_parts):
        it = mx.io.ImageRecordIter(path_imgrec=rec, path_imgidx=idx, data_shape=(3, 8, 8),
                                   batch_size=1, num_parts=num_parts, part_index=part,
                                   verbose=False)
        out.append([int(b.label[0].asnumpy()[0]) for b in it])
    return out


@pytest.mark.skipif(not os.path.exists(MX191), reason='MXNet 1.9.1 venv not present')
def test_parts_are_cut_as_mxnet191(tmp_path):
    # records of very different sizes, so that byte ranges and record counts disagree
    rec, idx = _write_rec(str(tmp_path / 'p.rec'), fmt='.png')
    out = str(tmp_path / 'parts.json')
    script = ("import json, mxnet as mx\n"
              "res = {}\n"
              "for idx in ('', %r):\n"
              "    for n in (3, 4, 5):\n"
              "        res['%%s-%%d' %% (bool(idx), n)] = [[int(b.label[0].asnumpy()[0]) for b in "
              "mx.io.ImageRecordIter(path_imgrec=%r, path_imgidx=idx, data_shape=(3, 8, 8), "
              "batch_size=1, num_parts=n, part_index=k, verbose=False)] for k in range(n)]\n"
              "json.dump(res, open(%r, 'w'))\n" % (idx, rec, out))
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    res = subprocess.run([MX191, '-c', script], capture_output=True, text=True, env=env,
                         timeout=300, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr[-2000:]
    import json
    ref = json.load(open(out))
    for key, parts in ref.items():
        indexed, n = key.split('-')
        assert _part_ids(rec, idx if indexed == 'True' else '', int(n)) == parts, key


def test_random_augmentation_is_deterministic_across_thread_counts(rec_file):
    args = dict(path_imgrec=rec_file[0], data_shape=(3, 7, 7), batch_size=6, rand_crop=True,
                rand_mirror=True, max_rotate_angle=20, brightness=0.3, contrast=0.3,
                saturation=0.3, pca_noise=0.1, random_h=10, random_s=20, random_l=20,
                max_random_scale=1.2, min_random_scale=0.9, seed_aug=5)
    one = _epoch(mx.io.ImageRecordIter(preprocess_threads=1, **args))[0]
    four = _epoch(mx.io.ImageRecordIter(preprocess_threads=4, **args))[0]
    np.testing.assert_array_equal(one, four)
    args['seed_aug'] = 6
    other = _epoch(mx.io.ImageRecordIter(preprocess_threads=2, **args))[0]
    assert not np.array_equal(one, other)


def test_rand_mirror_flips_some_images(rec_file):
    plain = _epoch(mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8),
                                         batch_size=N))[0]
    mirrored = _epoch(mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8),
                                            batch_size=N, rand_mirror=True, seed=3))[0]
    flipped = [np.array_equal(mirrored[i], plain[i][:, :, ::-1]) for i in range(N)]
    same = [np.array_equal(mirrored[i], plain[i]) for i in range(N)]
    assert all(f or s for f, s in zip(flipped, same))
    assert 0 < sum(flipped) < N


def test_random_resized_crop_gives_data_shape(rec_file):
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 5, 5), batch_size=8,
                               random_resized_crop=True, min_random_area=0.3,
                               max_aspect_ratio=1.3, min_aspect_ratio=0.7, seed_aug=1)
    data, _, _ = _epoch(it)
    assert data.shape == (N, 3, 5, 5) and np.isfinite(data).all()


def test_reset_in_the_middle_of_an_epoch(rec_file):
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=4,
                               prefetch_buffer=1)
    next(it)
    next(it)
    it.reset()
    assert list(_epoch(it)[2]) == list(range(N))
    for _ in range(20):  # resets racing the producer never hang or lose records
        it.reset()
    assert list(_epoch(it)[2]) == list(range(N))


def test_label_vectors_and_imglist(tmp_path):
    path, _ = _write_rec(str(tmp_path / 'multi.rec'), n=6,
                         label_of=lambda i: [i, 10 * i, -i])
    it = mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 8, 8), batch_size=6,
                               label_width=3)
    assert it.provide_label[0].shape == (6, 3)
    labels = next(iter(it)).label[0].asnumpy()
    np.testing.assert_array_equal(labels[:, 1], 10 * np.arange(6))
    with pytest.raises(MXNetError, match=r"multi\.rec' record at byte \d+: the record has 3 "
                                         r"labels, label_width is 1"):
        mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 8, 8), batch_size=6)
    lst = str(tmp_path / 'multi.lst')
    with open(lst, 'w') as f:
        for i in range(6):
            f.write('%d\t%f\t%f\timg%d.png\n' % (i, 100 + i, 0.5, i))
    it = mx.io.ImageRecordIter(path_imgrec=path, path_imglist=lst, data_shape=(3, 8, 8),
                               batch_size=6, label_width=2)
    labels = next(iter(it)).label[0].asnumpy()
    np.testing.assert_array_equal(labels[:, 0], 100 + np.arange(6))


def test_missing_truncated_and_corrupt_files_raise(tmp_path, rec_file):
    with pytest.raises(MXNetError, match='nope.rec'):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / 'nope.rec'), data_shape=(3, 8, 8),
                              batch_size=2)
    data = open(rec_file[0], 'rb').read()
    cut = str(tmp_path / 'cut.rec')
    open(cut, 'wb').write(data[:-9])
    with pytest.raises(MXNetError, match=r"cut\.rec.*truncated"):
        mx.io.ImageRecordIter(path_imgrec=cut, data_shape=(3, 8, 8), batch_size=2)
    bad = str(tmp_path / 'bad.rec')
    writer = mx.recordio.MXRecordIO(bad, 'w')
    writer.write(mx.recordio.pack((0, 1, 0, 0), b'\x89PNG not really'))
    writer.close()
    with pytest.raises(MXNetError, match=r"bad\.rec' record at byte 0: the image bytes cannot "
                                         r"be decoded"):
        it = mx.io.ImageRecordIter(path_imgrec=bad, data_shape=(3, 8, 8), batch_size=1)
        next(it)
    with pytest.raises(MXNetError, match='data_shape'):
        mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(8, 8), batch_size=2)
    with pytest.raises(MXNetError, match=r"data\.rec' record at byte \d+: image of \d+x\d+ "
                                         r"is smaller than max_crop_size 40"):
        it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=2,
                                   max_crop_size=40, min_crop_size=30)
        next(it)


def test_mean_img_file(tmp_path, rec_file):
    mean = np.random.RandomState(0).uniform(0, 255, (3, 8, 8)).astype(np.float32)
    path = str(tmp_path / 'mean.nd')
    mx.nd.save(path, [mx.nd.array(mean)])
    it = mx.io.ImageRecordIter(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=N,
                               mean_img=path)
    data = next(iter(it)).data[0].asnumpy()
    np.testing.assert_allclose(data[4], _center_crop_chw(_image(4), 8, 8) - mean, rtol=1e-5)


def test_v1_alias(rec_file):
    it = mx.io.ImageRecordIter_v1(path_imgrec=rec_file[0], data_shape=(3, 8, 8), batch_size=N)
    np.testing.assert_array_equal(next(iter(it)).data[0].asnumpy()[2],
                                  _center_crop_chw(_image(2), 8, 8))


@pytest.mark.skipif(not os.path.exists(MX191), reason='MXNet 1.9.1 venv not present')
def test_same_batches_as_mxnet191(tmp_path):
    path, _ = _write_rec(str(tmp_path / 'jpg.rec'), fmt='.jpg')
    args = dict(path_imgrec=path, data_shape=(3, 8, 8), batch_size=5, resize=9,
                mean_r=120, mean_g=110, mean_b=100, std_r=50, std_g=60, std_b=70)
    out = str(tmp_path / 'ref.npy')
    script = ("import mxnet as mx, numpy as np\n"
              "it = mx.io.ImageRecordIter(preprocess_threads=1, **%r)\n"
              "np.save(%r, np.concatenate([b.data[0].asnumpy() for b in it]))\n" % (args, out))
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    res = subprocess.run([MX191, '-c', script], capture_output=True, text=True, env=env,
                         timeout=300, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr[-2000:]
    ref = np.load(out)
    ours = np.concatenate([b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**args)])
    assert ours.shape == ref.shape
    # OpenCV 3.4 (MXNet's wheel) and 4.6 (Debian) may round a resized pixel differently
    assert np.abs(ours - ref).max() <= 1.0 / 50 + 1e-6


def _jpeg_rec(tmp_path, n=6, size=(40, 52)):
    path = str(tmp_path / 'j.rec')
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'j.idx'), path, 'w')
    rng = np.random.RandomState(0)
    full = []
    for i in range(n):
        h, wd = size[0] + i, size[1] + 2 * i
        yy, xx = np.mgrid[0:h, 0:wd]
        img = np.stack([(xx * 5 + i * 9) % 256, (yy * 7) % 256, rng.randint(0, 256, (h, wd))],
                       axis=2).astype(np.uint8)
        packed = mx.recordio.pack_img((0, i, i, 0), img, quality=85)
        w.write_idx(i, packed)
        full.append(mx.image.imdecode(mx.recordio.unpack(packed)[1]).asnumpy())
    w.close()
    return path, full


def test_jpeg_window_decoding_equals_full_decode_then_crop(tmp_path):
    path, full = _jpeg_rec(tmp_path)
    it = mx.io.ImageRecordUInt8Iter(path_imgrec=path, data_shape=(3, 17, 23),
                                    batch_size=len(full))
    data = next(iter(it)).data[0].asnumpy()
    for i, img in enumerate(full):
        np.testing.assert_array_equal(data[i], _center_crop_chw(img, 17, 23))
    it = mx.io.ImageRecordUInt8Iter(path_imgrec=path, data_shape=(3, 17, 23), rand_crop=True,
                                    batch_size=len(full), seed_aug=4)
    data = next(iter(it)).data[0].asnumpy()
    for i, img in enumerate(full):
        hits = [(y, x) for y in range(img.shape[0] - 16) for x in range(img.shape[1] - 22)
                if np.array_equal(data[i], img[y:y + 17, x:x + 23].transpose(2, 0, 1))]
        assert len(hits) >= 1, i
    rec = mx.recordio.MXRecordIO(path, 'r')
    gray_full = [mx.image.imdecode(mx.recordio.unpack(rec.read())[1], flag=0).asnumpy()
                 for _ in full]
    it = mx.io.ImageRecordUInt8Iter(path_imgrec=path, data_shape=(1, 17, 23),
                                    batch_size=len(full))
    data = next(iter(it)).data[0].asnumpy()
    for i, img in enumerate(gray_full):
        np.testing.assert_array_equal(data[i], _center_crop_chw(img, 17, 23))
