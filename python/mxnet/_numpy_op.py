"""mx.operator.PythonOp / NumpyOp: MXNet's deprecated operators whose forward and backward
work on numpy arrays, run here as a custom operator (mx.operator.CustomOp) that hands the
arrays over as numpy copies and writes the results back."""
import itertools
import warnings

import numpy as np

from . import operator as _operator

_COUNTER = itertools.count()


class PythonOp(object):
    """Base class of operators written in Python (deprecated in MXNet: use CustomOp).

    Parameters
    ----------
    need_top_grad : bool
        What the default need_top_grad() returns.
    """
    _ref_holder = []

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn('PythonOp has been deprecated. Please use CustomOp')

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        """The symbol applying this operator to the given symbols."""
        raise NotImplementedError("Must override this")

    def forward(self, in_data, out_data):
        """Compute out_data (a list of arrays written in place) from in_data."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        """Compute in_grad (written in place)."""
        # pylint: disable=unused-argument
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """(input shapes, output shapes) from the input shapes."""
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        """Names of the outputs."""
        return ['output']

    def list_arguments(self):
        """Names of the inputs."""
        return ['data']

    def need_top_grad(self):
        """Whether backward needs the output gradients (False for loss layers)."""
        return self.need_top_grad_


class NumpyOp(PythonOp):
    """An operator whose forward and backward compute on numpy arrays (deprecated in MXNet:
    use CustomOp). Each get_symbol call registers the instance as a custom operator."""

    def __init__(self, need_top_grad=True):
        super(NumpyOp, self).__init__(need_top_grad)
        warnings.warn('NumpyOp has been deprecated. Please use CustomOp')

    def get_symbol(self, *args, **kwargs):
        from . import symbol
        op_type = "_NumpyOp%d" % next(_COUNTER)
        _operator.register(op_type)(_prop_class(self))
        NumpyOp._ref_holder.append(self)
        return symbol.Custom(*args, op_type=op_type, **kwargs)


def _prop_class(pyop):
    """A CustomOpProp class declaring what pyop declares and creating _NumpyCustomOp."""
    class _Prop(_operator.CustomOpProp):
        def __init__(self):
            super(_Prop, self).__init__(need_top_grad=pyop.need_top_grad())

        def list_arguments(self):
            return pyop.list_arguments()

        def list_outputs(self):
            return pyop.list_outputs()

        def infer_shape(self, in_shape):
            ishape, oshape = pyop.infer_shape([list(s) for s in in_shape])
            return [tuple(s) for s in ishape], [tuple(s) for s in oshape], []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return _NumpyCustomOp(pyop)
    return _Prop


class _NumpyCustomOp(_operator.CustomOp):
    """Runs a NumpyOp's forward/backward on float32 numpy copies of the arrays."""

    def __init__(self, pyop):
        super(_NumpyCustomOp, self).__init__()
        self._pyop = pyop

    @staticmethod
    def _numpy(arrays):
        return [None if a is None else a.asnumpy().astype(np.float32) for a in arrays]

    def _write_back(self, req, dst, src):
        from . import ndarray
        for r, d, s in zip(req, dst, src):
            self.assign(d, r, ndarray.array(s, ctx=d.context, dtype=d.dtype))

    def forward(self, is_train, req, in_data, out_data, aux):
        outs = [np.zeros(o.shape, dtype=np.float32) for o in out_data]
        self._pyop.forward(in_data=self._numpy(in_data), out_data=outs)
        self._write_back(req, out_data, outs)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grads = [np.zeros(g.shape, dtype=np.float32) for g in in_grad]
        self._pyop.backward(out_grad=self._numpy(out_grad), in_data=self._numpy(in_data),
                            out_data=self._numpy(out_data), in_grad=grads)
        self._write_back(req, in_grad, grads)
