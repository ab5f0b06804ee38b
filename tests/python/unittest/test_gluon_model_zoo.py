"""gluon.model_zoo: every 1.9.1 architecture builds with 1.9.1's parameter names and shapes,
runs, loads 1.9.1 parameter files with equal outputs, and finds pretrained files locally."""
import hashlib
import json
import os

import numpy as np
import pytest

import mxnet as mx
from mxnet.base import MXNetError
from mxnet.gluon.model_zoo import model_store, vision
from mxnet.gluon.model_zoo.vision import get_model

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fixtures')

with open(os.path.join(FIXTURES, 'model_zoo_mxnet191_params.json')) as _f:
    REFERENCE = json.load(_f)

ALL_MODELS = sorted(REFERENCE)
# forward passes are cheap enough for these on a small CPU; the rest are checked by structure
FORWARD_MODELS = ['resnet18_v1', 'resnet18_v2', 'squeezenet1.0', 'squeezenet1.1',
                  'mobilenet0.25', 'mobilenetv2_0.25', 'alexnet', 'inceptionv3',
                  'densenet121']


def _strip_counter(prefix):
    return prefix.rstrip('_').rstrip('0123456789') + '_'


def _params_list(net):
    return [[name[len(net.prefix):], list(param.shape)]
            for name, param in net.collect_params().items()]


def _matches(reference, items):
    """`items` equals the fixture entry: the full list, or its sha1 and length."""
    if isinstance(reference, list):
        return items == reference
    text = json.dumps(items, separators=(',', ':'))
    return (len(items) == reference['count'] and
            hashlib.sha1(text.encode('utf-8')).hexdigest() == reference['sha1'])


def _first_difference(reference, items):
    if not isinstance(reference, list):
        return 'count %d (1.9.1: %d)' % (len(items), reference['count'])
    for mine, theirs in zip(items, reference):
        if mine != theirs:
            return '%s vs 1.9.1 %s' % (mine, theirs)
    return 'lengths %d vs 1.9.1 %d' % (len(items), len(reference))


def test_get_model_knows_exactly_the_1_9_1_names():
    assert sorted(vision._models) == ALL_MODELS
    assert len(ALL_MODELS) == 34


@pytest.mark.parametrize('name', ALL_MODELS)
def test_structure_matches_1_9_1(name):
    net = get_model(name)
    reference = REFERENCE[name]
    assert _strip_counter(net.prefix) == reference['prefix']
    net.initialize()
    items = _params_list(net)
    assert _matches(reference['before'], items), _first_difference(reference['before'], items)
    saved = sorted(net._collect_params_with_prefix())
    assert _matches(reference['saved'], saved), _first_difference(reference['saved'], saved)


@pytest.mark.parametrize('name', FORWARD_MODELS)
def test_forward_and_inferred_shapes_match_1_9_1(name):
    net = get_model(name, classes=1000)
    net.initialize()
    size = 299 if name == 'inceptionv3' else 224  # the smallest inputs the heads accept
    out = net(mx.nd.random.uniform(shape=(1, 3, size, size)))
    assert out.shape == (1, 1000)
    assert np.isfinite(out.asnumpy()).all()
    items = _params_list(net)
    reference = REFERENCE[name]['after']
    assert _matches(reference, items), _first_difference(reference, items)


def test_parameter_names_spelled_out():
    """A few names in full, prefix included, as 1.9.1 spells them in a fresh process."""
    for name in ['resnet18_v1', 'mobilenetv2_0.25', 'squeezenet1.1']:
        assert isinstance(REFERENCE[name]['before'], list)  # compared in full above
    net = vision.resnet18_v1()
    names = list(net.collect_params())
    assert names[:3] == [net.prefix + 'conv0_weight', net.prefix + 'batchnorm0_gamma',
                         net.prefix + 'batchnorm0_beta']
    assert net.prefix + 'stage4_conv4_weight' in names
    assert names[-2:] == [net.prefix + 'dense0_weight', net.prefix + 'dense0_bias']
    net = vision.mobilenet_v2_0_25()
    names = list(net.collect_params())
    assert net.prefix + 'features_linearbottleneck16_batchnorm2_running_var' in names
    assert names[-1] == net.prefix + 'output_pred_weight'
    assert 'features.5.out.3.weight' in net._collect_params_with_prefix()


SMALL_NETWORKS = {
    'mobilenetv2_0.25': lambda: vision.mobilenet_v2_0_25(classes=10),
    'resnet_v1_basic': lambda: vision.ResNetV1(vision.BasicBlockV1, [1, 1], [8, 8, 16],
                                               classes=7, thumbnail=True),
    'resnet_v1_bottleneck': lambda: vision.ResNetV1(vision.BottleneckV1, [1, 2],
                                                    [8, 16, 32], classes=7),
    'resnet_v2_basic': lambda: vision.ResNetV2(vision.BasicBlockV2, [1, 1], [8, 8, 16],
                                               classes=7, thumbnail=True),
    'resnet_v2_bottleneck': lambda: vision.ResNetV2(vision.BottleneckV2, [2, 1],
                                                    [8, 16, 32], classes=7),
    'densenet_small': lambda: vision.DenseNet(8, 4, [2, 1], bn_size=2, classes=6),
}


