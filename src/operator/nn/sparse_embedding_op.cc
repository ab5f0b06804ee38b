// Row_sparse embeddings: lookups in a row_sparse weight (Embedding and SparseEmbedding), the
// row_sparse weight gradient behind Embedding(sparse_grad=True), and contrib.SparseEmbedding.
#include <algorithm>
#include <cstring>
#include <vector>

#include "operator/nn/embedding_op.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(SparseEmbeddingParam);

bool EmbeddingGradStorage(bool sparse, DispatchMode* mode, std::vector<int>* in,
                          std::vector<int>* out) {
  if ((*in)[0] != kDefaultStorage || (*in)[1] != kDefaultStorage) return false;  // fallback
  int& grad = (*out)[0];
  if (grad == kUndefinedStorage) grad = sparse ? kRowSparseStorage : kDefaultStorage;
  if (grad == kDefaultStorage) {
    *mode = DispatchMode::kFCompute;
    return true;
  }
  if (grad != kRowSparseStorage) return false;
  *mode = DispatchMode::kFComputeEx;
  return true;
}

// Dense indices and a row_sparse (or dense) weight give a dense output.
bool EmbeddingLookupStorage(DispatchMode* mode, std::vector<int>* in, std::vector<int>* out) {
  if ((*in)[0] != kDefaultStorage) return false;
  if ((*in)[1] != kDefaultStorage && (*in)[1] != kRowSparseStorage) return false;
  if ((*out)[0] == kUndefinedStorage) (*out)[0] = kDefaultStorage;
  if ((*out)[0] != kDefaultStorage) return false;
  *mode = (*in)[1] == kDefaultStorage ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
  return true;
}

// A row the weight does not store is zeros.
void EmbeddingLookupEx(const NDArray& idx, const NDArray& w, OpReqType req, const NDArray& out,
                       index_t input_dim) {
  if (req == kNullOp) return;
  if (w.storage_type() == kDefaultStorage) {
    EmbeddingLookup(idx.data(), w.data(), req, out.data(), input_dim);
    return;
  }
  const dim_t have = w.storage_initialized() ? w.aux_shape(rowsparse::kIdx)[0] : 0;
  const int64_t* stored = have ? w.aux_data(rowsparse::kIdx).dptr<int64_t>() : nullptr;
  const TBlob ib = idx.data();
  const TBlob ob = out.data();
  const index_t n = static_cast<index_t>(ib.Size());
  const index_t dim = ob.shape_[ob.ndim() - 1];
  MXNET_NUMERIC_TYPE_SWITCH(ib.type_flag_, IType, {
    MXNET_NUMERIC_TYPE_SWITCH(ob.type_flag_, DType, {
      const IType* iv = ib.dptr<IType>();
      const DType* v = have ? w.data().dptr<DType>() : nullptr;
      DType* y = ob.dptr<DType>();
      LoopMaybeParallel(n * dim >= ParallelGrain(), n, [&](index_t i) {
        const int64_t r = ClippedRow(iv[i], input_dim);
        const int64_t* hit = std::lower_bound(stored, stored + have, r);
        const DType* row = hit != stored + have && *hit == r ? v + (hit - stored) * dim : nullptr;
        for (index_t j = 0; j < dim; ++j) Assign(y + i * dim + j, req, row ? row[j] : DType(0));
      });
    });
  });
}

void EmbeddingGradRowSparse(const NodeAttrs& attrs, const NDArray& ograd, const NDArray& idx,
                            OpReqType req, const NDArray& grad, index_t input_dim) {
  if (req == kNullOp) return;
  CHECK_NE(req, kAddTo) << "Operator " << attrs.op->name << ": req 'add' is not supported for "
                        << "a row_sparse weight gradient (use grad_req 'write')";
  const TBlob ib = idx.data();
  const index_t n = static_cast<index_t>(ib.Size());
  const index_t dim = grad.shape()[1];
  std::vector<int64_t> row_of(n);
  MXNET_NUMERIC_TYPE_SWITCH(ib.type_flag_, IType, {
    const IType* v = ib.dptr<IType>();
    for (index_t i = 0; i < n; ++i) row_of[i] = ClippedRow(v[i], input_dim);
  });
  std::vector<int64_t> rows = row_of;
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  const dim_t nr = static_cast<dim_t>(rows.size());
  grad.CheckAndAlloc({TShape({nr})});
  if (nr == 0) return;
  std::memcpy(grad.aux_data(rowsparse::kIdx).dptr_, rows.data(), nr * sizeof(int64_t));
  // Position of each index's row among the stored rows.
  std::vector<index_t> slot(n);
  for (index_t i = 0; i < n; ++i) {
    slot[i] = std::lower_bound(rows.begin(), rows.end(), row_of[i]) - rows.begin();
  }
  const TBlob gb = ograd.data();
  MXNET_NUMERIC_TYPE_SWITCH(grad.dtype(), DType, {
    const DType* g = gb.dptr<DType>();
    DType* dw = grad.data().dptr<DType>();
    std::fill(dw, dw + nr * dim, DType(0));
    // Serial over indices (repeats add into one row, in order); parallel over columns.
    LoopMaybeParallel(n * dim >= ParallelGrain(), dim, [&](index_t j) {
      for (index_t i = 0; i < n; ++i) {
        DType* cell = dw + slot[i] * dim + j;
        *cell = static_cast<DType>(*cell + g[i * dim + j]);
      }
    });
  });
}

