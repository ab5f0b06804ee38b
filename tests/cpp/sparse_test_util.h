// Helpers of the sparse C++ tests: a dense float32 array from values, and the values and aux
// arrays of any array read back to the host.
#ifndef MXNET_TESTS_CPP_SPARSE_TEST_UTIL_H_
#define MXNET_TESTS_CPP_SPARSE_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace test {

inline NDArray Dense(const std::vector<float>& v, const TShape& shape) {
  NDArray a(shape, Context::CPU(), false, kFloat32);
  a.SyncCopyFromCPU(v.data(), v.size());
  return a;
}

/*! \brief All values of a (dense or sparse) float32 array, as a dense array holds them. */
inline std::vector<float> Values(const NDArray& a) {
  NDArray d = CastStorage(a, kDefaultStorage);
  std::vector<float> v(d.shape().Size());
  d.SyncCopyToCPU(v.data(), v.size());
  return v;
}

/*! \brief Aux array i of a sparse array (indices, indptr). */
inline std::vector<int64_t> Aux(const NDArray& a, size_t i) {
  NDArray d = a.aux_ndarray(i);
  std::vector<int64_t> v(d.shape().Size());
  d.SyncCopyToCPU(v.data(), v.size());
  return v;
}

}  // namespace test
}  // namespace mxnet

#endif  // MXNET_TESTS_CPP_SPARSE_TEST_UTIL_H_
