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

}  // namespace

void DotCsrCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                   const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  if (req[0] == kNullOp) return;
  const DotParam& p = Param<DotParam>(attrs);
  const NDArray& a = in[0];
  const TBlob b = in[1].data();
  const size_t n = b.shape_.ProdShape(1, b.shape_.ndim());
  const size_t m = p.transpose_a ? a.shape()[1] : a.shape()[0];
  const NDArray& out = outs[0];
  MXNET_REAL_TYPE_SWITCH(a.dtype(), DType, {
    if (out.storage_type() == kDefaultStorage) {
      std::vector<Acc<DType>> acc(m * n, Acc<DType>(0));
      CsrProduct<DType>(a, b, p.transpose_a, n,
                        [&](dim_t r, int64_t c) { return p.transpose_a ? c : r; }, &acc);
      Store(acc, out.data().dptr<DType>(), req[0]);
      return;
    }
    CHECK_NE(req[0], kAddTo) << "Operator dot: req 'add' is not supported for a row_sparse "
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

}  // namespace op
}  // namespace mxnet
