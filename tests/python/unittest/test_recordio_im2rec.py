"""tools/im2rec.py: lists and packs a generated tree of images; for the same inputs and
options its .lst/.rec/.idx are byte-identical to MXNet 1.9.1's im2rec (when its venv is here)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mxnet as mx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
IM2REC = os.path.join(REPO, 'tools', 'im2rec.py')
MX191 = '/root/mxnet191-venv/bin/python'
MIRROR = '/work/.mirror/apache+mxnet/repo'

pytestmark = pytest.mark.skipif(not mx.runtime.Features().is_enabled('OPENCV'),
                                reason='built without OpenCV')


def _tree(root):
    rng = np.random.RandomState(0)
    for c, cls in enumerate(['cat', 'dog']):
        os.makedirs(os.path.join(root, cls))
        for i in range(5):
            h, w = rng.randint(20, 60, size=2)
            yy, xx = np.mgrid[0:h, 0:w]
            img = np.stack([(xx * 7 + i * 20) % 256, (yy * 5) % 256,
                            ((xx + yy) * 3 + c * 100) % 256], 2).astype(np.uint8)
            with open(os.path.join(root, cls, '%d.png' % i), 'wb') as f:
                f.write(mx.image.imencode_np(img, '.png', 3))
    with open(os.path.join(root, 'notes.txt'), 'w') as f:
        f.write('not an image')


def _run(args, python=sys.executable, script=IM2REC, cwd=None):
    env = dict(os.environ)
    if python != sys.executable:
        env.pop('PYTHONPATH', None)
    else:
        # the mxnet these tests import: the source tree's or an installed one
        env['PYTHONPATH'] = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    out = subprocess.run([python, script] + args, capture_output=True, text=True, env=env,
                         timeout=300, cwd=cwd)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return out.stdout


@pytest.fixture(scope='module')
def tree(tmp_path_factory):
    root = str(tmp_path_factory.mktemp('im2rec') / 'tree')
    _tree(root)
    return root


def test_list_recursive_labels_folders_and_shuffles_with_seed_100(tree, tmp_path):
    prefix = str(tmp_path / 'data')
    printed = _run(['--list', '--recursive', prefix, tree])
    assert 'cat 0' in printed and 'dog 1' in printed
    lines = [l.rstrip('\n').split('\t') for l in open(prefix + '.lst')]
    assert len(lines) == 10
    assert sorted(int(l[0]) for l in lines) == list(range(10))
    for idx, label, path in lines:
        assert float(label) == (0.0 if path.startswith('cat/') else 1.0)
        assert label.endswith('.000000')
    assert [l[0] for l in lines] != [str(i) for i in range(10)]  # shuffled
    _run(['--list', '--recursive', '--no-shuffle', prefix, tree])
    assert [l.split('\t')[0] for l in open(prefix + '.lst')] == [str(i) for i in range(10)]


def test_list_splits_train_val_test(tree, tmp_path):
    prefix = str(tmp_path / 'split')
    _run(['--list', '--recursive', '--train-ratio', '0.6', '--test-ratio', '0.2', prefix, tree])
    sizes = {s: len(open('%s_%s.lst' % (prefix, s)).readlines()) for s in ('train', 'val', 'test')}
    assert sizes == {'train': 6, 'val': 2, 'test': 2}


def test_pack_writes_readable_records_with_labels(tree, tmp_path):
    prefix = str(tmp_path / 'data')
    _run(['--list', '--recursive', prefix, tree])
    _run(['--resize', '24', '--center-crop', '--num-thread', '2', prefix, tree])
    lst = {int(l.split('\t')[0]): l.split('\t') for l in open(prefix + '.lst')}
    rec = mx.recordio.MXIndexedRecordIO(prefix + '.idx', prefix + '.rec', 'r')
    assert sorted(rec.keys) == sorted(lst)
    for key in rec.keys:
        header, img = mx.recordio.unpack_img(rec.read_idx(key))
        assert header.id == key and header.label == float(lst[key][1])
        assert img.shape == (24, 24, 3)


def test_pack_label_stores_label_vectors(tree, tmp_path):
    prefix = str(tmp_path / 'multi')
    with open(prefix + '.lst', 'w') as f:
        f.write('3\t1.5\t2.0\t-1.0\tcat/0.png\n7\t0.0\t4.0\t8.0\tdog/1.png\nbad line\n')
    _run(['--pack-label', '--encoding', '.png', prefix, tree])
    rec = mx.recordio.MXIndexedRecordIO(prefix + '.idx', prefix + '.rec', 'r')
    assert rec.keys == [3, 7]
    header, _ = mx.recordio.unpack(rec.read_idx(3))
    assert header.flag == 3 and list(header.label) == [1.5, 2.0, -1.0]


@pytest.mark.skipif(not (os.path.exists(MX191) and os.path.isdir(MIRROR)),
                    reason='MXNet 1.9.1 venv or source mirror not present')
@pytest.mark.parametrize('opts', [['--resize', '24', '--center-crop', '--quality', '90'],
                                  ['--encoding', '.png', '--quality', '3'],
                                  ['--color', '0', '--resize', '30'],
                                  ['--pass-through']])
def test_output_is_byte_identical_to_mxnet191(tree, tmp_path, opts):
    ref_script = str(tmp_path / 'im2rec191.py')
    with open(ref_script, 'w') as f:
        f.write(subprocess.run(['git', '-C', MIRROR, 'show', '1.9.1:tools/im2rec.py'],
                               capture_output=True, text=True, check=True).stdout)
    check = subprocess.run([MX191, '-c', 'import cv2'], capture_output=True)
    if check.returncode != 0:
        pytest.skip('cv2 is not installed in the MXNet 1.9.1 venv')
    outs = {}
    for who, python, script in (('ours', sys.executable, IM2REC), ('191', MX191, ref_script)):
        prefix = str(tmp_path / who / 'data')
        os.makedirs(os.path.dirname(prefix))
        _run(['--list', '--recursive', prefix, tree], python, script, cwd=str(tmp_path))
        _run(opts + [prefix, tree], python, script, cwd=str(tmp_path))
        outs[who] = [open(prefix + ext, 'rb').read() for ext in ('.lst', '.rec', '.idx')]
    assert outs['ours'] == outs['191']
