#!/usr/bin/env bash
# The whole test suite: C++ tests through ctest, then the Python tests against the package
# installed in .venv by tools/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
# The C++ tests were built by tools/setup.sh in the wheel's own build folder: one build of the
# library serves the wheel, the C++ tests and the Python tests.
WHEEL_BUILD=$(ls -d build/"$(.venv/bin/python -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"-*/ | head -1)
ctest --test-dir "$WHEEL_BUILD" --output-on-failure -j1
# GPU code must always compile: build the library with USE_CUDA=ON where a CUDA toolkit exists
# (nothing runs it without a GPU). Only sources that include mxnet/cuda_config.h compile
# differently; ccache gives the others from the build above.
NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || NVCC=/usr/local/cuda/bin/nvcc
if [ -n "$NVCC" ]; then
  # The same compiler path as the wheel's build (g++ there, c++ by default here): ccache
  # keys on it.
  CXX_OF_WHEEL=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$WHEEL_BUILD/CMakeCache.txt")
  # The NCCL store too where NCCL is installed (in the toolkit or the system folders).
  CUDA_ROOT=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
  USE_NCCL=OFF
  if compgen -G "$CUDA_ROOT/include/nccl.h" >/dev/null || [ -f /usr/include/nccl.h ]; then
    if compgen -G "$CUDA_ROOT/lib*/libnccl.so*" >/dev/null ||
       compgen -G "/usr/lib/*/libnccl.so*" >/dev/null; then
      USE_NCCL=ON
    fi
  fi
  cmake -S . -B build/cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DUSE_CUDA=ON -DUSE_NCCL=$USE_NCCL \
    -DBUILD_PYTHON=OFF -DBUILD_TESTING=OFF -DCMAKE_CUDA_COMPILER="$NVCC" \
    ${CXX_OF_WHEEL:+-DCMAKE_CXX_COMPILER="$CXX_OF_WHEEL"} >/dev/null
  ninja -C build/cuda -j"${JOBS:-2}" mxnet
else
  echo "nvcc not found: skipping the USE_CUDA=ON compile check"
fi
# The references some tests compare with (MXNet 1.9.1 in a pyenv Python 3.8 virtualenv, PyTorch):
# install them where this machine can, so those tests run instead of skipping. A machine that
# cannot (no pyenv 3.8, no network) still runs everything else; -rs below lists each skip.
if compgen -G "${PYENV_ROOT:-$HOME/.pyenv}/versions/3.8.*/bin/python" >/dev/null; then
  bash tools/setup_baselines.sh --tests || echo "tools/setup_baselines.sh failed: the MXNet 1.9.1 / PyTorch comparisons will skip"
else
  echo "no pyenv Python 3.8 under ${PYENV_ROOT:-$HOME/.pyenv}/versions: the MXNet 1.9.1 comparisons will skip"
fi
# numpy 1.x must keep working: the core tests also run in a second virtualenv with numpy<2.
PYTHON=${PYTHON:-python3}
[ -x .venv-numpy1/bin/python ] || "$PYTHON" -m venv .venv-numpy1
.venv-numpy1/bin/pip install -q 'numpy<2' pytest
.venv-numpy1/bin/pip install -q --force-reinstall --no-deps build/wheel/mxnet-*.whl
# Run from tests/python so the source tree's python/mxnet is not imported by accident.
cd tests/python
../../.venv-numpy1/bin/python -m pytest -q -rs -p no:cacheprovider unittest/test_ndarray.py \
  unittest/test_autograd.py unittest/test_ndarray_io.py unittest/test_dlpack.py
# Test-only requirements (mx.test_utils' statistical checks use scipy).
../../.venv/bin/pip install -q scipy
# -rs: the summary names every skipped test and why, so a skip is never silent.
../../.venv/bin/python -m pytest -q -rs -p no:cacheprovider unittest "$@"
