"""Backward's memory: values are dropped after their last reader and a variable's gradient is
written into its buffer, so slicing a large array costs about what MXNet 1.9.1 spends."""
import subprocess
import sys
import textwrap

import mxnet as mx
import numpy as np
import pytest

PEAK_SCRIPT = textwrap.dedent("""
    import resource, sys
    import mxnet as mx
    from mxnet import gluon
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x.slice(begin=(0, 0, 0), end=(8, 64, 256)) * 2)
    x = mx.nd.ones((16, 128, 256))
    x.attach_grad()
    net = Net()
    if sys.argv[1] == '1':
        net.hybridize()
    mx.nd.waitall()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with mx.autograd.record():
        y = net(x)
    y.backward()
    mx.nd.waitall()
    print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024)
""")


@pytest.mark.parametrize("hybridize", ["0", "1"])
def test_slice_backward_peak_memory(hybridize):
    # x and its gradient buffer are 2 MiB each, the slice 512 KiB. Forward keeps the slice
    # and the product (relu's input is not needed: it reads its output); backward needs the
    # head gradient, relu's and the product's gradients, then writes x.grad in place. Zeros
    # plus a region copy into a separate array, then a copy into x.grad, would add 4 MiB.
    out = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, hybridize], capture_output=True,
                         text=True, check=True)
    growth = int(out.stdout.split()[-1])
    assert growth < 4 * 2**20, growth


def test_slice_gradient_values():
    x = mx.nd.array(np.arange(60, dtype=np.float32).reshape(3, 4, 5))
    x.attach_grad()
    with mx.autograd.record():
        y = x.slice(begin=(2, None, 1), end=(0, 3, None), step=(-1, 2, 2))
    g = mx.nd.array(np.random.uniform(size=y.shape).astype(np.float32))
    y.backward(g)
    expected = np.zeros((3, 4, 5), np.float32)
    expected[2:0:-1, 0:3:2, 1::2] = g.asnumpy()
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)


def test_gradient_read_twice_is_not_written_in_place():
    # y = x * 2 feeds two slices whose gradients add up: the sum node, not a slice's, is
    # x's gradient, and each slice's gradient must survive until the sum has read it.
    x = mx.nd.ones((4, 6))
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
        z = y.slice(begin=(0, 0), end=(2, 6)) + y.slice(begin=(1, 0), end=(3, 6))
    z.backward()
    expected = np.zeros((4, 6), np.float32)
    expected[0:2] += 2
    expected[1:3] += 2
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)


def test_grad_add_keeps_accumulating():
    x = mx.nd.ones((5, 3))
    x.attach_grad(grad_req='add')
    for _ in range(3):
        with mx.autograd.record():
            y = x.slice(begin=(1, 0), end=(4, 3)) * 3
        y.backward()
    expected = np.zeros((5, 3), np.float32)
    expected[1:4] = 9
    np.testing.assert_array_equal(x.grad.asnumpy(), expected)


CHAIN_SCRIPT = textwrap.dedent("""
    import sys
    import mxnet as mx
    from mxnet import gluon
    class Chain(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            for _ in range(8):
                x = F.sin(x)
            return x
    net = Chain()
    if sys.argv[1] == '1':
        net.hybridize(static_alloc=True)
    x = mx.nd.ones((1 << 22,))  # 16 MiB
    x.attach_grad()
    for retain in (True, False):
        mx.nd.waitall()
        mx._ffi.storage_reset_peak(1, 0)
        with mx.autograd.record():
            y = net(x)
        y.backward(retain_graph=retain)
        mx.nd.waitall()
        print(mx._ffi.storage_stats(1, 0)['peak_bytes_in_use'])
        del y
""")


@pytest.mark.parametrize("hybridize", ["0", "1"])
def test_backward_without_retain_graph_frees_forward_values_as_it_goes(hybridize):
    # Forward keeps 8 values of 16 MiB (sin's inputs) for backward. Keeping the recorded graph
    # (retain_graph=True) holds them all until backward ends, so its gradients (16 MiB each)
    # come on top; without it each forward value goes back to the pool after its last
    # reader, including inside a hybridized block's single backward node, and the gradients
    # reuse that memory.
    out = subprocess.run([sys.executable, "-c", CHAIN_SCRIPT, hybridize],
                         env=dict(__import__("os").environ, MXNET_ENGINE_TYPE="NaiveEngine"),
                         capture_output=True, text=True, check=True)
    retained, released = (int(v) for v in out.stdout.split()[-2:])
    assert released <= retained - 16 * 2**20, (retained, released)


def test_backward_without_retain_graph_refuses_a_second_backward():
    net = mx.gluon.nn.Dense(3)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    with mx.autograd.record():
        y = net(x)
    y.backward()
    with pytest.raises(mx.MXNetError, match="retain_graph"):
        y.backward()
