#!/usr/bin/env bash
# Run the Python tests against an AddressSanitizer build of libmxnet.so and the extension
# (a developer check, not part of CI: the build takes a while on 2 cores).
# Reports, if any, land in /tmp/asan_report.*; the script exits non-zero when one appears.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/root/dev-venv/bin/python}
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address" -DBUILD_TESTING=OFF \
  -DPython_EXECUTABLE="$PYTHON" -Dpybind11_DIR="$("$PYTHON" -m pybind11 --cmakedir)" >/dev/null
ninja -C build/asan -j"${JOBS:-2}" mxnet _ffi
pkg=$(mktemp -d)
cp -r python/mxnet "$pkg/"
rm -f "$pkg"/mxnet/*.so
cp build/asan/libmxnet.so build/asan/python/_ffi*.so "$pkg/mxnet/"
rm -f /tmp/asan_report.*
# Python itself is not instrumented: preload the runtime (and libstdc++, so ASan can
# intercept C++ throws), and leave leak checking to the C++ tests.
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:log_path=/tmp/asan_report \
PYTHONPATH="$pkg" "$PYTHON" -m pytest -q -p no:cacheprovider tests/python/unittest \
  --ignore=tests/python/unittest/test_c_api.py "$@"
if ls /tmp/asan_report.* >/dev/null 2>&1; then
  echo "AddressSanitizer reports:" && head -40 /tmp/asan_report.*
  exit 1
fi
