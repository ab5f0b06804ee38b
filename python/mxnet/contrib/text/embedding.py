"""Token embeddings: vectors indexed like a Vocabulary (index 0 the unknown token).
CustomEmbedding reads a local text file of `token v1 v2 ...` lines; GloVe and FastText read
MXNet 1.9.1's pretrained files from `embedding_root`, downloading them only when absent;
CompositeEmbedding concatenates embeddings over a Vocabulary's tokens. `register`, `create`
and `get_pretrained_file_names` work on the embedding registry."""
import json
import logging
import os
import tarfile
import warnings
import zipfile

from . import vocab
from ... import base, registry
from ... import ndarray as nd
from ...base import MXNetError

__all__ = ['register', 'create', 'get_pretrained_file_names', 'GloVe', 'FastText',
           'CustomEmbedding', 'CompositeEmbedding']

UNKNOWN_IDX = 0
APACHE_REPO_URL = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/'

with open(os.path.join(os.path.dirname(__file__), 'pretrained_files.json')) as _f:
    _PRETRAINED = json.load(_f)


def register(embedding_cls):
    """Class decorator: makes `embedding_cls` creatable by its lower-case name."""
    return registry.get_register_func(_TokenEmbedding, 'token embedding')(embedding_cls)


def create(embedding_name, **kwargs):
    """The registered embedding `embedding_name` built with kwargs."""
    return registry.get_create_func(_TokenEmbedding, 'token embedding')(embedding_name,
                                                                         **kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pretrained file names of one registered embedding, or {name: files} of all."""
    table = registry.get_registry(_TokenEmbedding)
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1.keys()) for name, cls in table.items()}
    if embedding_name not in table:
        raise KeyError('Cannot find `embedding_name` %s. Use `get_pretrained_file_names('
                       'embedding_name=None).keys()` to get all the valid embedding names.'
                       % embedding_name)
    return list(table[embedding_name].pretrained_file_name_sha1.keys())


class _TokenEmbedding(vocab.Vocabulary):
    """Base of the embeddings: a Vocabulary plus idx_to_vec (len(self), vec_len)."""
    pretrained_file_name_sha1 = {}

    def __init__(self, **kwargs):
        super(_TokenEmbedding, self).__init__(**kwargs)
        self._vec_len = None
        self._idx_to_vec = None

    # ---- pretrained files

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        repo = os.environ.get('MXNET_GLUON_REPO', APACHE_REPO_URL)
        return '{}gluon/embeddings/{}/{}'.format(repo, cls.__name__.lower(),
                                                 cls._get_download_file_name(
                                                     pretrained_file_name))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """<embedding_root>/<class name>/<file>: used when present with the right SHA-1,
        else downloaded (and extracted from its archive)."""
        from ...gluon.utils import check_sha1, download
        folder = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        path = os.path.join(folder, pretrained_file_name)
        file_sha1 = cls.pretrained_file_name_sha1[pretrained_file_name]
        if os.path.exists(path) and check_sha1(path, file_sha1):
            return path
        url = cls._get_pretrained_file_url(pretrained_file_name)
        fetched = os.path.join(folder, os.path.basename(url))
        archives = getattr(cls, 'pretrained_archive_name_sha1', None)
        fetched_sha1 = archives[os.path.basename(url)] if archives else file_sha1
        try:
            download(url, fetched, sha1_hash=fetched_sha1)
        except Exception as err:  # pylint: disable=broad-except
            raise MXNetError('%s: %s is not in %s and downloading %s failed (%s). Put the '
                             'file (or its archive) there and retry.'
                             % (cls.__name__, pretrained_file_name, folder, url, err))
        ext = os.path.splitext(fetched)[1]
        if ext == '.zip':
            with zipfile.ZipFile(fetched, 'r') as zf:
                zf.extractall(folder)
        elif ext == '.gz':
            with tarfile.open(fetched, 'r:gz') as tar:
                tar.extractall(path=folder)
        return path

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError('Cannot find pretrained file %s for token embedding %s. Valid '
                           'pretrained files for embedding %s: %s'
                           % (pretrained_file_name, name, name,
                              ', '.join(cls.pretrained_file_name_sha1.keys())))

    # ---- loading

    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec,
                        encoding='utf8'):
        """Appends the file's tokens (after the unknown and reserved ones) and sets
        idx_to_vec. A line for the unknown token gives its vector (else init_unknown_vec);
        repeated tokens and one-number lines (headers) are skipped with a warning; every
        vector must have the length of the first (AssertionError otherwise)."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError('`pretrained_file_path` must be a valid path to the pre-trained '
                             'token embedding file.')
        logging.info('Loading pre-trained token embedding vectors from %s', path)
        vec_len = None
        rows = []
        seen = set()
        unknown_vec = None
        with open(path, 'r', encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                assert len(elems) > 1, \
                    'At line %d of the pre-trained text embedding file: the data format of ' \
                    'the pre-trained token embedding file %s is unexpected.' % (line_num, path)
                token, values = elems[0], [float(v) for v in elems[1:]]
                if token == self.unknown_token and unknown_vec is None:
                    unknown_vec = values
                    seen.add(token)
                elif token in seen:
                    warnings.warn('At line %d of the pre-trained token embedding file: the '
                                  'embedding vector for token %s has been loaded and a '
                                  'duplicate embedding for the  same token is seen and '
                                  'skipped.' % (line_num, token))
                elif len(values) == 1:
                    warnings.warn('At line %d of the pre-trained text embedding file: token %s '
                                  'with 1-dimensional vector %s is likely a header and is '
                                  'skipped.' % (line_num, token, values))
                else:
                    if vec_len is None:
                        vec_len = len(values)
                    assert len(values) == vec_len, \
                        'At line %d of the pre-trained token embedding file: the dimension of ' \
                        'token %s is %d but the dimension of previous tokens is %d. ' \
                        'Dimensions of all the tokens must be the same.' \
                        % (line_num, token, len(values), vec_len)
                    rows.append(values)
                    self._token_to_idx[token] = len(self._idx_to_token)
                    self._idx_to_token.append(token)
                    seen.add(token)
        self._vec_len = vec_len
        vectors = nd.array([[0.0] * vec_len] * (len(self._idx_to_token) - len(rows)) + rows)
        if unknown_vec is None:
            vectors[UNKNOWN_IDX] = init_unknown_vec(shape=vec_len)
        else:
            vectors[UNKNOWN_IDX] = nd.array(unknown_vec)
        self._idx_to_vec = vectors

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = (list(vocabulary.reserved_tokens)
                                 if vocabulary.reserved_tokens is not None else None)

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """idx_to_vec for the tokens vocab_idx_to_token: the embeddings' vectors side by side
        (each one's unknown vector for index 0 and for tokens it lacks)."""
        width = sum(embed.vec_len for embed in token_embeddings)
        vectors = nd.zeros(shape=(vocab_len, width))
        start = 0
        for embed in token_embeddings:
            end = start + embed.vec_len
            vectors[0, start:end] = embed.idx_to_vec[0]
            if vocab_len > 1:
                vectors[1:, start:end] = embed.get_vecs_by_tokens(list(vocab_idx_to_token[1:]))
            start = end
        self._vec_len = width
        self._idx_to_vec = vectors

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is None:
            return
        assert isinstance(vocabulary, vocab.Vocabulary), \
            'The argument `vocabulary` must be an instance of ' \
            'mxnet.contrib.text.vocab.Vocabulary.'
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    # ---- access

    @property
    def vec_len(self):
        return self._vec_len

    @property
    def idx_to_vec(self):
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (vec_len,) or of a list of tokens (n, vec_len); unknown
        tokens get the unknown vector. With lower_case_backup a token not found is looked
        up again in lower case."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        if lower_case_backup:
            indices = [self._token_to_idx[t] if t in self._token_to_idx
                       else self._token_to_idx.get(t.lower(), UNKNOWN_IDX) for t in tokens]
        else:
            indices = [self._token_to_idx.get(t, UNKNOWN_IDX) for t in tokens]
        vecs = nd.Embedding(nd.array(indices), self._idx_to_vec, self._idx_to_vec.shape[0],
                            self._idx_to_vec.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Replaces the vectors of known tokens (a token or a list) by new_vectors."""
        assert self._idx_to_vec is not None, \
            'The property `idx_to_vec` has not been properly set.'
        if not isinstance(tokens, list) or len(tokens) == 1:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) in (1, 2), \
                '`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a singleton.'
            tokens = tokens if isinstance(tokens, list) else [tokens]
            if len(new_vectors.shape) == 1:
                new_vectors = nd.expand_dims(new_vectors, axis=0)
        else:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) == 2, \
                '`new_vectors` must be a 2-D NDArray if `tokens` is a list of multiple strings.'
        assert new_vectors.shape == (len(tokens), self.vec_len), \
            'The length of new_vectors must be equal to the number of tokens and the width of' \
            'new_vectors must be equal to the dimension of embeddings of the glossary.'
        indices = []
        for token in tokens:
            if token not in self._token_to_idx:
                raise ValueError('Token %s is unknown. To update the embedding vector for an '
                                 'unknown token, please specify it explicitly as the '
                                 '`unknown_token` %s in `tokens`. This is to avoid unintended '
                                 'updates.' % (token, self._idx_to_token[UNKNOWN_IDX]))
            indices.append(self._token_to_idx[token])
        for row, idx in enumerate(indices):
            self._idx_to_vec[idx] = new_vectors[row]


@register
class GloVe(_TokenEmbedding):
    """GloVe vectors (https://nlp.stanford.edu/projects/glove/), read from
    <embedding_root>/glove/<pretrained_file_name> (downloaded from the archive when absent)."""
    pretrained_file_name_sha1 = _PRETRAINED['glove']['files']
    pretrained_archive_name_sha1 = _PRETRAINED['glove']['archives']

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        by_corpus = {name.split('.')[1]: name for name in cls.pretrained_archive_name_sha1}
        return by_corpus[pretrained_file_name.split('.')[1]]

    def __init__(self, pretrained_file_name='glove.840B.300d.txt',
                 embedding_root=os.path.join(base.data_dir(), 'embeddings'),
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        GloVe._check_pretrained_file_names(pretrained_file_name)
        super(GloVe, self).__init__(**kwargs)
        path = GloVe._get_pretrained_file(embedding_root, pretrained_file_name)
        self._load_embedding(path, ' ', init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


@register
class FastText(_TokenEmbedding):
    """fastText vectors (https://fasttext.cc), read from
    <embedding_root>/fasttext/<pretrained_file_name> (downloaded when absent)."""
    pretrained_file_name_sha1 = _PRETRAINED['fasttext']['files']
    pretrained_archive_name_sha1 = _PRETRAINED['fasttext']['archives']

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name.rsplit('.', 1)[0] + '.zip'

    def __init__(self, pretrained_file_name='wiki.simple.vec',
                 embedding_root=os.path.join(base.data_dir(), 'embeddings'),
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        FastText._check_pretrained_file_names(pretrained_file_name)
        super(FastText, self).__init__(**kwargs)
        path = FastText._get_pretrained_file(embedding_root, pretrained_file_name)
        self._load_embedding(path, ' ', init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


class CustomEmbedding(_TokenEmbedding):
    """Vectors from a local file of lines `token<elem_delim>v1<elem_delim>v2 ...`; with
    `vocabulary`, re-indexed to its tokens. kwargs go to Vocabulary (unknown_token, ...)."""

    def __init__(self, pretrained_file_path, elem_delim=' ', encoding='utf8',
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super(CustomEmbedding, self).__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of `vocabulary` with the vectors of `token_embeddings` (one embedding or
    a list) concatenated."""

    def __init__(self, vocabulary, token_embeddings):
        assert isinstance(vocabulary, vocab.Vocabulary), \
            'The argument `vocabulary` must be an instance of ' \
            'mxnet.contrib.text.indexer.Vocabulary.'
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        assert all(isinstance(e, _TokenEmbedding) for e in token_embeddings), \
            'The argument `token_embeddings` must be an instance or a list of instances of ' \
            '`mxnet.contrib.text.embedding.TextEmbedding` whose embedding vectors will be ' \
            'loaded or concatenated-then-loaded to map to the indexed tokens.'
        super(CompositeEmbedding, self).__init__()
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
