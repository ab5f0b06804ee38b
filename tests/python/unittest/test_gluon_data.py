"""gluon.data: samplers, dataset views and the DataLoader in all its worker modes."""
import os
import pickle

import numpy as np
import pytest

import mxnet as mx
from mxnet import gluon
from mxnet.base import MXNetError
from mxnet.gluon.data import (ArrayDataset, BatchSampler, DataLoader, FilterSampler,
                              RandomSampler, SequentialSampler, SimpleDataset)
from mxnet.gluon.contrib.data import IntervalSampler


def test_sequential_sampler_counts_from_start():
    assert list(SequentialSampler(4, start=3)) == [3, 4, 5, 6]
    assert len(SequentialSampler(4, start=3)) == 4


def test_random_sampler_is_a_permutation_driven_by_numpy_seed():
    np.random.seed(3)
    first = list(RandomSampler(50))
    np.random.seed(3)
    assert list(RandomSampler(50)) == first
    assert sorted(first) == list(range(50)) and first != list(range(50))


@pytest.mark.parametrize('last_batch,expected', [
    ('keep', [[0, 1, 2], [3, 4, 5], [6]]),
    ('discard', [[0, 1, 2], [3, 4, 5]]),
])
def test_batch_sampler_last_batch(last_batch, expected):
    sampler = BatchSampler(SequentialSampler(7), 3, last_batch)
    assert list(sampler) == expected
    assert len(sampler) == len(expected)


def test_batch_sampler_rollover_carries_the_rest_into_the_next_pass():
    sampler = BatchSampler(SequentialSampler(7), 3, 'rollover')
    assert list(sampler) == [[0, 1, 2], [3, 4, 5]]
    assert len(sampler) == 2  # (1 carried + 7) // 3
    assert list(sampler) == [[6, 0, 1], [2, 3, 4]]


def test_batch_sampler_rejects_unknown_last_batch():
    with pytest.raises(ValueError, match='last_batch'):
        list(BatchSampler(SequentialSampler(4), 3, 'drop'))


def test_interval_sampler_visits_every_index_once_with_rollover():
    assert list(IntervalSampler(10, 3)) == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    assert list(IntervalSampler(10, 3, rollover=False)) == [0, 3, 6, 9]
    assert len(IntervalSampler(10, 3, rollover=False)) == 4


def test_filter_sampler_and_dataset_filter():
    data = SimpleDataset(list(range(20)))
    assert list(FilterSampler(lambda x: x % 5 == 0, data)) == [0, 5, 10, 15]
    assert list(data.transform(lambda x: x * 3).filter(lambda x: x % 2 == 0)) == \
        [0, 6, 12, 18, 24, 30, 36, 42, 48, 54]


def test_shard_splits_contiguously_with_larger_first_shards():
    data = SimpleDataset(list(range(10)))
    shards = [list(data.shard(4, i)) for i in range(4)]
    assert shards == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]


def test_take_and_sample():
    data = SimpleDataset(list(range(10)))
    assert list(data.take(3)) == [0, 1, 2]
    assert len(data.take(None)) == 10 and len(data.take(100)) == 10
    assert list(data.sample(SequentialSampler(3, 5))) == [5, 6, 7]
    with pytest.raises(TypeError, match='Invalid sampler type'):
        data.sample([1, 2])


def test_transform_first_and_eager_transform():
    data = ArrayDataset(np.arange(4), np.arange(4) * 10)
    first = data.transform_first(lambda x: x + 100)
    assert first[2] == (102, 20)
    calls = []
    eager = SimpleDataset([1, 2, 3]).transform(lambda x: calls.append(x) or x * 2, lazy=False)
    assert calls == [1, 2, 3] and list(eager) == [2, 4, 6]


def test_array_dataset_zips_and_keeps_1d_ndarrays_as_scalars():
    x = mx.nd.array(np.arange(12).reshape(4, 3))
    y = mx.nd.array([5, 6, 7, 8])
    data = ArrayDataset(x, y)
    sample_x, sample_y = data[1]
    assert isinstance(sample_x, mx.nd.NDArray) and sample_x.asnumpy().tolist() == [3, 4, 5]
    assert isinstance(sample_y, np.floating) and sample_y == 6
    with pytest.raises(AssertionError, match='same length'):
        ArrayDataset(np.zeros(3), np.zeros(4))


