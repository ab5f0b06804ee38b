#!/usr/bin/env bash
# Builds the libFuzzer target (clang, ASan + UBSan) and runs it over the committed seed corpus
# for RUNS extra inputs (default 3000): ./tests/fuzz/run.sh [RUNS]. Exit status is non-zero
# when the fuzzer finds a crash, a leak or undefined behaviour.
set -euo pipefail
cd "$(dirname "$0")"
RUNS=${1:-3000}
OUT=${FUZZ_BUILD_DIR:-/tmp/mxnet-fuzz-build}
mkdir -p "$OUT/corpus"
SRC=../../src
if [ ! -x "$OUT/fuzz_recordio" ] || [ fuzz_recordio.cc -nt "$OUT/fuzz_recordio" ] ||
   [ $SRC/io/recordio_index.cc -nt "$OUT/fuzz_recordio" ] ||
   [ $SRC/operator/image/image_codec.cc -nt "$OUT/fuzz_recordio" ]; then
  clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -DMXNET_USE_OPENCV=1 -DDMLC_LOG_STACK_TRACE=0 -I$SRC -I../../include -isystem /usr/include/opencv4 \
    fuzz_recordio.cc $SRC/io/recordio_index.cc $SRC/operator/image/image_codec.cc $SRC/common/env.cc \
    $SRC/common/env_vars.cc -o "$OUT/fuzz_recordio" \
    -lopencv_imgcodecs -lopencv_imgproc -lopencv_core -ldmlc -lpthread
fi
cp -f corpus/* "$OUT/corpus/"
ASAN_OPTIONS=detect_leaks=1 "$OUT/fuzz_recordio" -runs="$RUNS" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 "$OUT/corpus"
