#!/usr/bin/env python
"""Communication cost of a KVStore per batch: push every parameter's gradient from each device,
pull the result back, as one training step would (MXNet 1.9.1's tools/bandwidth/measure.py
flags). Run it alone for 'local'/'device', or under tools/launch.py for 'dist_*':

    python tools/bandwidth/measure.py --network resnet --num-layers 50 --kv-store device
    python tools/launch.py -n 2 -s 2 --launcher local \\
        python tools/bandwidth/measure.py --kv-store dist_sync --gpus ''

The parameter shapes come from gluon.model_zoo (resnet: resnet{N}_v1; or any model_zoo name
given as --network). --gpus lists device ids; without GPUs those ids are CPU contexts, and
'' means one CPU context. Each line reports the time of one batch, the bandwidth
(model MB x 2 x (devices - 1) / devices / time, MXNet's formula; with one device: model MB x 2
/ time) and the error of the pulled values against the expected sum (or optimizer update).
"""
import argparse
import logging
import time
from collections import namedtuple

import numpy as np
import mxnet as mx


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--network', type=str, default='resnet',
                        help='resnet (with --num-layers) or a gluon.model_zoo.vision name')
    parser.add_argument('--gpus', type=str, default='0,1', help='device ids, e.g. 0,1')
    parser.add_argument('--num-layers', type=int, default=152, help='resnet depth')
    parser.add_argument('--kv-store', type=str, default='device', help='the KVStore type')
    parser.add_argument('--num-batches', type=int, default=5, help='batches to run')
    parser.add_argument('--disp-batches', type=int, default=1, help='report every N batches')
    parser.add_argument('--test-results', type=int, default=1, help='check the pulled values')
    parser.add_argument('--image-shape', type=str, default='3,224,224', help='input shape')
    parser.add_argument('--num-classes', type=int, default=1000, help='classes')
    parser.add_argument('--optimizer', type=str, default='None', help='run it in the store')
    parser.add_argument('--gc-type', type=str, default='none', help="'2bit' compresses")
    return parser.parse_args(argv)


def get_shapes(network, num_layers, image_shape, num_classes):
    name = 'resnet%d_v1' % num_layers if network == 'resnet' else network
    net = mx.gluon.model_zoo.vision.get_model(name, classes=num_classes)
    net.initialize()
    net(mx.nd.zeros((1,) + tuple(int(s) for s in image_shape.split(','))))
    return [p.shape for p in net.collect_params().values() if p.grad_req != 'null']


def error(pulled, expected):
    return max(float(np.abs(w.asnumpy() - e.asnumpy()).max())
               for ws, e in zip(pulled, expected) for w in ws)


def run(network, optimizer, gpus, kv_store, image_shape, disp_batches, num_batches,
        test_results, gc_type, num_layers, num_classes):
    ids = [int(i) for i in gpus.split(',') if i.strip()] or [0]
    devs = [mx.gpu(i) if mx.context.num_gpus() > i else mx.cpu(i) for i in ids]
    kv = mx.kv.create(kv_store)
    if gc_type != 'none':
        kv.set_gradient_compression({'type': gc_type})
    updater = None
    if optimizer not in (None, 'None'):
        kv.set_optimizer(mx.optimizer.Optimizer.create_optimizer(optimizer))
        updater = mx.optimizer.get_updater(mx.optimizer.Optimizer.create_optimizer(optimizer))
    shapes = get_shapes(network, num_layers, image_shape, num_classes)
    size = sum(int(np.prod(s)) for s in shapes) * 4 / 1e6
    logging.info('num of arrays = %d, total size = %f MB', len(shapes), size)
    for i, s in enumerate(shapes):
        kv.init(i, mx.nd.zeros(s))
    grads_val = [[mx.random.uniform(-1, 1, shape=s) for _ in devs] for s in shapes]
    grads = [[g.as_in_context(d) for g, d in zip(gs, devs)] for gs in grads_val]
    weights = [[mx.nd.zeros(s, d) for d in devs] for s in shapes]
    # every worker pushes the same values (same seed), so the sum is num_workers times ours
    cpu_grads = [mx.nd.array(sum(g.asnumpy() for g in gs)) * kv.num_workers for gs in grads_val]
    cpu_weights = [mx.nd.zeros(s) for s in shapes]
    Results = namedtuple('Results', ['iter', 'time', 'bandwidth', 'error'])
    res, toc = [], 0.0
    share = 2.0 * (len(devs) - 1) / len(devs) if len(devs) > 1 else 2.0
    for b in range(num_batches + 1):
        tic = time.time()
        for i, g in enumerate(grads):
            kv.push(i, g, -i)
        for i, w in enumerate(weights):
            kv.pull(i, w, -i)
        for ws in weights:
            for w in ws:
                w.wait_to_read()
        toc += time.time() - tic
        err = -1.0
        if test_results and gc_type == 'none':
            if updater is None:
                err = error(weights, cpu_grads)
            else:
                for i, (w, g) in enumerate(zip(cpu_weights, cpu_grads)):
                    updater(i, g, w)
                err = error(weights, cpu_weights)
        if b % disp_batches == 0:
            toc /= disp_batches
            if b != 0:  # batch 0 warms up
                r = Results(iter=b, time=toc, error=err, bandwidth=size * share / toc / 1e3)
                logging.info('iter %d, %f sec, %f GB/sec per device, error %f',
                             r.iter, r.time, r.bandwidth, r.error)
                res.append(r)
            toc = 0.0
    return res


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(message)s')
    args = parse_args()
    logging.info(args)
    mx.random.seed(0)
    run(**vars(args))
