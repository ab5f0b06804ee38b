"""Where each gate's weight and bias lives in the flat parameter vector of the fused RNN op."""
from .base import InvalidConfigError

# the gates of each mode, in the order the op packs them; each gate has its own matrix
GATE_NAMES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
              "gru": ["_r", "_z", "_o"]}


def _gates(mode):
    if mode not in GATE_NAMES:
        raise InvalidConfigError("fused RNN mode must be one of %s, given %r"
                                 % (sorted(GATE_NAMES), mode))
    return GATE_NAMES[mode]


def num_input_of(size, num_hidden, num_layers, mode, bidirectional):
    """The input width that makes a packed vector of `size` elements.

    Per direction and gate, layer 0 holds an (h, in) i2h and an (h, h) h2h matrix plus two
    biases of h, i.e. h * (in + h + 2); each later layer takes the b * h outputs of the layer
    below, i.e. h * (b * h + h + 2)."""
    dirs = 2 if bidirectional else 1
    gates = len(_gates(mode))
    per_matrix_row = size // dirs // num_hidden // gates
    return per_matrix_row - (num_layers - 1) * (num_hidden + dirs * num_hidden + 2) - num_hidden - 2


def param_slices(num_input, num_hidden, num_layers, mode, bidirectional, prefix=""):
    """[(name, offset, shape)] of every weight and bias in the packed vector, in packing order:
    first all weights, layer by layer, direction by direction ('l' then 'r'), the i2h gates then
    the h2h gates; then all biases in the same order. Names read
    '<prefix><l|r><layer>_<i2h|h2h><gate>_<weight|bias>'."""
    gates = _gates(mode)
    directions = ["l", "r"] if bidirectional else ["l"]
    slices = []
    offset = 0

    def add(name, shape):
        nonlocal offset
        slices.append((prefix + name, offset, shape))
        size = 1
        for dim in shape:
            size *= dim
        offset += size

    for layer in range(num_layers):
        layer_input = num_input if layer == 0 else len(directions) * num_hidden
        for direction in directions:
            for gate in gates:
                add("%s%d_i2h%s_weight" % (direction, layer, gate), (num_hidden, layer_input))
            for gate in gates:
                add("%s%d_h2h%s_weight" % (direction, layer, gate), (num_hidden, num_hidden))
    for layer in range(num_layers):
        for direction in directions:
            for group in ("i2h", "h2h"):
                for gate in gates:
                    add("%s%d_%s%s_bias" % (direction, layer, group, gate), (num_hidden,))
    return slices, offset


def unpacked_slices(size, num_hidden, num_layers, mode, bidirectional, prefix=""):
    """param_slices for a packed vector of `size` elements; InvalidConfigError when no input
    width gives exactly that size."""
    num_input = num_input_of(size, num_hidden, num_layers, mode, bidirectional)
    slices, total = (param_slices(num_input, num_hidden, num_layers, mode, bidirectional, prefix)
                     if num_input > 0 else ([], -1))
    if total != size:
        raise InvalidConfigError(
            "Invalid parameters size for FusedRNNCell: %d elements do not fit mode=%s "
            "num_hidden=%d num_layers=%d bidirectional=%s"
            % (size, mode, num_hidden, num_layers, bidirectional))
    return slices
