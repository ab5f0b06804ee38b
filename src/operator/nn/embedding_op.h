// Embedding's parameters and kernels, shared by Embedding (embedding_op.cc) and
// contrib.SparseEmbedding with the row_sparse weight gradient (sparse_embedding_op.cc).
#ifndef MXNET_OPERATOR_NN_EMBEDDING_OP_H_
#define MXNET_OPERATOR_NN_EMBEDDING_OP_H_

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
        "Compute row sparse gradient in the backward calculation. If set to True, the grad's "
        "storage type is row_sparse.");
  }
};

/*! \brief contrib.SparseEmbedding's parameters (MXNet 1.9.1's names and dtypes). */
struct SparseEmbeddingParam : public dmlc::Parameter<SparseEmbeddingParam> {
  int input_dim;
  int output_dim;
  int dtype;
  bool deterministic;
  DMLC_DECLARE_PARAMETER(SparseEmbeddingParam) {
    DMLC_DECLARE_FIELD(input_dim).set_lower_bound(1).describe(
        "Vocabulary size of the input indices.");
    DMLC_DECLARE_FIELD(output_dim).set_lower_bound(1).describe(
        "Dimension of the embedding vectors.");
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype), {kFloat32, kFloat64, kFloat16, kUint8, kInt32})
        .set_default(kFloat32)
        .describe("Data type of weight.");
    DMLC_DECLARE_FIELD(deterministic).set_default(false).describe(
        "Force the backward gradient calculation to be executed based on a deterministic "
        "order at the cost of slower speed (the CPU kernel always is deterministic).");
  }
};

/*! \brief Shape rule: weight (input_dim, output_dim); output data.shape + (output_dim,). */
bool EmbeddingShapeOf(const NodeAttrs& attrs, int input_dim, int output_dim,
                      std::vector<TShape>* in, std::vector<TShape>* out);
/*! \brief Type rule: the weight's dtype (dtype when unknown) is the output's. */
bool EmbeddingTypeOf(const NodeAttrs& attrs, int dtype, std::vector<int>* in,
                     std::vector<int>* out);
/*! \brief Weight gradient's shape (input_dim, output_dim) and type (the output gradient's). */
bool EmbeddingBackwardShapeOf(const NodeAttrs& attrs, int input_dim, int output_dim,
                              std::vector<TShape>* out);
bool EmbeddingBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);

/*! \brief Row of weight that index v selects: truncated toward zero, clipped to the table. */
template <typename IType>
inline index_t ClippedRow(IType v, index_t rows) {
  const double d = static_cast<double>(v);
  if (!(d > 0)) return 0;  // negative, zero and NaN
  return d >= static_cast<double>(rows) ? rows - 1 : static_cast<index_t>(d);
}

/*! \brief out[i, :] = weight[row(idx[i]), :] for a dense weight (input_dim rows). */
void EmbeddingLookup(const TBlob& idx, const TBlob& weight, OpReqType req, const TBlob& out,
                     index_t input_dim);
/*! \brief Dense weight gradient: grad[row(idx[i]), :] += ograd[i, :]. */
void EmbeddingGradDense(const TBlob& ograd, const TBlob& idx, OpReqType req, const TBlob& grad,
                        index_t input_dim);
/*! \brief Storage rule of the lookup (inputs data, weight): dense indices and a dense weight
 *  run the dense kernel, a row_sparse weight the FComputeEx one; the output is dense. */
bool EmbeddingLookupStorage(DispatchMode* mode, std::vector<int>* in, std::vector<int>* out);
/*! \brief Lookup in a row_sparse (or dense) weight: rows it does not store are zeros. */
void EmbeddingLookupEx(const NDArray& idx, const NDArray& weight, OpReqType req,
                       const NDArray& out, index_t input_dim);
/*! \brief Storage rule of the weight gradient (inputs ograd, data): row_sparse (FComputeEx)
 *  when sparse, else dense; a gradient array given dense or row_sparse decides instead. */
bool EmbeddingGradStorage(bool sparse, DispatchMode* mode, std::vector<int>* in,
                          std::vector<int>* out);
/*! \brief Row_sparse weight gradient: only the rows the indices select are stored. */
void EmbeddingGradRowSparse(const NodeAttrs& attrs, const NDArray& ograd, const NDArray& idx,
                            OpReqType req, const NDArray& grad, index_t input_dim);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_EMBEDDING_OP_H_
