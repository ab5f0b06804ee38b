#!/usr/bin/env bash
# One-time set-up on Debian 12: system packages, a virtualenv in .venv, and `pip install .`
# (builds libmxnet.so and the Python extension). Safe to re-run; ccache makes rebuilds fast.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build ccache git python3 python3-venv python3-dev \
  libdnnl-dev libopenblas-dev libdmlc-dev libopencv-dev libjpeg62-turbo-dev libdlpack-dev libgtest-dev pybind11-dev \
  libzmq3-dev \
  dataset-fashion-mnist >/dev/null
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q numpy pytest requests tqdm
# Paths inside the compiler commands differ between clones; let ccache ignore them.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
# Build once: the wheel (libmxnet.so and the extension) and, in the same CMake build folder
# (build/<wheel tag>), the C++ tests that tools/run_tests.sh runs. The tests also install the
# wheel into a numpy-1.x virtualenv.
rm -rf build/wheel
.venv/bin/pip wheel -q --no-deps -w build/wheel --config-settings=cmake.define.BUILD_TESTING=ON .
.venv/bin/pip install -q --force-reinstall --no-deps build/wheel/mxnet-*.whl
.venv/bin/python -c "import mxnet; print('mxnet', mxnet.__version__, 'installed in .venv')"
