// Sparse elementwise kernels: elemwise_add/sub/mul on row_sparse and csr arrays, add_n of
// row_sparse arrays, zeros_like of sparse arrays.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/type_switch.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {

NDArray DistinctOutput(const NDArray& out, const std::vector<NDArray>& inputs) {
  for (const NDArray& in : inputs) {
    if (in.chunk_id() != out.chunk_id()) continue;
    return NDArray(static_cast<NDArrayStorageType>(out.storage_type()), out.shape(), out.ctx(),
                   false, out.dtype());
  }
  return out;
}

namespace {

template <typename DType>
DType Apply(SparseBinaryKind kind, DType a, DType b) {
  if constexpr (std::is_same<DType, half_t>::value) {
    const float x = a, y = b;
    return half_t(kind == SparseBinaryKind::kAdd ? x + y : kind == SparseBinaryKind::kSub ? x - y
                                                                                          : x * y);
  } else {
    return static_cast<DType>(kind == SparseBinaryKind::kAdd   ? a + b
                              : kind == SparseBinaryKind::kSub ? a - b
                                                               : a * b);
  }
}

size_t RowSize(const TShape& shape) { return shape.ProdShape(1, shape.ndim()); }

const int64_t* Indices(const NDArray& a, size_t i, dim_t* n) {
  *n = a.storage_initialized() || a.storage_type() == kCSRStorage ? a.aux_shape(i)[0] : 0;
  return *n ? a.aux_data(i).dptr<int64_t>() : nullptr;
}

// rsp (op) rsp -> rsp: rows of either (add, sub) or of both (mul).
void RspRsp(SparseBinaryKind kind, const NDArray& a, const NDArray& b, const NDArray& out) {
  dim_t na, nb;
  const int64_t* ia = Indices(a, rowsparse::kIdx, &na);
  const int64_t* ib = Indices(b, rowsparse::kIdx, &nb);
  struct Row { int64_t index; dim_t pa, pb; };  // positions in a and b, -1 when absent
  std::vector<Row> rows;
  for (dim_t i = 0, j = 0; i < na || j < nb;) {
    if (j >= nb || (i < na && ia[i] < ib[j])) {
      rows.push_back({ia[i], i, -1});
      ++i;
    } else if (i >= na || ib[j] < ia[i]) {
      rows.push_back({ib[j], -1, j});
      ++j;
    } else {
      rows.push_back({ia[i], i, j});
      ++i, ++j;
    }
  }
  if (kind == SparseBinaryKind::kMul) {
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [](const Row& r) { return r.pa < 0 || r.pb < 0; }),
               rows.end());
  }
  out.CheckAndAlloc({TShape({static_cast<dim_t>(rows.size())})});
  if (rows.empty()) return;
  const size_t rs = RowSize(out.shape());
  int64_t* oi = out.aux_data(rowsparse::kIdx).dptr<int64_t>();
  MXNET_TYPE_SWITCH(out.dtype(), DType, {
    const DType* va = na ? a.data().dptr<DType>() : nullptr;
    const DType* vb = nb ? b.data().dptr<DType>() : nullptr;
    DType* vo = out.data().dptr<DType>();
    for (size_t k = 0; k < rows.size(); ++k) {
      oi[k] = rows[k].index;
      for (size_t j = 0; j < rs; ++j) {
        const DType x = rows[k].pa >= 0 ? va[rows[k].pa * rs + j] : DType(0);
        const DType y = rows[k].pb >= 0 ? vb[rows[k].pb * rs + j] : DType(0);
        vo[k * rs + j] = Apply(kind, x, y);
      }
    }
  });
}

