"""Image input pipeline: ImageRecordIter images/s and RecordIO read MB/s, beside MXNet 1.9.1.

Makes a .rec of natural-looking JPEGs (smooth color fields, shapes, edges and mild noise;
500x375 by default, 2,000 images) once, in a cache folder, with tools/im2rec's packing
(mx.recordio.pack_img, quality 90). Then, every implementation on the same file in the same
run:
  iter_t1, iter_t2   ImageRecordIter images/s: decode to 3x224x224 with rand_crop and
                     rand_mirror, batch 64, preprocess_threads 1 and 2 (one epoch each).
  rec_read           MB/s of reading every record with mx.recordio.MXRecordIO.read();
                     numpy's row is a plain file read of the same bytes (its baseline).
The machine is shared: numbers are noisy; compare ratios measured in one run only.

  python benchmark/python/image_pipeline.py [--quick] [--rounds 2] [--images N]
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

MAKE_REC = r'''
import sys, numpy as np, mxnet as mx
path, n, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.RandomState(0)
yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
rec = mx.recordio.MXIndexedRecordIO(path[:-4] + '.idx', path, 'w')
for i in range(n):
    img = np.zeros((h, w, 3), np.float32)
    for c in range(3):   # a smooth color field: a few low-frequency waves
        for _ in range(3):
            fx, fy, ph = rng.uniform(0.002, 0.02, 2).tolist() + [rng.uniform(0, 6.3)]
            img[:, :, c] += rng.uniform(20, 60) * np.sin(xx * fx + yy * fy + ph)
        img[:, :, c] += rng.uniform(60, 190)
    for _ in range(rng.randint(3, 9)):   # shapes with hard edges
        cx, cy, r = rng.randint(0, w), rng.randint(0, h), rng.randint(10, 90)
        mask = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r if rng.rand() < 0.5 else \
            (abs(xx - cx) < r) & (abs(yy - cy) < r * rng.uniform(0.3, 1.5))
        img[mask] = rng.uniform(0, 255, 3)
    img += rng.normal(0, 4, img.shape)   # sensor noise
    img = np.clip(img, 0, 255).astype(np.uint8)
    rec.write_idx(i, mx.recordio.pack_img((0, float(i % 10), i, 0), img, quality=90))
rec.close()
'''

MX = r'''
def bench(mx, np, cfg, best_of):
    out, errors = {}, {}
    out["_errors"] = errors
    def epoch(threads):
        it = mx.io.ImageRecordIter(path_imgrec=cfg["rec"], data_shape=(3, 224, 224),
                                   batch_size=64, rand_crop=True, rand_mirror=True,
                                   preprocess_threads=threads, shuffle=False, verbose=False)
        n = 0
        t0 = time.perf_counter()
        for batch in it:
            batch.data[0].wait_to_read()
            n += batch.data[0].shape[0] - batch.pad
        return n / (time.perf_counter() - t0)
    for threads in (1, 2):
        measure(out, "iter_t%d" % threads, lambda: max(epoch(threads) for _ in range(cfg["repeats"])))
    def read_all():
        r = mx.recordio.MXRecordIO(cfg["rec"], "r")
        while r.read() is not None:
            pass
        r.close()
    size = os.path.getsize(cfg["rec"]) / 1e6
    measure(out, "rec_read", lambda: size / best_of(read_all, cfg["repeats"]))
    out["_meta"] = {"note": "images=%d" % cfg["images"]}
    return out
'''

NP = r'''
def bench(np_mod, np, cfg, best_of):
    def read_all():
        with open(cfg["rec"], "rb") as f:
            while f.read(1 << 20):
                pass
    size = os.path.getsize(cfg["rec"]) / 1e6
    return {"raw_read": size / best_of(read_all, cfg["repeats"]),
            "_meta": {"note": "plain file read, 1 MiB chunks"}}
'''


def make_rec(path, n, w, h):
    if os.path.exists(path) and os.path.exists(path[:-4] + '.idx'):
        return
    env = dict(os.environ)
    env['PYTHONPATH'] = os.path.join(_baselines.REPO, 'python') + os.pathsep + \
        env.get('PYTHONPATH', '')
    subprocess.run([sys.executable, '-c', MAKE_REC, path + '.tmp.rec', str(n), str(w), str(h)],
                   check=True, env=env)
    os.rename(path + '.tmp.rec', path)
    os.rename(path + '.tmp.idx', path[:-4] + '.idx')


def main(argv=None):
    t0 = time.time()
    argv = list(sys.argv[1:] if argv is None else argv)
    images = 2000
    if '--images' in argv:
        at = argv.index('--images')
        images = int(argv[at + 1])
        del argv[at:at + 2]
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0], rounds_default=1)
    if args.quick:
        images = 200
    cache = os.environ.get('MXNET_BENCH_CACHE', '/tmp/mxnet-bench-cache')
    os.makedirs(cache, exist_ok=True)
    rec = os.path.join(cache, 'natural_jpeg_%d_500x375.rec' % images)
    make_rec(rec, images, 500, 375)
    cfg = {'rec': rec, 'images': images, 'repeats': 1 if args.quick else 2}
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP}, cfg, max(args.timeout, 600),
                                    only, rounds=args.rounds, higher_is_better=True)
    _baselines.report('image_pipeline', ['iter_t1', 'iter_t2', 'rec_read', 'raw_read'],
                      results, 'img/s|MB/s', higher_is_better=True,
                      baseline_case={'rec_read': 'raw_read'}, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
