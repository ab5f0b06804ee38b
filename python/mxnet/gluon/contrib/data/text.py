"""Language-model datasets WikiText-2 and WikiText-103: the token files under `root` (or the
archive there, extracted), downloaded only when neither is present; each sample is a
(data, label) pair of `seq_len` token indices, label the data shifted by one token."""
import os
import shutil
import zipfile

import numpy as np

from ...data import dataset
from ...utils import download, _get_repo_file_url
from ....contrib import text
from .... import base, nd
from ....base import MXNetError

__all__ = ['WikiText2', 'WikiText103']

EOS_TOKEN = '<eos>'


class _WikiText(dataset.Dataset):
    """Reads `wiki.<segment>.tokens`: lines split on spaces, each line ending in '<eos>',
    indexed by `vocab` (built from this segment's tokens when None) and cut into rows of
    seq_len tokens (the tail that does not fill a row is dropped)."""
    _namespace = None
    _archive = None      # (file name, sha1)
    _segments = None     # segment -> (file name, sha1)

    def __init__(self, root, segment, vocab, seq_len):
        if segment not in self._segments:
            raise ValueError("%s: segment expected one of %s, given %r"
                             % (type(self).__name__, sorted(self._segments), segment))
        self._root = os.path.expanduser(root)
        self._segment = segment
        self._seq_len = seq_len
        self._vocab = vocab
        self._counter = None
        data, label = self._read(self._local_file())
        rows = len(data) // seq_len * seq_len
        self._data = nd.array(data[:rows], dtype=np.int32).reshape((-1, seq_len))
        self._label = nd.array(label[:rows], dtype=np.int32).reshape((-1, seq_len))

    @property
    def vocabulary(self):
        """The contrib.text.vocab.Vocabulary indexing the tokens."""
        return self._vocab

    @property
    def frequencies(self):
        """collections.Counter of this segment's tokens."""
        return self._counter

    def _local_file(self):
        name = self._segments[self._segment][0]
        path = os.path.join(self._root, name)
        if os.path.exists(path):
            return path
        archive_name, archive_sha1 = self._archive
        archive = os.path.join(self._root, archive_name)
        if not os.path.exists(archive):
            url = _get_repo_file_url('gluon/dataset/' + self._namespace, archive_name)
            try:
                os.makedirs(self._root, exist_ok=True)
                archive = download(url, path=self._root, sha1_hash=archive_sha1)
            except Exception as err:  # pylint: disable=broad-except
                raise MXNetError("%s: neither %s nor %s is in %s, and downloading %s failed "
                                 "(%s). Put the token files (or the archive) there and retry."
                                 % (type(self).__name__, name, archive_name, self._root, url,
                                    err))
        with zipfile.ZipFile(archive, 'r') as zf:
            for member in zf.namelist():
                base_name = os.path.basename(member)
                if base_name:
                    with zf.open(member) as src, \
                            open(os.path.join(self._root, base_name), 'wb') as dst:
                        shutil.copyfileobj(src, dst)
        if not os.path.exists(path):
            raise MXNetError("%s: archive %s holds no %s" % (type(self).__name__, archive, name))
        return path

    def _read(self, path):
        with open(path, 'r', encoding='utf8') as f:
            content = f.read()
        self._counter = text.utils.count_tokens_from_str(content)
        if self._vocab is None:
            self._vocab = text.vocab.Vocabulary(counter=self._counter,
                                                reserved_tokens=[EOS_TOKEN])
        tokens = []
        for line in content.splitlines():
            words = line.strip().split()
            if words:
                tokens.extend(words)
                tokens.append(EOS_TOKEN)
        indices = np.array(self._vocab.to_indices(tokens), dtype=np.int32)
        return indices[:-1], indices[1:]

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (https://einstein.ai/research/the-wikitext-long-term-dependency-language-
    modeling-dataset), segments 'train', 'validation', 'test'; files wiki.*.tokens or
    wikitext-2-v1.zip under `root` (default $MXNET_HOME/datasets/wikitext-2)."""
    _namespace = 'wikitext-2'
    _archive = ('wikitext-2-v1.zip', '3c914d17d80b1459be871a5039ac23e752a53cbe')
    _segments = {'train': ('wiki.train.tokens', '863f29c46ef9d167fff4940ec821195882fe29d1'),
                 'validation': ('wiki.valid.tokens',
                                '0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422'),
                 'test': ('wiki.test.tokens', 'c7b8ce0aa086fb34dab808c5c49224211eb2b172')}

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'wikitext-2'),
                 segment='train', vocab=None, seq_len=35):
        super(WikiText2, self).__init__(root, segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103, as WikiText2 (archive wikitext-103-v1.zip, default root
    $MXNET_HOME/datasets/wikitext-103)."""
    _namespace = 'wikitext-103'
    _archive = ('wikitext-103-v1.zip', '0aec09a7537b58d4bb65362fee27650eeaba625a')
    _segments = {'train': ('wiki.train.tokens', 'b7497e2dfe77e72cfef5e3dbc61b7b53712ac211'),
                 'validation': ('wiki.valid.tokens',
                                'c326ac59dc587676d58c422eb8a03e119582f92b'),
                 'test': ('wiki.test.tokens', '8a5befc548865cec54ed4273cf87dbbad60d1e47')}

    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'wikitext-103'),
                 segment='train', vocab=None, seq_len=35):
        super(WikiText103, self).__init__(root, segment, vocab, seq_len)
