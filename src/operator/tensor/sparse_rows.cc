// Row selections of sparse arrays: slicing a csr array, and _sparse_retain (the rows of a
// row_sparse array at given indices).
#include <algorithm>
#include <cstring>

#include "common/type_switch.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {

void SliceCsr(const NDArray& in, const NDArray& out, index_t row_begin, index_t col_begin) {
  const dim_t rows = out.shape()[0];
  const index_t col_end = col_begin + out.shape()[1];
  const bool all_cols = col_begin == 0 && col_end == in.shape()[1];
  const dim_t nnz_in = in.aux_shape(csr::kIdx)[0];
  const int64_t* indptr = in.aux_data(csr::kIndPtr).dptr<int64_t>();
  const int64_t* idx = nnz_in ? in.aux_data(csr::kIdx).dptr<int64_t>() : nullptr;
  std::vector<int64_t> out_ptr(rows + 1, 0);
  for (dim_t r = 0; r < rows; ++r) {
    const int64_t b = indptr[row_begin + r], e = indptr[row_begin + r + 1];
    int64_t kept = e - b;
    if (!all_cols) {
      kept = 0;
      for (int64_t k = b; k < e; ++k) kept += idx[k] >= col_begin && idx[k] < col_end;
    }
    out_ptr[r + 1] = out_ptr[r] + kept;
  }
  out.CheckAndAlloc({TShape({rows + 1}), TShape({static_cast<dim_t>(out_ptr[rows])})});
  std::memcpy(out.aux_data(csr::kIndPtr).dptr_, out_ptr.data(), out_ptr.size() * sizeof(int64_t));
  if (out_ptr[rows] == 0) return;
  int64_t* oidx = out.aux_data(csr::kIdx).dptr<int64_t>();
  MXNET_TYPE_SWITCH(in.dtype(), DType, {
    const DType* v = in.data().dptr<DType>();
    DType* ov = out.data().dptr<DType>();
    int64_t pos = 0;
    for (dim_t r = 0; r < rows; ++r) {
      for (int64_t k = indptr[row_begin + r]; k < indptr[row_begin + r + 1]; ++k) {
        if (idx[k] < col_begin || idx[k] >= col_end) continue;
        oidx[pos] = idx[k] - col_begin;
        ov[pos++] = v[k];
      }
    }
  });
}

void TakeCsrRows(const NDArray& in, const std::vector<int64_t>& rows, const NDArray& out) {
  const dim_t n = static_cast<dim_t>(rows.size());
  const bool any = in.storage_initialized();
  const int64_t* indptr = any ? in.aux_data(csr::kIndPtr).dptr<int64_t>() : nullptr;
  std::vector<int64_t> out_ptr(n + 1, 0);
  for (dim_t r = 0; r < n; ++r) {
    out_ptr[r + 1] = out_ptr[r] + (any ? indptr[rows[r] + 1] - indptr[rows[r]] : 0);
  }
  out.CheckAndAlloc({TShape({n + 1}), TShape({static_cast<dim_t>(out_ptr[n])})});
  std::memcpy(out.aux_data(csr::kIndPtr).dptr_, out_ptr.data(), out_ptr.size() * sizeof(int64_t));
  if (out_ptr[n] == 0) return;
  const int64_t* idx = in.aux_data(csr::kIdx).dptr<int64_t>();
  int64_t* oidx = out.aux_data(csr::kIdx).dptr<int64_t>();
  const size_t esize = DTypeSize(in.dtype());
  const char* v = static_cast<const char*>(in.data().dptr_);
  char* ov = static_cast<char*>(out.data().dptr_);
  for (dim_t r = 0; r < n; ++r) {
    const int64_t b = indptr[rows[r]], len = indptr[rows[r] + 1] - b;
    std::memcpy(oidx + out_ptr[r], idx + b, len * sizeof(int64_t));
    std::memcpy(ov + out_ptr[r] * esize, v + b * esize, len * esize);
  }
}

namespace {

bool RetainStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                   std::vector<int>* out) {
  CHECK((*in)[0] == kRowSparseStorage || (*in)[0] == kDefaultStorage)
      << "Operator " << attrs.op->name << ": argument data expected a row_sparse (or dense) "
      << "array, given storage type " << (*in)[0];
  CHECK_EQ((*in)[1], kDefaultStorage)
      << "Operator " << attrs.op->name << ": argument indices expected a dense array, given "
      << "storage type " << (*in)[1];
  (*out)[0] = kRowSparseStorage;
  *mode = DispatchMode::kFComputeEx;
  return true;
}