def _batches(loader):
    out = []
    for batch in loader:
        fields = batch if isinstance(batch, list) else [batch]
        out.append([f.asnumpy() if isinstance(f, mx.nd.NDArray) else f for f in fields])
    return out


def _image_dataset():
    rng = np.random.RandomState(0)
    return ArrayDataset(mx.nd.array(rng.rand(23, 3, 4)), rng.randint(0, 9, 23).astype('int32'))


def test_default_batchify_stacks_ndarrays_and_keeps_numpy_dtype():
    batch = DataLoader(_image_dataset(), batch_size=5)
    data, label = next(iter(batch))
    assert data.shape == (5, 3, 4) and data.dtype == np.float32
    assert label.shape == (5,) and label.dtype == np.int32


@pytest.mark.parametrize('thread_pool', [False, True])
def test_workers_yield_exactly_the_batches_of_the_main_process(thread_pool):
    data = _image_dataset()
    reference = _batches(DataLoader(data, batch_size=4, last_batch='keep'))
    loader = DataLoader(data, batch_size=4, last_batch='keep', num_workers=2,
                        thread_pool=thread_pool)
    for _ in range(2):  # the pool serves several epochs
        got = _batches(loader)
        assert len(got) == len(reference) == 6
        for g, r in zip(got, reference):
            for gf, rf in zip(g, r):
                assert gf.dtype == rf.dtype
                np.testing.assert_array_equal(gf, rf)


def test_shuffled_workers_match_main_process_under_the_same_seed():
    data = _image_dataset()
    np.random.seed(7)
    reference = _batches(DataLoader(data, batch_size=6, shuffle=True))
    np.random.seed(7)
    got = _batches(DataLoader(data, batch_size=6, shuffle=True, num_workers=2))
    for g, r in zip(got, reference):
        np.testing.assert_array_equal(g[0], r[0])


def test_process_worker_batches_come_from_shared_memory_and_leave_none_behind():
    before = set(os.listdir('/dev/shm'))
    loader = DataLoader(_image_dataset(), batch_size=4, num_workers=2)
    for data, label in loader:
        assert data.context == mx.Context('cpu_shared', 0)
        (data + 1).wait_to_read()  # usable with ordinary cpu arrays' ops
    it = iter(loader)
    next(it)
    del it  # abandoned mid-epoch: its prefetched batches are freed too
    del loader
    leaked = [n for n in set(os.listdir('/dev/shm')) - before if n.startswith(('psm_', 'mxdl_'))]
    assert leaked == []


