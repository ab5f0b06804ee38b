# mx.init: name-suffix dispatch, each initializer's values or statistics (seeded), the fused
# RNN parameter layout, Load/Mixed, dumps/create round trips and the registry's errors.
import json
import logging
import warnings

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import InvalidConfigError, MXNetError

nd = mx.nd
init = mx.init


def desc_init(initializer, name, shape=(4, 5), attrs=None, dtype="float32"):
    arr = nd.full(shape, -7.0, dtype=dtype)
    initializer(init.InitDesc(name, attrs=attrs), arr)
    return arr.asnumpy()


def legacy_init(initializer, name, shape=(6,)):
    arr = nd.full(shape, -7.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        initializer(name, arr)
    return arr.asnumpy()


def test_module_is_exposed_as_init_and_initializer():
    assert mx.init is mx.initializer
    assert mx.init.InitDesc("a_weight") == "a_weight"
    assert mx.registry.get_registry(init.Initializer)["xavier"] is init.Xavier


@pytest.mark.parametrize("name,expected", [
    ("fc1_weight", 1.0), ("fc1_bias", 0.0), ("bn_gamma", 1.0), ("bn_beta", 0.0),
    ("q_min", 0.0), ("q_max", 1.0), ("fc_bias_quantize", 0.0)])
def test_desc_dispatch_by_suffix(name, expected):
    # One fills weights with 1, so a weight suffix is told apart from bias/beta/min (0)
    assert (desc_init(init.One(), name) == expected).all()
    zero_weight = 0.0 if name.endswith("weight") else expected
    assert (desc_init(init.Zero(), name) == zero_weight).all()


@pytest.mark.parametrize("name", ["bn_moving_mean", "bn_moving_var", "data", "foo_weightx"])
def test_desc_without_known_suffix_is_a_value_error(name):
    with pytest.raises(ValueError, match="Unknown initialization pattern for " + name):
        desc_init(init.Uniform(), name)


def test_weight_quantize_gets_int8_range_values():
    values = desc_init(init.One(), "conv_weight_quantize", shape=(50, 40))
    assert values.min() >= -127 and values.max() < 127
    assert (values == np.round(values)).all()
    assert len(np.unique(values)) > 100


def test_init_attr_overrides_suffix_and_sets_global_init():
    uniform = init.Uniform()
    desc = init.InitDesc("anything_bias", attrs={"__init__": init.Constant(3.5).dumps()})
    arr = nd.zeros((3, 2))
    uniform(desc, arr)
    assert (arr.asnumpy() == 3.5).all()
    assert desc.global_init is uniform
    # a registered name works too, and an InitDesc keeps a global_init given to it
    other = init.Zero()
    desc = init.InitDesc("x", attrs={"__init__": "ones"}, global_init=other)
    uniform(desc, arr)
    assert (arr.asnumpy() == 1).all() and desc.global_init is other


@pytest.mark.parametrize("name,expected", [
    ("bn_moving_mean", 0.0), ("bn_moving_var", 1.0), ("bn_moving_inv_var", 0.0),
    ("bn_moving_avg", 0.0), ("q_min", 0.0), ("q_max", 1.0), ("fc_bias", 0.0),
    ("bn_gamma", 1.0), ("bn_beta", 0.0), ("stn_loc_weight", 0.0), ("fc_weight", 1.0)])
def test_legacy_string_names_dispatch_by_suffix(name, expected):
    assert (legacy_init(init.One(), name) == expected).all()


def test_legacy_special_prefixes():
    assert legacy_init(init.One(), "stn_loc_bias").tolist() == [1, 0, 0, 0, 1, 0]
    upsampled = legacy_init(init.One(), "upsampling0_weight", shape=(1, 1, 4, 4))
    assert np.array_equal(upsampled, desc_init(init.Bilinear(), "up_weight", (1, 1, 4, 4)))
    with pytest.raises(ValueError, match="Unknown initialization pattern"):
        legacy_init(init.One(), "bn_running")


def test_legacy_call_warns_and_checks_types():
    with pytest.warns(DeprecationWarning, match="InitDesc"):
        init.One()("fc_weight", nd.zeros((2,)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="NDArray"):
            init.One()("fc_weight", np.zeros(2))
        with pytest.raises(TypeError, match="string"):
            init.One()(3, nd.zeros((2,)))


def test_base_initializer_needs_init_weight():
    with pytest.raises(NotImplementedError):
        desc_init(init.Initializer(), "fc_weight")


@pytest.mark.parametrize("value", [2.5, nd.array([[1, 2], [3, 4]]), np.array([[5., 6.], [7, 8]])])
def test_constant(value):
    expected = value if np.isscalar(value) else (value.asnumpy() if isinstance(value, nd.NDArray)
                                                  else value)
    out = desc_init(init.Constant(value), "c_weight", shape=(2, 2))
    assert np.array_equal(out, np.broadcast_to(expected, (2, 2)))


def test_constant_dumps_turns_arrays_into_lists():
    assert init.Constant(1).dumps() == '["constant", {"value": 1}]'
    for value in (nd.ones((2, 3)), np.ones((2, 3))):
        constant = init.Constant(value)
        assert constant.dumps() == '["constant", {"value": [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]}]'
        assert json.loads(constant.dumps())[1] == constant._kwargs
        recreated = init.create(constant.dumps())
        assert recreated.dumps() == constant.dumps()
        assert (desc_init(recreated, "w_weight", (2, 3)) == 1).all()


def moments(values):
    values = np.asarray(values, dtype=np.float64).ravel()
    return values.mean(), values.std()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_range_moments_and_seed(dtype):
    mx.random.seed(11)
    a = desc_init(init.Uniform(0.3), "fc_weight", (300, 200), dtype=dtype)
    mx.random.seed(11)
    b = desc_init(init.Uniform(0.3), "fc_weight", (300, 200), dtype=dtype)
    assert np.array_equal(a, b)
    assert a.dtype == np.dtype(dtype)
    assert a.min() >= -0.3 and a.max() <= 0.3
    mean, std = moments(a)
    assert abs(mean) < 0.005 and abs(std - 0.3 / np.sqrt(3)) < 0.003
    assert init.Uniform().scale == 0.07


def test_normal_moments_and_seed():
    mx.random.seed(5)
    a = desc_init(init.Normal(0.5), "fc_weight", (400, 250))
    mx.random.seed(5)
    assert np.array_equal(a, desc_init(init.Normal(0.5), "fc_weight", (400, 250)))
    mean, std = moments(a)
    assert abs(mean) < 0.005 and abs(std - 0.5) < 0.005
    assert init.Normal().sigma == 0.01


@pytest.mark.parametrize("factor_type,fan", [("avg", (30 * 9 + 60 * 9) / 2.), ("in", 30 * 9),
                                             ("out", 60 * 9)])
def test_xavier_uniform_bound_uses_kernel_size(factor_type, fan):
    magnitude = 2.34
    bound = np.sqrt(magnitude / fan)
    mx.random.seed(0)
    w = desc_init(init.Xavier(factor_type=factor_type, magnitude=magnitude), "conv_weight",
                  (60, 30, 3, 3))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(moments(w)[1] - bound / np.sqrt(3)) < 0.03 * bound


def test_xavier_gaussian_and_msraprelu_deviation():
    mx.random.seed(1)
    w = desc_init(init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=3), "fc_weight",
                  (500, 400))
    assert abs(moments(w)[1] - np.sqrt(3 / 400.)) < 0.01 * np.sqrt(3 / 400.)
    slope = 0.5
    w = desc_init(init.MSRAPrelu(factor_type="out", slope=slope), "fc_weight", (400, 500))
    expected = np.sqrt(2. / (1 + slope ** 2) / 400)
    assert abs(moments(w)[1] - expected) < 0.01 * expected


def test_xavier_errors():
    with pytest.raises(ValueError, match="at least 2D"):
        desc_init(init.Xavier(), "fc_weight", (5,))
    with pytest.raises(ValueError, match="factor type"):
        desc_init(init.Xavier(factor_type="mean"), "fc_weight")
    with pytest.raises(ValueError, match="random type"):
        desc_init(init.Xavier(rnd_type="laplace"), "fc_weight")


@pytest.mark.parametrize("shape", [(3, 8), (8, 3), (4, 2, 3, 3), (5, 5)])
@pytest.mark.parametrize("rand_type", ["uniform", "normal"])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, rand_type):
    scale = 1.5
    w = desc_init(init.Orthogonal(scale=scale, rand_type=rand_type), "w_weight", shape)
    m = w.reshape(shape[0], -1).astype(np.float64) / scale
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-5)


