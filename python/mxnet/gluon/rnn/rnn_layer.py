"""Fused recurrent layers (RNN, LSTM, GRU): whole multi-layer, optionally bidirectional
sequences in one call of the fused `RNN` operator."""
import re

from ... import ndarray, symbol
from ...base import InvalidConfigError, MXNetError
from ..block import HybridBlock
from ..parameter import tensor_types
from . import rnn_cell

__all__ = ['RNN', 'LSTM', 'GRU']

_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}
# names of per-layer parameters: <l|r><layer>_<i2h|h2h|h2r>_<weight|bias>
_PARAM_NAME = re.compile(r'(l|r)(\d)_(i2h|h2h|h2r)_(weight|bias)\Z')


class _RNNLayer(HybridBlock):
    """What the three fused layers share: per-layer parameters, their packing into the
    op's flat vector, states and layouts."""

    def __init__(self, hidden_size, num_layers, layout,
                 dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer,
                 mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan,
                 dtype, use_sequence_length=False, **kwargs):
        super(_RNNLayer, self).__init__(**kwargs)
        if layout not in ('TNC', 'NTC'):
            raise InvalidConfigError("Invalid layout %s; must be one of ['TNC' or 'NTC']"
                                     % layout)
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]

        rows = self._gates * hidden_size
        # the recurrent input of each step: the projected state when projecting
        recurrent = self._projection_size or hidden_size
        layer_input = input_size
        for i in range(num_layers):
            for d in ['l', 'r'][:self._dir]:
                self._register_param('%s%d_i2h_weight' % (d, i), (rows, layer_input),
                                     i2h_weight_initializer, dtype)
                self._register_param('%s%d_h2h_weight' % (d, i), (rows, recurrent),
                                     h2h_weight_initializer, dtype)
                self._register_param('%s%d_i2h_bias' % (d, i), (rows,),
                                     i2h_bias_initializer, dtype)
                self._register_param('%s%d_h2h_bias' % (d, i), (rows,),
                                     h2h_bias_initializer, dtype)
                if self._projection_size:
                    self._register_param('%s%d_h2r_weight' % (d, i),
                                         (self._projection_size, hidden_size),
                                         h2r_weight_initializer, dtype)
            layer_input = recurrent * self._dir

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(name, shape=shape, init=init,
                                allow_deferred_init=True, dtype=dtype)
        setattr(self, name, param)
        return param

    def __repr__(self):
        extras = ''
        if self._num_layers != 1:
            extras += ', num_layers=%s' % self._num_layers
        if self._dropout != 0:
            extras += ', dropout=%s' % self._dropout
        if self._dir == 2:
            extras += ', bidirectional'
        shape = self.l0_i2h_weight.shape
        mapping = '{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0] // self._gates)
        return '{name}({mapping}, {layout}{extras})'.format(
            name=type(self).__name__, mapping=mapping, layout=self._layout, extras=extras)

    def _collect_params_with_prefix(self, prefix=''):
        # Parameter files name the layers as the unfused cell stack of earlier versions
        # did ('_unfused.0.l_cell.i2h_weight'), so old files keep loading.
        if prefix:
            prefix += '.'
        bidirectional = any(_PARAM_NAME.match(k).group(1) == 'r' for k in self._reg_params)

        def file_key(name):
            direction, layer, group, kind = _PARAM_NAME.match(name).groups()
            if bidirectional:
                return '_unfused.%s.%s_cell.%s_%s' % (layer, direction, group, kind)
            return '_unfused.%s.%s_%s' % (layer, group, kind)
        found = {prefix + file_key(key): value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def state_info(self, batch_size=0):
        raise NotImplementedError

    def _state_shapes(self, batch_size):
        """(h shape, c shape): h has the projection size when projecting."""
        layers = self._num_layers * self._dir
        return ((layers, batch_size, self._projection_size or self._hidden_size),
                (layers, batch_size, self._hidden_size))

    def _unfuse(self):
        """The equivalent HybridSequentialRNNCell of per-step cells, sharing these
        parameters (no projection or state clipping)."""
        if self._projection_size:
            raise InvalidConfigError("_unfuse does not support projection layer yet!")
        if self._lstm_state_clip_min or self._lstm_state_clip_max:
            raise InvalidConfigError("_unfuse does not support state clipping yet!")

        def make_cell(**kwargs):
            if self._mode in ('rnn_relu', 'rnn_tanh'):
                return rnn_cell.RNNCell(self._hidden_size, activation=self._mode[4:],
                                        **kwargs)
            if self._mode == 'lstm':
                return rnn_cell.LSTMCell(self._hidden_size, **kwargs)
            return rnn_cell.GRUCell(self._hidden_size, **kwargs)

        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            layer_input = self._input_size
            for i in range(self._num_layers):
                kwargs = {'input_size': layer_input,
                          'i2h_weight_initializer': self._i2h_weight_initializer,
                          'h2h_weight_initializer': self._h2h_weight_initializer,
                          'i2h_bias_initializer': self._i2h_bias_initializer,
                          'h2h_bias_initializer': self._h2h_bias_initializer}
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(make_cell(prefix='l%d_' % i, **kwargs),
                                                         make_cell(prefix='r%d_' % i, **kwargs)))
                else:
                    stack.add(make_cell(prefix='l%d_' % i, **kwargs))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                layer_input = self._hidden_size * self._dir
        return stack

    def cast(self, dtype):
        super(_RNNLayer, self).cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states made by `func(name=..., shape=..., dtype=..., **kwargs)`."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            if info is not None:
                info.update(kwargs)
            else:
                info = kwargs
            states.append(func(name='%sh0_%d' % (self.prefix, i), **info))
        return states

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        """Returns the outputs, and the final states too when `states` were given
        (default: zeros). `sequence_length` (N,) is read with use_sequence_length."""
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, ndarray.NDArray):
                batch_size = inputs.shape[self._layout.find('N')]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, tensor_types):
            states = [states]
        if self._use_sequence_length:
            return super(_RNNLayer, self).__call__(inputs, states, sequence_length, **kwargs)
        return super(_RNNLayer, self).__call__(inputs, states, **kwargs)

    def infer_shape(self, inputs, *args):
        """The first layer's i2h weights take the inputs' feature size."""
        width = inputs.shape[2]
        for d in ['l', 'r'][:self._dir]:
            getattr(self, '%s0_i2h_weight' % d).shape = (self._gates * self._hidden_size,
                                                          width)

    def _check_inputs(self, inputs, states):
        if inputs.ndim != 3:
            raise MXNetError("%s '%s': inputs must be 3-D in layout %s, given shape %s"
                             % (type(self).__name__, self.name, self._layout,
                                inputs.shape))
        expected = self.l0_i2h_weight.shape[1]
        if inputs.shape[2] != expected:
            raise MXNetError("%s '%s': inputs have %d features (shape %s, layout %s) but the "
                             "layer was built for input_size %d"
                             % (type(self).__name__, self.name, inputs.shape[2],
                                inputs.shape, self._layout, expected))
        batch_size = inputs.shape[self._layout.find('N')]
        for state, info in zip(states, self.state_info(batch_size)):
            if state.shape != info['shape']:
                raise ValueError("Invalid recurrent state shape. Expecting %s, got %s."
                                 % (str(info['shape']), str(state.shape)))

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if F is ndarray:
            self._check_inputs(inputs, states)
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out

    def _packed_params(self, F, params):
        """The op's flat parameter vector: every weight (layer by layer, direction by
        direction, i2h then h2h then h2r), then every bias in the same order."""
        groups = ['i2h', 'h2h', 'h2r'] if self._projection_size else ['i2h', 'h2h']
        flat = [params['%s%d_%s_%s' % (d, layer, group, kind)].reshape(-1)
                for kind in ['weight', 'bias']
                for layer in range(self._num_layers)
                for d in ['l', 'r'][:self._dir]
                for group in groups
                if group != 'h2r' or kind != 'bias']
        concat = vars(F._internal).get('_rnn_param_concat') or F.concat
        return concat(*flat, dim=0)

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        if not hasattr(F, 'RNN'):
            raise MXNetError("%s '%s' runs on the fused RNN operator, which this build of "
                             "mxnet does not have (mx.nd.RNN is missing)"
                             % (type(self).__name__, self.name))
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, 0, 1)
        rnn_args = states + [sequence_length] if self._use_sequence_length else states
        rnn = F.RNN(inputs, self._packed_params(F, kwargs), *rnn_args,
                    use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2,
                    p=self._dropout, state_outputs=True, mode=self._mode,
                    lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max,
                    lstm_state_clip_nan=self._lstm_state_clip_nan)
        outputs = rnn[0]
        states = [rnn[1], rnn[2]] if self._mode == 'lstm' else [rnn[1]]
        if self._layout == 'NTC':
            outputs = F.swapaxes(outputs, 0, 1)
        return outputs, states


