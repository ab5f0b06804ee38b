// Embedding: rows of a weight matrix picked by index (indices truncated toward zero and
// clipped into [0, input_dim), as MXNet does), and the scatter-add that is its weight gradient
// (dense here; row_sparse with sparse_grad=True, in sparse_embedding_op.cc).
#include <algorithm>
#include <string>
#include <vector>

#include "operator/nn/embedding_op.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(EmbeddingParam);

bool EmbeddingShapeOf(const NodeAttrs& attrs, int input_dim, int output_dim,
                      std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignInputShape(attrs, 1, &(*in)[1], TShape{input_dim, output_dim});
  const TShape& d = (*in)[0];
  if (d.ndim() < 0) return false;  // unknown dims of data propagate (partial inference)
  TShape o(d.ndim() + 1, 0);
  for (int i = 0; i < d.ndim(); ++i) o[i] = d[i];
  o[d.ndim()] = output_dim;
  AssignShape(attrs, "output", &(*out)[0], o);
  return o.IsKnown();
}

// Indices may be of any numeric dtype.
bool EmbeddingTypeOf(const NodeAttrs& attrs, int dtype, std::vector<int>* in,
                     std::vector<int>* out) {
  if ((*in)[1] < 0) (*in)[1] = (*out)[0] >= 0 ? (*out)[0] : dtype;
  AssignType(attrs, "output", &(*out)[0], (*in)[1]);
  if ((*in)[0] < 0) (*in)[0] = (*in)[1];
  for (size_t i = 0; i < 2; ++i) {
    CHECK_NE((*in)[i], static_cast<int>(kBool))
        << "Operator " << attrs.op->name << ": " << InputName(attrs, i)
        << " must be of a numeric dtype, given bool";
  }
  return true;
}

bool EmbeddingBackwardShapeOf(const NodeAttrs& attrs, int input_dim, int output_dim,
                              std::vector<TShape>* out) {
  AssignShape(attrs, "weight", &(*out)[0], TShape{input_dim, output_dim});
  return true;
}

bool EmbeddingBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "weight", &(*out)[0], (*in)[0]);
  AssignInputType(attrs, 0, &(*in)[0], (*out)[0]);
  return (*out)[0] >= 0 && (*in)[1] >= 0;
}

void EmbeddingLookup(const TBlob& idx_blob, const TBlob& weight, OpReqType req, const TBlob& out,
                     index_t input_dim) {
  if (req == kNullOp) return;
  const index_t n = static_cast<index_t>(idx_blob.Size());
  const index_t dim = out.shape_[out.ndim() - 1];
  MXNET_NUMERIC_TYPE_SWITCH(idx_blob.type_flag_, IType, {
    MXNET_NUMERIC_TYPE_SWITCH(weight.type_flag_, DType, {
      const IType* idx = idx_blob.dptr<IType>();
      const DType* w = weight.dptr<DType>();
      DType* y = out.dptr<DType>();
      LoopMaybeParallel(n * dim >= ParallelGrain(), n, [&](index_t i) {
        const DType* row = w + ClippedRow(idx[i], input_dim) * dim;
        for (index_t j = 0; j < dim; ++j) Assign(y + i * dim + j, req, row[j]);
      });
    });
  });
}

void EmbeddingGradDense(const TBlob& ograd, const TBlob& idx_blob, OpReqType req,
                        const TBlob& grad, index_t input_dim) {
  if (req == kNullOp) return;
  const index_t n = static_cast<index_t>(idx_blob.Size());
  const index_t dim = grad.shape_[1];
  MXNET_NUMERIC_TYPE_SWITCH(idx_blob.type_flag_, IType, {
    MXNET_NUMERIC_TYPE_SWITCH(grad.type_flag_, DType, {
      const IType* idx = idx_blob.dptr<IType>();
      const DType* g = ograd.dptr<DType>();
      DType* dw = grad.dptr<DType>();
      if (req != kAddTo) std::fill(dw, dw + grad.Size(), DType(0));
      // Serial over indices (repeated indices add into the same row); parallel over columns.
      LoopMaybeParallel(n * dim >= ParallelGrain(), dim, [&](index_t j) {
        for (index_t i = 0; i < n; ++i) {
          DType* cell = dw + ClippedRow(idx[i], input_dim) * dim + j;
          *cell = static_cast<DType>(*cell + g[i * dim + j]);
        }
      });
    });
  });
}

namespace {

bool EmbeddingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  return EmbeddingShapeOf(attrs, p.input_dim, p.output_dim, in, out);
}

bool EmbeddingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return EmbeddingTypeOf(attrs, Param<EmbeddingParam>(attrs).dtype, in, out);
}

void EmbeddingForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  EmbeddingLookup(in[0], in[1], req[0], out[0], Param<EmbeddingParam>(attrs).input_dim);
}

// Inputs (ograd, data); output the weight gradient (input_dim, output_dim).
void EmbeddingBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  EmbeddingGradDense(in[0], in[1], req[0], out[0], Param<EmbeddingParam>(attrs).input_dim);
}

bool EmbeddingStorage(const NodeAttrs&, int, DispatchMode* mode, std::vector<int>* in,
                      std::vector<int>* out) {
  return EmbeddingLookupStorage(mode, in, out);
}

void EmbeddingForwardEx(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                        const std::vector<OpReqType>& req, const std::vector<NDArray>& out) {
  EmbeddingLookupEx(in[0], in[1], req[0], out[0], Param<EmbeddingParam>(attrs).input_dim);
}

// sparse_grad=True: a row_sparse weight gradient (unless the gradient array given is dense).
bool EmbeddingBackwardStorage(const NodeAttrs& attrs, int, DispatchMode* mode,
                              std::vector<int>* in, std::vector<int>* out) {
  return EmbeddingGradStorage(Param<EmbeddingParam>(attrs).sparse_grad, mode, in, out);
}

void EmbeddingBackwardEx(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                         const std::vector<OpReqType>& req, const std::vector<NDArray>& out) {
  EmbeddingGradRowSparse(attrs, in[0], in[1], req[0], out[0],
                         Param<EmbeddingParam>(attrs).input_dim);
}

bool EmbeddingBackwardShape(const NodeAttrs& attrs, std::vector<TShape>*,
                            std::vector<TShape>* out) {
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  return EmbeddingBackwardShapeOf(attrs, p.input_dim, p.output_dim, out);
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
[0, input_dim - 1]. The weight may be row_sparse (rows it does not store read as zeros).
The weight's gradient adds the output gradient of every occurrence of an
index into its row; with ``sparse_grad=True`` it is a row_sparse array holding those rows only.
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
    .set_attr<FInferStorageType>("FInferStorageType", EmbeddingStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", EmbeddingForwardEx)
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
    .set_attr<FComputeEx>("FComputeEx<cpu>", EmbeddingBackwardEx);

}  // namespace op
}  // namespace mxnet
