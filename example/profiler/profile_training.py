"""Profile a few autograd training steps of a small two-layer perceptron; print the statistics.

The model is built from mx.nd operators (dot, broadcast_add, relu, square, mean) and trained
with plain SGD on random data. The profiler records every operator the steps push, the
memory they allocate and a counter of finished steps; afterwards the script prints the
aggregate table of profiler.dumps() and writes a Chrome trace (open it in chrome://tracing
or https://ui.perfetto.dev).

Run: PYTHONPATH=python python example/profiler/profile_training.py [--steps 5] [--out trace.json]
"""
import argparse
import time

import mxnet as mx
from mxnet import profiler


def init_params(n_in, n_hidden, n_out):
    params = [mx.nd.random.normal(0, 0.1, shape=(n_in, n_hidden)), mx.nd.zeros((n_hidden,)),
              mx.nd.random.normal(0, 0.1, shape=(n_hidden, n_out)), mx.nd.zeros((n_out,))]
    for p in params:
        p.attach_grad()
    return params


def forward(x, params):
    w1, b1, w2, b2 = params
    with profiler.scope("layer1"):
        h = mx.nd.relu(mx.nd.broadcast_add(mx.nd.dot(x, w1), b1))
    with profiler.scope("layer2"):
        return mx.nd.broadcast_add(mx.nd.dot(h, w2), b2)


def train_step(x, y, params, lr):
    with mx.autograd.record():
        loss = mx.nd.mean(mx.nd.square(forward(x, params) - y))
    loss.backward()
    for p in params:
        p -= lr * p.grad          # queued like everything else; nothing waits here
    return loss


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--out", default="profile_training.json", help="Chrome trace file")
    args = ap.parse_args()

    x = mx.nd.random.uniform(-1, 1, shape=(args.batch_size, 32))
    y = mx.nd.random.uniform(-1, 1, shape=(args.batch_size, 4))
    params = init_params(32, 64, 4)
    train_step(x, y, params, 0.01)   # warm-up step, not profiled
    mx.nd.waitall()                  # so the profile starts with an idle engine

    profiler.set_config(profile_all=True, aggregate_stats=True, continuous_dump=False,
                        filename=args.out)
    steps = profiler.Domain("training").new_counter("steps done", 0)
    profiler.set_state("run")
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = train_step(x, y, params, 0.01)
        steps += 1
    mx.nd.waitall()                  # wait for the queued work *before* stopping the clock
    elapsed = time.perf_counter() - t0
    profiler.set_state("stop")
    profiler.dump()

    print("%d steps in %.2f ms, last loss %.5f" % (args.steps, elapsed * 1e3,
                                                   loss.asscalar()))
    print(profiler.dumps(sort_by="total"))
    print("Chrome trace written to %s" % args.out)


if __name__ == "__main__":
    main()