namespace {

bool SparseEmbeddingShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  const SparseEmbeddingParam& p = Param<SparseEmbeddingParam>(attrs);
  return EmbeddingShapeOf(attrs, p.input_dim, p.output_dim, in, out);
}

bool SparseEmbeddingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return EmbeddingTypeOf(attrs, Param<SparseEmbeddingParam>(attrs).dtype, in, out);
}

bool SparseEmbeddingStorage(const NodeAttrs&, int, DispatchMode* mode, std::vector<int>* in,
                            std::vector<int>* out) {
  return EmbeddingLookupStorage(mode, in, out);
}

void SparseEmbeddingForward(const NodeAttrs& attrs, const OpContext&,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  EmbeddingLookup(in[0], in[1], req[0], out[0], Param<SparseEmbeddingParam>(attrs).input_dim);
}

void SparseEmbeddingForwardEx(const NodeAttrs& attrs, const OpContext&,
                              const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                              const std::vector<NDArray>& out) {
  EmbeddingLookupEx(in[0], in[1], req[0], out[0], Param<SparseEmbeddingParam>(attrs).input_dim);
}

std::vector<NodeEntry> SparseEmbeddingGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[0]}),
          MakeNode("_backward_SparseEmbedding", GradName(n), {og[0], n->inputs[0]},
                   n->attrs.dict)};
}

bool SparseEmbeddingBackwardShape(const NodeAttrs& attrs, std::vector<TShape>*,
                                  std::vector<TShape>* out) {
  const SparseEmbeddingParam& p = Param<SparseEmbeddingParam>(attrs);
  return EmbeddingBackwardShapeOf(attrs, p.input_dim, p.output_dim, out);
}

bool SparseEmbeddingBackwardStorage(const NodeAttrs&, int, DispatchMode* mode,
                                    std::vector<int>* in, std::vector<int>* out) {
  return EmbeddingGradStorage(true, mode, in, out);
}

void SparseEmbeddingBackward(const NodeAttrs& attrs, const OpContext&,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  EmbeddingGradDense(in[0], in[1], req[0], out[0], Param<SparseEmbeddingParam>(attrs).input_dim);
}

void SparseEmbeddingBackwardEx(const NodeAttrs& attrs, const OpContext&,
                               const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                               const std::vector<NDArray>& out) {
  EmbeddingGradRowSparse(attrs, in[0], in[1], req[0], out[0],
                         Param<SparseEmbeddingParam>(attrs).input_dim);
}

}  // namespace

NNVM_REGISTER_OP(_contrib_SparseEmbedding)
    .describe(R"doc(Maps integer indices to vector representations (embeddings).

note:: ``contrib.SparseEmbedding`` is deprecated, use ``Embedding`` instead.

For an input array of shape (d1, ..., dK), the output has shape (d1, ..., dK, output_dim):
each index picks a row of ``weight`` (input_dim, output_dim), which may be a row_sparse
array (rows it does not store are zeros). Indices are truncated toward zero and clipped into
[0, input_dim - 1]. The storage type of the weight's gradient is ``row_sparse``: it holds
the rows the indices select, each the sum of the output gradients of its occurrences.

Example::

  y = [[ 0.,  1.,  2.], [ 3.,  4.,  5.], [ 6.,  7.,  8.], [ 9., 10., 11.]]
  SparseEmbedding(x=[[1., 3.], [0., 2.]], y, input_dim=4, output_dim=3) =
      [[[ 3.,  4.,  5.], [ 9., 10., 11.]],
       [[ 0.,  1.,  2.], [ 6.,  7.,  8.]]]
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SparseEmbeddingParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array to the embedding operator.")
    .add_argument("weight", "NDArray-or-Symbol", "The embedding weight matrix.")
    .add_arguments(SparseEmbeddingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "weight"}))
    .set_attr<FInferShape>("FInferShape", SparseEmbeddingShape)
    .set_attr<FInferType>("FInferType", SparseEmbeddingType)
    .set_attr<FInferStorageType>("FInferStorageType", SparseEmbeddingStorage)
    .set_attr<FCompute>("FCompute<cpu>", SparseEmbeddingForward)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SparseEmbeddingForwardEx)
    .set_attr<FGradient>("FGradient", SparseEmbeddingGrad);

NNVM_REGISTER_OP(_backward_SparseEmbedding)
    .describe("Gradient of contrib.SparseEmbedding with respect to its weight (row_sparse).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SparseEmbeddingParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "Indices of the forward call")
    .add_arguments(SparseEmbeddingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data"}))
    .set_attr<FInferShape>("FInferShape", SparseEmbeddingBackwardShape)
    .set_attr<FInferType>("FInferType", EmbeddingBackwardType)
    .set_attr<FInferStorageType>("FInferStorageType", SparseEmbeddingBackwardStorage)
    .set_attr<FCompute>("FCompute<cpu>", SparseEmbeddingBackward)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SparseEmbeddingBackwardEx);

}  // namespace op
}  // namespace mxnet
