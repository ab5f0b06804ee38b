#!/usr/bin/env python
"""KVStore throughput in one process: push+pull of ResNet-50's parameters across 2 CPU
contexts, and 2-bit gradient compression (GB/s; higher is better).

Cases (float32; the 161 trainable arrays of ResNet-50 v1, 25.5M elements = 102 MB):
  pushpull_local    mx.kv.create('local'): pushpull of every key from cpu(0) and cpu(1),
                    summed and written back to both; GB/s = 2 x model bytes / time
  pushpull_device   the same with mx.kv.create('device')
  pushpull_2bit     'device' with set_gradient_compression({'type': '2bit', 'threshold': 0.5}):
                    each context quantizes against its residual, the codes are expanded and
                    summed; GB/s = 2 x model bytes / time
  quantize_2bit     the 2-bit quantize kernel alone over 25.5M elements (this framework
                    only: MXNet 1.9.1 has no Python entry to it); GB/s = gradient bytes / time
  dist_sync_pushpull  a dist_sync job on loopback, 2 workers x 2 servers + scheduler (started
                    as tools/launch.py --launcher local does: the same DMLC_* variables, the
                    framework's own interpreter for every process): each worker pushes every
                    key then pulls every key; GB/s = 2 x model bytes / time, worker 0's
  dist_sync_2bit    the same with 2-bit compression (pushes move 1/16 of the bytes)
  dist_p3_pushpull  the same job with mx.kv.create('dist_p3') under launch.py --p3 (slices of
                    MXNET_KVSTORE_SLICE_THRESHOLD=40000 elements, sent by priority -i)
  zmq_raw           raw ZeroMQ (libzmq through ctypes, PUSH -> PULL over tcp 127.0.0.1, one
                    message per array into a preallocated buffer): GB/s = 2 x model bytes /
                    time to send the model there and back, the transport's ceiling here

numpy does pushpull_local's arithmetic (a + b written to both) as a memory-bandwidth reference.
Best of --rounds interleaved runs (keep it at 1 or 2: the machine is shared and the numbers are
noisy). Not part of pass/fail.

    python benchmark/python/kvstore.py [--quick] [--rounds R] [--only mxnet,mxnet191,numpy]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

SHAPES = r'''
def resnet50_shapes():
    """Shapes of ResNet-50 v1's trainable parameters (conv weights, BN gamma/beta, FC)."""
    shapes = [(64, 3, 7, 7), (64,), (64,)]
    cin = 64
    for stage, (n, c) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512))):
        for j in range(n):
            shapes += [(c, cin, 1, 1), (c,), (c,), (c, c, 3, 3), (c,), (c,),
                       (c * 4, c, 1, 1), (c * 4,), (c * 4,)]
            if j == 0:
                shapes += [(c * 4, cin, 1, 1), (c * 4,), (c * 4,)]
            cin = c * 4
    shapes += [(1000, 2048), (1000,)]
    return shapes
