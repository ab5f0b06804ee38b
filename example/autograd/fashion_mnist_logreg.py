"""Logistic regression on Fashion-MNIST (Debian's dataset-fashion-mnist) trained with autograd.

Run: .venv/bin/python example/autograd/fashion_mnist_logreg.py [--epochs 3] [--batch-size 256]
"""
import argparse
import gzip
import os
import struct
import time

import numpy as np

import mxnet as mx

DATA_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """Read an IDX file (the MNIST format): magic, dims, then the raw bytes."""
    with gzip.open(path, "rb") as f:
        zero, dtype_code, ndim = struct.unpack(">HBB", f.read(4))
        if zero != 0 or dtype_code != 0x08:
            raise ValueError("%s is not an unsigned-byte IDX file" % path)
        shape = struct.unpack(">" + "I" * ndim, f.read(4 * ndim))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(shape)


def load(split):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(DATA_DIR, "%s-images-idx3-ubyte.gz" % prefix))
    labels = read_idx(os.path.join(DATA_DIR, "%s-labels-idx1-ubyte.gz" % prefix))
    return images.reshape(len(images), -1).astype(np.float32) / 255.0, labels.astype(np.float32)


def log_softmax(z):
    shifted = z - mx.nd.max(z, axis=1, keepdims=True)
    return shifted - mx.nd.log(mx.nd.sum(mx.nd.exp(shifted), axis=1, keepdims=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--limit", type=int, default=0, help="use only this many training images")
    args = parser.parse_args()

    x_train, y_train = load("train")
    x_test, y_test = load("test")
    if args.limit:
        x_train, y_train = x_train[:args.limit], y_train[:args.limit]
    mx.random.seed(42)
    w = mx.nd.random.normal(0, 0.01, shape=(784, 10))
    b = mx.nd.zeros((10,))
    w.attach_grad()
    b.attach_grad()
    xt, yt = mx.nd.array(x_train), mx.nd.array(y_train)
    for epoch in range(args.epochs):
        start = time.time()
        total = 0.0
        for i in range(0, len(x_train), args.batch_size):
            xb, yb = xt[i:i + args.batch_size], yt[i:i + args.batch_size]
            with mx.autograd.record():
                logp = log_softmax(mx.nd.dot(xb, w) + b)
                loss = -mx.nd.mean(mx.nd.pick(logp, yb, axis=1))
            loss.backward()
            w -= args.lr * w.grad
            b -= args.lr * b.grad
            total += loss.asscalar() * xb.shape[0]
        pred = mx.nd.argmax(mx.nd.dot(mx.nd.array(x_test), w) + b, axis=1).asnumpy()
        acc = float((pred == y_test).mean())
        print("epoch %d: train loss %.4f, test accuracy %.4f (%.1fs)"
              % (epoch + 1, total / len(x_train), acc, time.time() - start))
    return acc


if __name__ == "__main__":
    main()
