#!/usr/bin/env python
"""Training speed on Fashion-MNIST, samples/s (higher is better).

Cases, batch 128, SGD with momentum, forward + backward + update, 80 batches per timing:
  mlp_mem       MLP 784-128-64-10 (ReLU), batches sliced from arrays in memory
  lenet_mem     LeNet with BatchNorm and Dropout: conv5x5(20)-BN-ReLU-pool-conv5x5(50)-BN-
                ReLU-pool-FC500-ReLU-Dropout(0.5)-FC10, batches from memory
  mlp_loader    the MLP, batches through gluon.data.DataLoader / torch DataLoader
  lenet_loader  LeNet through the DataLoader

The framework under test and MXNet 1.9.1 run the same Gluon code (hybridized: MXNet 1.9.1
builds its graph; this framework accepts hybridize() and runs imperatively); PyTorch runs the
same networks with torch.optim.SGD. Data: Debian's dataset-fashion-mnist
(/usr/share/datasets/fashion-mnist), else random images of the same shape. Best of --rounds
interleaved runs. Not part of pass/fail.

    python benchmark/python/train_fashion_mnist.py [--quick] [--rounds R] [--only mxnet,torch]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _baselines  # noqa: E402

DATA = r'''
def load_images(np, n):
    import gzip, os
    path = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
    lpath = "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz"
    if os.path.exists(path) and os.path.exists(lpath):
        with gzip.open(path) as f:
            x = np.frombuffer(f.read()[16:], dtype=np.uint8).reshape(-1, 1, 28, 28)[:n]
        with gzip.open(lpath) as f:
            y = np.frombuffer(f.read()[8:], dtype=np.uint8)[:n]
        return (x.astype(np.float32) / 255), y.astype(np.float32), "fashion-mnist"
    rng = np.random.RandomState(0)
    return rng.rand(n, 1, 28, 28).astype(np.float32), \
        rng.randint(0, 10, n).astype(np.float32), "random"
'''

MX = DATA + r'''
def bench(mx, np, cfg, best_of):
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    B, nb = 128, cfg["batches"]
    x, y, source = load_images(np, B * nb)
    out = {"_meta": {"note": "data: " + source}}

    def mlp():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(128, activation="relu"), nn.Dense(64, activation="relu"),
                    nn.Dense(10))
        return net

    def lenet():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(20, 5), nn.BatchNorm(), nn.Activation("relu"),
                    nn.MaxPool2D(2, 2), nn.Conv2D(50, 5), nn.BatchNorm(),
                    nn.Activation("relu"), nn.MaxPool2D(2, 2), nn.Flatten(),
                    nn.Dense(500, activation="relu"), nn.Dropout(0.5), nn.Dense(10))
        return net

    xs, ys = mx.nd.array(x), mx.nd.array(y)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(xs, ys), batch_size=B)

    def case(make, use_loader):
        net = make()
        net.initialize(mx.init.Xavier())
        net.hybridize()
        trainer = gluon.Trainer(net.collect_params(), "sgd",
                                {"learning_rate": 0.05, "momentum": 0.9})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        def batches():
            if use_loader:
                return iter(loader)
            return ((xs[i * B:(i + 1) * B], ys[i * B:(i + 1) * B]) for i in range(nb))
        def epoch():
            for data, label in batches():
                with autograd.record():
                    loss = loss_fn(net(data), label)
                loss.backward()
                trainer.step(B)
            mx.nd.waitall()
        return B * nb / best_of(epoch, cfg["repeats"])

    measure(out, "mlp_mem", lambda: case(mlp, False))
    measure(out, "lenet_mem", lambda: case(lenet, False))
    measure(out, "mlp_loader", lambda: case(mlp, True))
    measure(out, "lenet_loader", lambda: case(lenet, True))
    return out
'''

TORCH = DATA + r'''
def bench(torch, np, cfg, best_of):
    nn = torch.nn
    B, nb = 128, cfg["batches"]
    x, y, source = load_images(np, B * nb)
    out = {"_meta": {"note": "threads=%d, data: %s" % (torch.get_num_threads(), source)}}
    xs, ys = torch.from_numpy(x), torch.from_numpy(y).long()

    def mlp():
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 64),
                             nn.ReLU(), nn.Linear(64, 10))

    def lenet():
        return nn.Sequential(nn.Conv2d(1, 20, 5), nn.BatchNorm2d(20), nn.ReLU(),
                             nn.MaxPool2d(2, 2), nn.Conv2d(20, 50, 5), nn.BatchNorm2d(50),
                             nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                             nn.Linear(800, 500), nn.ReLU(), nn.Dropout(0.5), nn.Linear(500, 10))

    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=B)

    def case(make, use_loader):
        net = make().train()
        opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        def batches():
            if use_loader:
                return iter(loader)
            return ((xs[i * B:(i + 1) * B], ys[i * B:(i + 1) * B]) for i in range(nb))
        def epoch():
            for data, label in batches():
                opt.zero_grad()
                loss_fn(net(data), label).backward()
                opt.step()
        return B * nb / best_of(epoch, cfg["repeats"])

    measure(out, "mlp_mem", lambda: case(mlp, False))
    measure(out, "lenet_mem", lambda: case(lenet, False))
    measure(out, "mlp_loader", lambda: case(mlp, True))
    measure(out, "lenet_loader", lambda: case(lenet, True))
    return out
'''

NP = r'''
def bench(numpy, np, cfg, best_of):
    return {c: None for c in ("mlp_mem", "lenet_mem", "mlp_loader", "lenet_loader")}
'''

CASES = ['mlp_mem', 'lenet_mem', 'mlp_loader', 'lenet_loader']


def main(argv=None):
    t0 = time.time()
    args, only = _baselines.main_common(argv, __doc__.splitlines()[0], rounds_default=2)
    cfg = {'repeats': 1, 'batches': 10} if args.quick else {'repeats': 2, 'batches': 80}
    results = _baselines.run_rounds({'mxnet': MX, 'numpy': NP, 'torch': TORCH}, cfg,
                                    max(args.timeout, 900), only,
                                    1 if args.quick else args.rounds,
                                    higher_is_better=lambda case: True)
    _baselines.report('train_fashion_mnist', CASES, results, 'samples/s',
                      higher_is_better=True, cfg=cfg)
    _baselines.elapsed_note(t0)
    return 0


if __name__ == '__main__':
    sys.exit(main())