// a itself when its column indices are sorted within each row, else a copy where they are
// (a csr array may store a row's values in any column order; the merges below need order).
NDArray SortedCsr(const NDArray& a) {
  dim_t nnz, n_ptr;
  const int64_t* col = Indices(a, csr::kIdx, &nnz);
  const int64_t* ptr = Indices(a, csr::kIndPtr, &n_ptr);
  const dim_t rows = a.shape()[0];
  bool sorted = true;
  for (dim_t r = 0; sorted && r < rows && nnz; ++r) {
    sorted = std::is_sorted(col + ptr[r], col + ptr[r + 1]);
  }
  if (sorted) return a;
  NDArray s(kCSRStorage, a.shape(), a.ctx(), true, a.dtype());
  s.CheckAndAlloc({TShape({rows + 1}), TShape({nnz})});
  std::memcpy(s.aux_data(csr::kIndPtr).dptr_, ptr, (rows + 1) * sizeof(int64_t));
  int64_t* scol = s.aux_data(csr::kIdx).dptr<int64_t>();
  const size_t bytes = DTypeSize(a.dtype());
  const char* v = static_cast<const char*>(a.data().dptr_);
  char* sv = static_cast<char*>(s.data().dptr_);
  std::vector<int64_t> order;
  for (dim_t r = 0; r < rows; ++r) {
    order.resize(ptr[r + 1] - ptr[r]);
    for (size_t k = 0; k < order.size(); ++k) order[k] = ptr[r] + k;
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return col[x] < col[y]; });
    for (size_t k = 0; k < order.size(); ++k) {
      scol[ptr[r] + k] = col[order[k]];
      std::memcpy(sv + (ptr[r] + k) * bytes, v + order[k] * bytes, bytes);
    }
  }
  return s;
}

// csr (op) csr -> csr: per row, the columns of either (add, sub) or of both (mul).
void CsrCsr(SparseBinaryKind kind, const NDArray& a, const NDArray& b, const NDArray& out) {
  const dim_t rows = out.shape()[0];
  dim_t tmp;
  const int64_t* pa = Indices(a, csr::kIndPtr, &tmp);
  const int64_t* pb = Indices(b, csr::kIndPtr, &tmp);
  const int64_t* ca = Indices(a, csr::kIdx, &tmp);
  const int64_t* cb = Indices(b, csr::kIdx, &tmp);
  MXNET_TYPE_SWITCH(out.dtype(), DType, {
    const DType* va = ca ? a.data().dptr<DType>() : nullptr;
    const DType* vb = cb ? b.data().dptr<DType>() : nullptr;
    std::vector<int64_t> indptr(rows + 1, 0), cols;
    // (std::vector<bool> packs bits; bool values are kept as bytes.)
    std::vector<std::conditional_t<std::is_same<DType, bool>::value, uint8_t, DType>> vals;
    for (dim_t r = 0; r < rows; ++r) {
      int64_t i = pa[r], j = pb[r];
      const int64_t ie = pa[r + 1], je = pb[r + 1];
      while (i < ie || j < je) {
        int64_t c;
        DType x(0), y(0);
        bool both = false;
        if (j >= je || (i < ie && ca[i] < cb[j])) {
          c = ca[i];
          x = va[i++];
        } else if (i >= ie || cb[j] < ca[i]) {
          c = cb[j];
          y = vb[j++];
        } else {
          c = ca[i];
          x = va[i++];
          y = vb[j++];
          both = true;
        }
        if (kind == SparseBinaryKind::kMul && !both) continue;
        cols.push_back(c);
        vals.push_back(Apply(kind, x, y));
      }
      indptr[r + 1] = static_cast<int64_t>(cols.size());
    }
    out.CheckAndAlloc({TShape({rows + 1}), TShape({static_cast<dim_t>(cols.size())})});
    std::memcpy(out.aux_data(csr::kIndPtr).dptr_, indptr.data(), indptr.size() * sizeof(int64_t));
    if (!cols.empty()) {
      std::memcpy(out.aux_data(csr::kIdx).dptr_, cols.data(), cols.size() * sizeof(int64_t));
      std::memcpy(out.data().dptr_, vals.data(), vals.size() * sizeof(DType));
    }
  });
}

