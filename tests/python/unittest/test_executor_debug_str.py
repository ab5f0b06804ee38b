"""Executor.debug_str() (MXExecutorPrint) prints what MXNet 1.9.1 prints: the bound graph as
Symbol.debug_str shows it, "Total N MB allocated" and the TempSpace line (the number of temp
spaces the executor's nodes use; 1.9.1 printed a constant 11)."""
import mxnet as mx

# MXNet 1.9.1's output for _net() bound with grad_req='null' (its last line was
# "Total 11 TempSpace resource requested")
MXNET191 = """\
Symbol Outputs:
\toutput[0]=sm(0)
Variable:data
Variable:fc1_weight
Variable:fc1_bias
--------------------
Op:FullyConnected, Name=fc1
Inputs:
\targ[0]=data(0) version=0
\targ[1]=fc1_weight(0) version=0
\targ[2]=fc1_bias(0) version=0
Attrs:
\tnum_hidden=8
--------------------
Op:Activation, Name=relu1
Inputs:
\targ[0]=fc1(0)
Attrs:
\tact_type=relu
--------------------
Op:Reshape, Name=reshape0
Inputs:
\targ[0]=relu1(0)
Attrs:
\tshape=(0, 2, 2, 2)
Variable:conv_weight
Variable:conv_bias
--------------------
Op:Convolution, Name=conv
Inputs:
\targ[0]=reshape0(0)
\targ[1]=conv_weight(0) version=0
\targ[2]=conv_bias(0) version=0
Attrs:
\tkernel=(1, 1)
\tnum_filter=2
--------------------
Op:Flatten, Name=flatten0
Inputs:
\targ[0]=conv(0)
Variable:sm_label
--------------------
Op:SoftmaxOutput, Name=sm
Inputs:
\targ[0]=flatten0(0)
\targ[1]=sm_label(0) version=0
Total 0 MB allocated
"""


def _net():
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.Convolution(mx.sym.Reshape(net, shape=(0, 2, 2, 2), name='reshape0'),
                             num_filter=2, kernel=(1, 1), name='conv')
    return mx.sym.SoftmaxOutput(mx.sym.Flatten(net, name='flatten0'), name='sm')


def test_inference_plan_prints_as_mxnet_191():
    ex = _net().simple_bind(mx.cpu(), data=(4, 5), grad_req='null')
    # one Convolution asks for temp space: one space, the executor's own
    assert ex.debug_str() == MXNET191 + "Total 1 TempSpace resource requested\n"


def test_megabytes_count_the_planned_blocks():
    x = mx.sym.var('x')
    ex = mx.sym.sin(mx.sym.exp(x)).simple_bind(mx.cpu(), x=(1024, 1024), grad_req='null')
    lines = ex.debug_str().splitlines()
    assert lines[-2] == "Total 4 MB allocated"  # exp's 4 MB block, which sin writes over
    assert lines[-1] == "Total 0 TempSpace resource requested"


def test_a_fused_subgraph_op_is_one_node():
    # as MXNet 1.9.1: the subgraph's own nodes are not listed
    data = mx.sym.var('data')
    conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), no_bias=True, name='conv')
    fused = mx.sym.Activation(conv, act_type='relu', name='relu').optimize_for('ONEDNN')
    text = fused.simple_bind(mx.cpu(), data=(1, 3, 8, 8), grad_req='null').debug_str()
    assert text.count("--------------------") == 1
    assert "Op:_sg_onednn_conv" in text and "Op:Convolution" not in text
