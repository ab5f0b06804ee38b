"""Recurrent cells: one time step of RNN/LSTM/GRU and the cells that stack, wrap or
reverse them; `unroll` runs a cell over a whole sequence."""
from ... import ndarray, symbol
from ...base import InvalidConfigError, MXNetError, _as_list, numeric_types, string_types
from ..block import Block, HybridBlock
from ..parameter import tensor_types
from ..utils import _indent

__all__ = ['RecurrentCell', 'HybridRecurrentCell',
           'RNNCell', 'LSTMCell', 'GRUCell',
           'SequentialRNNCell', 'HybridSequentialRNNCell', 'DropoutCell',
           'ModifierCell', 'ZoneoutCell', 'ResidualCell',
           'BidirectionalCell']

_MODIFIED_BASE_CELL = ("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot "
                       "be called directly. Call the modifier cell instead.")


def _require(condition, message):
    if not condition:
        raise InvalidConfigError(message)


def _cells_state_info(cells, batch_size):
    return sum([cell.state_info(batch_size) for cell in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([cell.begin_state(**kwargs) for cell in cells], [])


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    """`begin_state`, or zeros from the cell (on the inputs' context) when it is None."""
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, tensor_types) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """Brings a sequence to the form a cell wants: one tensor with time on layout's 'T' axis
    (merge True), a list of per-step (N, C) tensors (merge False), or as given (None).
    Returns (inputs, time axis, F, batch size (0 for symbols))."""
    _require(inputs is not None, "unroll(inputs=None) has been deprecated. Please create "
                                 "input variables outside unroll.")
    axis = layout.find('T')
    batch_axis = layout.find('N')
    batch_size = 0
    in_axis = in_layout.find('T') if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        F = symbol
        if merge is False:
            _require(len(inputs.list_outputs()) == 1,
                     "unroll doesn't allow grouped symbol as input. Please convert to list "
                     "with list(inputs) first or let unroll handle splitting.")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length,
                                       squeeze_axis=1))
    elif isinstance(inputs, ndarray.NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            _require(length is None or length == inputs.shape[in_axis],
                     "unroll: length=%s but the inputs have %d steps on axis %d (shape %s)"
                     % (length, inputs.shape[in_axis], in_axis, inputs.shape))
            inputs = _as_list(ndarray.split(inputs, axis=in_axis,
                                            num_outputs=inputs.shape[in_axis],
                                            squeeze_axis=1))
    else:
        _require(length is None or len(inputs) == length,
                 "unroll: length=%s but %d input steps were given" % (length, len(inputs)))
        if isinstance(inputs[0], symbol.Symbol):
            F = symbol
        else:
            F = ndarray
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, tensor_types) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """Zeros the steps at or past each sample's valid length; a list comes back as a list
    unless `merge`."""
    _require(valid_length is not None, "valid_length is required to mask a sequence")
    if not isinstance(data, tensor_types):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                             axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis,
                                   squeeze_axis=True))
    return outputs


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    """The list of steps reversed; with valid_length each sample reverses only its valid
    prefix (padding stays at the end)."""
    F = symbol if isinstance(sequences[0], symbol.Symbol) else ndarray
    if valid_length is None:
        return list(reversed(sequences))
    reversed_sequences = F.SequenceReverse(F.stack(*sequences, axis=0),
                                           sequence_length=valid_length,
                                           use_sequence_length=True)
    if unroll_step > 1 or F is symbol:
        return F.split(reversed_sequences, axis=0, num_outputs=unroll_step, squeeze_axis=True)
    return [reversed_sequences[0]]


def _leaky_relu_slope(activation):
    """The slope of a gluon.nn.LeakyReLU block, or None for anything else."""
    try:
        from ..nn import LeakyReLU
    except ImportError:
        return None
    return activation._alpha if isinstance(activation, LeakyReLU) else None


