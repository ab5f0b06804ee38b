#!/usr/bin/env bash
# Developer build: libmxnet.so and the Python extension into build/, then copied into
# python/mxnet so `PYTHONPATH=python` imports the fresh build. Concurrent calls serialize.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/root/dev-venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
exec 9>/tmp/mxnet-dev-build.lock
flock 9
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$PYTHON" \
    -Dpybind11_DIR="$("$PYTHON" -m pybind11 --cmakedir 2>/dev/null || echo /usr/lib/cmake/pybind11)" >/dev/null
fi
ninja -C build -j"${JOBS:-2}" "$@"
# Copy then rename: a running Python keeps its mapping of the old file intact.
for f in build/libmxnet.so build/python/_ffi*.so; do
  cp -f "$f" "python/mxnet/.$(basename "$f").tmp"
  mv -f "python/mxnet/.$(basename "$f").tmp" "python/mxnet/$(basename "$f")"
done
