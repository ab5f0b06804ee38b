"""mx.image.ImageDetIter and the detection augmenters: seeded outputs against MXNet 1.9.1
(fixtures/image_det_mxnet191.npz, from make_image_det_fixtures.py), the label format
(header width, object width, -1 padding) and its errors."""
import json
import os
import random

import numpy as np
import pytest

import mxnet as mx

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('OPENCV'),
                                reason='built without OpenCV')
REF = np.load(os.path.join(os.path.dirname(__file__), 'fixtures', 'image_det_mxnet191.npz'))


def _seed(s):
    random.seed(s)
    np.random.seed(s)
    mx.random.seed(s)


@pytest.fixture(scope='module')
def root(tmp_path_factory):
    d = tmp_path_factory.mktemp('imagedet')
    for k in range(6):
        (d / ('%d.png' % k)).write_bytes(REF['png%d' % k].tobytes())
    return str(d)


def _even_list():
    return [list(REF['label%d' % k]) + ['%d.png' % k] for k in (0, 2, 4)]


def _check_run(name, it):
    batches = list(it)
    assert tuple(it.label_shape) == tuple(REF[name + '_label_shape'])
    assert [b.pad for b in batches] == list(REF[name + '_pad'])
    data = np.stack([b.data[0].asnumpy() for b in batches])
    label = np.stack([b.label[0].asnumpy() for b in batches])
    np.testing.assert_allclose(label, REF[name + '_label'], rtol=1e-6, atol=1e-6)
    # resizing rounds a pixel here and there differently from 1.9.1's OpenCV build
    np.testing.assert_allclose(data, REF[name + '_data'], atol=1.01)
    assert np.mean(np.abs(data - REF[name + '_data']) > 0) < 0.1


def test_plain_matches_mxnet191(root):
    _seed(1)
    it = mx.image.ImageDetIter(2, (3, 32, 32), imglist=_even_list(), path_root=root)
    assert it.provide_label[0].shape == (2, 3, 5)
    _check_run('plain', it)


def test_random_crop_pad_mirror_matches_mxnet191(root):
    _seed(2)
    it = mx.image.ImageDetIter(2, (3, 40, 36), imglist=_even_list() * 3, path_root=root,
                               rand_crop=0.8, rand_pad=0.8, rand_mirror=True,
                               area_range=(0.3, 3.0), min_object_covered=[0.1, 0.5],
                               pad_val=(10, 20, 30))
    _check_run('aug', it)


def test_indexed_rec_with_header_extras_matches_mxnet191(root, tmp_path):
    rec, idx = str(tmp_path / 'd.rec'), str(tmp_path / 'd.idx')
    wr = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    for k in (1, 3, 5):
        wr.write_idx(k, mx.recordio.pack(mx.recordio.IRHeader(0, REF['label%d' % k], k, 0),
                                         REF['png%d' % k].tobytes()))
    wr.close()
    _seed(3)
    it = mx.image.ImageDetIter(2, (3, 30, 30), path_imgrec=rec, path_imgidx=idx,
                               shuffle=True, rand_mirror=True, rand_crop=0.5)
    _check_run('rec', it)


FIXED = np.array([[0, .1, .1, .5, .6], [1, .4, .3, .9, .95], [2, .0, .7, .3, 1.0]],
                 np.float32)


@pytest.mark.parametrize('s', range(6))
def test_crop_and_pad_proposals_match_mxnet191(s):
    crop = mx.image.DetRandomCropAug(min_object_covered=0.3, area_range=(0.2, 1.0))
    pad = mx.image.DetRandomPadAug(area_range=(1.0, 4.0))
    for aug, fn, base in ((crop, crop._random_crop_proposal, 100),
                          (pad, pad._random_pad_proposal, 200)):
        _seed(base + s)
        got = fn(FIXED, 120, 160)
        key = ('crop%d' if aug is crop else 'pad%d') % s
        np.testing.assert_array_equal(np.array(got[:4] if got else [], np.float32), REF[key])
        if got:
            np.testing.assert_allclose(got[4], REF[key + '_label'], rtol=1e-6, atol=1e-7)