// sparse * dense -> sparse of the sparse operand's type and positions.
void SparseTimesDense(const NDArray& s, const TBlob& d, const NDArray& out) {
  const bool rsp = s.storage_type() == kRowSparseStorage;
  std::vector<TShape> aux;
  for (int i = 0; i < NumAuxData(s.storage_type()); ++i) aux.push_back(s.aux_shape(i));
  out.CheckAndAlloc(aux);
  for (size_t i = 0; i < aux.size(); ++i) {
    if (aux[i].Size()) {
      std::memcpy(out.aux_data(i).dptr_, s.aux_data(i).dptr_, aux[i].Size() * sizeof(int64_t));
    }
  }
  if (out.storage_shape().Size() == 0) return;
  MXNET_TYPE_SWITCH(out.dtype(), DType, {
    const DType* vs = s.data().dptr<DType>();
    const DType* vd = d.dptr<DType>();
    DType* vo = out.data().dptr<DType>();
    if (rsp) {
      const size_t rs = RowSize(s.shape());
      const int64_t* idx = s.aux_data(rowsparse::kIdx).dptr<int64_t>();
      for (dim_t k = 0; k < aux[0][0]; ++k) {
        for (size_t j = 0; j < rs; ++j) {
          vo[k * rs + j] = Apply(SparseBinaryKind::kMul, vs[k * rs + j], vd[idx[k] * rs + j]);
        }
      }
    } else {
      const dim_t cols = s.shape()[1];
      const int64_t* indptr = s.aux_data(csr::kIndPtr).dptr<int64_t>();
      const int64_t* idx = s.aux_data(csr::kIdx).dptr<int64_t>();
      for (dim_t r = 0; r < s.shape()[0]; ++r) {
        for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
          vo[k] = Apply(SparseBinaryKind::kMul, vs[k], vd[r * cols + idx[k]]);
        }
      }
    }
  });
}

