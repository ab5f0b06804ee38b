"""mx.contrib.text: token counting, the token <-> index Vocabulary and token embeddings
(MXNet 1.9.1's contrib.text; pretrained GloVe/fastText files are read locally and downloaded
only when absent)."""
from . import utils  # noqa: F401
from . import vocab  # noqa: F401
from . import embedding  # noqa: F401