def test_orthogonal_bad_rand_type():
    with pytest.raises(ValueError, match="rand_type"):
        desc_init(init.Orthogonal(rand_type="cauchy"), "w_weight")


def test_bilinear_kernels_match_mxnet_191():
    # values printed by MXNet 1.9.1 for these shapes
    w = desc_init(init.Bilinear(), "up_weight", (2, 1, 4, 4))
    row = np.array([0.25, 0.75, 0.75, 0.25])
    assert np.array_equal(w[1, 0], np.outer(row, row))
    w = desc_init(init.Bilinear(), "up_weight", (1, 1, 3, 6))
    assert np.allclose(w[0, 0, 0], [1 / 9., 2 / 9., 3 / 9., 2 / 9., 1 / 9., 0])
    assert np.allclose(w[0, 0, :, 2], [1 / 3., 2 / 3., 1.])
    with pytest.raises(ValueError, match="4-D"):
        desc_init(init.Bilinear(), "up_weight", (4, 4))


def test_lstm_bias_sets_only_the_forget_gate():
    out = desc_init(init.One(), "lstm_bias", (8,),
                    attrs={"__init__": init.LSTMBias(0.75).dumps()})
    assert out.tolist() == [0, 0, 0.75, 0.75, 0, 0, 0, 0]


