// The kernel LayerNorm, InstanceNorm and GroupNorm share: each "row" of a tensor is shifted to
// zero mean and scaled to unit standard deviation, then multiplied by gamma and shifted by
// beta; and the gradient of that map.
#ifndef MXNET_OPERATOR_NN_NORM_ROWS_H_
#define MXNET_OPERATOR_NN_NORM_ROWS_H_

#include <vector>

#include "operator/nn/nn_common.h"

namespace mxnet {
namespace op {

/*!
 * \brief Where the rows lie. The tensor is (outer, len, inner); row r = o * inner + i holds
 *  the len elements (o, k, i), k in [0, len). Element k of row r is scaled by
 *  gamma[((r % gamma_mod) * len + k) / gamma_div]: gamma_mod = gamma_div = 1 gives a gamma per
 *  position k (LayerNorm); gamma_mod = C, gamma_div = len one per row modulo C (InstanceNorm's
 *  channels, GroupNorm's groups).
 */
struct NormRows {
  index_t outer{1}, len{1}, inner{1};
  index_t gamma_mod{1}, gamma_div{1};
  float eps{0};
  /*! \brief The second statistic output holds the variance (InstanceNorm), else the standard
   *  deviation sqrt(var + eps). */
  bool spread_is_var{false};
  index_t rows() const { return outer * inner; }
  /*! \brief Offset of row r's first element; its element k is k * inner further. */
  index_t RowBase(index_t r) const { return (r / inner) * len * inner + r % inner; }
};

/*! \brief Inputs (data, gamma, beta); outputs (out, mean, spread), each of the rows' shape. */
void NormRowsForward(const NormRows& layout, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out);
/*! \brief Inputs (ograd, data, gamma, mean, spread); outputs (data, gamma, beta) gradients. */
void NormRowsBackward(const NormRows& layout, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out);
/*! \brief Only the gamma and beta gradients (outputs 1 and 2) of NormRowsBackward, summed
 *  in double. */
void NormRowsParamGrads(const NormRows& layout, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

/*! \brief FGradient: _backward_<op>(ograd, data, gamma, out[1], out[2]) -> (data, gamma, beta);
 *  the gradients flowing into the statistic outputs are not propagated (as in MXNet). */
std::vector<NodeEntry> NormRowsGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og);

/*! \brief Backward shapes: the input gradients take the forward inputs' shapes. */
bool NormRowsBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                           std::vector<TShape>* out);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_NORM_ROWS_H_
