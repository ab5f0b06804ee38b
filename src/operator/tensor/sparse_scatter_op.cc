// Scatter operators' sparse kernels (_scatter_elemwise_div, _scatter_plus_scalar,
// _scatter_minus_scalar): with a sparse left operand only its stored values are computed, and
// the output keeps its storage and positions. Dense operands run the plain dense kernels.
#include <algorithm>
#include <cstring>
#include <vector>

#include "common/type_switch.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {
namespace {

// A sparse input keeps its storage type; a dense one runs the dense kernel.
bool ScatterScalarStorage(const NodeAttrs&, int, DispatchMode* mode, std::vector<int>* in,
                          std::vector<int>* out) {
  (*out)[0] = (*in)[0];
  *mode = (*in)[0] == kDefaultStorage ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
  return true;
}

// row_sparse lhs: a row_sparse output; all dense: dense; otherwise the dense fallback.
bool ScatterDivStorage(const NodeAttrs&, int, DispatchMode* mode, std::vector<int>* in,
                       std::vector<int>* out) {
  if ((*in)[0] == kDefaultStorage && (*in)[1] == kDefaultStorage) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else if ((*in)[0] == kRowSparseStorage) {
    (*out)[0] = kRowSparseStorage;
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

/*! \brief Rows `rows` of `arr` (dense, row_sparse or csr; rows it does not store are zeros),
 *  packed one after another into dst (row size rs elements of the array's dtype). */
void GatherRows(const NDArray& arr, const std::vector<int64_t>& rows, size_t rs, char* dst) {
  const size_t esize = DTypeSize(arr.dtype());
  const size_t bytes = rs * esize;
  std::memset(dst, 0, rows.size() * bytes);
  const int st = arr.storage_type();
  if (st == kDefaultStorage) {
    const char* v = static_cast<const char*>(arr.data().dptr_);
    for (size_t i = 0; i < rows.size(); ++i) std::memcpy(dst + i * bytes, v + rows[i] * bytes, bytes);
    return;
  }
  if (!arr.storage_initialized()) return;
  const char* v = static_cast<const char*>(arr.data().dptr_);
  if (st == kRowSparseStorage) {
    const dim_t have = arr.aux_shape(rowsparse::kIdx)[0];
    const int64_t* idx = arr.aux_data(rowsparse::kIdx).dptr<int64_t>();
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t* hit = std::lower_bound(idx, idx + have, rows[i]);
      if (hit != idx + have && *hit == rows[i]) {
        std::memcpy(dst + i * bytes, v + (hit - idx) * bytes, bytes);
      }
    }
    return;
  }
  const int64_t* indptr = arr.aux_data(csr::kIndPtr).dptr<int64_t>();
  const int64_t* col = arr.aux_data(csr::kIdx).dptr<int64_t>();
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int64_t k = indptr[rows[i]]; k < indptr[rows[i] + 1]; ++k) {
      std::memcpy(dst + i * bytes + col[k] * esize, v + k * esize, esize);
    }
  }
}

// lhs row_sparse: the output has lhs's rows, each lhs's row divided by rhs's same row (the
// op's dense kernel on the packed rows; rhs rows it does not store divide by zeros).
void ScatterDivRowSparse(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                         const std::vector<NDArray>& outs) {
  static const auto& fcompute = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name
                           << ": req 'add' is not supported for sparse outputs";
  CHECK_EQ(in[0].dtype(), in[1].dtype())
      << "Operator " << attrs.op->name << ": lhs and rhs must have the same dtype, given "
      << DTypeName(in[0].dtype()) << " and " << DTypeName(in[1].dtype());
  NDArray out = DistinctOutput(outs[0], in);
  const NDArray& lhs = in[0];
  const dim_t n = lhs.storage_initialized() ? lhs.aux_shape(rowsparse::kIdx)[0] : 0;
  out.CheckAndAlloc({TShape({n})});
  if (n > 0) {
    std::vector<int64_t> rows(n);
    std::memcpy(rows.data(), lhs.aux_data(rowsparse::kIdx).dptr_, n * sizeof(int64_t));
    std::memcpy(out.aux_data(rowsparse::kIdx).dptr_, rows.data(), n * sizeof(int64_t));
    const size_t rs = lhs.shape().ProdShape(1, lhs.shape().ndim());
    std::vector<char> packed(n * rs * DTypeSize(lhs.dtype()));
    GatherRows(in[1], rows, rs, packed.data());
    const TShape flat({static_cast<dim_t>(n * rs)});
    const TBlob rhs_rows(packed.data(), flat, lhs.dtype(), lhs.ctx());
    fcompute[attrs.op](attrs, ctx, {lhs.data().reshape(flat), rhs_rows}, {kWriteTo},
                       {out.data().reshape(flat)});
  }
  if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
}

}  // namespace

nnvm::Op& SetScatterScalarAttrs(nnvm::Op& op) {
  return op.set_attr<FInferStorageType>("FInferStorageType", ScatterScalarStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", StoredValuesCompute);
}

nnvm::Op& SetScatterDivAttrs(nnvm::Op& op) {
  return op.set_attr<FInferStorageType>("FInferStorageType", ScatterDivStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", ScatterDivRowSparse);
}

}  // namespace op
}  // namespace mxnet