class _Failing(gluon.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        if idx == 5:
            raise KeyError('sample %d is broken' % idx)
        return np.full((2,), idx, dtype='float32')


class _Dying(_Failing):
    def __getitem__(self, idx):
        if idx == 5:
            os._exit(3)
        return np.full((2,), idx, dtype='float32')


@pytest.mark.parametrize('thread_pool', [False, True])
def test_worker_exception_reraises_in_the_parent(thread_pool):
    loader = DataLoader(_Failing(), batch_size=2, num_workers=2, thread_pool=thread_pool)
    with pytest.raises(KeyError, match='sample 5 is broken'):
        for _ in loader:
            pass


def test_dead_worker_is_reported_not_waited_for():
    loader = DataLoader(_Dying(), batch_size=2, num_workers=2, timeout=60)
    with pytest.raises(MXNetError, match='exited unexpectedly with exit code 3'):
        for _ in loader:
            pass


class _Slow(_Failing):
    def __getitem__(self, idx):
        import time
        time.sleep(5)
        return np.zeros(2, dtype='float32')


def test_timeout_raises_instead_of_hanging():
    import multiprocessing
    loader = DataLoader(_Slow(), batch_size=2, num_workers=1, timeout=0.5)
    with pytest.raises(multiprocessing.TimeoutError, match='timed out after 0.5 seconds'):
        next(iter(loader))


def test_unpicklable_batchify_and_dataset_work_through_fork():
    data = SimpleDataset([np.full((3,), i, dtype='float32') for i in range(6)])
    loader = DataLoader(data, batch_size=3, num_workers=2,
                        batchify_fn=lambda samples: mx.nd.array(np.stack(samples) * 2))
    got = _batches(loader)
    np.testing.assert_array_equal(got[1][0], np.repeat(np.arange(3, 6)[:, None] * 2., 3, 1))


def test_pin_memory_returns_pinned_batches():
    loader = DataLoader(ArrayDataset(np.zeros((4, 2))), batch_size=2, pin_memory=True)
    assert all(b.context == mx.cpu_pinned(0) for b in loader)


def test_batch_sampler_excludes_the_other_arguments():
    sampler = BatchSampler(SequentialSampler(4), 2)
    with pytest.raises(ValueError, match='must not be specified'):
        DataLoader(SimpleDataset([1, 2, 3, 4]), batch_size=2, batch_sampler=sampler)
    with pytest.raises(ValueError, match='batch_size must be specified'):
        DataLoader(SimpleDataset([1, 2, 3, 4]))
    with pytest.raises(ValueError, match='shuffle must not be specified'):
        DataLoader(SimpleDataset([1, 2]), 1, shuffle=True, sampler=SequentialSampler(2))


def test_auto_reload_prefetches_the_next_epoch():
    loader = DataLoader(SimpleDataset(list(range(6))), batch_size=4, num_workers=1,
                        batchify_fn=lambda s: list(s), auto_reload=True)
    assert [b for b in loader] == [[0, 1, 2, 3], [4, 5]]
    assert loader._iter is not None  # pylint: disable=protected-access
    assert [b for b in loader] == [[0, 1, 2, 3], [4, 5]]


def test_split_data_uneven_and_along_another_axis():
    x = mx.nd.array(np.arange(14).reshape(7, 2))
    parts = gluon.utils.split_data(x, 3, even_split=False)
    assert [p.shape[0] for p in parts] == [3, 2, 2]
    with pytest.raises(ValueError, match='cannot be evenly split'):
        gluon.utils.split_data(x, 3)
    cols = gluon.utils.split_data(x, 2, batch_axis=1)
    np.testing.assert_array_equal(cols[1].asnumpy(), np.arange(14).reshape(7, 2)[:, 1:])


def test_split_and_load_places_slices_on_each_context():
    parts = gluon.utils.split_and_load(np.ones((4, 2)), [mx.cpu(0), mx.cpu(1)])
    assert [p.context for p in parts] == [mx.cpu(0), mx.cpu(1)]


def test_clip_global_norm_scales_all_arrays_together():
    a, b = np.array([3., 0.]), np.array([[4.]])
    arrays = [mx.nd.array(a), mx.nd.array(b)]
    norm = gluon.utils.clip_global_norm(arrays, 1.0)
    assert norm == pytest.approx(5.0)
    np.testing.assert_allclose(arrays[0].asnumpy(), a / 5, rtol=1e-5)
    small = [mx.nd.array([0.1])]
    gluon.utils.clip_global_norm(small, 1.0)
    np.testing.assert_allclose(small[0].asnumpy(), [0.1], rtol=1e-5)
    with pytest.warns(UserWarning, match='nan or inf'):
        gluon.utils.clip_global_norm([mx.nd.array([np.inf])], 1.0)


def test_check_sha1_and_download_never_touches_an_existing_file(tmp_path, monkeypatch):
    target = tmp_path / 'data.bin'
    target.write_bytes(b'local copy')
    import hashlib
    assert gluon.utils.check_sha1(str(target), hashlib.sha1(b'local copy').hexdigest())

    def no_network(*args, **kwargs):
        raise AssertionError('download must not be attempted for an existing file')
    requests = pytest.importorskip('requests')
    monkeypatch.setattr(requests, 'get', no_network)
    assert gluon.utils.download('http://example.invalid/data.bin', path=str(tmp_path)) == \
        str(target)
    assert target.read_bytes() == b'local copy'


def test_download_failure_raises_and_keeps_the_old_file(tmp_path, monkeypatch):
    requests = pytest.importorskip('requests')
    target = tmp_path / 'model.params'
    target.write_bytes(b'old')

    def offline(*args, **kwargs):
        raise requests.exceptions.ConnectionError('no network')
    monkeypatch.setattr(requests, 'get', offline)
    with pytest.raises(requests.exceptions.ConnectionError):
        gluon.utils.download('http://example.invalid/model.params', path=str(target),
                             overwrite=True, retries=1)
    assert target.read_bytes() == b'old'
    assert sorted(os.listdir(tmp_path)) == ['model.params']


def test_hook_handle_detaches_and_pickles():
    import collections
    hooks = collections.OrderedDict()
    handle = gluon.utils.HookHandle()
    handle.attach(hooks, print)
    assert list(hooks.values()) == [print]
    with handle:
        pass
    assert not hooks
    pickle.loads(pickle.dumps(handle)).detach()


def _write_idx(path, array, magic):
    import gzip
    import struct
    header = struct.pack('>%dI' % (1 + array.ndim), magic, *array.shape)
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'wb') as f:
        f.write(header + array.astype(np.uint8).tobytes())


