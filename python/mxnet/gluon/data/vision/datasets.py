"""Vision datasets read from local files: MNIST, Fashion-MNIST (idx) and CIFAR-10/100 (binary
batches), downloaded only when nothing usable is found locally."""
import gzip
import os
import struct
import tarfile

import numpy as np

from .. import dataset
from ...utils import download, _get_repo_file_url
from .... import base, nd
from ....base import MXNetError

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100']

# Where Debian's dataset-fashion-mnist package puts the four idx files.
DEBIAN_FASHION_MNIST = '/usr/share/datasets/fashion-mnist'


class _DownloadedDataset(dataset.Dataset):
    """(data, label) pairs loaded once from files under `root`; `transform(data, label)`
    is applied on access."""

    def __init__(self, root, transform):
        super(_DownloadedDataset, self).__init__()
        self._transform = transform
        self._data = None
        self._label = None
        self._root = os.path.expanduser(root)
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError

    def _fetch(self, namespace, name, sha1):
        """Downloads one file into root, failing with a message that says where to put it."""
        os.makedirs(self._root, exist_ok=True)
        url = _get_repo_file_url('gluon/dataset/' + namespace, name)
        try:
            return download(url, path=self._root, sha1_hash=sha1)
        except Exception as err:  # pylint: disable=broad-except
            raise MXNetError('%s: %s is not in %s and downloading it from %s failed (%s). '
                             'Put the file there (gzipped or not) and retry.'
                             % (type(self).__name__, name, self._root, url, err))


def _read_idx(path, magic, dims):
    """The array of an idx file (gzipped when the name ends in .gz), checking its header."""
    opener = gzip.open if path.endswith('.gz') else open
    try:
        with opener(path, 'rb') as f:
            header = f.read(4 + 4 * dims)
            if len(header) < 4 + 4 * dims:
                raise MXNetError('idx file %s is truncated: no complete header' % path)
            fields = struct.unpack('>%dI' % (1 + dims), header)
            if fields[0] != magic:
                raise MXNetError('%s is not an idx file of %d dimension(s): magic 0x%08x, '
                                 'expected 0x%08x' % (path, dims, fields[0], magic))
            shape = fields[1:]
            body = f.read()
    except (OSError, EOFError) as err:
        raise MXNetError('cannot read idx file %s: %s' % (path, err))
    count = int(np.prod(shape))
    if len(body) != count:
        raise MXNetError('idx file %s holds %d bytes of data, its header %s says %d'
                         % (path, len(body), shape, count))
    return np.frombuffer(body, dtype=np.uint8).reshape(shape)


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits: data (28, 28, 1) uint8 NDArrays, labels int32.

    Reads the four idx files from `root`, gzipped or not; downloads only when they are
    missing there. `train` picks the 60,000 training or 10,000 test samples.
    """
    _namespace = 'mnist'
    _files = {True: (('train-images-idx3-ubyte.gz', '6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d'),
                     ('train-labels-idx1-ubyte.gz', '2a80914081dc54586dbdf242f9805a6b8d2a15fc')),
              False: (('t10k-images-idx3-ubyte.gz', 'c3a25af1f52dad7f726cce8cacb138654b760d48'),
                      ('t10k-labels-idx1-ubyte.gz', '763e7fa3757d93b0cdec073cef058b2004252c17'))}

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'mnist'),
                 train=True, transform=None):
        self._train = train
        self._default_root = os.path.join(base.data_dir(), 'datasets', self._namespace)
        super(MNIST, self).__init__(root, transform)

    def _local_dirs(self):
        return [self._root]

    def _find(self, name, sha1):
        for folder in self._local_dirs():
            for candidate in (name, name[:-len('.gz')]):
                path = os.path.join(folder, candidate)
                if os.path.isfile(path):
                    return path
        return self._fetch(self._namespace, name, sha1)

    def _get_data(self):
        (data_name, data_sha1), (label_name, label_sha1) = self._files[self._train]
        label = _read_idx(self._find(label_name, label_sha1), 0x801, 1).astype(np.int32)
        data = _read_idx(self._find(data_name, data_sha1), 0x803, 3)
        if data.shape[0] != label.shape[0]:
            raise MXNetError('%s: %d images but %d labels under %s'
                             % (type(self).__name__, data.shape[0], label.shape[0], self._root))
        data = data.reshape(data.shape + (1,))
        self._data = nd.array(data, dtype=data.dtype)
        self._label = label


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's clothing images), in MNIST's format and layout.

    With the default `root` and no files there, Debian's `dataset-fashion-mnist` package
    (/usr/share/datasets/fashion-mnist) is used when installed.
    """
    _namespace = 'fashion-mnist'
    _files = {True: (('train-images-idx3-ubyte.gz', '0cf37b0d40ed5169c6b3aba31069a9770ac9043d'),
                     ('train-labels-idx1-ubyte.gz', '236021d52f1e40852b06a4c3008d8de8aef1e40b')),
              False: (('t10k-images-idx3-ubyte.gz', '626ed6a7c06dd17c0eec72fa3be1740f146a2863'),
                      ('t10k-labels-idx1-ubyte.gz', '17f9ab60e7257a1620f4ad76bbbaf857c3920701'))}

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'fashion-mnist'),
                 train=True, transform=None):
        super(FashionMNIST, self).__init__(root, train, transform)

    def _local_dirs(self):
        dirs = [self._root]
        if os.path.abspath(self._root) == os.path.abspath(self._default_root) and \
                os.path.isdir(DEBIAN_FASHION_MNIST):
            dirs.append(DEBIAN_FASHION_MNIST)
        return dirs


