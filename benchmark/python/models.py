#!/usr/bin/env python
"""Whole-model speed: hybridized ResNet inference and training, and the per-step overhead
hybridization removes (img/s and MB; higher is better for img/s, lower for MB and us).

Cases (float32, NCHW, random weights and inputs; --quick shrinks the repeat counts only):
  r50_infer_b1     ResNet-50 v1 inference, batch 1, img/s
  r50_infer_b32    ResNet-50 v1 inference, batch 32, img/s
  r18_train_b32    ResNet-18 v1 training step (forward, backward, SGD update), batch 32, img/s
  r18_train_mb     growth of the process's peak resident memory over that training (MB)
  mlp_eager_us     one training step of a small MLP (batch 32, 64-128-10) run imperatively, us
  mlp_hybrid_us    the same step with the network hybridized (static_alloc, static_shape), us

The framework under test and MXNet 1.9.1 run the same Gluon code: model_zoo.vision networks,
hybridize(static_alloc=True, static_shape=True); inference additionally goes through the oneDNN
subgraph backend (backend='MKLDNN', this package's ONEDNN), each one's fastest CPU path. PyTorch runs torchvision-free
equivalents built from torch.nn (same layer shapes), in eager mode, and, where torch.compile
works on this machine, compiled (cases suffixed _compiled, PyTorch only). Best of --rounds
interleaved runs. Not part of pass/fail.

    python benchmark/python/models.py [--quick] [--rounds R] [--no-compile] [--only mxnet,torch_pypi]

--no-compile skips the torch.compile cases (their compilation takes minutes on two cores).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

MX = r'''
def bench(mx, np, cfg, best_of):
    import resource
    from mxnet import autograd, gluon
    from mxnet.gluon.model_zoo import vision
    out = {"_meta": {}}
    reps = cfg["repeats"]

    def rss_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    def train_r18():
        # First case of the process, so the peak-memory growth is this training's own.
        before = rss_mb()
        net = vision.resnet18_v1(classes=1000)
        net.initialize(mx.init.Xavier())
        net.hybridize(static_alloc=True, static_shape=True)
        trainer = gluon.Trainer(net.collect_params(), "sgd",
                                {"learning_rate": 0.01, "momentum": 0.9})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        x = mx.nd.array(np.random.RandomState(0).rand(32, 3, 224, 224).astype("float32"))
        y = mx.nd.array(np.arange(32) % 1000)
        def step():
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(32)
            mx.nd.waitall()
        t = best_of(step, reps)
        out["r18_train_mb"] = rss_mb() - before
        return 32 / t

    def infer_r50(batch):
        net = vision.resnet50_v1(classes=1000)
        net.initialize(mx.init.Xavier())
        x = mx.nd.array(np.random.RandomState(1).rand(batch, 3, 224, 224).astype("float32"))
        # Both through their oneDNN subgraph backend (fused conv+BN+ReLU+sum), the fastest
        # CPU inference path of each; "MKLDNN" is 1.9.1's name and an alias of ONEDNN here.
        net.hybridize(static_alloc=True, static_shape=True, backend="MKLDNN")
        def run():
            net(x).wait_to_read()
        return batch / best_of(run, reps)

    def mlp_step(hybrid):
        net = gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(gluon.nn.Dense(128, activation="relu"), gluon.nn.Dense(10))
        net.initialize()
        if hybrid:
            net.hybridize(static_alloc=True, static_shape=True)
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        x = mx.nd.ones((32, 64))
        y = mx.nd.zeros((32,))
        n = 200
        def steps():
            for _ in range(n):
                with autograd.record():
                    loss = loss_fn(net(x), y)
                loss.backward()
                trainer.step(32)
            mx.nd.waitall()
        return best_of(steps, reps) / n * 1e6

    measure(out, "r18_train_b32", train_r18)
    measure(out, "r50_infer_b1", lambda: infer_r50(1))
    measure(out, "r50_infer_b32", lambda: infer_r50(32))
    measure(out, "mlp_eager_us", lambda: mlp_step(False))
    measure(out, "mlp_hybrid_us", lambda: mlp_step(True))
    if "r18_train_mb" not in out:
        out["r18_train_mb"] = None
    return out
'''

TORCH = r'''
def bench(torch, np, cfg, best_of):
    import resource
    nn = torch.nn
    out = {"_meta": {"note": "threads=%d" % torch.get_num_threads()}}
    reps = cfg["repeats"]

    def rss_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    class Basic(nn.Module):
        expansion = 1
        def __init__(self, cin, c, stride):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(cin, c, 3, stride, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))
            self.down = None
            if stride != 1 or cin != c:
                self.down = nn.Sequential(nn.Conv2d(cin, c, 1, stride, bias=False),
                                          nn.BatchNorm2d(c))
        def forward(self, x):
            r = x if self.down is None else self.down(x)
            return torch.relu(self.body(x) + r)

    class Bottleneck(nn.Module):
        expansion = 4
        def __init__(self, cin, c, stride):
            super().__init__()
            # ResNet v1 (as MXNet's resnet50_v1): the stride sits on the first 1x1 conv.
            self.body = nn.Sequential(
                nn.Conv2d(cin, c, 1, stride, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                nn.Conv2d(c, c * 4, 1, bias=False), nn.BatchNorm2d(c * 4))
            self.down = None
            if stride != 1 or cin != c * 4:
                self.down = nn.Sequential(nn.Conv2d(cin, c * 4, 1, stride, bias=False),
                                          nn.BatchNorm2d(c * 4))
        def forward(self, x):
            r = x if self.down is None else self.down(x)
            return torch.relu(self.body(x) + r)

    def resnet(block, layers):
        mods = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for i, (n, c) in enumerate(zip(layers, (64, 128, 256, 512))):
            for j in range(n):
                mods.append(block(cin, c, 2 if (j == 0 and i > 0) else 1))
                cin = c * block.expansion
        mods += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)]
        return nn.Sequential(*mods)

    compile_ok = hasattr(torch, "compile")

    def train_r18(compiled):
        before = rss_mb()
        net = resnet(Basic, (2, 2, 2, 2)).train()
        model = torch.compile(net) if compiled else net
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        x = torch.from_numpy(np.random.RandomState(0).rand(32, 3, 224, 224).astype("float32"))
        y = torch.arange(32) % 1000
        def step():
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
        t = best_of(step, reps)
        if not compiled:
            out["r18_train_mb"] = rss_mb() - before
        return 32 / t

    def infer_r50(batch, compiled):
        net = resnet(Bottleneck, (3, 4, 6, 3)).eval()
        model = torch.compile(net) if compiled else net
        x = torch.from_numpy(np.random.RandomState(1).rand(batch, 3, 224, 224).astype("float32"))
        def run():
            with torch.no_grad():
                model(x)
        return batch / best_of(run, reps)

    def mlp_step(compiled):
        net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        model = torch.compile(net) if compiled else net
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        loss_fn = nn.CrossEntropyLoss()
        x = torch.ones(32, 64)
        y = torch.zeros(32, dtype=torch.long)
        n = 200
        def steps():
            for _ in range(n):
                opt.zero_grad()
                loss_fn(model(x), y).backward()
                opt.step()
        return best_of(steps, reps) / n * 1e6

    measure(out, "r18_train_b32", lambda: train_r18(False))
    measure(out, "r50_infer_b1", lambda: infer_r50(1, False))
    measure(out, "r50_infer_b32", lambda: infer_r50(32, False))
    measure(out, "mlp_eager_us", lambda: mlp_step(False))
    if compile_ok and cfg["compile"]:
        measure(out, "r18_train_b32_compiled", lambda: train_r18(True))
        measure(out, "r50_infer_b1_compiled", lambda: infer_r50(1, True))
        measure(out, "r50_infer_b32_compiled", lambda: infer_r50(32, True))
        measure(out, "mlp_hybrid_us", lambda: mlp_step(True))
    if "r18_train_mb" not in out:
        out["r18_train_mb"] = None
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    return {}
'''

CASES = ['r50_infer_b1', 'r50_infer_b32', 'r18_train_b32', 'r18_train_mb', 'mlp_eager_us',
         'mlp_hybrid_us', 'r50_infer_b1_compiled', 'r50_infer_b32_compiled',
         'r18_train_b32_compiled']
HIGHER = {'r18_train_mb': False, 'mlp_eager_us': False, 'mlp_hybrid_us': False}


def main(argv=None):
    t0 = time.time()
    argv = list(sys.argv[1:] if argv is None else argv)
    compile_cases = '--no-compile' not in argv
    argv = [a for a in argv if a != '--no-compile']
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0], rounds_default=1)
    cfg = {'repeats': 1 if args.quick else 3, 'compile': compile_cases}
    higher = lambda case: HIGHER.get(case, True)  # noqa: E731
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP, 'torch': TORCH}, cfg,
                                    max(args.timeout, 1800), only,
                                    1 if args.quick else args.rounds, higher_is_better=higher)
    # img/s cases first (higher is better), then the MB and microsecond cases.
    _baselines.report('models', [c for c in CASES if higher(c)], results, 'img/s',
                      higher_is_better=True, cfg=cfg)
    _baselines.report('models', [c for c in CASES if not higher(c)], results, 'MB or us',
                      higher_is_better=False, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
