#!/usr/bin/env python
"""Bulk execution: the same work with engine bulking off (bulk size 0) and on (15), in the
framework under test and in MXNet 1.9.1 (us per op or per step; lower is better).

Cases:
  small_b0 / small_b15   imperative loop of 2-element ops (x = x * 1.01 + 1), us per op,
                         inside mx.engine.bulk(0) / mx.engine.bulk(15), then waitall
  mid_b0 / mid_b15       the same on 100x100 arrays (ops that go to an engine worker)
  mlp_b0 / mlp_b15       one hybridized MLP training step (batch 32, 64-128-10, static_alloc,
                         forward, backward, SGD), us, with hybridize(forward_bulk_size=N,
                         backward_bulk_size=N)

After the table, the ratio b0/b15 of each implementation (above 1: bulking helps). Best of
--rounds interleaved runs (default 1). Not part of pass/fail; a shared machine makes the
numbers noisy.

    python benchmark/python/bulk_exec.py [--quick] [--rounds R] [--only mxnet,mxnet191]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

MX = r'''
def bench(mx, np, cfg, best_of):
    from mxnet import autograd, gluon
    out = {"_meta": {}}
    reps = cfg["repeats"]

    def loop(shape, size):
        n = cfg["ops"]
        x0 = mx.nd.ones(shape)
        def run():
            with mx.engine.bulk(size):
                x = x0
                for _ in range(n // 2):
                    x = x * 1.01 + 1
            mx.nd.waitall()
        return best_of(run, reps) / n * 1e6

    def mlp(size):
        net = gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(gluon.nn.Dense(128, activation="relu"), gluon.nn.Dense(10))
        net.initialize()
        net.hybridize(static_alloc=True, static_shape=True, forward_bulk_size=size,
                      backward_bulk_size=size)
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        x = mx.nd.ones((32, 64))
        y = mx.nd.zeros((32,))
        n = cfg["steps"]
        def steps():
            for _ in range(n):
                with autograd.record():
                    loss = loss_fn(net(x), y)
                loss.backward()
                trainer.step(32)
            mx.nd.waitall()
        return best_of(steps, reps) / n * 1e6

    for size in (0, 15):
        measure(out, "small_b%d" % size, lambda: loop((2,), size))
        measure(out, "mid_b%d" % size, lambda: loop((100, 100), size))
        measure(out, "mlp_b%d" % size, lambda: mlp(size))
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    return {}
'''

CASES = ['small_b0', 'small_b15', 'mid_b0', 'mid_b15', 'mlp_b0', 'mlp_b15']


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(list(sys.argv[1:] if argv is None else argv),
                                        __doc__.splitlines()[0], rounds_default=1)
    cfg = {'repeats': 1 if args.quick else 3, 'ops': 400 if args.quick else 4000,
           'steps': 20 if args.quick else 200}
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP}, cfg, max(args.timeout, 600),
                                    only or ['mxnet', 'mxnet191'], args.rounds)
    _baselines.report('bulk_exec', CASES, results, 'us', higher_is_better=False, cfg=cfg)
    print('bulking gain (time at bulk 0 / time at bulk 15):')
    for impl in ('mxnet', 'mxnet191'):
        res = results.get(impl, (None, None))[0] or {}
        gains = []
        for case in ('small', 'mid', 'mlp'):
            b0, b15 = res.get(case + '_b0'), res.get(case + '_b15')
            gains.append('%s %s' % (case, '%.2f' % (b0 / b15) if b0 and b15 else 'n/a'))
        print('  %-9s %s' % (impl, ', '.join(gains)))
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