class CIFAR10(_DownloadedDataset):
    """CIFAR-10: data (32, 32, 3) uint8 NDArrays, labels int32, from the binary batches
    under `root` (extracted from cifar-10-binary.tar.gz, downloaded when missing)."""
    _namespace = 'cifar10'
    _archive = ('cifar-10-binary.tar.gz', 'fab780a1e191a7eda0f345501ccd62d20f7ed891')
    _train_files = ['data_batch_%d.bin' % i for i in range(1, 6)]
    _test_files = ['test_batch.bin']
    _label_bytes = 1

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'cifar10'),
                 train=True, transform=None):
        self._train = train
        super(CIFAR10, self).__init__(root, transform)

    def _label_column(self):
        return 0

    def _read_batch(self, path):
        row = 3072 + self._label_bytes
        with open(path, 'rb') as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8)
        if raw.size == 0 or raw.size % row:
            raise MXNetError('%s: %s is not a CIFAR binary batch (%d bytes, not a multiple '
                             'of %d)' % (type(self).__name__, path, raw.size, row))
        raw = raw.reshape(-1, row)
        images = raw[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return images, raw[:, self._label_column()].astype(np.int32)

    def _get_data(self):
        names = self._train_files + self._test_files
        if not all(os.path.isfile(os.path.join(self._root, n)) for n in names):
            archive = self._fetch(self._namespace, *self._archive)
            with tarfile.open(archive) as tar:
                members = [m for m in tar.getmembers()
                           if m.isfile() and os.path.basename(m.name) in names]
                for member in members:
                    member.name = os.path.basename(member.name)
                    tar.extract(member, self._root)
        files = self._train_files if self._train else self._test_files
        parts = [self._read_batch(os.path.join(self._root, n)) for n in files]
        data = np.concatenate([p[0] for p in parts])
        self._data = nd.array(data, dtype=data.dtype)
        self._label = np.concatenate([p[1] for p in parts])


class CIFAR100(CIFAR10):
    """CIFAR-100: like CIFAR10, with the coarse (20) labels, or the fine (100) ones when
    `fine_label` is true."""
    _namespace = 'cifar100'
    _archive = ('cifar-100-binary.tar.gz', 'a0bb982c76b83111308126cc779a992fa506b90b')
    _train_files = ['train.bin']
    _test_files = ['test.bin']
    _label_bytes = 2

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'cifar100'),
                 fine_label=False, train=True, transform=None):
        self._fine_label = fine_label
        super(CIFAR100, self).__init__(root, train, transform)

    def _label_column(self):
        return 1 if self._fine_label else 0
