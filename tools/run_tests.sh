#!/usr/bin/env bash
# The whole test suite: C++ tests through ctest, then the Python tests against the package
# installed in .venv by tools/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
cmake -S . -B build/ctest -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_PYTHON=OFF >/dev/null
ninja -C build/ctest -j"${JOBS:-2}"
ctest --test-dir build/ctest --output-on-failure -j1
# Run from tests/python so the source tree's python/mxnet is not imported by accident.
cd tests/python
../../.venv/bin/python -m pytest -q -p no:cacheprovider unittest "$@"
