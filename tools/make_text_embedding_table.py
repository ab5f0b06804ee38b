#!/usr/bin/env python
"""Writes python/mxnet/contrib/text/pretrained_files.json: the pretrained GloVe and fastText
files MXNet 1.9.1 knows (file name -> SHA-1, and the archives they come in), read from
MXNet 1.9.1's python/mxnet/contrib/text/_constants.py.

    git -C /work/.mirror/apache+mxnet/repo show 1.9.1:python/mxnet/contrib/text/_constants.py \
        > /tmp/c191.py && python tools/make_text_embedding_table.py /tmp/c191.py
"""
import importlib.util
import json
import os
import sys


def main(path):
    spec = importlib.util.spec_from_file_location('constants191', path)
    c = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(c)
    # 1.9.1 names the two GloVe tables the other way round: *_ARCHIVE_SHA1 holds the files.
    table = {
        'glove': {'files': c.GLOVE_PRETRAINED_ARCHIVE_SHA1,
                  'archives': c.GLOVE_PRETRAINED_FILE_SHA1},
        'fasttext': {'files': c.FAST_TEXT_FILE_SHA1, 'archives': c.FAST_TEXT_ARCHIVE_SHA1},
    }
    out = os.path.join(os.path.dirname(__file__), '..', 'python', 'mxnet', 'contrib', 'text',
                       'pretrained_files.json')
    with open(out, 'w') as f:
        json.dump(table, f, indent=0, sort_keys=True)
        f.write('\n')
    print('wrote %s' % out)


if __name__ == '__main__':
    main(sys.argv[1])
