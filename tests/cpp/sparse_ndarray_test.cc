// Tests of sparse NDArrays (src/ndarray/ndarray_sparse.cc): creation, allocation by aux
// shapes, conversion to and from dense storage, format checks and the .params record.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "sparse_test_util.h"

namespace mxnet {
namespace {

using test::Aux;
using test::Dense;
using test::Values;

const std::vector<float> kDense = {0, 1, 0, 2, 0, 3, 0, 0, 0, 0, 0, 4};  // 4 x 3

TEST(SparseNDArray, empty_arrays_hold_no_element_and_read_as_zeros) {
  NDArray rsp(kRowSparseStorage, TShape({4, 3}), Context::CPU());
  NDArray csr(kCSRStorage, TShape({4, 3}), Context::CPU());
  EXPECT_EQ(rsp.storage_type(), kRowSparseStorage);
  EXPECT_FALSE(rsp.storage_initialized());
  EXPECT_EQ(rsp.storage_shape(), TShape({0, 3}));
  EXPECT_EQ(csr.aux_shape(csr::kIndPtr), TShape({5}));
  EXPECT_EQ(Aux(csr, csr::kIndPtr), std::vector<int64_t>(5, 0));
  EXPECT_EQ(Values(rsp), std::vector<float>(12, 0));
  EXPECT_EQ(Values(csr), std::vector<float>(12, 0));
}

TEST(SparseNDArray, dense_to_row_sparse_keeps_nonzero_rows) {
  NDArray rsp = CastStorage(Dense(kDense, TShape({4, 3})), kRowSparseStorage);
  EXPECT_EQ(Aux(rsp, rowsparse::kIdx), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(rsp.storage_shape(), TShape({3, 3}));
  EXPECT_EQ(Values(rsp), kDense);
}

TEST(SparseNDArray, dense_to_csr_and_back) {
  NDArray csr = CastStorage(Dense(kDense, TShape({4, 3})), kCSRStorage);
  EXPECT_EQ(Aux(csr, csr::kIndPtr), (std::vector<int64_t>{0, 1, 3, 3, 4}));
  EXPECT_EQ(Aux(csr, csr::kIdx), (std::vector<int64_t>{1, 0, 2, 2}));
  EXPECT_EQ(Values(csr), kDense);
  csr.SyncCheckFormat(true);
}

TEST(SparseNDArray, check_and_alloc_resizes_values_with_aux_shapes) {
  NDArray rsp(kRowSparseStorage, TShape({10, 2}), Context::CPU(), false);
  rsp.CheckAndAlloc({TShape({4})});
  EXPECT_EQ(rsp.storage_shape(), TShape({4, 2}));
  EXPECT_EQ(rsp.data().Size(), 8U);
  rsp.CheckAndAlloc({TShape({1})});
  EXPECT_EQ(rsp.storage_shape(), TShape({1, 2}));
  EXPECT_TRUE(rsp.storage_initialized());
}

TEST(SparseNDArray, check_format_rejects_unsorted_and_out_of_range_indices) {
  NDArray rsp(kRowSparseStorage, TShape({3, 2}), Context::CPU(), false, kFloat32, {},
              {TShape({2})});
  std::vector<int64_t> bad = {2, 1};
  NDArray idx(TShape({2}), Context::CPU(), false, kInt64);
  idx.SyncCopyFromCPU(bad.data(), bad.size());
  rsp.SyncCopyFromNDArray(idx, -1, rowsparse::kIdx);
  EXPECT_THROW(rsp.SyncCheckFormat(true), dmlc::Error);
  bad = {0, 7};
  idx.SyncCopyFromCPU(bad.data(), bad.size());
  rsp.SyncCopyFromNDArray(idx, -1, rowsparse::kIdx);
  EXPECT_THROW(rsp.SyncCheckFormat(true), dmlc::Error);
  EXPECT_NO_THROW(rsp.SyncCheckFormat(false));
}

TEST(SparseNDArray, copies_between_storage_types_convert) {
  NDArray csr = CastStorage(Dense(kDense, TShape({4, 3})), kCSRStorage);
  NDArray other(kCSRStorage, TShape({4, 3}), Context::CPU());
  CopyFromTo(csr, other);
  EXPECT_EQ(Values(other), kDense);
  NDArray dense(TShape({4, 3}), Context::CPU());
  CopyFromTo(csr, dense);
  EXPECT_EQ(Values(dense), kDense);
  EXPECT_THROW(csr.Slice(0, 1), dmlc::Error);
}

TEST(SparseNDArray, params_record_round_trips) {
  NDArray rsp = CastStorage(Dense(kDense, TShape({4, 3})), kRowSparseStorage);
  NDArray csr = CastStorage(Dense(kDense, TShape({4, 3})), kCSRStorage);
  std::string buf = SaveNDArrayBuffer({rsp, csr}, {"r", "c"}, 0);
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  LoadNDArrayBuffer(buf.data(), buf.size(), &arrays, &names, 0);
  ASSERT_EQ(arrays.size(), 2U);
  EXPECT_EQ(arrays[0].storage_type(), kRowSparseStorage);
  EXPECT_EQ(arrays[1].storage_type(), kCSRStorage);
  EXPECT_EQ(Values(arrays[0]), kDense);
  EXPECT_EQ(Values(arrays[1]), kDense);
  // numpy-shape (V3) records are dense only, as in MXNet.
  EXPECT_THROW(SaveNDArrayBuffer({rsp}, {}, 1), dmlc::Error);
}

TEST(SparseNDArray, dense_operators_fall_back_on_sparse_inputs) {
  NDArray csr = CastStorage(Dense(kDense, TShape({4, 3})), kCSRStorage);
  auto attrs = Imperative::ParseAttrs(nnvm::Op::GetOrThrow("exp"), {});
  NDArray in = csr;
  std::vector<NDArray> out;
  Imperative::Get()->Invoke(Context::CPU(), attrs, {&in}, &out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].storage_type(), kDefaultStorage);  // exp(0) = 1: no longer sparse
  std::vector<float> got = Values(out[0]);
  for (size_t i = 0; i < kDense.size(); ++i) EXPECT_FLOAT_EQ(got[i], std::exp(kDense[i]));
}

TEST(SparseNDArray, zero_preserving_operators_keep_storage) {
  NDArray csr = CastStorage(Dense(kDense, TShape({4, 3})), kCSRStorage);
  auto attrs = Imperative::ParseAttrs(nnvm::Op::GetOrThrow("negative"), {});
  NDArray in = csr;
  std::vector<NDArray> out;
  Imperative::Get()->Invoke(Context::CPU(), attrs, {&in}, &out);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].storage_type(), kCSRStorage);
  EXPECT_EQ(Aux(out[0], csr::kIdx), Aux(csr, csr::kIdx));
  std::vector<float> want = kDense;
  for (float& v : want) v = -v;
  EXPECT_EQ(Values(out[0]), want);
}

}  // namespace
}  // namespace mxnet
