"""gluon.contrib.data.text (WikiText2/103 from local token files or archive, no network) and
mx.contrib.text (count_tokens_from_str, Vocabulary), indexed as MXNet 1.9.1 indexes them."""
import collections
import os
import zipfile

import numpy as np
import pytest

from mxnet.base import MXNetError
from mxnet.contrib import text
from mxnet.gluon import contrib

CONTENT = ("= Title =\n\n the cat sat on the mat . \n the dog ran , the cat sat . \n"
           " = = B = = \n zebra zebra apple ant ant\n")
# What MXNet 1.9.1 gives for CONTENT (checked with its WikiText2, sha1 checks bypassed).
IDX_TO_TOKEN = ['<unk>', '<eos>', '=', 'the', '.', 'ant', 'cat', 'sat', 'zebra', ',', 'B',
                'Title', 'apple', 'dog', 'mat', 'on', 'ran']


def write_tokens(root):
    for seg in ('train', 'valid', 'test'):
        with open(os.path.join(str(root), 'wiki.%s.tokens' % seg), 'w') as f:
            f.write(CONTENT)


def test_wikitext2_from_local_tokens_matches_mxnet191(tmp_path):
    write_tokens(tmp_path)
    train = contrib.data.text.WikiText2(root=str(tmp_path), seq_len=3)
    assert train.vocabulary.idx_to_token == IDX_TO_TOKEN
    assert len(train) == 10 and len(train.frequencies) == 15
    assert train.frequencies['='] == 6
    data, label = train[9]
    assert data.asnumpy().tolist() == [8, 8, 12] and label.asnumpy().tolist() == [8, 12, 5]
    assert data.dtype == np.int32
    val = contrib.data.text.WikiText2(root=str(tmp_path), segment='validation',
                                      vocab=train.vocabulary, seq_len=3)
    assert val.vocabulary is train.vocabulary and len(val) == 10


def test_wikitext_extracts_local_archive(tmp_path):
    with zipfile.ZipFile(str(tmp_path / 'wikitext-103-v1.zip'), 'w') as z:
        z.writestr('wikitext-103/wiki.test.tokens', CONTENT)
    test = contrib.data.text.WikiText103(root=str(tmp_path), segment='test', seq_len=5)
    assert os.path.exists(str(tmp_path / 'wiki.test.tokens'))
    assert len(test) == 6  # 32 tokens + 4 <eos> - 1, in rows of 5


def test_wikitext_without_files_or_network_says_where_to_put_them(tmp_path, monkeypatch):
    monkeypatch.setenv('MXNET_GLUON_REPO', 'http://127.0.0.1:9/')
    with pytest.raises(MXNetError, match='wiki.train.tokens.*Put the token files'):
        contrib.data.text.WikiText2(root=str(tmp_path / 'none'))
    with pytest.raises(ValueError, match='segment'):
        contrib.data.text.WikiText2(root=str(tmp_path), segment='dev')


def test_count_tokens_and_vocabulary():
    counter = text.utils.count_tokens_from_str(' Life is great ! \n life is good . \n',
                                               to_lower=True)
    assert counter == collections.Counter({'life': 2, 'is': 2, 'great': 1, '!': 1, 'good': 1,
                                           '.': 1})
    text.utils.count_tokens_from_str('is', counter_to_update=counter)
    assert counter['is'] == 3
    vocab = text.vocab.Vocabulary(counter, most_freq_count=3, min_freq=1,
                                  reserved_tokens=['<pad>'])
    assert vocab.idx_to_token == ['<unk>', '<pad>', 'is', 'life', '!']
    assert vocab.to_indices(['life', 'nope']) == [3, 0] and vocab.to_indices('is') == 2
    assert vocab.to_tokens([4, 1]) == ['!', '<pad>']
    with pytest.raises(ValueError):
        vocab.to_tokens(9)
    assert len(text.vocab.Vocabulary(counter, min_freq=2)) == 3