class RecurrentCell(Block):
    """Base class of recurrent cells: `cell(inputs, states)` runs one step and returns
    (output, new states); `unroll` runs many."""

    def __init__(self, prefix=None, params=None):
        super(RecurrentCell, self).__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Restarts the step counters (of this cell and its children) before a new sequence."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        """The shape and layout of each state, as a list of dicts."""
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states made by `func(name=..., shape=..., **kwargs)` (default zeros)."""
        _require(not self._modified, _MODIFIED_BASE_CELL)
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            if info is not None:
                info.update(kwargs)
            else:
                info = kwargs
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter),
                               **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Runs `length` steps over `inputs` (a tensor in `layout` or a list of steps).

        Returns (outputs, states): outputs merged into one tensor when `merge_outputs`, a list
        when False, and in the form of the inputs when None. With `valid_length` (N,),
        outputs past each sample's length are zero and states are those of its last step."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs = []
        all_states = []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*step_states, axis=0),
                                     sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for step_states in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """Applies `activation`: a name ('tanh', 'relu', any Activation act_type), a
        LeakyReLU block, or any callable."""
        named = {'tanh': F.tanh, 'relu': F.relu, 'sigmoid': F.sigmoid,
                 'softsign': F.softsign}.get(activation) \
            if isinstance(activation, string_types) else None
        if named:
            return named(inputs, **kwargs)
        if isinstance(activation, string_types):
            return F.Activation(inputs, act_type=activation, **kwargs)
        slope = _leaky_relu_slope(activation)
        if slope is not None:
            return F.LeakyReLU(inputs, act_type='leaky', slope=slope, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """One step: (output, new states)."""
        self._counter += 1
        return super(RecurrentCell, self).forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A RecurrentCell whose step is a `hybrid_forward`."""

    def __init__(self, prefix=None, params=None):
        super(HybridRecurrentCell, self).__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    """A cell with i2h/h2h weights and biases of `gates * hidden_size` rows."""
    _num_gates = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super(_GatedCell, self).__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._num_gates * hidden_size
        self.i2h_weight = self.params.get('i2h_weight', shape=(rows, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=(rows, hidden_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,),
                                        init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,),
                                        init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}]

    def infer_shape(self, inputs, *args):
        width = 1
        for dim in inputs.shape[1:]:
            width *= dim
        self.i2h_weight.shape = (self._num_gates * self._hidden_size, width)

    def _mapping(self):
        shape = self.i2h_weight.shape
        return '{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0])

    def __repr__(self):
        return '{name}({mapping})'.format(name=type(self).__name__, mapping=self._mapping())

    def _check_step(self, inputs, states, i2h_weight):
        """Names this cell and the shapes when a step's inputs or states do not fit it."""
        if not isinstance(inputs, ndarray.NDArray):
            return  # a symbolic step: shape inference checks it when the graph is bound
        width = 1
        for dim in inputs.shape[1:]:
            width *= dim
        if width != i2h_weight.shape[1]:
            raise MXNetError("%s '%s': inputs of shape %s have %d features but the cell was "
                             "built for input_size %d" % (type(self).__name__, self.name,
                                                          inputs.shape, width,
                                                          i2h_weight.shape[1]))
        expected = [info['shape'] for info in self.state_info(inputs.shape[0])]
        given = [state.shape for state in states]
        if given != expected:
            raise MXNetError("%s '%s': states of shapes %s do not fit inputs of shape %s; "
                             "expected %s" % (type(self).__name__, self.name, given,
                                              inputs.shape, expected))

    def _projections(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        """(W_i2h x + b_i2h, W_h2h h + b_h2h) for this step."""
        if F is ndarray:
            self._check_step(inputs, states, i2h_weight)
        prefix = 't%d_' % self._counter
        state = states[0]
        rows = self._num_gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias,
                               num_hidden=rows, name=prefix + 'i2h')
        h2h = F.FullyConnected(data=state, weight=h2h_weight, bias=h2h_bias,
                               num_hidden=rows, name=prefix + 'h2h')
        return i2h, h2h


class RNNCell(_GatedCell):
    """Elman step: h' = activation(W_i2h x + b_i2h + W_h2h h + b_h2h)."""

    def __init__(self, hidden_size, activation='tanh',
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super(RNNCell, self).__init__(hidden_size, i2h_weight_initializer,
                                      h2h_weight_initializer, i2h_bias_initializer,
                                      h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return 'rnn'

    def __repr__(self):
        return '{name}({mapping}, {act})'.format(name=type(self).__name__,
                                                 mapping=self._mapping(),
                                                 act=self._activation)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._projections(F, inputs, states, i2h_weight, h2h_weight,
                                     i2h_bias, h2h_bias)
        summed = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
        output = self._get_activation(F, summed, self._activation, name=prefix + 'out')
        return output, [output]


class LSTMCell(_GatedCell):
    """LSTM step with gates in the order input, forget, cell candidate, output:
    c' = f * c + i * g, h' = o * activation(c'); states are [h, c]."""
    _num_gates = 4

    def __init__(self, hidden_size,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None, activation='tanh',
                 recurrent_activation='sigmoid'):
        super(LSTMCell, self).__init__(hidden_size, i2h_weight_initializer,
                                       h2h_weight_initializer, i2h_bias_initializer,
                                       h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'},
                {'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}]

    def _alias(self):
        return 'lstm'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._projections(F, inputs, states, i2h_weight, h2h_weight,
                                     i2h_bias, h2h_bias)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + 'plus0'),
                               num_outputs=4, name=prefix + 'slice')
        gate = self._recurrent_activation
        in_gate = self._get_activation(F, gates[0], gate, name=prefix + 'i')
        forget_gate = self._get_activation(F, gates[1], gate, name=prefix + 'f')
        candidate = self._get_activation(F, gates[2], self._activation, name=prefix + 'c')
        out_gate = self._get_activation(F, gates[3], gate, name=prefix + 'o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + 'mul0'),
                                F.elemwise_mul(in_gate, candidate, name=prefix + 'mul1'),
                                name=prefix + 'state')
        next_h = F.elemwise_mul(out_gate, F.Activation(next_c, act_type=self._activation,
                                                       name=prefix + 'activation0'),
                                name=prefix + 'out')
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU step with gates reset r, update z, candidate n (the cuDNN form):
    n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), h' = (1 - z) * n + z * h."""
    _num_gates = 3

    def __init__(self, hidden_size,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super(GRUCell, self).__init__(hidden_size, i2h_weight_initializer,
                                      h2h_weight_initializer, i2h_bias_initializer,
                                      h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return 'gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        prev_h = states[0]
        i2h, h2h = self._projections(F, inputs, states, i2h_weight, h2h_weight,
                                     i2h_bias, h2h_bias)
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, name=prefix + 'i2h_slice')
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, name=prefix + 'h2h_slice')
        reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + 'plus0'),
                                  act_type='sigmoid', name=prefix + 'r_act')
        update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + 'plus1'),
                                   act_type='sigmoid', name=prefix + 'z_act')
        candidate = F.Activation(
            F.elemwise_add(i2h_n, F.elemwise_mul(reset_gate, h2h_n, name=prefix + 'mul0'),
                           name=prefix + 'plus2'),
            act_type='tanh', name=prefix + 'h_act')
        ones = F.ones_like(update_gate, name=prefix + 'ones_like0')
        next_h = F.elemwise_add(
            F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + 'minus0'),
                           candidate, name=prefix + 'mul1'),
            F.elemwise_mul(update_gate, prev_h, name=prefix + 'mul20'),
            name=prefix + 'out')
        return next_h, [next_h]


