"""mx.mod / mx.module: train and run symbols with Module, BucketingModule, SequentialModule
and Python-written modules (MXNet 1.9's module API)."""
from .base_module import BaseModule
from .module import Module
from .bucketing_module import BucketingModule
from .sequential_module import SequentialModule
from .python_module import PythonModule, PythonLossModule

__all__ = ['BaseModule', 'Module', 'BucketingModule', 'SequentialModule', 'PythonModule',
           'PythonLossModule']
