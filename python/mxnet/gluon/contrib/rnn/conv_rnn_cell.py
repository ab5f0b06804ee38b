"""Convolutional recurrent cells (ConvRNN, ConvLSTM, ConvGRU in 1, 2 and 3 dimensions): the
gated cells of gluon.rnn with the i2h/h2h projections made convolutions over the spatial
axes, so the states keep the spatial shape of the per-step input."""
from ....base import numeric_types
from .... import ndarray
from ...rnn import HybridRecurrentCell

__all__ = ['Conv1DRNNCell', 'Conv2DRNNCell', 'Conv3DRNNCell',
           'Conv1DLSTMCell', 'Conv2DLSTMCell', 'Conv3DLSTMCell',
           'Conv1DGRUCell', 'Conv2DGRUCell', 'Conv3DGRUCell']


def _conv_out_size(dims, kernel, pad, dilate):
    """Spatial output size of a stride-1 convolution; an unknown (0) size stays 0."""
    return tuple(x + 2 * p - d * (k - 1) if x else 0
                 for x, k, p, d in zip(dims, kernel, pad, dilate))


def _spec(value, dims, what):
    """An int or a tuple of `dims` ints, as a tuple of `dims` ints."""
    if isinstance(value, numeric_types):
        return (int(value),) * dims
    value = tuple(value)
    if len(value) != dims:
        raise ValueError("For {d}D convolution, the convolution settings can only be either "
                         "int or list/tuple of length {d}; {w} is {v}".format(d=dims, w=what,
                                                                             v=value))
    return value


class _BaseConvRNNCell(HybridRecurrentCell):
    """Shared by the convolutional cells: parameters i2h_weight (gates*hidden, C_in, *k_i2h),
    h2h_weight (gates*hidden, hidden, *k_h2h) and the two biases (gates*hidden,); the h2h
    convolution pads so the state keeps its size (odd h2h kernels only). In a channel-last
    layout the kernel axes come before the channel axis, as Convolution wants them."""
    _gate_names = ('',)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                 i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, dims, conv_layout, activation,
                 prefix=None, params=None):
        super(_BaseConvRNNCell, self).__init__(prefix=prefix, params=params)
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        self._dims = dims
        self._i2h_kernel = _spec(i2h_kernel, dims, 'i2h_kernel')
        self._i2h_pad = _spec(i2h_pad, dims, 'i2h_pad')
        self._i2h_dilate = _spec(i2h_dilate, dims, 'i2h_dilate')
        self._h2h_kernel = _spec(h2h_kernel, dims, 'h2h_kernel')
        self._h2h_dilate = _spec(h2h_dilate, dims, 'h2h_dilate')
        self._stride = (1,) * dims
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise ValueError("Only support odd number, get h2h_kernel= %s" % str(h2h_kernel))
        if len(self._input_shape) != dims + 1:
            raise ValueError("%s: input_shape expected %d entries (channels and %d spatial "
                             "sizes, in the order of conv_layout %s), given %s"
                             % (type(self).__name__, dims + 1, dims, conv_layout,
                                self._input_shape))
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                              self._h2h_kernel))
        self._channel_axis = conv_layout.find('C')
        channel_first = self._channel_axis == 1
        in_channels = self._input_shape[0 if channel_first else -1]
        self._in_channels = in_channels
        spatial = self._input_shape[1:] if channel_first else self._input_shape[:-1]
        out_size = _conv_out_size(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate)
        rows = hidden_channels * self._num_gates
        if channel_first:
            i2h_shape = (rows, in_channels) + self._i2h_kernel
            h2h_shape = (rows, hidden_channels) + self._h2h_kernel
            self._state_shape = (hidden_channels,) + out_size
        else:
            i2h_shape = (rows,) + self._i2h_kernel + (in_channels,)
            h2h_shape = (rows,) + self._h2h_kernel + (hidden_channels,)
            self._state_shape = out_size + (hidden_channels,)
        self.i2h_weight = self.params.get('i2h_weight', shape=i2h_shape,
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=h2h_shape,
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,),
                                        init=i2h_bias_initializer, allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,),
                                        init=h2h_bias_initializer, allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size,) + self._state_shape, '__layout__': self._conv_layout}
                for _ in range(self._num_states)]

    _num_states = 1

    def infer_shape(self, inputs, *args):
        """Fills the input channels of i2h_weight from the step's input."""
        shape = list(self.i2h_weight.shape)
        channel = inputs.shape[self._channel_axis]
        if self._channel_axis == 1:
            shape[1] = channel
        else:
            shape[-1] = channel
        self.i2h_weight.shape = tuple(shape)

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return '{name}({i} -> {o}, {act}, {layout})'.format(
            name=type(self).__name__, i=in_channels if in_channels else None, o=shape[0],
            act=self._activation, layout=self._conv_layout)

    def _conv_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                      prefix):
        """(conv_i2h(x), conv_h2h(h)) for this step, each with gates*hidden channels."""
        if F is ndarray:
            self._check_step(inputs, states)
        rows = self._hidden_channels * self._num_gates
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias, num_filter=rows,
                            kernel=self._i2h_kernel, stride=self._stride, pad=self._i2h_pad,
                            dilate=self._i2h_dilate, layout=self._conv_layout,
                            name=prefix + 'i2h')
        h2h = F.Convolution(data=states[0], weight=h2h_weight, bias=h2h_bias, num_filter=rows,
                            kernel=self._h2h_kernel, stride=self._stride, pad=self._h2h_pad,
                            dilate=self._h2h_dilate, layout=self._conv_layout,
                            name=prefix + 'h2h')
        return i2h, h2h

    def _check_step(self, inputs, states):
        """Names the cell and the shapes when a step's states do not fit its input."""
        from ....base import MXNetError
        if inputs.ndim != self._dims + 2:
            raise MXNetError("%s '%s': inputs expected %d dims (%s), given shape %s"
                             % (type(self).__name__, self.name, self._dims + 2,
                                self._conv_layout, inputs.shape))
        expected = [tuple(info['shape']) for info in self.state_info(inputs.shape[0])]
        expected = [tuple(s if e == 0 else e for e, s in zip(exp, st.shape))
                    for exp, st in zip(expected, states)]
        given = [st.shape for st in states]
        if given != expected:
            raise MXNetError("%s '%s': states of shapes %s do not fit; expected %s"
                             % (type(self).__name__, self.name, given, expected))