@pytest.mark.parametrize('name', sorted(SMALL_NETWORKS))
def test_1_9_1_parameter_file_gives_1_9_1_outputs(name):
    expected = np.load(os.path.join(FIXTURES, 'model_zoo_mxnet191_expected.npz'))
    net = SMALL_NETWORKS[name]()
    net.load_parameters(os.path.join(FIXTURES, 'model_zoo_mxnet191_%s.params' % name))
    out = net(mx.nd.array(expected['x_' + name]))
    np.testing.assert_allclose(out.asnumpy(), expected['y_' + name], rtol=1e-4, atol=1e-5)


def test_save_load_round_trip(tmp_path):
    net = vision.squeezenet1_1(classes=5)
    net.initialize()
    x = mx.nd.random.uniform(shape=(1, 3, 224, 224))
    y = net(x)
    path = str(tmp_path / 'sq.params')
    net.save_parameters(path)
    other = vision.squeezenet1_1(classes=5)
    other.load_parameters(path)
    np.testing.assert_allclose(other(x).asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6)


def test_unknown_model_name_lists_the_valid_ones():
    with pytest.raises(MXNetError) as info:
        get_model('resnet19_v1')
    assert isinstance(info.value, ValueError)  # what MXNet 1.9.1 raised
    message = str(info.value)
    assert 'resnet19_v1' in message and 'mobilenetv2_0.25' in message \
        and 'squeezenet1.1' in message


def test_get_model_is_case_insensitive_and_passes_arguments():
    net = get_model('ResNet18_V1', classes=3)
    net.initialize()
    assert net(mx.nd.ones((1, 3, 32, 32))).shape == (1, 3)


def test_bad_configuration_errors():
    with pytest.raises(MXNetError, match='layers'):
        vision.get_resnet(1, 19)
    with pytest.raises(MXNetError, match='version'):
        vision.get_resnet(3, 18)
    with pytest.raises(MXNetError, match='SqueezeNet version'):
        vision.SqueezeNet('1.2')
    with pytest.raises(MXNetError, match='same length'):
        vision.VGG([1, 1], [8])


def _write_fake_pretrained(root, net):
    """Saves `net` in `root`; returns the file and its sha1."""
    path = os.path.join(str(root), 'tmp.params')
    net.save_parameters(path)
    with open(path, 'rb') as f:
        sha1 = hashlib.sha1(f.read()).hexdigest()
    return path, sha1


def test_pretrained_loads_a_local_file(tmp_path, monkeypatch):
    source = vision.squeezenet1_1()
    source.initialize()
    x = mx.nd.random.uniform(shape=(1, 3, 224, 224))
    expected = source(x).asnumpy()
    path, sha1 = _write_fake_pretrained(tmp_path, source)
    monkeypatch.setitem(model_store._model_sha1, 'squeezenet1.1', sha1)
    target = os.path.join(str(tmp_path), 'squeezenet1.1-%s.params' % sha1[:8])
    os.rename(path, target)
    monkeypatch.setenv('MXNET_GLUON_REPO', 'http://127.0.0.1:9/')
    assert model_store.get_model_file('squeezenet1.1', root=str(tmp_path)) == target
    net = get_model('squeezenet1.1', pretrained=True, root=str(tmp_path))
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_missing_pretrained_file_without_network_says_where_to_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv('MXNET_GLUON_REPO', 'http://127.0.0.1:9/')
    monkeypatch.setattr(model_store, 'download', _no_network)
    root = str(tmp_path / 'models')
    with pytest.raises(MXNetError) as info:
        vision.resnet18_v1(pretrained=True, root=root)
    message = str(info.value)
    assert 'resnet18_v1-a0666292.params' in message and root in message
    assert 'http://127.0.0.1:9/gluon/models/resnet18_v1-a0666292.zip' in message
    assert os.listdir(root) == []  # no partial files left behind


def test_corrupt_pretrained_file_is_fetched_again(tmp_path, monkeypatch):
    monkeypatch.setattr(model_store, 'download', _no_network)
    path = tmp_path / 'alexnet-44335d1f.params'
    path.write_bytes(b'not the model')
    with pytest.raises(MXNetError, match='alexnet-44335d1f.params'):
        model_store.get_model_file('alexnet', root=str(tmp_path))


def _no_network(url, *args, **kwargs):
    raise OSError('network unreachable: %s' % url)


def test_short_hash_and_purge(tmp_path):
    assert model_store.short_hash('mobilenetv2_0.25') == 'ae8f9392'
    with pytest.raises(ValueError, match='not available'):
        model_store.short_hash('resnet19_v1')
    (tmp_path / 'a.params').write_bytes(b'x')
    (tmp_path / 'keep.txt').write_bytes(b'x')
    model_store.purge(root=str(tmp_path))
    assert os.listdir(str(tmp_path)) == ['keep.txt']


def test_mobilenet_pretrained_names():
    assert vision.mobilenet._version_suffix(1.0) == '1.0'
    assert vision.mobilenet._version_suffix(0.5) == '0.5'
    assert vision.mobilenet._version_suffix(0.75) == '0.75'
    assert vision.mobilenet._version_suffix(0.25) == '0.25'