def test_crop_applies_window_and_pad_fills():
    img = mx.nd.array(np.arange(120 * 160 * 3).reshape(120, 160, 3) % 251, dtype='uint8')
    _seed(101)
    x, y, w, h, _ = mx.image.DetRandomCropAug(min_object_covered=0.3, area_range=(0.2, 1.0)) \
        ._random_crop_proposal(FIXED, 120, 160)
    _seed(101)
    out, lab = mx.image.DetRandomCropAug(min_object_covered=0.3, area_range=(0.2, 1.0))(
        img, FIXED.copy())
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[y:y + h, x:x + w])
    assert lab.shape[1] == 5 and (lab[:, 1:] >= 0).all() and (lab[:, 1:] <= 1).all()
    _seed(201)
    out, lab = mx.image.DetRandomPadAug(area_range=(1.0, 4.0), pad_val=(1, 2, 3))(
        img, FIXED.copy())
    x, y, w, h = REF['pad1']
    x, y, w, h = int(x), int(y), int(w), int(h)
    o = out.asnumpy()
    assert o.shape == (h, w, 3)
    np.testing.assert_array_equal(o[y:y + 120, x:x + 160], img.asnumpy())
    np.testing.assert_array_equal(o[0, 0] if y > 0 else o[-1, -1], [1, 2, 3])
    # a box keeps its pixel position: its corners move by the offset
    np.testing.assert_allclose(lab[:, 1] * w, FIXED[:, 1] * 160 + x, rtol=1e-5)
    np.testing.assert_allclose(lab[:, 4] * h, FIXED[:, 4] * 120 + y, rtol=1e-5)


def test_horizontal_flip_against_numpy():
    img = mx.nd.array(np.arange(4 * 6 * 3).reshape(4, 6, 3))
    lab = FIXED.copy()
    out, got = mx.image.DetHorizontalFlipAug(1.0)(img, lab)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[:, ::-1])
    np.testing.assert_allclose(got[:, 1], 1 - FIXED[:, 3])
    np.testing.assert_allclose(got[:, 3], 1 - FIXED[:, 1])
    np.testing.assert_array_equal(got[:, (0, 2, 4)], FIXED[:, (0, 2, 4)])
    out, got = mx.image.DetHorizontalFlipAug(0.0)(img, FIXED.copy())
    np.testing.assert_array_equal(got, FIXED)


def test_borrow_select_and_dumps():
    borrow = mx.image.DetBorrowAug(mx.image.CastAug())
    assert borrow.dumps() == ['detborrowaug', '["castaug", {"type": "float32"}]']
    with pytest.raises(TypeError):
        mx.image.DetBorrowAug(lambda x: x)
    with pytest.raises(ValueError):
        mx.image.DetRandomSelectAug([mx.image.CastAug()])
    assert mx.image.DetRandomSelectAug([]).skip_prob == 1
    multi = mx.image.CreateMultiRandCropAugmenter(min_object_covered=[0.1, 0.3, 0.5],
                                                  area_range=(0.2, 1.0), skip_prob=0.25)
    assert multi.skip_prob == 0.25 and len(multi.aug_list) == 3
    assert sorted(a.min_object_covered for a in multi.aug_list) == [0.1, 0.3, 0.5]
    assert all(a.area_range == (0.2, 1.0) for a in multi.aug_list)
    assert json.loads(multi.aug_list[0].dumps())[0] == 'detrandomcropaug'
    crop = mx.image.DetRandomCropAug(aspect_ratio_range=1.0, area_range=0.5)
    assert crop.aspect_ratio_range == (1.0, 1.0) and crop.area_range == (0.5, 0.5)
    with pytest.warns(UserWarning):
        assert not mx.image.DetRandomCropAug(area_range=(0.8, 0.2)).enabled
    with pytest.warns(UserWarning):
        assert not mx.image.DetRandomPadAug(area_range=(1.0, 0.9)).enabled


def test_create_det_augmenter_order():
    augs = mx.image.CreateDetAugmenter((3, 20, 30), resize=40, rand_crop=0.5, rand_pad=0.5,
                                       rand_gray=0.1, rand_mirror=True, mean=True, std=True,
                                       brightness=0.1, hue=0.1, pca_noise=0.1)
    names = [a.dumps()[0] if isinstance(a.dumps(), list) else json.loads(a.dumps())[0]
             for a in augs]
    assert names == ['detborrowaug', 'detrandomselectaug', 'dethorizontalflipaug',
                     'detrandomselectaug', 'detborrowaug', 'detborrowaug', 'detborrowaug',
                     'detborrowaug', 'detborrowaug', 'detborrowaug', 'detborrowaug']
    inner = [a.augmenter.__class__.__name__.lower() for a in augs
             if isinstance(a, mx.image.DetBorrowAug)]
    assert inner == ['resizeaug', 'forceresizeaug', 'castaug', 'colorjitteraug', 'huejitteraug',
                     'lightingaug', 'randomgrayaug', 'colornormalizeaug']
    assert augs[4].augmenter.size == (30, 20)
    assert augs[3].aug_list[0].area_range == (1.0, 3.0)


