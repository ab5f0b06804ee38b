#!/usr/bin/env bash
# On a machine with a GPU: build libmxnet.so and the Python extension with USE_CUDA=ON and
# USE_NCCL=ON (into build/gpu, then copied into python/mxnet as tools/dev_build.sh does) and run
# the GPU tests (KVStore 'nccl'/'device' on GPUs, 2-bit on GPU) and the C++ 2-bit codec tests.
# Kept lean for a short device lease: only the targets the tests need; JOBS defaults to nproc.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/root/dev-venv/bin/python}
[ -x "$PYTHON" ] || PYTHON=python3
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
nvidia-smi -L || { echo "gpu_check: no GPU visible (nvidia-smi -L failed)"; exit 1; }
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
if [ ! -f build/gpu/build.ninja ]; then
  cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DUSE_CUDA=ON -DUSE_NCCL=ON \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" \
    -DBUILD_EXAMPLES=OFF -DPython_EXECUTABLE="$PYTHON" \
    -Dpybind11_DIR="$("$PYTHON" -m pybind11 --cmakedir 2>/dev/null || echo /usr/lib/cmake/pybind11)" >/dev/null
fi
ninja -C build/gpu -j"${JOBS:-$(nproc)}" mxnet python/all mxnet_cpp_tests
for f in build/gpu/libmxnet.so build/gpu/python/_ffi*.so; do
  cp -f "$f" "python/mxnet/.$(basename "$f").tmp"
  mv -f "python/mxnet/.$(basename "$f").tmp" "python/mxnet/$(basename "$f")"
done
build/gpu/tests/mxnet_cpp_tests --gtest_filter='TwoBitCodec.*:KVStore*'
PYTHONPATH=python "$PYTHON" -c 'import mxnet as mx; print("GPUs:", mx.context.num_gpus(), mx.runtime.Features())'
PYTHONPATH=python "$PYTHON" -m pytest -q -rs -p no:cacheprovider \
  tests/python/unittest/test_kvstore_gpu.py tests/python/unittest/test_kvstore_local.py
