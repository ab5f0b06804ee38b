// dot with a csr left operand: csr x dense -> dense, csr.T x dense -> row_sparse (or dense).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/type_switch.h"
#include "operator/tensor/dot_param.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {

bool DotStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                std::vector<int>* out) {
  const DotParam& p = Param<DotParam>(attrs);
  const int lhs = (*in)[0], rhs = (*in)[1];
  if (lhs == kDefaultStorage && rhs == kDefaultStorage &&
      (p.forward_stype == -1 || p.forward_stype == kDefaultStorage)) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
    return true;
  }
  if (lhs == kCSRStorage && rhs == kDefaultStorage && !p.transpose_b) {
    const int natural = p.transpose_a ? kRowSparseStorage : kDefaultStorage;
    const int want = p.forward_stype == -1 ? natural : p.forward_stype;
    if (want == natural || (p.transpose_a && want == kDefaultStorage)) {
      (*out)[0] = want;
      *mode = DispatchMode::kFComputeEx;
      return true;
    }
  }
  *mode = DispatchMode::kFComputeFallback;
  return true;
}

namespace {

template <typename DType>
using Acc = std::conditional_t<std::is_same<DType, double>::value, double, float>;

// acc[dst * n + j] += a[r, c] * B[src, j] over the csr's values, with src = r for csr.T x B
// (c otherwise) and dst = slot(r, c).
template <typename DType, typename Slot>
void CsrProduct(const NDArray& a, const TBlob& b, bool transpose_a, size_t n, Slot slot,
                std::vector<Acc<DType>>* acc) {
  if (a.aux_shape(csr::kIdx)[0] == 0) return;
  const int64_t* indptr = a.aux_data(csr::kIndPtr).dptr<int64_t>();
  const int64_t* idx = a.aux_data(csr::kIdx).dptr<int64_t>();
  const DType* v = a.data().dptr<DType>();
  const DType* vb = b.dptr<DType>();
  for (dim_t r = 0; r < a.shape()[0]; ++r) {
    for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
      const Acc<DType> x = static_cast<Acc<DType>>(v[k]);
      const size_t dst = slot(r, idx[k]), src = transpose_a ? r : idx[k];
      for (size_t j = 0; j < n; ++j) {
        (*acc)[dst * n + j] += x * static_cast<Acc<DType>>(vb[src * n + j]);
      }
    }
  }
}

template <typename DType>
void Store(const std::vector<Acc<DType>>& acc, DType* out, OpReqType req) {
  for (size_t i = 0; i < acc.size(); ++i) {
    out[i] = req == kAddTo ? DType(static_cast<Acc<DType>>(out[i]) + acc[i]) : DType(acc[i]);
  }
}

// out = a · b (a.T · b with transpose_a); a csr, b dense, out dense or row_sparse.
void CsrDot(const NDArray& a, const TBlob& b, bool transpose_a, OpReqType req,
            const NDArray& out) {
  if (req == kNullOp) return;
  const size_t n = b.shape_.ProdShape(1, b.shape_.ndim());
  const size_t m = transpose_a ? a.shape()[1] : a.shape()[0];
  MXNET_REAL_TYPE_SWITCH(a.dtype(), DType, {
    if (out.storage_type() == kDefaultStorage) {
      std::vector<Acc<DType>> acc(m * n, Acc<DType>(0));
      CsrProduct<DType>(a, b, transpose_a, n,
                        [&](dim_t r, int64_t c) { return transpose_a ? c : r; }, &acc);
      Store(acc, out.data().dptr<DType>(), req);
      return;
    }
    CHECK_NE(req, kAddTo) << "Operator dot: req 'add' is not supported for a row_sparse "
                             << "output";
    // csr.T x B: the output rows are the csr's distinct column indices.
    std::vector<int64_t> rows;
    const dim_t nnz = a.aux_shape(csr::kIdx)[0];
    if (nnz > 0) {
      const int64_t* idx = a.aux_data(csr::kIdx).dptr<int64_t>();
      rows.assign(idx, idx + nnz);
      std::sort(rows.begin(), rows.end());
      rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    }
    out.CheckAndAlloc({TShape({static_cast<dim_t>(rows.size())})});
    if (rows.empty()) return;
    std::memcpy(out.aux_data(rowsparse::kIdx).dptr_, rows.data(), rows.size() * sizeof(int64_t));
    std::vector<Acc<DType>> acc(rows.size() * n, Acc<DType>(0));
    CsrProduct<DType>(a, b, true, n, [&](dim_t, int64_t c) {
      return static_cast<size_t>(std::lower_bound(rows.begin(), rows.end(), c) - rows.begin());
    }, &acc);
    Store(acc, out.data().dptr<DType>(), kWriteTo);
  });
}

}  // namespace

void DotCsrCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                   const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  CsrDot(in[0], in[1].data(), Param<DotParam>(attrs).transpose_a, req[0], outs[0]);
}

bool DotBackwardStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                        std::vector<int>* out) {
  const DotParam& p = Param<DotParam>(attrs);
  const int ograd = (*in)[0], lhs = (*in)[1], rhs = (*in)[2];
  auto settle = [&](int i, int want) {
    if ((*out)[i] == kUndefinedStorage) (*out)[i] = want;
    return (*out)[i] == want;
  };
  if (ograd == kDefaultStorage && lhs == kDefaultStorage && rhs == kDefaultStorage) {
    if (settle(0, kDefaultStorage) && settle(1, kDefaultStorage)) {
      *mode = DispatchMode::kFCompute;
      return true;
    }
  } else if (lhs == kCSRStorage && ograd == kDefaultStorage &&
             (rhs == kDefaultStorage || rhs == kRowSparseStorage) && !p.transpose_b) {
    // rhs gradient: csr.T · ograd (row_sparse), or csr · ograd with transpose_a (dense),
    // whatever rhs's storage, as MXNet 1.9.1.
    const int rhs_grad = p.transpose_a ? kDefaultStorage : kRowSparseStorage;
    if (settle(0, kDefaultStorage) && settle(1, rhs_grad)) {
      *mode = DispatchMode::kFComputeEx;
      return true;
    }
  }
  *mode = DispatchMode::kFComputeFallback;
  return true;
}

void DotBackwardCsr(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                    const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  const DotParam& p = Param<DotParam>(attrs);
  const NDArray& lhs = in[1];
  const NDArray& rhs = in[2];
  const TBlob og = in[0].data();
  CsrDot(lhs, og, !p.transpose_a, req[1], outs[1]);
  if (req[0] == kNullOp) return;
  // The csr input's (dense) gradient: ograd · rhs.T, or rhs · ograd.T with transpose_a.
  const dim_t r = lhs.shape()[0], c = lhs.shape()[1];
  const dim_t n = static_cast<dim_t>(rhs.shape().ProdShape(1, rhs.shape().ndim()));
  // Row i of rhs's stored values, -1 for a row a row_sparse rhs does not store (zeros).
  std::vector<int64_t> stored(rhs.shape()[0], -1);
  if (rhs.storage_type() == kRowSparseStorage) {
    const dim_t nrows = rhs.aux_shape(rowsparse::kIdx)[0];
    const int64_t* idx = nrows > 0 ? rhs.aux_data(rowsparse::kIdx).dptr<int64_t>() : nullptr;
    for (dim_t k = 0; k < nrows; ++k) stored[idx[k]] = k;
  } else {
    for (size_t k = 0; k < stored.size(); ++k) stored[k] = static_cast<int64_t>(k);
  }
  MXNET_REAL_TYPE_SWITCH(lhs.dtype(), DType, {
    const DType* g = og.dptr<DType>();
    const DType* b = rhs.data().dptr<DType>();
    DType* d = outs[0].data().dptr<DType>();
    LoopMaybeParallel(r * c * n >= ParallelGrain(), r, [&](dim_t i) {
      for (dim_t k = 0; k < c; ++k) {
        const int64_t row = stored[p.transpose_a ? i : k];
        Acc<DType> sum(0);
        if (row >= 0) {
          const DType* x = p.transpose_a ? b + row * n : g + i * n;
          const DType* y = p.transpose_a ? g + k * n : b + row * n;
          for (dim_t j = 0; j < n; ++j) sum += static_cast<Acc<DType>>(x[j]) * y[j];
        }
        DType& cell = d[i * c + k];
        cell = req[0] == kAddTo ? DType(static_cast<Acc<DType>>(cell) + sum) : DType(sum);
      }
    });
  });
}

}  // namespace op
}  // namespace mxnet
