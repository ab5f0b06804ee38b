"""gluon.data.vision ImageRecordDataset, ImageFolderDataset and ImageListDataset."""
import os
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet.gluon.data import vision

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('OPENCV'),
                                reason='built without OpenCV')


def _image(i):
    yy, xx = np.mgrid[0:6, 0:5]
    return np.stack([xx * 40 + i, yy * 30, xx + yy + i], axis=2).astype(np.uint8)


@pytest.fixture(scope='module')
def tree(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('gluonimg'))
    for c, cls in enumerate(['bus', 'car']):
        os.makedirs(os.path.join(root, 'tree', cls))
        for i in range(3):
            with open(os.path.join(root, 'tree', cls, '%d.png' % i), 'wb') as f:
                f.write(mx.image.imencode_np(_image(3 * c + i)[:, :, ::-1], '.png', 3))
    open(os.path.join(root, 'tree', 'car', 'notes.txt'), 'w').write('x')
    open(os.path.join(root, 'tree', 'README'), 'w').write('x')
    return root


def test_image_folder_dataset(tree):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        ds = vision.ImageFolderDataset(os.path.join(tree, 'tree'))
    assert len(caught) == 2
    assert ds.synsets == ['bus', 'car'] and len(ds) == 6
    img, label = ds[4]
    assert label == 1
    np.testing.assert_array_equal(img.asnumpy(), _image(4))
    gray, _ = vision.ImageFolderDataset(os.path.join(tree, 'tree'), flag=0)[0]
    assert gray.shape == (6, 5, 1)
    ds = vision.ImageFolderDataset(os.path.join(tree, 'tree'),
                                   transform=lambda d, l: (d.astype('float32') / 255, l + 10))
    assert ds[0][1] == 10 and ds[0][0].dtype == np.float32


def test_image_record_dataset(tree, tmp_path):
    rec = str(tmp_path / 'r.rec')
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'r.idx'), rec, 'w')
    for i in range(4):
        label = float(i) if i < 3 else [1.0, 2.0]
        w.write_idx(i, mx.recordio.pack_img((0, label, i, 0), _image(i)[:, :, ::-1],
                                            img_fmt='.png'))
    w.close()
    ds = vision.ImageRecordDataset(rec)
    assert len(ds) == 4
    img, label = ds[2]
    np.testing.assert_array_equal(img.asnumpy(), _image(2))
    assert label == 2.0
    assert list(ds[3][1]) == [1.0, 2.0]
    loader = mx.gluon.data.DataLoader(ds.transform_first(lambda x: x.astype('float32')),
                                      batch_size=3, last_batch='discard')
    data, labels = next(iter(loader))
    assert data.shape == (3, 6, 5, 3) and list(labels.asnumpy()) == [0, 1, 2]


def test_image_list_dataset(tree, tmp_path):
    lst = str(tmp_path / 'l.lst')
    with open(lst, 'w') as f:
        f.write('0\t1.000000\tbus/1.png\n1\t2.000000\t3.000000\tcar/0.png\n')
    ds = vision.ImageListDataset(os.path.join(tree, 'tree'), lst)
    assert len(ds) == 2 and ds[0][1] == 1.0
    np.testing.assert_array_equal(ds[1][0].asnumpy(), _image(3))
    assert list(ds[1][1]) == [2.0, 3.0]
    ds = vision.ImageListDataset(os.path.join(tree, 'tree'), [[5, 'bus/2.png']], flag=0)
    assert ds[0][1] == 5.0 and ds[0][0].shape == (6, 5, 1)
    with pytest.raises(ValueError):
        vision.ImageListDataset(os.path.join(tree, 'tree'))