class _StackMixin(object):
    """What SequentialRNNCell and HybridSequentialRNNCell share: children run one after
    another, each taking its slice of the flat state list."""

    def __repr__(self):
        lines = ['({i}): {m}'.format(i=i, m=_indent(repr(m), 2))
                 for i, m in self._children.items()]
        return '{name}(\n{modstr}\n)'.format(name=type(self).__name__,
                                            modstr='\n'.join(lines))

    def add(self, cell):
        """Appends a cell to the stack."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _require(not self._modified, _MODIFIED_BASE_CELL)
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        _require(all(not isinstance(cell, BidirectionalCell)
                     for cell in self._children.values()),
                 "%s containing a BidirectionalCell cannot be stepped; use unroll"
                 % type(self).__name__)
        next_states = []
        start = 0
        for cell in self._children.values():
            count = len(cell.state_info())
            inputs, state = cell(inputs, states[start:start + count])
            start += count
            next_states.append(state)
        return inputs, sum(next_states, [])

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        num_cells = len(self._children)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        start = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            count = len(cell.state_info())
            states = begin_state[start:start + count]
            start += count
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states,
                                         layout=layout,
                                         merge_outputs=None if i < num_cells - 1
                                         else merge_outputs,
                                         valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_StackMixin, RecurrentCell):
    """A stack of recurrent cells, the output of each the input of the next."""

    def __init__(self, prefix=None, params=None):
        super(SequentialRNNCell, self).__init__(prefix=prefix, params=params)

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_StackMixin, HybridRecurrentCell):
    """A stack of hybrid recurrent cells, the output of each the input of the next."""

    def __init__(self, prefix=None, params=None):
        super(HybridSequentialRNNCell, self).__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs of each step (no states); `axes` shares the mask along axes."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super(DropoutCell, self).__init__(prefix, params)
        _require(isinstance(rate, numeric_types), "rate must be a number, given %s"
                 % type(rate).__name__)
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return '{name}(rate={rate}, axes={axes})'.format(name=type(self).__name__,
                                                         rate=self._rate, axes=self._axes)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return 'dropout'

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes,
                               name='t%d_fwd' % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, tensor_types):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super(DropoutCell, self).unroll(
            length, inputs, begin_state=begin_state, layout=layout,
            merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Wraps a base cell to change its behaviour (zoneout, residual connection); shares the
    base cell's parameters, and the base cell may then only be used through it."""

    def __init__(self, base_cell):
        _require(not base_cell._modified,
                 "Cell %s is already modified. One cell cannot be modified twice"
                 % base_cell.name)
        base_cell._modified = True
        super(ModifierCell, self).__init__(prefix=base_cell.prefix + self._alias(),
                                           params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        _require(not self._modified, _MODIFIED_BASE_CELL)
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return '{name}({base_cell})'.format(name=type(self).__name__,
                                            base_cell=self.base_cell)


class ZoneoutCell(ModifierCell):
    """Zoneout: in training, each output/state unit keeps its previous value with
    probability zoneout_outputs/zoneout_states."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        _require(not isinstance(base_cell, BidirectionalCell),
                 "BidirectionalCell doesn't support zoneout since it doesn't support step. "
                 "Please add ZoneoutCell to the cells underneath instead.")
        _require(not isinstance(base_cell, SequentialRNNCell)
                 or not getattr(base_cell, '_bidirectional', False),
                 "Bidirectional SequentialRNNCell doesn't support zoneout. "
                 "Please add ZoneoutCell to the cells underneath instead.")
        super(ZoneoutCell, self).__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return '{name}(p_out={p_out}, p_state={p_state}, {base})'.format(
            name=type(self).__name__, p_out=self.zoneout_outputs,
            p_state=self.zoneout_states, base=self.base_cell)

    def _alias(self):
        return 'zoneout'

    def reset(self):
        super(ZoneoutCell, self).reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        p_outputs, p_states = self.zoneout_outputs, self.zoneout_states
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):
            # Dropout of ones: nonzero (keep the new value) with probability 1 - p
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output
        if prev_output is None:
            prev_output = F.zeros_like(next_output)
        output = (F.where(keep_new(p_outputs, next_output), next_output, prev_output)
                  if p_outputs != 0. else next_output)
        states = ([F.where(keep_new(p_states, new), new, old)
                   for new, old in zip(next_states, states)]
                  if p_states != 0. else next_states)
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds each step's input to the base cell's output (equal sizes required)."""

    def __init__(self, base_cell):
        super(ResidualCell, self).__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = F.elemwise_add(output, inputs, name='t%d_fwd' % self._counter)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs,
                                                    valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, tensor_types)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            outputs = F.elemwise_add(outputs, inputs)
        else:
            outputs = [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(HybridRecurrentCell):
    """Runs l_cell forward and r_cell backward in time and concatenates their outputs on
    the feature axis; only `unroll` is supported."""

    def __init__(self, l_cell, r_cell, output_prefix='bi_'):
        super(BidirectionalCell, self).__init__(prefix='', params=None)
        self.register_child(l_cell, 'l_cell')
        self.register_child(r_cell, 'r_cell')
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self):
        return '{name}(forward={l_cell}, backward={r_cell})'.format(
            name=type(self).__name__, l_cell=self._children['l_cell'],
            r_cell=self._children['r_cell'])

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _require(not self._modified, _MODIFIED_BASE_CELL)
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = list(_reverse_sequences(inputs, length, valid_length))
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        num_l_states = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs,
                                            begin_state=states[:num_l_states],
                                            layout=layout, merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=states[num_l_states:],
                                            layout=layout, merge_outputs=False,
                                            valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, tensor_types)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(None, reversed_r_outputs, layout,
                                                           merge_outputs)
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2,
                               name='%sout' % self._output_prefix)
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
