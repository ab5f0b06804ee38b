"""Model zoo: the predefined image classification networks (`vision`) and the store of
their pretrained weights (`model_store`)."""
from . import model_store  # noqa: F401
from . import vision  # noqa: F401
