"""mx.contrib.text.embedding: CustomEmbedding from local files (unknown-token vector, header
and duplicate lines, bad files), CompositeEmbedding over a Vocabulary, vector updates, the
registry and MXNet 1.9.1's pretrained file tables, and the offline error of GloVe."""
import collections

import numpy as np
import pytest

from mxnet import nd
from mxnet.base import MXNetError
from mxnet.contrib import text


def write(path, lines):
    path.write_text(''.join(line + '\n' for line in lines))
    return str(path)


def test_custom_embedding_reads_vectors_and_unknown(tmp_path):
    path = write(tmp_path / 'v.txt', ['3 2', 'a 0.1 0.2', 'b 0.3 0.4', 'a 9 9', '<unk> 1 2'])
    with pytest.warns(UserWarning):
        embed = text.embedding.CustomEmbedding(path)
    assert embed.idx_to_token == ['<unk>', 'a', 'b'] and embed.vec_len == 2
    np.testing.assert_allclose(embed.idx_to_vec.asnumpy(), [[1, 2], [0.1, 0.2], [0.3, 0.4]],
                               rtol=1e-6)
    np.testing.assert_allclose(embed.get_vecs_by_tokens(['B', 'zz'],
                                                        lower_case_backup=True).asnumpy(),
                               [[0.3, 0.4], [1, 2]], rtol=1e-6)
    embed.update_token_vectors('a', nd.array([5, 6]))
    np.testing.assert_allclose(embed.get_vecs_by_tokens('a').asnumpy(), [5, 6])
    with pytest.raises(ValueError, match='unknown'):
        embed.update_token_vectors('zz', nd.array([5, 6]))
    bad = write(tmp_path / 'bad.txt', ['a 0.1 0.2', 'b 0.3 0.4 0.5'])
    with pytest.raises(AssertionError):
        text.embedding.CustomEmbedding(bad)
    ones = text.embedding.CustomEmbedding(write(tmp_path / 'w.txt', ['a\t1\t2']), '\t',
                                          init_unknown_vec=nd.ones)
    np.testing.assert_allclose(ones.idx_to_vec[0].asnumpy(), [1, 1])


def test_composite_embedding_concatenates_over_a_vocabulary(tmp_path):
    e1 = text.embedding.CustomEmbedding(write(tmp_path / '1.txt', ['a 1 2', 'b 3 4']))
    e2 = text.embedding.CustomEmbedding(write(tmp_path / '2.txt', ['b 5 5', 'c 6 6', 'x 7 7']))
    vocab = text.vocab.Vocabulary(collections.Counter(['c', 'c', 'b', 'a', 'a', 'a']))
    ce = text.embedding.CompositeEmbedding(vocab, [e1, e2])
    assert ce.idx_to_token == ['<unk>', 'a', 'c', 'b'] and ce.vec_len == 4
    np.testing.assert_allclose(ce.idx_to_vec.asnumpy(),
                               [[0, 0, 0, 0], [1, 2, 0, 0], [0, 0, 6, 6], [3, 4, 5, 5]])
    re_indexed = text.embedding.CustomEmbedding(str(tmp_path / '1.txt'), vocabulary=vocab)
    np.testing.assert_allclose(re_indexed.idx_to_vec.asnumpy(),
                               [[0, 0], [1, 2], [0, 0], [3, 4]])


def test_registry_and_pretrained_tables():
    names = text.embedding.get_pretrained_file_names()
    assert len(names['glove']) == 10 and len(names['fasttext']) == 327
    assert 'glove.6B.50d.txt' in text.embedding.get_pretrained_file_names('glove')
    assert text.embedding.GloVe._get_download_file_name('glove.6B.50d.txt') == 'glove.6B.zip'
    assert text.embedding.FastText._get_download_file_name('wiki.simple.vec') == \
        'wiki.simple.zip'
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names('nope')
    with pytest.raises(KeyError, match='Cannot find pretrained file'):
        text.embedding.create('glove', pretrained_file_name='glove.1B.txt')


def test_glove_offline_names_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv('MXNET_GLUON_REPO', 'http://127.0.0.1:9/')
    with pytest.raises(MXNetError, match='glove.6B.50d.txt is not in .*glove'):
        text.embedding.GloVe('glove.6B.50d.txt', embedding_root=str(tmp_path))

