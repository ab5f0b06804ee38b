#!/usr/bin/env python3
"""im2rec: make an image list (.lst) from a folder of images, or pack the images of a list
into a RecordIO database (.rec + .idx), with MXNet 1.9.1's flags and output.

  python tools/im2rec.py --list [--recursive] [--train-ratio R] [--test-ratio R] PREFIX ROOT
  python tools/im2rec.py [--resize N] [--center-crop] [--quality Q] [--encoding .jpg|.png]
                         [--color 1|0|-1] [--num-thread N] [--pack-label] [--pass-through]
                         PREFIX ROOT

A list line is "index<TAB>label[<TAB>label...]<TAB>relative path". Images are read and
encoded with Python's cv2 when it is installed, else with the library's OpenCV (mx.image)."""
import argparse
import multiprocessing
import os
import random
import sys
import time

# An installed mxnet comes first; the source tree's python/ is the fallback (as in MXNet).
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))
import numpy as np  # noqa: E402

import mxnet as mx  # noqa: E402

try:
    import cv2
except ImportError:
    cv2 = None


# ---------------------------------------------------------------- listing
def list_image(root, recursive, exts):
    """(index, relative path, label) of each image under root, in sorted order. Recursive:
    one label per folder, numbered in walk order (printed as 'folder label')."""
    index = 0
    if not recursive:
        for fname in sorted(os.listdir(root)):
            fpath = os.path.join(root, fname)
            if os.path.isfile(fpath) and os.path.splitext(fname)[1].lower() in exts:
                yield index, os.path.relpath(fpath, root), 0
                index += 1
        return
    labels = {}
    for path, dirs, files in os.walk(root, followlinks=True):
        dirs.sort()
        for fname in sorted(files):
            fpath = os.path.join(path, fname)
            if os.path.isfile(fpath) and os.path.splitext(fname)[1].lower() in exts:
                labels.setdefault(path, len(labels))
                yield index, os.path.relpath(fpath, root), labels[path]
                index += 1
    for path, label in sorted(labels.items(), key=lambda kv: kv[1]):
        print(os.path.relpath(path, root), label)


def write_list(path_out, image_list):
    with open(path_out, 'w') as fout:
        for item in image_list:
            fout.write('%d\t%s%s\n' % (item[0], ''.join('%f\t' % v for v in item[2:]), item[1]))


def make_list(args):
    """Writes PREFIX.lst, or PREFIX[_i]_train/_val/_test.lst splits over args.chunks chunks."""
    image_list = list(list_image(args.root, args.recursive, args.exts))
    if args.shuffle:
        random.seed(100)  # MXNet's im2rec seed: the same tree gives the same list
        random.shuffle(image_list)
    chunk_size = (len(image_list) + args.chunks - 1) // args.chunks
    for c in range(args.chunks):
        chunk = image_list[c * chunk_size:(c + 1) * chunk_size]
        name = args.prefix + ('_%d' % c if args.chunks > 1 else '')
        n_train = int(chunk_size * args.train_ratio)
        n_test = int(chunk_size * args.test_ratio)
        if args.train_ratio == 1.0:
            write_list(name + '.lst', chunk)
            continue
        if args.test_ratio:
            write_list(name + '_test.lst', chunk[:n_test])
        if args.train_ratio + args.test_ratio < 1.0:
            write_list(name + '_val.lst', chunk[n_test + n_train:])
        write_list(name + '_train.lst', chunk[n_test:n_test + n_train])


def read_list(path_in):
    """The items [index, path, label...] of a .lst file; malformed lines are reported and
    skipped."""
    with open(path_in) as fin:
        for lineno, line in enumerate(fin, 1):
            parts = [p.strip() for p in line.strip().split('\t')]
            if len(parts) < 3:
                print('%s:%d: a list line needs index, label(s) and path, got %r'
                      % (path_in, lineno, line.rstrip('\n')))
                continue
            try:
                yield [int(parts[0]), parts[-1]] + [float(v) for v in parts[1:-1]]
            except ValueError as err:
                print('%s:%d: cannot parse %r: %s' % (path_in, lineno, line.rstrip('\n'), err))


# ---------------------------------------------------------------- packing
def _imread(path, color):
    if cv2 is not None:
        return cv2.imread(path, color)
    with open(path, 'rb') as f:
        return mx.image.imdecode_np(f.read(), color)


def _resize(img, width, height):
    if cv2 is not None:
        return cv2.resize(img, (width, height))
    gray = img.ndim == 2
    src = mx.nd.array(img[:, :, None] if gray else img, dtype='uint8')
    out = mx.image.imresize(src, width, height, interp=1).asnumpy()
    return out[:, :, 0] if gray else out


