// Storage-aware (row_sparse / csr) kernels of existing operators: each Set*Attrs adds the
// FInferStorageType and FComputeEx<cpu> attributes to the operator's one declaration. Storage
// types the kernels do not cover fall back to the dense kernel (imperative/storage_dispatch).
#ifndef MXNET_OPERATOR_TENSOR_SPARSE_OPS_H_
#define MXNET_OPERATOR_TENSOR_SPARSE_OPS_H_

#include <vector>

#include "mxnet/ndarray.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace op {

enum class SparseBinaryKind { kAdd, kSub, kMul };

/*! \brief elemwise_add/sub: rsp (op) rsp -> rsp, csr (op) csr -> csr; elemwise_mul also
 *  sparse (*) dense -> sparse. */
nnvm::Op& SetSparseElemwiseAttrs(nnvm::Op& op, SparseBinaryKind kind);
/*! \brief An elementwise one-input op (unary, or with a scalar) keeps a sparse input's storage
 *  when it maps 0 to 0 for the call's arguments (sqrt, relu, x * 2, x == 1, ...): its dense
 *  kernel runs on the stored values only. Otherwise the output is dense (fallback). */
nnvm::Op& SetZeroPreservingAttrs(nnvm::Op& op);
/*! \brief The two attributes SetZeroPreservingAttrs adds, for declarations that list them. */
bool ZeroPreservingStorage(const NodeAttrs& attrs, int dev_mask, DispatchMode* mode,
                           std::vector<int>* in, std::vector<int>* out);
void StoredValuesCompute(const NodeAttrs& attrs, const OpContext& ctx,
                         const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                         const std::vector<NDArray>& out);
/*! \brief _scatter_plus_scalar / _scatter_minus_scalar: a sparse input keeps its storage and
 *  positions, the dense kernel maps the stored values only (even where f(0) != 0). */
nnvm::Op& SetScatterScalarAttrs(nnvm::Op& op);
/*! \brief _scatter_elemwise_div: a row_sparse lhs gives a row_sparse output with lhs's rows
 *  (divided by rhs's, which may be dense, row_sparse or csr). */
nnvm::Op& SetScatterDivAttrs(nnvm::Op& op);
/*! \brief A same-shape binary op with f(0, 0) == 0 (maximum, minimum, hypot): two row_sparse
 *  (csr) inputs give a row_sparse (csr) output over the rows (positions) either stores, its
 *  dense kernel run on them. */
nnvm::Op& SetRowUnionAttrs(nnvm::Op& op);
/*! \brief add_n of row_sparse arrays -> row_sparse. */
nnvm::Op& SetSparseAddNAttrs(nnvm::Op& op);
/*! \brief zeros_like of a sparse array -> a sparse array of the same type with no element. */
nnvm::Op& SetSparseZerosLikeAttrs(nnvm::Op& op);
/*! \brief dot's storage inference and sparse kernel: dot(csr, dense) -> dense and
 *  dot(csr.T, dense) -> row_sparse (dense with forward_stype='default'). */
bool DotStorage(const NodeAttrs& attrs, int dev_mask, DispatchMode* mode, std::vector<int>* in,
                std::vector<int>* out);
void DotCsrCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<NDArray>& in,
                   const std::vector<OpReqType>& req, const std::vector<NDArray>& out);
/*! \brief _backward_dot of a csr lhs (dense ograd, dense or row_sparse rhs, no transpose_b):
 *  the rhs gradient csr.T · ograd is row_sparse (dense with transpose_a), the lhs gradient
 *  dense. */
bool DotBackwardStorage(const NodeAttrs& attrs, int dev_mask, DispatchMode* mode,
                        std::vector<int>* in, std::vector<int>* out);
void DotBackwardCsr(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<NDArray>& in,
                    const std::vector<OpReqType>& req, const std::vector<NDArray>& out);

/*! \brief Rows [row_begin, row_begin + out rows) and columns [col_begin, col_begin + out
 *  cols) of the csr array in, written into the csr array out. */
void SliceCsr(const NDArray& in, const NDArray& out, index_t row_begin, index_t col_begin);

/*! \brief Rows `rows` (in range, any order, repeats allowed) of the csr array in, stacked
 *  into the csr array out (take along axis 0). */
void TakeCsrRows(const NDArray& in, const std::vector<int64_t>& rows, const NDArray& out);

/*! \brief out (row_sparse, the input's rows, one column) = sum over axis 1 of the squares
 *  of the row_sparse array in. */
void SquareSumRowSparse(const NDArray& in, const NDArray& out);

/*! \brief When out shares memory with one of inputs, a fresh array of out's storage type
 *  to compute into (then copy with CastStorageSync); else out itself. */
NDArray DistinctOutput(const NDArray& out, const std::vector<NDArray>& inputs);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_SPARSE_OPS_H_
