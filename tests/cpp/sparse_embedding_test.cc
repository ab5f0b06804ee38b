// Tests of the row_sparse embedding kernels (src/operator/nn/sparse_embedding_op.cc), take of a
// csr array and the scatter scalar ops, run through Imperative::Invoke's storage dispatch.
#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "sparse_test_util.h"

namespace mxnet {
namespace {

using test::Aux;
using test::Dense;
using test::Values;

NDArray InvokeOp(const char* op, std::vector<NDArray> inputs,
            std::unordered_map<std::string, std::string> kwargs) {
  auto attrs = Imperative::ParseAttrs(nnvm::Op::GetOrThrow(op), std::move(kwargs));
  std::vector<NDArray*> ptrs;
  for (NDArray& a : inputs) ptrs.push_back(&a);
  std::vector<NDArray> out;
  Imperative::Get()->Invoke(Context::CPU(), attrs, ptrs, &out);
  out[0].WaitToRead();
  return out[0];
}

TEST(SparseEmbedding, sparse_grad_stores_each_used_row_once_with_summed_gradients) {
  // ograd rows 0..3 for indices 3, 0, 3 and 9 (clipped to the last row, 5)
  NDArray ograd = Dense({1, 2, 3, 4, 5, 6, 7, 8}, TShape({4, 2}));
  NDArray idx = Dense({3, 0, 3, 9}, TShape({4}));
  NDArray g = InvokeOp("_backward_Embedding", {ograd, idx},
                  {{"input_dim", "6"}, {"output_dim", "2"}, {"sparse_grad", "True"}});
  ASSERT_EQ(g.storage_type(), kRowSparseStorage);
  EXPECT_EQ(Aux(g, rowsparse::kIdx), (std::vector<int64_t>{0, 3, 5}));
  EXPECT_EQ(Values(g), (std::vector<float>{3, 4, 0, 0, 0, 0, 6, 8, 0, 0, 7, 8}));
  NDArray dense =
      InvokeOp("_backward_Embedding", {ograd, idx}, {{"input_dim", "6"}, {"output_dim", "2"}});
  EXPECT_EQ(dense.storage_type(), kDefaultStorage);
  EXPECT_EQ(Values(dense), Values(g));
}

TEST(SparseEmbedding, lookup_in_row_sparse_weight_reads_missing_rows_as_zeros) {
  NDArray w = CastStorage(Dense({0, 0, 1, 2, 0, 0, 3, 4}, TShape({4, 2})), kRowSparseStorage);
  ASSERT_EQ(Aux(w, rowsparse::kIdx), (std::vector<int64_t>{1, 3}));
  NDArray idx = Dense({3, 2, 1}, TShape({3}));
  for (const char* op : {"Embedding", "_contrib_SparseEmbedding"}) {
    NDArray y = InvokeOp(op, {idx, w}, {{"input_dim", "4"}, {"output_dim", "2"}});
    EXPECT_EQ(y.storage_type(), kDefaultStorage) << op;
    EXPECT_EQ(Values(y), (std::vector<float>{3, 4, 0, 0, 1, 2})) << op;
  }
}

TEST(SparseTake, csr_rows_with_wrap_keep_csr_storage) {
  NDArray csr = CastStorage(Dense({0, 1, 0, 2, 0, 3, 0, 0, 0}, TShape({3, 3})), kCSRStorage);
  NDArray idx = Dense({-2, 4, 2}, TShape({3}));  // wrap: rows 1, 1, 2
  NDArray out = InvokeOp("take", {csr, idx}, {{"mode", "wrap"}});
  ASSERT_EQ(out.storage_type(), kCSRStorage);
  EXPECT_EQ(Aux(out, csr::kIndPtr), (std::vector<int64_t>{0, 2, 4, 4}));
  EXPECT_EQ(Values(out), (std::vector<float>{2, 0, 3, 2, 0, 3, 0, 0, 0}));
}

TEST(SparseScatter, plus_scalar_changes_only_stored_values) {
  NDArray csr = CastStorage(Dense({0, 1, 0, 2}, TShape({2, 2})), kCSRStorage);
  NDArray out = InvokeOp("_scatter_plus_scalar", {csr}, {{"scalar", "10"}});
  ASSERT_EQ(out.storage_type(), kCSRStorage);
  EXPECT_EQ(Values(out), (std::vector<float>{0, 11, 0, 12}));
}

}  // namespace
}  // namespace mxnet