class _ConvRNNCell(_BaseConvRNNCell):
    """h' = activation(conv_i2h(x) + conv_h2h(h))."""

    def _alias(self):
        return 'conv_rnn'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        output = self._get_activation(F, i2h + h2h, self._activation, name=prefix + 'out')
        return output, [output]


class _ConvLSTMCell(_BaseConvRNNCell):
    """Gates i, f, c, o sliced on the channel axis; c' = f*c + i*act(g), h' = o*act(c')."""
    _gate_names = ('_i', '_f', '_c', '_o')
    _num_states = 2

    def _alias(self):
        return 'conv_lstm'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, axis=self._channel_axis,
                               name=prefix + 'slice')
        in_gate = F.Activation(gates[0], act_type='sigmoid', name=prefix + 'i')
        forget_gate = F.Activation(gates[1], act_type='sigmoid', name=prefix + 'f')
        candidate = self._get_activation(F, gates[2], self._activation, name=prefix + 'c')
        out_gate = F.Activation(gates[3], act_type='sigmoid', name=prefix + 'o')
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * candidate,
                                name=prefix + 'state')
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation),
                                name=prefix + 'out')
        return next_h, [next_h, next_c]


class _ConvGRUCell(_BaseConvRNNCell):
    """Gates r, z, n sliced on the channel axis; n = act(x_n + r * h_n),
    h' = (1 - z) * n + z * h."""
    _gate_names = ('_r', '_z', '_o')

    def _alias(self):
        return 'conv_gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, axis=self._channel_axis,
                                             name=prefix + 'i2h_slice')
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, axis=self._channel_axis,
                                             name=prefix + 'h2h_slice')
        reset_gate = F.Activation(i2h_r + h2h_r, act_type='sigmoid', name=prefix + 'r_act')
        update_gate = F.Activation(i2h_z + h2h_z, act_type='sigmoid', name=prefix + 'z_act')
        candidate = self._get_activation(F, i2h_n + reset_gate * h2h_n, self._activation,
                                         name=prefix + 'h_act')
        next_h = F.elemwise_add((1. - update_gate) * candidate, update_gate * states[0],
                                name=prefix + 'out')
        return next_h, [next_h]


def _cell_class(name, base, dims, layout, doc):
    """A public cell: `base` with the 1.9.1 signature for `dims` spatial dimensions."""
    zeros, ones = (0,) * dims, (1,) * dims

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=zeros, i2h_dilate=ones, h2h_dilate=ones,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout=layout, activation='tanh', prefix=None, params=None):
        base.__init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                      i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                      i2h_bias_initializer, h2h_bias_initializer, dims, conv_layout,
                      activation, prefix=prefix, params=params)

    __init__.__doc__ = doc
    return type(name, (base,), {'__init__': __init__, '__doc__': doc, '__module__': __name__})


_DOC = """{kind} cell over {dims}-D inputs of layout {layout} (input_shape excludes the
batch axis, e.g. {example}). Arguments: input_shape, hidden_channels, i2h_kernel, h2h_kernel
(odd sizes only), i2h_pad, i2h_dilate, h2h_dilate, the four initializers, conv_layout,
activation (a name or a block such as LeakyReLU), prefix, params."""

_KINDS = (('RNN', _ConvRNNCell, 'Convolutional RNN'),
          ('LSTM', _ConvLSTMCell, 'Convolutional LSTM'),
          ('GRU', _ConvGRUCell, 'Convolutional GRU'))
_LAYOUTS = ((1, 'NCW', '(C, W)'), (2, 'NCHW', '(C, H, W)'), (3, 'NCDHW', '(C, D, H, W)'))

for _kind, _base, _title in _KINDS:
    for _dims, _layout, _example in _LAYOUTS:
        _name = 'Conv%dD%sCell' % (_dims, _kind)
        globals()[_name] = _cell_class(_name, _base, _dims, _layout,
                                       _DOC.format(kind=_title, dims=_dims, layout=_layout,
                                                   example=_example))