bool RetainShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  // indices may have any shape: every element names a row.
  AssignShape(attrs, "output", &(*out)[0], (*in)[0]);
  return (*out)[0].IsKnown();
}

bool RetainType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  return (*out)[0] >= 0 && (*in)[1] >= 0;
}

// The output keeps every requested index, in order, with the data's row or zeros.
void RetainCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                   const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name << ": req 'add' is not supported";
  NDArray out = DistinctOutput(outs[0], in);
  const NDArray& data = in[0];
  const TBlob want = in[1].data();
  std::vector<int64_t> rows(want.Size());
  MXNET_TYPE_SWITCH(want.type_flag_, IType, {
    const IType* w = want.dptr<IType>();
    for (size_t i = 0; i < rows.size(); ++i) {
      rows[i] = static_cast<int64_t>(w[i]);
      CHECK(rows[i] >= 0 && rows[i] < data.shape()[0])
          << "Operator " << attrs.op->name << ": index " << rows[i] << " out of range [0, "
          << data.shape()[0] << ")";
    }
  });
  // Indices in any order, repeats allowed: the output holds each row once, sorted.
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  const dim_t n = static_cast<dim_t>(rows.size());
  out.CheckAndAlloc({TShape({n})});
  if (n > 0) {
    std::memcpy(out.aux_data(rowsparse::kIdx).dptr_, rows.data(), n * sizeof(int64_t));
    const size_t rs = data.shape().ProdShape(1, data.shape().ndim());
    const bool dense = data.storage_type() == kDefaultStorage;
    const dim_t have = dense                        ? 0
                       : data.storage_initialized() ? data.aux_shape(rowsparse::kIdx)[0]
                                                    : 0;
    const int64_t* idx = have ? data.aux_data(rowsparse::kIdx).dptr<int64_t>() : nullptr;
    const size_t bytes = rs * DTypeSize(data.dtype());
    const char* v = have || dense ? static_cast<const char*>(data.data().dptr_) : nullptr;
    char* ov = static_cast<char*>(out.data().dptr_);
    for (dim_t i = 0; i < n; ++i) {
      const int64_t* hit = std::lower_bound(idx, idx + have, rows[i]);
      if (dense) {
        std::memcpy(ov + i * bytes, v + rows[i] * bytes, bytes);
      } else if (hit != idx + have && *hit == rows[i]) {
        std::memcpy(ov + i * bytes, v + (hit - idx) * bytes, bytes);
      } else {
        std::memset(ov + i * bytes, 0, bytes);
      }
    }
  }
  if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
}

// Dense data (and output, as a graph executor plans it): the given rows, zeros elsewhere.
void RetainDenseCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name << ": req 'add' is not supported";
  const size_t bytes = in[0].shape_.ProdShape(1, in[0].shape_.ndim()) * DTypeSize(in[0].type_flag_);
  const char* v = static_cast<const char*>(in[0].dptr_);
  char* o = static_cast<char*>(out[0].dptr_);
  std::memset(o, 0, out[0].Size() * DTypeSize(out[0].type_flag_));
  MXNET_TYPE_SWITCH(in[1].type_flag_, IType, {
    const IType* w = in[1].dptr<IType>();
    for (size_t i = 0; i < in[1].Size(); ++i) {
      const int64_t r = static_cast<int64_t>(w[i]);
      CHECK(r >= 0 && r < in[0].shape_[0]) << "Operator " << attrs.op->name << ": index " << r
                                          << " out of range [0, " << in[0].shape_[0] << ")";
      std::memcpy(o + r * bytes, v + r * bytes, bytes);
    }
  });
}

}  // namespace

