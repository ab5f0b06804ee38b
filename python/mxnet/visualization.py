"""mx.viz: a symbol's layer table (print_summary) and graph drawing (plot_network, needs the
graphviz Python package)."""
import copy
import json
import re
import warnings

from .symbol import Symbol

__all__ = ['print_summary', 'plot_network']


def _str2tuple(string):
    """The integers of a tuple attribute such as '(3, 3)'."""
    return re.findall(r'\d+', string)


def _internal_shapes(symbol, shape):
    """{internal output name: shape} from the input shapes, or None without shapes."""
    if shape is None:
        return None
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError("Input shape is incomplete")
    return dict(zip(internals.list_outputs(), out_shapes))


def _entry_key(node):
    """Name of the internal output a node gives (its variable name, or NAME_output)."""
    return node['name'] if node['op'] == 'null' else node['name'] + '_output'


def _param_count(node, pre_filter, shape_dict):
    """Parameters of a layer given the number of channels/features coming in."""
    op, attrs = node['op'], node.get('attrs', {})
    no_bias = attrs.get('no_bias') == 'True'
    if op == 'Convolution':
        count = pre_filter * int(attrs['num_filter']) // int(attrs.get('num_group', '1'))
        for k in _str2tuple(attrs['kernel']):
            count *= int(k)
        return count if no_bias else count + int(attrs['num_filter'])
    if op == 'FullyConnected':
        return (pre_filter + (0 if no_bias else 1)) * int(attrs['num_hidden'])
    if op == 'BatchNorm':
        return int(shape_dict[_entry_key(node)][1]) * 2 if shape_dict is not None else 0
    if op == 'Embedding':
        return int(attrs['input_dim']) * int(attrs['output_dim'])
    return 0


