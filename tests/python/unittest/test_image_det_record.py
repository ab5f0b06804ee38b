"""mx.io.ImageDetRecordIter (C++) and ImageRecordIter's mean_img creation: outputs against MXNet
1.9.1 (fixtures/image_det_record_mxnet191.npz, from make_image_det_record_fixtures.py), the
label rows, random augmentation invariants, determinism, sharding and bad input."""
import json
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('OPENCV'),
                                reason='built without OpenCV')
FIX = os.path.join(os.path.dirname(__file__), 'fixtures')
SRC = np.load(os.path.join(FIX, 'image_det_mxnet191.npz'))
REF = np.load(os.path.join(FIX, 'image_det_record_mxnet191.npz'))


def _write(path, label_of):
    wr = mx.recordio.MXRecordIO(path, 'w')
    for k in range(6):
        wr.write(mx.recordio.pack(mx.recordio.IRHeader(0, label_of(k), k, 0),
                                  SRC['png%d' % k].tobytes()))
    wr.close()
    return path


@pytest.fixture(scope='module')
def det_rec(tmp_path_factory):
    return _write(str(tmp_path_factory.mktemp('detrec') / 'd.rec'), lambda k: SRC['label%d' % k])


def _det_iter(rec, **kwargs):
    kwargs.setdefault('verbose', False)
    return mx.io.ImageDetRecordIter(path_imgrec=rec, **kwargs)


CASES = json.loads(str(REF['cases']))  # the arguments the fixture was made with


@pytest.mark.parametrize('name', sorted(CASES))
@pytest.mark.parametrize('threads', [1, 3])
def test_same_batches_as_mxnet191(det_rec, name, threads):
    args = dict(CASES[name], data_shape=tuple(CASES[name]['data_shape']))
    it = _det_iter(det_rec, preprocess_threads=threads, **args)
    batches = list(it)
    assert [b.pad for b in batches] == list(REF[name + '_pad'])
    label = np.stack([b.label[0].asnumpy() for b in batches])
    data = np.stack([b.data[0].asnumpy() for b in batches])
    ref_label, ref_data = REF[name + '_label'], REF[name + '_data']
    if name == 'shrink':  # round_batch=False: the padded slots are left over, not compared
        label, ref_label, data, ref_data = label[:, :2], ref_label[:, :2], data[:, :2], \
            ref_data[:, :2]
    else:
        np.testing.assert_array_equal(np.stack([b.index for b in batches]), REF[name + '_index'])
    np.testing.assert_allclose(label, ref_label, rtol=1e-6, atol=1e-6)
    # OpenCV versions round a resized pixel differently now and then
    step = 0.5 / 2 if name == 'fit' else 1.0
    np.testing.assert_allclose(data, ref_data, atol=step * 1.01)
    assert np.mean(np.abs(data - ref_data) > 1e-4) < 0.1
    assert it.provide_label[0].name == 'softmax_label'


def test_label_rows_and_padding(det_rec):
    it = _det_iter(det_rec, data_shape=(3, 16, 16), batch_size=6, label_pad_width=25,
                   label_pad_value=-7)
    lab = next(iter(it)).label[0].asnumpy()
    assert lab.shape == (6, 29)
    for k in range(6):
        raw = SRC['label%d' % k]
        assert list(lab[k, :4]) == [3, 16, 16, len(raw)]
        np.testing.assert_allclose(lab[k, 4:4 + len(raw)], raw, rtol=1e-6)
        assert (lab[k, 4 + len(raw):] == -7).all()
    with pytest.raises(MXNetError, match='label_pad_width 10 is smaller'):
        _det_iter(det_rec, data_shape=(3, 16, 16), batch_size=2, label_pad_width=10)
    with pytest.raises(MXNetError, match='label_width'):
        _det_iter(det_rec, data_shape=(3, 16, 16), batch_size=2, label_width=7)


def _boxes(row):
    """The (n, object_width) objects of an output label row."""
    raw = row[4:4 + int(row[3])]
    return raw[int(raw[0]):].reshape(-1, int(raw[1]))