NNVM_REGISTER_OP(_sparse_retain)
    .describe(R"doc(Pick rows specified by user input index array from a row sparse matrix
and save them in the output sparse matrix.

The output keeps every given index (sorted, unique), holding the data's row there, or zeros
where the data has no such row.

Example::

  data = [[1, 2], [3, 4], [5, 6]]
  indices = [0, 1, 3]
  shape = (4, 2)
  rsp_in = row_sparse_array(data, indices)
  to_retain = [0, 3]
  rsp_out = retain(rsp_in, to_retain)
  rsp_out.data = [[1, 2], [5, 6]]
  rsp_out.indices = [0, 3]

The storage type of ``retain`` output depends on storage types of inputs

- retain(row_sparse, default) = row_sparse
- otherwise, ``retain`` is not supported
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array for sparse_retain operator.")
    .add_argument("indices", "NDArray-or-Symbol", "The index array of rows ids that will be "
                  "retained.")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "indices"}))
    .set_attr<FInferShape>("FInferShape", RetainShape)
    .set_attr<FInferType>("FInferType", RetainType)
    .set_attr<FInferStorageType>("FInferStorageType", RetainStorage)
    .set_attr<FCompute>("FCompute<cpu>", RetainDenseCompute)
    .set_attr<FComputeEx>("FComputeEx<cpu>", RetainCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          MakeNode("_sparse_retain", GradName(n), {og[0], n->inputs[1]}, {}, &n),
          MakeNode("zeros_like", GradName(n), {n->inputs[1]}, {}, &n)};
    });

}  // namespace op
}  // namespace mxnet

namespace mxnet {
namespace op {
namespace {

struct GetnnzParam : public dmlc::Parameter<GetnnzParam> {
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(GetnnzParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>()).describe(
        "Select between the number of values across the whole matrix, in each column, or in "
        "each row.");
  }
};
DMLC_REGISTER_PARAMETER(GetnnzParam);

bool GetnnzShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (s.ndim() < 0) return false;
  CHECK_EQ(s.ndim(), 2) << "Operator " << attrs.op->name << ": expected a 2-D csr input, given "
                        << "shape " << s;
  const auto& axis = Param<GetnnzParam>(attrs).axis;
  if (!axis.has_value()) {
    AssignShape(attrs, "output", &(*out)[0], TShape({1}));
  } else {
    const int a = axis.value();
    CHECK(a == 0 || a == 1 || a == -1 || a == -2)
        << "Operator " << attrs.op->name << ": argument axis expected 0, 1 or None, given " << a;
    AssignShape(attrs, "output", &(*out)[0], TShape({a == 0 || a == -2 ? s[1] : s[0]}));
  }
  return (*out)[0].IsKnown();
}

bool GetnnzType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], kInt64);
  return (*in)[0] >= 0;
}

bool GetnnzStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                   std::vector<int>* out) {
  CHECK_EQ((*in)[0], kCSRStorage) << "Operator " << attrs.op->name
                                  << ": argument data expected a csr array, given storage type "
                                  << (*in)[0];
  (*out)[0] = kDefaultStorage;
  *mode = DispatchMode::kFComputeEx;
  return true;
}

void GetnnzCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                   const std::vector<OpReqType>& req, const std::vector<NDArray>& out) {
  if (req[0] == kNullOp) return;
  const NDArray& a = in[0];
  const auto& axis = Param<GetnnzParam>(attrs).axis;
  const TBlob o = out[0].data();
  int64_t* counts = o.dptr<int64_t>();
  std::fill(counts, counts + o.Size(), int64_t{0});
  const dim_t rows = a.shape()[0], nnz = a.aux_shape(csr::kIdx)[0];
  const int64_t* indptr = a.aux_data(csr::kIndPtr).dptr<int64_t>();
  if (!axis.has_value()) {
    counts[0] = nnz;
  } else if (axis.value() == 0 || axis.value() == -2) {
    const int64_t* idx = nnz ? a.aux_data(csr::kIdx).dptr<int64_t>() : nullptr;
    for (dim_t k = 0; k < nnz; ++k) ++counts[idx[k]];
  } else {
    for (dim_t r = 0; r < rows; ++r) counts[r] = indptr[r + 1] - indptr[r];
  }
}

}  // namespace

NNVM_REGISTER_OP(_contrib_getnnz)
    .describe(R"doc(Number of stored values of a csr matrix, including explicit zeros.

With ``axis=None`` the total (shape (1,)); ``axis=1`` the count of each row; ``axis=0`` the
count of each column. The input must be a CSRNDArray; the output is int64.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<GetnnzParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input")
    .add_arguments(GetnnzParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", GetnnzShape)
    .set_attr<FInferType>("FInferType", GetnnzType)
    .set_attr<FInferStorageType>("FInferStorageType", GetnnzStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", GetnnzCompute)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

}  // namespace op
}  // namespace mxnet