def name_code(name):
    return sum(ord(c) * (i + 1) for i, c in enumerate(name))


class NameCode(init.Initializer):
    """Fills each parameter with a number derived from its name, making the layout visible."""

    def _init_weight(self, desc, arr):
        arr[:] = name_code(desc) % 997

    def _init_bias(self, desc, arr):
        arr[:] = -(name_code(desc) % 991)


def fused_size(mode, hidden, layers, bidirectional, num_input):
    gates = {"lstm": 4, "gru": 3}.get(mode, 1)
    dirs = 2 if bidirectional else 1
    return ((num_input + hidden + 2) * hidden * gates * dirs
            + (layers - 1) * gates * hidden * (hidden + dirs * hidden + 2) * dirs)


def fused_reference(mode, hidden, layers, bidirectional, num_input, forget_bias):
    """The packed vector written out from the layout description, independently of mx.init."""
    gates = {"lstm": ["_i", "_f", "_c", "_o"], "gru": ["_r", "_z", "_o"]}.get(mode, [""])
    dirs = ["l", "r"] if bidirectional else ["l"]
    parts = []
    for layer in range(layers):
        width = num_input if layer == 0 else len(dirs) * hidden
        for d in dirs:
            for group, cols in (("i2h", width), ("h2h", hidden)):
                for g in gates:
                    name = "%s%d_%s%s_weight" % (d, layer, group, g)
                    parts.append(np.full(hidden * cols, name_code(name) % 997))
    for layer in range(layers):
        for d in dirs:
            for group in ("i2h", "h2h"):
                for g in gates:
                    value = forget_bias if (mode == "lstm" and g == "_f") else \
                        -(name_code("%s%d_%s%s_bias" % (d, layer, group, g)) % 991)
                    parts.append(np.full(hidden, value))
    return np.concatenate(parts)


# size, sum, sum of value * index, first 8 and last 8 values printed by MXNet 1.9.1
FUSED_191 = {
    ("lstm", 3, 2, True, 4): [480, 79140.0, 9230232.0, [275.0] * 8,
                              [2.5, 2.5, -965.0, -965.0, -965.0, -70.0, -70.0, -70.0]],
    ("gru", 2, 1, False, 5): [54, 13870.0, 248263.0, [347.0] * 8,
                              [-66.0, -66.0, -86.0, -86.0, -150.0, -150.0, -62.0, -62.0]],
    ("rnn_tanh", 2, 3, True, 1): [84, 5472.0, -309172.0,
                                  [275.0, 275.0, 271.0, 271.0, 271.0, 271.0, 281.0, 281.0],
                                  [-470.0, -470.0, -466.0, -466.0, -476.0, -476.0, -472.0,
                                   -472.0]],
    ("rnn_relu", 4, 1, False, 2): [32, 2824.0, -27140.0, [275.0] * 8,
                                   [-466.0] * 4 + [-462.0] * 4],
    ("lstm", 2, 1, False, 3): [56, 6550.0, 9663.0, [275.0] * 6 + [251.0] * 2,
                               [-14.0, -14.0, 2.5, 2.5, -957.0, -957.0, -62.0, -62.0]],
}


