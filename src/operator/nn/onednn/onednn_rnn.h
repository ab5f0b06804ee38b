// The fused RNN operator's float32 matrix products on oneDNN's sgemm, whose JIT kernels are
// several times faster than OpenBLAS on the thin per-step products (batch rows x gates).
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_RNN_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_RNN_H_

#include "mxnet/base.h"

namespace mxnet {
namespace op {

/*! \brief True when oneDNN is built in and enabled (MXNET_ONEDNN_ENABLED, read per call). */
bool RNNUsesOneDNNGemm();

/*! \brief Row-major C = alpha * op(A) * op(B) + beta * C (m x n, inner size k) on oneDNN;
 *  only called when RNNUsesOneDNNGemm() is true. */
void RNNOneDNNSgemm(bool trans_a, bool trans_b, index_t m, index_t n, index_t k, float alpha,
                    const float* a, index_t lda, const float* b, index_t ldb, float beta,
                    float* c, index_t ldc);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_RNN_H_
