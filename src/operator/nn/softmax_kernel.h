// Row softmax shared by softmax, log_softmax, softmin, SoftmaxActivation, SoftmaxOutput and
// softmax_cross_entropy: an array is viewed as (outer, M, inner) and each of the outer * inner
// rows of M elements (stride inner) is normalized on its own.
#ifndef MXNET_OPERATOR_NN_SOFTMAX_KERNEL_H_
#define MXNET_OPERATOR_NN_SOFTMAX_KERNEL_H_

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief The (outer, M, inner) view of an array whose rows run along one axis. */
struct SoftmaxLayout {
  index_t outer{1}, M{1}, inner{1};
  index_t rows() const { return outer * inner; }
  /*! \brief Rows along axis (already in [0, ndim)) of shape s. */
  static SoftmaxLayout Along(const TShape& s, int axis);
};

/*! \brief What a row computes: softmax or its log, of x or of -x (softmin), at temperature. */
struct SoftmaxOptions {
  bool log{false};
  bool negate{false};
  double temperature{1.0};
};

/*! \brief out = softmax(in) row by row. in and out are float16/32/64, possibly different.
 *  length (int32 or int64, one value per row, or nullptr) keeps the first length[r] elements
 *  of row r and writes 0 after them. */
void SoftmaxForward(const TBlob& in, const TBlob& out, OpReqType req, const SoftmaxLayout& l,
                    const SoftmaxOptions& o, const TBlob* length);

/*! \brief igrad = d(softmax)/d(in)^T ograd from the forward output out (ograd and out share a
 *  dtype; igrad has the input's). */
void SoftmaxBackward(const TBlob& ograd, const TBlob& out, const TBlob& igrad, OpReqType req,
                     const SoftmaxLayout& l, const SoftmaxOptions& o, const TBlob* length);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_SOFTMAX_KERNEL_H_
