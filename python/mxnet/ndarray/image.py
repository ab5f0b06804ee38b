"""mx.nd.image: image operators registered as _image_* (filled at import)."""