template <SparseBinaryKind kKind>
bool ElemwiseStorage(const NodeAttrs&, int, DispatchMode* mode, std::vector<int>* in,
                     std::vector<int>* out) {
  const int a = (*in)[0], b = (*in)[1];
  if (a == kDefaultStorage && b == kDefaultStorage) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else if (a == b) {  // rsp/rsp or csr/csr
    (*out)[0] = a;
    *mode = DispatchMode::kFComputeEx;
  } else if (kKind == SparseBinaryKind::kMul && (a == kDefaultStorage || b == kDefaultStorage)) {
    (*out)[0] = a == kDefaultStorage ? b : a;
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

template <SparseBinaryKind kKind>
void ElemwiseEx(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name
                           << ": req 'add' is not supported for sparse outputs";
  NDArray out = DistinctOutput(outs[0], in);
  const int a = in[0].storage_type(), b = in[1].storage_type();
  if (a == b && a == kRowSparseStorage) {
    RspRsp(kKind, in[0], in[1], out);
  } else if (a == b && a == kCSRStorage) {
    CsrCsr(kKind, SortedCsr(in[0]), SortedCsr(in[1]), out);
  } else {
    const NDArray& s = a == kDefaultStorage ? in[1] : in[0];
    const NDArray& d = a == kDefaultStorage ? in[0] : in[1];
    SparseTimesDense(s, d.data(), out);
  }
  if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
}

bool AddNStorage(const NodeAttrs&, int, DispatchMode* mode, std::vector<int>* in,
                 std::vector<int>* out) {
  bool all_dense = true, all_rsp = true;
  for (int s : *in) {
    all_dense = all_dense && s == kDefaultStorage;
    all_rsp = all_rsp && s == kRowSparseStorage;
  }
  if (all_dense) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else if (all_rsp) {
    (*out)[0] = kRowSparseStorage;
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

void AddNEx(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
            const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name
                           << ": req 'add' is not supported for sparse outputs";
  NDArray out = DistinctOutput(outs[0], in);
  std::vector<int64_t> rows;
  for (const NDArray& a : in) {
    dim_t n;
    const int64_t* idx = Indices(a, rowsparse::kIdx, &n);
    rows.insert(rows.end(), idx, idx + n);
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  out.CheckAndAlloc({TShape({static_cast<dim_t>(rows.size())})});
  if (!rows.empty()) {
    const size_t rs = RowSize(out.shape());
    std::memcpy(out.aux_data(rowsparse::kIdx).dptr_, rows.data(), rows.size() * sizeof(int64_t));
    MXNET_TYPE_SWITCH(out.dtype(), DType, {
      DType* vo = out.data().dptr<DType>();
      std::fill(vo, vo + rows.size() * rs, DType(0));
      for (const NDArray& a : in) {
        dim_t n;
        const int64_t* idx = Indices(a, rowsparse::kIdx, &n);
        const DType* va = n ? a.data().dptr<DType>() : nullptr;
        for (dim_t k = 0; k < n; ++k) {
          const size_t pos = std::lower_bound(rows.begin(), rows.end(), idx[k]) - rows.begin();
          for (size_t j = 0; j < rs; ++j) {
            vo[pos * rs + j] = Apply(SparseBinaryKind::kAdd, vo[pos * rs + j], va[k * rs + j]);
          }
        }
      }
    });
  }
  if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
}

bool ZerosLikeStorage(const NodeAttrs&, int, DispatchMode* mode, std::vector<int>* in,
                      std::vector<int>* out) {
  (*out)[0] = (*in)[0];
  *mode = (*in)[0] == kDefaultStorage ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
  return true;
}

void ZerosLikeEx(const NodeAttrs&, const OpContext&, const std::vector<NDArray>&,
                 const std::vector<OpReqType>& req, const std::vector<NDArray>& out) {
  if (req[0] == kNullOp) return;
  if (out[0].storage_type() == kRowSparseStorage) {
    out[0].CheckAndAlloc({TShape({0})});
    return;
  }
  out[0].CheckAndAlloc({TShape({out[0].shape()[0] + 1}), TShape({0})});
  TBlob indptr = out[0].aux_data(csr::kIndPtr);
  std::memset(indptr.dptr_, 0, indptr.Size() * sizeof(int64_t));
}

}  // namespace

namespace {

// f(0, ...) == 0 for this call's arguments: the op's dense kernel run on float32 zeros (one
// per input). A kernel that cannot run so (it needs a resource, rejects float32) counts as
// not preserving zeros.
bool MapsZeroToZero(const NodeAttrs& attrs, size_t n_inputs = 1) {
  static const auto& fcompute = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
  if (!fcompute.contains(attrs.op)) return false;
  std::vector<float> zeros(n_inputs, 0.f);
  float result = 1.f;
  std::vector<TBlob> in;
  for (float& z : zeros) in.emplace_back(&z, TShape({1}), kFloat32, Context::CPU());
  TBlob out(&result, TShape({1}), kFloat32, Context::CPU());
  try {
    fcompute[attrs.op](attrs, OpContext(), in, {kWriteTo}, {out});
  } catch (const std::exception&) {
    return false;
  }
  return result == 0.f;
}

// rsp (op) rsp -> rsp, csr (op) csr -> csr for a same-shape binary op with f(0, 0) == 0
// (maximum, minimum, hypot).
bool RowUnionStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                     std::vector<int>* out) {
  const int a = (*in)[0], b = (*in)[1];
  if (a == kDefaultStorage && b == kDefaultStorage) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else if (a == b && MapsZeroToZero(attrs, 2)) {
    (*out)[0] = a;
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

// csr: the output stores the positions either input stores; values as in RowUnionCompute.
void CsrUnion(const NodeAttrs& attrs, const OpContext& ctx, const NDArray& a, const NDArray& b,
              const NDArray& out) {
  static const auto& fcompute = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
  const dim_t rows = a.shape()[0];
  const NDArray* src[2] = {&a, &b};
  const int64_t* ptr[2];
  const int64_t* col[2];
  for (int k = 0; k < 2; ++k) {
    ptr[k] = src[k]->aux_data(csr::kIndPtr).dptr<int64_t>();
    col[k] = src[k]->aux_shape(csr::kIdx)[0] ? src[k]->aux_data(csr::kIdx).dptr<int64_t>() : nullptr;
  }
  std::vector<int64_t> indptr(rows + 1, 0), cols;
  for (dim_t r = 0; r < rows; ++r) {
    std::vector<int64_t> c(col[0] + ptr[0][r], col[0] + ptr[0][r + 1]);
    c.insert(c.end(), col[1] + ptr[1][r], col[1] + ptr[1][r + 1]);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    cols.insert(cols.end(), c.begin(), c.end());
    indptr[r + 1] = static_cast<int64_t>(cols.size());
  }
  out.CheckAndAlloc({TShape({rows + 1}), TShape({static_cast<dim_t>(cols.size())})});
  std::memcpy(out.aux_data(csr::kIndPtr).dptr_, indptr.data(), indptr.size() * sizeof(int64_t));
  if (cols.empty()) return;
  std::memcpy(out.aux_data(csr::kIdx).dptr_, cols.data(), cols.size() * sizeof(int64_t));
  const size_t bytes = DTypeSize(out.dtype());
  const TBlob o = out.data();
  std::vector<std::vector<char>> blocks(2, std::vector<char>(cols.size() * bytes, 0));
  std::vector<TBlob> dense;
  for (int k = 0; k < 2; ++k) {
    const char* v = static_cast<const char*>(src[k]->data().dptr_);
    for (dim_t r = 0; r < rows; ++r) {
      // (an input's column indices need not be sorted within a row)
      const auto begin = cols.begin() + indptr[r], end = cols.begin() + indptr[r + 1];
      for (int64_t i = ptr[k][r]; i < ptr[k][r + 1]; ++i) {
        const size_t slot = std::lower_bound(begin, end, col[k][i]) - cols.begin();
        std::memcpy(blocks[k].data() + slot * bytes, v + i * bytes, bytes);
      }
    }
    dense.emplace_back(blocks[k].data(), o.shape_, o.type_flag_, Context::CPU());
  }
  fcompute[attrs.op](attrs, ctx, dense, {kWriteTo}, {o});
}

// The output holds the rows either input stores; the dense kernel runs on those rows of both
// (zeros where an input has no such row).
void RowUnionCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<NDArray>& in,
                     const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  static const auto& fcompute = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name
                           << ": req 'add' is not supported for sparse outputs";
  NDArray out = DistinctOutput(outs[0], in);
  if (out.storage_type() == kCSRStorage) {
    CsrUnion(attrs, ctx, in[0], in[1], out);
    if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
    return;
  }
  dim_t na, nb;
  const int64_t* ia = Indices(in[0], rowsparse::kIdx, &na);
  const int64_t* ib = Indices(in[1], rowsparse::kIdx, &nb);
  std::vector<int64_t> rows(ia, ia + na);
  rows.insert(rows.end(), ib, ib + nb);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  out.CheckAndAlloc({TShape({static_cast<dim_t>(rows.size())})});
  if (!rows.empty()) {
    std::memcpy(out.aux_data(rowsparse::kIdx).dptr_, rows.data(), rows.size() * sizeof(int64_t));
    const size_t rs = RowSize(in[0].shape()), bytes = rs * DTypeSize(out.dtype());
    const TBlob o = out.data();
    std::vector<std::vector<char>> blocks(2, std::vector<char>(rows.size() * bytes, 0));
    std::vector<TBlob> dense;
    for (size_t k = 0; k < 2; ++k) {
      const int64_t* idx = k == 0 ? ia : ib;
      const dim_t n = k == 0 ? na : nb;
      const char* v = n ? static_cast<const char*>(in[k].data().dptr_) : nullptr;
      for (dim_t i = 0, r = 0; i < n; ++i) {
        while (rows[r] != idx[i]) ++r;
        std::memcpy(blocks[k].data() + r * bytes, v + i * bytes, bytes);
      }
      dense.emplace_back(blocks[k].data(), o.shape_, o.type_flag_, Context::CPU());
    }
    fcompute[attrs.op](attrs, ctx, dense, {kWriteTo}, {o});
  }
  if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
}

}  // namespace

bool ZeroPreservingStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                           std::vector<int>* out) {
  if ((*in)[0] == kDefaultStorage) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else if (MapsZeroToZero(attrs)) {
    (*out)[0] = (*in)[0];
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

// The output has the input's positions; the dense kernel maps the stored values.
void StoredValuesCompute(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                         const std::vector<NDArray>& outs) {
  static const auto& fcompute = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name
                           << ": req 'add' is not supported for sparse outputs";
  NDArray out = DistinctOutput(outs[0], in);
  std::vector<TShape> aux;
  for (int i = 0; i < NumAuxData(in[0].storage_type()); ++i) aux.push_back(in[0].aux_shape(i));
  out.CheckAndAlloc(aux);
  for (size_t i = 0; i < aux.size(); ++i) {
    if (aux[i].Size()) {
      std::memcpy(out.aux_data(i).dptr_, in[0].aux_data(i).dptr_, aux[i].Size() * sizeof(int64_t));
    }
  }
  if (out.storage_shape().Size() > 0) {
    fcompute[attrs.op](attrs, ctx, {in[0].data()}, {kWriteTo}, {out.data()});
  }
  if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
}

void SquareSumRowSparse(const NDArray& in, const NDArray& out) {
  const dim_t n = in.storage_initialized() ? in.aux_shape(rowsparse::kIdx)[0] : 0;
  out.CheckAndAlloc({TShape({n})});
  if (n == 0) return;
  std::memcpy(out.aux_data(rowsparse::kIdx).dptr_, in.aux_data(rowsparse::kIdx).dptr_,
              n * sizeof(int64_t));
  const size_t rs = RowSize(in.shape());
  MXNET_TYPE_SWITCH(in.dtype(), DType, {
    const DType* v = in.data().dptr<DType>();
    DType* o = out.data().dptr<DType>();
    for (dim_t k = 0; k < n; ++k) {
      double sum = 0;
      for (size_t j = 0; j < rs; ++j) {
        const DType sq = Apply(SparseBinaryKind::kMul, v[k * rs + j], v[k * rs + j]);
        sum += static_cast<double>(static_cast<float>(sq));
      }
      o[k] = static_cast<DType>(static_cast<float>(sum));
    }
  });
}

nnvm::Op& SetSparseElemwiseAttrs(nnvm::Op& op, SparseBinaryKind kind) {
  switch (kind) {
    case SparseBinaryKind::kAdd:
      return op.set_attr<FInferStorageType>("FInferStorageType", ElemwiseStorage<SparseBinaryKind::kAdd>)
          .set_attr<FComputeEx>("FComputeEx<cpu>", ElemwiseEx<SparseBinaryKind::kAdd>);
    case SparseBinaryKind::kSub:
      return op.set_attr<FInferStorageType>("FInferStorageType", ElemwiseStorage<SparseBinaryKind::kSub>)
          .set_attr<FComputeEx>("FComputeEx<cpu>", ElemwiseEx<SparseBinaryKind::kSub>);
    case SparseBinaryKind::kMul:
      break;
  }
  return op.set_attr<FInferStorageType>("FInferStorageType", ElemwiseStorage<SparseBinaryKind::kMul>)
      .set_attr<FComputeEx>("FComputeEx<cpu>", ElemwiseEx<SparseBinaryKind::kMul>);
}

nnvm::Op& SetRowUnionAttrs(nnvm::Op& op) {
  return op.set_attr<FInferStorageType>("FInferStorageType", RowUnionStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", RowUnionCompute);
}

nnvm::Op& SetZeroPreservingAttrs(nnvm::Op& op) {
  return op.set_attr<FInferStorageType>("FInferStorageType", ZeroPreservingStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", StoredValuesCompute);
}

nnvm::Op& SetSparseAddNAttrs(nnvm::Op& op) {
  return op.set_attr<FInferStorageType>("FInferStorageType", AddNStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", AddNEx);
}

nnvm::Op& SetSparseZerosLikeAttrs(nnvm::Op& op) {
  return op.set_attr<FInferStorageType>("FInferStorageType", ZerosLikeStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", ZerosLikeEx);
}

}  // namespace op
}  // namespace mxnet