def test_label_padding_sync_and_reshape(root):
    lst = _even_list()
    it = mx.image.ImageDetIter(2, (3, 16, 16), imglist=lst[:1], path_root=root)
    other = mx.image.ImageDetIter(2, (3, 16, 16), imglist=lst, path_root=root)
    assert it.label_shape == (1, 5) and other.label_shape == (3, 5)
    assert other.sync_label_shape(it) is it
    assert it.label_shape == (3, 5) and it.provide_label[0].shape == (2, 3, 5)
    lab = next(iter(it)).label[0].asnumpy()
    np.testing.assert_allclose(lab[0, 0], REF['label0'][2:7], rtol=1e-6)
    assert (lab[0, 1:] == -1).all()
    with pytest.raises(ValueError):
        it.reshape(label_shape=(2, 5))
    with pytest.raises(ValueError):
        it.reshape(label_shape=(4, 6))
    with pytest.raises(ValueError):
        it.reshape(label_shape=(4,))
    it.reshape(label_shape=(5, 5))
    it.reset()
    batch = next(iter(it))
    assert batch.label[0].shape == (2, 5, 5) and (batch.label[0].asnumpy()[0, 1:] == -1).all()
    # as in MXNet, the augmenters keep resizing to the shape given at construction
    it.reshape(data_shape=(3, 8, 10))
    assert it.provide_data[0].shape == (2, 3, 8, 10)
    with pytest.raises(ValueError):
        it.reshape(data_shape=(1, 8, 10))


def test_last_batch_roll_over(root):
    it = mx.image.ImageDetIter(2, (3, 16, 16), imglist=_even_list(), path_root=root,
                               last_batch_handle='roll_over')
    assert [b.pad for b in it] == [0]
    it.reset()
    first = next(iter(it))
    assert first.pad == 1  # MXNet reports the rolled-over batch's missing count
    lab = first.label[0].asnumpy()
    np.testing.assert_allclose(lab[0, 0], REF['label4'][2:7], rtol=1e-6)
    np.testing.assert_allclose(lab[1, 0], REF['label0'][2:7], rtol=1e-6)


@pytest.mark.parametrize('label, match', [
    ([2, 5, 0, .1, .1], 'at least 7'),
    ([2, 5, 0, .1, .1, .5, .5, 1], 'inconsistent'),
    ([2, 0, 0, .1, .1, .5, .5], 'inconsistent'),
    ([2, 4, 0, .1, .1, .5, .5, .6], 'inconsistent'),
    ([9, 5, 0, .1, .1, .5, .5], 'inconsistent'),
    ([2, 5, 0, .5, .1, .4, .5], 'no valid label'),
    ([float('nan'), 5, 0, .1, .1, .5, .5], 'inconsistent'),
    ([2, 1e12, 0, .1, .1, .5, .5], 'inconsistent'),
])
def test_bad_labels_raise(root, label, match):
    with pytest.raises(mx.base.MXNetError, match=match):
        mx.image.ImageDetIter(1, (3, 16, 16), imglist=[label + ['0.png']], path_root=root)


def test_bad_samples_are_skipped_in_batches(root):
    lst = _even_list()
    it = mx.image.ImageDetIter(2, (3, 16, 16), imglist=lst, path_root=root)
    # a label that became malformed after the shape was estimated, and a box that only
    # has a negative class id: both samples are skipped, as in MXNet
    it.imglist['1'] = (mx.nd.array([2, 5, 0, .1]), lst[0][-1])
    it.imglist['2'] = (mx.nd.array([2, 5, -1, .1, .1, .5, .5]), lst[1][-1])
    batches = list(it)
    assert len(batches) == 1 and batches[0].pad == 1


def test_empty_and_corrupt_inputs(root, tmp_path):
    with pytest.raises(mx.base.MXNetError, match='no image'):
        mx.image.ImageDetIter(1, (3, 16, 16), imglist=[], path_root=root)
    (tmp_path / 'bad.png').write_bytes(b'not an image at all')
    lst = [list(REF['label0']) + ['bad.png']]
    it = mx.image.ImageDetIter(1, (3, 16, 16), imglist=lst, path_root=str(tmp_path))
    with pytest.raises(RuntimeError, match='bad.png'):
        next(iter(it))


def test_draw_next(root):
    pytest.importorskip('cv2')
    it = mx.image.ImageDetIter(1, (3, 24, 24), imglist=_even_list(), path_root=root)
    images = list(it.draw_next(color=(255, 0, 0), id2labels={0: 'a'}))
    assert len(images) == 3 and images[0].shape == (24, 24, 3) and images[0].dtype == np.uint8
    assert (images[0][..., 0] == 0).any()  # the blue channel holds the red box's 0s (BGR)


def test_copy_make_border_isolated_flag():
    img = mx.nd.array(np.arange(2 * 3 * 3).reshape(2, 3, 3), dtype='uint8')
    a = mx.image.copyMakeBorder(img, 1, 2, 3, 1, 16, values=(5, 6, 7)).asnumpy()
    b = mx.image.copyMakeBorder(img, 1, 2, 3, 1, 0, values=(5, 6, 7)).asnumpy()
    np.testing.assert_array_equal(a, b)
    with pytest.raises(mx.base.MXNetError, match='type'):
        mx.image.copyMakeBorder(img, 1, 1, 1, 1, 5).wait_to_read()