class RNN(_RNNLayer):
    """Multi-layer Elman RNN, h_t = activation(W_i2h x_t + b_i2h + W_h2h h_{t-1} + b_h2h),
    with activation 'relu' or 'tanh'."""

    def __init__(self, hidden_size, num_layers=1, activation='relu',
                 layout='TNC', dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, dtype='float32', **kwargs):
        super(RNN, self).__init__(hidden_size, num_layers, layout,
                                  dropout, bidirectional, input_size,
                                  i2h_weight_initializer, h2h_weight_initializer,
                                  i2h_bias_initializer, h2h_bias_initializer,
                                  'rnn_' + activation, None, None, None, None, False,
                                  dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [{'shape': self._state_shapes(batch_size)[0], '__layout__': 'LNC',
                 'dtype': self._dtype}]


class LSTM(_RNNLayer):
    """Multi-layer LSTM (gates i, f, c, o as LSTMCell), optionally with a projection of the
    hidden state (LSTMP) and clipping of the cell state."""

    def __init__(self, hidden_size, num_layers=1, layout='TNC',
                 dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False,
                 dtype='float32', **kwargs):
        super(LSTM, self).__init__(hidden_size, num_layers, layout,
                                   dropout, bidirectional, input_size,
                                   i2h_weight_initializer, h2h_weight_initializer,
                                   i2h_bias_initializer, h2h_bias_initializer,
                                   'lstm', projection_size, h2r_weight_initializer,
                                   state_clip_min, state_clip_max, state_clip_nan,
                                   dtype, **kwargs)

    def state_info(self, batch_size=0):
        h_shape, c_shape = self._state_shapes(batch_size)
        return [{'shape': h_shape, '__layout__': 'LNC', 'dtype': self._dtype},
                {'shape': c_shape, '__layout__': 'LNC', 'dtype': self._dtype}]


class GRU(_RNNLayer):
    """Multi-layer GRU (gates r, z, n as GRUCell)."""

    def __init__(self, hidden_size, num_layers=1, layout='TNC',
                 dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 dtype='float32', **kwargs):
        super(GRU, self).__init__(hidden_size, num_layers, layout,
                                  dropout, bidirectional, input_size,
                                  i2h_weight_initializer, h2h_weight_initializer,
                                  i2h_bias_initializer, h2h_bias_initializer,
                                  'gru', None, None, None, None, False,
                                  dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [{'shape': self._state_shapes(batch_size)[0], '__layout__': 'LNC',
                 'dtype': self._dtype}]