@pytest.mark.parametrize("config", sorted(FUSED_191), ids=str)
def test_fused_rnn_layout_matches_mxnet_191(config):
    mode, hidden, layers, bidirectional, num_input = config
    size = fused_size(*config)
    fused = init.FusedRNN(NameCode(), hidden, layers, mode, bidirectional, forget_bias=2.5)
    packed = desc_init(fused, "rnn_weight", (size,))
    np.testing.assert_array_equal(packed, fused_reference(*config, forget_bias=2.5))
    expected_size, total, weighted, head, tail = FUSED_191[config]
    assert size == expected_size and packed.sum() == total
    assert (packed * np.arange(size)).sum() == weighted
    assert packed[:8].tolist() == head and packed[-8:].tolist() == tail


def test_fused_rnn_without_init_uses_the_global_initializer():
    # biases fall to the global initializer's _init_bias (0), forget biases get forget_bias
    size = fused_size("lstm", 2, 1, False, 3)
    arr = nd.zeros((size,))
    init.FusedRNN(None, 2, 1, "lstm", forget_bias=1.5)(
        init.InitDesc("rnn_weight", global_init=init.Uniform()), arr)
    packed = arr.asnumpy()
    assert packed[size - 16:].tolist() == [0, 0, 1.5, 1.5, 0, 0, 0, 0] * 2
    assert np.abs(packed[:size - 16]).max() <= 0.07 + 1e-7
    global_one = init.One()
    arr = nd.zeros((size,))
    desc = init.InitDesc("rnn_weight", global_init=global_one)
    init.FusedRNN(None, 2, 1, "lstm", forget_bias=1.5)(desc, arr)
    assert (arr.asnumpy()[:size - 16] == 1).all()


def test_fused_rnn_random_parts_are_seeded_and_separate():
    size = fused_size("gru", 8, 2, True, 6)
    fused = init.FusedRNN(init.Xavier(), 8, 2, "gru", True)
    mx.random.seed(3)
    a = desc_init(fused, "rnn_weight", (size,))
    mx.random.seed(3)
    b = desc_init(fused, "rnn_weight", (size,))
    assert np.array_equal(a, b)
    layer0_i2h_r = a[:8 * 6]
    assert np.abs(layer0_i2h_r).max() <= np.sqrt(3 / 7.) and len(np.unique(layer0_i2h_r)) == 48


def test_fused_rnn_config_and_errors():
    fused = init.FusedRNN('["normal", {"sigma": 0.5}]', 4, 1, "gru")
    assert json.loads(fused.dumps()) == ["fusedrnn", {
        "init": '["normal", {"sigma": 0.5}]', "num_hidden": 4, "num_layers": 1, "mode": "gru",
        "bidirectional": False, "forget_bias": 1.0}]
    assert init.create(fused.dumps()) == fused
    with pytest.raises(InvalidConfigError, match="Invalid parameters size"):
        desc_init(fused, "rnn_weight", (fused_size("gru", 4, 1, False, 3) + 1,))
    with pytest.raises(InvalidConfigError, match="mode"):
        desc_init(init.FusedRNN(None, 4, 1, "conv"), "rnn_weight", (40,))


def test_dumps_match_mxnet_191():
    assert [i.dumps() for i in [init.Zero(), init.One(), init.Uniform(), init.Orthogonal(),
                                init.Xavier("gaussian", "in", 2), init.MSRAPrelu("out", 0.1),
                                init.Bilinear(), init.LSTMBias(),
                                init.FusedRNN(None, 3, 1, "gru")]] == [
        '["zero", {}]', '["one", {}]', '["uniform", {"scale": 0.07}]',
        '["orthogonal", {"scale": 1.414, "rand_type": "uniform"}]',
        '["xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2}]',
        '["msraprelu", {"factor_type": "out", "slope": 0.1}]', '["bilinear", {}]',
        '["lstmbias", {"forget_bias": 1.0}]',
        '["fusedrnn", {"init": null, "num_hidden": 3, "num_layers": 1, "mode": "gru", '
        '"bidirectional": false, "forget_bias": 1.0}]']


ALL = [init.Zero(), init.One(), init.Constant(0.5), init.Uniform(0.2), init.Normal(0.3),
       init.Orthogonal(2.0, "normal"), init.Xavier("gaussian", "out", 1.5), init.MSRAPrelu(),
       init.Bilinear(), init.LSTMBias(0.4), init.FusedRNN(init.One(), 3, 2, "lstm", True)]


