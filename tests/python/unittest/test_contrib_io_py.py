"""mx.contrib.io.DataLoaderIter: a gluon DataLoader as a DataIter (names, dtype, padding)."""
import numpy as np

import mxnet as mx
from mxnet import nd
from mxnet.contrib.io import DataLoaderIter


def test_dataloader_iter_pads_the_last_batch():
    dataset = mx.gluon.data.ArrayDataset(nd.arange(70).reshape((10, 7)), nd.arange(10))
    it = DataLoaderIter(mx.gluon.data.DataLoader(dataset, 4, last_batch='keep'),
                        dtype='float16')
    assert it.provide_data[0].name == 'data' and it.provide_data[0].shape == (4, 7)
    assert it.provide_label[0].name == 'softmax_label'
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    assert batches[2].data[0].shape == (4, 7) and batches[2].data[0].dtype == np.float16
    np.testing.assert_array_equal(batches[2].label[0].asnumpy()[:2], [8, 9])
    it.reset()
    assert len(list(it)) == 3
