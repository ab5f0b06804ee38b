// Embedding: rows of a weight matrix picked by index (indices truncated toward zero and
// clipped into [0, input_dim), as MXNet does), and the scatter-add that is its weight gradient.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/ndarray.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace op {

struct EmbeddingParam : public dmlc::Parameter<EmbeddingParam> {
  int input_dim;
  int output_dim;
  int dtype;
  bool sparse_grad;
  DMLC_DECLARE_PARAMETER(EmbeddingParam) {
    DMLC_DECLARE_FIELD(input_dim).set_lower_bound(1).describe(
        "Vocabulary size of the input indices.");
    DMLC_DECLARE_FIELD(output_dim).set_lower_bound(1).describe(
        "Dimension of the embedding vectors.");
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype),
                  {kFloat16, kFloat32, kFloat64, kInt32, kInt64, kInt8, kUint8})
        .set_default(kFloat32)
        .describe("Data type of weight.");
    DMLC_DECLARE_FIELD(sparse_grad).set_default(false).describe(
        "Compute row sparse gradient in the backward calculation: the weight gradient is a "
        "row_sparse array holding the rows of the indices seen.");
  }
};
DMLC_REGISTER_PARAMETER(EmbeddingParam);

namespace {

bool EmbeddingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  AssignInputShape(attrs, 1, &(*in)[1], TShape{p.input_dim, p.output_dim});
  const TShape& d = (*in)[0];
  if (d.ndim() < 0) return false;  // unknown dims of data propagate (partial inference)
  TShape o(d.ndim() + 1, 0);
  for (int i = 0; i < d.ndim(); ++i) o[i] = d[i];
  o[d.ndim()] = p.output_dim;
  AssignShape(attrs, "output", &(*out)[0], o);
  return o.IsKnown();
}

// The weight's dtype (dtype when the weight's is not known yet) is the output's; indices may
// be of any numeric dtype.
bool EmbeddingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  if ((*in)[1] < 0) (*in)[1] = (*out)[0] >= 0 ? (*out)[0] : p.dtype;
  AssignType(attrs, "output", &(*out)[0], (*in)[1]);
  if ((*in)[0] < 0) (*in)[0] = (*in)[1];
  for (size_t i = 0; i < 2; ++i) {
    CHECK_NE((*in)[i], static_cast<int>(kBool))
        << "Operator " << attrs.op->name << ": " << InputName(attrs, i)
        << " must be of a numeric dtype, given bool";
  }
  return true;
}

/*! \brief Row of weight that index v selects: truncated toward zero, clipped to the table. */
template <typename IType>
inline index_t ClippedRow(IType v, index_t rows) {
  const double d = static_cast<double>(v);
  if (!(d > 0)) return 0;  // negative, zero and NaN
  const index_t r = d >= static_cast<double>(rows) ? rows - 1 : static_cast<index_t>(d);
  return r;
}

void EmbeddingForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  const index_t n = static_cast<index_t>(in[0].Size()), dim = p.output_dim;
  MXNET_NUMERIC_TYPE_SWITCH(in[0].type_flag_, IType, {
    MXNET_NUMERIC_TYPE_SWITCH(in[1].type_flag_, DType, {
      const IType* idx = in[0].dptr<IType>();
      const DType* w = in[1].dptr<DType>();
      DType* y = out[0].dptr<DType>();
      LoopMaybeParallel(n * dim >= ParallelGrain(), n, [&](index_t i) {
        const DType* row = w + ClippedRow(idx[i], p.input_dim) * dim;
        for (index_t j = 0; j < dim; ++j) Assign(y + i * dim + j, req[0], row[j]);
      });
    });
  });
}

// Inputs (ograd, data); output the weight gradient (input_dim, output_dim).
void EmbeddingBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  const index_t n = static_cast<index_t>(in[1].Size()), dim = p.output_dim;
  MXNET_NUMERIC_TYPE_SWITCH(in[1].type_flag_, IType, {
    MXNET_NUMERIC_TYPE_SWITCH(out[0].type_flag_, DType, {
      const IType* idx = in[1].dptr<IType>();
      const DType* g = in[0].dptr<DType>();
      DType* dw = out[0].dptr<DType>();
      if (req[0] != kAddTo) std::fill(dw, dw + out[0].Size(), DType(0));
      // Serial over indices (repeated indices add into the same row); parallel over columns.
      LoopMaybeParallel(n * dim >= ParallelGrain(), dim, [&](index_t j) {
        for (index_t i = 0; i < n; ++i) {
          DType* cell = dw + ClippedRow(idx[i], p.input_dim) * dim + j;
          *cell = static_cast<DType>(*cell + g[i * dim + j]);
        }
      });
    });
  });
}