def test_random_crop_pad_and_colour_keep_valid_boxes(det_rec):
    args = dict(data_shape=(3, 32, 32), batch_size=3, rand_crop_prob=1.0, rand_pad_prob=0.5,
                max_pad_scale=2.0, rand_mirror_prob=0.5, num_crop_sampler=3,
                min_crop_scales=(0.3, 0.5, 0.7), max_crop_scales=(1.0,),
                min_crop_aspect_ratios=(0.5,), max_crop_aspect_ratios=(2.0,),
                min_crop_overlaps=(0.1, 0.3, 0.5), max_crop_trials=(25,),
                random_hue_prob=0.5, max_random_hue=18, random_contrast_prob=0.5,
                max_random_contrast=0.5, crop_emit_mode='overlap', seed=5)
    runs = []
    for threads in (1, 2):
        it = _det_iter(det_rec, preprocess_threads=threads, **args)
        epochs = []
        for _ in range(2):
            it.reset()
            epochs.append([(b.data[0].asnumpy(), b.label[0].asnumpy()) for b in it])
        runs.append(epochs)
    for (d1, l1), (d2, l2) in zip(runs[0][0], runs[1][0]):  # thread count does not matter
        np.testing.assert_array_equal(d1, d2)
        np.testing.assert_array_equal(l1, l2)
    assert any((a[1] != b[1]).any() for a, b in zip(runs[0][0], runs[0][1]))  # epochs differ
    plain = np.concatenate([b.label[0].asnumpy() for b in _det_iter(
        det_rec, data_shape=(3, 32, 32), batch_size=3)])
    augmented = np.concatenate([label for _, label in runs[0][0]])
    assert (augmented != plain).any(axis=1).sum() >= 3  # most images were cropped or padded
    for row in np.concatenate([augmented] + [label for _, label in runs[0][1]]):
        boxes = _boxes(row)
        assert len(boxes) >= 1
        assert (boxes[:, 1:5] >= 0).all() and (boxes[:, 1:5] <= 1).all()
        assert (boxes[:, 3] > boxes[:, 1]).all() and (boxes[:, 4] > boxes[:, 2]).all()


def test_shuffle_parts_and_reset(det_rec):
    seen = []
    for part in range(3):
        it = _det_iter(det_rec, data_shape=(3, 8, 8), batch_size=1, num_parts=3,
                       part_index=part)
        seen += [int(b.index[0]) for b in it]
    assert sorted(seen) == list(range(6))
    it = _det_iter(det_rec, data_shape=(3, 8, 8), batch_size=6, shuffle=True, seed=3)
    first = list(next(iter(it)).index)
    assert sorted(first) == list(range(6))
    it.reset()
    assert sorted(next(iter(it)).index) == list(range(6))
    it = _det_iter(det_rec, data_shape=(3, 8, 8), batch_size=4)
    next(iter(it))
    it.reset()  # mid-epoch
    assert list(next(iter(it)).index) == [0, 1, 2, 3]


def test_imglist_labels(det_rec, tmp_path):
    lst = tmp_path / 'd.lst'
    with open(str(lst), 'w') as f:
        for k in range(6):
            f.write('%d\t%s\t%d.png\n' % (k, '\t'.join('%g' % v for v in SRC['label0']), k))
    it = _det_iter(det_rec, data_shape=(3, 8, 8), batch_size=6, path_imglist=str(lst))
    lab = next(iter(it)).label[0].asnumpy()
    assert lab.shape == (6, 4 + len(SRC['label0']))
    np.testing.assert_allclose(lab[:, 4:], np.tile(SRC['label0'], (6, 1)), rtol=1e-5)


