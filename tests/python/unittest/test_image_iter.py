"""mx.image.ImageIter and the Augmenter classes: batching and last_batch_handle, sources
(.rec, indexed .rec, image list), and augmenters against numpy references."""
import json
import os
import random

import numpy as np
import pytest

import mxnet as mx

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('OPENCV'),
                                reason='built without OpenCV')
N = 7


def _image(i):
    yy, xx = np.mgrid[0:12, 0:14]
    return np.stack([(xx * 9 + i * 30) % 256, (yy * 13) % 256, (xx + yy + i) % 256],
                    axis=2).astype(np.uint8)


@pytest.fixture(scope='module')
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp('imageiter')
    rec, idx = str(root / 'd.rec'), str(root / 'd.idx')
    w = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    lst = []
    for i in range(N):
        png = mx.image.imencode_np(_image(i)[:, :, ::-1], '.png', 3)
        w.write_idx(i, mx.recordio.pack((0, float(i), i, 0), png))
        with open(str(root / ('%d.png' % i)), 'wb') as f:
            f.write(png)
        lst.append('%d\t%f\t%d.png\n' % (i, 10 + i, i))
    w.close()
    with open(str(root / 'd.lst'), 'w') as f:
        f.writelines(lst)
    return str(root), rec, idx


def _labels(it):
    out = []
    for batch in it:
        out += list(batch.label[0].asnumpy()[:batch.data[0].shape[0] - batch.pad])
    return out


def test_rec_source_center_crop_and_pad(data):
    root, rec, _ = data
    it = mx.image.ImageIter(3, (3, 10, 12), path_imgrec=rec)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    first = batches[0].data[0].asnumpy()
    np.testing.assert_array_equal(first[1], _image(1)[1:11, 1:13].transpose(2, 0, 1))
    it.reset()
    assert _labels(it) == list(range(N))


def test_last_batch_discard_and_roll_over(data):
    _, rec, idx = data
    it = mx.image.ImageIter(3, (3, 10, 12), path_imgrec=rec, path_imgidx=idx,
                            last_batch_handle='discard')
    assert len(list(it)) == 2
    it = mx.image.ImageIter(3, (3, 10, 12), path_imgrec=rec, path_imgidx=idx,
                            last_batch_handle='roll_over')
    assert len(list(it)) == 2  # the 7th image waits for the next epoch
    it.reset()
    first = next(it)  # pad still says 2, as in MXNet 1.9.1, but the batch is full
    assert list(first.label[0].asnumpy()) == [6, 0, 1]


def test_shuffle_and_parts_with_index(data):
    _, rec, idx = data
    random.seed(0)
    it = mx.image.ImageIter(1, (3, 10, 12), path_imgrec=rec, path_imgidx=idx, shuffle=True)
    got = _labels(it)
    assert sorted(got) == list(range(N)) and got != list(range(N))
    seen = []
    for part in range(2):
        it = mx.image.ImageIter(1, (3, 10, 12), path_imgrec=rec, path_imgidx=idx,
                                num_parts=2, part_index=part)
        seen += _labels(it)
    assert sorted(seen) == list(range(6))  # 7 // 2 per part, as MXNet 1.9.1


def test_image_list_sources(data):
    root, _, _ = data
    it = mx.image.ImageIter(2, (3, 10, 12), path_imglist=os.path.join(root, 'd.lst'),
                            path_root=root)
    assert _labels(it)[:N] == [10.0 + i for i in range(N)]
    it = mx.image.ImageIter(2, (3, 10, 12), imglist=[[5.0, '1.png'], [[1.0], '2.png']],
                            path_root=root, label_width=1)
    batch = next(it)
    np.testing.assert_array_equal(batch.data[0].asnumpy()[0],
                                  _image(1)[1:11, 1:13].transpose(2, 0, 1))
    with pytest.raises(ValueError):
        mx.image.ImageIter(2, (1, 10, 12), path_imglist=os.path.join(root, 'd.lst'))


def test_create_augmenter_lists_and_dumps():
    augs = mx.image.CreateAugmenter((3, 8, 8), resize=10, rand_crop=True, rand_mirror=True,
                                    mean=True, std=True, brightness=0.1, hue=0.1, pca_noise=0.1,
                                    rand_gray=0.2)
    names = [type(a).__name__ for a in augs]
    assert names == ['ResizeAug', 'RandomCropAug', 'HorizontalFlipAug', 'CastAug',
                     'ColorJitterAug', 'HueJitterAug', 'LightingAug', 'RandomGrayAug',
                     'ColorNormalizeAug']
    assert json.loads(augs[0].dumps()) == ['resizeaug', {'size': 10, 'interp': 2}]
    img = mx.nd.array(_image(0), dtype='uint8')
    for a in augs:
        img = a(img)
    assert img.shape == (8, 8, 3) and img.dtype == np.float32


def test_color_augmenters_match_numpy():
    src = _image(3).astype(np.float32)
    random.seed(7)
    alpha = 1.0 + random.uniform(-0.4, 0.4)
    random.seed(7)
    out = mx.image.BrightnessJitterAug(0.4)(mx.nd.array(src)).asnumpy()
    np.testing.assert_allclose(out, src * alpha, rtol=1e-5)
    coef = np.array([0.299, 0.587, 0.114], np.float32)
    random.seed(8)
    alpha = 1.0 + random.uniform(-0.3, 0.3)
    random.seed(8)
    out = mx.image.SaturationJitterAug(0.3)(mx.nd.array(src)).asnumpy()
    gray = (src * coef).sum(axis=2, keepdims=True)
    np.testing.assert_allclose(out, src * alpha + gray * (1 - alpha), rtol=1e-4, atol=1e-3)
    random.seed(9)
    alpha = 1.0 + random.uniform(-0.3, 0.3)
    random.seed(9)
    out = mx.image.ContrastJitterAug(0.3)(mx.nd.array(src)).asnumpy()
    mean_gray = (src * coef).sum() * 3.0 / src.size
    np.testing.assert_allclose(out, src * alpha + mean_gray * (1 - alpha), rtol=1e-4, atol=1e-3)
    out = mx.image.HorizontalFlipAug(1.0)(mx.nd.array(src)).asnumpy()
    np.testing.assert_array_equal(out, src[:, ::-1])
    out = mx.image.ColorNormalizeAug([1, 2, 3], [2, 2, 4])(mx.nd.array(src)).asnumpy()
    np.testing.assert_allclose(out, (src - [1, 2, 3]) / [2, 2, 4], rtol=1e-6)
    out = mx.image.ForceResizeAug((5, 4))(mx.nd.array(src))
    assert out.shape == (4, 5, 3)
