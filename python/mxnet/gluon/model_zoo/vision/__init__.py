"""Predefined image classification networks: AlexNet, DenseNet, Inception V3, ResNet V1/V2,
SqueezeNet, VGG, MobileNet and MobileNetV2.

Build one with random weights from its constructor (`resnet18_v1()`, `squeezenet1_0()`) or by
name (`get_model('resnet18_v1')`); `pretrained=True` loads the published ImageNet weights (see
model_store). The pretrained models expect (N, 3, H, W) RGB batches scaled to [0, 1] and
normalized with mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225), H and W at least
224 (299 for Inception V3).
"""
from ....base import MXNetError
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403


class _UnknownModelError(MXNetError, ValueError):
    """get_model's error for a name it does not know (a ValueError in MXNet 1.9.1)."""


_models = {
    'resnet18_v1': resnet18_v1, 'resnet34_v1': resnet34_v1, 'resnet50_v1': resnet50_v1,
    'resnet101_v1': resnet101_v1, 'resnet152_v1': resnet152_v1,
    'resnet18_v2': resnet18_v2, 'resnet34_v2': resnet34_v2, 'resnet50_v2': resnet50_v2,
    'resnet101_v2': resnet101_v2, 'resnet152_v2': resnet152_v2,
    'vgg11': vgg11, 'vgg13': vgg13, 'vgg16': vgg16, 'vgg19': vgg19,
    'vgg11_bn': vgg11_bn, 'vgg13_bn': vgg13_bn, 'vgg16_bn': vgg16_bn, 'vgg19_bn': vgg19_bn,
    'alexnet': alexnet,
    'densenet121': densenet121, 'densenet161': densenet161, 'densenet169': densenet169,
    'densenet201': densenet201,
    'squeezenet1.0': squeezenet1_0, 'squeezenet1.1': squeezenet1_1,
    'inceptionv3': inception_v3,
    'mobilenet1.0': mobilenet1_0, 'mobilenet0.75': mobilenet0_75, 'mobilenet0.5': mobilenet0_5,
    'mobilenet0.25': mobilenet0_25,
    'mobilenetv2_1.0': mobilenet_v2_1_0, 'mobilenetv2_0.75': mobilenet_v2_0_75,
    'mobilenetv2_0.5': mobilenet_v2_0_5, 'mobilenetv2_0.25': mobilenet_v2_0_25,
}


def get_model(name, **kwargs):
    """The model called `name` (case-insensitive, e.g. 'resnet18_v1', 'mobilenetv2_0.25');
    keyword arguments go to its constructor: pretrained (bool), classes, ctx (where pretrained
    weights are loaded), root (where they are kept, default $MXNET_HOME/models)."""
    name = name.lower()
    if name not in _models:
        raise _UnknownModelError('Model %s is not supported. Available options are\n\t%s' % (
            name, '\n\t'.join(sorted(_models))))
    return _models[name](**kwargs)
