#!/usr/bin/env python
"""The ONEDNN subgraph backend: fused against unfused hybridized inference (ms, lower is better).

Cases (float32, NCHW, random weights and inputs, inference):
  block_b1 / block_b32   a ResNet basic block (conv3x3-BN-ReLU, conv3x3-BN, + input, ReLU) on
                         64 channels of 56x56, batch 1 / 32
  r18_b1                 ResNet-18 v1 (model_zoo), batch 1, 224x224
  fc_relu_b64            Dense(1024, activation='relu') on (64, 1024)
each as <case>_plain (hybridize(static_alloc, static_shape)) and <case>_fused (the same with
backend='MKLDNN', the name both libraries accept). The framework under test and MXNet 1.9.1
run the same Gluon code; best of --rounds interleaved runs. Not part of pass/fail.

    python benchmark/python/subgraph_fusion.py [--quick] [--rounds R] [--only mxnet,mxnet191]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

MX = r'''
def bench(mx, np, cfg, best_of):
    from mxnet import gluon
    from mxnet.gluon import nn
    from mxnet.gluon.model_zoo import vision
    out = {"_meta": {}}
    reps = cfg["repeats"]

    class Block(gluon.HybridBlock):
        def __init__(self):
            super(Block, self).__init__()
            with self.name_scope():
                self.c1 = nn.Conv2D(64, 3, padding=1, use_bias=False)
                self.b1 = nn.BatchNorm()
                self.c2 = nn.Conv2D(64, 3, padding=1, use_bias=False)
                self.b2 = nn.BatchNorm()
        def hybrid_forward(self, F, x):
            y = F.Activation(self.b1(self.c1(x)), act_type="relu")
            return F.Activation(self.b2(self.c2(y)) + x, act_type="relu")

    def dense():
        net = nn.HybridSequential()
        net.add(nn.Dense(1024, activation="relu", in_units=1024))
        return net

    def run(make, shape, fused):
        net = make()
        net.initialize(mx.init.Xavier())
        x = mx.nd.array(np.random.RandomState(0).rand(*shape).astype("float32"))
        net(x).wait_to_read()
        if fused:
            net.hybridize(static_alloc=True, static_shape=True, backend="MKLDNN")
        else:
            net.hybridize(static_alloc=True, static_shape=True)
        def once():
            net(x).wait_to_read()
        return best_of(once, reps) * 1e3

    cases = [("block_b1", Block, (1, 64, 56, 56)), ("block_b32", Block, (32, 64, 56, 56)),
             ("r18_b1", lambda: vision.resnet18_v1(classes=1000), (1, 3, 224, 224)),
             ("fc_relu_b64", dense, (64, 1024))]
    for name, make, shape in cases:
        for fused in (False, True):
            case = name + ("_fused" if fused else "_plain")
            measure(out, case, lambda: run(make, shape, fused))
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    return {}
'''

CASES = [c + s for c in ('block_b1', 'block_b32', 'r18_b1', 'fc_relu_b64')
         for s in ('_plain', '_fused')]


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(list(sys.argv[1:] if argv is None else argv),
                                        __doc__.splitlines()[0], rounds_default=1)
    cfg = {'repeats': 2 if args.quick else 10}
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP}, cfg, max(args.timeout, 600),
                                    only, 1 if args.quick else args.rounds)
    _baselines.report('subgraph_fusion', CASES, results, 'ms', higher_is_better=False, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
