// Row-sparse keys of the distributed store: their layout over the servers, the row ids on
// the wire, and the row arithmetic of the servers; see row_sparse.h.
#include "kvstore/dist/row_sparse.h"

#include <dmlc/logging.h>

#include <cmath>
#include <cstring>

#include "common/type_switch.h"

namespace mxnet {
namespace kvstore {
namespace dist {

KeyLayout MakeRowSparseKeyLayout(int key, int64_t rows, int64_t row_len, int num_servers,
                                 int64_t bigarray_bound) {
  KeyLayout layout;
  layout.row_len = row_len;
  auto add = [&](int server, int64_t first_row, int64_t num_rows) {
    if (num_rows <= 0) return;
    layout.server.push_back(server);
    layout.begin.push_back(first_row * row_len);
    layout.len.push_back(num_rows * row_len);
    layout.cbegin.push_back(0);  // row_sparse keys are not compressed
    layout.clen.push_back(0);
  };
  if (rows * row_len < bigarray_bound || num_servers == 1) {
    add(static_cast<int>((static_cast<int64_t>(key) * 9973) % num_servers), 0, rows);
    return layout;
  }
  const double per = static_cast<double>(rows) / num_servers;
  for (int i = 0; i < num_servers; ++i) {
    const int64_t first = std::llround(per * i);
    add(i, first, std::llround(per * (i + 1)) - first);
  }
  return layout;
}

int64_t RowLength(const TShape& shape) {
  if (shape.ndim() == 0 || shape[0] == 0) return 0;
  return static_cast<int64_t>(shape.Size()) / shape[0];
}

int64_t RowAlignment(const KeyLayout& layout, const TShape& shape) {
  const int64_t row_len = RowLength(shape);
  if (row_len <= 0) return 0;
  for (size_t p = 0; p < layout.begin.size(); ++p) {
    if (layout.begin[p] % row_len != 0 || layout.len[p] % row_len != 0) return 0;
  }
  return row_len;
}

TShape PartShape(const KeyLayout& layout, const TShape& shape, size_t p) {
  if (layout.row_len <= 0) return TShape({layout.len[p]});
  TShape part = shape;
  part[0] = layout.len[p] / layout.row_len;
  return part;
}

std::string EncodeInt64s(const int64_t* values, size_t n) {
  return std::string(reinterpret_cast<const char*>(values), n * sizeof(int64_t));
}

std::string DecodeRowIds(const std::string& body, int64_t num_rows, std::vector<int64_t>* ids) {
  if (body.size() % sizeof(int64_t) != 0) {
    return "row ids of " + std::to_string(body.size()) + " bytes (not int64s)";
  }
  ids->resize(body.size() / sizeof(int64_t));
  if (!ids->empty()) std::memcpy(ids->data(), body.data(), body.size());
  for (size_t i = 0; i < ids->size(); ++i) {
    const int64_t r = (*ids)[i];
    if (r < 0 || r >= num_rows || (i > 0 && r <= (*ids)[i - 1])) {
      return "row id " + std::to_string(r) + " at position " + std::to_string(i) +
             " is out of order or outside [0, " + std::to_string(num_rows) + ")";
    }
  }
  return "";
}

TShape DecodePartShape(const std::string& body, int64_t num_elems) {
  if (body.empty()) return TShape({num_elems});
  CHECK(body.size() % sizeof(int64_t) == 0 && body.size() <= 32 * sizeof(int64_t))
      << "KVStore server: an init push carries a malformed shape (" << body.size() << " bytes)";
  std::vector<int64_t> dims(body.size() / sizeof(int64_t));
  std::memcpy(dims.data(), body.data(), body.size());
  TShape shape(dims.begin(), dims.end());
  int64_t size = 1;
  for (int64_t d : dims) {
    CHECK_GE(d, 0) << "KVStore server: an init push carries a negative dimension";
    size *= d;
  }
  CHECK_EQ(size, num_elems) << "KVStore server: an init push of shape " << shape << " carries "
                            << num_elems << " elements";
  return shape;
}

namespace {

int64_t RowLen(const NDArray& a) { return RowLength(a.shape()); }

}  // namespace

void AddRows(const NDArray& dense, const std::vector<int64_t>& ids, const void* rows) {
  const int64_t row_len = RowLen(dense);
  MXNET_TYPE_SWITCH(dense.dtype(), DType, {
    DType* dst = dense.data().dptr<DType>();
    const DType* src = static_cast<const DType*>(rows);
    for (size_t i = 0; i < ids.size(); ++i) {
      DType* d = dst + ids[i] * row_len;
      const DType* s = src + static_cast<int64_t>(i) * row_len;
      for (int64_t j = 0; j < row_len; ++j) d[j] = d[j] + s[j];
    }
  });
}

void ZeroRows(const NDArray& dense, const std::vector<int64_t>& ids) {
  const size_t row_bytes = RowLen(dense) * DTypeSize(dense.dtype());
  char* base = static_cast<char*>(dense.data().dptr_);
  for (int64_t r : ids) std::memset(base + r * row_bytes, 0, row_bytes);
}

NDArray MakeRowSparse(const TShape& shape, int dtype, const std::vector<int64_t>& ids,
                      const void* rows) {
  const int64_t n = static_cast<int64_t>(ids.size());
  NDArray rsp(kRowSparseStorage, shape, Context::CPU(), false, dtype, {kInt64}, {TShape({n})});
  if (n == 0) return rsp;
  std::memcpy(rsp.aux_data(0).dptr_, ids.data(), n * sizeof(int64_t));
  std::memcpy(rsp.data().dptr_, rows, n * RowLength(shape) * DTypeSize(dtype));
  return rsp;
}

// Copy the rows ids of dense, one after the other, to out.
void CopyRowsTo(const NDArray& dense, const std::vector<int64_t>& ids, char* out) {
  const size_t row_bytes = RowLen(dense) * DTypeSize(dense.dtype());
  const char* base = static_cast<const char*>(dense.data().dptr_);
  for (size_t i = 0; i < ids.size(); ++i) {
    std::memcpy(out + i * row_bytes, base + ids[i] * row_bytes, row_bytes);
  }
}

std::shared_ptr<std::string> CopyRows(const NDArray& dense, const std::vector<int64_t>& ids,
                                      int dtype) {
  const int64_t count = static_cast<int64_t>(ids.size()) * RowLen(dense);
  auto out = std::make_shared<std::string>(count * DTypeSize(dense.dtype()), '\0');
  CopyRowsTo(dense, ids, &(*out)[0]);
  if (dtype == dense.dtype()) return out;
  auto converted = std::make_shared<std::string>(count * DTypeSize(dtype), '\0');
  MXNET_TYPE_SWITCH(dense.dtype(), SType, {
    const SType* src = reinterpret_cast<const SType*>(out->data());
    MXNET_TYPE_SWITCH(dtype, DType, {
      DType* dst = reinterpret_cast<DType*>(&(*converted)[0]);
      for (int64_t i = 0; i < count; ++i) dst[i] = static_cast<DType>(static_cast<float>(src[i]));
    });
  });
  return converted;
}

NDArray GatherRowSparse(const NDArray& dense, const std::vector<int64_t>& ids) {
  const int64_t n = static_cast<int64_t>(ids.size());
  NDArray rsp(kRowSparseStorage, dense.shape(), Context::CPU(), false, dense.dtype(), {kInt64},
              {TShape({n})});
  if (n == 0) return rsp;
  std::memcpy(rsp.aux_data(0).dptr_, ids.data(), n * sizeof(int64_t));
  CopyRowsTo(dense, ids, static_cast<char*>(rsp.data().dptr_));
  return rsp;
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
