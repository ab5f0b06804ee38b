"""mx.contrib.text: token counting and the token <-> index Vocabulary (MXNet 1.9.1's
contrib.text without the pretrained embeddings, which need downloads)."""
from . import utils  # noqa: F401
from . import vocab  # noqa: F401
