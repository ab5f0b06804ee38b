"""Test helpers for numpy-mode Gluon (MXNet 1.9.1's test_utils.check_gluon_hybridize_consistency)."""
from . import autograd, initializer


class _InitFromNumpy(initializer.Initializer):
    """Initializes each parameter from a dict name -> numpy array."""

    def __init__(self, values):
        super(_InitFromNumpy, self).__init__()
        self._values = values

    def _init_weight(self, name, arr):
        arr[()] = self._values[name]


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1E-4, atol=1E-4):
    """Check that the HybridBlock net_builder(prefix='net_') gives the same outputs (and input
    gradients, with test_grad) hybridized and not, starting from the same parameters, and the
    same outputs as numpy_func when given. data_l: the input mx.np arrays."""
    from .test_utils import assert_almost_equal
    ref_out = ref_grads = init = None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix='net_')
            net.initialize(init)
            if hybridize:
                net.hybridize()
            inputs = [x.copy() for x in data_l]
            if use_autograd:
                for x in inputs:
                    x.attach_grad()
                with autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if init is None:
                init = _InitFromNumpy({k: v.data().asnumpy()
                                       for k, v in net.collect_params().items()})
            if ref_out is None:
                ref_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), ref_out, rtol=rtol, atol=atol)
            if use_autograd:
                grads = [x.grad.asnumpy() for x in inputs]
                if ref_grads is None:
                    ref_grads = grads
                else:
                    for got, want in zip(grads, ref_grads):
                        assert_almost_equal(got, want, rtol=rtol, atol=atol)
    if numpy_func is not None:
        assert_almost_equal(ref_out, numpy_func(*[x.asnumpy() for x in data_l]),
                            rtol=rtol, atol=atol)