@pytest.mark.parametrize("initializer", ALL, ids=lambda i: type(i).__name__)
def test_dumps_create_round_trip(initializer):
    again = init.create(initializer.dumps())
    assert type(again) is type(initializer) and again == initializer
    assert again.dumps() == initializer.dumps()
    name, kwargs = json.loads(initializer.dumps())
    assert init.create(name, **kwargs) == initializer
    assert init.create({"initializer": name, **kwargs}) == initializer


def test_create_names_aliases_and_instances():
    assert type(init.create("zeros")) is init.Zero and type(init.create("ONES")) is init.One
    assert init.create("xavier", magnitude=2).magnitude == 2.0
    assert init.create('{"initializer": "normal", "sigma": 0.2}').sigma == 0.2
    one = init.One()
    assert init.create(one) is one
    assert init.Xavier() == init.Xavier() and init.Xavier() != init.Xavier(magnitude=2)
    assert init.Zero() != init.One()


def test_unknown_names_and_bad_configs_raise_invalid_config_error():
    with pytest.raises(InvalidConfigError, match="foo is not registered") as info:
        init.create("foo")
    assert isinstance(info.value, MXNetError) and isinstance(info.value, AssertionError)
    with pytest.raises(AssertionError, match="already an instance"):
        init.create(init.One(), 3)
    with pytest.raises(MXNetError, match="string type"):
        init.create(3.0)


def test_unknown_init_attr_is_invalid_config_error():
    with pytest.raises(InvalidConfigError, match="nothing_here is not registered"):
        desc_init(init.One(), "w_weight", attrs={"__init__": "nothing_here"})


def test_register_and_alias_custom_initializer():
    @init.register
    @init.alias("pyinit_test_alias")
    class PyinitTestInit(init.Initializer):
        def _init_weight(self, _, arr):
            arr[:] = 0.25

    assert type(init.create("pyinittestinit")) is PyinitTestInit
    assert (desc_init(init.create("pyinit_test_alias"), "fc_weight") == 0.25).all()
    with pytest.raises(InvalidConfigError, match="subclass of Initializer"):
        init.register(dict)
    with pytest.warns(UserWarning, match="overriding"):
        @init.alias("pyinit_test_alias")
        class Other(init.Initializer):
            pass


def test_set_verbosity_logs_each_array(caplog):
    uniform = init.One().set_verbosity(True)
    with caplog.at_level(logging.INFO):
        desc_init(uniform, "fc_weight", (2, 2))
        desc_init(init.Zero().set_verbosity(True, print_func=lambda a: "custom"), "b_bias")
    messages = [r.getMessage() for r in caplog.records]
    assert "Initialized fc_weight as weight: 1.0" in messages
    assert "Initialized b_bias as bias: custom" in messages


def test_mixed_uses_the_first_matching_pattern():
    mixed = init.Mixed(["fc1", ".*"], [init.Constant(2.0), init.One()])
    assert (legacy_init(mixed, "fc1_weight") == 2).all()
    assert (legacy_init(mixed, "fc2_weight") == 1).all()
    assert (legacy_init(mixed, "fc1_bias") == 0).all()
    assert (legacy_init(mixed, "conv_fc1_weight") == 1).all()  # match anchors at the start
    only_bias = init.Mixed(["bias"], [init.Zero()])
    with pytest.raises(ValueError, match="did not match any pattern"):
        only_bias("fc_weight", nd.zeros((2,)))
    with pytest.raises(InvalidConfigError, match="one initializer per pattern"):
        init.Mixed(["a", "b"], [init.Zero()])


def test_load_from_dict_and_file(tmp_path):
    params = {"arg:fc_weight": nd.array([[1, 2], [3, 4]]), "aux:bn_moving_mean": nd.array([5, 6]),
              "plain": nd.array([7.])}
    path = str(tmp_path / "p.params")
    nd.save(path, params)
    for source in (params, path):
        loader = init.Load(source, default_init=init.One())
        arr = nd.zeros((2, 2))
        loader("fc_weight", arr)
        assert arr.asnumpy().tolist() == [[1, 2], [3, 4]]
        arr = nd.zeros((2,))
        loader("bn_moving_mean", arr)
        assert arr.asnumpy().tolist() == [5, 6]
        arr = nd.zeros((3,))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loader("other_weight", arr)
        assert (arr.asnumpy() == 1).all()
    with pytest.raises(InvalidConfigError, match="Shape mismatch"):
        init.Load(params)("fc_weight", nd.zeros((3, 2)))
    with pytest.raises(InvalidConfigError, match="no default Initializer"):
        init.Load(params)("missing", nd.zeros((3, 2)))