// sparse_grad: the weight gradient is row_sparse (dense inputs, kFComputeEx); a dense
// gradient array is written by the dense kernel.
bool EmbeddingBackwardStorage(const NodeAttrs& attrs, int, DispatchMode* mode,
                              std::vector<int>* in, std::vector<int>* out) {
  const bool dense_in = (*in)[0] == kDefaultStorage && (*in)[1] == kDefaultStorage;
  const int want = Param<EmbeddingParam>(attrs).sparse_grad ? kRowSparseStorage : kDefaultStorage;
  if (dense_in && ((*out)[0] == kUndefinedStorage || (*out)[0] == want)) {
    (*out)[0] = want;
    *mode = want == kDefaultStorage ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
    return true;
  }
  if (dense_in && (*out)[0] == kDefaultStorage) {
    *mode = DispatchMode::kFCompute;
    return true;
  }
  *mode = DispatchMode::kFComputeFallback;
  return true;
}

// Row-sparse weight gradient: the distinct rows the indices pick, each the sum of the output
// gradients of its occurrences.
void EmbeddingBackwardRsp(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                          const std::vector<OpReqType>& req, const std::vector<NDArray>& out) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator _backward_Embedding: req 'add' is not supported for a "
                           << "row_sparse gradient";
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  const TBlob data = in[1].data(), ograd = in[0].data();
  const index_t n = static_cast<index_t>(data.Size()), dim = p.output_dim;
  std::vector<int64_t> rows(n);
  MXNET_NUMERIC_TYPE_SWITCH(data.type_flag_, IType, {
    const IType* idx = data.dptr<IType>();
    for (index_t i = 0; i < n; ++i) rows[i] = ClippedRow(idx[i], p.input_dim);
  });
  std::vector<int64_t> uniq = rows;
  std::sort(uniq.begin(), uniq.end());
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  const NDArray& dw = out[0];
  dw.CheckAndAlloc({TShape({static_cast<dim_t>(uniq.size())})});
  if (uniq.empty()) return;
  std::memcpy(dw.aux_data(rowsparse::kIdx).dptr_, uniq.data(), uniq.size() * sizeof(int64_t));
  MXNET_NUMERIC_TYPE_SWITCH(dw.dtype(), DType, {
    DType* v = dw.data().dptr<DType>();
    const DType* g = ograd.dptr<DType>();
    std::fill(v, v + uniq.size() * dim, DType(0));
    for (index_t i = 0; i < n; ++i) {
      const size_t slot = std::lower_bound(uniq.begin(), uniq.end(), rows[i]) - uniq.begin();
      DType* row = v + slot * dim;
      for (index_t j = 0; j < dim; ++j) row[j] = static_cast<DType>(row[j] + g[i * dim + j]);
    }
  });
}

bool EmbeddingBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  AssignShape(attrs, "weight", &(*out)[0], TShape{p.input_dim, p.output_dim});
  return true;
}

bool EmbeddingBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "weight", &(*out)[0], (*in)[0]);
  AssignInputType(attrs, 0, &(*in)[0], (*out)[0]);
  return (*out)[0] >= 0 && (*in)[1] >= 0;
}

// The indices get a zero gradient (MXNet refuses to compute one).
std::vector<NodeEntry> EmbeddingGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[0]}),
          MakeNode("_backward_Embedding", GradName(n), {og[0], n->inputs[0]}, n->attrs.dict)};
}

}  // namespace

NNVM_REGISTER_OP(Embedding)
    .describe(R"doc(Maps integer indices to vector representations (embeddings).

Each index in ``data`` picks a row of ``weight`` (input_dim, output_dim); the output has shape
data.shape + (output_dim,). Indices are truncated toward zero and clipped into
[0, input_dim - 1]. The weight's gradient adds the output gradient of every occurrence of an
index into its row.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<EmbeddingParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array to the embedding operator.")
    .add_argument("weight", "NDArray-or-Symbol", "The embedding weight matrix.")
    .add_arguments(EmbeddingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "weight"}))
    .set_attr<FInferShape>("FInferShape", EmbeddingShape)
    .set_attr<FInferType>("FInferType", EmbeddingType)
    .set_attr<FCompute>("FCompute<cpu>", EmbeddingForward)
    .set_attr<FGradient>("FGradient", EmbeddingGrad);

NNVM_REGISTER_OP(_backward_Embedding)
    .describe("Gradient of Embedding with respect to its weight.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<EmbeddingParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "Indices of the forward call")
    .add_arguments(EmbeddingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data"}))
    .set_attr<FInferShape>("FInferShape", EmbeddingBackwardShape)
    .set_attr<FInferType>("FInferType", EmbeddingBackwardType)
    .set_attr<FInferStorageType>("FInferStorageType", EmbeddingBackwardStorage)
    .set_attr<FCompute>("FCompute<cpu>", EmbeddingBackward)
    .set_attr<FComputeEx>("FComputeEx<cpu>", EmbeddingBackwardRsp);

}  // namespace op
}  // namespace mxnet