'''

MX = SHAPES + 'SHAPES_SRC = %r\n' % SHAPES + r'''
def bench(mx, np, cfg, best_of):
    out = {"_meta": {}}
    shapes = resnet50_shapes()
    nbytes = 4 * sum(int(np.prod(s)) for s in shapes)
    out["_meta"]["note"] = "%d arrays, %.1f MB" % (len(shapes), nbytes / 1e6)
    ctxs = [mx.cpu(0), mx.cpu(1)]
    rng = np.random.RandomState(0)
    host = [rng.uniform(-1, 1, size=s).astype("float32") for s in shapes]
    reps = cfg["repeats"]

    def pushpull(kv_type, compression=None):
        kv = mx.kv.create(kv_type)
        if compression:
            kv.set_gradient_compression(compression)
        grads = [[mx.nd.array(h, ctx=c) for c in ctxs] for h in host]
        for i, g in enumerate(grads):
            kv.init(i, mx.nd.zeros(g[0].shape))
        mx.nd.waitall()
        def run():
            for i, g in enumerate(grads):
                kv.pushpull(i, g, out=g, priority=-i)
            mx.nd.waitall()
        return len(ctxs) * nbytes / best_of(run, reps) / 1e9

    def quantize():
        n = sum(int(np.prod(s)) for s in shapes)
        if not hasattr(mx, "_ffi") or not hasattr(mx._ffi, "_kvstore_quantize_2bit"):
            return None
        g = mx.nd.array(rng.uniform(-1, 1, size=n).astype("float32"))
        res = mx.nd.zeros((n,))
        codes = mx.nd.zeros(((n + 15) // 16,))
        def run():
            mx._ffi._kvstore_quantize_2bit(g, res, codes, 0.5)
            codes.wait_to_read()
        return 4 * n / best_of(run, reps) / 1e9

    measure(out, "pushpull_local", lambda: pushpull("local"))
    measure(out, "pushpull_device", lambda: pushpull("device"))
    measure(out, "pushpull_2bit",
            lambda: pushpull("device", {"type": "2bit", "threshold": 0.5}))
    measure(out, "quantize_2bit", quantize)
    if cfg.get("dist", True):
        measure(out, "dist_sync_pushpull", lambda: dist_job(mx, cfg, None))
        measure(out, "dist_sync_2bit", lambda: dist_job(mx, cfg, "2bit"))
        measure(out, "dist_p3_pushpull", lambda: dist_job(mx, cfg, None, "dist_p3"))
        measure(out, "zmq_raw", lambda: zmq_raw(np, host, reps))
    return out


def zmq_raw(np, arrays, reps):
    """GB/s of libzmq moving arrays (one message each) there and back over loopback TCP."""
    import ctypes, ctypes.util, threading
    name = ctypes.util.find_library("zmq")
    if name is None:
        return None
    z = ctypes.CDLL(name)
    z.zmq_ctx_new.restype = ctypes.c_void_p
    z.zmq_socket.restype = ctypes.c_void_p
    z.zmq_socket.argtypes = [ctypes.c_void_p, ctypes.c_int]
    for f in ("zmq_bind", "zmq_connect"):
        getattr(z, f).argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    z.zmq_send.argtypes = z.zmq_recv.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                                  ctypes.c_size_t, ctypes.c_int]
    z.zmq_close.argtypes = [ctypes.c_void_p]
    z.zmq_ctx_term.argtypes = [ctypes.c_void_p]
    ZMQ_PUSH, ZMQ_PULL = 8, 7
    ctx = z.zmq_ctx_new()
    socks = []
    def pair(port):
        a, b = z.zmq_socket(ctx, ZMQ_PUSH), z.zmq_socket(ctx, ZMQ_PULL)
        z.zmq_bind(b, ("tcp://127.0.0.1:%d" % port).encode())
        z.zmq_connect(a, ("tcp://127.0.0.1:%d" % port).encode())
        socks.extend([a, b])
        return a, b
    import socket
    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    out_push, out_pull = pair(ports[0])
    back_push, back_pull = pair(ports[1])
    bufs = [np.empty_like(a) for a in arrays]
    def echo():  # the far side: receive every array, send it back
        for _ in range(reps + 1):
            for b in bufs:
                z.zmq_recv(out_pull, b.ctypes.data, b.nbytes, 0)
            for b in bufs:
                z.zmq_send(back_push, b.ctypes.data, b.nbytes, 0)
    t = threading.Thread(target=echo)
    t.start()
    def run():
        for a in arrays:
            z.zmq_send(out_push, a.ctypes.data, a.nbytes, 0)
        for a in arrays:
            z.zmq_recv(back_pull, a.ctypes.data, a.nbytes, 0)
    nbytes = sum(a.nbytes for a in arrays)
    gbps = 2 * nbytes / best_of(run, reps) / 1e9
    t.join()
    for s in socks:
        z.zmq_close(s)
    z.zmq_ctx_term(ctx)
    return gbps


DIST_WORKER = """
import os, sys, time, json, numpy as np, mxnet as mx
exec(os.environ["BENCH_SHAPES"])
shapes = resnet50_shapes()
nbytes = 4 * sum(int(np.prod(s)) for s in shapes)
kv = mx.kv.create(os.environ["BENCH_KVTYPE"])
if os.environ["BENCH_COMPRESSION"] != "none":
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
rng = np.random.RandomState(kv.rank)
grads = [mx.nd.array(rng.uniform(-1, 1, size=s).astype("float32")) for s in shapes]
outs = [mx.nd.zeros(s) for s in shapes]
kv.init(list(range(len(shapes))), [mx.nd.zeros(s) for s in shapes])
def step():
    for i, g in enumerate(grads):
        kv.push(i, g, priority=-i)
    for i, o in enumerate(outs):
        kv.pull(i, out=o, priority=-i)
    mx.nd.waitall()
step()
best = float("inf")
for _ in range(int(os.environ["BENCH_REPEATS"])):
    kv._barrier()
    t0 = time.perf_counter()
    step()
    best = min(best, time.perf_counter() - t0)
if kv.rank == 0:
    print("@@DIST@@ " + json.dumps({"gbps": 2 * nbytes / best / 1e9}))
    sys.stdout.flush()
"""


def dist_job(mx, cfg, compression, kv_type="dist_sync"):
    """Run a 2 x 2 dist_sync (or dist_p3) job of this interpreter's mxnet; worker 0's GB/s."""
    import subprocess, tempfile
    site = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    env = dict(os.environ, BENCH_SHAPES=SHAPES_SRC, BENCH_REPEATS=str(cfg["repeats"]),
               BENCH_COMPRESSION=compression or "none", OMP_NUM_THREADS="1",
               BENCH_KVTYPE=kv_type,
               PYTHONPATH=site + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "worker.py")
        with open(script, "w") as f:
            f.write(DIST_WORKER)
        p3 = ["--p3"] if kv_type == "dist_p3" else []
        r = subprocess.run([sys.executable, cfg["launch"], "-n", "2", "-s", "2", "--launcher",
                            "local"] + p3 + [sys.executable, script], env=env, capture_output=True,
                           text=True, timeout=600, cwd=tmp)
    for line in r.stdout.splitlines():
        if "@@DIST@@ " in line:
            return json.loads(line.split("@@DIST@@ ", 1)[1])["gbps"]
    raise RuntimeError("the dist job failed (status %d): %s" % (r.returncode,
                                                                 (r.stdout + r.stderr)[-400:]))
'''

NP = SHAPES + r'''
def bench(numpy, np, cfg, best_of):
    shapes = resnet50_shapes()
    nbytes = 4 * sum(int(np.prod(s)) for s in shapes)
    rng = np.random.RandomState(0)
    grads = [[rng.uniform(-1, 1, size=s).astype("float32") for _ in range(2)] for s in shapes]
    def run():
        for a, b in grads:
            np.add(a, b, out=a)
            b[...] = a
    return {"pushpull_local": 2 * nbytes / best_of(run, cfg["repeats"]) / 1e9}
'''

CASES = ['pushpull_local', 'pushpull_device', 'pushpull_2bit', 'quantize_2bit',
         'dist_sync_pushpull', 'dist_sync_2bit', 'dist_p3_pushpull', 'zmq_raw']


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(list(sys.argv[1:] if argv is None else argv),
                                        __doc__.splitlines()[0], rounds_default=1)
    cfg = {'repeats': 1 if args.quick else 3,
           'launch': os.path.join(_baselines.REPO, 'tools', 'launch.py')}
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP}, cfg, max(args.timeout, 900),
                                    only or ['mxnet', 'mxnet191', 'numpy'],
                                    1 if args.quick else args.rounds, higher_is_better=True)
    _baselines.report('kvstore', CASES, results, 'GB/s', higher_is_better=True, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