def print_summary(symbol, shape=None, line_length=120, positions=[.44, .64, .74, 1.]):  # pylint: disable=dangerous-default-value
    """Print a table of the layers: name(type), output shape (with `shape`, a dict of input
    shapes), parameter count and the layers feeding it; then the total.

    `positions` are the column ends, as fractions of `line_length` or as characters."""
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shape_dict = _internal_shapes(symbol, shape)
    conf = json.loads(symbol.tojson())
    nodes = conf['nodes']
    # inputs shown as layers: the first one (the data) and any that is an output
    shown_inputs = {0} | {head[0] for head in conf['heads']}
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def print_row(fields):
        line = ''
        for field, end in zip(fields, positions):
            line = (line + str(field))[:end]
            line += ' ' * (end - len(line))
        print(line)

    def out_shape(node):
        if shape_dict is None:
            return []
        return shape_dict.get(_entry_key(node), [None])[1:]

    def layer_row(node):
        previous, pre_filter = [], 0
        if node['op'] != 'null':
            for entry in node['inputs']:
                src = nodes[entry[0]]
                if src['op'] != 'null' or entry[0] in shown_inputs:
                    previous.append(src['name'])
                    if shape_dict is not None and _entry_key(src) in shape_dict:
                        pre_filter += int(shape_dict[_entry_key(src)][1])
        count = _param_count(node, pre_filter, shape_dict)
        print_row([node['name'] + '(' + node['op'] + ')',
                   'x'.join(str(x) for x in out_shape(node)), count,
                   previous[0] if previous else ''])
        for name in previous[1:]:
            print_row(['', '', '', name])
        return count

    print('_' * line_length)
    print_row(['Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'])
    print('=' * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node['op'] == 'null' and i > 0:
            continue
        total += layer_row(node)
        print(('=' if i == len(nodes) - 1 else '_') * line_length)
    print("Total params: {params}".format(params=total))
    print('_' * line_length)


_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5")
_WEIGHT_SUFFIXES = ('_weight', '_bias', '_beta', '_gamma', '_moving_var', '_moving_mean',
                    '_running_var', '_running_mean')


def _node_look(node):
    """(label, fill color) of an operator node."""
    op, name, attrs = node['op'], node['name'], node.get('attrs', {})
    if op == 'Convolution':
        stride = 'x'.join(_str2tuple(attrs['stride'])) if 'stride' in attrs else '1'
        return ("Convolution\n%s/%s, %s" % ('x'.join(_str2tuple(attrs['kernel'])), stride,
                                            attrs['num_filter']), _COLORS[1])
    if op == 'FullyConnected':
        return "FullyConnected\n%s" % attrs['num_hidden'], _COLORS[1]
    if op == 'BatchNorm':
        return name, _COLORS[3]
    if op == 'Activation':
        return "Activation\n%s" % attrs['act_type'], _COLORS[2]
    if op == 'LeakyReLU':
        return "LeakyReLU\n%s" % attrs.get('act_type', 'Leaky'), _COLORS[2]
    if op == 'Pooling':
        kernel = 'x'.join(_str2tuple(attrs['kernel'])) if 'kernel' in attrs else '[]'
        stride = 'x'.join(_str2tuple(attrs['stride'])) if 'stride' in attrs else '1'
        return "Pooling\n%s, %s/%s" % (attrs['pool_type'], kernel, stride), _COLORS[4]
    if op in ('Concat', 'Flatten', 'Reshape'):
        return name, _COLORS[5]
    if op == 'Softmax':
        return name, _COLORS[6]
    return (attrs['op_type'] if op == 'Custom' else name), _COLORS[7]


def plot_network(symbol, title="plot", save_format='pdf', shape=None, dtype=None,  # pylint: disable=dangerous-default-value
                 node_attrs={}, hide_weights=True):
    """A graphviz Digraph of the symbol (render it with ``.render()`` or ``.view()``).

    `shape`/`dtype` (dicts of input name -> shape/dtype) label the edges with the shapes and
    types flowing along them; `node_attrs` override the node style; `hide_weights` leaves
    out parameter variables. Requires the ``graphviz`` Python package."""
    try:
        from graphviz import Digraph  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise ImportError("Draw network requires graphviz library "
                          "(pip install graphviz): %s" % err) from err
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shape_dict = _internal_shapes(symbol, shape)
    type_dict = None
    if dtype is not None:
        internals = symbol.get_internals()
        _, out_types, _ = internals.infer_type(**dtype)
        if out_types is None:
            raise ValueError("Input type is incomplete")
        type_dict = dict(zip(internals.list_outputs(), out_types))

    nodes = json.loads(symbol.tojson())['nodes']
    names = [node['name'] for node in nodes]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        warnings.warn("There are multiple variables with the same name in your graph, this may "
                      "result in cyclic graph. Repeated names: " + ','.join(repeated),
                      RuntimeWarning)

    style = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
             "style": "filled"}
    style.update(node_attrs)
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attr = copy.deepcopy(style)
        if node['op'] == 'null':
            if node['name'].endswith(_WEIGHT_SUFFIXES):
                if hide_weights:
                    hidden.add(node['name'])
                continue
            attr['shape'] = 'oval'
            label, attr['fillcolor'] = node['name'], _COLORS[0]
        else:
            label, attr['fillcolor'] = _node_look(node)
        dot.node(name=node['name'], label=label, **attr)

    def edge_key(src):
        if src['op'] == 'null':
            return src['name']
        key = src['name'] + '_output'
        if 'num_outputs' in src.get('attrs', {}):
            key += str(int(src['attrs']['num_outputs']) - 1)
        return key

    for node in nodes:
        if node['op'] == 'null':
            continue
        inputs = node['inputs']
        if node['op'] == '_contrib_BilinearResize2D':
            inputs = inputs[:1]
        for entry in inputs:
            src = nodes[entry[0]]
            if src['name'] in hidden:
                continue
            attr = {"dir": "back", 'arrowtail': 'open', 'label': ''}
            if shape_dict is not None:
                attr['label'] = 'x'.join(str(x) for x in shape_dict[edge_key(src)][1:])
            if type_dict is not None:
                attr['label'] += '(' + type_dict[edge_key(src)].__name__ + ')'
            dot.edge(tail_name=node['name'], head_name=src['name'], **attr)
    return dot
