#!/usr/bin/env bash
# On a machine with a GPU: run the GPU tests of the KVStores ('nccl' and 'device' on GPUs, 2-bit
# on a GPU: tests/python/unittest/test_kvstore_gpu.py, beside test_kvstore_local.py).
#   tools/gpu_check.sh            builds libmxnet.so (USE_CUDA=ON, USE_NCCL=ON) and the Python
#                                 extension into build/gpu first (JOBS defaults to nproc)
#   PREBUILT=1 tools/gpu_check.sh uses a library built elsewhere, build/cuda/libmxnet.so (tools/
#                                 run_tests.sh's compile check), with python/mxnet's extension:
#                                 carry both to the GPU machine; nothing is compiled there.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/root/dev-venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
nvidia-smi -L || { echo "gpu_check: no GPU visible (nvidia-smi -L failed)"; exit 1; }
if [ -n "${PREBUILT:-}" ]; then
  LIB=$PWD/build/cuda/libmxnet.so
else
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  if [ ! -f build/gpu/build.ninja ]; then
    cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DUSE_CUDA=ON -DUSE_NCCL=ON \
      -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" \
      -DBUILD_TESTING=OFF -DBUILD_EXAMPLES=OFF -DPython_EXECUTABLE="$PYTHON" \
      -Dpybind11_DIR="$("$PYTHON" -m pybind11 --cmakedir 2>/dev/null || echo /usr/lib/cmake/pybind11)" >/dev/null
  fi
  ninja -C build/gpu -j"${JOBS:-$(nproc)}" mxnet python/all
  cp -f build/gpu/python/_ffi*.so python/mxnet/
  LIB=$PWD/build/gpu/libmxnet.so
fi
export MXNET_LIBRARY_PATH=$LIB PYTHONPATH=python
"$PYTHON" -c 'import mxnet as mx; f = mx.runtime.Features()
print("GPUs:", mx.context.num_gpus(), "CUDA:", f.is_enabled("CUDA"), "NCCL:", f.is_enabled("NCCL"))'
"$PYTHON" -m pytest -q -rs -p no:cacheprovider \
  tests/python/unittest/test_kvstore_gpu.py tests/python/unittest/test_kvstore_local.py
