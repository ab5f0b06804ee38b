// mxnet._ffi: the 2-bit gradient compression kernels of the KVStore, for tests and benchmarks
// (the store itself is reached through the C API, as MXNet's Python front does).
#include "kvstore/gradient_compression.h"
#include "py_common.h"

namespace mxnet {

void DefineKVStore(py::module_& m) {
  auto make = [](float threshold) {
    kvstore::GradientCompression gc;
    gc.SetParams({{"type", "2bit"}, {"threshold", std::to_string(threshold)}});
    return gc;
  };
  m.def(
      "_kvstore_quantize_2bit",
      [make](const NDArray& grad, NDArray& residual, NDArray& out, float threshold) {
        make(threshold).Quantize(grad, &out, &residual, 0);
      },
      "out = 2-bit codes of grad + residual (engine op); residual keeps what was not sent.");
  m.def(
      "_kvstore_dequantize_2bit",
      [make](const NDArray& codes, NDArray& out, float threshold) {
        make(threshold).Dequantize(codes, &out, 0);
      },
      "out = +threshold / -threshold / 0 for each 2-bit code (engine op).");
}

}  // namespace mxnet
