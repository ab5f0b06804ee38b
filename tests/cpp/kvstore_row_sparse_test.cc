// Row-sparse keys of the distributed store in one process: how their rows are cut over the
// servers (MXNet 1.9.1's row ranges; dense keys cut on whole rows and words), the row ids on
// the wire (malformed ones refused), and the servers' row arithmetic.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#if MXNET_USE_DIST_KVSTORE
#include "kvstore/dist/kvstore_dist.h"
#include "kvstore/dist/row_sparse.h"

namespace {

using namespace mxnet;                  // NOLINT
using namespace mxnet::kvstore::dist;  // NOLINT

TEST(KVStoreDistRowSparse, small_key_goes_whole_to_the_server_mxnet_picks) {
  KeyLayout l = MakeRowSparseKeyLayout(7, 10, 3, 2, 1000000);
  ASSERT_EQ(l.server.size(), 1u);
  EXPECT_EQ(l.server[0], (7 * 9973) % 2);
  EXPECT_EQ(l.len[0], 30);
  EXPECT_EQ(l.row_len, 3);
}

TEST(KVStoreDistRowSparse, big_key_gives_each_server_the_rows_mxnet_gives_it) {
  // 1.9.1: server i gets rows [round(R / S * i), round(R / S * (i + 1))).
  KeyLayout l = MakeRowSparseKeyLayout(1, 1200, 1200, 3, 1000000);
  ASSERT_EQ(l.server.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(l.server[i], i);
    EXPECT_EQ(l.begin[i], 400 * i * 1200);
    EXPECT_EQ(l.len[i], 400 * 1200);
  }
  KeyLayout odd = MakeRowSparseKeyLayout(1, 5, 40, 2, 100);  // 2.5 rows a server
  EXPECT_EQ(odd.len[0] / 40 + odd.len[1] / 40, 5);
  EXPECT_EQ(odd.begin[1], odd.len[0]);
}

TEST(KVStoreDistRowSparse, dense_key_parts_are_whole_rows_and_whole_words) {
  for (int64_t row_len : {3, 7, 128, 300, 1211}) {
    const int64_t rows = 2000000 / row_len + 17;
    KeyLayout l = MakeKeyLayout(3, rows * row_len, 2, 1000000, row_len);
    ASSERT_EQ(l.server.size(), 2u);
    EXPECT_EQ(l.begin[1] % 16, 0) << row_len;
    EXPECT_EQ(l.begin[1] % row_len, 0) << row_len;
    EXPECT_EQ(l.cbegin[1] * 16, l.begin[1]);
    EXPECT_EQ(l.len[0] + l.len[1], rows * row_len);
    EXPECT_EQ(RowAlignment(l, TShape({rows, row_len})), row_len);
  }
  // Rows of 700001 elements: a whole-row unit (lcm with 16) is bigger than the key, so it is
  // cut in words, mid-row (row_sparse gradients then travel dense).
  KeyLayout mid = MakeKeyLayout(3, 3 * 700001, 2, 1000000, 700001);
  ASSERT_EQ(mid.server.size(), 2u);
  EXPECT_EQ(mid.begin[1] % 16, 0);
  EXPECT_EQ(RowAlignment(mid, TShape({3, 700001})), 0);
}

TEST(KVStoreDistRowSparse, part_shapes_keep_the_trailing_dimensions) {
  KeyLayout l = MakeRowSparseKeyLayout(0, 10, 6, 2, 10);
  EXPECT_EQ(PartShape(l, TShape({10, 2, 3}), 0), TShape({5, 2, 3}));
  std::vector<int64_t> dims = {5, 2, 3};
  EXPECT_EQ(DecodePartShape(EncodeInt64s(dims.data(), 3), 30), TShape({5, 2, 3}));
  EXPECT_EQ(DecodePartShape("", 30), TShape({30}));
  EXPECT_THROW(DecodePartShape(EncodeInt64s(dims.data(), 3), 31), dmlc::Error);
  EXPECT_THROW(DecodePartShape("abc", 30), dmlc::Error);
}

TEST(KVStoreDistRowSparse, row_ids_on_the_wire_must_be_sorted_unique_and_in_range) {
  std::vector<int64_t> ids;
  std::vector<int64_t> good = {0, 3, 9};
  EXPECT_EQ(DecodeRowIds(EncodeInt64s(good.data(), 3), 10, &ids), "");
  EXPECT_EQ(ids, good);
  for (std::vector<int64_t> bad : {std::vector<int64_t>{3, 3}, {4, 2}, {-1}, {10}}) {
    EXPECT_NE(DecodeRowIds(EncodeInt64s(bad.data(), bad.size()), 10, &ids), "");
  }
  EXPECT_NE(DecodeRowIds("12345", 10, &ids), "");  // not int64s
  EXPECT_EQ(DecodeRowIds("", 10, &ids), "");
  EXPECT_TRUE(ids.empty());
}

TEST(KVStoreDistRowSparse, servers_add_gather_and_clear_rows) {
  NDArray dense(TShape({4, 2}), Context::CPU(), false, kFloat32);
  std::vector<float> zeros(8, 0.f);
  dense.SyncCopyFromCPU(zeros.data(), 8);
  const std::vector<int64_t> ids = {1, 3};
  const float rows[] = {1, 2, 3, 4};
  AddRows(dense, ids, rows);
  AddRows(dense, ids, rows);
  std::vector<float> got(8);
  dense.SyncCopyToCPU(got.data(), 8);
  EXPECT_EQ(got, (std::vector<float>{0, 0, 2, 4, 0, 0, 6, 8}));

  NDArray rsp = GatherRowSparse(dense, {3});
  EXPECT_EQ(rsp.storage_type(), kRowSparseStorage);
  EXPECT_EQ(rsp.shape(), TShape({4, 2}));
  ASSERT_EQ(rsp.aux_shape(0), TShape({1}));
  EXPECT_EQ(rsp.aux_data(0).dptr<int64_t>()[0], 3);
  EXPECT_EQ(rsp.data().dptr<float>()[1], 8.f);

  std::shared_ptr<std::string> half = CopyRows(dense, {1}, kFloat64);  // converted
  ASSERT_EQ(half->size(), 2 * sizeof(double));
  EXPECT_EQ(reinterpret_cast<const double*>(half->data())[1], 4.0);

  ZeroRows(dense, ids);
  dense.SyncCopyToCPU(got.data(), 8);
  EXPECT_EQ(got, zeros);
}

}  // namespace
#endif  // MXNET_USE_DIST_KVSTORE