def test_bad_input(det_rec, tmp_path):
    with pytest.raises(MXNetError, match='at least 7 values'):
        rec = _write(str(tmp_path / 'short.rec'), lambda k: float(k))
        next(iter(_det_iter(rec, data_shape=(3, 8, 8), batch_size=2)))
    with pytest.raises(MXNetError, match='object width'):
        rec = _write(str(tmp_path / 'width.rec'), lambda k: [2, 5, 0, .1, .1, .5, .5, .7])
        next(iter(_det_iter(rec, data_shape=(3, 8, 8), batch_size=2)))
    for bad in ([1e12, 5, 0, .1, .1, .5, .5], [2, float('nan'), 0, .1, .1, .5, .5]):
        with pytest.raises(MXNetError, match='header width'):
            rec = _write(str(tmp_path / 'huge.rec'), lambda k: bad)
            next(iter(_det_iter(rec, data_shape=(3, 8, 8), batch_size=2)))
    with pytest.raises(MXNetError, match='missing.rec'):
        _det_iter(str(tmp_path / 'missing.rec'), data_shape=(3, 8, 8), batch_size=2)
    raw = open(det_rec, 'rb').read()
    (tmp_path / 'trunc.rec').write_bytes(raw[:len(raw) // 2])
    with pytest.raises(MXNetError, match='trunc.rec'):
        it = _det_iter(str(tmp_path / 'trunc.rec'), data_shape=(3, 8, 8), batch_size=6)
        next(iter(it))
    wr = mx.recordio.MXRecordIO(str(tmp_path / 'corrupt.rec'), 'w')
    wr.write(mx.recordio.pack(mx.recordio.IRHeader(0, SRC['label0'], 0, 0), b'not an image'))
    wr.close()
    with pytest.raises(MXNetError, match='cannot be decoded'):
        next(iter(_det_iter(str(tmp_path / 'corrupt.rec'), data_shape=(3, 8, 8),
                            batch_size=1)))
    for bad in (dict(min_crop_scales=(0.5, 0.6), num_crop_sampler=3),
                dict(min_crop_scales=(0.9,), max_crop_scales=(0.5,)),
                dict(aug_seq='aug_default'), dict(data_shape=(2, 8, 8)), dict(inter_method=7)):
        kwargs = dict(data_shape=(3, 8, 8), batch_size=1)
        kwargs.update(bad)
        with pytest.raises(MXNetError):
            _det_iter(det_rec, **kwargs)


def test_image_record_iter_creates_mean_img_like_mxnet191(tmp_path):
    rec = _write(str(tmp_path / 'c.rec'), float)
    path = str(tmp_path / 'mean.nd')
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 30, 40), batch_size=3,
                               mean_img=path, verbose=False)
    assert os.path.exists(path)
    ref_path = str(tmp_path / 'ref.nd')
    with open(ref_path, 'wb') as f:
        f.write(REF['mean_img_file'].tobytes())
    ours, ref = mx.nd.load(path), mx.nd.load(ref_path)
    assert list(ours) == list(ref) == ['mean_img']
    np.testing.assert_allclose(ours['mean_img'].asnumpy(), ref['mean_img'].asnumpy(), rtol=1e-5)
    data = np.stack([b.data[0].asnumpy() for b in it])
    np.testing.assert_allclose(data, REF['mean_img_data'], atol=1e-3)
    # the saved file is used from now on: a changed file changes the output
    mx.nd.save(path, {'mean_img': mx.nd.zeros((3, 30, 40))})
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 30, 40), batch_size=3,
                               mean_img=path, verbose=False)
    assert next(iter(it)).data[0].asnumpy().min() >= 0
    # 1.9.1's own file loads here too
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 30, 40), batch_size=3,
                               mean_img=ref_path, verbose=False)
    np.testing.assert_allclose(np.stack([b.data[0].asnumpy() for b in it]),
                               REF['mean_img_data'], atol=1e-3)


def test_det_iter_creates_mean_img(det_rec, tmp_path):
    path = str(tmp_path / 'dmean.nd')
    it = _det_iter(det_rec, data_shape=(3, 12, 12), batch_size=6, mean_img=path)
    plain = next(iter(_det_iter(det_rec, data_shape=(3, 12, 12), batch_size=6))).data[0]
    mean = mx.nd.load(path)['mean_img'].asnumpy()
    np.testing.assert_allclose(mean, plain.asnumpy().mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(next(iter(it)).data[0].asnumpy(), plain.asnumpy() - mean,
                               atol=1e-4)
