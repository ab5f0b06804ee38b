"""mx.io: DataDesc, DataBatch, NDArrayIter's last-batch modes, ResizeIter, PrefetchingIter."""
import numpy as np
import pytest

import mxnet as mx


def _epoch(it):
    return [(b.data[0].asnumpy().ravel().tolist(), b.pad) for b in it]


def test_datadesc_is_a_name_shape_tuple_with_dtype_and_layout():
    desc = mx.io.DataDesc('data', (4, 3), layout='NC')
    name, shape = desc
    assert (name, shape, desc.dtype, desc.layout) == ('data', (4, 3), np.float32, 'NC')
    assert mx.io.DataDesc.get_batch_axis('TNC') == 1 and mx.io.DataDesc.get_batch_axis(None) == 0
    descs = mx.io.DataDesc.get_list([('a', (1,)), ('b', (2,))], [('a', np.int32), ('b', np.uint8)])
    assert [d.dtype for d in descs] == [np.int32, np.uint8]


def test_databatch_checks_lists_and_prints_shapes():
    batch = mx.io.DataBatch([mx.nd.zeros((2, 3))], [mx.nd.zeros((2,))], pad=1)
    assert str(batch) == 'DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]'
    with pytest.raises(AssertionError, match='list of NDArrays'):
        mx.io.DataBatch(mx.nd.zeros((2,)))


def test_ndarray_iter_pad_wraps_to_the_start():
    it = mx.io.NDArrayIter(np.arange(5), batch_size=2)
    assert _epoch(it) == [([0, 1], 0), ([2, 3], 0), ([4, 0], 1)]


def test_ndarray_iter_pad_larger_than_the_data_repeats_it():
    it = mx.io.NDArrayIter(np.arange(2), batch_size=5)
    assert _epoch(it) == [([0, 1, 0, 1, 0], 3)]


def test_ndarray_iter_discard_drops_the_short_batch():
    it = mx.io.NDArrayIter(np.arange(5), batch_size=2, last_batch_handle='discard')
    assert _epoch(it) == [([0, 1], 0), ([2, 3], 0)]


def test_ndarray_iter_roll_over_opens_the_next_epoch_with_the_rest():
    it = mx.io.NDArrayIter(np.arange(5), batch_size=2, last_batch_handle='roll_over')
    assert _epoch(it) == [([0, 1], 0), ([2, 3], 0)]
    it.reset()
    assert _epoch(it) == [([4, 0], 1), ([1, 2], 0), ([3, 4], 0)]
    it.hard_reset()
    assert _epoch(it)[0] == ([0, 1], 0)


def test_ndarray_iter_names_sort_and_descriptors():
    it = mx.io.NDArrayIter({'b': np.zeros((6, 3)), 'a': np.ones((6, 2))},
                           [np.zeros(6), np.zeros(6)], batch_size=4)
    assert [d.name for d in it.provide_data] == ['a', 'b']
    assert it.provide_data[1].shape == (4, 3)
    assert [d.name for d in it.provide_label] == ['_0_softmax_label', '_1_softmax_label']
    single = mx.io.NDArrayIter(np.zeros((6, 2)), np.zeros(6), 3, data_name='x', label_name='y')
    assert single.provide_data[0].name == 'x' and single.provide_label[0].name == 'y'


def test_ndarray_iter_shuffle_keeps_data_and_label_aligned():
    np.random.seed(0)
    x = np.arange(10)
    it = mx.io.NDArrayIter(x, x * 10, batch_size=5, shuffle=True)
    seen = []
    for batch in it:
        d, l = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        np.testing.assert_array_equal(l, d * 10)
        seen += d.tolist()
    assert sorted(seen) == list(range(10)) and seen != list(range(10))


def test_ndarray_iter_rejects_bad_arguments():
    with pytest.raises(ValueError, match='last_batch_handle'):
        mx.io.NDArrayIter(np.zeros(4), batch_size=2, last_batch_handle='keep')
    with pytest.raises(ValueError, match='has 4 samples, softmax_label has only 3'):
        mx.io.NDArrayIter(np.zeros(4), np.zeros(3), batch_size=2)


def test_ndarray_iter_reads_longer_labels_up_to_the_data_count():
    it = mx.io.NDArrayIter(np.arange(4), np.arange(10, 20), batch_size=2)
    batches = [(b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist()) for b in it]
    assert batches == [([0, 1], [10, 11]), ([2, 3], [12, 13])]
    with pytest.raises(TypeError, match='Invalid type'):
        mx.io.NDArrayIter({'data': object()}, batch_size=2)


def test_resize_iter_restarts_or_cuts_the_inner_iterator():
    inner = mx.io.NDArrayIter(np.arange(4), batch_size=2)
    assert [b[0] for b in _epoch(mx.io.ResizeIter(inner, 3))] == [[0, 1], [2, 3], [0, 1]]
    short = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(8), batch_size=2), 2)
    assert len(_epoch(short)) == 2
    short.reset()
    assert _epoch(short)[0][0] == [0, 1]


def test_prefetching_iter_joins_iterators_and_renames():
    a = mx.io.NDArrayIter(np.arange(4), np.arange(4), batch_size=2)
    b = mx.io.NDArrayIter(np.arange(4) + 10, np.arange(4), batch_size=2)
    it = mx.io.PrefetchingIter([a, b], rename_data=[{'data': 'x'}, {'data': 'y'}])
    assert [d.name for d in it.provide_data] == ['x', 'y']
    batches = [[d.asnumpy().tolist() for d in batch.data] for batch in it]
    assert batches == [[[0, 1], [10, 11]], [[2, 3], [12, 13]]]
    it.reset()
    assert len(list(it)) == 2


def test_prefetching_iter_surfaces_errors_of_the_inner_iterator():
    class Broken(mx.io.NDArrayIter):
        def next(self):
            raise IOError('disk gone')
    it = mx.io.PrefetchingIter(Broken(np.arange(4), batch_size=2))
    with pytest.raises(IOError, match='disk gone'):
        next(it)


# ---- csr data (MXNet 1.9.1: CSRNDArray / scipy csr batches, last_batch_handle='discard')
def _csr_rows():
    import scipy.sparse as sps
    dense = np.zeros((10, 4), dtype=np.float32)
    dense[[0, 3, 4, 7, 9], [1, 0, 3, 2, 1]] = [1, 2, 3, 4, 5]
    return dense, sps.csr_matrix(dense)


def test_ndarray_iter_csr_needs_discard():
    dense, sp = _csr_rows()
    for data in (mx.nd.sparse.csr_matrix(sp), sp):
        with pytest.raises(NotImplementedError):
            mx.io.NDArrayIter({'data': data}, dense, 3)


def test_ndarray_iter_csr_batches_in_order_and_shuffled():
    dense, sp = _csr_rows()
    batches = list(mx.io.NDArrayIter(mx.nd.sparse.csr_matrix(sp), dense, 3,
                                     last_batch_handle='discard'))
    assert len(batches) == 3
    for i, b in enumerate(batches):
        assert b.data[0].stype == 'csr'
        np.testing.assert_array_equal(b.data[0].asnumpy(), dense[i * 3:(i + 1) * 3])
    shuffled = mx.io.NDArrayIter({'csr': sp, 'dns': dense}, None, 4, shuffle=True,
                                 last_batch_handle='discard')
    seen = []
    for b in shuffled:
        assert b.data[0].stype == 'csr' and b.data[1].stype == 'default'
        np.testing.assert_array_equal(b.data[0].asnumpy(), b.data[1].asnumpy())
        seen.append(b.data[1].asnumpy())
    assert len(seen) == 2
