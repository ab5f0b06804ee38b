"""Names the executor's monitor callback gets, as MXNet 1.9.1: outputs as the symbol lists
them, inputs "<node>_<input name>" (FListInputNames, else "input<i>"), variables by name."""
import mxnet as mx


def _names(sym, monitor_all):
    names = []
    ex = sym.simple_bind(ctx=mx.cpu(), grad_req='null')
    ex.set_monitor_callback(lambda name, arr: names.append(mx.base.py_str(name)),
                            monitor_all=monitor_all)
    ex.forward()
    mx.nd.waitall()
    return names


def test_output_names():
    data = mx.sym.Variable('data', shape=(2, 3, 8, 8))
    conv = mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name='conv')
    assert _names(conv, False) == ['conv_output']
    sm = mx.sym.softmax(mx.sym.Variable('x', shape=(2, 3)), name='sm')
    assert _names(sm, False) == ['sm_output']


def test_all_names_include_inputs_and_variables():
    data = mx.sym.Variable('data', shape=(2, 3, 8, 8))
    conv = mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name='conv')
    assert _names(conv, True) == ['data', 'conv_data', 'conv_weight', 'conv_weight',
                                  'conv_bias', 'conv_bias', 'conv_output']
    act = mx.sym.Activation(mx.sym.Variable('x', shape=(2, 3)), act_type='relu', name='act')
    assert _names(act, True)[-2:] == ['act_input0', 'act_output']


def test_input_from_another_node_is_not_named_as_a_variable():
    x = mx.sym.Variable('x', shape=(2, 3))
    y = mx.sym.relu(mx.sym.sin(x, name='s'), name='r')
    names = _names(y, True)
    assert names.count('x') == 1 and names[0] == 'x'
    assert names[1].startswith('s_') and names[2] == 's_output'
    assert names[3].startswith('r_') and names[3] != 's_output' and names[4] == 'r_output'


def test_monitor_survives_reshape_and_hands_ctypes_handles():
    import ctypes
    from mxnet.base import NDArrayHandle
    from mxnet.ndarray import NDArray
    seen = {}

    def callback(name, arr):
        arr = NDArray(ctypes.cast(arr, NDArrayHandle), writable=False)  # MXNet 1.x style
        seen[mx.base.py_str(name)] = arr.shape

    data = mx.sym.Variable('data')
    sym = mx.sym.Convolution(data, kernel=(1, 1), num_filter=1, name='conv')
    ex = sym.simple_bind(mx.cpu(), data=(1, 3, 4, 4), grad_req='null')
    ex.set_monitor_callback(callback, monitor_all=True)
    ex2 = ex.reshape(allow_up_sizing=True, data=(1, 3, 4, 6))
    ex2.forward()
    mx.nd.waitall()
    assert seen['conv_output'] == (1, 1, 4, 6)
    assert seen['data'] == (1, 3, 4, 6)


def test_dummy_iter_repeats_the_first_batch():
    it = mx.test_utils.DummyIter(mx.io.NDArrayIter(mx.nd.arange(8).reshape(4, 2), batch_size=2))
    first = next(it)
    for batch, _ in zip(it, range(3)):
        assert batch is first
    assert it.batch_size == 2 and it.provide_data[0].shape == (2, 2)