def image_encode(args, item):
    """The packed record of one list item, or None (with a message) when it cannot be read."""
    fullpath = os.path.join(args.root, item[1])
    label = item[2:] if len(item) > 3 and args.pack_label else item[2]
    header = mx.recordio.IRHeader(0, label, item[0], 0)
    try:
        if args.pass_through:
            with open(fullpath, 'rb') as fin:
                return mx.recordio.pack(header, fin.read())
        img = _imread(fullpath, args.color)
    except Exception as err:  # pylint: disable=broad-except
        print('imread error trying to load file: %s (%s)' % (fullpath, err))
        return None
    if img is None:
        print('imread read blank (None) image for file: %s' % fullpath)
        return None
    h, w = img.shape[:2]
    if args.center_crop:
        if h > w:
            margin = (h - w) // 2
            img = img[margin:margin + w, :]
        else:
            margin = (w - h) // 2
            img = img[:, margin:margin + h]
        h, w = img.shape[:2]
    if args.resize:
        if h > w:
            img = _resize(img, args.resize, h * args.resize // w)
        else:
            img = _resize(img, w * args.resize // h, args.resize)
    try:
        return mx.recordio.pack_img(header, img, quality=args.quality, img_fmt=args.encoding)
    except Exception as err:  # pylint: disable=broad-except
        print('pack_img error on file: %s (%s)' % (fullpath, err))
        return None


def _encode_job(job):
    args, item = job
    return item, image_encode(args, item)


def _progress(done, total, start):
    rate = done / max(time.time() - start, 1e-9)
    bar = '#' * int(30 * done / max(total, 1))
    sys.stderr.write('\r[%-30s] %d/%d images, %.0f images/s' % (bar, done, total, rate))
    sys.stderr.flush()


def write_record(args, lst_path, working_dir):
    """Packs the images of one .lst into <name>.rec/.idx in working_dir, in list order."""
    base = os.path.splitext(os.path.basename(lst_path))[0]
    items = list(read_list(lst_path))
    record = mx.recordio.MXIndexedRecordIO(os.path.join(working_dir, base + '.idx'),
                                           os.path.join(working_dir, base + '.rec'), 'w')
    jobs = [(args, item) for item in items]
    start = time.time()
    if args.num_thread > 1:
        pool = multiprocessing.Pool(args.num_thread)
        results = pool.imap(_encode_job, jobs, chunksize=8)  # in order, as MXNet writes
    else:
        pool = None
        results = map(_encode_job, jobs)
    written = 0
    for done, (item, packed) in enumerate(results, 1):
        if packed is not None:
            record.write_idx(item[0], packed)
            written += 1
        if done % 100 == 0 or done == len(items):
            _progress(done, len(items), start)
    if pool is not None:
        pool.close()
        pool.join()
    record.close()
    sys.stderr.write('\n')
    print('wrote %d of %d images to %s.rec in %.1f s' % (written, len(items),
                                                        os.path.join(working_dir, base),
                                                        time.time() - start))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description='Create an image list or make a record database by reading from an '
                    'image list')
    parser.add_argument('prefix', help='prefix of input/output lst and rec files.')
    parser.add_argument('root', help='path to folder containing images.')
    cgroup = parser.add_argument_group('Options for creating image lists')
    cgroup.add_argument('--list', action='store_true',
                        help='create image list(s) <prefix>.lst by traversing root instead of '
                             'packing <prefix>*.lst into .rec files')
    cgroup.add_argument('--exts', nargs='+', default=['.jpeg', '.jpg', '.png'],
                        help='list of acceptable image extensions.')
    cgroup.add_argument('--chunks', type=int, default=1, help='number of chunks.')
    cgroup.add_argument('--train-ratio', type=float, default=1.0,
                        help='Ratio of images to use for training.')
    cgroup.add_argument('--test-ratio', type=float, default=0,
                        help='Ratio of images to use for testing.')
    cgroup.add_argument('--recursive', action='store_true',
                        help='walk subfolders, one label per folder (else root only, label 0)')
    cgroup.add_argument('--no-shuffle', dest='shuffle', action='store_false',
                        help='keep the sorted order in <prefix>.lst')
    cgroup.add_argument('--shuffle', dest='shuffle', type=lambda s: s.lower() in ('1', 'true'),
                        default=True, help='shuffle the list (True/False)')
    rgroup = parser.add_argument_group('Options for creating database')
    rgroup.add_argument('--pass-through', action='store_true',
                        help='whether to skip transformation and save image as is')
    rgroup.add_argument('--resize', type=int, default=0,
                        help='resize the shorter edge of image to the newsize, original images '
                             'will be packed by default.')
    rgroup.add_argument('--center-crop', action='store_true',
                        help='specify whether to crop the center image to make it rectangular.')
    rgroup.add_argument('--quality', type=int, default=95,
                        help='JPEG quality for encoding, 1-100; or PNG compression for '
                             'encoding, 1-9')
    rgroup.add_argument('--num-thread', type=int, default=1,
                        help='number of processes encoding images (the output order stays '
                             'the list order)')
    rgroup.add_argument('--color', type=int, default=1, choices=[-1, 0, 1],
                        help='1: color, 0: grayscale, -1: as stored')
    rgroup.add_argument('--encoding', type=str, default='.jpg', choices=['.jpg', '.png'],
                        help='specify the encoding of the images.')
    rgroup.add_argument('--pack-label', action='store_true',
                        help='Whether to also pack multi dimensional label in the record file')
    args = parser.parse_args(argv)
    args.prefix = os.path.abspath(args.prefix)
    args.root = os.path.abspath(args.root)
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        make_list(args)
        return 0
    working_dir = args.prefix if os.path.isdir(args.prefix) else os.path.dirname(args.prefix)
    lists = sorted(os.path.join(working_dir, f) for f in os.listdir(working_dir)
                   if os.path.isfile(os.path.join(working_dir, f)))
    lists = [f for f in lists if f.startswith(args.prefix) and f.endswith('.lst')]
    for lst in lists:
        print('Creating .rec file from', lst, 'in', working_dir)
        write_record(args, lst, working_dir)
    if not lists:
        print('Did not find and list file with prefix %s' % args.prefix)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