@pytest.mark.parametrize('gz', [True, False])
def test_mnist_reads_local_idx_files_gzipped_or_not(tmp_path, gz):
    rng = np.random.RandomState(1)
    images, labels = rng.randint(0, 256, (5, 28, 28)), rng.randint(0, 10, 5)
    suffix = '.gz' if gz else ''
    _write_idx(str(tmp_path / ('t10k-images-idx3-ubyte' + suffix)), images, 0x803)
    _write_idx(str(tmp_path / ('t10k-labels-idx1-ubyte' + suffix)), labels, 0x801)
    data = gluon.data.vision.MNIST(root=str(tmp_path), train=False,
                                   transform=lambda x, y: (x.astype('float32') / 255, y))
    assert len(data) == 5
    x, y = data[3]
    assert x.shape == (28, 28, 1) and y == labels[3] and data._label.dtype == np.int32
    np.testing.assert_allclose(x.asnumpy()[:, :, 0], images[3] / 255., rtol=1e-6)


def test_mnist_rejects_corrupt_files_with_the_file_name(tmp_path):
    _write_idx(str(tmp_path / 't10k-labels-idx1-ubyte'), np.zeros(4), 0x801)
    (tmp_path / 't10k-images-idx3-ubyte').write_bytes(b'\x00\x00\x08\x03\x00\x00')
    with pytest.raises(MXNetError, match='t10k-images-idx3-ubyte is truncated'):
        gluon.data.vision.MNIST(root=str(tmp_path), train=False)
    _write_idx(str(tmp_path / 't10k-images-idx3-ubyte'), np.zeros((4, 28, 28)), 0x801)
    with pytest.raises(MXNetError, match='magic'):
        gluon.data.vision.MNIST(root=str(tmp_path), train=False)
    _write_idx(str(tmp_path / 't10k-images-idx3-ubyte'), np.zeros((3, 28, 28)), 0x803)
    with pytest.raises(MXNetError, match='3 images but 4 labels'):
        gluon.data.vision.MNIST(root=str(tmp_path), train=False)


def test_missing_dataset_without_network_fails_clearly(tmp_path, monkeypatch):
    requests = pytest.importorskip('requests')

    def offline(*args, **kwargs):
        raise requests.exceptions.ConnectionError('no network')
    monkeypatch.setattr(requests, 'get', offline)
    with pytest.raises(MXNetError, match='is not in .* and downloading it .* failed'):
        gluon.data.vision.MNIST(root=str(tmp_path / 'empty'), train=False)


@pytest.mark.skipif(not os.path.isdir('/usr/share/datasets/fashion-mnist'),
                    reason="Debian's dataset-fashion-mnist is not installed")
def test_fashion_mnist_default_root_falls_back_to_the_debian_package(tmp_path, monkeypatch):
    monkeypatch.setenv('MXNET_HOME', str(tmp_path))
    root = os.path.join(str(tmp_path), 'datasets', 'fashion-mnist')
    test = gluon.data.vision.FashionMNIST(root=root, train=False)
    assert len(test) == 10000 and test[0][0].shape == (28, 28, 1)
    assert sorted(set(test._label.tolist())) == list(range(10))


@pytest.mark.parametrize('fine', [False, True])
def test_cifar100_binary_batches_and_label_choice(tmp_path, fine):
    rng = np.random.RandomState(2)
    rows = rng.randint(0, 256, (4, 3074)).astype(np.uint8)
    for name in ('train.bin', 'test.bin'):
        (tmp_path / name).write_bytes(rows.tobytes())
    data = gluon.data.vision.CIFAR100(root=str(tmp_path), fine_label=fine, train=False)
    x, y = data[2]
    assert x.shape == (32, 32, 3) and y == rows[2, 1 if fine else 0]
    np.testing.assert_array_equal(x.asnumpy(), rows[2, 2:].reshape(3, 32, 32).transpose(1, 2, 0))
    (tmp_path / 'test.bin').write_bytes(b'\x01' * 100)
    with pytest.raises(MXNetError, match='not a CIFAR binary batch'):
        gluon.data.vision.CIFAR100(root=str(tmp_path), train=False)
